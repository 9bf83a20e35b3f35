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


CONST_SET = """
class Binary; end
module Nodes
  %w[As Join].each { |n| const_set n, Class.new(Binary) }
  %i[Left Right].each { |n| const_set(n, Module.new) }
  const_set :Plain, 1
  const_set "Named", Struct.new(:a)
end
class Table; end
["Row", :Cell].each { |n| Table.const_set(n, Class.new(Binary)) }
class Shapes
  {circle: 1, "square" => 2, :line => 3}.each { |k, v| define_method(k) { v } }
  {cx: 1, cy: 2}.each_key { |k| attr_reader k }
  {r: 1}.each_pair do |k, _v| define_method("#{k}?") { } end
  %i[w h].each_with_index { |m, i| define_method(m) { i } }
  {Comparable => 1}.each { |k, _| include k }
  {pair: 1}.each { |pair| define_method(:nope) { } }
end
"""

CONST_ASK = """
%s
def own(k) = (k.instance_methods(false) + k.private_instance_methods(false)).map(&:to_s).sort
puts Nodes.constants.sort.join(" ")
puts %%w[Nodes::As Nodes::Join Nodes::Named Table::Row Table::Cell].map { |n| Object.const_get(n).ancestors.take(2).map(&:to_s).join("<") }.join(" ")
puts %%w[Nodes::Left Nodes::Right].map { |n| Object.const_get(n).class }.join(" ")
puts Table.constants.sort.join(" ")
puts own(Shapes).join(" ")
puts Shapes.ancestors.take(2).join(" ")
"""


def test_const_set_and_hash_loops_match_ruby(tmp_path: Path) -> None:
    """``const_set`` (on self or a constant, literal or per element of a literal list) and
    loops over literal hashes (``each``/``each_pair``/``each_key``) define what Ruby defines."""
    lines = run_ruby(CONST_ASK % CONST_SET, tmp_path).strip().splitlines()
    g = build_graph({"const_set.rb": CONST_SET})
    assert sorted(m.unqualified_name for m in g["Nodes"].members if m.kind != "Method" and "<" not in m.unqualified_name) == lines[0].split()
    chains = [f"{n}<{g[n].ancestors[1].name}" for n in ("Nodes::As", "Nodes::Join", "Nodes::Named", "Table::Row", "Table::Cell")]
    assert chains == lines[1].split()
    assert [g[n].kind for n in ("Nodes::Left", "Nodes::Right")] == lines[2].split()
    assert sorted(m.unqualified_name for m in g["Table"].members if m.kind == "Class") == lines[3].split()
    methods = sorted(m.unqualified_name.removesuffix("()") for m in g["Shapes"].members if m.kind == "Method")
    assert methods == lines[4].split()
    assert [a.name for a in g["Shapes"].ancestors][:2] == lines[5].split()


CONSTANT_LISTS = """
module A; end
module B; module C; end; end
module D; end
class K
  MODULES = [
    A,  # a comment between elements

    B::C,
  ].freeze
  MODULES.each do |mod|
    include mod
  end
  [D].each { |m| include m }
end
class L
  NAMES = %i[a b].freeze
  MORE = NAMES + %i[c]
  MORE.each { |n| define_method(n) { } }
  MORE.reverse_each.with_index { |n, i| define_method("never_#{n}") { } }
end
"""

CONSTANT_LISTS_ASK = """
%s
puts K.ancestors.take(5).map(&:to_s).join(" ")
puts L.instance_methods(false).map(&:to_s).sort.join(" ")
"""


def test_loops_over_constants_holding_literal_lists_match_ruby(tmp_path: Path) -> None:
    """``MODULES.each { |m| include m }`` includes once per element, in order (each iteration
    is its own ``include`` call), and ``NAMES.each`` over a constant holding symbols defines
    once per name; ``reverse_each.with_index`` (an enumerator chain) is not unrolled, and Ruby
    does define those methods: FIXME, asserted as rdx's current behaviour."""
    lines = run_ruby(CONSTANT_LISTS_ASK % CONSTANT_LISTS, tmp_path).strip().splitlines()
    g = build_graph({"lists.rb": CONSTANT_LISTS})
    assert [a.name for a in g["K"].ancestors][:5] == lines[0].split()
    methods = sorted(m.unqualified_name.removesuffix("()") for m in g["L"].members if m.kind == "Method")
    assert methods == [m for m in lines[1].split() if not m.startswith("never_")]
    assert any(m.startswith("never_") for m in lines[1].split())


# sequel/model/plugins.rb (Debian's ruby-sequel), cut down: a block with an empty parameter
# list (``do ||``) made the loop registration fail with IndexError, and the whole file was
# lost to an internal-error diagnostic (issue 22).
EMPTY_BLOCK_PARAMETERS = """
module Sequel
  module Plugins
    def self.inherited_instance_variables(mod, hash)
      mod.send(:define_method, :inherited_instance_variables) do ||
        super().merge!(hash)
      end
    end

    [1].each { || }
    %i[a b].each do ||
    end

    def self.after_def_method; end
  end
end
"""


def test_blocks_with_empty_parameter_lists_keep_the_file(tmp_path: Path) -> None:
    from test_differential_ruby import check_against_ruby

    import rdx

    path = tmp_path / "sequel" / "plugins.rb"
    path.parent.mkdir()
    path.write_text(EMPTY_BLOCK_PARAMETERS)
    g = rdx.Graph()
    g.index_all([str(path)])
    g.resolve()
    assert [d.code for d in g.diagnostics] == []
    assert {"Sequel::Plugins::<Plugins>#inherited_instance_variables()", "Sequel::Plugins::<Plugins>#after_def_method()"} <= {d.name for d in g.declarations}
    (tmp_path / "ruby").mkdir()
    check_against_ruby(
        tmp_path / "ruby",
        {"a.rb": EMPTY_BLOCK_PARAMETERS},
        targets=["Sequel::Plugins"],
        methods=[("Sequel::Plugins.singleton_class", "inherited_instance_variables"), ("Sequel::Plugins.singleton_class", "after_def_method")],
    )
