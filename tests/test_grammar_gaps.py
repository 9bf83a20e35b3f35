"""Valid Ruby the grammar cannot parse is a "grammar-limitation" warning, not a syntax error,
and the definitions around it are kept (issue 22; rdx.ruby.discover.gaps). Ruby is the oracle:
``ruby -c`` says which texts are valid, and the methods rdx finds are the ones Ruby defines,
with their owners and visibilities (``check_against_ruby``). Other errors stay syntax errors.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import RUBY, build_graph
from test_differential_ruby import check_against_ruby

from rdx.ruby.discover.parse import discover_source

# A method named ``self`` (parser's Parser::Builders::Default), its setter and predicate, and
# an endless one, among methods the error used to swallow with the class around them.
METHOD_NAMED_SELF = """
class Builder
  def before; end

  def self(token)
    [:self, token]
  end

  def self.build; end
  NOTE = "def self(text in a string)"

  def self=(value); end
  def self?; end

  private

  def after; end
end
module Endless
  def self = 1
  def later; end
end
"""

# ``return``, ``break`` and ``next`` with statements in parentheses right after the keyword.
PARENTHESIZED_STATEMENTS = """
class Jumps
  def before; end

  def value(x)
    return(
      1
      x
    ) if x
    [1].each { next(
      a = 1
      a
    ) }
    loop { break(
      1
      2
    ) }
  end

  def after; end
end
"""

# Spellings the grammar lacks: a lambda's block-local variables, the label ``defined?:``,
# symbols of punctuation globals; beside a method named ``self``, whose reparse must keep them.
SPELLINGS = """
class Spelled
  def before; end
  SQUARE = ->(i; tmp) { tmp = i * i; tmp }
  def options = { defined?: true, other: 1 }
  def call_with = run(defined?: false)
  LOAD_PATH_NAME = :$:
  SEPARATOR = [:$;, :$,]
  def self(token); end
  def after; end
  private
  def hidden; end
end
"""

GENUINE = {
    "comma twice": "class Broken\n  def a\n    return(1,, 2)\n  end\n  def b; end\nend\n",
    "lambda semicolon without a local": "class Broken\n  F = ->(i;) { i }\n  def b; end\nend\n",
    "def self dot nothing": "class Broken\n  def self.\n  end\n  def b; end\nend\n",
}


def _ruby_accepts(text: str, tmp_path: Path) -> bool:
    assert RUBY, "ruby is required (make test installs it)"
    path = tmp_path / "check.rb"
    path.write_text(text)
    return subprocess.run([RUBY, "-c", str(path)], capture_output=True, text=True, timeout=60).returncode == 0


def _codes(source: str) -> list[tuple[str, str, str]]:
    result = discover_source("file:///x.rb", source.encode())
    return [(d.code, d.severity, source.encode()[d.start : d.end].decode()) for d in result.diagnostics]


def test_a_method_named_self_is_a_grammar_limitation(tmp_path: Path) -> None:
    assert _ruby_accepts(METHOD_NAMED_SELF, tmp_path)
    assert _codes(METHOD_NAMED_SELF) == [("grammar-limitation", "warning", "self")] * 4
    methods = [("Builder", m) for m in ("before", "self", "self=", "self?", "after")] + [("Endless", "self"), ("Endless", "later")]
    check_against_ruby(tmp_path, {"a.rb": METHOD_NAMED_SELF}, targets=["Builder", "Endless"], methods=methods)
    g = build_graph({"a.rb": METHOD_NAMED_SELF})
    assert "Builder::<Builder>#build()" in g and "Builder::NOTE" in g
    assert g["Builder#self()"].location.start_line == METHOD_NAMED_SELF.splitlines().index("  def self(token)") + 1


def test_statements_in_parentheses_after_a_jump_are_a_grammar_limitation(tmp_path: Path) -> None:
    assert _ruby_accepts(PARENTHESIZED_STATEMENTS, tmp_path)
    assert [(code, severity) for code, severity, _ in _codes(PARENTHESIZED_STATEMENTS)] == [("grammar-limitation", "warning")] * 3
    check_against_ruby(tmp_path, {"a.rb": PARENTHESIZED_STATEMENTS}, targets=["Jumps"], methods=[("Jumps", m) for m in ("before", "value", "after")])


@pytest.mark.parametrize("case", sorted(GENUINE))
def test_other_errors_stay_syntax_errors(case: str, tmp_path: Path) -> None:
    source = GENUINE[case]
    assert not _ruby_accepts(source, tmp_path)
    codes = {code for code, _, _ in _codes(source)}
    assert "syntax-error" in codes and "grammar-limitation" not in codes


def test_spellings_the_grammar_lacks_are_grammar_limitations(tmp_path: Path) -> None:
    assert _ruby_accepts(SPELLINGS, tmp_path)
    codes = _codes(SPELLINGS)
    assert {code for code, _, _ in codes} == {"grammar-limitation"}, codes
    assert sorted(text for _, _, text in codes) == sorted([";", "defined?", "defined?", ":$:", ":$;", ":$,", "self"])
    methods = [("Spelled", m) for m in ("before", "options", "call_with", "self", "after", "hidden")]
    check_against_ruby(tmp_path, {"a.rb": SPELLINGS}, targets=["Spelled"], methods=methods)
    g = build_graph({"a.rb": SPELLINGS})
    assert all(f"Spelled::{c}" in g for c in ("SQUARE", "LOAD_PATH_NAME", "SEPARATOR"))
    assert g["Spelled#hidden()"].visibility == "private"
