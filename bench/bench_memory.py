"""Benchmark: the memory of a graph opened warm and prepared as the servers hold it.

Usage: python bench/bench_memory.py [--copies K] [--work DIR] [--jobs N] [PATH ...]

Corpus, copies and caches as ``bench_typing.py`` (whose child process makes sure the cache
holds the snapshot, the resolved image and the query indexes for this rdx code). Then two
child processes each open the graph as the MCP server and ``rdx watch`` do
(``Graph.open(..., freeze_gc=True)``, then ``prepare_queries()``) and report their RSS after
each step:

- ``baseline``: as before issue 23's compact tables, in that process: the declarations'
  records decoded with every value an object of its own (``rdx.model.store._Sharing`` off),
  the documents sharing only their calls' and definitions' names (``DocumentSharing`` cut
  back to that), and the name search's token strings cached per name rather than per name
  segment (``rdx.search.names``);
- ``now``: as the servers run.

Printed: RSS after the open and after ``prepare_queries`` for both, the difference, and the
targets (issue 23: a prepared 10-copy graph at most 3 GB; issue 21: under 4 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_edits import describe_roots  # noqa: E402
from bench_typing import corpus_and_cache  # noqa: E402

TARGETS_MB = {"issue 23": 3 * 1024, "issue 21": 4 * 1024}


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _turn_sharing_off() -> None:
    """In this process: the values issue 23's compact tables share, each an object of its own again."""
    from msgspec.structs import force_setattr

    import rdx.model.store as store
    from rdx.search import names

    store._Sharing.share = lambda self, record: None  # type: ignore[method-assign]  # noqa: SLF001

    def names_only(self: store.DocumentSharing, doc: store.FileResult) -> store.FileResult:
        share = self.strings.setdefault
        for call in doc.method_refs:
            force_setattr(call, "name", share(call.name, call.name))
            if call.receiver_text is not None:
                force_setattr(call, "receiver_text", share(call.receiver_text, call.receiver_text))
        for d in doc.definitions:
            d.name = share(d.name, d.name)
            if d.params is not None:
                d.params = share(d.params, d.params)
        return doc

    store.DocumentSharing.share = names_only  # type: ignore[method-assign]
    by_name: dict[str, str] = {}

    def token_string(name: str) -> str:
        found = by_name.get(name)
        if found is None:
            found = by_name[name] = " ".join(names._tokens(name))  # noqa: SLF001
        return found

    names._token_string = token_string  # noqa: SLF001


def measure(roots: list[str], cache: str, jobs: int, baseline: bool) -> None:
    """Child process: open warm, prepare, print the RSS after each step as JSON."""
    import rdx

    if baseline:
        _turn_sharing_off()
    report: dict[str, float] = {"start": _rss_mb()}
    t0 = time.perf_counter()
    g = rdx.Graph.open(roots, cache_dir=cache, jobs=jobs, freeze_gc=True)
    t1, c1 = time.perf_counter(), time.process_time()
    report["open"], report["open_s"] = _rss_mb(), t1 - t0
    g.prepare_queries()
    report["prepared"], report["prepare_s"], report["prepare_cpu_s"] = _rss_mb(), time.perf_counter() - t1, time.process_time() - c1
    report["resolved"] = bool(g.open_stats.get("resolved"))
    print(json.dumps(report))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--copies", type=int, default=0, help="benchmark on K wrapped copies of the corpus")
    ap.add_argument("--work", default="/tmp/rdx-bench-work", help="where the copies corpus and the caches go")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--measure", choices=("baseline", "now"), help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    if args.measure:
        measure(args.paths, args.cache, args.jobs, args.measure == "baseline")
        return
    # The same corpus and cache as bench_typing.py.
    roots, cache = corpus_and_cache(args.paths, args.copies, args.work)
    typing = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_typing.py")
    child = subprocess.run(
        [sys.executable, typing, "--prepare-only", cache, "--jobs", str(args.jobs), *roots], capture_output=True, text=True
    )
    if child.returncode != 0:
        sys.exit(f"preparing the cache failed:\n{child.stderr}")
    made = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"corpus {describe_roots(roots)}: {made['documents']} documents, {made['declarations']} declarations; cache {cache}")

    results: dict[str, dict[str, float]] = {}
    for mode in ("baseline", "now"):
        run = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--measure", mode, "--cache", cache, "--jobs", str(args.jobs), *roots],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"measuring ({mode}) failed:\n{run.stderr}")
        results[mode] = json.loads(run.stdout.strip().splitlines()[-1])
    base, now = results["baseline"], results["now"]
    print(f"{'RSS (MiB)':28s} {'baseline':>10s} {'now':>10s} {'change':>10s}")
    for step, label in (("open", "after Graph.open (warm)"), ("prepared", "after prepare_queries")):
        print(f"{label:28s} {base[step]:10.0f} {now[step]:10.0f} {now[step] - base[step]:+10.0f}")
    print(
        f"prepare_queries time: baseline {base['prepare_s']:.1f}s ({base['prepare_cpu_s']:.1f}s CPU), now {now['prepare_s']:.1f}s ({now['prepare_cpu_s']:.1f}s CPU)"
    )
    for issue, limit in TARGETS_MB.items():
        if args.copies == 10:
            verdict = "met" if now["prepared"] <= limit else "not met"
            print(f"target ({issue}): prepared 10-copy RSS <= {limit} MiB: {now['prepared']:.0f} MiB, {verdict}")
        else:
            print(f"target ({issue}): prepared RSS <= {limit} MiB on 10 copies (run with --copies 10)")


if __name__ == "__main__":
    main()
