"""Benchmark: latency of rdx lsp's editing requests (issue 25) over stdio, against a
foldingRange round trip measured in the same run.

Usage: python bench/bench_lsp_editing.py [N] [GEMS]

Copies Debian's RuboCop lib (or, with GEMS, a comma-separated list of Debian gems, keeping
their files of 900 to 1,100 lines) to a temporary directory, starts ``rdx lsp`` on it and opens
the N largest files (default 30) as buffers. For each: semanticTokens/full asked twice (first
and again), semanticTokens/range and inlayHint on a 60-line window, signatureHelp inside the
argument lists of five calls, and tokens after a one-line edit. Prints p50 and p90 per request,
and each p50 over the p50 of a second foldingRange request (a round trip whose answer is
cached: the transport's share). Targets: semantic tokens <= 30 ms on 1,000 lines, inlay hints
and signature help <= 10 ms.
"""
import asyncio, glob, os, re, shutil, statistics, sys, tempfile, time
from pathlib import Path
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

N = int(sys.argv[1]) if len(sys.argv) > 1 else 30
MODE = sys.argv[2] if len(sys.argv) > 2 else "rubocop"
GEMS = "/usr/share/rubygems-integration/all/gems"
tmp = tempfile.mkdtemp()
root = Path(tmp) / "lib"
if MODE == "rubocop":
    src = sorted(glob.glob(f"{GEMS}/rubocop-1.*/lib"))[-1]
    shutil.copytree(src, root)
    files = sorted(root.rglob("*.rb"), key=lambda p: -p.stat().st_size)[:N]
else:
    # Gems holding Ruby files of 900 to 1,100 lines: each gem's lib/ under one root.
    src = "the lib/ of " + MODE
    for gem in MODE.split(","):
        shutil.copytree(sorted(glob.glob(f"{GEMS}/{gem}-[0-9]*/lib"))[-1], root / gem)
    files = [p for p in root.rglob("*.rb") if 900 <= p.read_text(errors="replace").count("\n") <= 1100][:N]
CALL = re.compile(rb"[a-z_]\w*\(")

async def main():
    client = LanguageClient("bench", "1")
    client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)(lambda *_: None)
    async def drain():
        pass
    await client.start_io(sys.executable, "-m", "rdx_lsp")
    params = lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "lib")],
        initialization_options={"inlayHints": {"implicitSelf": True, "constants": True}})
    await client.initialize_async(params)
    client.initialized(lsp.InitializedParams())
    await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="Base"))
    times = {k: [] for k in ("didOpen (to a folding answer)", "tokens/full after an edit", "tokens/full first", "tokens/full again", "tokens/range", "inlayHint", "signatureHelp")}
    lines_total = []
    baseline: list[float] = []
    for f in files:
        text = f.read_text()
        lines_total.append(text.count("\n"))
        uri = f.as_uri()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "ruby", 1, text)))
        doc = lsp.TextDocumentIdentifier(uri)
        t = time.perf_counter(); await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc)); times["didOpen (to a folding answer)"].append(time.perf_counter() - t)
        t = time.perf_counter(); await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc)); baseline.append(time.perf_counter() - t)
        for key in ("tokens/full first", "tokens/full again"):
            t = time.perf_counter(); await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc)); times[key].append(time.perf_counter() - t)
        window = lsp.Range(lsp.Position(100, 0), lsp.Position(160, 0))
        t = time.perf_counter(); await client.text_document_semantic_tokens_range_async(lsp.SemanticTokensRangeParams(doc, window)); times["tokens/range"].append(time.perf_counter() - t)
        t = time.perf_counter(); await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc, window)); times["inlayHint"].append(time.perf_counter() - t)
        data = text.encode()
        for i, m in enumerate(list(CALL.finditer(data))[:5]):
            line = data.count(b"\n", 0, m.end()); col = m.end() - (data.rfind(b"\n", 0, m.end()) + 1)
            t = time.perf_counter(); await client.text_document_signature_help_async(lsp.SignatureHelpParams(doc, lsp.Position(line, col))); times["signatureHelp"].append(time.perf_counter() - t)
        # A one-line edit in the middle (typing), then the tokens the editor asks for.
        middle = text.count("\n") // 2
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=2, uri=uri), [lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(middle, 0), lsp.Position(middle, 0)), text="  # typed\n")]))
        await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc))
        t = time.perf_counter(); await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc)); times["tokens/full after an edit"].append(time.perf_counter() - t)
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc))
    await client.shutdown_async(None); client.exit(None); await client.stop()
    print(f"{len(files)} files of {src}, {min(lines_total)}-{max(lines_total)} lines (median {statistics.median(lines_total)})")
    base = statistics.median(baseline)
    print(f"baseline: foldingRange asked again, p50 {1000 * base:.1f} ms")
    for k, v in times.items():
        v = sorted(v)
        p50 = statistics.median(v)
        print(f"{k:30s} p50 {1000*p50:7.1f} ms  p90 {1000*v[int(len(v)*0.9)]:7.1f} ms  {p50 / base:6.1f}x baseline  (n={len(v)})")

if __name__ == "__main__":
    try:
        asyncio.run(main())
    finally:
        shutil.rmtree(tmp)
