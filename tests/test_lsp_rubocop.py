"""``rdx lsp`` on RuboCop's real sources (Debian's rubocop gem, ``lib/`` copied once per module),
one server for the whole module, feature by feature. Every expected answer was read off the
sources; where Ruby can answer (a cop's ancestors, the subclasses of Base) Ruby is asked, once,
with the copy first on its load path."""

from __future__ import annotations

import glob
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from conftest import RUBY
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

# One event loop for the module: the server fixture and the tests share it.
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.corpus]  # RuboCop: the full tier only

GEMS = "/usr/share/rubygems-integration/all/gems"
# Asked of Ruby with the copy first on the load path: AndOr's ancestors up to its superclass, and
# where each subclass of Base is first defined (InternalAffairs is loaded on demand by RuboCop).
ORACLE = """
require "json"
require "rubocop"
require "rubocop/cop/internal_affairs"
and_or = RuboCop::Cop::Style::AndOr
subclasses = ObjectSpace.each_object(Class).select { |c| c < RuboCop::Cop::Base }
puts JSON.generate(
  "and_or_supertypes" => and_or.ancestors.take_while { |m| m != and_or.superclass }.drop(1).map(&:name) + [and_or.superclass.name],
  "base_subclasses" => subclasses.map { |c| Object.const_source_location(c.name) },
)
"""
# Every use of RangeHelp in code: ``include RangeHelp`` in cops and mixins, ``extend RangeHelp`` in correctors.
RANGE_HELP_USE = re.compile(r"^\s*(?:include|extend)\s+(RangeHelp)\b", re.MULTILINE)


def rubocop_lib() -> Path:
    found = sorted(glob.glob(f"{GEMS}/rubocop-1.*/lib"))
    assert found, f"RuboCop is missing from {GEMS} (make system-deps installs the Debian corpus)"
    return Path(found[-1])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of RuboCop's lib/ (the server writes its ``.rdx/`` snapshot there)."""
    root = tmp_path_factory.mktemp("rubocop") / "lib"
    shutil.copytree(rubocop_lib(), root)
    return root


@pytest.fixture(scope="module")
def ruby(corpus: Path) -> dict:
    """Ruby's own answers about the copy (see ``ORACLE``)."""
    assert RUBY is not None, "ruby is required for the oracle (make system-deps installs it)"
    proc = subprocess.run([RUBY, "-I", str(corpus), "-e", ORACLE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    answers: dict = json.loads(proc.stdout.splitlines()[-1])
    return answers


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient, corpus: Path) -> AsyncIterator[None]:
    params = lsp.InitializeParams(
        capabilities=client_capabilities("neovim"),
        root_uri=corpus.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(corpus.as_uri(), "rubocop")],
    )
    result = await lsp_client.initialize_session(params)
    assert result.capabilities.implementation_provider and result.capabilities.type_hierarchy_provider
    yield
    await lsp_client.shutdown_session()


def at(cls, path: Path, line: int, character: int, **extra):  # type: ignore[no-untyped-def]
    """Request parameters naming a document and a position (0-based, as LSP counts)."""
    return cls(text_document=lsp.TextDocumentIdentifier(path.as_uri()), position=lsp.Position(line, character), **extra)


def column_of(path: Path, line: int, needle: str) -> int:
    """The column of ``needle`` on a 0-based line of ``path`` (RuboCop's sources are ASCII)."""
    column = path.read_text().split("\n")[line].find(needle)
    assert column >= 0, f"{needle!r} is not on line {line} of {path}"
    return column


def spans(locations: list[lsp.Location] | None, root: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(Path(loc.uri.removeprefix("file://")).relative_to(root)), loc.range.start.line, loc.range.start.character)
        for loc in locations or []
    )


@pytest.mark.parametrize(
    ("path", "line", "needle", "expected"),
    [
        # ``class AndOr < Base``: the superclass, RuboCop::Cop::Base (``class Base`` on line 34).
        ("rubocop/cop/style/and_or.rb", 43, "Base", [("rubocop/cop/base.rb", 33, 4)]),
        # ``include RangeHelp``: the mixin module.
        ("rubocop/cop/style/and_or.rb", 45, "RangeHelp", [("rubocop/cop/mixin/range_help.rb", 5, 4)]),
        # A qualified path, on its last name: ``RuboCop::Cop::Registry.global``.
        ("rubocop/cop/lint/missing_cop_enable_directive.rb", 76, "Registry", [("rubocop/cop/registry.rb", 18, 4)]),
    ],
)
async def test_definition_of_a_constant(client: LanguageClient, corpus: Path, path: str, line: int, needle: str, expected: list) -> None:
    source = corpus / path
    found = await client.text_document_definition_async(at(lsp.DefinitionParams, source, line, column_of(source, line, needle) + 1))
    assert spans(found, corpus) == expected


async def test_references_of_a_widely_used_mixin(client: LanguageClient, corpus: Path) -> None:
    mixin = corpus / "rubocop/cop/mixin/range_help.rb"
    refs = await client.text_document_references_async(
        at(lsp.ReferenceParams, mixin, 5, 12, context=lsp.ReferenceContext(include_declaration=True))
    )
    # The oracle: every ``include``/``extend`` of it in the sources (a comment naming it is no reference).
    uses = []
    for path in sorted(corpus.rglob("*.rb")):
        text = path.read_text()
        for m in RANGE_HELP_USE.finditer(text):
            line = text.count("\n", 0, m.start(1))
            uses.append((str(path.relative_to(corpus)), line, m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1)))
    assert len(uses) == 204
    assert spans(refs, corpus) == sorted([("rubocop/cop/mixin/range_help.rb", 5, 11), *uses])  # The declaration by its name.
    without = await client.text_document_references_async(
        at(lsp.ReferenceParams, mixin, 5, 12, context=lsp.ReferenceContext(include_declaration=False))
    )
    assert spans(without, corpus) == sorted(uses)


@pytest.mark.parametrize(
    ("path", "line", "needle", "expected"),
    [
        # ``Util.args_begin(node)``: Util is a module_function module, so the call is its singleton method.
        ("rubocop/cop/style/explicit_block_argument.rb", 140, "args_begin(", ["RuboCop::Cop::Util", "#args_begin(node)", "*Method*"]),
        # ``Registry.global.enlist``: ``global`` is an ``attr_reader`` in Registry's ``class << self``.
        ("rubocop/cop/base.rb", 152, "global", ["RuboCop::Cop::Registry", "#global"]),
        # ``add_offense`` with self as receiver, inherited from Base, with its comment.
        (
            "rubocop/cop/style/and_or.rb",
            69,
            "add_offense",
            ["RuboCop::Cop::Base#add_offense(node_or_range, message: nil, severity: nil, &block)", "Adds an offense"],
        ),
    ],
)
async def test_hover_on_a_call(client: LanguageClient, corpus: Path, path: str, line: int, needle: str, expected: list[str]) -> None:
    source = corpus / path
    hover = await client.text_document_hover_async(at(lsp.HoverParams, source, line, column_of(source, line, needle) + 2))
    assert hover is not None
    for part in expected:
        assert part in hover.contents.value


async def test_completion_after_a_namespace_in_an_open_buffer(client: LanguageClient, corpus: Path) -> None:
    scratch = corpus / "scratch.rb"  # Only in the editor: never written to disk.
    text = "module RuboCop\n  def self.probe\n    RuboCop::Cop::\n  end\nend\n"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(scratch.as_uri(), "ruby", 1, text)))
    try:
        items = await client.text_document_completion_async(at(lsp.CompletionParams, scratch, 2, 18))
        labels = {i.label for i in items.items}
        assert {"Base", "Cop", "Style", "Layout", "Lint", "Naming", "RangeHelp", "Registry"} <= labels
        # The constants of RuboCop::Cop (not those in scope), first, then methods callable on the module: over 300, cut at 200.
        assert items.is_incomplete and len(items.items) == 200
        constants = [i for i in items.items if i.kind != lsp.CompletionItemKind.Method]
        assert list(items.items[: len(constants)]) == constants and len(constants) == 117
        assert all(i.detail == f"RuboCop::Cop::{i.label}" for i in constants)
        # Private methods cannot follow an explicit receiver (``RuboCop::Cop::puts`` raises NoMethodError):
        # neither Kernel's nor top-level defs (private on Object) are offered.
        assert not {"puts", "require", "raise", "initialize", "method_missing", "stub_cop_class"} & labels
        base = next(i for i in items.items if i.label == "Base")
        assert base.kind == lsp.CompletionItemKind.Class and base.detail == "RuboCop::Cop::Base"
        resolved = await client.completion_item_resolve_async(base)
        assert resolved.documentation is not None and "The Cop::Base class is meant to be extended." in resolved.documentation.value
    finally:
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(scratch.as_uri())))


async def test_document_symbols_of_a_cop(client: LanguageClient, corpus: Path) -> None:
    path = corpus / "rubocop/cop/style/and_or.rb"
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(path.as_uri())))
    assert [s.name for s in symbols] == ["RuboCop"]
    cop = symbols[0].children[0]
    style = cop.children[0]
    assert (cop.name, cop.kind, style.name, style.kind) == ("Cop", lsp.SymbolKind.Module, "Style", lsp.SymbolKind.Module)
    [and_or] = style.children
    assert (and_or.name, and_or.kind, and_or.range.start.line, and_or.range.end.line) == ("AndOr", lsp.SymbolKind.Class, 43, 154)
    assert (and_or.selection_range.start.line, and_or.selection_range.start.character) == (43, 12)
    # Every constant, ``def`` and ``alias`` of the class, in source order, each a leaf.
    kinds = {"def": lsp.SymbolKind.Method, "alias": lsp.SymbolKind.Method, "const": lsp.SymbolKind.Constant}
    declared = re.finditer(r"^ +(?:def (?P<def>\w+[?!]?)|alias (?P<alias>\w+)|(?P<const>[A-Z]\w*) =)", path.read_text(), re.MULTILINE)
    expected = [(name, kinds[kind]) for m in declared for kind, name in m.groupdict().items() if name]
    assert len(expected) == 18 and expected[:4] == [
        ("MSG", kinds["const"]),
        ("on_and", kinds["def"]),
        ("on_or", kinds["alias"]),
        ("on_if", kinds["def"]),
    ]
    assert [(m.name, m.kind) for m in and_or.children] == expected
    assert all(not m.children for m in and_or.children)


async def test_workspace_symbol_ranks_rubocop_methods(client: LanguageClient) -> None:
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="autocorrect"))
    assert found and len(found) <= 100
    top = found[:10]
    # The name as it reads in its owner (a method without "()"), and the owner as the container (clients show both).
    assert all(s.name == "autocorrect" and s.kind == lsp.SymbolKind.Method for s in top)
    assert all(s.container_name and s.container_name.startswith("RuboCop::Cop::") for s in top)
    assert "RuboCop::Cop::Layout::ArgumentAlignment" in [s.container_name for s in found]


async def test_implementations_of_base(client: LanguageClient, corpus: Path, ruby: dict) -> None:
    base = corpus / "rubocop/cop/base.rb"
    found = await client.text_document_implementation_async(at(lsp.ImplementationParams, base, 33, 10))
    where = spans(found, corpus)
    assert len(where) == len(set(where))
    # Every subclass of Base Ruby knows (the cops, directly or through the legacy RuboCop::Cop::Cop), in the file
    # Ruby says (its lines are those of the class body at times, so files are compared)...
    first = Counter(str(Path(file).relative_to(corpus)) for file, _ in ruby["base_subclasses"])
    assert first.total() == 538 and first["rubocop/cop/style/and_or.rb"] == 1
    assert ("rubocop/cop/style/and_or.rb", 43, 12) in where  # By the class name.
    # ...and the other files that reopen one of them.
    assert Counter(file for file, _, _ in where) - first == Counter(
        {
            "rubocop/cop/style/bisected_attr_accessor/macro.rb": 1,
            "rubocop/cop/style/method_call_with_args_parentheses/omit_parentheses.rb": 1,
            "rubocop/cop/style/method_call_with_args_parentheses/require_parentheses.rb": 1,
            "rubocop/rspec/cop_helper.rb": 1,  # A test helper Ruby did not load: it monkey-patches RuboCop::Cop::Cop.
        }
    )
    assert not first - Counter(file for file, _, _ in where)


async def test_supertypes_of_a_cop(client: LanguageClient, corpus: Path, ruby: dict) -> None:
    and_or = corpus / "rubocop/cop/style/and_or.rb"
    items = await client.text_document_prepare_type_hierarchy_async(at(lsp.TypeHierarchyPrepareParams, and_or, 43, 13))
    assert items and [i.name for i in items] == ["RuboCop::Cop::Style::AndOr"]
    supers = await client.type_hierarchy_supertypes_async(lsp.TypeHierarchySupertypesParams(item=items[0]))
    assert (
        [s.name for s in supers]
        == ruby["and_or_supertypes"]
        == ["RuboCop::Cop::RangeHelp", "RuboCop::Cop::ConfigurableEnforcedStyle", "RuboCop::Cop::Base"]
    )
    base = next(s for s in supers if s.name == "RuboCop::Cop::Base")
    assert spans([lsp.Location(base.uri, base.selection_range)], corpus) == [("rubocop/cop/base.rb", 33, 10)]


async def test_incremental_change_then_definition(client: LanguageClient, corpus: Path) -> None:
    """Last in the module: the buffer of a real cop is edited, then closed (the disk again)."""
    and_or = corpus / "rubocop/cop/style/and_or.rb"
    text = and_or.read_text()
    uri = and_or.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "ruby", 1, text)))
    try:
        # ``class AndOr < Base`` -> ``class AndOr < Cop``: the legacy base class of rubocop/cop/cop.rb.
        base = column_of(and_or, 43, "Base")
        change = lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(43, base), lsp.Position(43, base + 4)), text="Cop")
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=2, uri=uri), [change]))
        found = await client.text_document_definition_async(at(lsp.DefinitionParams, and_or, 43, base + 1))
        # Both definitions of RuboCop::Cop::Cop: its own file and a test helper that reopens it.
        assert spans(found, corpus) == [("rubocop/cop/cop.rb", 10, 4), ("rubocop/rspec/cop_helper.rb", 79, 4)]
        items = await client.text_document_prepare_type_hierarchy_async(at(lsp.TypeHierarchyPrepareParams, and_or, 43, 13))
        supers = await client.type_hierarchy_supertypes_async(lsp.TypeHierarchySupertypesParams(item=items[0]))
        assert [s.name for s in supers][-1] == "RuboCop::Cop::Cop"
    finally:
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    found = await client.text_document_definition_async(at(lsp.DefinitionParams, and_or, 43, base + 1))
    assert spans(found, corpus) == [("rubocop/cop/base.rb", 33, 4)]
