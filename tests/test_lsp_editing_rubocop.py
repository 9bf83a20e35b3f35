"""``rdx lsp``'s editing requests (issue 25) on RuboCop's real sources (Debian's rubocop gem,
``lib/`` copied once for the module): semantic tokens, signature help, inlay hints and call
hierarchy on ``Style::AndOr``, whose expectations were read off the sources."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp_editing import check_tokens, decode, labelled
from test_lsp_rubocop import rubocop_lib

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.corpus]  # RuboCop: the full tier only

AND_OR = "rubocop/cop/style/and_or.rb"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rubocop-editing") / "lib"
    shutil.copytree(rubocop_lib(), root)
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient, corpus: Path) -> AsyncIterator[None]:
    capabilities = client_capabilities("neovim")
    capabilities.general = lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16])
    params = lsp.InitializeParams(
        capabilities=capabilities, root_uri=corpus.as_uri(), workspace_folders=[lsp.WorkspaceFolder(corpus.as_uri(), "rubocop")],
        initialization_options={"inlayHints": {"implicitSelf": True}},
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def source(corpus: Path) -> tuple[Path, str, lsp.TextDocumentIdentifier]:
    path = corpus / AND_OR
    return path, path.read_text(), lsp.TextDocumentIdentifier(path.as_uri())


def position(text: str, line: int, needle: str) -> lsp.Position:
    column = text.split("\n")[line].find(needle)
    assert column >= 0, f"{needle!r} is not on line {line}"
    return lsp.Position(line, column)


async def test_semantic_tokens_of_a_cop(client: LanguageClient, corpus: Path) -> None:
    _, text, doc = source(corpus)
    assert text.split("\n")[43].strip() == "class AndOr < Base"
    result = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc))
    tokens = decode(result.data, text)
    check_tokens(tokens, text, [
        (43, "AndOr", 0, "class", {"declaration"}),
        (43, "Base", 0, "class", set()),  # RuboCop::Cop::Base, resolved through the namespaces around it.
        (44, "include", 0, "method", {"defaultLibrary"}),
        (45, "RangeHelp", 0, "namespace", set()),
        (65, "process_logical_operator", 0, "method", {"declaration"}),
        (65, "node", 0, "parameter", {"declaration"}),
        (68, "message", 0, "variable", {"declaration"}),
        (68, "message", 1, "method", set()),  # ``message(node)``: the cop's own private method.
        (69, "add_offense", 0, "method", set()),
        (69, "message", 1, "variable", set()),  # ``message: message``: the key is a symbol, the value the local.
        (69, "corrector", 0, "parameter", {"declaration"}),
    ])


async def test_signature_help_of_add_offense(client: LanguageClient, corpus: Path) -> None:
    _, text, doc = source(corpus)
    at = position(text, 69, "message: message")
    help = await client.text_document_signature_help_async(lsp.SignatureHelpParams(doc, lsp.Position(69, at.character + 3)))
    assert help is not None
    assert labelled(help) == (
        "add_offense(node_or_range, message: nil, severity: nil, &block)",
        ["node_or_range", "message: nil", "severity: nil", "&block"],
        "message: nil",
    )
    assert "RuboCop::Cop::Base#add_offense()" in help.signatures[0].documentation.value  # type: ignore[union-attr]


async def test_inlay_hints_name_the_inherited_owner(client: LanguageClient, corpus: Path) -> None:
    _, text, doc = source(corpus)
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc, lsp.Range(lsp.Position(69, 0), lsp.Position(70, 0))))
    assert [(h.position.character, h.label) for h in hints or []] == [(position(text, 69, "add_offense").character, "RuboCop::Cop::Base#")]


async def test_call_hierarchy_of_a_private_helper(client: LanguageClient, corpus: Path) -> None:
    _, text, doc = source(corpus)
    assert text.split("\n")[128].strip() == "def correct_other(node, corrector)"
    items = await client.text_document_prepare_call_hierarchy_async(lsp.CallHierarchyPrepareParams(doc, position(text, 128, "correct_other")))
    assert items is not None and [(i.name, i.detail) for i in items] == [("correct_other", "RuboCop::Cop::Style::AndOr")]
    incoming = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(items[0]))
    callers = sorted((c.from_.name, sorted(r.start.line for r in c.from_ranges)) for c in incoming or [])
    # Read off the file: every ``correct_other(`` outside its definition.
    lines = text.split("\n")
    written = [i for i, line in enumerate(lines) if "correct_other(" in line and "def correct_other" not in line]
    assert sorted(line for _, found in callers for line in found) == written
    assert [name for name, _ in callers] == ["correct_not", "correct_send", "process_logical_operator"]
    send = await client.text_document_prepare_call_hierarchy_async(lsp.CallHierarchyPrepareParams(doc, position(text, 94, "correct_send")))
    outgoing = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(send[0]))  # type: ignore[index]
    names = {c.to.name for c in outgoing or [] if c.to.detail == "RuboCop::Cop::Style::AndOr"}
    assert {"correct_not", "correct_setter", "correct_other", "correctable_send?", "whitespace_before_arg"} <= names
