"""``include``/``extend``/``prepend`` in a block act on the block's self (issue 22).

A block keeps the self around it only when rdx knows the method it is given to does: a loop
over a literal list or another core iterator, ``class_eval`` on self. ``Foo.class_eval do`` runs
on Foo, ``Class.new(Base) do`` on a new class (the constant it is assigned to, or an anonymous
class). In the block of any other method (RSpec's ``let``/``describe``/``it``,
``ActiveSupport.on_load``) self is unknown: nothing is mixed into the namespace around it, and
an informative ``mixin-in-block`` diagnostic says so. A call of ``include`` in another call's
arguments (RSpec's ``expect(x).to include(:a)``) is no mixin at all. Ruby is the oracle
(``check_against_ruby``).
"""

from __future__ import annotations

from pathlib import Path

from conftest import build_graph
from test_differential_ruby import check_against_ruby

from rdx.ruby.discover.parse import discover_source


def _codes(files: dict[str, str]) -> list[tuple[int, str, str]]:
    g = build_graph(files)
    return sorted((d.location.start_line, d.code, d.severity) for d in g.diagnostics if d.location is not None)


def test_include_in_a_class_new_block_inside_let_stays_out_of_the_module(tmp_path: Path) -> None:
    """The issue's minimal case (solidus' specs): rdx answered [Spree, Spree::Helper]."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            module Spree
              module Helper; end
              def self.let(*) = nil
              let(:k) do
                Class.new(Object) do
                  include Helper
                end
              end
            end
            """
        },
        targets=["Spree"],
    )


SPEC_LIKE = """
module Suite
  def self.describe(*, &block) = Class.new(Object, &block)
end
module Shop
  module Helpers; end
  module Matchers; end
  def self.describe(*, &block) = Suite.describe(&block)
  describe "cart" do
    include Helpers
    extend Matchers
    prepend Matchers
  end
  Suite.describe "order" do
    include Matchers
  end
end
Suite.describe "top level" do
  include Shop::Helpers
end
"""


def test_describe_blocks_never_change_production_namespaces(tmp_path: Path) -> None:
    """RSpec's ``describe`` runs its block in a new example group class: Shop (and Object)
    keep their own chains, and each left-out call gets an informative diagnostic."""
    check_against_ruby(tmp_path, {"a.rb": SPEC_LIKE}, targets=["Shop", "Object"])
    lines = SPEC_LIKE.splitlines()
    expected = [(n, "mixin-in-block", "info") for n, line in enumerate(lines, 1) if line.strip().startswith(("include", "extend", "prepend"))]
    assert _codes({"a.rb": SPEC_LIKE}) == expected


MODELLED = """
module M1; end
module M2; end
module M3; end
class Base; end
module Kit
  [M1, M2].each { |m| include m }
  Made = Class.new(Base) do
    include M3
  end
  Mod = Module.new do
    include M1
  end
  %w[A B].each { |n| const_set(n, Class.new(Base) { include M2 }) }
  %w[C].each do |n|
    klass = Class.new(Base) { include M3 }
    const_set(n, klass)
  end
  class_eval do
    include M3
  end
  Base.class_eval do
    include M2
  end
  Class.new(Base) do
    include M1
  end
end
"""


def test_blocks_rdx_models_keep_their_mixins(tmp_path: Path) -> None:
    """Loops over literal lists and ``class_eval`` on self keep self; ``Foo = Class.new do``,
    ``Module.new do`` and classes a loop or a local passes to ``const_set`` get their block's
    mixins; ``Base.class_eval do`` mixes into Base; a class no constant names takes its own."""
    check_against_ruby(tmp_path, {"a.rb": MODELLED}, targets=["Kit", "Kit::Made", "Kit::Mod", "Kit::A", "Kit::B", "Kit::C", "Base"])
    assert _codes({"a.rb": MODELLED}) == []


def test_a_top_level_loop_includes_into_object(tmp_path: Path) -> None:
    """At top level a loop keeps main as self: ``include`` reaches Object, ``extend`` only main."""
    check_against_ruby(
        tmp_path,
        {"a.rb": "module Tool; end\nmodule Other; end\n[Tool].each { |m| include m }\n[Other].each { |m| extend m }\nclass Thing; end\n"},
        targets=["Thing", "Object"],
    )


RSPEC_MATCHERS = """
module Checks
  module Z; end
  def self.it(*) = nil
  it "has" do
    expect([1]).to include(1)
    expect({a: 1}).to include(a: 1)
    expect(list).to include(Z)
    is_expected.to include(Z).and include(1)
    expect(list).to all(include(:a))
  end
end
"""


def test_include_matchers_are_no_mixins(tmp_path: Path) -> None:
    """``include`` in another call's arguments (RSpec's matcher) is no mixin: no dynamic-mixin
    warning located in its arguments, and no mixin-in-block note either."""
    check_against_ruby(tmp_path, {"a.rb": RSPEC_MATCHERS}, targets=["Checks"])
    assert _codes({"a.rb": RSPEC_MATCHERS}) == []


def test_mixins_with_a_receiver_or_in_arguments_record_nothing() -> None:
    source = b"""
module N
  module Z; end
  foo.include(Z)
  object.extend(Z)
  expect(N).to include(Z)
end
"""
    result = discover_source("file:///x.rb", source)
    assert all(not d.mixins for d in result.definitions)
    assert result.external_mixins == [] and result.diagnostics == []


def test_the_diagnostic_names_the_method_and_the_namespace() -> None:
    result = discover_source("file:///x.rb", b"module Shop\n  ActiveSupport.on_load(:active_record) { include Shop }\nend\n")
    [diagnostic] = result.diagnostics
    assert diagnostic.code == "mixin-in-block" and diagnostic.severity == "info"
    assert "'on_load'" in diagnostic.message and "Shop" in diagnostic.message
    assert all(not d.mixins for d in result.definitions)


def test_mixins_in_refine_blocks_change_no_ancestors(tmp_path: Path) -> None:
    """``refine X do include M end`` (Sequel's core_refinements: ``send include_meth, M`` where
    ``include_meth`` is ``:import_methods`` or ``:include``) acts on an anonymous refinement
    module, never on X: String's and Symbol's chains stay Ruby's, whether or not the
    refinement is activated with ``using``."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            module AliasMethods; end
            module CastMethods; end
            module CoreRefinements
              include_meth = RUBY_VERSION >= '3.1' ? :import_methods : :include
              refine String do
                send include_meth, AliasMethods
                send include_meth, CastMethods
              end
              refine Symbol do
                include CastMethods
                prepend AliasMethods
              end
            end
            using CoreRefinements
            """
        },
        targets=["String", "Symbol", "CoreRefinements"],
    )
