"""Loops over literal lists define what they would at run time: Ruby itself says what."""

from __future__ import annotations

from pathlib import Path

from conftest import build_graph, run_ruby

SOURCE = """
module M; end
module N; end
class Foo
  %i[a b].each do |m|
    define_method("#{m}?") { }
    define_method(m) { }
  end
  attr_reader(*%i[x y])
  %w[p q].each { |n| attr_accessor n }
  [:r, :s].each { |n| alias_method "#{n}_alias", :to_s }
end
class Bar < Foo; end
[Foo, String].each { |k| k.prepend(M) }
[Bar].each { |k| k.include N }
"""

ASK = """
%s
def own(k) = (k.instance_methods(false) + k.private_instance_methods(false)).map(&:to_s).sort
puts own(Foo).join(" ")
puts Foo.ancestors.take(4).map(&:to_s).join(" ")
puts Bar.ancestors.take(4).map(&:to_s).join(" ")
puts String.ancestors.take(2).map(&:to_s).join(" ")
"""


def test_unrolled_loops_match_ruby(tmp_path: Path) -> None:
    lines = run_ruby(ASK % SOURCE, tmp_path).strip().splitlines()
    g = build_graph({"loops.rb": SOURCE})
    methods = sorted(m.unqualified_name.removesuffix("()") for m in g["Foo"].members if m.kind == "Method")
    assert methods == lines[0].split()
    assert [a.name for a in g["Foo"].ancestors][:4] == lines[1].split()
    assert [a.name for a in g["Bar"].ancestors][:4] == lines[2].split()
    assert [a.name for a in g["String"].ancestors][:2] == lines[3].split()
