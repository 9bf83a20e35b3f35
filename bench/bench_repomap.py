"""Benchmark: the repository map against a plain declaration listing cut at the same token
budget (the baseline), measured in the same run.

Usage: python bench/bench_repomap.py [--repeat N] [--show BUDGET]
Corpora: Debian's Ruby standard library, Rails and RuboCop (``/usr/lib/ruby`` and
``/usr/share/rubygems-integration``; ``make system-deps`` installs them; the snapshot is cached
in ``/usr/lib/ruby/.rdx`` as by the other benches), and the built-in example project
``rdx/data/example`` as a small one (snapshot in a temporary directory).

Printed per corpus:
- times: the cold map (the first ``repo_map`` after open, which builds the reference graph), the
  warm map (the same call again, median of ``--repeat``), and maps focused on three real files
  (personalized ranking; the first call for each focus);
- per budget (256 to 16,384 cl100k_base tokens): the map's tokens and fill ratio, the
  declarations it shows and tokens per declaration; the baseline, one ``kind name path:line``
  line per declaration in the graph's own order (what a naive tool prints), cut at the same
  budget: how many declarations fit and tokens per declaration; and the ratio of the map's
  declarations per token to the baseline's.

The ratio counts declarations only. It says nothing of which ones: the baseline lists
whichever declarations come first (arbitrary), the map lists the highest-ranked ones and spends
tokens on what a listing lacks (who uses each declaration, what it uses, signatures). A ratio
under 1 is that price, not a defect of the map.
"""

from __future__ import annotations

import argparse
import functools
import glob
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TypeVar

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import rdx  # noqa: E402
from rdx.map.repomap import count_tokens  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEBIAN = ["/usr/lib/ruby", "/usr/share/rubygems-integration"]
EXAMPLE = os.path.join(HERE, "..", "rdx", "data", "example")
T = TypeVar("T")
BUDGETS = [256, 1024, 2048, 4096, 16384]
# Focus files: one from the standard library, one RuboCop cop, one Active Record file.
DEBIAN_FOCUS = [
    "/usr/lib/ruby/3.1.0/net/http.rb",
    "/usr/share/rubygems-integration/all/gems/rubocop-*/lib/rubocop/cop/style/and_or.rb",
    "/usr/share/rubygems-integration/all/gems/activerecord-*/lib/active_record/persistence.rb",
]


def real_paths(patterns: list[str]) -> list[str]:
    found = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern))
        if matches:
            found.append(matches[0])
        else:
            print(f"  (no file matches {pattern}: focus skipped)")
    return found


def example_focus(root: str) -> list[str]:
    """Three of the example's source files, from different directories where it has them."""
    files = sorted(p for p in glob.glob(os.path.join(root, "**", "*.*"), recursive=True) if os.path.isfile(p))
    picked: list[str] = []
    seen: set[str] = set()
    for path in files:
        top = os.path.relpath(path, root).split(os.sep)[0]
        if top not in seen and path.endswith((".rb", ".py", ".ts", ".js")):
            seen.add(top)
            picked.append(path)
    for path in files:
        if len(picked) >= 3:
            break
        if path.endswith(".rb") and path not in picked:
            picked.append(path)
    return picked[:3]


def baseline_lines(g: rdx.Graph, roots: list[str]) -> tuple[list[str], list[str]]:
    """Every declaration defined in the project's files, ``kind name path:line``, in the graph's
    order, and each line's path. Paths are relative to their root, as the map writes them (a naive
    tool gains nothing there); declarations of Ruby's built-in core, which no project file
    defines, are left out, as the map leaves them out."""
    prefixes = [r.rstrip(os.sep) + os.sep for r in roots]
    lines: list[str] = []
    paths: list[str] = []
    for d in g.declarations:
        loc = d.location
        if loc is None:
            continue
        prefix = next((p for p in prefixes if loc.path.startswith(p)), None)
        if prefix is None:
            continue
        path = loc.path[len(prefix) :]
        lines.append(f"{d.kind} {d.name} {path}:{loc.start_line}")
        paths.append(path)
    return lines, paths


def fit(lines: list[str], budget: int) -> tuple[int, int]:
    """The most leading ``lines`` within ``budget`` tokens: (lines, tokens)."""
    best, best_tokens = 0, 0
    low, high = 1, min(len(lines), budget)  # No line is under one token.
    while low <= high:
        middle = (low + high) // 2
        tokens = count_tokens("\n".join(lines[:middle]) + "\n")
        if tokens <= budget:
            best, best_tokens = middle, tokens
            low = middle + 1
        else:
            high = middle - 1
    return best, best_tokens


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    t = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t


def run(label: str, roots: list[str], cache_dir: str | None, focus: list[str], repeat: int, show: int | None) -> list[float]:
    print(f"== {label}: {', '.join(roots)}")
    g, opened = timed(lambda: rdx.Graph.open(roots, cache_dir=cache_dir))
    _, resolved = timed(g.resolve)
    print(f"open {opened:.2f} s + resolve {resolved:.2f} s (not counted below); declarations: {len(g.declarations)}")
    cold, cold_s = timed(lambda: g.repo_map(2048))
    warm = []
    for _ in range(repeat):
        _, seconds = timed(lambda: g.repo_map(2048))
        warm.append(seconds)
    print(f"map 2048: cold {cold_s * 1000:.0f} ms (builds the reference graph), warm {statistics.median(warm) * 1000:.1f} ms "
          f"(median of {repeat}); {cold.tokens} tokens, {cold.declarations} declarations in {cold.files} files")
    for path in focus:
        focused, seconds = timed(functools.partial(g.repo_map, 2048, focus=[path]))
        short = os.path.relpath(path, next((r for r in roots if path.startswith(r)), roots[0]))
        print(f"  focused on {short}: {seconds * 1000:.0f} ms, {focused.tokens} tokens, {focused.declarations} declarations"
              f"{'' if not focused.unmatched else f', unmatched {focused.unmatched}'}")

    listing, paths = baseline_lines(g, roots)
    print(f"baseline: {len(listing)} declarations defined in {len(set(paths))} files, one `kind name path:line` line each, in the graph's order")
    print(f"\n{'budget':>7} | {'map tokens':>10} {'fill':>5} {'detail':>7} {'decls':>6} {'files':>5} {'tok/decl':>8} | "
          f"{'list decls':>10} {'files':>5} {'tok/decl':>8} | {'decls/token map:list':>20}")
    ratios = []
    for budget in BUDGETS:
        m = g.repo_map(budget)
        fitted, tokens = fit(listing, budget)
        ours = m.declarations / m.tokens if m.tokens else 0.0
        theirs = fitted / tokens if tokens else 0.0
        ratio = ours / theirs if theirs else float("nan")
        ratios.append(ratio)
        per_decl = f"{m.tokens / m.declarations:8.1f}" if m.declarations else f"{'-':>8}"
        base_per_decl = f"{tokens / fitted:8.1f}" if fitted else f"{'-':>8}"
        listed = f"{fitted} (all)" if fitted == len(listing) else str(fitted)
        print(f"{budget:>7} | {m.tokens:>10} {m.tokens / budget:>5.2f} {m.detail:>7} {m.declarations:>6} {m.files:>5} {per_decl} | "
              f"{listed:>10} {len(set(paths[:fitted])):>5} {base_per_decl} | {ratio:>19.2f}x")
        if show == budget:
            print(m.text)
    print(f"median ratio over the budgets: {statistics.median(ratios):.2f}x\n")
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm map calls to take the median of")
    parser.add_argument("--show", type=int, default=None, help="print the map made for this budget")
    args = parser.parse_args()
    if all(os.path.isdir(r) for r in DEBIAN):
        run("Debian Ruby corpus", DEBIAN, None, real_paths(DEBIAN_FOCUS), args.repeat, args.show)
    else:
        print(f"{' and '.join(DEBIAN)} missing: run `make system-deps` (the Debian corpus is skipped)\n")
    example = os.path.abspath(EXAMPLE)
    with tempfile.TemporaryDirectory(prefix="rdx-bench-repomap-") as cache:
        run("built-in example", [example], cache, example_focus(example), args.repeat, args.show)
    print("Declarations per token, map : listing, counts declarations only, not which ones. The listing shows whichever\n"
          "declarations come first in the graph (arbitrary: files in index order, every method and instance variable of\n"
          "each), so it covers few files; the map shows the highest-ranked ones and spends tokens on what the listing lacks\n"
          "(the files using each one, what it uses, signatures, a legend). At 256 tokens the map lists files with their\n"
          "best names, which is cheaper per declaration than symbol lines.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
