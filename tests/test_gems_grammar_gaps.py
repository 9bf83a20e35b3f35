"""Grammar gaps the top-gems differential found (issue 22; rdx.ruby.discover.gaps): valid Ruby
that tree-sitter-ruby 0.23 cannot parse, met in dnsruby (``(key1<<8)``), rest-client
(``execute(& block)``), pry (``def super(times = 1)``) and representable (``Collect[...].``
then ``(args)`` on the next line). Each is a "grammar-limitation" warning, not a syntax error,
and Ruby is the oracle: ``ruby -c`` says the text is valid, and the classes and methods around
the gap are the ones Ruby defines (``check_against_ruby``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import RUBY, build_graph
from test_differential_ruby import check_against_ruby

from rdx.ruby.discover.parse import discover_source

# Each gap between methods (and a class after it) that the error used to swallow or misplace.
GAPS = """
class Key
  def before; end

  def tag(key1)
    (key1<<8) + key1
  end

  def self.execute(args, & block)
    new.run(& block)
  end

  def run(&block) = block

  def super(times = 1)
    times
  end

  def collect(x)
    [x].
      map { |y| y }
    Kernel.method(:Array).
      (x)
  end

  def after; end
end

class Later < Key
  include Comparable
end
"""


def _ruby_accepts(text: str, tmp_path: Path) -> bool:
    assert RUBY, "ruby is required (make test installs it)"
    path = tmp_path / "check.rb"
    path.write_text(text)
    return subprocess.run([RUBY, "-c", str(path)], capture_output=True, text=True, timeout=60).returncode == 0


def test_gaps_found_in_top_gems_are_grammar_limitations(tmp_path: Path) -> None:
    assert _ruby_accepts(GAPS, tmp_path)
    result = discover_source("file:///x.rb", GAPS.encode())
    source = GAPS.encode()
    found = sorted((d.code, d.severity, source[d.start : d.end].decode()) for d in result.diagnostics)
    assert found == sorted(
        [
            ("grammar-limitation", "warning", "<<"),
            ("grammar-limitation", "warning", " & "),
            ("grammar-limitation", "warning", "& "),
            ("grammar-limitation", "warning", "super"),
            ("grammar-limitation", "warning", ".\n      "),
        ]
    ), found
    methods = [("Key", m) for m in ("before", "tag", "run", "super", "collect", "after")]
    check_against_ruby(tmp_path, {"a.rb": GAPS}, targets=["Key", "Later"], methods=methods)
    g = build_graph({"a.rb": GAPS})
    assert "Key::<Key>#execute()" in g
    assert g["Key#super()"].location.start_line == GAPS.splitlines().index("  def super(times = 1)") + 1


def test_a_shift_read_through_its_stand_in_is_still_a_call_of_the_shift() -> None:
    """The stand-in reads ``>>``; the walk's call record names the operator written."""
    result = discover_source("file:///x.rb", GAPS.encode())
    shifts = [r for r in result.method_refs if r.name in ("<<", ">>")]
    assert [r.name for r in shifts] == ["<<"]
    assert GAPS.encode()[shifts[0].start : shifts[0].end] == b"<<"
