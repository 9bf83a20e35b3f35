"""ERB templates in the language server (issue 25): a view's tokens, definitions and
references, at the template's own positions, over stdio through pytest-lsp."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.test_erb import HELPER, MODEL, VIEW
from tests.test_lsp_editing import MODIFIERS, TYPES, decode

VIEW_PATH = "app/views/products/index.html.erb"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("erb") / "app"
    for name, text in {"app/helpers/products_helper.rb": HELPER, "app/models/shop/product.rb": MODEL, VIEW_PATH: VIEW}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient, root: Path) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("neovim"), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "app")]
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def position(needle: str) -> lsp.Position:
    at = VIEW.index(needle)
    return lsp.Position(VIEW.count("\n", 0, at), at - (VIEW.rfind("\n", 0, at) + 1))


async def test_a_view_is_indexed_from_the_walk_and_navigates(client: LanguageClient, root: Path) -> None:
    view = lsp.TextDocumentIdentifier((root / VIEW_PATH).as_uri())
    # The constant in a tag: a certain definition in the model's file.
    at = position("Shop::Product.count")
    found = await client.text_document_definition_async(lsp.DefinitionParams(view, lsp.Position(at.line, at.character + len("Shop::"))))
    assert found and [Path(loc.uri).name if "://" not in loc.uri else loc.uri.rsplit("/", 1)[1] for loc in found] == ["product.rb"]
    # The helper called from the view: its references include the view's call.
    helper = lsp.TextDocumentIdentifier((root / "app/helpers/products_helper.rb").as_uri())
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(text_document=helper, position=lsp.Position(1, 6), context=lsp.ReferenceContext(include_declaration=False))
    )
    assert [(r.uri.rsplit("/", 1)[1], r.range.start.line, r.range.start.character) for r in refs or []] == [
        ("index.html.erb", position("format_price(").line, position("format_price(").character)
    ]


async def test_semantic_tokens_of_a_view(client: LanguageClient, root: Path) -> None:
    view = lsp.TextDocumentIdentifier((root / VIEW_PATH).as_uri())
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(view.uri, "eruby", 1, VIEW)))
    result = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(view))
    tokens = decode(result.data, VIEW)
    assert TYPES and MODIFIERS
    at = position("Shop::Product.count")
    assert tokens.get((at.line, at.character)) == ("Shop", "namespace", set())
    assert tokens.get((at.line, at.character + len("Shop::"))) == ("Product", "class", set())
    block = position("|product|")
    assert tokens.get((block.line, block.character + 1)) == ("product", "parameter", {"declaration"})
    # Nothing in the template's text or comments is a token.
    comment = position("NotAConstant")
    assert (comment.line, comment.character) not in tokens
