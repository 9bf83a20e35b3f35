"""The command line, run in-process through ``rdx.cli.main.main`` and once as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write

from rdx.cli.main import main

PROJECT = {
    "lib/a.rb": "module App\n  # The base model.\n  class Model\n    def save(validate: true); end\n  end\nend\n",
    "lib/b.rb": "module App\n  class User < Model\n    include Comparable\n    def name; end\n  end\nend\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in PROJECT.items():
        write(tmp_path / name, text)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_index_prints_a_summary(project, capsys):
    code, out, err = run(capsys, "index", str(project))
    assert code == 0
    assert "indexed 2 files" in out


def test_index_json(project, capsys):
    code, out, _ = run(capsys, "index", str(project), "--json")
    data = json.loads(out)
    assert code == 0 and data["documents"] == 2 and data["problems"] == []
    assert data["declarations_by_kind"]["Class"] >= 2


def test_show_text_and_json(project, capsys):
    code, out, _ = run(capsys, "show", "App::User", "-C", str(project))
    assert code == 0
    assert "App::User (Class)" in out
    assert "ancestors: App::User > Comparable > App::Model > Object > Kernel > BasicObject" in out
    code, out, _ = run(capsys, "show", "App::Model#save()", "-C", str(project), "--json")
    data = json.loads(out)
    assert data["kind"] == "Method" and data["owner"] == "App::Model"
    assert data["definitions"][0]["signature"] == "(validate: true)"
    assert data["definitions"][0]["location"].endswith("a.rb:4:4-4:33")


def test_show_unknown_name_is_one_line_error(project, capsys):
    code, out, err = run(capsys, "show", "App::Nope", "-C", str(project))
    assert code == 1 and out == ""
    assert err.startswith("rdx: error: no declaration named 'App::Nope'") and err.count("\n") == 1


def test_resolve_with_nesting(project, capsys):
    code, out, _ = run(capsys, "resolve", "Model", "--nesting", "App,User", "-C", str(project))
    assert code == 0 and out.startswith("App::Model (Class)")
    code, out, _ = run(capsys, "resolve", "Nope", "--nesting", "App", "-C", str(project))
    assert code == 1 and "does not resolve" in out


def test_search_modes(project, capsys):
    code, out, _ = run(capsys, "search", "Use", "--mode", "prefix", "--kind", "Class", "-C", str(project), "--json")
    assert code == 0 and [d["name"] for d in json.loads(out)] == ["App::User"]
    code, out, _ = run(capsys, "search", "zzzzqqq", "-C", str(project))
    assert code == 1 and "no matches" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["index", "/does/not/exist"], "does not exist"),
        (["show"], "the following arguments are required"),
        (["search", "x", "--mode", "bogus"], "invalid choice"),
        (["stats", ".", "--jobs", "0"], "--jobs must be at least 1"),
        (["resolve", "lowercase"], "not a constant path"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, message, capsys, project, monkeypatch):
    monkeypatch.chdir(project)
    code, out, err = run(capsys, *argv)
    assert code in (1, 2)
    assert message in err and "Traceback" not in err


def test_demo_answers_questions(capsys):
    code, out, _ = run(capsys, "demo", "--json")
    data = json.loads(out)
    assert code == 0
    answers = data["answers"]
    assert answers["Shop::Models::Item is an alias of"] == "Shop::Models::Product"
    assert answers["Order#map() comes from"] == "Enumerable"
    assert answers["Shop::Models::Product ancestors"][:4] == [
        "Shop::Models::Product", "Shop::Comparable", "Comparable", "Shop::Pricing"]
    # A Rails model: its macros define the methods ActiveRecord would.
    assert "build_product" in answers["Review (a Rails model) gets from its macros"]
    assert answers["Review's class methods from scope and enum"] == ["not_pending", "not_published", "pending", "published", "recent", "statuses"]
    # The polyglot part: a Python package and a TypeScript module importing between their files.
    assert answers["Python: receipts.printer.Printer members"] == ["__init__", "line"]
    assert answers["Python: receipts.money.format_cents is called from"] == ["python/receipts/printer.py:14"]
    assert answers["TypeScript: formatMoney is called from"] == ["web/cart.ts:10"]
    assert answers["TypeScript: go to definition of formatMoney in web/cart.ts:10:12"].endswith("web/money.ts:8:16-8:27")
    assert answers["Search 'format money' in TypeScript"][0] == "formatMoney"


def test_console_script_runs_as_a_subprocess(project):
    proc = subprocess.run([sys.executable, "-m", "rdx.cli.main", "show", "App::User", "-C", str(project)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "App::User (Class)" in proc.stdout


def test_navigation_commands(project, capsys):
    b = project / "lib" / "b.rb"
    code, out, _ = run(capsys, "refs", "App::Model", "-C", str(project))
    assert code == 0 and out.strip().endswith("b.rb:2:15-2:20  Model")
    code, out, _ = run(capsys, "def", f"{b}:2:17", "-C", str(project), "--json")
    assert code == 0 and json.loads(out)["name"] == "App::Model"
    code, out, _ = run(capsys, "hover", f"{b}:4:10", "-C", str(project))
    assert code == 0 and out.startswith("App::User#name() (Method)")
    code, out, _ = run(capsys, "complete", f"{b}:2:18", "-C", str(project), "--json")
    assert code == 0 and [c["label"] for c in json.loads(out)][0] == "Model"
    code, _, err = run(capsys, "def", f"{b}:x:1", "-C", str(project))
    assert code == 2 and "PATH:LINE:COLUMN" in err


def test_grep_prints_like_ripgrep_and_exits_like_grep(project, capsys, monkeypatch):
    write(project / "README.md", "# App\nThe Model saves.\n")
    (project / ".git").mkdir()
    monkeypatch.chdir(project / "lib")  # the project is found above the current directory
    code, out, _ = run(capsys, "grep", "Model")
    assert code == 0
    assert out.splitlines() == ["../README.md:2:5:The Model saves.", "a.rb:3:9:  class Model", "b.rb:2:16:  class User < Model"]
    code, out, _ = run(capsys, "grep", "-e", r"class \w+$", "-C", "1", str(project / "lib"))
    assert out.splitlines() == ["a.rb-2-  # The base model.", "a.rb:3:3:  class Model", "a.rb-4-    def save(validate: true); end"]
    code, out, _ = run(capsys, "grep", "-i", "model", "-g", "*.md", "--json")
    data = json.loads(out)
    assert data["total"] == 1 and data["hits"][0]["column"] == 4 and data["hits"][0]["path"].endswith("README.md")
    code, out, err = run(capsys, "grep", "-i", "model", "-t", "ruby", "--limit", "1")
    assert code == 0 and len(out.splitlines()) == 1 and "1 of 3 matching lines" in err
    assert run(capsys, "grep", "zzqx_nothing")[0] == 1  # no match: exit 1, like grep and rg
    code, _, err = run(capsys, "grep", "-e", "(")
    assert code == 1 and "invalid regex" in err and "Traceback" not in err
    assert run(capsys, "grep", "x", "-C", "-2")[0] == 2
    assert (project / ".rdx" / "text.sqlite").exists() and not (project / ".rdx" / "index.msgpack").exists()  # no Ruby parse


def test_text_search_without_the_graph_shares_the_index_with_graph_open(project):
    import rdx

    first = rdx.TextSearch.open(project)
    assert [(h.line, h.text) for h in first.grep("def save")] == [(4, "    def save(validate: true); end")]
    assert first.last_sync is not None and first.last_sync.indexed == 2
    again = rdx.TextSearch.open(project)
    assert again.last_sync is not None and again.last_sync.indexed == 0 and again.last_sync.kept == 2
    g = rdx.Graph.open(project)
    assert g._text.last_sync is not None and g._text.last_sync.indexed == 0
    assert g.grep("def save").total == 1
    with pytest.raises(rdx.IOFailureError):
        rdx.TextSearch.open(project / "missing")


def test_other_languages_on_the_command_line(capsys):
    from rdx.cli.demo import example_root

    root = example_root()
    code, out, _ = run(capsys, "show", "receipts.printer.Printer", "-C", root, "--no-cache")
    assert code == 0 and out.startswith("receipts.printer.Printer (python class)")
    assert "line (method)" in out and "Prints one receipt line per order line." in out
    code, out, _ = run(capsys, "search", "format money", "--language", "typescript", "-C", root, "--no-cache", "--json")
    assert code == 0 and json.loads(out)[0] == {"name": "formatMoney", "kind": "function", "language": "typescript", "location": json.loads(out)[0]["location"]}
    code, out, _ = run(capsys, "refs", "receipts.money.format_cents", "-C", root, "--no-cache")
    assert code == 0 and "printer.py:14:" in out
    code, out, _ = run(capsys, "hover", f"{root}/web/cart.ts:10:12", "-C", root, "--no-cache")
    assert code == 0 and out.splitlines()[0] == "formatMoney (function)" and "Formats an amount for display." in out
