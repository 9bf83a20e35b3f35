"""``rdx lsp`` driven as a subprocess by pytest-lsp's client (pygls), feature by feature, on a
copy of the demo project with a multibyte line."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import rdx

EXAMPLE = Path(rdx.__file__).parent / "data" / "example"
# A constant after multibyte text: its UTF-16, UTF-8 and byte columns all differ.
UNICODE = 'module Shop\n  LABEL = "café 😀 " + Shop::Models::Product.name\nend\n'


def project_of(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    (root / "lib" / "unicode.rb").write_text(UNICODE)
    return root


def uri(path: Path) -> str:
    return path.as_uri()


async def start(client: LanguageClient, root: Path, encodings: list[lsp.PositionEncodingKind] | None = None) -> lsp.InitializeResult:
    capabilities = client_capabilities("neovim")
    if encodings is not None:
        capabilities.general = lsp.GeneralClientCapabilities(position_encodings=encodings)
    return await client.initialize_session(lsp.InitializeParams(capabilities=capabilities, root_uri=uri(root), workspace_folders=[lsp.WorkspaceFolder(uri(root), "project")]))


def pos(cls, path: Path, line: int, character: int, **extra):  # type: ignore[no-untyped-def]
    """Request parameters naming a document and a position (0-based, as LSP counts)."""
    return cls(text_document=lsp.TextDocumentIdentifier(uri(path)), position=lsp.Position(line, character), **extra)


def spans(locations: list[lsp.Location] | None, root: Path) -> list[tuple[str, int, int]]:
    return sorted((str(Path(loc.uri.removeprefix("file://")).relative_to(root)), loc.range.start.line, loc.range.start.character) for loc in locations or [])


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    await lsp_client.shutdown_session()


# Each test is a server session of its own (seconds each): make check runs navigation and leaves
# the others, marked slow, to make test.
@pytest.mark.asyncio
async def test_navigation_features(client: LanguageClient, tmp_path: Path) -> None:
    root = project_of(tmp_path)
    result = await start(client, root)
    caps = result.capabilities
    assert caps.definition_provider and caps.references_provider and caps.rename_provider and caps.type_hierarchy_provider
    assert caps.text_document_sync.change == lsp.TextDocumentSyncKind.Incremental
    order = root / "lib/shop/models/order.rb"
    # ``OutOfStock`` in ``raise OutOfStock, ...`` (line 19, 0-based 18): its class definition.
    found = await client.text_document_definition_async(pos(lsp.DefinitionParams, order, 18, 16))
    assert spans(found, root) == [("lib/shop.rb", 7, 2)]
    hover = await client.text_document_hover_async(pos(lsp.HoverParams, order, 18, 16))
    assert hover is not None and "Shop::OutOfStock" in hover.contents.value and "Shop::Error" in hover.contents.value
    refs = await client.text_document_references_async(
        pos(lsp.ReferenceParams, root / "lib/shop.rb", 7, 9, context=lsp.ReferenceContext(include_declaration=True))
    )
    assert spans(refs, root) == [("lib/shop.rb", 7, 8), ("lib/shop/models/order.rb", 18, 14)]
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri(order))))
    assert [s.name for s in symbols] == ["Shop"]
    models = symbols[0].children[0]
    assert models.name == "Models" and [c.name for c in models.children] == ["Line", "Order"]
    assert [m.name for m in models.children[1].children][:3] == ["initialize", "add", "each"]
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="format money"))
    assert "formatMoney" in [s.name for s in found][:3]
    record = root / "lib/shop/models/record.rb"
    impls = await client.text_document_implementation_async(pos(lsp.ImplementationParams, record, 3, 10))
    assert spans(impls, root) == [("lib/shop/models/order.rb", 9, 10), ("lib/shop/models/product.rb", 3, 10)]
    items = await client.text_document_prepare_type_hierarchy_async(pos(lsp.TypeHierarchyPrepareParams, order, 9, 10))
    assert items and items[0].name == "Shop::Models::Order"
    supers = await client.type_hierarchy_supertypes_async(lsp.TypeHierarchySupertypesParams(item=items[0]))
    assert [s.name for s in supers] == ["Shop::Models::Record"]
    # Indexing was reported with $/progress: begin, reports, end.
    kinds = [type(v).__name__ for v in client.progress_reports.get("rdx-indexing", [])]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    items = await client.text_document_prepare_type_hierarchy_async(pos(lsp.TypeHierarchyPrepareParams, record, 3, 10))
    subs = await client.type_hierarchy_subtypes_async(lsp.TypeHierarchySubtypesParams(item=items[0]))
    assert sorted(s.name for s in subs) == ["Shop::Models::Order", "Shop::Models::Product"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_other_languages(client: LanguageClient, tmp_path: Path) -> None:
    root = project_of(tmp_path)
    await start(client, root)
    cart = root / "web/cart.ts"
    found = await client.text_document_definition_async(pos(lsp.DefinitionParams, cart, 9, 12))
    assert spans(found, root) == [("web/money.ts", 7, 16)]
    printer = root / "python/receipts/printer.py"
    hover = await client.text_document_hover_async(pos(lsp.HoverParams, printer, 13, 16))
    assert hover is not None and "receipts.money.format_cents(cents: int) -> str" in hover.contents.value


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("encoding", [lsp.PositionEncodingKind.Utf16, lsp.PositionEncodingKind.Utf8])
async def test_positions_follow_the_negotiated_encoding(client: LanguageClient, tmp_path: Path, encoding: lsp.PositionEncodingKind) -> None:
    root = project_of(tmp_path)
    result = await start(client, root, [encoding])
    assert result.capabilities.position_encoding == encoding
    line = UNICODE.splitlines()[1]
    prefix = line[: line.index("Product")]
    character = len(prefix.encode("utf-16-le")) // 2 if encoding == lsp.PositionEncodingKind.Utf16 else len(prefix.encode())
    unicode = root / "lib/unicode.rb"
    found = await client.text_document_definition_async(pos(lsp.DefinitionParams, unicode, 1, character + 2))
    assert spans(found, root) == [("lib/shop/models/product.rb", 3, 4)]
    refs = await client.text_document_references_async(
        pos(lsp.ReferenceParams, root / "lib/shop/models/product.rb", 3, 10, context=lsp.ReferenceContext(include_declaration=False))
    )
    mine = [r for r in refs if r.uri == uri(unicode)]
    path_prefix = line[: line.index("Shop::Models::Product")]  # The reference spans the whole path.
    begin = len(path_prefix.encode("utf-16-le")) // 2 if encoding == lsp.PositionEncodingKind.Utf16 else len(path_prefix.encode())
    assert [(r.range.start.line, r.range.start.character) for r in mine] == [(1, begin)]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_edits_diagnostics_and_completion(client: LanguageClient, tmp_path: Path) -> None:
    root = project_of(tmp_path)
    await start(client, root)
    path = root / "lib/extra.rb"
    text = "module Shop\n  class Extra < Error\n  end\nend\n"
    path.write_text(text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri(path), "ruby", 1, text)))
    found = await client.text_document_definition_async(pos(lsp.DefinitionParams, path, 1, 17))
    assert spans(found, root) == [("lib/shop.rb", 5, 2)]
    # Edit the buffer (not the file): an incremental change adds a broken line and a call.
    change = lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(2, 0), lsp.Position(2, 0)), text="    def x(\n")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=2, uri=uri(path)), [change]))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diagnostics = client.diagnostics[uri(path)]
    assert diagnostics and diagnostics[0].severity == lsp.DiagnosticSeverity.Error
    fixed = lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(2, 0), lsp.Position(3, 0)), text="    Shop::Mod\n")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=3, uri=uri(path)), [fixed]))
    items = await client.text_document_completion_async(pos(lsp.CompletionParams, path, 2, 13))
    labels = [i.label for i in items.items]
    assert "Models" in labels
    resolved = await client.completion_item_resolve_async(next(i for i in items.items if i.label == "Models"))
    assert resolved.documentation is not None and "Shop::Models" in resolved.documentation.value
    # The buffer wins over the disk while open; the disk again after closing.
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri(path))))
    assert [c.name for c in symbols[0].children] == ["Extra"]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_rename_and_refusals(client: LanguageClient, tmp_path: Path) -> None:
    root = project_of(tmp_path)
    await start(client, root)
    shop = root / "lib/shop.rb"
    edit = await client.text_document_rename_async(pos(lsp.RenameParams, shop, 7, 9, new_name="SoldOut"))
    assert edit is not None and edit.changes is not None
    touched = {str(Path(u.removeprefix("file://")).relative_to(root)): [(e.range.start.line, e.range.start.character, e.new_text) for e in edits] for u, edits in edit.changes.items()}
    assert touched == {"lib/shop.rb": [(7, 8, "SoldOut")], "lib/shop/models/order.rb": [(18, 14, "SoldOut")]}
    with pytest.raises(JsonRpcException, match="not a valid name"):
        await client.text_document_rename_async(pos(lsp.RenameParams, shop, 7, 9, new_name="sold_out"))
    # ``price_with_tax`` is also called on ``product``, a parameter rdx cannot type: that call
    # matches only by name, so renaming could miss or break it.
    pricing = root / "lib/shop/pricing.rb"
    with pytest.raises(JsonRpcException, match="match only by name"):
        await client.text_document_rename_async(pos(lsp.RenameParams, pricing, 5, 10, new_name="with_tax"))


@pytest.mark.slow
@pytest.mark.asyncio
async def test_bad_requests_get_errors_and_the_server_keeps_serving(client: LanguageClient, tmp_path: Path) -> None:
    root = project_of(tmp_path)
    await start(client, root)
    missing = await client.text_document_definition_async(pos(lsp.DefinitionParams, root / "nope.rb", 0, 0))
    assert missing is None
    past_end = await client.text_document_hover_async(pos(lsp.HoverParams, root / "lib/shop.rb", 500, 500))
    assert past_end is None
    with pytest.raises(JsonRpcException):
        await client.text_document_definition_async(
            lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier("untitled:Untitled-1"), position=lsp.Position(0, 0))
        )
    found = await client.text_document_definition_async(pos(lsp.DefinitionParams, root / "lib/shop/models/order.rb", 18, 16))
    assert spans(found, root) == [("lib/shop.rb", 7, 2)]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_buffer_opened_while_indexing_gets_its_diagnostics_without_an_edit(client: LanguageClient, tmp_path: Path) -> None:
    """Issue 22: the buffers opened while the index is built are published once it is ready,
    not at their first edit."""
    root = project_of(tmp_path)
    path = root / "lib/opened_early.rb"
    text = "module Shop\n  def broken(\nend\n"
    path.write_text(text)
    await start(client, root)
    # Opened at once, while the server still indexes; nothing else is sent.
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri(path), "ruby", 1, text)))
    for _ in range(50):
        if client.diagnostics.get(uri(path)):
            break
        await asyncio.wait_for(client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60)
    diagnostics = client.diagnostics[uri(path)]
    assert diagnostics and any(d.severity == lsp.DiagnosticSeverity.Error for d in diagnostics)
