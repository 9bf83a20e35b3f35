"""Benchmark: latency of rdx lsp's editing requests (issue 25) over stdio, against a
foldingRange round trip measured in the same run.

Usage: python bench/bench_lsp_editing.py [N] [GEMS | 1000]

Copies Debian's RuboCop lib (or, with GEMS, a comma-separated list of Debian gems, keeping
their files of 900 to 1,100 lines; ``1000`` names the gems that have such files: the case of
the 30 ms target) to a temporary directory, starts ``rdx lsp`` on it and opens the N largest
files (default 30) as buffers. For each: semanticTokens/full asked twice (first and again),
semanticTokens/range and inlayHint on a 60-line window, signatureHelp inside the argument
lists of five calls, and tokens after a one-line edit: once after a foldingRange answer (the
edit indexed), once from the didChange to the tokens' answer (what the user waits for: the
edit's indexing included). Prints p50 and p90 per request, and each p50 over the p50 of a
second foldingRange request (a round trip whose answer is cached: the transport's share).
Targets: semantic tokens <= 30 ms on 1,000 lines, inlay hints and signature help <= 10 ms.
"""

from __future__ import annotations

import asyncio
import glob
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

N = int(sys.argv[1]) if len(sys.argv) > 1 else 30
MODE = sys.argv[2] if len(sys.argv) > 2 else "rubocop"
if MODE == "1000":
    MODE = "activerecord,actionmailer,actionview,rspec-core,sidekiq,redis,httpclient,capybara,addressable,optimist,rspec-expectations"
GEMS = "/usr/share/rubygems-integration/all/gems"
CALL = re.compile(rb"[a-z_]\w*\(")
KEYS = (
    "didOpen (to a folding answer)", "tokens/full after an edit", "didChange to tokens/full", "tokens/full first", "tokens/full again",
    "tokens/range", "inlayHint", "signatureHelp",
)


def corpus(tmp: str) -> tuple[Path, str, list[Path]]:
    root = Path(tmp) / "lib"
    if MODE == "rubocop":
        src = sorted(glob.glob(f"{GEMS}/rubocop-1.*/lib"))[-1]
        shutil.copytree(src, root)
        return root, src, sorted(root.rglob("*.rb"), key=lambda p: -p.stat().st_size)[:N]
    # Gems holding Ruby files of 900 to 1,100 lines: each gem's lib/ under one root.
    for gem in MODE.split(","):
        shutil.copytree(sorted(glob.glob(f"{GEMS}/{gem}-[0-9]*/lib"))[-1], root / gem)
    files = [p for p in sorted(root.rglob("*.rb")) if 900 <= p.read_text(errors="replace").count("\n") <= 1100][:N]
    return root, "the lib/ of " + MODE, files


def edit(uri: str, version: int, line: int, text: str) -> lsp.DidChangeTextDocumentParams:
    at = lsp.Position(line, 0)
    change = lsp.TextDocumentContentChangePartial(range=lsp.Range(at, at), text=text)
    return lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=version, uri=uri), [change])


async def main(root: Path, files: list[Path]) -> tuple[dict[str, list[float]], list[float], list[int]]:
    client = LanguageClient("bench", "1")
    client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)(lambda *_: None)
    client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda *_: None)
    await client.start_io(sys.executable, "-m", "rdx_lsp")
    params = lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "lib")],
        initialization_options={"inlayHints": {"implicitSelf": True, "constants": True}},
    )
    await client.initialize_async(params)
    client.initialized(lsp.InitializedParams())
    await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="Base"))
    times: dict[str, list[float]] = {k: [] for k in KEYS}
    lines_total: list[int] = []
    baseline: list[float] = []

    async def timed(into: list[float], request: Awaitable[Any]) -> None:
        t = time.perf_counter()
        await request
        into.append(time.perf_counter() - t)

    for f in files:
        text = f.read_text()
        lines_total.append(text.count("\n"))
        uri = f.as_uri()
        doc = lsp.TextDocumentIdentifier(uri)
        t = time.perf_counter()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "ruby", 1, text)))
        await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc))
        times["didOpen (to a folding answer)"].append(time.perf_counter() - t)
        await timed(baseline, client.text_document_folding_range_async(lsp.FoldingRangeParams(doc)))
        for key in ("tokens/full first", "tokens/full again"):
            await timed(times[key], client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc)))
        window = lsp.Range(lsp.Position(100, 0), lsp.Position(160, 0))
        await timed(times["tokens/range"], client.text_document_semantic_tokens_range_async(lsp.SemanticTokensRangeParams(doc, window)))
        await timed(times["inlayHint"], client.text_document_inlay_hint_async(lsp.InlayHintParams(doc, window)))
        data = text.encode()
        for m in list(CALL.finditer(data))[:5]:
            line = data.count(b"\n", 0, m.end())
            column = m.end() - (data.rfind(b"\n", 0, m.end()) + 1)
            help_params = lsp.SignatureHelpParams(doc, lsp.Position(line, column))
            await timed(times["signatureHelp"], client.text_document_signature_help_async(help_params))
        # A one-line edit in the middle (typing), then the tokens the editor asks for.
        middle = text.count("\n") // 2
        client.text_document_did_change(edit(uri, 2, middle, "  # typed\n"))
        await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc))
        await timed(times["tokens/full after an edit"], client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc)))
        # Another edit, and the tokens asked at once: the edit's indexing is in this time.
        t = time.perf_counter()
        client.text_document_did_change(edit(uri, 3, middle + 1, "  # again\n"))
        await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc))
        times["didChange to tokens/full"].append(time.perf_counter() - t)
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times, baseline, lines_total


def run() -> None:
    tmp = tempfile.mkdtemp()
    try:
        root, src, files = corpus(tmp)
        times, baseline, lines_total = asyncio.run(main(root, files))
    finally:
        shutil.rmtree(tmp)
    print(f"{len(files)} files of {src}, {min(lines_total)}-{max(lines_total)} lines (median {statistics.median(lines_total)})")
    base = statistics.median(baseline)
    print(f"baseline: foldingRange asked again, p50 {1000 * base:.1f} ms")
    for k, v in times.items():
        v = sorted(v)
        p50 = statistics.median(v)
        print(f"{k:30s} p50 {1000 * p50:7.1f} ms  p90 {1000 * v[int(len(v) * 0.9)]:7.1f} ms  {p50 / base:6.1f}x baseline  (n={len(v)})")


if __name__ == "__main__":
    run()
