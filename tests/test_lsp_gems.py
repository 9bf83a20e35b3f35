"""``rdx lsp`` on a Rails-style project whose Gemfile.lock locks Debian's ActiveRecord: the
editor's go-to-definition, hover and completion reach into the gems (issue 14)."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import rdx

EXAMPLE = Path(rdx.__file__).parent / "data" / "example"
GEMS = ("activerecord", "activemodel", "activesupport", "i18n", "concurrent-ruby", "tzinfo", "zeitwerk")
# The server's gem cache stays out of the user's home.
GEM_CACHE = tempfile.mkdtemp(prefix="rdx-lsp-gem-cache-")
atexit.register(shutil.rmtree, GEM_CACHE, True)


def installed() -> dict[str, str]:
    ruby = shutil.which("ruby")
    assert ruby, "ruby is required (make test installs it)"
    out = subprocess.run([ruby, "-e", 'Gem::Specification.each { |s| puts "#{s.name} #{s.version}" }'], capture_output=True, text=True, check=True)
    versions: dict[str, str] = {}
    for line in out.stdout.splitlines():
        name, _, version = line.partition(" ")
        versions.setdefault(name, version)
    return versions


def project_of(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    versions = installed()
    specs = "".join(f"    {name} ({versions[name]})\n" for name in GEMS)
    (root / "Gemfile.lock").write_text("GEM\n  remote: https://rubygems.org/\n  specs:\n" + specs)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"], server_env={**os.environ, "RDX_GEM_CACHE": GEM_CACHE}))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    await lsp_client.shutdown_session()


@pytest.mark.corpus  # indexes Debian's ActiveRecord and its dependencies
@pytest.mark.asyncio
async def test_definition_hover_and_completion_reach_the_gems(client: LanguageClient, tmp_path: Path) -> None:
    root = project_of(tmp_path)
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "p")])
    )
    record = root / "app/models/application_record.rb"
    # ``ActiveRecord::Base`` on line 2 (0-based 1): its class in activerecord's base.rb.
    at_base = lsp.Position(1, 40)
    found = await client.text_document_definition_async(lsp.DefinitionParams(lsp.TextDocumentIdentifier(record.as_uri()), at_base))
    paths = [loc.uri for loc in found or []]
    assert any(p.endswith(f"activerecord-{installed()['activerecord']}/lib/active_record/base.rb") for p in paths), paths
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(record.as_uri()), at_base))
    assert hover is not None and "ActiveRecord::Base" in hover.contents.value
    # Completion of ``Review.`` offers ActiveRecord's class methods (where, find_by), from the gem.
    review = root / "app/models/review.rb"
    text = review.read_text() + "\nReview.\n"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(review.as_uri(), "ruby", 1, text)))
    line = text.count("\n") - 1
    items = await client.text_document_completion_async(lsp.CompletionParams(lsp.TextDocumentIdentifier(review.as_uri()), lsp.Position(line, 7)))
    labels = {i.label for i in (items.items if isinstance(items, lsp.CompletionList) else items or [])}
    assert {"where", "find_by", "create"} <= labels, sorted(labels)[:20]
    symbols = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="find_by"))
    assert ("find_by", "ActiveRecord::Core::ClassMethods") in [(s.name, s.container_name) for s in symbols or []]
    # Gem source comments (Tapioca's RBI files) link to the indexed gem's file at the line; a
    # version that is not indexed falls back to the one that is, a gem not indexed gets none.
    rbi = root / "sorbet/rbi/gems/activesupport.rbi"
    rbi_text = (
        "# typed: true\n\n"
        "class Object\n"
        "  # source://activesupport//lib/active_support/core_ext/object/blank.rb#L18\n"
        "  def blank?; end\n"
        "  # source://activesupport/0.0.1/lib/active_support/core_ext/object/blank.rb\n"
        "  # source://activesupport//lib/active_support/core_ext/object/blank.rb#56\n"
        "  # source://not-a-gem/1.0/lib/x.rb#L1\n"
        "end\n"
    )
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(rbi.as_uri(), "ruby", 1, rbi_text)))
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(lsp.TextDocumentIdentifier(rbi.as_uri())))
    blank = f"activesupport-{installed()['activesupport']}/lib/active_support/core_ext/object/blank.rb"
    assert [(link.range.start.line, link.range.start.character, (link.target or "").rsplit("/gems/", 1)[-1]) for link in links or []] == [
        (3, 4, blank + "#L18"),
        (5, 4, blank),
        (6, 4, blank + "#L56"),
    ]
    # In the Gemfile, each indexed gem's name links to its main file.
    gemfile = root / "Gemfile"
    gemfile_text = 'source "https://rubygems.org"\n\ngem "activerecord"\ngem "concurrent-ruby", require: false\ngem "i18n"\ngem "not-a-gem"\n'
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(gemfile.as_uri(), "ruby", 1, gemfile_text)))
    links = await client.text_document_document_link_async(lsp.DocumentLinkParams(lsp.TextDocumentIdentifier(gemfile.as_uri())))
    assert [(link.range.start.line, link.range.start.character, (link.target or "").rsplit("/", 1)[-1]) for link in links or []] == [
        (2, 5, "active_record.rb"), (3, 5, "concurrent-ruby.rb"), (4, 5, "i18n.rb"),
    ]
    # A gem's declaration is not the project's to rename (its files would be edited).
    with pytest.raises(JsonRpcException, match="one of the project's gems"):
        await client.text_document_rename_async(lsp.RenameParams(lsp.TextDocumentIdentifier(record.as_uri()), at_base, "Base2"))
