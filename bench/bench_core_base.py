"""Benchmark: a full resolve of a small project, from scratch against on the resolved core.

Usage: python bench/bench_core_base.py [--programs N] [--edits K]

Projects: the differential tests' generated Ruby programs (``tests/rubygen.py``, seeds 0 to
N-1, 4 files each: nested and compact namespaces, reopenings across files, mixins, ``class <<
self``, aliases, private constants), each also after K random line edits
(``tests/test_incremental_generated.mutate``), and two small hand-written projects (the
incremental tests' shop and a project that writes into core's classes). Each project is
indexed into a new graph and resolved twice in the same iteration, alternating which goes
first: ``resolve(from_scratch=True)`` (the baseline) and ``resolve()`` (on the resolved core
when it applies: ``rdx.ruby.resolve.base``). Prints the CPU time of each (median and total),
their ratio, how many resolves started from core and why the others did not (counted), and
checks every resolve on core against the scratch one (``tests/conftest.canonical_state``)."""

from __future__ import annotations

import argparse
import collections
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # ``tests`` is imported as a package, as pytest does
sys.path.insert(0, os.path.join(ROOT, "tests"))

from conftest import canonical_state  # noqa: E402
from rubygen import generate  # noqa: E402
from test_core_base import INTO_CORE  # noqa: E402
from test_incremental import BASE  # noqa: E402
from test_incremental_generated import mutate  # noqa: E402

import rdx  # noqa: E402
from rdx.api.persisting import core_base, core_document  # noqa: E402


def projects(programs: int, edits: int) -> list[dict[str, str]]:
    out = [dict(BASE), dict(INTO_CORE)]
    for seed in range(programs):
        rng = random.Random(seed)
        files = {f"file:///gen/{name}": text for name, text in generate(seed).files.items()}
        out.append(dict(files))
        for _ in range(edits):
            mutate(files, rng)
            out.append(dict(files))
    return out


def timed(files: dict[str, str], from_scratch: bool) -> tuple[float, rdx.Graph]:
    g = rdx.Graph()
    for uri, text in files.items():
        g.index_source(uri, text)
    t = time.process_time()
    g.resolve(from_scratch=from_scratch)
    return time.process_time() - t, g


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=40)
    parser.add_argument("--edits", type=int, default=3)
    args = parser.parse_args()
    core = core_document()
    t = time.process_time()
    core_base(core)
    core_base(core)  # Built on the second ask.
    print(f"resolved core built once: {(time.process_time() - t) * 1000:.1f} ms CPU")
    scratch: list[float] = []
    based: list[float] = []
    started = collections.Counter()
    why = collections.Counter()
    wrong = 0
    for n, files in enumerate(projects(args.programs, args.edits)):
        order = (True, False) if n % 2 == 0 else (False, True)
        results = {flag: timed(files, flag) for flag in order}
        scratch.append(results[True][0])
        based.append(results[False][0])
        g = results[False][1]
        started[g.last_start] += 1
        if g.last_start == "core":
            if canonical_state(g._view.state) != canonical_state(results[True][1]._view.state):
                wrong += 1
        else:
            why[(g.last_start_why or "not applicable").split(": ", 2)[-1]] += 1
    total_s, total_b = sum(scratch), sum(based)
    print(f"projects: {len(scratch)} (2 hand-written, {args.programs} generated programs, each then after {args.edits} random line edits)")
    print(f"  from scratch:        median {statistics.median(scratch) * 1000:6.1f} ms, total {total_s:6.2f} s CPU")
    print(f"  resolve() (on core): median {statistics.median(based) * 1000:6.1f} ms, total {total_b:6.2f} s CPU")
    print(f"  ratio resolve() / from scratch: median {statistics.median(b / s for b, s in zip(based, scratch, strict=True)):.2f}, total {total_b / total_s:.2f}")
    print(f"  started from core: {started['core']} of {len(based)}; different from scratch: {wrong}")
    for reason, count in why.most_common():
        print(f"    {count:4d} x from scratch: {reason}")


if __name__ == "__main__":
    main()
