"""Benchmark: ranked declaration search on the judged query set, against name-only fuzzy
search (the baseline) in the same run.

Usage: python bench/bench_search.py [--cache-dir DIR] [-v]
Corpus: Debian's Ruby standard library, Rails and RuboCop; the judged set is
``tests/data/search_judgments.json`` (intent-style queries, each with the declaration a Ruby
developer would want, plus equally right alternatives).

Printed: index build and restore times, hit@5 and MRR@10 for ranked and fuzzy search (over
all queries, and over the even and odd halves: ranking was tuned looking at the even half),
and ranked search latency (p50/p90, in process, warm). ``-v`` lists the misses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import rdx  # noqa: E402
from rdx.api.persisting import documents_fingerprint  # noqa: E402
from rdx.api.searching import symbol_index  # noqa: E402
from rdx.search.ranked import SYMBOLS_NAME, SymbolIndex  # noqa: E402

CORPUS = ["/usr/lib/ruby", "/usr/share/rubygems-integration"]
JUDGMENTS = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "search_judgments.json")


def evaluate(g: rdx.Graph, judged: list[dict], mode: str) -> tuple[list[int | None], list[float]]:
    ranks: list[int | None] = []
    times = []
    for item in judged:
        wanted = {item["want"], *item.get("also", ())}
        t = time.perf_counter()
        found = [d.name for d in g.search(item["query"], match_mode=mode, limit=10)]
        times.append(time.perf_counter() - t)
        ranks.append(next((i for i, name in enumerate(found) if name in wanted), None))
    return ranks, times


def metrics(ranks: list[int | None]) -> str:
    hit5 = sum(r is not None and r < 5 for r in ranks) / len(ranks)
    mrr = sum(1 / (r + 1) for r in ranks if r is not None) / len(ranks)
    return f"hit@5 {hit5:.3f}  MRR@10 {mrr:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default=None, help="snapshot directory (default: a fresh temporary one)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    judged = json.load(open(JUDGMENTS))
    cache = args.cache_dir or tempfile.mkdtemp(prefix="rdx-bench-search-")
    g = rdx.Graph.open(CORPUS, cache_dir=cache)
    g.resolve()
    view = g._ready()
    t = time.perf_counter()
    SymbolIndex.build(view.state)
    built = time.perf_counter() - t
    g.search("warm up")  # builds (or restores) and saves the graph's own index
    t = time.perf_counter()
    view.symbol_index = None
    restored = symbol_index(view, (cache, lambda: documents_fingerprint(view.state.documents.values()), lambda *_: None))
    loaded = time.perf_counter() - t
    size = os.path.getsize(os.path.join(cache, SYMBOLS_NAME))
    print(f"judged queries: {len(judged)} over {', '.join(CORPUS)}; declarations: {len(view.state.declarations)}")
    print(f"ranked index: built in {built:.2f} s, restored in {loaded * 1000:.0f} ms ({restored is not None}), {size / 1e6:.1f} MB on disk")
    evaluate(g, judged, "ranked")  # warm the per-row caches once, as a long-lived server would be
    ranked, times = evaluate(g, judged, "ranked")
    fuzzy, _ = evaluate(g, judged, "fuzzy")
    for label, ranks in (("ranked", ranked), ("fuzzy (baseline)", fuzzy)):
        print(f"{label:17} all: {metrics(ranks)} | tuned half: {metrics(ranks[0::2])} | held-out half: {metrics(ranks[1::2])}")
    ms = sorted(x * 1000 for x in times)
    print(f"ranked latency: p50 {statistics.median(ms):.1f} ms, p90 {ms[int(len(ms) * 0.9)]:.1f} ms (target: p50 under 10 ms)")
    by_area: dict[str, list[int | None]] = {}
    for item, rank in zip(judged, ranked, strict=True):
        by_area.setdefault(item.get("area", "?"), []).append(rank)
    print("by area: " + "; ".join(f"{area} ({len(r)}): {metrics(r)}" for area, r in sorted(by_area.items())))
    if args.verbose:
        for item, rank in zip(judged, ranked, strict=True):
            if rank is None or rank >= 5:
                print(f"  miss ({'-' if rank is None else rank + 1}): {item['query']!r} -> {item['want']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
