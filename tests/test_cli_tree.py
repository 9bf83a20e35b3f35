"""``rdx tree FILE`` prints the syntax tree the language server's ``rdx.showSyntaxTree`` shows."""

from __future__ import annotations

import pytest

from rdx.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_ruby_files_tree_with_spans_fields_and_leaves(tmp_path, capsys):
    f = tmp_path / "a.rb"
    f.write_text("class Foo < Bar\n  def go(x) = x\nend\n")
    code, out, _ = run(capsys, "tree", str(f))
    lines = out.splitlines()
    assert code == 0 and lines[0] == "program [0:0-3:0]"
    assert "  class [0:0-2:3]" in lines
    assert "    name: constant [0:6-0:9] 'Foo'" in lines
    assert any(line.strip().startswith("superclass: superclass [0:10-0:15]") for line in lines)
    # --lines keeps the nodes that touch those lines (1-based), with their ancestors.
    code, part, _ = run(capsys, "tree", str(f), "--lines", "2:2")
    assert code == 0 and "'Foo'" not in part and "name: identifier [1:6-1:8] 'go'" in part


def test_an_erb_templates_tree_is_its_ruby(tmp_path, capsys):
    f = tmp_path / "show.html.erb"
    f.write_text("<h1><%= @title %></h1>\n<% if ok %>yes<% end %>\n")
    code, out, _ = run(capsys, "tree", str(f))
    assert code == 0 and "instance_variable [0:8-0:14] '@title'" in out and "if [1:3-1:" in out
    assert "h1" not in out


def test_other_languages_and_bad_input(tmp_path, capsys):
    py = tmp_path / "m.py"
    py.write_text("def f():\n    return 1\n")
    code, out, _ = run(capsys, "tree", str(py))
    assert code == 0 and out.startswith("module [0:0-2:0]") and "function_definition [0:0-1:12]" in out
    assert run(capsys, "tree", str(tmp_path / "missing.rb"))[0] == 2
    assert run(capsys, "tree", str(py), "--lines", "x")[0] == 2
    blob = tmp_path / "data.bin"
    blob.write_bytes(b"\x00\x01")
    code, _, err = run(capsys, "tree", str(blob))
    assert code == 2 and "rdx: error:" in err
