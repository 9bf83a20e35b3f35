"""Benchmark: ranked declaration search on the judged queries, with and without other gems.

Ranked search against name-only fuzzy search (the baseline) in the same run; with
``--add-libraries``, the same queries once more with unrelated libraries added to the corpus.

Usage: python bench/bench_search.py [--cache-dir DIR] [--add-libraries [PATH ...]] [-v]
Corpus: the pinned Debian corpus (``tests/data/debian-corpus.txt``: Ruby's standard library,
Rails, RuboCop and what they need, each gem at its version), so the numbers do not change when
other gems get installed. The judged set is ``tests/data/search_judgments.json`` (intent-style
queries, each with the declaration a Ruby developer would want, plus equally right
alternatives).

Printed: index build and restore times, hit@5 and MRR@10 for ranked and fuzzy search (over
all queries, and over the even and odd halves: ranking was tuned looking at the even half; the
odd half is held out), and ranked search latency (p50/p90/p95, in process, warm, the best of
three runs of each query). ``--add-libraries`` adds libraries to the pinned corpus (the paths
given; without paths, the compiled gems every machine with the corpus has too,
``tests/data/debian-corpus-extra.txt``), prints the same for that corpus, and lists the queries
whose rank moved: added libraries nobody asked about should not push the wanted declarations
out (issue 22). For example ``--add-libraries /usr/lib/ruby/vendor_ruby/sequel
/usr/lib/ruby/vendor_ruby/sequel.rb`` adds Sequel, whose vocabulary (tables, columns, SQL)
overlaps Active Record's. ``-v`` lists the misses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from corpus import debian_corpus, describe_roots, other_installed_ruby  # noqa: E402

import rdx  # noqa: E402
from rdx.api.persisting import documents_fingerprint  # noqa: E402
from rdx.api.searching import symbol_index  # noqa: E402
from rdx.search.ranked import SYMBOLS_NAME, SymbolIndex  # noqa: E402

JUDGMENTS = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "search_judgments.json")
Ranks = list[int | None]


def evaluate(g: rdx.Graph, judged: list[dict], mode: str, runs: int = 1) -> tuple[Ranks, list[float]]:
    """Rank of the first wanted declaration in the top ten (None: not there) per query, and
    each query's best time of ``runs``."""
    ranks: Ranks = []
    times = []
    for item in judged:
        wanted = {item["want"], *item.get("also", ())}
        best = float("inf")
        for _ in range(runs):
            t = time.perf_counter()
            found = [d.name for d in g.search(item["query"], match_mode=mode, limit=10)]
            best = min(best, time.perf_counter() - t)
        times.append(best)
        ranks.append(next((i for i, name in enumerate(found) if name in wanted), None))
    return ranks, times


def metrics(ranks: Ranks) -> str:
    hit5 = sum(r is not None and r < 5 for r in ranks) / len(ranks)
    mrr = sum(1 / (r + 1) for r in ranks if r is not None) / len(ranks)
    return f"hit@5 {hit5:.3f}  MRR@10 {mrr:.3f}"


def ranked_run(roots: list[str], cache: str, judged: list[dict], label: str, described: str) -> Ranks:
    """Open ``roots`` (``described`` in one line), time the ranked index's build and restore,
    and print the judged set's scores and the latency of ranked search; the ranks, per query."""
    g = rdx.Graph.open(roots, cache_dir=cache)
    g.resolve()
    view = g._ready()
    t = time.perf_counter()
    SymbolIndex.build(view.state, view.foreign.state)
    built = time.perf_counter() - t
    g.search("warm up")  # builds (or restores) and saves the graph's own index
    t = time.perf_counter()
    view.symbol_index = None
    restored = symbol_index(view, (cache, lambda: documents_fingerprint(view.state.documents.values()), lambda *_: None))
    loaded = time.perf_counter() - t
    size = os.path.getsize(os.path.join(cache, SYMBOLS_NAME))
    print(f"[{label}] corpus: {described}; declarations: {len(view.state.declarations)}")
    print(f"[{label}] ranked index: built in {built:.2f} s, restored in {loaded * 1000:.0f} ms ({restored is not None}), {size / 1e6:.1f} MB on disk")
    evaluate(g, judged, "ranked")  # warm the per-row caches once, as a long-lived server would be
    ranked, times = evaluate(g, judged, "ranked", runs=3)
    fuzzy, _ = evaluate(g, judged, "fuzzy")
    for name, ranks in (("ranked", ranked), ("fuzzy (baseline)", fuzzy)):
        print(f"[{label}] {name:17} all: {metrics(ranks)} | tuned half: {metrics(ranks[0::2])} | held-out half: {metrics(ranks[1::2])}")
    ms = sorted(x * 1000 for x in times)
    print(
        f"[{label}] ranked latency: p50 {statistics.median(ms):.1f} ms, p90 {ms[int(len(ms) * 0.9)]:.1f} ms, "
        f"p95 {ms[int(len(ms) * 0.95)]:.1f} ms (target: p50 under 10 ms)"
    )
    by_area: dict[str, Ranks] = {}
    for item, rank in zip(judged, ranked, strict=True):
        by_area.setdefault(item.get("area", "?"), []).append(rank)
    print(f"[{label}] by area: " + "; ".join(f"{area} ({len(r)}): {metrics(r)}" for area, r in sorted(by_area.items())))
    return ranked


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cache-dir", default=None, help="snapshot directory (default: a fresh temporary one)")
    parser.add_argument(
        "--add-libraries", nargs="*", default=None, metavar="PATH",
        help="also search with these libraries added to the pinned corpus (default: tests/data/debian-corpus-extra.txt)",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    judged = json.load(open(JUDGMENTS))
    cache = args.cache_dir or tempfile.mkdtemp(prefix="rdx-bench-search-")
    pinned = debian_corpus()
    print(f"judged queries: {len(judged)}")
    ranked = ranked_run(pinned, cache, judged, "pinned", describe_roots(pinned))
    if args.verbose:
        for item, rank in zip(judged, ranked, strict=True):
            if rank is None or rank >= 5:
                print(f"  miss ({'-' if rank is None else rank + 1}): {item['query']!r} -> {item['want']}")
    if args.add_libraries is not None:
        extra = [p for p in (args.add_libraries or other_installed_ruby()) if os.path.abspath(p) not in pinned]
        missing = [p for p in extra if not os.path.exists(p)]
        if missing or not extra:
            sys.exit(f"cannot add {missing or 'no libraries'}: pass existing paths outside the pinned corpus")
        described = f"{describe_roots(pinned)} and {describe_roots(extra)}"
        added = ranked_run([*pinned, *extra], os.path.join(cache, "added"), judged, f"+{len(extra)} libraries", described)
        moved = [(item, a, b) for item, a, b in zip(judged, ranked, added, strict=True) if a != b]
        print(f"rank moved for {len(moved)} of {len(judged)} queries when {len(extra)} libraries were added:")
        for item, a, b in moved:
            print(f"  {'-' if a is None else a + 1} -> {'-' if b is None else b + 1}: {item['query']!r} -> {item['want']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
