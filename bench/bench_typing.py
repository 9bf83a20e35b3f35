"""Benchmark: typing in a large project, one resolve per keystroke, on a graph opened warm as the
servers open it.

Usage: python bench/bench_typing.py [--copies K] [--work DIR] [--files N] [--sequences A,B] [--verify] [--no-freeze-gc] [PATH ...]

Corpus: Debian's Ruby standard library, Rails and RuboCop (``make system-deps``), or the PATHs
given. ``--copies K`` runs on K copies of it, each file wrapped in its own ``module CopyN``
(``bench_edits.build_copies``, built once under ``--work``); the edits then happen in the first
copy. Caches (the ``.rdx`` snapshot and resolved image) go under ``--work`` too.

Opening: a child process runs ``Graph.open`` over the corpus with the cache directory under
``--work`` and, when the snapshot held no resolved graph for these documents and this rdx code,
resolves and saves it (the cold baseline, reported when it happens: index, resolve) and builds
the query indexes once, as a server that ran before would have. This process then opens it as
the MCP server and ``rdx watch`` do: ``Graph.open(..., freeze_gc=True)`` and
``prepare_queries()``, both timed, and replays every sequence on that warm graph (so its peak
RSS is a server's, not the cold index's).

Sequences, on RuboCop cop files (``style/safe_navigation.rb`` first, then the first cop that
``require_relative``s files in its class body (``style/method_call_with_args_parentheses.rb``),
then others evenly spaced among the style, layout and lint cops that have ``class X < Base`` and
a ``def on_*`` callback, ``--files`` in all, 5 by default), each keystroke being ``index_source`` with the buffer's text after it,
then ``resolve()``, timed together:

- ``superclass``: ``class X < Base``: Base erased letter by letter (``< Bas`` ... ``< ``, a
  syntax error), then typed again (``< B`` ... ``< Base``);
- ``mixin``: Enter after the class line, then ``include AllowedMethods`` (the first mixin of
  RuboCop::Cop the class does not include yet) typed letter by letter;
- ``class_self``: Enter after the class line, then ``class << self`` typed (the class's first
  singleton class body: ``class << s`` ... on the way), Enter (the editor adds ``end``), ``def
  helper`` typed, then undone in one keystroke (the body goes again);
- ``new_file``: ``draft_typing_N.rb`` created empty next to the cop, then ``class Draft <
  NotWrittenYet`` typed (an unresolved superclass), Enter (the editor adds ``end``), a method
  ``def run(node)`` typed, Enter, ``node``;
- ``compact_file``: ``draft_compact_N.rb`` created empty, then ``class
  RuboCop::Cop::DraftCompact`` typed (a compact name: ``class R``, ``class RuboCop:``, a syntax
  error, ``class RuboCop::C``, a new class in RuboCop, ...), Enter, ``def run(node)``, Enter,
  ``node``;
- ``rename_method``: the first ``def on_*`` callback's name erased back to ``on_``, then typed
  again (``on_sen``, ``on_se`` ... ``on_``, ``on_s`` ... ``on_send``);
- ``constant``: ``MSG2 = 'x'`` typed on a new line after the class line, then in the callback's
  body a reference ``MSG2`` and a qualified one ``RuboCop::AST::Node``;
- ``delete_file``: the cop deleted (one resolve).

After each sequence its file is restored (or the new file deleted), resolved and
``prepare_queries()`` is run, untimed: the idle time a server uses for it. Sequences are thus
independent of each other.

Printed per sequence: keystrokes, p50, p99 and max in ms (first: the median of the first
keystrokes after the idle ``prepare_queries``), the median time of ``index_source`` alone, the
process's current RSS once the sequence is done on every file, and how many resolves fell back
to a full one with each ``Graph.last_fallback`` reason counted (URIs cut to file names). Then
an overall line, the time of a full resolve of the same warm graph (forced at the end: Graph
has no public flag for it, so the bench drops the graph's resolver, which makes the next
resolve a full one), the ratio p50 / full resolve, the peak RSS and the targets (Debian corpus:
p50 <= 30 ms and p99 <= 100 ms; 10 copies: p50 <= 100 ms and p99 <= 300 ms).

``--verify`` compares, at the end of every sequence, the graph with one resolved from scratch
over the same documents (every Ruby declaration, reference, diagnostic and count, as
``tests/test_incremental.py``'s ``dump``): a full resolve and two walks of the graph per
sequence (3 s each on RuboCop alone, several times that on the Debian corpus), so it is off by
default. ``--no-freeze-gc`` opens with ``freeze_gc=False``, to compare the RSS column.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_edits import DEFAULT_CORPUS, build_copies, describe_roots  # noqa: E402

SEQUENCES = ("superclass", "mixin", "class_self", "new_file", "compact_file", "rename_method", "constant", "delete_file")
# Mixins of RuboCop::Cop; a sequence types the first one its class does not include yet.
MIXINS = ("AllowedMethods", "RangeHelp", "IgnoredNode", "ConfigurableEnforcedStyle")
COP = re.compile(r"/rubocop-[\d.]+/lib/rubocop/cop/(style|layout|lint)/[a-z_0-9]+\.rb$")
CLASS_LINE = re.compile(r"^( *)class ([A-Z]\w*) < Base$", re.M)
CALLBACK = re.compile(r"^( *)def (on_[a-z_]+)\(node\)$", re.M)
IN_BODY_REQUIRE = re.compile(r"^ +require_relative ", re.M)
TARGETS = {"debian": (30.0, 100.0), "10 copies": (100.0, 300.0)}


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_mb() -> float:
    """The current RSS (Linux), to see whether the graph grows while typing."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return float("nan")


class Buffer:
    """An editor buffer: text and a cursor; every keystroke yields the text after it."""

    def __init__(self, text: str, cursor: int) -> None:
        self.text, self.cursor = text, cursor

    def type(self, chars: str) -> Iterator[str]:
        for ch in chars:
            yield from self.key(ch)

    def key(self, inserted: str, after: str = "") -> Iterator[str]:
        """One keystroke inserting ``inserted`` before the cursor and ``after`` behind it (Enter
        with auto-indent, an ``end`` added by the editor)."""
        self.text = self.text[: self.cursor] + inserted + after + self.text[self.cursor :]
        self.cursor += len(inserted)
        yield self.text

    def backspace(self, n: int) -> Iterator[str]:
        for _ in range(n):
            self.text = self.text[: self.cursor - 1] + self.text[self.cursor :]
            self.cursor -= 1
            yield self.text


@dataclass
class Cop:
    path: str
    original: str
    cls: re.Match[str]
    callback: re.Match[str]
    mixin: str


def keystrokes(kind: str, cop: Cop, n: int) -> tuple[str, list[str | None]]:
    """The path a sequence edits and the texts after each of its keystrokes (None: deleted)."""
    src, cls, cb = cop.original, cop.cls, cop.callback
    if kind == "superclass":
        buf = Buffer(src, cls.end())
        return cop.path, [*buf.backspace(4), *buf.type("Base")]
    if kind == "mixin":
        buf = Buffer(src, cls.end())
        return cop.path, [*buf.key("\n" + cls.group(1) + "  "), *buf.type(f"include {cop.mixin}")]
    if kind == "class_self":
        # The class's first ``class << self`` body, a method in it, then undone at once.
        buf = Buffer(src, cls.end())
        indent = cls.group(1) + "  "
        texts = [*buf.key("\n" + indent), *buf.type("class << self"), *buf.key("\n" + indent + "  ", "\n" + indent + "end"), *buf.type("def helper")]
        return cop.path, [*texts, src]
    if kind in ("new_file", "compact_file"):
        # A new file whose class line is typed (an unresolved superclass, or a compact name),
        # then Enter (the editor adds ``end``), a method, Enter, a line of its body.
        name, header = ("draft_typing", "class Draft < NotWrittenYet") if kind == "new_file" else ("draft_compact", "class RuboCop::Cop::DraftCompact")
        path = os.path.join(os.path.dirname(cop.path), f"{name}_{n}.rb")
        buf = Buffer("", 0)
        texts = ["", *buf.type(header), *buf.key("\n  ", "\nend\n"), *buf.type("def run(node)")]
        texts += [*buf.key("\n    ", "\n  end"), *buf.type("node")]
        return path, texts
    if kind == "rename_method":
        name = cb.group(2)
        buf = Buffer(src, cb.start(2) + len(name))
        return cop.path, [*buf.backspace(len(name) - 3), *buf.type(name[3:])]
    if kind == "constant":
        buf = Buffer(src, cls.end())
        texts = [*buf.key("\n" + cls.group(1) + "  "), *buf.type("MSG2 = 'x'")]
        # The callback line moved down by what was typed above it.
        buf.cursor = cb.end() + len(buf.text) - len(src)
        indent = "\n" + cb.group(1) + "  "
        texts += [*buf.key(indent), *buf.type("MSG2"), *buf.key(indent), *buf.type("RuboCop::AST::Node")]
        return cop.path, texts
    if kind == "delete_file":
        return cop.path, [None]
    raise ValueError(kind)


def choose_cops(paths: list[str], count: int) -> list[Cop]:
    """``style/safe_navigation.rb`` and others evenly spaced, each with a class line
    ``class X < Base`` and an ``on_*`` callback."""
    usable = []
    for path in sorted(paths):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        cls, cb = CLASS_LINE.search(text), CALLBACK.search(text)
        if cls is None or cb is None or cb.start() < cls.end():
            continue
        mixin = next((m for m in MIXINS if f"include {m}\n" not in text), None)
        if mixin is None:
            continue
        usable.append(Cop(path, text, cls, cb, mixin))
    first = [c for c in usable if c.path.endswith("/style/safe_navigation.rb")][:1]
    # And the first that requires files inside its class body (``method_call_with_args_parentheses.rb``):
    # while a keystroke's syntax error reads the body away, those files load before it, then
    # after it again (the load order moves).
    first += [c for c in usable if c not in first and IN_BODY_REQUIRE.search(c.original, c.cls.end())][:1]
    first = first[:count]
    others = [c for c in usable if c not in first]
    rest = max(0, count - len(first))
    step = max(1, len(others) // rest) if rest else 1
    return first + others[::step][:rest]


def short(reason: str | None) -> str:
    """A fallback reason with its URIs cut down to file names."""
    if not reason:
        return "(no reason given)"
    return re.sub(r"file://\S*/([^/\s:]+)", r"\1", reason)


@dataclass
class Stats:
    times: list[float] = field(default_factory=list)
    parse: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    fell_back: collections.Counter[str] = field(default_factory=collections.Counter)
    rss_after: float = 0.0
    other: collections.Counter[str] = field(default_factory=collections.Counter)


def pct(ts: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) in ms."""
    s = sorted(ts)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))] * 1000


def ruby_dump(g) -> dict:
    """What ``tests/test_incremental.py``'s ``dump`` compares, for Ruby only (the verifying
    graph has no other languages) and without the file walk's problems (it walked nothing)."""
    import rdx

    decls = {}
    for d in g.declarations:
        if type(d) is not rdx.Declaration:
            continue
        decls[d.name] = (
            d.kind,
            d.owner.name if d.owner else None,
            sorted(m.name for m in d.members),
            [(x.uri, x.kind, x.name, str(x.location), tuple(x.comments), x.signature) for x in d.definitions],
            [a.name for a in d.ancestors] if d.kind in ("Class", "Module", "SingletonClass", "Todo") else None,
            d.visibility,
            d.target.name if d.target else None,
        )
    refs = sorted((str(r.location), r.name, r.declaration.name if r.declaration else None) for r in g.constant_references)
    calls = sorted((str(r.location), r.name, r.receiver.name if r.receiver else None) for r in g.method_references)
    walked = {(p.path, p.code, p.message) for p in g._walk_problems}
    diags = sorted(str(x) for x in g.diagnostics if (x.path, x.code, x.message) not in walked)
    stats = {k: v for k, v in g.stats().items() if k not in ("revision", "diagnostics", "text_files", "text_bytes", "languages")}
    return {"declarations": decls, "constant_references": refs, "method_references": calls, "diagnostics": diags, "stats": stats}


def verify(g) -> str | None:
    """None when ``g`` answers as a graph resolved from scratch over its documents, else what differs."""
    import rdx

    other = rdx.Graph(core=False)
    for doc in g._store.documents.values():
        other._store.put_document(doc)
    other.resolve()
    a, b = ruby_dump(g), ruby_dump(other)
    if a == b:
        return None
    diff = []
    for key in a:
        if a[key] != b[key]:
            if isinstance(a[key], dict):
                names = sorted(k for k in set(a[key]) | set(b[key]) if a[key].get(k) != b[key].get(k))
                diff.append(f"{key}: {len(names)} differ, e.g. {names[:3]}")
            else:
                only = sorted(set(map(str, a[key])) ^ set(map(str, b[key])))
                diff.append(f"{key}: {len(only)} differ, e.g. {only[:2]}")
    return "; ".join(diff)


def prepare(roots: list[str], cache: str, jobs: int) -> None:
    """Child process: make sure the cache holds the snapshot and the resolved graph of the
    corpus for this rdx code, and the query indexes; prints what it took as JSON."""
    import rdx

    t0 = time.perf_counter()
    g = rdx.Graph.open(roots, cache_dir=cache, jobs=jobs)
    t1 = time.perf_counter()
    report: dict[str, object] = {"open": t1 - t0, **{k: g.open_stats.get(k) for k in ("reused", "parsed", "deleted", "resolved")}}
    if not g.open_stats.get("resolved"):
        g.resolve()  # Full: saves the resolved image (Graph._save_resolved).
        report["resolve"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    g.prepare_queries()  # Writes the indexes a server's first queries would otherwise build.
    report["prepare_queries"] = time.perf_counter() - t2
    report["documents"] = len(g.documents)
    report["declarations"] = g.stats()["declarations"]
    report["peak_rss_mb"] = _peak_rss_mb()
    print(json.dumps(report))


def corpus_and_cache(paths: list[str], copies: int, work_dir: str) -> tuple[list[str], str]:
    """The roots to open (``paths``, else the Debian corpus; its ``copies`` built under
    ``work_dir`` when asked) and the cache directory for them: a corpus and cache of its own
    under ``work_dir`` for every set of roots (``build_copies`` names its output by K only)."""
    default = not paths
    roots = [os.path.abspath(p) for p in (paths or DEFAULT_CORPUS) if os.path.exists(p)]
    if not roots:
        sys.exit("no corpus found: run `make system-deps` or pass paths")
    tag = "debian" if default else "paths-" + hashlib.blake2b("\0".join(roots).encode(), digest_size=4).hexdigest()
    work = os.path.join(work_dir, tag) if not default else work_dir
    if copies:
        t = time.perf_counter()
        roots = [build_copies(roots, copies, work)]
        print(f"copies corpus: {roots[0]} ({time.perf_counter() - t:.1f}s to prepare)")
    return roots, os.path.join(work, f"cache-{tag}" + (f"-copies-{copies}" if copies else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--files", type=int, default=5, help="cop files edited (each gets every sequence)")
    ap.add_argument("--copies", type=int, default=0, help="benchmark on K wrapped copies of the corpus")
    ap.add_argument("--work", default="/tmp/rdx-bench-work", help="where the copies corpus and the caches go")
    ap.add_argument("--verify", action="store_true", help="compare with a graph resolved from scratch after every sequence (slow)")
    ap.add_argument("--no-freeze-gc", action="store_true", help="open with freeze_gc=False (to compare the memory growth)")
    ap.add_argument("--sequences", default=",".join(SEQUENCES), help="the sequences to run, comma-separated (default: all)")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--open-only", action="store_true", help="stop after the warm Graph.open + prepare_queries line (its time, RSS and peak)")
    ap.add_argument("--cache-current", action="store_true", help="skip the child process that makes sure the cache is current (it opens and prepares the graph too)")
    ap.add_argument("--prepare-only", metavar="CACHE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    if args.prepare_only:
        prepare(args.paths, args.prepare_only, args.jobs)
        return
    default = not args.paths
    roots, cache = corpus_and_cache(args.paths, args.copies, args.work)

    # 1. The snapshot, the resolved image and the query indexes, in a child process.
    if not args.cache_current:
        child = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--prepare-only", cache, "--jobs", str(args.jobs), *roots],
            capture_output=True, text=True,
        )
        if child.returncode != 0:
            sys.exit(f"preparing the cache failed:\n{child.stderr}")
        made = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"corpus {describe_roots(roots)}: {made['documents']} documents, {made['declarations']} declarations; cache {cache}")
        if made.get("parsed") or "resolve" in made:
            print(
                f"cold baseline (child process): Graph.open {made['open']:.2f}s ({made['parsed']} files parsed, {made['reused']} from the snapshot)"
                f" + full resolve {made.get('resolve', 0):.2f}s + prepare_queries {made['prepare_queries']:.2f}s, peak RSS {made['peak_rss_mb']:.0f} MB"
            )
        else:
            print(f"cache current (child process: warm open {made['open']:.2f}s + prepare_queries {made['prepare_queries']:.2f}s)")

    # 2. Warm, as the servers open it.
    import rdx

    t0 = time.perf_counter()
    g = rdx.Graph.open(roots, cache_dir=cache, jobs=args.jobs, freeze_gc=not args.no_freeze_gc)
    t1 = time.perf_counter()
    g.prepare_queries()
    t2 = time.perf_counter()
    restored = g.open_stats.get("resolved")
    print(
        f"warm: Graph.open(freeze_gc={not args.no_freeze_gc}) {t1 - t0:.2f}s + prepare_queries {t2 - t1:.2f}s, RSS {_rss_mb():.0f} MB (peak {_peak_rss_mb():.0f} MB)"
        + ("" if restored else "  (NOT restored resolved: rdx's code changed since the child saved it? prepare_queries resolved fully)")
    )
    if args.open_only:
        return

    # 3. The sequences.
    cop_paths = [d.path for d in g.documents if d.path and COP.search(d.path)]
    if args.copies:
        cop_paths = [p for p in cop_paths if "/copy0/" in p]
    cops = choose_cops(cop_paths, args.files)
    if not cops:
        sys.exit("no RuboCop cop file found in the corpus")
    print("edited: " + ", ".join(os.path.relpath(c.path, os.path.dirname(os.path.dirname(os.path.dirname(c.path)))) for c in cops))
    sequences = [k for k in args.sequences.split(",") if k]
    if unknown := [k for k in sequences if k not in SEQUENCES]:
        sys.exit(f"unknown sequence {unknown[0]!r}: choose from {', '.join(SEQUENCES)}")
    stats = {kind: Stats() for kind in sequences}
    idle: list[float] = []
    problems: list[str] = []
    for kind in sequences:
        st = stats[kind]
        for n, cop in enumerate(cops):
            path, texts = keystrokes(kind, cop, n)
            for i, text in enumerate(texts):
                u0 = time.perf_counter()
                if text is None:
                    g.delete_document(path)
                else:
                    g.index_source(path, text)
                u1 = time.perf_counter()
                g.resolve()
                u2 = time.perf_counter()
                st.times.append(u2 - u0)
                st.parse.append(u1 - u0)
                if i == 0:
                    st.first.append(u2 - u0)
                if g.last_resolve == "full":
                    st.fell_back[short(g.last_fallback)] += 1
                elif g.last_resolve != "incremental":
                    st.other[g.last_resolve] += 1
            if args.verify:
                v0 = time.perf_counter()
                wrong = verify(g)
                print(f"  verify {kind} on {os.path.basename(cop.path)}: {'same as from scratch' if wrong is None else 'DIFFERS: ' + wrong} ({time.perf_counter() - v0:.1f}s)")
                if wrong is not None:
                    problems.append(f"{kind} on {cop.path}: {wrong}")
            # Undo, untimed, then what a server does when idle.
            if path != cop.path:
                g.delete_document(path)
            else:
                g.index_source(path, cop.original)
            i0 = time.perf_counter()
            g.resolve()
            g.prepare_queries()
            idle.append(time.perf_counter() - i0)
        st.rss_after = _rss_mb()

    # 4. The report.
    everything = [t for st in stats.values() for t in st.times]
    print(f"keystrokes on {len(cops)} cop files (index_source + resolve each; the undo, resolve and prepare_queries between sequences untimed, {sum(idle):.1f}s in all):")
    print(f"  {'sequence':14s} {'keys':>5s} {'p50':>8s} {'p99':>8s} {'max':>8s} {'first':>8s} {'parse':>7s} {'RSS':>8s}  fell back to a full resolve")
    for kind, st in stats.items():
        if not st.times:
            continue
        falls = sum(st.fell_back.values())
        extra = f"  ({', '.join(f'{k}: {v}' for k, v in st.other.items())})" if st.other else ""
        print(
            f"  {kind:14s} {len(st.times):5d} {pct(st.times, 50):6.1f}ms {pct(st.times, 99):6.1f}ms {max(st.times) * 1000:6.1f}ms"
            f" {statistics.median(st.first) * 1000:6.1f}ms {statistics.median(st.parse) * 1000:5.1f}ms {st.rss_after:5.0f} MB  {falls} of {len(st.times)}{extra}"
        )
        for reason, count in st.fell_back.most_common():
            print(f"  {'':14s} {count:5d} x {reason}")
    all_falls = sum(sum(st.fell_back.values()) for st in stats.values())
    p50, p99 = pct(everything, 50), pct(everything, 99)
    print(f"  {'overall':14s} {len(everything):5d} {p50:6.1f}ms {p99:6.1f}ms {max(everything) * 1000:6.1f}ms {'':8s} {'':7s} {'':8s}  {all_falls} of {len(everything)}")

    # 5. The baseline: a full resolve of the same warm graph (same documents as it was opened).
    g._resolver = None  # No public flag: without its resolver the next resolve is a full one.
    some = next(iter(g._store.documents.values()))
    g._store.put_document(some)  # Unchanged, but the graph is stale again.
    f0 = time.perf_counter()
    g.resolve()
    full = time.perf_counter() - f0
    assert g.last_resolve == "full", g.last_resolve
    print(f"full resolve of the same warm graph: {full * 1000:.0f}ms; ratio p50 / full = {p50 / (full * 1000):.4f} (1/{full * 1000 / p50:.0f})")
    print(f"RSS {_rss_mb():.0f} MB, peak RSS {_peak_rss_mb():.0f} MB")
    if args.copies:
        label, (t50, t99) = ("10 copies", TARGETS["10 copies"]) if args.copies == 10 else (f"10 copies, shown for {args.copies}", TARGETS["10 copies"])
    else:
        label, (t50, t99) = ("Debian corpus" if default else "Debian corpus, shown for these paths"), TARGETS["debian"]
    verdict = "met" if p50 <= t50 and p99 <= t99 else "MISSED"
    print(f"target ({label}): p50 <= {t50:.0f}ms, p99 <= {t99:.0f}ms: {verdict} (p50 {p50:.1f}ms, p99 {p99:.1f}ms)")
    print("other targets: Debian corpus p50 <= 30ms, p99 <= 100ms; 10 copies p50 <= 100ms, p99 <= 300ms")
    if problems:
        print(f"VERIFY FAILED for {len(problems)} sequences:")
        for p in problems:
            print("  " + p)
        sys.exit(1)


if __name__ == "__main__":
    main()
