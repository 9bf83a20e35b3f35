"""``rdx lsp`` under hostile input: every request is answered, whatever the buffer or position.

Each case drives the server as a subprocess (pytest-lsp, as ``tests/test_lsp.py`` does) on a
small project, sends one hostile thing and checks the answer and that the server still serves a
plain request afterwards. Timeouts are liveness bounds only: a request that is never answered
fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import attrs
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from rdx_lsp.features import MAX_SYMBOL_DEPTH

# Each test is a language-server session of its own (seconds each): make check leaves them to
# make test, and drives the server through tests/test_lsp.py's navigation test instead.
pytestmark = pytest.mark.slow

LIVENESS = 60  # seconds; generous, only so that a dropped request fails instead of hanging
INVALID_PARAMS = -32602
GOOD = "module Good\n  def ok; end\nend\n"


def deep_modules(depth: int) -> str:
    return "".join(f"module M{i}\n" for i in range(depth)) + "def deepest; end\n" + "end\n" * depth


def symbol_depth(symbols: list[lsp.DocumentSymbol]) -> int:
    """How deep a documentSymbol tree nests (an explicit stack, like the code it checks)."""
    deepest = 0
    stack = [(s, 1) for s in symbols]
    while stack:
        symbol, depth = stack.pop()
        deepest = max(deepest, depth)
        stack += [(c, depth + 1) for c in symbol.children or ()]
    return deepest


def symbol_count(symbols: list[lsp.DocumentSymbol]) -> int:
    count, stack = 0, list(symbols)
    while stack:
        symbol = stack.pop()
        count += 1
        stack += symbol.children or ()
    return count


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "good.rb").write_text(GOOD)
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "p")])
    )
    return root


def open_buffer(client: LanguageClient, path: Path, text: str) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(path.as_uri(), "ruby", 1, text)))


async def still_serving(client: LanguageClient, root: Path) -> None:
    """A plain request after the hostile one gets its usual answer."""
    symbols = await asyncio.wait_for(client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier((root / "good.rb").as_uri()))), LIVENESS)
    assert [s.name for s in symbols or []] == ["Good"]


# Buffers nested deeper than documentSymbol nests (and than discovery's MAX_NESTING) are answered
# with a tree no deeper than MAX_SYMBOL_DEPTH that still lists the symbols it cut.
@pytest.mark.parametrize("depth", [MAX_SYMBOL_DEPTH + 1, 500])
@pytest.mark.asyncio
async def test_document_symbol_on_a_deep_buffer_is_answered(client: LanguageClient, tmp_path: Path, depth: int) -> None:
    root = await start(client, tmp_path)
    path = root / "deep.rb"
    open_buffer(client, path, deep_modules(depth))
    symbols = await asyncio.wait_for(client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(path.as_uri()))), LIVENESS)
    assert symbols
    assert symbol_depth(symbols) == MAX_SYMBOL_DEPTH
    assert symbol_count(symbols) > MAX_SYMBOL_DEPTH
    await still_serving(client, root)


# Positions the protocol's types refuse (the client's validators are switched off to send them):
# each request is answered InvalidParams, naming the field.
@pytest.mark.parametrize(
    ("method", "params", "line", "character"),
    [
        (lsp.TEXT_DOCUMENT_HOVER, lsp.HoverParams, 0, -1),
        (lsp.TEXT_DOCUMENT_DEFINITION, lsp.DefinitionParams, -1, 0),
        (lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, lsp.DocumentHighlightParams, 2**40, 0),
    ],
)
@pytest.mark.asyncio
async def test_invalid_positions_are_answered_invalid_params(
    client: LanguageClient, tmp_path: Path, method: str, params: type, line: int, character: int
) -> None:
    root = await start(client, tmp_path)
    with attrs.validators.disabled():
        request = params(text_document=lsp.TextDocumentIdentifier((root / "good.rb").as_uri()), position=lsp.Position(line, character))
    with pytest.raises(JsonRpcException) as raised:
        await asyncio.wait_for(client.protocol.send_request_async(method, request), LIVENESS)
    assert raised.value.code == INVALID_PARAMS
    assert "position" in str(raised.value)
    await still_serving(client, root)


@pytest.mark.asyncio
async def test_an_oversized_buffer_is_a_diagnostic_and_the_server_keeps_serving(client: LanguageClient, tmp_path: Path) -> None:
    root = await start(client, tmp_path)
    await still_serving(client, root)  # Indexed: from now on every change publishes diagnostics.
    path = root / "big.rb"
    open_buffer(client, path, "class Small; end\n")
    await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), LIVENESS)
    # 3 MB of classes, over the 2 MB default max_file_size, as one full-text change.
    big = "class Big; end\n" * (3 * 1024 * 1024 // 15)
    change = lsp.TextDocumentContentChangeWholeDocument(text=big)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=2, uri=path.as_uri()), [change]))
    await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), LIVENESS)
    (diagnostic,) = client.diagnostics[path.as_uri()]
    assert diagnostic.code == "buffer-too-large" and str(len(big)) in diagnostic.message
    # The document is indexed empty: no stale symbols of the small version, none of the big one.
    symbols = await asyncio.wait_for(client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(path.as_uri()))), LIVENESS)
    assert not symbols
    await still_serving(client, root)
    # Back under the limit, the buffer is indexed again and the diagnostic goes.
    change = lsp.TextDocumentContentChangeWholeDocument(text="class Small; end\n")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=3, uri=path.as_uri()), [change]))
    await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), LIVENESS)
    assert not client.diagnostics[path.as_uri()]
    symbols = await asyncio.wait_for(client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(path.as_uri()))), LIVENESS)
    assert [s.name for s in symbols or []] == ["Small"]
