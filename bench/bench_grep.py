"""Benchmark: grep on the text index against ripgrep, index build against the cold Ruby index,
one-file updates, and index size, all measured in the same run.

Usage: python bench/bench_grep.py [--repeat N] [PATH ...]
Default corpus: Debian's Ruby standard library, Rails and RuboCop (``/usr/lib/ruby`` and
``/usr/share/rubygems-integration``; ``make system-deps`` installs them and ripgrep).

Printed:
- build: walking and indexing every text file from scratch (SQLite FTS5 trigram index, bodies
  included) against a cold ``Graph.open`` of the same roots (Ruby discovery + resolution);
- size: the database on disk per byte of text indexed;
- queries: for selective queries (under 1,000 matching lines), the median in-process time of
  ``grep`` (warm) against the median wall time of ``rg -n`` over the same roots
  (``--no-ignore --hidden``, so it reads every file the index holds), and their ratio;
- update: re-indexing one edited file of a copy of the corpus.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from rdx.search.grep import grep  # noqa: E402
from rdx.search.text_index import TextIndex  # noqa: E402
from rdx.search.text_workspace import any_file  # noqa: E402
from rdx.workspace.config import DEFAULT_MAX_FILE_SIZE  # noqa: E402
from rdx.workspace.files import collect_files  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from corpus import debian_corpus, describe_roots  # noqa: E402

# The pinned Debian corpus (tests/data/debian-corpus.txt): the same files on every machine,
# whatever else is installed.
DEFAULT_CORPUS = debian_corpus()
# (pattern, regex, ignore_case): literals and regexes an agent or a person would search for.
QUERIES = [
    ("number_to_currency", False, False),
    ("MessageVerifier", False, False),
    ("def find_each", False, False),
    ("messageencryptor", False, True),
    ("HashWithIndifferentAccess.new", False, False),
    (r"def (sign|verify)\(", True, False),
    (r"class \w+Cop < Base", True, False),
    (r"raise NotImplementedError", True, False),
    (r"^\s*module_function\b", True, False),
    (r"(?i)frozen.?string.?literal: false", True, False),
]


def walk(roots: list[str]) -> list[tuple[str, int, int]]:
    return [(e.path, e.size, e.mtime_ns) for root in roots for e in collect_files(root, select=any_file).files]


def cold_ruby_index(roots: list[str]) -> float:
    """A cold ``Graph.open`` + resolve in a child process (its own snapshot directory)."""
    code = (
        "import sys, time, tempfile, rdx\n"
        "t = time.perf_counter()\n"
        "g = rdx.Graph.open(sys.argv[1:], cache_dir=tempfile.mkdtemp())\n"
        "g.resolve()\n"
        "print(time.perf_counter() - t)\n"
    )
    # The text index is part of Graph.open now: time the Ruby side alone by subtracting it.
    out = subprocess.run([sys.executable, "-c", code, *roots], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def rg_time(roots: list[str], pattern: str, regex: bool, ignore_case: bool, repeat: int) -> tuple[float, int]:
    rg = shutil.which("rg")
    assert rg is not None, "ripgrep is the baseline (apt-get install ripgrep)"
    args = [rg, "--no-config", "-n", "--no-ignore", "--hidden", "-e", pattern, *([] if regex else ["-F"]), *(["-i"] if ignore_case else []), *roots]
    times = []
    lines = 0
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(args, capture_output=True)
        times.append(time.perf_counter() - t)
        lines = proc.stdout.count(b"\n")
    return statistics.median(times), lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    roots = [os.path.abspath(p) for p in args.paths]

    work = tempfile.mkdtemp(prefix="rdx-bench-grep-")
    t = time.perf_counter()
    rows = walk(roots)
    walked = time.perf_counter() - t
    index = TextIndex(os.path.join(work, "text.sqlite"))
    t = time.perf_counter()
    stats = index.sync(rows, DEFAULT_MAX_FILE_SIZE)
    built = time.perf_counter() - t
    cold = cold_ruby_index(roots)
    size = index.disk_bytes()
    text = index.text_bytes()
    print(f"corpus: {describe_roots(roots)}")
    print(f"text files: {stats.indexed} indexed ({text / 1e6:.1f} MB), {stats.binary} binary and {stats.too_large} too large skipped")
    print(f"build from scratch: walk {walked:.2f} s + index {built:.2f} s = {walked + built:.2f} s; cold Graph.open + resolve (Ruby and text): {cold:.2f} s")
    print(f"index size on disk: {size / 1e6:.1f} MB = {size / text:.2f} x the bytes indexed (bodies included)")

    print(f"\n{'query':44} {'lines':>6} {'rdx ms':>8} {'rg ms':>8} {'rg/rdx':>7}")
    ratios = []
    for pattern, regex, ignore_case in QUERIES:
        grep(index, pattern, regex=regex, ignore_case=ignore_case)  # warm
        times = []
        page = None
        for _ in range(args.repeat):
            t = time.perf_counter()
            page = grep(index, pattern, regex=regex, ignore_case=ignore_case)
            times.append(time.perf_counter() - t)
        ours = statistics.median(times)
        theirs, rg_lines = rg_time(roots, pattern, regex, ignore_case, args.repeat)
        assert page is not None
        ratios.append(theirs / ours)
        label = ("/" + pattern + "/" if regex else repr(pattern)) + (" -i" if ignore_case else "")
        note = "" if page.total == rg_lines else f"  (rg printed {rg_lines})"
        print(f"{label[:44]:44} {page.total:>6} {ours * 1000:>8.2f} {theirs * 1000:>8.1f} {theirs / ours:>6.0f}x{note}")
    print(f"median speed-up over rg: {statistics.median(ratios):.0f}x, {sum(r >= 10 for r in ratios)} of {len(ratios)} queries at 10x or more (target: 10x)")
    print()

    # One-file updates on a copy of the corpus (the originals are read-only).
    copy = os.path.join(work, "copy")
    for i, root in enumerate(roots):
        shutil.copytree(root, os.path.join(copy, str(i)), symlinks=True)
    copy_index = TextIndex(os.path.join(work, "copy.sqlite"))
    copy_index.sync(walk([copy]), DEFAULT_MAX_FILE_SIZE)
    ruby = sorted((f.size, p) for p, f in copy_index.files.items() if p.endswith(".rb"))
    for label, (size, target) in (("a median Ruby file", ruby[len(ruby) // 2]), ("the largest Ruby file", ruby[-1])):
        times = []
        for n in range(args.repeat):
            with open(target, "a", encoding="utf-8") as f:
                f.write(f"\n# edit {label} {n}\n")
            t = time.perf_counter()
            copy_index.update([target])
            times.append(time.perf_counter() - t)
        found = grep(copy_index, f"# edit {label} {args.repeat - 1}").total
        print(f"one-file update, {label} ({size / 1e3:.0f} KB): median {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms (target: under 50 ms); the edit is found: {found == 1}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
