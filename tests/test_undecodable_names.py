"""File names that are not valid UTF-8: indexed, searched and printed like any other.

Python gives such a name as a str with surrogate escapes (``os.fsdecode``), which SQLite cannot
bind as TEXT; the text index stores every path as its bytes (``rdx.search.text_index``), so one
such name neither crashes a search nor spoils the rest of the index. ripgrep is the oracle for
what the CLI prints: the name's bytes as they are.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import msgspec
import pytest
from starlette.testclient import TestClient

import rdx
from rdx.search.grep import grep
from rdx.search.text_index import SCHEMA, TextIndex
from rdx_mcp import Workspace, build_server
from rdx_mcp.web import build_app
from rdx_web import build_app as build_web_app

BAD = b"bad\xffname.txt"  # Not UTF-8: 0xff never starts a character.
RG = shutil.which("rg")


def project(tmp_path: Path) -> tuple[Path, str, str]:
    """A project (a git root) with the bad name and a good one, both holding ``needle``; a binary file with
    another bad name (kept in the index's list of skipped files). Returns (root, bad, good)."""
    root = tmp_path / "p"
    root.mkdir()
    (root / ".git").mkdir()
    bad = os.fsencode(root) + b"/" + BAD
    with open(bad, "wb") as f:
        f.write(b"needle in the bad one\n")
    (root / "good.txt").write_bytes(b"a needle here\n")
    with open(os.fsencode(root) + b"/bin\xfe.dat", "wb") as f:
        f.write(b"needle\0binary\n")
    return root, os.fsdecode(bad), str(root / "good.txt")


def found(searcher: rdx.TextSearch | rdx.Graph | TextIndex, pattern: str = "needle") -> list[tuple[str, int, str]]:
    hits = grep(searcher, pattern) if isinstance(searcher, TextIndex) else searcher.grep(pattern)
    return [(h.path, h.line, h.text) for h in hits]


def test_text_index_round_trips_any_path(tmp_path: Path) -> None:
    # Surrogate escapes (a bad byte on disk) and a lone surrogate of any kind (an editor buffer).
    names = [str(tmp_path / "a\udcffb.rb"), str(tmp_path / "c\ud800d.rb"), str(tmp_path / "plain.rb")]
    index = TextIndex(str(tmp_path / "text.sqlite"))
    for i, name in enumerate(names):
        index.put(name, f"needle {i}\n".encode())
    assert sorted(index.files) == sorted(names)
    index.close()
    index = TextIndex(str(tmp_path / "text.sqlite"))
    assert index.problem is None
    assert found(index) == sorted((n, 1, f"needle {i}") for i, n in enumerate(names))
    index.put(names[0], b"changed needle\n")
    assert index.remove(names[1])
    assert found(index) == [(names[0], 1, "changed needle"), (names[2], 1, "needle 2")]
    index.close()


def test_grep_finds_both_in_process_and_warm(tmp_path: Path) -> None:
    root, bad, good = project(tmp_path)
    expected = [(bad, 1, "needle in the bad one"), (good, 1, "a needle here")]
    g = rdx.Graph()
    g.index_all([root], jobs=1)
    assert found(g) == expected
    cold = rdx.TextSearch.open(root)
    assert found(cold) == expected
    assert cold.last_sync is not None and cold.last_sync.binary == 1
    warm = rdx.TextSearch.open(root)  # The cache on disk, read again.
    assert found(warm) == expected
    assert warm.last_sync is not None and (warm.last_sync.indexed, warm.last_sync.kept, warm.last_sync.binary) == (0, 2, 1)
    assert not [d for d in warm.diagnostics if "text index" in d.message]


def test_an_edited_and_a_deleted_bad_name_are_seen(tmp_path: Path) -> None:
    root, bad, good = project(tmp_path)
    assert len(found(rdx.TextSearch.open(root))) == 2
    time.sleep(0.02)
    with open(bad, "wb") as f:
        f.write(b"first line\nthe needle moved\n")
    assert found(rdx.TextSearch.open(root)) == [(bad, 2, "the needle moved"), (good, 1, "a needle here")]
    os.remove(bad)
    os.remove(os.fsencode(root) + b"/bin\xfe.dat")
    search = rdx.TextSearch.open(root)
    assert search.last_sync is not None and search.last_sync.removed == 1
    assert found(search) == [(good, 1, "a needle here")]
    # The graph's own index follows a change event on the bad name too.
    with open(bad, "wb") as f:
        f.write(b"needle again\n")
    g = rdx.Graph.open(root)
    assert found(g) == [(bad, 1, "needle again"), (good, 1, "a needle here")]
    with open(bad, "wb") as f:
        f.write(b"no match now\n")
    g.refresh_paths([bad])
    assert found(g) == [(good, 1, "a needle here")]


def test_an_index_of_the_previous_schema_is_rebuilt(tmp_path: Path) -> None:
    root, bad, good = project(tmp_path)
    assert len(found(rdx.TextSearch.open(root))) == 2
    db = sqlite3.connect(root / ".rdx" / "text.sqlite")
    db.execute(f"PRAGMA user_version = {SCHEMA - 1}")  # As a cache from before paths were BLOBs.
    db.commit()
    db.close()
    search = rdx.TextSearch.open(root)
    assert found(search) == [(bad, 1, "needle in the bad one"), (good, 1, "a needle here")]
    assert any(f"schema {SCHEMA - 1}" in d.message for d in search.diagnostics)


@pytest.mark.skipif(RG is None, reason="ripgrep is the oracle")
def test_cli_prints_the_name_as_ripgrep_does(tmp_path: Path) -> None:
    root, _, _ = project(tmp_path)
    env = {**os.environ, "RDX_NO_DAEMON": "1", "LC_ALL": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    rdx_cmd = [os.path.join(os.path.dirname(sys.executable), "rdx")]
    for warm in (False, True):
        out = subprocess.run([*rdx_cmd, "grep", "needle", "--project", str(root), "--no-daemon"], cwd=root, env=env, capture_output=True, timeout=120)
        assert out.returncode == 0, out.stderr.decode(errors="replace")
        assert out.stderr == b"", (warm, out.stderr)
        assert RG is not None
        want = subprocess.run([RG, "--no-config", "-n", "--column", "--sort", "path", "needle"], cwd=root, capture_output=True, timeout=60)
        assert sorted(out.stdout.splitlines()) == sorted(want.stdout.splitlines())
        assert BAD + b":1:1:needle in the bad one" in out.stdout.splitlines()


def test_http_mcp_and_web_list_the_bad_name(tmp_path: Path) -> None:
    root, bad, _ = project(tmp_path)
    workspace = Workspace(str(root), watch=False).start()
    assert workspace.wait_ready()
    try:
        with TestClient(build_app(workspace), base_url="http://127.0.0.1") as client:
            response = client.get("/grep", params={"pattern": "needle"})
            assert response.status_code == 200, response.text
            files = {f["path"]: [line["text"] for line in f["lines"]] for f in response.json()["files"]}
            assert files == {"bad\\xffname.txt": ["needle in the bad one"], "good.txt": ["a needle here"]}
        with TestClient(build_web_app(workspace), base_url="http://127.0.0.1") as client:
            page = client.get("/", params={"q": "needle", "mode": "grep"})
            assert page.status_code == 200
            assert "bad\\xffname.txt" in page.text and "good.txt" in page.text

        async def steps() -> dict[str, list[str]]:
            from mcp import Client

            async with Client(build_server(workspace)) as client:
                result = await client.call_tool("search_code", {"pattern": "needle"})
                assert not result.is_error, result.content[0].text
                return {f["path"]: [line["text"] for line in f["lines"]] for f in result.structured_content["files"]}

        assert anyio.run(steps) == {"bad\\xffname.txt": ["needle in the bad one"], "good.txt": ["a needle here"]}
    finally:
        workspace.stop()


def test_json_of_a_hit_names_the_file_in_escapes(tmp_path: Path) -> None:
    root, bad, good = project(tmp_path)
    hits = list(rdx.TextSearch.open(root).grep("needle"))
    encoded = msgspec.json.decode(msgspec.json.encode([h.to_builtins() for h in hits]))
    assert [h["path"] for h in encoded] == [bad.replace("\udcff", "\\xff"), good]
    assert [(h["line"], h["column"], h["text"]) for h in encoded] == [(1, 0, "needle in the bad one"), (1, 2, "a needle here")]
    assert rdx.display_path(good) == good and rdx.display_path("caf\u00e9\ud800") == "caf\u00e9\\ud800"


def rdx_grep(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, "RDX_NO_DAEMON": "1", "LC_ALL": "C.UTF-8", **env}
    command = [os.path.join(os.path.dirname(sys.executable), "rdx"), "grep", *args, "--project", str(root), "--no-daemon"]
    return subprocess.run(command, cwd=root, env=environment, capture_output=True, timeout=120)


# The two below need a change in rdx/cli/search.py (cmd_grep): text output written with
# ``errors="surrogateescape"`` whatever the locale, and ``hit.to_builtins()`` for --json.
# Strict: once it lands they pass, and the marks must go.
def test_cli_prints_the_raw_name_whatever_the_locale(tmp_path: Path) -> None:
    root, _, _ = project(tmp_path)
    out = rdx_grep(root, "needle", PYTHONIOENCODING="utf-8")
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    assert BAD + b":1:1:needle in the bad one" in out.stdout.splitlines()


def test_cli_json_names_the_file_in_escapes(tmp_path: Path) -> None:
    root, _, _ = project(tmp_path)
    out = rdx_grep(root, "needle", "--json")
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    hits = msgspec.json.decode(out.stdout)["hits"]
    assert [os.path.basename(h["path"]) for h in hits] == ["bad\\xffname.txt", "good.txt"]


def test_a_ruby_file_with_such_a_name_is_indexed_cold_and_warm(tmp_path: Path) -> None:
    """Saving the snapshot crashed on such a Ruby file (``Graph.open``: msgpack cannot encode
    the path). The snapshot now leaves that document out (the next open parses it again), so
    the graph holds it, cold and warm, and grep finds its text."""
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    with open(os.fsencode(root) + b"/bad\xffname.rb", "wb") as f:
        f.write(b"class BadName\n  def needle; end\nend\n")
    (root / "good.rb").write_text("class Good\n  def needle; end\nend\n")
    for _ in range(2):  # Cold, then warm from the snapshot.
        g = rdx.Graph.open(root)
        assert g.get("Good") is not None and g.get("BadName") is not None
        assert sorted(os.path.basename(os.fsencode(h.path)) for h in g.grep("needle")) == [b"bad\xffname.rb", b"good.rb"]
        assert not [d for d in g.diagnostics if d.severity == "error"]
