"""The command line, run in-process through ``rdx.cli.main`` and once as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write

from rdx.cli import main

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


def test_console_script_runs_as_a_subprocess(project):
    proc = subprocess.run([sys.executable, "-m", "rdx.cli", "show", "App::User", "-C", str(project)], capture_output=True, text=True)
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
