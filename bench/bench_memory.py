"""Benchmark: the memory of a graph opened warm and prepared as the servers hold it.

Usage: python bench/bench_memory.py [--copies K] [--work DIR] [--jobs N] [PATH ...]

Corpus, copies and caches as ``bench_typing.py`` (whose child process makes sure the cache
holds the snapshot, the resolved image and the query indexes for this rdx code). Then two
child processes each open the graph as the MCP server and ``rdx watch`` do
(``Graph.open(..., freeze_gc=True)``, then ``prepare_queries()``) and report their RSS after
each step:

- ``baseline``: the declarations' records decoded as before issue 23's compact tables, every
  value an object of its own (``rdx.model.store``'s value sharing turned off in that process);
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


def measure(roots: list[str], cache: str, jobs: int, baseline: bool) -> None:
    """Child process: open warm, prepare, print the RSS after each step as JSON."""
    import rdx
    import rdx.model.store as store

    if baseline:
        store._Sharing.share = lambda self, record: None  # type: ignore[method-assign]  # noqa: SLF001
    report: dict[str, float] = {"start": _rss_mb()}
    t0 = time.perf_counter()
    g = rdx.Graph.open(roots, cache_dir=cache, jobs=jobs, freeze_gc=True)
    t1 = time.perf_counter()
    report["open"], report["open_s"] = _rss_mb(), t1 - t0
    g.prepare_queries()
    report["prepared"], report["prepare_s"] = _rss_mb(), time.perf_counter() - t1
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
    print(f"prepare_queries time: baseline {base['prepare_s']:.1f}s, now {now['prepare_s']:.1f}s")
    for issue, limit in TARGETS_MB.items():
        if args.copies == 10:
            verdict = "met" if now["prepared"] <= limit else "not met"
            print(f"target ({issue}): prepared 10-copy RSS <= {limit} MiB: {now['prepared']:.0f} MiB, {verdict}")
        else:
            print(f"target ({issue}): prepared RSS <= {limit} MiB on 10 copies (run with --copies 10)")


if __name__ == "__main__":
    main()
