"""Benchmark: Ruby discovery with the native walk step against the Python walk and a bare parse.

Usage: python bench/bench_native.py [--rounds N] [--every K] [PATH ...]

One process, one core, the pinned Debian corpus by default (every K-th ``.rb`` file with
``--every``), read into memory first. Each round times, file by file: a bare tree-sitter parse
(the floor: issue 23's target is discovery within 1.3x of it), ``RubyParser.discover`` with the
Python walk (``rdx.native`` switched off), and ``discover`` with the native step, one after the
other on the same file (the two walks in turns first), so that all three meet the same load from the rest of the machine (on a
busy machine, back-to-back passes over the whole corpus were up to 20% apart from one run to
the next). Each measure's total is CPU time of this process; the best round of each is kept.
A discovery's time ends with freeing its records, as a parse's ends with freeing its tree;
the two discoveries' records are encoded outside it and compared: they must be identical.

``--instructions`` counts instructions instead of time, which no load from the rest of the
machine changes (where ``perf`` has no hardware counters, as on virtual machines): three
processes under valgrind's callgrind over the same files, one that only reads them, one that
parses each and one that discovers each with the native walk, and prints the ratio of
(discovery - reading) to (parse - reading). Needs ``valgrind``; slow (minutes for
``--every 4``).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import msgspec  # noqa: E402
import tree_sitter  # noqa: E402
import tree_sitter_ruby  # noqa: E402
from corpus import debian_corpus, describe_roots  # noqa: E402

import rdx.native  # noqa: E402
import rdx.ruby.discover.parse as parse  # noqa: E402


def corpus_files(paths: list[str], every: int) -> list[str]:
    roots = paths or debian_corpus()
    return sorted({os.path.join(d, f) for root in roots for d, _, names in os.walk(root) for f in names if f.endswith(".rb")})[::every]


def count_instructions(args: argparse.Namespace) -> int:
    """``--instructions``: this script again under callgrind, once per kind of work."""
    if args.only is not None:
        sources = []
        files = corpus_files(args.paths, args.every)
        for path in files:
            with open(path, "rb") as handle:
                sources.append(handle.read())
        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
        ruby = parse.RubyParser()
        ruby.discover("file:///warm.rb", b"class A\n  include B\nend\n", "/warm.rb")  # Lazy set-up outside the count's difference.
        if args.only == "parse":
            for source in sources:
                parser.parse(source)
        elif args.only == "discover":
            for path, source in zip(files, sources, strict=True):
                ruby.discover("file://" + path, source, path)
        return 0
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("--instructions needs valgrind (apt-get install valgrind)")
        return 1
    if rdx.native.advance() is None:
        print(f"native walk unavailable: {rdx.native.disabled_reason()} (make native)")
        return 1
    files = corpus_files(args.paths, args.every)
    print(f"corpus: {describe_roots(args.paths or debian_corpus())}: {len(files)} .rb files, instructions counted by callgrind, one process each")
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for only in ("read", "parse", "discover"):
            cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", sys.executable, os.path.abspath(__file__), "--instructions", "--only", only]
            cmd += ["--every", str(args.every), *args.paths]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            found = re.search(r"Collected\s*:\s*(\d+)", done.stderr) or re.search(r"refs:\s*([\d,]+)", done.stderr)
            if done.returncode != 0 or found is None:
                print(f"callgrind failed for {only}: {done.stderr[-500:]}")
                return 1
            counts[only] = int(found.group(1).replace(",", ""))
            print(f"  {only:<8} {counts[only]:>16,} instructions")
    parse_cost, discover_cost = counts["parse"] - counts["read"], counts["discover"] - counts["read"]
    print(f"discovery {discover_cost:,} / parse {parse_cost:,} instructions = {discover_cost / parse_cost:.3f}x a bare parse (target 1.3x, stretch 1.1x)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--every", type=int, default=1, help="every K-th file only")
    ap.add_argument("--instructions", action="store_true", help="count instructions under callgrind instead of timing")
    ap.add_argument("--only", choices=("read", "parse", "discover"), help=argparse.SUPPRESS)  # One callgrind process's work.
    args = ap.parse_args()
    if args.instructions:
        return count_instructions(args)
    roots = args.paths or debian_corpus()
    step = rdx.native.advance()
    if step is None:
        print(f"native walk unavailable: {rdx.native.disabled_reason()} (make native)")
        return 1
    files = corpus_files(args.paths, args.every)
    sources = []
    for path in files:
        with open(path, "rb") as handle:
            sources.append(handle.read())
    print(f"corpus: {describe_roots(roots)}: {len(files)} .rb files, {sum(map(len, sources)):,} bytes, one process, best of {args.rounds} rounds (CPU time)")
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    ruby = parse.RubyParser()
    encode = msgspec.msgpack.Encoder().encode

    def set_walk(native: bool) -> None:
        # Off: every native part of discovery (the walk step, the line table, the statement calls, the ids, the words).
        parse.native_step = (lambda: step) if native else (lambda: None)
        parse.native_line_starts = rdx.native.line_starts if native else (lambda: None)
        parse.native_statement_calls = rdx.native.statement_calls if native else (lambda: None)
        parse.native_definition_id = rdx.native.definition_id if native else (lambda: None)
        parse.native_find_words = rdx.native.find_words if native else (lambda: None)

    best = {"parse": float("inf"), "python": float("inf"), "native": float("inf")}
    same = True
    clock = time.process_time
    gc.disable()
    try:
        for _ in range(args.rounds):
            spent = dict.fromkeys(best, 0.0)
            for number, (path, source) in enumerate(zip(files, sources, strict=True)):
                uri = "file://" + path
                t0 = clock()
                parser.parse(source)
                spent["parse"] += clock() - t0
                record = {}
                for native in (False, True) if number % 2 else (True, False):  # Either may go first.
                    set_walk(native)
                    t0 = clock()
                    result = ruby.discover(uri, source, path)
                    spent["native" if native else "python"] += clock() - t0
                    record[native] = encode(result)  # Outside the time: encoding is no part of discovery,
                    t0 = clock()
                    del result  # but freeing its records is (as the parse's time frees its tree).
                    spent["native" if native else "python"] += clock() - t0
                native_record, python_record = record[True], record[False]
                same = same and native_record == python_record
            for name, seconds in spent.items():
                best[name] = min(best[name], seconds)
            gc.collect()
    finally:
        gc.enable()
        parse.native_step = rdx.native.advance
        parse.native_line_starts = rdx.native.line_starts
        parse.native_statement_calls = rdx.native.statement_calls
        parse.native_definition_id = rdx.native.definition_id
        parse.native_find_words = rdx.native.find_words
    print(f"bare parse:              {best['parse']:6.2f} s")
    print(f"discover, Python walk:   {best['python']:6.2f} s = {best['python'] / best['parse']:.2f}x the parse")
    print(f"discover, native step:   {best['native']:6.2f} s = {best['native'] / best['parse']:.2f}x the parse (target <= 1.3x)")
    print(f"native / Python: {best['native'] / best['python']:.2f}; records identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
