"""Benchmark: the load order computed from scratch (``LoadOrder``) against ``LoadOrder.replace``
after an edit of one file, on the Debian corpus as a warm ``Graph.open`` holds it.

Usage: python bench/bench_load_order.py [--copies K] [--work DIR] [--repeat N] [PATH ...]

The edited file is RuboCop's ``style/method_call_with_args_parentheses.rb`` (the first copy's
with ``--copies``), whose class body requires two files. Measured, each ``--repeat`` times
(medians; ``replace`` goes back and forth between the original and the edited text, so each
call sees a change):

- ``scratch``: ``LoadOrder(documents, *roots)``, what ``Graph._update`` did on every keystroke
  whose requires differed before ``replace`` (and still does when an added or removed file
  moves others);
- ``offsets``: a comment line typed above the requires (their byte offsets move): the fast path;
- ``rewalk``: the two ``require_relative`` lines moved to the top of the file, out of every body
  (they then load ahead of the cop, not after it): the cop's requires followed again from
  where its walk reached it (``LoadOrder._resume``);
- ``class_self``: ``class << self`` typed letter by letter after the class line: each keystroke's
  ``replace``, its median and maximum, and how many keystrokes walked again.

Each line prints the time and its ratio to ``scratch``. ``--copies K`` opens the K copies corpus
of ``bench_typing`` (its cache must be current: a cold open parses every file, minutes).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_typing import corpus_and_cache  # noqa: E402

import rdx  # noqa: E402
from rdx.model.records import FileResult  # noqa: E402
from rdx.ruby.resolve.order import LoadOrder  # noqa: E402

COP = re.compile(r"/rubocop-[\d.]+/lib/rubocop/cop/style/method_call_with_args_parentheses\.rb$")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--copies", type=int, default=0, help="benchmark on K wrapped copies of the corpus")
    ap.add_argument("--work", default="/tmp/rdx-bench-work", help="where the copies corpus and the caches go")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    roots, cache = corpus_and_cache(args.paths, args.copies, args.work)
    t = time.perf_counter()
    g = rdx.Graph.open(roots, cache_dir=cache, jobs=args.jobs)
    print(f"Graph.open {time.perf_counter() - t:.2f}s")
    store = g._store
    docs = list(store.documents.values())
    root_order = g._root_order()
    cops = sorted(d.path for d in docs if d.path and COP.search(d.path))
    if not cops:
        sys.exit("RuboCop's method_call_with_args_parentheses.rb is not in the corpus")
    path = cops[0]
    uri = next(d.uri for d in docs if d.path == path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    print(f"{len(docs)} documents; edited: {path}")

    def parsed(source: str) -> FileResult:
        g.index_source(uri, source)
        return store.documents[uri]

    original = parsed(text)
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if re.match(r" *class MethodCallWithArgsParentheses\b", line)) + 1
    requires = [line for line in lines if line.lstrip().startswith("require_relative")]
    commented = parsed("".join(lines[:at] + ["        # typed\n"] + lines[at:]))
    moved = parsed("".join([r.lstrip() for r in requires] + [line for line in lines if line not in requires]))
    others = [d for d in docs if d.uri != original.uri] + [original]

    gc.collect()
    gc.freeze()
    scratch: list[float] = []
    order = LoadOrder(others, *root_order)
    for _ in range(max(1, args.repeat // 3)):
        t = time.perf_counter()
        order = LoadOrder(others, *root_order)
        scratch.append(time.perf_counter() - t)
    base = statistics.median(scratch)
    print(f"scratch: LoadOrder {_ms(base)} (median of {len(scratch)})")

    def replaced(variants: list[FileResult], label: str) -> None:
        times: list[float] = []
        walked = 0
        for k in range(args.repeat * 2):
            doc = variants[(k + 1) % 2]  # The order holds variants[0] first.
            t = time.perf_counter()
            result = order.replace(doc)
            times.append(time.perf_counter() - t)
            if result is None:
                sys.exit(f"{label}: replace said no")
            walked += result.walked
        median = statistics.median(times)
        print(f"{label}: replace {_ms(median)} (median of {len(times)}, {walked} walked again), scratch / replace = {base / median:.0f}x")

    replaced([original, commented], "offsets")
    replaced([original, moved], "rewalk")
    order.replace(original)

    typed = "        class << self"
    times: list[float] = []
    walked = 0
    versions = [parsed("".join(lines[:at] + [typed[:k] + "\n"] + lines[at:])) for k in range(1, len(typed) + 1)]
    for doc in versions:
        t = time.perf_counter()
        result = order.replace(doc)
        times.append(time.perf_counter() - t)
        assert result is not None
        walked += result.walked
    print(
        f"class_self: {len(times)} keystrokes, replace median {_ms(statistics.median(times))}, max {_ms(max(times))}"
        f" ({walked} walked again), scratch / median = {base / statistics.median(times):.0f}x"
    )
    g.index_source(uri, text)


if __name__ == "__main__":
    main()
