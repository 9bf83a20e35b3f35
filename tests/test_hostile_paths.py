"""What is in the project: one rule (``ProjectRoots``, rdx.workspace.files) for every reader.

A file is the project's when its real path is inside a root (the project, ``load_paths``). The
fixture plants the reported attacks: a link to ``/etc``, ``/etc/passwd`` named ``lib/passwd.rb``,
and links to a sibling ``secret`` directory (a Ruby class, a text file with a marker). Each
surface (CLI, ``TextSearch``, ``Graph``, HTTP, MCP, LSP) is one helper, checked against the
same leaks; a control pattern inside the project proves each helper really searched.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
import pytest_lsp
from conftest import write
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from starlette.testclient import TestClient

import rdx
import rdx.api.graph
import rdx.search.textsearch
from rdx.cli.main import main
from rdx.workspace import files as files_mod
from rdx_mcp import Workspace, build_server
from rdx_mcp.web import build_app

MARKER = "MARKER_SECRET_42"
# (pattern, regex): text that only files outside the project hold.
LEAKS = {"passwd": ("^root:", True), "secret-text": (MARKER, False), "secret-ruby": ("class Secret", False)}
CONTROL = ("class App", False)


def hostile(tmp_path: Path) -> Path:
    """A project with links out of it, and the secret directory beside it."""
    root = tmp_path / "project"
    write(root / "lib/app.rb", "class App\n  def run; end\nend\n")
    write(tmp_path / "secret/secret.rb", "class Secret\n  def password; end\nend\n")
    write(tmp_path / "secret/notes.txt", f"{MARKER}\n")
    os.symlink("/etc", root / "outside_etc")
    os.symlink("/etc/passwd", root / "lib/passwd.rb")
    os.symlink(tmp_path / "secret", root / "lib/secret")
    os.symlink(tmp_path / "secret/notes.txt", root / "notes.txt")
    return root


OUTSIDE_LINKS = {"outside_etc": "/etc", "lib/passwd.rb": "/etc/passwd", "lib/secret": "secret", "notes.txt": "secret/notes.txt"}


# -- one helper per surface: the texts of the lines a search returns -----------------------------


def grep_cli(root: Path, pattern: str, regex: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["index", str(root)]) == 0
    capsys.readouterr()
    main(["grep", *(["-e"] if regex else []), pattern, str(root)])
    return capsys.readouterr().out.splitlines()


def grep_text_search(root: Path, pattern: str, regex: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [h.text for h in rdx.TextSearch.open(root).grep(pattern, regex=regex)]


def grep_graph(root: Path, pattern: str, regex: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [h.text for h in rdx.Graph.open(root).grep(pattern, regex=regex)]


def grep_index_all(root: Path, pattern: str, regex: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    g = rdx.Graph()
    g.index_all([root], jobs=1)
    return [h.text for h in g.grep(pattern, regex=regex)]


def grep_http(root: Path, pattern: str, regex: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    workspace = Workspace(str(root), watch=False).start()
    assert workspace.wait_ready()
    try:
        with TestClient(build_app(workspace), base_url="http://127.0.0.1") as client:
            body = client.get("/grep", params={"pattern": pattern, "regex": str(regex).lower()}).json()
    finally:
        workspace.stop()
    return [line["text"] for f in body["files"] for line in f["lines"]]


def grep_mcp(root: Path, pattern: str, regex: bool, capsys: pytest.CaptureFixture[str]) -> list[str]:
    workspace = Workspace(str(root), watch=False).start()
    assert workspace.wait_ready()

    async def steps() -> list[str]:
        from mcp import Client

        async with Client(build_server(workspace)) as client:
            result = await client.call_tool("search_code", {"pattern": pattern, "regex": regex})
            assert not result.is_error, result.content[0].text
            return [line["text"] for f in result.structured_content["files"] for line in f["lines"]]

    try:
        return anyio.run(steps)
    finally:
        workspace.stop()


SURFACES: dict[str, Callable[[Path, str, bool, pytest.CaptureFixture[str]], list[str]]] = {
    "cli": grep_cli, "text-search": grep_text_search, "graph-open": grep_graph, "index-all": grep_index_all,
    "http": grep_http, "mcp": grep_mcp,
}


@pytest.mark.parametrize("surface", SURFACES)
def test_no_search_surface_reads_outside_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str], surface: str) -> None:
    root = hostile(tmp_path)
    search = SURFACES[surface]
    assert any("class App" in line for line in search(root, *CONTROL, capsys)), "the surface found nothing at all"
    leaked = {name: search(root, pattern, regex, capsys) for name, (pattern, regex) in LEAKS.items()}
    assert leaked == {name: [] for name in LEAKS}


# -- the graph: declarations and diagnostics -----------------------------------------------------


def check_outside_diagnostics(g: rdx.Graph, root: Path, expected: dict[str, str]) -> None:
    """Each link out of the project is one ``outside-project`` diagnostic quoting it and its target."""
    found = {os.path.relpath(d.path, root): d.message for d in g.diagnostics if d.code == "outside-project"}
    assert sorted(found) == sorted(expected)
    for link, target in expected.items():
        real = target if target.startswith("/") else os.path.realpath(root.parent / target)
        assert str(root / link) in found[link] and real in found[link]


def test_links_out_are_reported_and_never_indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = hostile(tmp_path)
    g = rdx.Graph.open(root)
    check_outside_diagnostics(g, root, OUTSIDE_LINKS)
    assert g.get("App") is not None and g.get("Secret") is None
    assert all(d.path is None or d.path.startswith(str(root) + os.sep) for d in g.documents)
    assert main(["show", "--project", str(root), "App"]) == 0
    assert main(["show", "--project", str(root), "Secret"]) != 0
    assert "password" not in capsys.readouterr().out
    # ``index_all`` walks Ruby files only: the text file's link is not its business.
    returned = rdx.Graph().index_all([root], jobs=1)
    assert {os.path.relpath(d.path, root) for d in returned if d.code == "outside-project"} == set(OUTSIDE_LINKS) - {"notes.txt"}


def test_a_listed_root_is_indexed_once_under_its_real_path(tmp_path: Path) -> None:
    root = hostile(tmp_path)
    write(root / "rdx.toml", 'load_paths = ["../secret"]\n')
    g = rdx.Graph.open(root)
    check_outside_diagnostics(g, root, {k: v for k, v in OUTSIDE_LINKS.items() if "secret" not in v})
    assert [d.location.path for d in g["Secret"].definitions] == [str(tmp_path / "secret/secret.rb")]
    assert [h.path for h in g.grep(MARKER)] == [str(tmp_path / "secret/notes.txt")]


def test_links_inside_the_project_are_indexed_once(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root / "lib/real/inner.rb", "class Inner; end\n")
    write(root / "tmp/generated.rb", "class Generated; end\n")  # tmp/ is never walked...
    os.symlink(root / "lib/real", root / "alias")  # walked before lib/ in path order
    os.symlink(root / "lib/real/inner.rb", root / "lib/inner_link.rb")
    os.symlink(root / "tmp/generated.rb", root / "lib/generated.rb")  # ...but a link to it is
    walked = rdx.Graph()
    assert walked.index_all([root], jobs=1) == []
    for g in (rdx.Graph.open(root), walked):
        assert [d.location.path for d in g["Inner"].definitions] == [str(root / "lib/real/inner.rb")]
        assert [d.location.path for d in g["Generated"].definitions] == [str(root / "lib/generated.rb")]
        assert [d for d in g.diagnostics if d.code == "outside-project"] == []


# -- file events -------------------------------------------------------------------------------


def test_file_events_outside_the_project_change_nothing(tmp_path: Path) -> None:
    root = hostile(tmp_path)
    g = rdx.Graph.open(root)
    events = [str(tmp_path / "secret/secret.rb"), str(tmp_path / "secret"), "/etc/passwd", "/etc", str(root / "lib/secret")]
    assert g.refresh_paths(events) == (0, 0)
    assert g.get("Secret") is None and list(g.grep(MARKER)) == [] and list(g.grep("^root:", regex=True)) == []


def test_a_file_replaced_by_a_link_out_is_dropped_on_its_event(tmp_path: Path) -> None:
    root = hostile(tmp_path)
    g = rdx.Graph.open(root)
    app = root / "lib/app.rb"
    app.unlink()
    os.symlink(tmp_path / "secret/secret.rb", app)
    assert g.refresh_paths([str(app)]) == (0, 1)
    assert g.get("App") is None and g.get("Secret") is None and list(g.grep("class Secret")) == []


# -- read time: what the walk chose may change before it is read ---------------------------------


def swap_for_link(path: Path, target: Path) -> None:
    path.unlink()
    os.symlink(target, path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_swapped_for_a_link_after_the_walk_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    root = hostile(tmp_path)
    write(root / "lib/padding.rb", "# " + "p" * 300_000 + "\nclass Padding; end\n")  # forces the pool
    victim = write(root / "lib/victim.rb", "class Victim; end\n")
    real_collect = rdx.api.graph.collect_files

    def collect_then_swap(*args: object) -> files_mod.WalkResult:
        walk = real_collect(*args)  # type: ignore[arg-type]
        if victim.exists() and not victim.is_symlink():
            swap_for_link(victim, tmp_path / "secret/secret.rb")
        return walk

    monkeypatch.setattr(rdx.api.graph, "collect_files", collect_then_swap)
    g = rdx.Graph()
    problems = g.index_all([root], jobs=jobs)
    assert [(d.path, d.code) for d in problems if d.path == str(victim)] == [(str(victim), "outside-project")]
    assert "Padding" in g and "Victim" not in g and "Secret" not in g


def test_the_text_index_does_not_read_a_file_swapped_after_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = hostile(tmp_path)
    victim = write(root / "victim.txt", "harmless\n")
    real_walk = rdx.search.textsearch.walk_every_file

    def walk_then_swap(*args: object) -> list[files_mod.FileEntry]:
        entries = real_walk(*args)  # type: ignore[arg-type]
        swap_for_link(victim, tmp_path / "secret/notes.txt")
        return entries

    monkeypatch.setattr(rdx.search.textsearch, "walk_every_file", walk_then_swap)
    assert list(rdx.TextSearch.open(root).grep(MARKER)) == []


def finishes(work: Callable[[], object], seconds: float = 10) -> object:
    """The result of ``work``, which must finish within ``seconds`` (a blocked open never does)."""
    out: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            out.append((True, work()))
        except BaseException as exc:
            out.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, f"still blocked after {seconds}s"
    ok, value = out[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value


def test_a_fifo_swapped_in_after_the_check_never_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "late.rb"
    os.mkfifo(fifo)
    regular = os.stat(write(tmp_path / "regular.rb", "x = 1\n"))
    real_stat = os.stat
    # The check before opening saw a regular file; a FIFO took its place before the open.
    monkeypatch.setattr(files_mod.os, "stat", lambda p, *a, **k: regular if os.fspath(p) == str(fifo) else real_stat(p, *a, **k))
    data, _, _, diagnostics = finishes(lambda: files_mod.read_source(str(fifo), ruby=True))  # type: ignore[misc]
    assert data is None and [d.code for d in diagnostics] == ["not-a-file"]


# -- the language server -------------------------------------------------------------------------


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, root: Path) -> None:
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "p")])
    )


# Language-server sessions (seconds each; tests/test_lsp.py keeps the server in make check).
@pytest.mark.slow
@pytest.mark.asyncio
async def test_lsp_ignores_watched_files_outside_the_root(client: LanguageClient, tmp_path: Path) -> None:
    root = hostile(tmp_path)
    await start(client, root)
    assert [s.name for s in await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="App")) or []][:1] == ["App"]
    outside = [(tmp_path / "secret/secret.rb").as_uri(), (tmp_path / "secret").as_uri(), "file:///etc/passwd"]
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(uri=u, type=lsp.FileChangeType.Changed) for u in outside])
    )
    await asyncio.sleep(0.5)
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="Secret"))
    assert [s.name for s in found or [] if "Secret" in s.name] == []


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("what", ["dev-zero", "fifo-outside"])
async def test_lsp_requests_on_unopened_special_files_answer_at_once(client: LanguageClient, tmp_path: Path, what: str) -> None:
    root = hostile(tmp_path)
    target = "/dev/zero"
    if what == "fifo-outside":
        target = str(tmp_path / "secret/pipe.rb")
        os.mkfifo(target)
    await start(client, root)
    where = lsp.TextDocumentIdentifier(Path(target).as_uri())
    requests = [
        client.text_document_completion_async(lsp.CompletionParams(text_document=where, position=lsp.Position(0, 3))),
        client.text_document_hover_async(lsp.HoverParams(text_document=where, position=lsp.Position(0, 3))),
        client.text_document_definition_async(lsp.DefinitionParams(text_document=where, position=lsp.Position(0, 3))),
    ]
    for request in requests:
        answer = await asyncio.wait_for(request, 15)
        assert not answer or isinstance(answer, (lsp.CompletionList, list)) and len(getattr(answer, "items", answer)) >= 0
    # The server still serves the project.
    assert [s.name for s in await asyncio.wait_for(client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="App")), 15) or []][:1] == ["App"]


def test_read_project_file_refuses_what_is_not_the_projects(tmp_path: Path) -> None:
    root = hostile(tmp_path)
    os.mkfifo(root / "pipe.rb")
    g = rdx.Graph.open(root)
    cases = {
        str(root / "lib/app.rb"): b"class App\n  def run; end\nend\n",
        str(root / "lib/passwd.rb"): None, str(root / "lib/secret/secret.rb"): None, str(tmp_path / "secret/secret.rb"): None,
        "/dev/zero": None, str(root / "pipe.rb"): None, "/etc/passwd": None,
    }
    assert {path: finishes(lambda p=path: g.read_project_file(p)) for path in cases} == cases


def test_gitignore_and_config_that_are_fifos_do_not_block(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root / "lib/app.rb", "class App; end\n")
    os.mkfifo(root / ".gitignore")
    os.mkfifo(root / "rdx.toml")
    shutil.rmtree(root / ".rdx", ignore_errors=True)
    with pytest.raises(rdx.InvalidArgumentError, match="rdx.toml"):
        finishes(lambda: rdx.Graph.open(root))


def test_layout_files_never_bring_in_files_outside_the_project(tmp_path: Path) -> None:
    """A tsconfig's ``extends`` that climbs out of the project, and a go.mod that is a link to a
    file outside it, are not read: the layout holds nothing of theirs."""
    from rdx.api.other_languages import ForeignSide
    from rdx.languages.layout import read_layout
    from rdx.model.records import FileResult

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "base.json").write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"@secret/*": ["s/*"]}}}')
    (outside / "go.mod").write_text("module example.com/secret\n")
    project = tmp_path / "project"
    (project / "web").mkdir(parents=True)
    (project / "web" / "tsconfig.json").write_text('{"extends": "../../outside/base.json"}')
    (project / "web" / "app.ts").write_text("export const x = 1;\n")
    (project / "svc").mkdir()
    os.symlink(outside / "go.mod", project / "svc" / "go.mod")
    (project / "svc" / "main.go").write_text("package main\n")
    files = [str(project / "web" / "tsconfig.json"), str(project / "svc" / "go.mod")]

    for layout in (
        read_layout([str(project)], files),
        _foreign_layout(ForeignSide(), FileResult, project, ["web/app.ts", "svc/main.go"]),
    ):
        assert all(not config.paths for config in layout.js_configs.values()), layout.js_configs
        assert "example.com/secret" not in layout.go_modules.values(), layout.go_modules
    # The same files inside the project are read (the rule, not a blanket refusal).
    shutil.copy(outside / "base.json", project / "base.json")
    (project / "web" / "tsconfig.json").write_text('{"extends": "../base.json"}')
    inside = _foreign_layout(ForeignSide(), FileResult, project, ["web/app.ts"])
    assert any(config.paths for config in inside.js_configs.values())


def _foreign_layout(graph, file_result, project: Path, relative: list[str]):
    graph.add_roots([str(project)])
    documents = [file_result(uri="file://" + str(project / r), path=str(project / r), language="typescript" if r.endswith(".ts") else "go") for r in relative]
    return graph.layout(documents)


def test_a_file_read_after_it_grew_or_shrank_is_read_to_its_end_within_the_limit(tmp_path):
    # ``read_descriptor`` reads the size found at open and one byte, then the rest only when
    # the file grew: what it returns is the file's bytes, at most one over the limit.
    from rdx.workspace.opening import read_descriptor

    path = tmp_path / "f.rb"
    path.write_bytes(b"x" * 100)
    for size_at_open, limit, expected in ((100, 1000, 100), (10, 1000, 100), (10, 50, 51), (0, 1000, 100), (500, 1000, 100), (100, 60, 61)):
        fd = os.open(path, os.O_RDONLY)
        try:
            assert read_descriptor(fd, size_at_open, limit) == b"x" * expected, (size_at_open, limit)
        finally:
            os.close(fd)
    # A file larger than the pieces the growth is read in: read whole, one byte over the limit.
    big = tmp_path / "big.rb"
    big.write_bytes(bytes(range(256)) * 10000)
    for size_at_open, limit in ((10, 3_000_000), (10, 2_000_000), (2_560_000, 3_000_000)):
        fd = os.open(big, os.O_RDONLY)
        try:
            assert read_descriptor(fd, size_at_open, limit) == big.read_bytes()[: limit + 1]
        finally:
            os.close(fd)
    # Through ``read_source``: a file that grew over the limit while it was read is refused.
    data, size, _, diagnostics = files_mod.read_source(str(path))
    assert data == b"x" * 100 and size == 100 and diagnostics == []


def test_what_ruby_reads_of_a_file_ends_at_its_first_nul_eot_or_sub_byte():
    # Oracle: the first match of the character class, as a regular expression finds it.
    import random
    import re

    from rdx.workspace.files import ruby_program

    stops = re.compile(rb"[\x00\x04\x1a]")
    rng = random.Random(23)
    alphabet = b"ab\n\x00\x04\x1a"
    cases = [b"", b"\x00", b"\x1a\x04\x00", b"puts 1\n", b"x" * 5000 + b"\x04" + b"\x00"]
    cases += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(2000)]
    for data in cases:
        found = stops.search(data)
        program, note = ruby_program(data)
        if found is None:
            assert program == data and note is None
        else:
            at = found.start()
            assert program == data[:at], data
            assert note is not None and note.code == "end-of-program" and note.start == at
            assert {0: "NUL", 4: "^D", 26: "^Z"}[data[at]] in note.message
