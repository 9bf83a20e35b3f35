"""``Class.new(Base) { def m; end }`` inside a loop over a literal list: every class the loop
defines gets the block's methods, as in Ruby (rdx.ruby.evaluate.shared). Ruby is the oracle."""

from __future__ import annotations

from pathlib import Path

from conftest import build_graph, run_ruby

from rdx.ruby.discover.parse import discover_source

SOURCE = """
module Kinds
  class Base; end
  %w[Alpha Beta Gamma].each do |name|
    const_set(name, Class.new(Base) do
      include Comparable
      def shared; end
      def helper(x) = x
      private def hidden; end
    end)
  end
  {First: 1, Second: 2}.each do |name, size|
    klass = Class.new(Base) { def sized; end; attr_reader :width }
    const_set("#{name}Kind", klass)
  end
  [:Plain, :Other].each { |n| const_set n, Class.new(Base) }
  def outer; end
end
"""

ASK = """
%s
Kinds.constants.sort.each do |c|
  v = Kinds.const_get(c)
  next unless v.is_a?(Class)
  puts "#{c}:#{v.instance_methods(false).sort.join(',')}:#{v.private_instance_methods(false).sort.join(',')}:#{v.include?(Comparable)}"
end
puts "Kinds:#{Kinds.instance_methods(false).sort.join(',')}:#{Kinds.include?(Comparable)}"
"""


def _bare(name: str) -> str:
    return name.split("(")[0]


def _rdx(g) -> list[str]:
    lines = []
    names = sorted(m.unqualified_name for m in g["Kinds"].members if m.kind == "Class")
    for name in names:
        members = [m for m in g[f"Kinds::{name}"].members if m.kind in ("Method", "AttrReader", "AttrWriter", "AttrAccessor")]
        public = sorted({_bare(m.unqualified_name) for m in members if m.visibility == "public"})
        private = sorted({_bare(m.unqualified_name) for m in members if m.visibility == "private"})
        comparable = any(a.name == "Comparable" for a in g[f"Kinds::{name}"].ancestors)
        lines.append(f"{name}:{','.join(public)}:{','.join(private)}:{str(comparable).lower()}")
    own = sorted(_bare(m.unqualified_name) for m in g["Kinds"].members if m.kind == "Method")
    comparable = any(a.name == "Comparable" for a in g["Kinds"].ancestors)
    lines.append(f"Kinds:{','.join(own)}:{str(comparable).lower()}")
    return lines


def test_each_unrolled_class_gets_the_block_methods(tmp_path: Path) -> None:
    expected = run_ruby(ASK % SOURCE, tmp_path).splitlines()
    g = build_graph({"kinds.rb": SOURCE})
    assert _rdx(g) == expected


def test_unrolled_members_have_distinct_ids() -> None:
    definitions = discover_source("file:///fixture/kinds.rb", SOURCE.encode()).definitions
    shared = [d for d in definitions if d.name == "shared"]
    assert len(shared) == 3
    ids = [d.id for d in definitions]
    assert len(ids) == len(set(ids))


def test_incremental_edit_matches_a_fresh_graph() -> None:
    from test_incremental import dump, fresh

    uri = "file:///fixture/kinds.rb"
    g = fresh({uri: SOURCE}, core=False)
    edited = SOURCE.replace("def shared; end", "def shared; end\n      def added; end")
    g.index_source(uri, edited)
    g.resolve()
    assert "Kinds::Beta#added()" in g and "Kinds::Gamma#added()" in g
    assert dump(g) == dump(fresh({uri: edited}, core=False))
