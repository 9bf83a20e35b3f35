"""Benchmark: how many resolves of the random skeleton-edit sequences fall back to a full resolve,
and why.

Usage: python bench/bench_fallbacks.py [--seeds N] [--first S] [--generated STEPS]

Runs the sequences of ``tests/test_incremental_skeleton.py`` (``run_skeleton_sequence``: random
renames, superclass changes, mixins added and removed, files added and deleted over a small
class hierarchy, eight resolves per seed, each checked against a graph built from scratch), by
default over the 80 seeds of its four test chunks (640 resolves). Prints how many resolves
fell back to a full resolve (target: 0 of 640), how many had nothing to do (an edit that
changed nothing), and every reason given by ``Graph.last_fallback``, with the file and
declaration names taken out so that the same reason counts once, most frequent first. A seed
whose graph differs from the fresh one is reported (and ends with exit status 1); the counts
include its resolves up to that one.

``--generated STEPS`` runs the harder sequences of ``tests/test_incremental_generated.py``
instead: the random programs of the differential tests (compact names, constant aliases,
``class << self``, Object's mixins...) edited line by line at random, broken syntax included
(``check_seed``, after ``prepare_queries``), STEPS resolves per seed.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # ``tests`` is imported as a package, as pytest does
sys.path.insert(0, str(ROOT / "tests"))

from tests.test_incremental_generated import check_seed  # noqa: E402
from tests.test_incremental_skeleton import format_reasons, run_skeleton_sequence  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=80, help="how many seeds (the tests run 4 chunks of 20)")
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument(
        "--generated", type=int, default=0, metavar="STEPS",
        help="run the generated programs of tests/test_incremental_generated.py instead, STEPS random line edits each (broken syntax included)",
    )
    args = ap.parse_args()
    reasons: collections.Counter[str] = collections.Counter()
    outcomes: collections.Counter[str] = collections.Counter()
    per_seed: list[tuple[int, int]] = []
    wrong: list[int] = []
    t0 = time.perf_counter()
    for seed in range(args.first, args.first + args.seeds):
        before = sum(reasons.values())
        try:
            if args.generated:
                check_seed(seed, args.generated, outcomes, reasons)
            else:
                run_skeleton_sequence(seed, reasons, outcomes)
        except AssertionError:
            wrong.append(seed)  # A resolve that differs from a fresh graph ends its sequence.
        per_seed.append((sum(reasons.values()) - before, seed))
    elapsed = time.perf_counter() - t0
    total = sum(outcomes.values())
    fell_back = outcomes["full"]
    what = f"random line edits of generated programs ({args.generated} each)" if args.generated else "random skeleton edits"
    print(f"{what}, seeds {args.first}..{args.first + args.seeds - 1} ({elapsed:.1f}s, every resolve checked against a fresh graph):")
    print(
        f"{fell_back} of {total} resolves fell back{'' if args.generated else ' (target 0)'}; {outcomes['incremental']} incremental,"
        f" {outcomes['none']} with nothing to resolve"
    )
    if reasons:
        print(f"reasons ({len(reasons)} distinct):")
        print(format_reasons(reasons))
        worst = [f"{seed} ({n})" for n, seed in sorted(per_seed, reverse=True)[:5] if n]
        print("seeds with the most fallbacks: " + ", ".join(worst))
    if wrong:
        print(f"DIFFERS FROM A FRESH GRAPH: seeds {', '.join(map(str, wrong))} (each sequence stopped there; pytest shows the files)")
        sys.exit(1)

if __name__ == "__main__":
    main()
