"""Benchmark: every kind of one-file edit, re-index + resolve, on a real corpus.

Usage: python bench/bench_edits.py [--files N] [--copies K] [PATH ...]

Default corpus: Debian's Ruby standard library, Rails and RuboCop (``make system-deps``).
``--copies K`` builds (once, under ``--work``) a corpus of K copies of it, each file wrapped in
its own ``module CopyN ... end`` so that names stay distinct and lookups stay inside a copy:
the same edits then show whether their cost grows with the project or with what they touch.

The edited files are RuboCop cop files (in the first copy when ``--copies`` is given). Every
edit is timed (``index_source`` or ``delete_document`` + ``resolve``), then undone untimed.
Printed per edit kind: median and p90 in ms, and how many resolves were full ones (the graph's
``last_resolve`` says which path a resolve took). Also printed: the cold index + resolve of
the corpus, its declaration count and the peak RSS, as the baseline these numbers compare to.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from corpus import debian_corpus, describe_roots  # noqa: E402

# The pinned Debian corpus (tests/data/debian-corpus.txt): the same files on every machine,
# whatever else is installed.
DEFAULT_CORPUS = debian_corpus()
EDIT_KINDS = ("body", "new_method", "rename_class", "superclass", "mixin_add", "mixin_remove", "constant_add", "new_file", "delete_file")


def build_copies(roots: list[str], copies: int, work: str) -> str:
    """K copies of the corpus under ``work``, each file wrapped in ``module CopyN``."""
    out = os.path.join(work, f"copies-{copies}")
    stamp = os.path.join(out, ".complete")
    if os.path.exists(stamp):
        return out
    from rdx.workspace.files import collect_files

    files = [e.path for r in roots for e in collect_files(r).files]
    for n in range(copies):
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            body, sep, tail = data.partition(b"\n__END__\n")
            wrapped = b"module Copy%d\n" % n + body + b"\nend\n" + (sep + tail if sep else b"")
            dest = os.path.join(out, f"copy{n}", path.lstrip("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(wrapped)
    open(stamp, "w").close()
    return out


def edits_for(source: bytes) -> dict[str, bytes | None]:
    """The edited texts of one file (None where the file has nothing to edit that way)."""
    out: dict[str, bytes | None] = dict.fromkeys(EDIT_KINDS)
    method = re.search(rb"\n( +)def [a-z_][a-z0-9_?!]*(\(.*\))?\n", source)
    if method:
        at = method.end()
        out["body"] = source[:at] + method.group(1) + b"  rdx_bench_probe = 1\n" + source[at:]
        out["new_method"] = source[: method.start() + 1] + method.group(1) + b"def rdx_bench_added(x) = x\n" + source[method.start() + 1 :]
    cls = re.search(rb"\n( *)class ([A-Z][A-Za-z0-9_]*)( < ([A-Z][A-Za-z0-9_:]*))?\n", source)
    if cls:
        start, end = cls.span(2)
        out["rename_class"] = source[:start] + cls.group(2) + b"RdxRenamed" + source[end:]
        if cls.group(3):
            s, e = cls.span(4)
            out["superclass"] = source[:s] + b"::Object" + source[e:]
        at = cls.end()
        out["mixin_add"] = source[:at] + cls.group(1) + b"  include Comparable\n" + source[at:]
        out["constant_add"] = source[:at] + cls.group(1) + b"  RDX_BENCH_CONSTANT = 1\n" + source[at:]
    mixin = re.search(rb"\n *(include|extend|prepend) [A-Z][A-Za-z0-9_:]*\n", source)
    if mixin:
        out["mixin_remove"] = source[: mixin.start() + 1] + source[mixin.end() :]
    return out


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--files", type=int, default=10, help="edited files (each gets every edit kind)")
    ap.add_argument("--copies", type=int, default=0, help="benchmark on K wrapped copies of the corpus")
    ap.add_argument("--work", default="/tmp/rdx-bench-work", help="where the copies corpus is built")
    ap.add_argument("--reasons", action="store_true", help="print why resolves fell back")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    roots = [p for p in (args.paths or DEFAULT_CORPUS) if os.path.exists(p)]
    if not roots:
        sys.exit("no corpus found: run `make system-deps` or pass paths")
    if args.copies:
        t = time.perf_counter()
        roots = [build_copies(roots, args.copies, args.work)]
        print(f"copies corpus: {roots[0]} ({time.perf_counter() - t:.1f}s to prepare)")

    import rdx

    t0 = time.perf_counter()
    g = rdx.Graph()
    g.index_all(roots, jobs=args.jobs)
    t1 = time.perf_counter()
    g.resolve()
    t2 = time.perf_counter()
    resolved_rss = _peak_rss_mb()
    # What a server does after a cold start: the MCP server prepares its indexes and, like
    # ``rdx watch``, keeps the loaded graph out of the collector's sight (``freeze_gc=True``).
    g.prepare_queries()
    gc.freeze()
    t3 = time.perf_counter()
    stats = g.stats() if hasattr(g, "stats") else {}
    print(f"corpus {describe_roots(roots)}: {len(g.documents)} documents, {stats.get('declarations', '?')} declarations")
    print(
        f"cold: index {t1 - t0:.2f}s + resolve {t2 - t1:.2f}s (peak RSS {resolved_rss:.0f} MB), "
        f"then prepare_queries {t3 - t2:.2f}s (peak RSS {_peak_rss_mb():.0f} MB)"
    )

    cops = sorted(d.path for d in g.documents if d.path and re.search(r"/rubocop-[\d.]+/lib/rubocop/cop/(style|layout|lint)/", d.path))
    if args.copies:
        cops = [p for p in cops if "/copy0/" in p]
    step = max(1, len(cops) // args.files)
    chosen = cops[::step][: args.files]
    times: dict[str, list[float]] = {k: [] for k in EDIT_KINDS}
    full: dict[str, int] = dict.fromkeys(EDIT_KINDS, 0)
    reasons: dict[str, list[str]] = {}
    gc.collect()
    for n, path in enumerate(chosen):
        with open(path, "rb") as f:
            original = f.read()
        edits = edits_for(original)
        new_path = os.path.join(os.path.dirname(path), f"rdx_bench_new_{n}.rb")
        edits["new_file"] = b"class RdxBenchNewFile%d\n  def run(x) = x\nend\n" % n
        for kind in EDIT_KINDS:
            text = edits[kind]
            if kind == "delete_file":
                u0 = time.perf_counter()
                g.delete_document(path)
                g.resolve()
            elif text is None:
                continue
            else:
                u0 = time.perf_counter()
                g.index_source(new_path if kind == "new_file" else path, text)
                g.resolve()
            times[kind].append(time.perf_counter() - u0)
            if getattr(g, "last_resolve", "full") == "full":
                full[kind] += 1
                reasons.setdefault(kind, []).append(str(getattr(g, "last_fallback", "?")))
            # Undo, untimed.
            if kind == "new_file":
                g.delete_document(new_path)
            else:
                g.index_source(path, original)
            g.resolve()
    print(f"edits on {len(chosen)} RuboCop cop files (index_source + resolve), peak RSS {_peak_rss_mb():.0f} MB:")
    print(f"  {'edit':14s} {'n':>3s} {'median':>9s} {'p90':>9s}  full resolves")
    for kind in EDIT_KINDS:
        ts = times[kind]
        if not ts:
            continue
        p90 = statistics.quantiles(ts, n=10)[-1] if len(ts) > 1 else ts[0]
        print(f"  {kind:14s} {len(ts):3d} {statistics.median(ts) * 1000:7.1f}ms {p90 * 1000:7.1f}ms  {full[kind]} of {len(ts)}")
    if args.reasons:
        for kind, why in reasons.items():
            for text in sorted(set(why)):
                print(f"  fell back ({kind}): {text}")


if __name__ == "__main__":
    main()
