"""Benchmark: structural symbols of other languages (rdx.polyglot) against a bare tree-sitter
parse of the same files and against Universal Ctags, in the same run, per language.

Usage: python bench/bench_polyglot.py
Corpora: the Python standard library, Go's standard library (Debian ``golang-src``), CPython's
C headers, Debian's Rust crates, and the npm packages ``tests/test_polyglot.py`` installs. Printed per language: files, MB, the bare parse, rdx's extraction (parse
included), their ratio (the target is at most 1.5x), ctags' time, symbols found and ctags'
structural tags recalled; then ``extract_all`` (symbols, references and imports, parse
included), its ratio to ``extract`` (the cost of references and imports) and the references
found. Single process: the graph's worker pool is not used here yet.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from rdx.polyglot.engine import _parser, extract, extract_all  # noqa: E402
from rdx.polyglot.registry import spec_for  # noqa: E402

# Go's standard library as Debian's golang-src installs it (the newest when several are).
_GO_SRC = (sorted(glob.glob("/usr/share/go-*/src")) or ["/usr/share/go/src"])[-1]

CORPORA = [
    ("python", "Python", "cfm", sysconfig.get_paths()["stdlib"], "**/*.py"),
    ("go", "Go", "fsitan", _GO_SRC, "**/*.go"),
    ("c", "C", "fsgut", sysconfig.get_paths()["include"], "**/*.h"),
    ("rust", "Rust", "sgifPnmt", "/usr/share/cargo/registry", "**/*.rs"),
    ("javascript", "JavaScript", "cfgm", os.path.expanduser("~/.cache/rdx-corpora/npm/node_modules"), "**/*.js"),
    ("typescript", "TypeScript", "cfgimn", os.path.expanduser("~/.cache/rdx-corpora/npm/node_modules"), "zod/src/**/*.ts"),
]


def _counts(tag: dict) -> bool:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    from test_polyglot import _ctags_counts

    return bool(_ctags_counts(tag))


def main() -> int:
    ctags = shutil.which("ctags")
    print(
        f"{'language':9} {'files':>6} {'MB':>6} {'parse s':>8} {'rdx s':>7} {'ratio':>6} {'ctags s':>8} {'symbols':>8} {'recall':>7}"
        f" {'all s':>7} {'/rdx':>6} {'refs':>9}"
    )
    for language, ctags_language, kinds, root, pattern in CORPORA:
        if not os.path.isdir(root):
            print(f"{language:9} (missing {root})")
            continue
        files = sorted(
            p for p in glob.glob(os.path.join(root, pattern), recursive=True)
            if os.path.isfile(p) and not p.endswith(".min.js") and "/site-packages/" not in p and "/test/" not in p
        )
        sources = [(p, open(p, "rb").read()) for p in files]
        spec = spec_for(language)
        assert spec is not None
        parser = _parser(spec.grammar)
        t = time.perf_counter()
        for _, data in sources:
            parser.parse(data)
        parse = time.perf_counter() - t
        t = time.perf_counter()
        found = {(p, s.line, s.name) for p, data in sources for s in extract(spec, data)}
        ours = time.perf_counter() - t
        t = time.perf_counter()
        references = sum(len(extract_all(spec, data).references) for _, data in sources)
        full = time.perf_counter() - t
        theirs, recall = float("nan"), float("nan")
        if ctags is not None:
            t = time.perf_counter()
            out = subprocess.run(
                [ctags, "--output-format=json", "--fields=+nK", f"--language-force={ctags_language}", f"--kinds-{ctags_language}={kinds}", "-f", "-", *files],
                capture_output=True, text=True,
            ).stdout
            theirs = time.perf_counter() - t
            tags = [json.loads(x) for x in out.splitlines()]
            wanted = {(x["path"], x["line"], x["name"]) for x in tags if x.get("_type") == "tag" and _counts(x)}
            recall = len(wanted & found) / max(1, len(wanted))
        mb = sum(len(d) for _, d in sources) / 1e6
        print(
            f"{language:9} {len(files):>6} {mb:>6.1f} {parse:>8.2f} {ours:>7.2f} {ours / parse:>5.2f}x {theirs:>8.2f} {len(found):>8} {recall:>7.4f}"
            f" {full:>7.2f} {full / ours:>5.2f}x {references:>9}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
