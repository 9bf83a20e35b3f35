"""Benchmark: Ruby discovery with the native walk step against the Python walk and a bare parse.

Usage: python bench/bench_native.py [--rounds N] [--every K] [PATH ...]

One process, one core, the pinned Debian corpus by default (every K-th ``.rb`` file with
``--every``), read into memory first. Each round times, back to back: a bare tree-sitter parse of
every file (the floor: issue 23's target is discovery within 1.3x of it), ``RubyParser.discover``
with the Python walk (``rdx.native`` switched off), and ``discover`` with the native step. The
best round of each is kept (CPU time of this process). The two discoveries' records are compared
too: they must be identical.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import msgspec  # noqa: E402
import tree_sitter  # noqa: E402
import tree_sitter_ruby  # noqa: E402
from corpus import debian_corpus, describe_roots  # noqa: E402

import rdx.native  # noqa: E402
import rdx.ruby.discover.parse as parse  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--every", type=int, default=1, help="every K-th file only")
    args = ap.parse_args()
    roots = args.paths or debian_corpus()
    step = rdx.native.advance()
    if step is None:
        print(f"native walk unavailable: {rdx.native.disabled_reason()} (make native)")
        return 1
    files = sorted({os.path.join(d, f) for root in roots for d, _, names in os.walk(root) for f in names if f.endswith(".rb")})[:: args.every]
    sources = []
    for path in files:
        with open(path, "rb") as handle:
            sources.append(handle.read())
    print(f"corpus: {describe_roots(roots)}: {len(files)} .rb files, {sum(map(len, sources)):,} bytes, one process, best of {args.rounds} rounds (CPU time)")
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    ruby = parse.RubyParser()
    encode = msgspec.msgpack.Encoder().encode

    def bare() -> None:
        for source in sources:
            parser.parse(source)

    def discover(native: bool) -> list[bytes]:
        parse.native_step = (lambda: step) if native else (lambda: None)
        return [encode(ruby.discover("file://" + path, source, path)) for path, source in zip(files, sources, strict=True)]

    best = {"parse": float("inf"), "python": float("inf"), "native": float("inf")}
    same = True
    gc.disable()
    try:
        for _ in range(args.rounds):
            for name, run in (("parse", bare), ("python", lambda: discover(False)), ("native", lambda: discover(True))):
                start = time.process_time()
                out = run()
                best[name] = min(best[name], time.process_time() - start)
                if name == "python":
                    python_records = out
                elif name == "native":
                    same = same and out == python_records
                gc.collect()
    finally:
        gc.enable()
        parse.native_step = rdx.native.advance
    print(f"bare parse:              {best['parse']:6.2f} s")
    print(f"discover, Python walk:   {best['python']:6.2f} s = {best['python'] / best['parse']:.2f}x the parse")
    print(f"discover, native step:   {best['native']:6.2f} s = {best['native'] / best['parse']:.2f}x the parse (target <= 1.3x)")
    print(f"native / Python: {best['native'] / best['python']:.2f}; records identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
