"""Benchmark: full index of a corpus against a plain tree-sitter parse baseline, same run.

Usage: python bench/bench_index.py [--jobs N] [PATH ...]
Default corpus: Debian's Ruby standard library, Rails and RuboCop (``/usr/lib/ruby`` and
``/usr/share/rubygems-integration``; ``make system-deps`` installs them).

Each measurement runs in a fresh child process so peak RSS is its own. The baseline reads and
parses the same files with tree-sitter-ruby in the same number of worker processes and does
nothing else. Printed: files, bytes, definitions, declarations, references, discovery and
resolution seconds, peak RSS, and the ratio of rdx's full index time to the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

DEFAULT_CORPUS = ["/usr/lib/ruby", "/usr/share/rubygems-integration"]


def _peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def _baseline_work(paths: list[str]) -> int:
    import tree_sitter
    import tree_sitter_ruby

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    n = 0
    for p in paths:
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError:
            continue
        parser.parse(data)
        n += 1
    return n


def phase_baseline(roots: list[str], jobs: int) -> dict:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from rdx.discovery.files import collect_files

    t0 = time.perf_counter()
    files = [e.path for r in roots for e in collect_files(r).files]
    sizes = sorted(((os.path.getsize(p), p) for p in files), reverse=True)
    # Same balancing idea as rdx: largest first, batches of about 512 KB.
    batches: list[list[str]] = [[]]
    acc = 0
    for size, p in sizes:
        batches[-1].append(p)
        acc += size
        if acc >= 512 * 1024:
            batches.append([])
            acc = 0
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        parsed = sum(pool.map(_baseline_work, [b for b in batches if b]))
    elapsed = time.perf_counter() - t0
    return {"files": parsed, "bytes": sum(s for s, _ in sizes), "seconds": elapsed, "peak_rss_mb": _peak_rss_mb()}


def phase_rdx(roots: list[str], jobs: int) -> dict:
    import rdx

    t0 = time.perf_counter()
    g = rdx.Graph()
    problems = g.index_all(roots, jobs=jobs)
    t1 = time.perf_counter()
    g.resolve()
    t2 = time.perf_counter()
    stats = g.stats()
    return {
        "files": stats["documents"],
        "bytes": stats["bytes"],
        "definitions": stats["definitions"],
        "declarations": stats["declarations"],
        "constant_references": stats["constant_references"],
        "constant_references_resolved": stats["constant_references_resolved"],
        "method_references": stats["method_references"],
        "problems": len(problems),
        "discovery_seconds": t1 - t0,
        "resolution_seconds": t2 - t1,
        "seconds": t2 - t0,
        "peak_rss_mb": _peak_rss_mb(),
    }


def phase_warm(roots: list[str], jobs: int) -> dict:
    """A cold Graph.open (writes the snapshot), then a warm one with nothing changed."""
    import tempfile

    import rdx

    cache = tempfile.mkdtemp(prefix="rdx-bench-")
    t0 = time.perf_counter()
    cold = rdx.Graph.open(roots, cache_dir=cache, jobs=jobs)
    cold.resolve()
    t1 = time.perf_counter()
    warm = rdx.Graph.open(roots, cache_dir=cache, jobs=jobs)
    t2 = time.perf_counter()
    warm.resolve()
    t3 = time.perf_counter()
    assert warm.open_stats["parsed"] == 0, warm.open_stats
    # Single-file updates on one real file, median of 5 each: an edit that keeps every
    # definition (new code and a comment inside a method body, all later positions move), and
    # an edit that adds a method (a full resolve).
    import statistics

    target = next(d for d in warm.documents if d.path and d.path.endswith("/3.1.0/set.rb"))
    with open(target.path, "rb") as f:
        original = f.read()
    marker = b"\n  def initialize(enum = nil, &block)"
    assert marker in original
    body_updates, shape_updates = [], []
    for i in range(5):
        edited = original.replace(marker, f"\n  # edited {i}{marker.decode()}".encode(), 1)
        edited = edited.replace(b"@hash ||= Hash.new(false)", f"@hash ||= Hash.new(false); x{i} = size".encode(), 1)
        u0 = time.perf_counter()
        warm.index_source(target.path, edited)
        warm.resolve()
        body_updates.append(time.perf_counter() - u0)
    for i in range(5):
        edited = original + f"\nclass Set\n  def rdx_bench_{i}; end\nend\n".encode()
        u0 = time.perf_counter()
        warm.index_source(target.path, edited)
        warm.resolve()
        shape_updates.append(time.perf_counter() - u0)
    return {
        "cold_seconds": t1 - t0,
        "warm_open_seconds": t2 - t1,
        "warm_seconds": t3 - t1,
        "update_median_seconds": statistics.median(body_updates),
        "shape_update_median_seconds": statistics.median(shape_updates),
        "peak_rss_mb": _peak_rss_mb(),
    }


def _child(phase: str, roots: list[str], jobs: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--jobs", str(jobs), *roots], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=None)
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--phase", choices=["baseline", "rdx", "warm"], default=None)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each phase; the best time is kept")
    args = ap.parse_args()
    roots = [p for p in (args.paths or DEFAULT_CORPUS) if os.path.exists(p)]
    if not roots:
        sys.exit("no corpus found: run `make system-deps` or pass paths")
    if args.phase == "baseline":
        print(json.dumps(phase_baseline(roots, args.jobs)))
        return
    if args.phase == "rdx":
        print(json.dumps(phase_rdx(roots, args.jobs)))
        return
    if args.phase == "warm":
        print(json.dumps(phase_warm(roots, args.jobs)))
        return
    # Warm the page cache so neither phase pays for the first read of the corpus.
    _child("baseline", roots, args.jobs)
    base = min((_child("baseline", roots, args.jobs) for _ in range(args.repeat)), key=lambda r: r["seconds"])
    full = min((_child("rdx", roots, args.jobs) for _ in range(args.repeat)), key=lambda r: r["seconds"])
    ratio = full["seconds"] / base["seconds"]
    res_share = full["resolution_seconds"] / full["seconds"]
    print(f"corpus: {', '.join(roots)}  (jobs={args.jobs})")
    print(f"files {full['files']}, bytes {full['bytes']:,}, definitions {full['definitions']:,}, declarations {full['declarations']:,}")
    print(
        f"constant references {full['constant_references']:,} ({full['constant_references_resolved']:,} resolved), "
        f"method references {full['method_references']:,}, file problems {full['problems']}"
    )
    print(f"baseline (tree-sitter parse only): {base['seconds']:.2f}s for {base['files']} files, peak RSS {base['peak_rss_mb']:.0f} MB")
    print(
        f"rdx: discovery {full['discovery_seconds']:.2f}s + resolution {full['resolution_seconds']:.2f}s = {full['seconds']:.2f}s, "
        f"peak RSS {full['peak_rss_mb']:.0f} MB"
    )
    print(f"ratio full index / baseline: {ratio:.2f}x (target <= 1.5x)")
    print(f"resolution share of total: {res_share:.0%} (target < 20%)")
    print(f"peak RSS: {full['peak_rss_mb']:.0f} MB (target < 500 MB)")
    warm = _child("warm", roots, args.jobs)
    print(
        f"warm start (snapshot, nothing changed): open {warm['warm_open_seconds']:.2f}s, open + resolve {warm['warm_seconds']:.2f}s "
        f"= {warm['warm_seconds'] / warm['cold_seconds']:.0%} of a cold open + resolve ({warm['cold_seconds']:.2f}s) (target < 10%)"
    )
    print(
        f"single-file update (re-index + resolve), median of 5: {warm['update_median_seconds'] * 1000:.0f} ms for a method-body edit "
        f"(target < 100 ms), {warm['shape_update_median_seconds'] * 1000:.0f} ms for an edit that adds a method (full resolve)"
    )


if __name__ == "__main__":
    main()
