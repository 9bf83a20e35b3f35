"""``rdx lsp``'s editing features beyond navigation (issue 25), through pytest-lsp against the
server as a subprocess, on a small multi-file project: semantic tokens (decoded against the
expected kinds at known positions), signature help, inlay hints, selection ranges, document
links, code lens, on-type formatting and call hierarchy. One server for the module."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.asyncio(loop_scope="module")

SHOP = """\
require_relative "shop/money"

module Shop
  RATE = 2

  module Pricing
    def price_with(rate, discount: 0, &block)
      rate * RATE - discount
    end
  end

  class Item
    include Pricing
    attr_reader :name

    def initialize(name)
      @name = name
    end

    def self.build(*names, **opts)
      names.map { |n| new(n) }
    end

    def total(count)
      subtotal = price_with(count, discount: 1)
      puts subtotal
      Item.build(:a, "b")
      Money.format(subtotal)
    end
  end
end
"""
MONEY = """\
module Shop
  module Money
    def self.format(cents, currency = "EUR")
      "#{cents} #{currency}"
    end
  end
end
"""
TEST = """\
require "minitest/autorun"

class ItemTest < Minitest::Test
  def test_total
    assert_equal 1, 1
  end
end
"""
SPEC = """\
RSpec.describe "an item" do
  it "costs money" do
    expect(1).to eq(1)
  end
end
"""
BOX = """\
class Box
  define_method(:resize) do |factor|
    factor
  end

  def go
    resize(2)
  end
end
"""
PYTHON = """\
class Cart:
    def add(self, item):
        return item


def total(cart: Cart) -> int:
    return cart.add(1)
"""

# The server's legend, as the docs list it (tests/test_lsp_editing.py checks the server sends it).
TYPES = ["namespace", "class", "struct", "interface", "enum", "type", "parameter", "variable", "property", "enumMember", "function", "method"]
MODIFIERS = ["declaration", "readonly", "static", "defaultLibrary"]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editing") / "project"
    for name, text in {
        "lib/shop.rb": SHOP, "lib/shop/money.rb": MONEY, "lib/box.rb": BOX, "test/item_test.rb": TEST, "spec/item_spec.rb": SPEC, "py/cart.py": PYTHON,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient, root: Path) -> AsyncIterator[None]:
    capabilities = client_capabilities("neovim")
    # As VS Code's client does (Neovim's registers file watchers dynamically from 0.9 on).
    capabilities.workspace.did_change_watched_files.dynamic_registration = True  # type: ignore[union-attr]
    params = lsp.InitializeParams(
        capabilities=capabilities, root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "project")]
    )
    # The server asks the client to refresh inlay hints when their settings change, and to
    # watch files (recorded for the test).
    lsp_client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)(lambda *_: None)
    registrations: list[lsp.Registration] = []
    lsp_client.registrations = registrations  # type: ignore[attr-defined]
    lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)(lambda params: registrations.extend(params.registrations))
    result = await lsp_client.initialize_session(params)
    lsp_client.capabilities_of_server = result.capabilities  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def doc(path: Path) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(path.as_uri())


def where(text: str, line: int, needle: str, nth: int = 0) -> lsp.Position:
    """The position of the ``nth`` occurrence of ``needle`` on a 0-based line (ASCII text)."""
    row = text.split("\n")[line]
    column = -1
    for _ in range(nth + 1):
        column = row.index(needle, column + 1)
    return lsp.Position(line, column)


def decode(data: list[int], text: str) -> dict[tuple[int, int], tuple[str, str, set[str]]]:
    """Tokens by (line, character): the text they cover, their type and their modifiers."""
    lines = text.split("\n")
    out = {}
    line = character = 0
    for i in range(0, len(data), 5):
        delta_line, delta_char, length, kind, mods = data[i : i + 5]
        line += delta_line
        character = character + delta_char if delta_line == 0 else delta_char
        names = {m for bit, m in enumerate(MODIFIERS) if mods & (1 << bit)}
        out[(line, character)] = (lines[line][character : character + length], TYPES[kind], names)
    return out


def check_tokens(tokens: dict, text: str, expected: list[tuple[int, str, int, str, set[str]]]) -> None:
    """Each expectation: (line, needle, occurrence on the line, token type, modifiers)."""
    for line, needle, nth, kind, mods in expected:
        at = where(text, line, needle, nth)
        assert tokens.get((at.line, at.character)) == (needle, kind, mods), (line, needle)


async def test_semantic_tokens_of_ruby(client: LanguageClient, root: Path) -> None:
    caps = client.capabilities_of_server.semantic_tokens_provider  # type: ignore[attr-defined]
    assert list(caps.legend.token_types) == TYPES and list(caps.legend.token_modifiers) == MODIFIERS
    assert caps.range and caps.full.delta
    result = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc(root / "lib/shop.rb")))
    tokens = decode(result.data, SHOP)
    check_tokens(tokens, SHOP, [
        (2, "Shop", 0, "namespace", {"declaration"}),
        (3, "RATE", 0, "variable", {"readonly", "declaration"}),
        (6, "price_with", 0, "method", {"declaration"}),
        (6, "rate", 0, "parameter", {"declaration"}),
        (6, "discount", 0, "parameter", {"declaration"}),
        (6, "block", 0, "parameter", {"declaration"}),
        (7, "rate", 0, "parameter", set()),
        (7, "RATE", 0, "variable", {"readonly"}),
        (11, "Item", 0, "class", {"declaration"}),
        (12, "include", 0, "method", {"defaultLibrary"}),
        (12, "Pricing", 0, "namespace", set()),
        (13, ":name", 0, "property", {"declaration"}),
        (16, "@name", 0, "property", {"declaration"}),
        (16, "name", 1, "parameter", set()),
        (19, "build", 0, "method", {"declaration", "static"}),
        (20, "names", 0, "parameter", set()),
        (20, "n", 1, "parameter", {"declaration"}),
        (20, "new", 0, "method", {"defaultLibrary"}),  # Class#new: an instance method of Class.
        (24, "subtotal", 0, "variable", {"declaration"}),
        (24, "price_with", 0, "method", set()),
        (24, "count", 0, "parameter", set()),
        (24, "discount", 0, "enumMember", set()),
        (25, "puts", 0, "method", {"defaultLibrary"}),
        (25, "subtotal", 0, "variable", set()),
        (26, "Item", 0, "class", set()),
        (26, "build", 0, "method", {"static"}),
        (26, ":a", 0, "enumMember", set()),
        (27, "Money", 0, "namespace", set()),
        (27, "format", 0, "method", {"static"}),
    ])
    # ``/range`` gives the tokens that start in the range, the same as ``/full`` gives there.
    part = await client.text_document_semantic_tokens_range_async(
        lsp.SemanticTokensRangeParams(doc(root / "lib/shop.rb"), lsp.Range(lsp.Position(24, 0), lsp.Position(26, 0)))
    )
    ranged = decode(part.data, SHOP)
    assert ranged == {k: v for k, v in tokens.items() if 24 <= k[0] < 26} and ranged


async def test_semantic_tokens_delta_after_an_edit(client: LanguageClient, root: Path) -> None:
    money = root / "lib/shop/money.rb"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(money.as_uri(), "ruby", 1, MONEY)))
    first = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc(money)))
    # ``cents`` becomes ``amount`` at the parameter (line 2) and at its use (line 3).
    edited = MONEY.replace("cents", "amount")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=money.as_uri()), [lsp.TextDocumentContentChangeWholeDocument(text=edited)]
        )
    )
    delta = await client.text_document_semantic_tokens_full_delta_async(lsp.SemanticTokensDeltaParams(doc(money), first.result_id))
    assert isinstance(delta, lsp.SemanticTokensDelta) and len(delta.edits) == 1
    data = list(first.data)
    edit = delta.edits[0]
    data[edit.start : edit.start + edit.delete_count] = edit.data or []
    full = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc(money)))
    assert data == list(full.data)
    tokens = decode(data, edited)
    check_tokens(tokens, edited, [(2, "amount", 0, "parameter", {"declaration"}), (3, "amount", 0, "parameter", set())])
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(money)))


async def test_semantic_tokens_of_another_language(client: LanguageClient, root: Path) -> None:
    result = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc(root / "py/cart.py")))
    tokens = decode(result.data, PYTHON)
    check_tokens(tokens, PYTHON, [
        (0, "Cart", 0, "class", {"declaration"}),
        (1, "add", 0, "method", {"declaration"}),
        (5, "total", 0, "function", {"declaration"}),
        (5, "Cart", 0, "class", set()),
    ])


async def signature_at(client: LanguageClient, path: Path, text: str, line: int, needle: str, after: int = 0) -> lsp.SignatureHelp | None:
    at = where(text, line, needle)
    return await client.text_document_signature_help_async(
        lsp.SignatureHelpParams(doc(path), lsp.Position(at.line, at.character + after))
    )


def labelled(help: lsp.SignatureHelp) -> tuple[str, list[str], str | None]:
    """The first signature's label, its parameters as text, and the active one."""
    sig = help.signatures[0]
    params = [sig.label[p.label[0] : p.label[1]] for p in sig.parameters or []]  # type: ignore[index]
    active = params[help.active_parameter] if help.active_parameter is not None else None
    return sig.label, params, active


@pytest.mark.parametrize(
    ("line", "needle", "after", "active"),
    [
        # ``price_with(count, discount: 1)``: in ``count``, then in the ``discount:`` keyword.
        (24, "count", 1, "rate"),
        (24, "discount", 2, "discount: 0"),
        # Right after the opening parenthesis: the first parameter.
        (24, "(count", 1, "rate"),
    ],
)
async def test_signature_help_follows_the_cursor(client: LanguageClient, root: Path, line: int, needle: str, after: int, active: str) -> None:
    help = await signature_at(client, root / "lib/shop.rb", SHOP, line, needle, after)
    assert help is not None
    label, params, current = labelled(help)
    assert label == "price_with(rate, discount: 0, &block)"
    assert params == ["rate", "discount: 0", "&block"] and current == active


async def test_signature_help_of_singleton_methods_splats_and_defaults(client: LanguageClient, root: Path) -> None:
    # ``Item.build(:a, "b")``: both arguments go to ``*names``.
    help = await signature_at(client, root / "lib/shop.rb", SHOP, 26, '"b"', 1)
    assert help is not None and labelled(help) == ("build(*names, **opts)", ["*names", "**opts"], "*names")
    # ``Money.format(subtotal)``, a method of another file, with a default.
    help = await signature_at(client, root / "lib/shop.rb", SHOP, 27, "subtotal", 2)
    assert help is not None and labelled(help) == ('format(cents, currency = "EUR")', ["cents", 'currency = "EUR"'], "cents")
    assert "Shop::Money::<Money>#format()" in help.signatures[0].documentation.value  # type: ignore[union-attr]
    # Outside any call's arguments: nothing.
    assert await signature_at(client, root / "lib/shop.rb", SHOP, 24, "subtotal") is None


async def test_signature_help_while_the_call_is_typed(client: LanguageClient, root: Path) -> None:
    """``price_with(count, `` with its parenthesis not closed yet: the buffer does not parse."""
    shop = root / "lib/shop.rb"
    typing = SHOP.replace("subtotal = price_with(count, discount: 1)", "subtotal = price_with(count, ")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(shop.as_uri(), "ruby", 1, typing)))
    at = where(typing, 24, "count, ")
    help = await client.text_document_signature_help_async(lsp.SignatureHelpParams(doc(shop), lsp.Position(24, at.character + len("count, "))))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(shop)))
    assert help is not None and labelled(help) == ("price_with(rate, discount: 0, &block)", ["rate", "discount: 0", "&block"], "discount: 0")


async def test_signature_help_of_a_method_a_macro_defines_shows_the_macro(client: LanguageClient, root: Path) -> None:
    help = await signature_at(client, root / "lib/box.rb", BOX, 6, "(2", 1)
    assert help is not None and help.signatures[0].label == "resize(...)"
    assert "defined by `define_method(:resize) do |factor|`" in help.signatures[0].documentation.value  # type: ignore[union-attr]


async def test_inlay_hints_are_off_until_asked_then_name_owners_and_targets(client: LanguageClient, root: Path) -> None:
    shop = root / "lib/shop.rb"
    body = lsp.Range(lsp.Position(23, 0), lsp.Position(28, 0))
    assert not await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(shop), body))
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"rdx": {"inlayHints": {"implicitSelf": True, "constants": True}}})
    )
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(shop), body))
    found = [(h.position.line, h.position.character, h.label) for h in hints or []]
    assert found == [
        # ``price_with`` comes from the module Item includes; ``puts`` from Kernel.
        (24, where(SHOP, 24, "price_with").character, "Shop::Pricing#"),
        (25, where(SHOP, 25, "puts").character, "Kernel#"),
        # ``Item`` and ``Money`` are found in the namespace around them.
        (26, where(SHOP, 26, "Item").character + 4, "→ Shop::Item"),
        (27, where(SHOP, 27, "Money").character + 5, "→ Shop::Money"),
    ]
    # A call of the class's own method and a constant written in full get none.
    own = SHOP.replace("      puts subtotal\n", "      total(1)\n      Shop::Money\n")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(shop.as_uri(), "ruby", 1, own)))
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc(shop), lsp.Range(lsp.Position(25, 0), lsp.Position(26, 40))))
    assert not hints
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(shop)))
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"inlayHints": {"implicitSelf": False, "constants": False}}))


async def test_selection_ranges_grow_from_the_name_outward(client: LanguageClient, root: Path) -> None:
    shop = root / "lib/shop.rb"
    found = await client.text_document_selection_range_async(lsp.SelectionRangeParams(doc(shop), [where(SHOP, 24, "count")]))
    assert found is not None and len(found) == 1
    spans = []
    node: lsp.SelectionRange | None = found[0]
    while node is not None:
        r = node.range
        spans.append(((r.start.line, r.start.character), (r.end.line, r.end.character)))
        node = node.parent
    assert spans[0] == ((24, 28), (24, 33))  # ``count``
    assert ((24, 27), (24, 47)) in spans  # the arguments ``(count, discount: 1)``
    assert ((23, 4), (28, 7)) in spans  # ``def total ... end``
    assert ((11, 2), (29, 5)) in spans  # ``class Item ... end``
    assert spans[-1][0] == (0, 0)  # the whole file last
    assert all(a[0] >= b[0] and a[1] <= b[1] for a, b in zip(spans, spans[1:], strict=False))  # each holds the one before
    assert len(set(spans)) == len(spans)


async def test_document_links_of_requires(client: LanguageClient, root: Path) -> None:
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(doc(root / "lib/shop.rb")))
    assert links is not None
    assert [(lk.range.start.line, lk.range.start.character, lk.range.end.character, lk.target) for lk in links] == [
        (0, 18, 28, (root / "lib/shop/money.rb").as_uri())
    ]
    # ``require "minitest/autorun"``: not an indexed file, no link.
    assert not await client.text_document_document_link_async(lsp.DocumentLinkParams(doc(root / "test/item_test.rb")))


async def test_code_lens_runs_minitest_and_rspec_and_counts_references(client: LanguageClient, root: Path) -> None:
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(doc(root / "test/item_test.rb")))
    runs = [(lens.range.start.line, lens.command.title, lens.command.arguments[0]["command"]) for lens in lenses or [] if lens.command]
    assert runs == [
        (2, "▶ Run", ["ruby", "-Itest", "-Ilib", "test/item_test.rb"]),
        (2, "Run in terminal", ["ruby", "-Itest", "-Ilib", "test/item_test.rb"]),
        (3, "▶ Run", ["ruby", "-Itest", "-Ilib", "test/item_test.rb", "--name", "test_total"]),
        (3, "Run in terminal", ["ruby", "-Itest", "-Ilib", "test/item_test.rb", "--name", "test_total"]),
    ]
    # "Run" runs the test in the workspace root and answers with its exit status.
    run = next(lens for lens in lenses or [] if lens.command and lens.command.command == "rdx.runTest" and lens.range.start.line == 3)
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="rdx.runTest", arguments=run.command.arguments))
    assert result["status"] == 0 and "1 runs, 1 assertions, 0 failures" in result["output"]
    assert any("passed" in m.message for m in client.messages)
    # Only the command lines the server put in lenses run.
    with pytest.raises(Exception, match="command lines of its code lenses only"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="rdx.runTest", arguments=[{"command": ["rm", "-rf", "/"]}]))
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(doc(root / "spec/item_spec.rb")))
    runs = [(lens.range.start.line, lens.command.arguments[0]["command"]) for lens in lenses or [] if lens.command and lens.command.command == "rdx.runTest"]
    assert runs == [(0, ["rspec", "spec/item_spec.rb:1"]), (1, ["rspec", "spec/item_spec.rb:2"])]
    # Reference counts, resolved lazily.
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(doc(root / "lib/shop.rb")))
    counted = {lens.range.start.line: lens for lens in lenses or [] if lens.command is None}
    assert sorted(counted) == [2, 5, 6, 11, 15, 19, 23]
    resolved = await client.code_lens_resolve_async(counted[6])  # ``price_with``: called once, from Item#total
    assert resolved.command is not None and resolved.command.title == "1 reference"
    resolved = await client.code_lens_resolve_async(counted[11])  # ``Item``: ``Item.build``
    assert resolved.command is not None and resolved.command.title == "1 reference"


async def test_on_type_formatting_adds_end_and_continues_comments(client: LanguageClient, root: Path) -> None:
    scratch = root / "lib/scratch.rb"
    text = "class Scratch\n  def go(x)\n    \nend\n"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(scratch.as_uri(), "ruby", 1, text)))
    edits = await client.text_document_on_type_formatting_async(
        lsp.DocumentOnTypeFormattingParams(doc(scratch), lsp.Position(2, 4), "\n", lsp.FormattingOptions(tab_size=2, insert_spaces=True))
    )
    assert [(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text) for e in edits or []] == [
        (2, 0, 2, 4, "    "),
        (3, 0, 3, 0, "  end\n"),
    ]
    text = "# Says hello\n  # to everyone\n  \n"
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=scratch.as_uri()), [lsp.TextDocumentContentChangeWholeDocument(text=text)]
        )
    )
    edits = await client.text_document_on_type_formatting_async(
        lsp.DocumentOnTypeFormattingParams(doc(scratch), lsp.Position(2, 2), "\n", lsp.FormattingOptions(tab_size=2, insert_spaces=True))
    )
    assert [(e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in edits or []] == [(2, 0, 2, "  # ")]
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(scratch)))


async def test_call_hierarchy_from_resolved_call_sites(client: LanguageClient, root: Path) -> None:
    shop = root / "lib/shop.rb"
    items = await client.text_document_prepare_call_hierarchy_async(lsp.CallHierarchyPrepareParams(doc(shop), where(SHOP, 6, "price_with")))
    assert items is not None and [(i.name, i.detail) for i in items] == [("price_with", "Shop::Pricing")]
    incoming = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(items[0]))
    assert [(c.from_.name, c.from_.detail, [(r.start.line, r.start.character) for r in c.from_ranges]) for c in incoming or []] == [
        ("total", "Shop::Item", [(24, where(SHOP, 24, "price_with").character)])
    ]
    total = await client.text_document_prepare_call_hierarchy_async(lsp.CallHierarchyPrepareParams(doc(shop), where(SHOP, 23, "total")))
    outgoing = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(total[0]))  # type: ignore[index]
    # Kernel#puts is Ruby's core: nowhere to go, not listed.
    assert [(c.to.name, c.to.detail, c.to.uri.rsplit("/", 1)[-1]) for c in outgoing or []] == [
        ("price_with", "Shop::Pricing", "shop.rb"),
        ("build", "Shop::Item::<Item>", "shop.rb"),
        ("format", "Shop::Money::<Money>", "money.rb"),
    ]


async def test_watched_files_are_registered_dynamically(client: LanguageClient, root: Path) -> None:
    # Any request waits for the index, by then ``initialized`` has been answered with the registration.
    await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc(root / "lib/shop.rb")))
    found = [r for r in client.registrations if r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]  # type: ignore[attr-defined]
    assert len(found) == 1
    globs = [w["globPattern"] if isinstance(w, dict) else w.glob_pattern for w in found[0].register_options["watchers"]]  # type: ignore[index]
    assert "**/*.{rb,rake,gemspec,ru,erb}" in globs and any("Gemfile.lock" in g for g in globs)


async def test_prepare_rename_names_the_last_segment_or_says_why_not(client: LanguageClient, root: Path) -> None:
    shop = root / "lib/shop.rb"
    found = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(shop), where(SHOP, 24, "price_with")))
    start = where(SHOP, 24, "price_with")
    assert isinstance(found, lsp.PrepareRenamePlaceholder) and found.placeholder == "price_with"
    assert (found.range.start, found.range.end) == (start, lsp.Position(24, start.character + len("price_with")))
    found = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(shop), where(SHOP, 26, "Item")))
    assert isinstance(found, lsp.PrepareRenamePlaceholder) and found.placeholder == "Item"
    with pytest.raises(Exception, match="defined in Ruby's core"):
        await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(shop), where(SHOP, 25, "puts")))
    with pytest.raises(Exception, match="nothing to rename here"):
        await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc(shop), lsp.Position(1, 0)))


async def test_show_syntax_tree(client: LanguageClient, root: Path) -> None:
    money = (root / "lib/shop/money.rb").as_uri()
    text = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="rdx.showSyntaxTree", arguments=[money]))
    lines = text.split("\n")
    assert lines[:4] == [
        "program [0:0-7:0]",
        "  module [0:0-6:3]",
        "    name: constant [0:7-0:11] 'Shop'",
        "    body: body_statement [1:2-5:5]",
    ]
    assert "            name: identifier [2:13-2:19] 'format'" in lines
    # A range keeps the nodes that overlap its lines.
    part = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="rdx.showSyntaxTree", arguments=[{"uri": money, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 9}}}])
    )
    assert "'format'" not in part and "interpolation" in part


async def test_selection_ranges_in_another_language(client: LanguageClient, root: Path) -> None:
    cart = root / "py/cart.py"
    found = await client.text_document_selection_range_async(lsp.SelectionRangeParams(doc(cart), [where(PYTHON, 2, "item")]))
    spans = []
    node = found[0] if found else None
    while node is not None:
        spans.append(((node.range.start.line, node.range.start.character), (node.range.end.line, node.range.end.character)))
        node = node.parent
    assert spans[0] == ((2, 15), (2, 19))  # ``item`` in ``return item``
    assert ((1, 4), (2, 19)) in spans  # ``def add(self, item): ...``
    assert ((0, 0), (2, 19)) in spans  # ``class Cart: ...``


async def test_code_action_adds_a_missing_require_relative(client: LanguageClient, root: Path) -> None:
    crate = root / "lib/crate.rb"
    text = "# frozen_string_literal: true\n\nclass Crate\n  def item = Shop::Item\nend\n"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(crate.as_uri(), "ruby", 1, text)))
    at = where(text, 3, "Item")
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(doc(crate), lsp.Range(at, at), lsp.CodeActionContext(diagnostics=[]))
    )
    assert [a.title for a in actions or []] == ['Add require_relative "shop" (defines Shop::Item)']
    edit = actions[0].edit.changes[crate.as_uri()][0]  # type: ignore[index,union-attr]
    assert (edit.range.start.line, edit.range.start.character, edit.new_text) == (2, 0, 'require_relative "shop"\n\n')
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(doc(crate)))
    # ``Money`` in shop.rb: shop.rb already requires shop/money, so nothing to add.
    money = where(SHOP, 27, "Money")
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(doc(root / "lib/shop.rb"), lsp.Range(money, money), lsp.CodeActionContext(diagnostics=[]))
    )
    assert not actions
