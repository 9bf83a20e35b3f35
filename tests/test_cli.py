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
    code, out, _ = run(capsys, "show", "App::User", "-p", str(project))
    assert code == 0
    assert "App::User (Class)" in out
    assert "ancestors: App::User > Comparable > App::Model > Object > Kernel > BasicObject" in out
    code, out, _ = run(capsys, "show", "App::Model#save()", "--project", str(project), "--json")
    data = json.loads(out)
    assert data["kind"] == "Method" and data["owner"] == "App::Model"
    assert data["definitions"][0]["signature"] == "(validate: true)"
    assert data["definitions"][0]["location"].endswith("a.rb:4:4-4:33")


def test_show_unknown_name_is_one_line_error(project, capsys):
    code, out, err = run(capsys, "show", "App::Nope", "-p", str(project))
    assert code == 1 and out == ""
    assert err.startswith("rdx: error: no declaration named 'App::Nope'") and err.count("\n") == 1


def test_resolve_with_nesting(project, capsys):
    code, out, _ = run(capsys, "resolve", "Model", "--nesting", "App,User", "-p", str(project))
    assert code == 0 and out.startswith("App::Model (Class)")
    code, out, _ = run(capsys, "resolve", "Nope", "--nesting", "App", "-p", str(project))
    assert code == 1 and "does not resolve" in out


def test_search_modes(project, capsys):
    code, out, _ = run(capsys, "search", "Use", "--mode", "prefix", "--kind", "Class", "-p", str(project), "--json")
    assert code == 0 and [d["name"] for d in json.loads(out)] == ["App::User"]
    code, out, _ = run(capsys, "search", "zzzzqqq", "-p", str(project))
    assert code == 1 and "no matches" in out


def test_search_path_is_a_filter_not_a_file(project, capsys, monkeypatch, tmp_path):
    """``--path`` keeps declarations whose file path contains it: it need not exist from the
    current directory (only ``-p`` names a directory)."""
    monkeypatch.chdir(tmp_path.parent)
    code, out, err = run(capsys, "search", "User", "--mode", "prefix", "--path", "no/such/dir", "-p", str(project), "--json")
    assert code == 1 and "does not exist" not in err and json.loads(out) == []
    code, out, err = run(capsys, "search", "User", "--mode", "prefix", "--path", "lib/b.rb", "-p", str(project), "--json")
    assert code == 0 and "App::User" in [d["name"] for d in json.loads(out)], err


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
    proc = subprocess.run([sys.executable, "-m", "rdx.cli.main", "show", "App::User", "-p", str(project)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "App::User (Class)" in proc.stdout


def test_navigation_commands(project, capsys):
    b = project / "lib" / "b.rb"
    code, out, _ = run(capsys, "refs", "App::Model", "-p", str(project))
    assert code == 0 and out.strip().endswith("b.rb:2:15-2:20  Model")
    code, out, _ = run(capsys, "def", f"{b}:2:17", "-p", str(project), "--json")
    assert code == 0 and json.loads(out)["name"] == "App::Model"
    code, out, _ = run(capsys, "hover", f"{b}:4:10", "-p", str(project))
    assert code == 0 and out.startswith("App::User#name() (Method)")
    code, out, _ = run(capsys, "complete", f"{b}:2:18", "-p", str(project), "--json")
    assert code == 0 and [c["label"] for c in json.loads(out)][0] == "Model"
    code, _, err = run(capsys, "def", f"{b}:x:1", "-p", str(project))
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
    code, out, _ = run(capsys, "show", "receipts.printer.Printer", "-p", root, "--no-cache")
    assert code == 0 and out.startswith("receipts.printer.Printer (python class)")
    assert "line (method)" in out and "Prints one receipt line per order line." in out
    code, out, _ = run(capsys, "search", "format money", "--language", "typescript", "-p", root, "--no-cache", "--json")
    assert code == 0 and json.loads(out)[0] == {"name": "formatMoney", "kind": "function", "language": "typescript", "location": json.loads(out)[0]["location"]}
    code, out, _ = run(capsys, "refs", "receipts.money.format_cents", "-p", root, "--no-cache")
    assert code == 0 and "printer.py:14:" in out
    code, out, _ = run(capsys, "hover", f"{root}/web/cart.ts:10:12", "-p", root, "--no-cache")
    assert code == 0 and out.splitlines()[0] == "formatMoney (function)" and "Formats an amount for display." in out
    # Typos of other languages' names are suggested as Ruby's are.
    for typo, meant in (("receipts.printer.Printr", "receipts.printer.Printer"), ("formatMony", "formatMoney")):
        code, _, err = run(capsys, "show", typo, "-p", root, "--no-cache")
        assert code == 1 and f"did you mean {meant}" in err, err


# -- issue 22: the rough edges a new user hit ---------------------------------------------------

TYPOS = {
    "lib/shop.rb": (
        "module Spree\n  class Order\n    def total; end\n  end\n  class Coder; end\nend\n"
        "module Shop\n  class Order; end\nend\nmodule Gem\n  class Specification; end\nend\n"
    ),
    "lib/run.rb": (
        "class Runner\n  def run(x, y)\n    x.total\n    y.label\n    Spree::Order.new.total\n  end\nend\n"
        "class Tag\n  def label; end\nend\nclass Badge\n  def label; end\nend\n"
    ),
}


@pytest.fixture
def typos(tmp_path: Path) -> Path:
    for name, text in TYPOS.items():
        write(tmp_path / name, text)
    return tmp_path


def test_dry_run_counts_and_names_the_gems_the_real_run_indexes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RDX_GEM_CACHE", str(tmp_path / "gem-cache"))
    root = tmp_path / "app"
    write(root / "lib/machine.rb", "class Machine < Widget::Crank\nend\n")
    write(root / "Gemfile.lock", "GEM\n  remote: https://rubygems.org/\n  specs:\n    widget (1.2.0)\n    gadget (1.0.0)\n")
    gems = root / "vendor/bundle/ruby/3.1.0/gems"
    write(gems / "widget-1.2.0/lib/widget.rb", "module Widget\n  class Crank; end\nend\n")
    write(gems / "widget-1.2.0/lib/widget/version.rb", "module Widget\n  VERSION = '1.2.0'\nend\n")
    write(gems / "gadget-1.0.0/lib/gadget.rb", "module Gadget; end\n")
    code, out, _ = run(capsys, "index", str(root), "--dry-run")
    assert code == 0
    assert out.splitlines()[0] == "would index 4 files: 1 of the project and 3 of 2 gems locked in Gemfile.lock"
    assert "       1  gadget 1.0.0" in out.splitlines() and "       2  widget 1.2.0" in out.splitlines()
    code, out, _ = run(capsys, "index", "--dry-run", "-p", str(root), "--json")
    planned = json.loads(out)
    assert (planned["files"], planned["gem_files"], planned["total_files"]) == (1, 3, 4)
    assert sorted((g["name"], g["version"], g["files"]) for g in planned["gems"]) == [("gadget", "1.0.0", 1), ("widget", "1.2.0", 2)]
    assert not (root / ".rdx").exists()  # a dry run writes nothing
    code, out, _ = run(capsys, "index", str(root), "--json")
    assert code == 0 and json.loads(out)["documents"] == planned["total_files"]  # what the real run indexes


def test_project_is_p_everywhere_and_C_is_context_lines(project, capsys, monkeypatch):
    (project / ".git").mkdir()
    for argv in (["index", "-p", str(project)], ["stats", "--project", str(project)], ["map", "-p", str(project), "--tokens", "200"]):
        code, out, err = run(capsys, *argv)
        assert code == 0 and out, (argv, err)
    code, out, _ = run(capsys, "grep", "Model", "-C", "1", "-p", str(project), "--json")  # -C: lines of context
    hits = json.loads(out)["hits"]
    assert code == 0 and hits[0]["before"] == ["  # The base model."]
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "grep", "class User", "-C", "1", "lib")
    assert code == 0 and out.splitlines()[0] == "lib/b.rb-1-module App"
    # -C where no context is shown says what it means now, instead of taking a directory.
    for argv in (["show", "App::User", "-C", str(project)], ["index", "-C", str(project)], ["refs", "App::Model", "-C", "2"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and "lines of context" in err and "--project/-p" in err, argv
    code, _, err = run(capsys, "index", str(project), "-p", str(project / "lib"))
    assert code == 2 and "given twice" in err


def test_a_typo_gets_the_intended_declaration_first_and_no_python_advice(typos, capsys):
    for name, first in (("Spree::Oder", "Spree::Order"), ("Spree::Odrer", "Spree::Order"), ("Gem::Specificatoin", "Gem::Specification"),
                        ("Sprea::Order", "Spree::Order"), ("Spree::Order#totl", "Spree::Order#total()"), ("Spree::Order#total", "Spree::Order#total()")):
        code, out, err = run(capsys, "show", name, "-p", str(typos))
        assert code == 1 and out == "" and err.count("\n") == 1, name
        assert err.startswith(f"rdx: error: no declaration named {name!r}; did you mean {first}"), err
        assert "Graph." not in err and "try " not in err, err
    code, _, err = run(capsys, "refs", "Spree::Oder", "-p", str(typos))
    assert code == 1 and "did you mean Spree::Order," in err
    code, out, _ = run(capsys, "resolve", "Ordr", "--nesting", "Spree", "-p", str(typos))
    assert code == 1 and "did you mean Spree::Order" in out
    code, out, _ = run(capsys, "search", "Gem::Specificatoin", "--mode", "fuzzy", "-p", str(typos), "--json")
    assert code == 0 and json.loads(out)[0]["name"] == "Gem::Specification"
    code, out, _ = run(capsys, "search", "Spree::Oder", "--mode", "fuzzy", "-p", str(typos), "--json")
    assert [d["name"] for d in json.loads(out)][:2] == ["Spree::Order", "Spree::Coder"]
    code, out, _ = run(capsys, "search", "Gem::Specificatoin", "-p", str(typos), "--json")  # ranked: a name that matches nothing else
    assert code == 0 and json.loads(out)[0]["name"] == "Gem::Specification"


def test_positions_outside_the_file_are_usage_errors(typos, capsys):
    run_rb = typos / "lib/run.rb"
    for command in ("def", "hover", "complete"):
        code, out, err = run(capsys, command, f"{run_rb}:99999:0", "-p", str(typos))
        assert code == 2 and out == "" and "line 99999 does not exist (the file has 14 lines)" in err, (command, err)
        code, out, err = run(capsys, command, f"{run_rb}:3:500", "-p", str(typos))
        assert code == 2 and "column 500 is past the end of line 3 (11 bytes long)" in err, (command, err)
    code, out, _ = run(capsys, "hover", f"{run_rb}:3:11", "-p", str(typos))  # the end of a line is a position
    assert code == 0 and out.startswith("Spree::Order#total()")
    import rdx

    g = rdx.Graph.open(typos)
    with pytest.raises(rdx.InvalidArgumentError, match="line 99999 does not exist"):
        g.definition_at(str(run_rb), 99999, 0)
    with pytest.raises(rdx.InvalidArgumentError, match="column 12 is past the end of line 3"):
        g.hover_at(str(run_rb), 3, 12)
    assert g.definition_at(str(typos / "lib/none.rb"), 99999, 0) is None  # a file the graph does not hold: nothing


def test_def_and_hover_agree_on_a_guess_by_name(typos, capsys):
    run_rb = typos / "lib/run.rb"
    # ``x.total``: x's type is unknown, and one method is named total: both name it, uncertain.
    code, out, _ = run(capsys, "def", f"{run_rb}:3:7", "-p", str(typos), "--json")
    target = json.loads(out)
    assert code == 0 and target["certain"] is False and target["candidates"] == ["Spree::Order#total()"]
    code, out, _ = run(capsys, "hover", f"{run_rb}:3:7", "-p", str(typos), "--json")
    hover = json.loads(out)
    assert code == 0 and hover["certain"] is False and hover["name"] == "Spree::Order#total()" and hover["owner"] == "Spree::Order"
    code, out, _ = run(capsys, "hover", f"{run_rb}:3:7", "-p", str(typos))
    assert out.splitlines()[0] == "Spree::Order#total() (Method; uncertain: the receiver's type is unknown, so this is a guess by name)"
    # ``y.label``: two methods of that name, listed by both.
    code, out, _ = run(capsys, "def", f"{run_rb}:4:7", "-p", str(typos), "--json")
    target = json.loads(out)
    assert target["certain"] is False and sorted(target["candidates"]) == ["Badge#label()", "Tag#label()"] and len(target["locations"]) == 2
    code, out, _ = run(capsys, "hover", f"{run_rb}:4:7", "-p", str(typos), "--json")
    hover = json.loads(out)
    assert hover["certain"] is False and hover["name"] == "label()" and sorted(hover["candidates"]) == ["Badge#label()", "Tag#label()"]
    code, out, _ = run(capsys, "def", f"{run_rb}:4:7", "-p", str(typos))
    assert "uncertain" in out.splitlines()[0] and any(line.endswith("Tag#label()") for line in out.splitlines())
    # A receiver rdx knows: certain, in both.
    code, out, _ = run(capsys, "def", f"{run_rb}:5:22", "-p", str(typos), "--json")
    assert json.loads(out)["certain"] is True and json.loads(out)["name"] == "Spree::Order#total()"
    code, out, _ = run(capsys, "hover", f"{run_rb}:5:22", "-p", str(typos), "--json")
    assert json.loads(out)["certain"] is True


def test_no_cache_reads_the_project_as_rdx_toml_describes_it(project, capsys):
    """``--no-cache`` neither reads nor keeps a snapshot, but indexes the same files as a normal
    run: ``rdx.toml``'s exclusions hold."""
    write(project / "rdx.toml", 'exclude = ["lib/b.rb"]\n')
    code, out, _ = run(capsys, "index", str(project), "--no-cache", "--json")
    assert code == 0 and json.loads(out)["documents"] == 1
    assert not (project / ".rdx").exists()
    code, out, _ = run(capsys, "index", str(project), "--json")
    assert code == 0 and json.loads(out)["documents"] == 1


# -- ranked search as a resident server asks it: again and again, on one index ----------------

PALETTE = {
    "file:///s/cache.rb": "class Cache\n  # Keeps entries for a while.\n  def keep(max_age, colors); end\nend\n",
    "file:///s/palette.rb": (
        "class Palette\n  # The colors of a theme.\n  def colors; end\n  # Lighter shades of a color.\n  def shades(of); end\n"
        "  # How old the theme is: its age.\n  def age; end\nend\n"
    ),
}


def _palette(files: dict[str, str]):
    import rdx

    g = rdx.Graph(core=False)
    for uri, text in files.items():
        g.index_source(uri, text)
    g.resolve()
    return g


def _ranked(g, query: str) -> list[str]:
    return [d.name for d in g.search(query, limit=20)]


def test_a_ranked_answer_does_not_depend_on_what_was_asked_before():
    """A parameter the tokenizer splits (``max_age``) once shifted the stems of the words read
    after it (``colors`` was taken for ``ag``), for as long as the index lived: a server that
    had answered "keeps entries" then ranked "theme colors" otherwise than a fresh process."""
    asked = _palette(PALETTE)
    assert _ranked(asked, "keeps entries") == ["Cache#keep()"]
    for query in ("theme colors", "colors of theme", "age", "color age", "keeps entries"):
        assert _ranked(asked, query) == _ranked(_palette(PALETTE), query), query
    assert _ranked(asked, "theme colors")[0] == "Palette#colors()"


def test_a_repeated_ranked_search_follows_edits():
    """The index remembers answers and BM25 candidate lists until its rows change: asked again,
    the same answer; after an edit, the answer of a fresh index for the new text."""
    files = dict(PALETTE)
    g = _palette(files)
    g.prepare_queries()
    first = _ranked(g, "theme colors")
    assert _ranked(g, "theme colors") == first
    assert "Palette#hue()" not in first
    files["file:///s/palette.rb"] = PALETTE["file:///s/palette.rb"].replace("def age; end", "def age; end\n  # The theme's colors as one hue.\n  def hue; end")
    g.index_source("file:///s/palette.rb", files["file:///s/palette.rb"])
    g.resolve()
    after = _ranked(g, "theme colors")
    assert "Palette#hue()" in after
    assert after == _ranked(_palette(files), "theme colors")
    g.delete_document("file:///s/cache.rb")
    files.pop("file:///s/cache.rb")
    g.resolve()
    assert _ranked(g, "keeps entries") == _ranked(_palette(files), "keeps entries") == []
