"""RuboCop in ``rdx lsp`` through ``rubocop --server`` (Debian's rubocop), on a project with a
``.rubocop.yml``: the offenses published for a buffer (not the file on disk) equal what
``rubocop --format json`` says of the same text, formatting equals ``rubocop --autocorrect``'s
output, and the code actions correct one offense or disable its cop for the line. The language
server stops the RuboCop server it started when it shuts down (the fixture checks)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

RUBOCOP = shutil.which("rubocop")
CONFIG = "AllCops:\n  NewCops: enable\n  SuggestExtensions: false\n"
ON_DISK = "# frozen_string_literal: true\n\n# Nothing to say.\nmodule Tidy\nend\n"
# The buffer: offenses of several cops and severities, one line with multibyte text.
BUFFER = 'def greet( name )\n  unused = "héllo 😀"\n  return "hi #{name}"\nend\n'


def rubocop_json(root: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    """RuboCop itself (no server) on ``text`` as lib/tidy.rb."""
    assert RUBOCOP is not None, "rubocop is required (make test installs it: scripts/install-system-deps)"
    return subprocess.run([RUBOCOP, *args, "--stdin", "lib/tidy.rb"], input=text, cwd=root, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rubocop-server") / "project"
    (root / "lib").mkdir(parents=True)
    (root / ".rubocop.yml").write_text(CONFIG)
    (root / "lib/tidy.rb").write_text(ON_DISK)
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient, root: Path) -> AsyncIterator[None]:
    capabilities = client_capabilities("neovim")
    # UTF-16 columns, which differ from RuboCop's (characters) on the multibyte line.
    capabilities.general = lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16])
    params = lsp.InitializeParams(
        capabilities=capabilities, root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "project")]
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()
    # The language server started RuboCop's server for this project, and stopped it on shutdown.
    status = subprocess.run([RUBOCOP or "rubocop", "--server-status"], cwd=root, capture_output=True, text=True, timeout=60)
    if "is running" in status.stdout:
        subprocess.run([RUBOCOP or "rubocop", "--stop-server"], cwd=root, timeout=60)
    assert "is not running" in status.stdout


async def rubocop_diagnostics(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    """The next diagnostics of ``uri`` that include RuboCop's (bounded: RuboCop's first run loads every cop)."""
    async def wait() -> list[lsp.Diagnostic]:
        while True:
            found = [d for d in client.diagnostics.get(uri, []) if d.source == "rubocop"]
            if found:
                return found
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), 180)


async def test_offenses_of_the_buffer_equal_rubocops_own(client: LanguageClient, root: Path) -> None:
    uri = (root / "lib/tidy.rb").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "ruby", 1, BUFFER)))
    found = await rubocop_diagnostics(client, uri)
    oracle = json.loads(rubocop_json(root, BUFFER, "--format", "json").stdout)["files"][0]["offenses"]
    lines = BUFFER.split("\n")

    def utf16(line: int, column: int) -> int:
        return len(lines[line][:column].encode("utf-16-le")) // 2

    expected = sorted(
        (o["location"]["start_line"] - 1, utf16(o["location"]["start_line"] - 1, o["location"]["start_column"] - 1), o["cop_name"], o["message"])
        for o in oracle
    )
    assert sorted((d.range.start.line, d.range.start.character, d.code, d.message) for d in found) == expected
    cops = {d.code for d in found}
    assert {"Layout/SpaceInsideParens", "Lint/UselessAssignment", "Style/RedundantReturn", "Style/FrozenStringLiteralComment"} <= cops
    severities = {d.code: d.severity for d in found}
    assert severities["Lint/UselessAssignment"] == lsp.DiagnosticSeverity.Warning
    assert severities["Style/RedundantReturn"] == lsp.DiagnosticSeverity.Information
    # The string with multibyte text: RuboCop counts 9 characters, UTF-16 10 units (the emoji is two).
    literal = next(d for d in found if d.code == "Style/StringLiterals" and d.range.start.line == 1)
    assert (literal.range.start.character, literal.range.end.character) == (11, 21)


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """``text`` with LSP edits applied (UTF-16 columns), last first."""
    lines = text.split("\n")

    def offset(p: lsp.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: p.line])
        line = lines[p.line] if p.line < len(lines) else ""
        return before + len(line.encode("utf-16-le")[: 2 * p.character].decode("utf-16-le"))

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def test_formatting_and_code_actions(client: LanguageClient, root: Path) -> None:
    uri = (root / "lib/tidy.rb").as_uri()
    options = lsp.FormattingOptions(tab_size=2, insert_spaces=True)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(lsp.TextDocumentIdentifier(uri), options))
    expected = rubocop_json(root, BUFFER, "--autocorrect", "--stderr", "--format", "quiet").stdout
    assert edits and apply(BUFFER, edits) == expected and "return" not in expected
    # Only the changed lines are edited: the ``end`` line is left alone.
    assert all(e.range.start.line < 3 for e in edits)
    # Range formatting keeps the corrections on the range's lines (here the ``return`` line).
    edits = await client.text_document_range_formatting_async(
        lsp.DocumentRangeFormattingParams(lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(2, 0), lsp.Position(3, 0)), options)
    )
    assert edits is not None and apply(BUFFER, edits) == BUFFER.replace('  return "hi #{name}"', '  "hi #{name}"')
    diagnostics = [d for d in client.diagnostics[uri] if d.source == "rubocop" and d.code == "Style/RedundantReturn"]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), diagnostics[0].range, lsp.CodeActionContext(diagnostics=diagnostics))
    )
    titles = [a.title for a in actions or []]
    assert titles == ["Autocorrect Style/RedundantReturn", "Disable Style/RedundantReturn for this line"]
    fixed = apply(BUFFER, actions[0].edit.changes[uri])  # type: ignore[index,union-attr]
    assert fixed == BUFFER.replace('  return "hi #{name}"', '  "hi #{name}"')  # Only that cop's correction.
    disable = actions[1].edit.changes[uri][0]  # type: ignore[index,union-attr]
    assert (disable.range.start.line, disable.new_text) == (2, " # rubocop:disable Style/RedundantReturn")
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))


def rubocops_server_directory(cwd: Path, env: dict[str, str] | None = None) -> str:
    """Where RuboCop itself says its server for ``cwd`` keeps its files (the oracle)."""
    import os

    script = 'require "rubocop/server"; puts RuboCop::Server::Cache.dir'
    done = subprocess.run(["ruby", "-e", script], cwd=cwd, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def test_the_server_directory_is_rubocops(tmp_path: Path) -> None:
    """``server_directory`` against RuboCop's own answer: the project's directory is the one
    with a Gemfile, and RUBOCOP_CACHE_ROOT and XDG_CACHE_HOME move the cache; a configuration
    that may name CacheRootDirectory is left to RuboCop's client (None)."""
    import os

    from rdx_lsp.rubocop import server_directory

    project = tmp_path / "app"
    nested = project / "lib" / "deep"
    nested.mkdir(parents=True)
    (project / "Gemfile").write_text("source 'https://rubygems.org'\n")
    (project / ".rubocop.yml").write_text(CONFIG)
    plain = {k: v for k, v in os.environ.items() if k not in ("RUBOCOP_CACHE_ROOT", "XDG_CACHE_HOME")}
    for extra in ({}, {"RUBOCOP_CACHE_ROOT": str(tmp_path / "cache")}, {"XDG_CACHE_HOME": str(tmp_path / "xdg")}):
        environ = {**plain, **extra}
        for cwd in (project, nested):
            assert server_directory(str(cwd), environ) == rubocops_server_directory(cwd, extra), (extra, cwd)
    (project / ".rubocop.yml").write_text(CONFIG + "  CacheRootDirectory: <%= '/tmp' %>\n")
    assert server_directory(str(nested), plain) is None


async def test_the_server_is_asked_without_its_client(client: LanguageClient, root: Path) -> None:
    """After the language server's first RuboCop run (the client started the server), the
    endpoint is found where RuboCop put it and answers what ``rubocop --format json`` says of
    the same text; a wrong token gets no answer (the client would be asked again)."""
    from dataclasses import replace

    from rdx_lsp.rubocop import ServerEndpoint

    endpoint = ServerEndpoint.find(str(root))
    assert endpoint is not None
    answer = await endpoint.request(["--format", "json", "--stdin", "lib/tidy.rb"], BUFFER)
    assert answer is not None and answer[0] == 1
    oracle = json.loads(rubocop_json(root, BUFFER, "--format", "json").stdout)["files"][0]["offenses"]
    assert json.loads(answer[1])["files"][0]["offenses"] == oracle
    assert await replace(endpoint, token="0" * 8).request(["--format", "json", "--stdin", "lib/tidy.rb"], BUFFER) is None
