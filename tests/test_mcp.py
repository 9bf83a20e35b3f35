"""The MCP server, in process through the SDK's client, and once over stdio as a subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from conftest import write
from mcp import Client, StdioServerParameters

from rdx_mcp import Workspace, build_server

FILES = {
    "lib/app.rb": "module App\n  # The base model.\n  class Model\n    def save; end\n  end\nend\n",
    "lib/user.rb": "module App\n  class User < Model\n    def name; save; end\n  end\nend\n",
}


def _write_project(root: Path) -> Path:
    for name, text in FILES.items():
        write(root / name, text)
    for i in range(30):
        write(root / f"lib/gen/m{i:02d}.rb", f"module App\n  class Gen{i:02d} < Model; end\nend\n")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _write_project(tmp_path)


@pytest.fixture(scope="module")
def ready(tmp_path_factory: pytest.TempPathFactory):
    """One started workspace over the project, for the tests that only ask it (no file of the
    project changes): each would otherwise index the same 32 files again."""
    workspace = Workspace(str(_write_project(tmp_path_factory.mktemp("mcp"))), watch=False).start()
    assert workspace.wait_ready()
    try:
        yield workspace
    finally:
        workspace.stop()


def ask(workspace, steps):
    """Run ``steps(client)`` against a fresh in-process server over ``workspace``; returns its result."""
    server = build_server(workspace)

    async def main():
        async with Client(server) as client:
            return await steps(client)

    return anyio.run(main)


def call(project: Path, steps):
    """Run ``steps(client)`` against an in-process server for ``project``; returns its result."""
    workspace = Workspace(str(project), watch=False).start()
    assert workspace.wait_ready()
    try:
        return ask(workspace, steps)
    finally:
        workspace.stop()


def data(result):
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content  # same JSON as text
    return result.structured_content


def error(result):
    assert result.is_error
    text = result.content[0].text
    return json.loads(text[text.index("{"):])


def test_tools_are_listed_with_schemas_within_budget(ready):
    async def steps(client):
        return (await client.list_tools()).tools

    tools = ask(ready, steps)
    names = {t.name for t in tools}
    assert names == {
        "search_declarations", "get_declaration", "get_descendants", "get_ancestors", "find_constant_references",
        "find_method_references", "get_file_declarations", "resolve_constant", "definition_at", "hover_at",
        "codebase_stats", "index_status", "search_code", "repo_map",
    }
    assert all(t.output_schema for t in tools)
    size = sum(len(json.dumps(t.input_schema)) + len(json.dumps(t.output_schema)) + len(t.description or "") for t in tools)
    # All schemas and descriptions of the 14 tools together stay under 4,050 tokens (about four
    # characters each; search_code's grouped output is about 450 of them, its time budget
    # (``timeout`` in, ``complete`` out) about 30, the ``language`` of every item (other
    # languages than Ruby) about 140, repo_map about 200).
    assert size // 4 < 4050, size // 4


def test_declaration_lookup_and_errors(ready):
    async def steps(client):
        found = await client.call_tool("get_declaration", {"name": "App::User"})
        missing = await client.call_tool("get_declaration", {"name": "App::Usr"})
        bad = await client.call_tool("search_declarations", {"query": "x", "match_mode": "regex"})
        return found, missing, bad

    found, missing, bad = ask(ready, steps)
    decl = data(found)
    assert decl["kind"] == "Class" and decl["ancestors"][:3] == ["App::User", "App::Model", "Object"]
    assert decl["definitions"][0]["location"] == "lib/user.rb:2:2-4:5"  # relative to the root
    err = error(missing)
    assert err["type"] == "not_found" and "App::User" in err["suggestion"]
    bad_arg = error(bad)  # argument validation names the bad argument, in the same error shape
    assert bad_arg["type"] == "invalid_argument" and "match_mode" in bad_arg["message"]


def test_pages_concatenate_to_the_whole_list_exactly_once(ready):
    async def steps(client):
        pages, offset = [], 0
        while offset is not None:
            page = data(await client.call_tool("get_descendants", {"name": "App::Model", "limit": 7, "offset": offset}))
            pages.append(page)
            offset = page["next_offset"]
        clamped = data(await client.call_tool("search_declarations", {"query": "Gen", "limit": 1000}))
        trimmed = data(await client.call_tool("search_declarations", {"query": "Gen", "limit": 50, "max_tokens": 150}))
        return pages, clamped, trimmed

    pages, clamped, trimmed = ask(ready, steps)
    names = [i["name"] for p in pages for i in p["items"]]
    assert len(names) == pages[0]["total"] == 31 and len(set(names)) == 31
    assert names == sorted(names)  # documented order: by name
    assert clamped["limit"] == 100 and clamped["limit_clamped"]
    assert trimmed["truncated"] and 0 < len(trimmed["items"]) < 30


def test_references_positions_and_status(ready):
    async def steps(client):
        consts = data(await client.call_tool("find_constant_references", {"name": "App::Model"}))
        calls = data(await client.call_tool("find_method_references", {"name": "App::Model#save()"}))
        wrong = error(await client.call_tool("find_method_references", {"name": "App::Model"}))
        target = data(await client.call_tool("definition_at", {"file_path": "lib/user.rb", "line": 2, "column": 18}))
        hover = data(await client.call_tool("hover_at", {"file_path": "lib/app.rb", "line": 3, "column": 9}))
        resolved = data(await client.call_tool("resolve_constant", {"name": "Model", "nesting": ["App", "User"]}))
        status = data(await client.call_tool("index_status", {}))
        files = data(await client.call_tool("get_file_declarations", {"file_path": "lib/app.rb"}))
        stats = data(await client.call_tool("codebase_stats", {}))
        return consts, calls, wrong, target, hover, resolved, status, files, stats

    consts, calls, wrong, target, hover, resolved, status, files, stats = ask(ready, steps)
    assert stats["documents"] == 32 and stats["revision"] == status["revision"] and stats["declarations_by_kind"]["Class"] > 32
    assert consts["total"] == 31 and all(f["path"].startswith("lib/") for f in consts["files"])
    # Shared paths are listed once: one group per file, in path order.
    paths = [f["path"] for f in consts["files"]]
    assert paths == sorted(set(paths)) and sum(len(f["refs"]) for f in consts["files"]) == 31
    assert [(f["path"], r["at"], r["certain"]) for f in calls["files"] for r in f["refs"]] == [("lib/user.rb", "3:14-3:18", True)]
    assert consts["revision"] == status["revision"] > 0
    assert wrong["type"] == "invalid_argument" and "find_constant_references" in wrong["suggestion"]
    assert target["items"][0]["name"] == "App::Model"
    assert hover["name"] == "App::Model" and hover["definitions"][0]["comments"] == ["# The base model."]
    assert resolved["name"] == "App::Model"
    assert status["state"] == "ready" and status["files"] == 32
    assert [i["name"] for i in files["items"]] == ["App", "App::Model", "App::Model#save()"]


def test_search_code_groups_lines_by_file_and_pages(project):
    write(project / "docs/notes.md", "# Notes\nThe Model saves.\n")

    async def steps(client):
        pages, offset = [], 0
        while offset is not None:
            page = data(await client.call_tool("search_code", {"pattern": "Model", "limit": 7, "offset": offset}))
            pages.append(page)
            offset = page["next_offset"]
        md = data(await client.call_tool("search_code", {"pattern": "model", "ignore_case": True, "language": "markdown", "context": 1}))
        regex = data(await client.call_tool("search_code", {"pattern": r"class Gen0[0-2] <", "regex": True, "glob": ["lib/gen/**"]}))
        bad = error(await client.call_tool("search_code", {"pattern": "(", "regex": True}))
        trimmed = data(await client.call_tool("search_code", {"pattern": "Model", "limit": 100, "max_tokens": 80}))
        return pages, md, regex, bad, trimmed

    pages, md, regex, bad, trimmed = call(project, steps)
    lines = [(f["path"], x["line"]) for p in pages for f in p["files"] for x in f["lines"]]
    # Every "Model" line exactly once across pages, in path then line order: 30 generated
    # classes, app.rb's class line, user.rb's superclass and the Markdown note.
    assert len(lines) == len(set(lines)) == pages[0]["total"] == 33 and lines == sorted(lines)
    assert pages[0]["matched_files"] == 33
    assert md["files"] == [
        {"path": "docs/notes.md", "language": "markdown", "lines": [{"line": 2, "column": 4, "text": "The Model saves.", "before": ["# Notes"], "after": []}]}
    ]
    assert [(f["path"], f["lines"][0]["column"]) for f in regex["files"]] == [(f"lib/gen/m0{i}.rb", 2) for i in range(3)]
    assert bad["type"] == "invalid_argument" and "missing )" in bad["message"]
    assert trimmed["truncated"] and 0 < sum(len(f["lines"]) for f in trimmed["files"]) < 33


def test_tools_answer_indexing_before_the_graph_is_ready(project):
    workspace = Workspace(str(project), watch=False)  # never started: still indexing
    server = build_server(workspace)

    async def main():
        async with Client(server) as client:
            status = await client.call_tool("index_status", {})
            early = await client.call_tool("get_declaration", {"name": "App::User"})
            return status, early

    status, early = anyio.run(main)
    assert data(status)["state"] == "indexing"
    assert error(early)["type"] == "indexing"


def test_stdio_end_to_end_with_an_edit_between_calls(project):
    params = StdioServerParameters(command=sys.executable, args=["-m", "rdx_mcp", str(project)])

    async def main():
        async with Client(params) as client:
            for _ in range(200):
                status = data(await client.call_tool("index_status", {}))
                if status["state"] == "ready":
                    break
                await anyio.sleep(0.05)
            tools = await client.list_tools()
            # Page through a large result: pages concatenate to the whole list exactly once.
            refs, offset = [], 0
            while offset is not None:
                page = data(await client.call_tool("find_constant_references", {"name": "App::Model", "limit": 4, "offset": offset}))
                refs += [(f["path"], r["at"]) for f in page["files"] for r in f["refs"]]
                offset = page["next_offset"]
            bad = [
                error(await client.call_tool("find_constant_references", {"name": "App::Model", "limit": 0})),
                error(await client.call_tool("get_declaration", {"name": "App::Usr"})),
                error(await client.call_tool("definition_at", {"file_path": "lib/user.rb", "line": "x", "column": 0})),
            ]
            before = data(await client.call_tool("get_declaration", {"name": "App::User"}))
            write(project / "lib/user.rb", "module App\n  class User < Model\n    def name; save; end\n    def email; end\n  end\nend\n")
            for _ in range(100):
                await anyio.sleep(0.1)
                after = await client.call_tool("get_declaration", {"name": "App::User#email()"})
                if not after.is_error:
                    break
            # A file that is not Ruby reaches the text index through the same file events.
            write(project / "docs/changes.md", "# Changes\nneedle_in_markdown\n")
            for _ in range(100):
                await anyio.sleep(0.1)
                grep = data(await client.call_tool("search_code", {"pattern": "needle_in_markdown"}))
                if grep["total"]:
                    break
            return tools, refs, bad, before, (data(after) if not after.is_error else None), grep

    tools, refs, bad, before, after, grep = anyio.run(main)
    assert grep["files"] == [{"path": "docs/changes.md", "language": "markdown", "lines": [{"line": 2, "column": 0, "text": "needle_in_markdown"}]}]
    assert len(tools.tools) == 14
    assert len(refs) == 31 and len(set(refs)) == 31 and refs == sorted(refs, key=lambda r: (r[0], [int(x) for x in r[1].replace("-", ":").split(":")]))
    assert [b["type"] for b in bad] == ["invalid_argument", "not_found", "invalid_argument"]
    assert "limit" in bad[0]["message"] and "App::User" in bad[1]["suggestion"] and "line" in bad[2]["message"]
    assert [m["name"] for m in before["members"]] == ["App::User#name()"]
    assert after is not None and after["kind"] == "Method" and after["revision"] > before["revision"]


# The stdio test above is make check's server process; the other processes (HTTP, a logging
# check, a refused address) are marked slow and left to make test.
@pytest.mark.slow
def test_streamable_http_on_loopback(project):
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rdx_mcp", str(project), "--http", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )

    async def main():
        for _ in range(100):
            try:
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    for _ in range(100):
                        status = data(await client.call_tool("index_status", {}))
                        if status["state"] == "ready":
                            return data(await client.call_tool("get_declaration", {"name": "App::User"}))
                        await anyio.sleep(0.05)
            except Exception:
                await anyio.sleep(0.1)
        return None

    try:
        decl = anyio.run(main)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert decl is not None and decl["kind"] == "Class"


@pytest.mark.slow
def test_http_refuses_non_loopback_addresses(project):
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "rdx_mcp", str(project), "--http", "0.0.0.0:8765"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "loopback" in proc.stderr


def test_other_languages_through_the_same_tools(project):
    write(project / "py/pkg/__init__.py", "")
    write(project / "py/pkg/money.py", 'def format_cents(cents: int) -> str:\n    """Cents as a price."""\n    return str(cents)\n')
    write(project / "py/pkg/printer.py", "from .money import format_cents\n\n\nclass Printer:\n    def line(self):\n        return format_cents(1)\n")

    async def steps(client):
        found = await client.call_tool("search_declarations", {"query": "format cents price", "language": "python"})
        decl = await client.call_tool("get_declaration", {"name": "pkg.printer.Printer"})
        refs = await client.call_tool("find_method_references", {"name": "pkg.money.format_cents"})
        here = await client.call_tool("definition_at", {"file_path": "py/pkg/printer.py", "line": 6, "column": 16})
        ruby = await client.call_tool("search_declarations", {"query": "Model", "language": "ruby", "limit": 1})
        bad = await client.call_tool("search_declarations", {"query": "x", "language": "cobol"})
        return found, decl, refs, here, ruby, bad

    found, decl, refs, here, ruby, bad = call(project, steps)
    first = data(found)["items"][0]
    assert (first["name"], first["kind"], first["language"]) == ("pkg.money.format_cents", "function", "python")
    d = data(decl)
    assert (d["kind"], d["language"], [m["name"] for m in d["members"]]) == ("class", "python", ["pkg.printer.Printer.line"])
    r = data(refs)
    assert [(f["path"], [x["at"] for x in f["refs"]]) for f in r["files"]] == [("py/pkg/printer.py", ["6:15-6:27"])]
    assert data(here)["items"][0]["name"] == "pkg.money.format_cents"
    assert "language" not in data(ruby)["items"][0]  # Ruby items carry no language field.
    assert error(bad)["type"] == "invalid_argument"


# Every tool that answers with a list, with arguments that give a non-empty one, and how to count
# its items (get_declaration's list is its members).
LIST_CALLS = {
    "search_declarations": ({"query": "Gen", "limit": 50}, lambda r: len(r["items"])),
    "get_declaration": ({"name": "App::Model"}, lambda r: len(r["members"])),
    "get_descendants": ({"name": "App::Model"}, lambda r: len(r["items"])),
    "get_ancestors": ({"name": "App::Gen00"}, lambda r: len(r["items"])),
    "find_constant_references": ({"name": "App::Model"}, lambda r: sum(len(f["refs"]) for f in r["files"])),
    "find_method_references": ({"name": "App::Model#save()"}, lambda r: sum(len(f["refs"]) for f in r["files"])),
    "get_file_declarations": ({"file_path": "lib/app.rb"}, lambda r: len(r["items"])),
    "definition_at": ({"file_path": "lib/user.rb", "line": 2, "column": 18}, lambda r: len(r["items"])),
    "search_code": ({"pattern": "Model", "limit": 100}, lambda r: sum(len(f["lines"]) for f in r["files"])),
}


def test_every_list_tool_honours_max_tokens(ready):
    budgets = [1, 40, 100_000]

    async def steps(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        answers = {}
        for name, (args, _) in LIST_CALLS.items():
            full = await client.call_tool(name, args)
            answers[name] = (data(full), [(m, await client.call_tool(name, {**args, "max_tokens": m})) for m in budgets])
        return tools, answers

    tools, answers = ask(ready, steps)
    for name, (_, count) in LIST_CALLS.items():
        assert "max_tokens" in tools[name].input_schema["properties"], name
        full, trimmed = answers[name]
        assert count(full) > 0 and not full["truncated"], name
        for budget, result in trimmed:
            answer = data(result)
            # Within the budget, or cut and saying so.
            assert len(result.content[0].text) // 4 <= budget or (answer["truncated"] and count(answer) < count(full)), (name, budget)
            if budget == 1:
                assert answer["truncated"] and count(answer) < count(full), name
            if budget == 100_000:
                assert not answer["truncated"] and answer == full, name
            if "total" in answer:
                assert answer["total"] == full["total"], name  # The total still counts every item.


# -- issue 22: the rough edges a new user hit ---------------------------------------------------

TYPOS = {
    "lib/shop.rb": "module Spree\n  class Order\n    def total; end\n  end\nend\nmodule Gem\n  class Specification; end\nend\n",
    "lib/run.rb": "class Runner\n  def run(x, y)\n    x.total\n    y.label\n  end\nend\nclass Tag\n  def label; end\nend\nclass Badge\n  def label; end\nend\n",
}


def test_typos_suggest_the_intended_declaration_first(project):
    for name, text in TYPOS.items():
        write(project / name, text)

    async def steps(client):
        names = ["Spree::Oder", "Spree::Odrer", "Gem::Specificatoin", "Sprea::Order", "Spree::Order#totl"]
        missing = [error(await client.call_tool("get_declaration", {"name": n})) for n in names]
        refs = error(await client.call_tool("find_constant_references", {"name": "Spree::Oder"}))
        resolved = error(await client.call_tool("resolve_constant", {"name": "Ordr", "nesting": ["Spree"]}))
        fuzzy = data(await client.call_tool("search_declarations", {"query": "Gem::Specificatoin", "match_mode": "fuzzy"}))
        return missing, refs, resolved, fuzzy

    missing, refs, resolved, fuzzy = call(project, steps)
    firsts = [m["suggestion"].removeprefix("did you mean: ").split(", ")[0] for m in missing]
    assert firsts == ["Spree::Order", "Spree::Order", "Gem::Specification", "Spree::Order", "Spree::Order#total()"]
    # NoMethodError (core) holds "oder" too, but is no typo of Spree::Oder: it comes after.
    assert all(m["type"] == "not_found" and "Graph." not in m["suggestion"] for m in missing)
    assert refs["suggestion"].startswith("did you mean: Spree::Order")
    assert "did you mean: Spree::Order" in resolved["suggestion"]
    assert fuzzy["items"][0]["name"] == "Gem::Specification"


def test_positions_outside_a_file_and_guesses_by_name(project):
    for name, text in TYPOS.items():
        write(project / name, text)

    async def steps(client):
        past_line = error(await client.call_tool("definition_at", {"file_path": "lib/run.rb", "line": 99999, "column": 0}))
        past_column = error(await client.call_tool("hover_at", {"file_path": "lib/run.rb", "line": 3, "column": 500}))
        one = (data(await client.call_tool("definition_at", {"file_path": "lib/run.rb", "line": 3, "column": 7})),
               data(await client.call_tool("hover_at", {"file_path": "lib/run.rb", "line": 3, "column": 7})))
        two = (data(await client.call_tool("definition_at", {"file_path": "lib/run.rb", "line": 4, "column": 7})),
               data(await client.call_tool("hover_at", {"file_path": "lib/run.rb", "line": 4, "column": 7})))
        known = data(await client.call_tool("definition_at", {"file_path": "lib/user.rb", "line": 2, "column": 18}))
        return past_line, past_column, one, two, known

    past_line, past_column, one, two, known = call(project, steps)
    assert past_line["type"] == "invalid_argument" and "line 99999 does not exist (the file has 13 lines)" in past_line["message"]
    assert past_column["type"] == "invalid_argument" and "column 500 is past the end of line 3" in past_column["message"]
    # definition_at and hover_at answer a call on an unknown receiver alike: a guess, marked.
    target, hover = one
    assert target["certain"] is False and [i["name"] for i in target["items"]] == ["Spree::Order#total()"]
    assert hover["certain"] is False and hover["name"] == "Spree::Order#total()" and hover["owner"] == "Spree::Order"
    target, hover = two
    assert target["certain"] is False and sorted(i["name"] for i in target["items"]) == ["Badge#label()", "Tag#label()"]
    assert hover["certain"] is False and hover["name"] == "label()" and sorted(hover["candidates"]) == ["Badge#label()", "Tag#label()"]
    assert known["certain"] is True


def test_index_status_counts_the_files_once_ready(project):
    async def steps(client):
        return data(await client.call_tool("index_status", {}))

    first = call(project, steps)  # indexed from scratch
    again = call(project, steps)  # warm from the snapshot: nothing parsed, every file indexed
    for status in (first, again):
        assert status["state"] == "ready" and status["files"] == status["indexed_files"] == status["total_files"] == 32


@pytest.mark.slow  # a process of its own
def test_tool_errors_are_one_warning_line_on_stderr(project):
    """In a process of its own (logging configured as ``rdx mcp`` has it): a failing tool call
    logs one plain WARNING line, without the SDK's INFO record or rich's box."""
    import subprocess

    script = (
        "import anyio, sys\n"
        "from mcp import Client\n"
        "from rdx_mcp import Workspace, build_server\n"
        "ws = Workspace(sys.argv[1], watch=False).start()\n"
        "assert ws.wait_ready()\n"
        "server = build_server(ws)\n"
        "async def main():\n"
        "    async with Client(server) as client:\n"
        "        r = await client.call_tool('get_declaration', {'name': 'App::Usr'})\n"
        "        assert r.is_error\n"
        "        r = await client.call_tool('search_code', {'pattern': 'x', 'limit': 0})\n"
        "        assert r.is_error\n"
        "anyio.run(main)\n"
        "print('done')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(project)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "done\n", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith("rdx mcp: WARNING tool 'get_declaration' failed: not_found: no declaration named 'App::Usr'")
    assert lines[1].startswith("rdx mcp: WARNING tool 'search_code' failed: invalid_argument: search_code: limit")
    assert "INFO" not in proc.stderr and "╭" not in proc.stderr and "│" not in proc.stderr


def test_grep_answers_from_the_text_index_while_the_graph_loads(project, monkeypatch):
    import threading

    import rdx

    release = threading.Event()
    real_open = rdx.Graph.open

    def slow_open(*args, **kwargs):
        release.wait(60)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(rdx.Graph, "open", slow_open)
    workspace = Workspace(str(project), watch=False).start()
    server = build_server(workspace)

    async def main():
        async with Client(server) as client:
            for _ in range(600):
                if workspace._text is not None:
                    break
                await anyio.sleep(0.05)
            early = data(await client.call_tool("search_code", {"pattern": "class User"}))
            waiting = error(await client.call_tool("get_declaration", {"name": "App::User"}))
            status = data(await client.call_tool("index_status", {}))
            release.set()
            assert workspace.wait_ready()
            later = data(await client.call_tool("search_code", {"pattern": "class User"}))
            return early, waiting, status, later

    try:
        early, waiting, status, later = anyio.run(main)
    finally:
        release.set()
        workspace.stop()
    assert [(f["path"], [x["line"] for x in f["lines"]]) for f in early["files"]] == [("lib/user.rb", [2])]
    assert waiting["type"] == "indexing" and status["state"] == "indexing"
    assert later["files"] == early["files"] and later["revision"] > 0
