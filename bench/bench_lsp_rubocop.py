"""Benchmark: RuboCop's diagnostics in ``rdx lsp`` after the last keystroke (issue 25's target:
300 ms), against RuboCop's own command line on the same text, measured in the same run.

Usage: python bench/bench_lsp_rubocop.py [ROUNDS]

A temporary project with a ``.rubocop.yml`` holds three files of Debian's RuboCop and
ActiveRecord sources, of about 150, 300 and 1,000 lines. ``rdx lsp`` is started on it
over stdio and each file opened as a buffer (the first diagnostics start RuboCop's server:
the cold start, printed once). Then, ROUNDS times per file (default 5), a user types a comment
on a new line, one keystroke every 60 ms, ending in a space; the time is from the last
didChange to the first publishDiagnostics that has RuboCop's offense for that trailing space
(so the offenses are those of the final text, not of an earlier keystroke).

Baselines, same run, same text: ``rubocop --server --format json --stdin`` by hand, RuboCop's
client talking to the same warm server (what each check cost when the language server ran
the client), and ``rubocop --format json --stdin`` without a server, for the largest file.
Numbers only; no assertions on time.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
GEMS = "/usr/share/rubygems-integration/all/gems"
SOURCES = {
    "small.rb": "rubocop-1.*/lib/rubocop/cop/style/and_or.rb",
    "medium.rb": "rubocop-1.*/lib/rubocop/config.rb",
    "large.rb": "activerecord-*/lib/active_record/persistence.rb",
}
CONFIG = "AllCops:\n  NewCops: enable\n  SuggestExtensions: false\n"
TYPED = "# typed "  # Each character a keystroke; the last, a space, leaves trailing whitespace.
INTERVAL = 0.06


def p50(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


async def main(root: Path, files: dict[str, str]) -> dict[str, list[float]]:
    client = LanguageClient("bench", "1")
    published: dict[str, list[lsp.Diagnostic]] = {}
    arrived = asyncio.Event()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published[params.uri] = params.diagnostics
        arrived.set()

    async def until(uri: str, row: int | None, timeout: float) -> None:
        """Until ``uri`` has RuboCop's diagnostics (with a trailing-space offense on ``row``)."""
        async def wait() -> None:
            while True:
                found = [d for d in published.get(uri, []) if d.source == "rubocop"]
                if found and (row is None or any(d.code == "Layout/TrailingWhitespace" and d.range.start.line == row for d in found)):
                    return
                arrived.clear()
                await arrived.wait()

        await asyncio.wait_for(wait(), timeout)

    async def until_gone(uri: str, row: int, timeout: float) -> None:
        async def wait() -> None:
            while any(d.code == "Layout/TrailingWhitespace" and d.range.start.line == row for d in published.get(uri, [])):
                arrived.clear()
                await arrived.wait()

        await asyncio.wait_for(wait(), timeout)

    await client.start_io(sys.executable, "-m", "rdx_lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri()))
    client.initialized(lsp.InitializedParams())
    times: dict[str, list[float]] = {name: [] for name in files}
    times["first diagnostics (cold RuboCop server)"] = []
    for name, text in files.items():
        uri = (root / name).as_uri()
        t = time.perf_counter()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "ruby", 1, text)))
        await until(uri, None, 300)
        times["first diagnostics (cold RuboCop server)"].append(time.perf_counter() - t)
        version = 1
        lines = text.count("\n")
        for r in range(ROUNDS):
            row = lines // 2 + r  # A new line each round, so each round's offense is new.
            version += 1
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(row, 0), lsp.Position(row, 0)), text="\n")],
            ))
            for i, char in enumerate(TYPED):
                await asyncio.sleep(INTERVAL)
                version += 1
                client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
                    [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(row, i), lsp.Position(row, i)), text=char)],
                ))
            t = time.perf_counter()
            await until(uri, row, 120)
            times[name].append(time.perf_counter() - t)
            # Remove the line again, and let RuboCop's answer to that arrive before the next round.
            version += 1
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(row, 0), lsp.Position(row + 1, 0)), text="")],
            ))
            # Until RuboCop has checked the text without the line (its offense gone), so that
            # no run of this round is under way when the next round's typing starts.
            await until_gone(uri, row, 120)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


def by_hand(root: Path, name: str, text: str, *args: str) -> float:
    t = time.perf_counter()
    subprocess.run(["rubocop", *args, "--format", "json", "--stdin", name], input=text, cwd=root, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - t


def run() -> None:
    if shutil.which("rubocop") is None:
        sys.exit("rubocop is not installed (scripts/install-system-deps installs it)")
    root = Path(tempfile.mkdtemp()) / "project"
    root.mkdir()
    (root / ".rubocop.yml").write_text(CONFIG)
    files = {}
    for name, pattern in SOURCES.items():
        files[name] = Path(sorted(glob.glob(f"{GEMS}/{pattern}"))[-1]).read_text()
        (root / name).write_text(files[name])
    try:
        times = asyncio.run(main(root, files))
        # The baselines: RuboCop's client into a warm server of its own for the project, and
        # RuboCop without a server.
        subprocess.run(["rubocop", "--start-server"], cwd=root, capture_output=True, timeout=300)
        client_times = {name: [by_hand(root, name, text, "--server") for _ in range(ROUNDS)] for name, text in files.items()}
        subprocess.run(["rubocop", "--stop-server"], cwd=root, capture_output=True, timeout=300)
        plain = [by_hand(root, "large.rb", files["large.rb"]) for _ in range(2)]
    finally:
        shutil.rmtree(root.parent)
    cold = times.pop("first diagnostics (cold RuboCop server)")
    print(f"rdx lsp, first RuboCop diagnostics after didOpen (cold server start): p50 {p50(cold):.0f} ms")
    print(f"rubocop --format json --stdin (no server), large.rb: p50 {p50(plain):.0f} ms")
    print(f"{'file':12s} {'lines':>5s}  {'after last keystroke':>22s}  {'rubocop --server by hand':>26s}  ratio")
    for name, values in times.items():
        base = client_times[name]
        print(
            f"{name:12s} {files[name].count(chr(10)):5d}  p50 {p50(values):6.0f} p90 {p90(values):6.0f} ms"
            f"  p50 {p50(base):6.0f} p90 {p90(base):6.0f} ms      {p50(values) / p50(base):.2f}x"
        )


if __name__ == "__main__":
    os.environ.setdefault("RDX_LSP_LOG", "WARNING")
    run()
