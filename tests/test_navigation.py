"""Navigation queries: references, go to definition, hover, completion, dead code."""

from __future__ import annotations

import pytest
from conftest import build_graph

import rdx

FILES = {
    "/nav/lib/shop.rb": """\
require_relative "shop/product"
module Shop
  # Builds products.
  class Factory
    def self.make(name) = Product.new(name)
  end
  Item = Product
end
""",
    "/nav/lib/shop/product.rb": """\
module Shop
  class Product
    attr_reader :name
    def initialize(name)
      @name = name
    end

    # The label shown in lists.
    def label(width = 10)
      name.ljust(width)
    end

    def unused_helper; end
  end

  class Special < Product
    def label(width = 20) = super
  end
end
""",
    "/nav/app.rb": """\
p1 = Shop::Item.new("a")
p1.label
Shop::Product.new("b").label(3)
Shop::Special.new("c").label
thing.label
Shop::
Shop::Product.n
""",
}


@pytest.fixture(scope="module")
def g():
    graph = rdx.Graph()
    for path, text in FILES.items():
        graph.index_source(path, text)
    graph.resolve()
    return graph


def where(locations):
    return [(loc.path.rsplit("/", 1)[1], loc.start_line, loc.start_column) for loc in locations]


def test_constant_references_include_aliases_and_compact_paths(g):
    refs = g.references_to("Shop::Product")
    # Documents come in load order: app.rb, then product.rb (required by shop.rb), then shop.rb.
    # Line 7 of app.rb follows the incomplete "Shop::" and parses as part of it.
    assert where(r.location for r in refs) == [
        ("app.rb", 1, 5),  # Shop::Item, an alias of Product
        ("app.rb", 3, 0),  # Shop::Product
        ("product.rb", 16, 18),  # class Special < Product
        ("shop.rb", 5, 26),  # Product inside Shop::Factory
        ("shop.rb", 7, 9),  # Item = Product
    ]
    assert all(r.kind == "constant" and r.certain for r in refs)


def test_method_references_certain_and_possible(g):
    refs = g.references_to("Shop::Product#label()")
    certain = sorted(where(r.location for r in refs if r.certain))
    possible = sorted(where(r.location for r in refs if not r.certain))
    # Product.new(...).label reaches Product#label; Special overrides it, so its call does not.
    assert certain == [("app.rb", 3, 23)]
    # p1.label and thing.label: receivers rdx cannot type, so name-only matches.
    assert possible == [("app.rb", 2, 3), ("app.rb", 5, 6)]
    overriding = g.references_to("Shop::Special#label()")
    assert sorted(where(r.location for r in overriding if r.certain)) == [("app.rb", 4, 23)]


def test_bare_call_inside_the_class_is_a_certain_reference(g):
    refs = g.references_to("Shop::Product#name()")
    assert ("product.rb", 10, 6) in where(r.location for r in refs if r.certain)


def test_definition_at_constant_alias_method_and_require(g):
    target = g.definition_at("/nav/app.rb", 1, 12)  # on Item of Shop::Item
    assert target.name == "Shop::Product" and target.kind == "Class"
    assert where(target.locations) == [("product.rb", 2, 2)]
    target = g.definition_at("/nav/app.rb", 3, 25)  # .label on Product.new(...)
    assert target.name == "Shop::Product#label()"
    assert where(target.locations) == [("product.rb", 9, 4)]
    target = g.definition_at("/nav/lib/shop.rb", 1, 5)  # require_relative "shop/product"
    assert target.kind == "Document" and target.locations[0].path == "/nav/lib/shop/product.rb"
    target = g.definition_at("/nav/app.rb", 5, 7)  # thing.label: unknown receiver, all candidates
    assert sorted(where(target.locations)) == [("product.rb", 9, 4), ("product.rb", 17, 4)]
    assert g.definition_at("/nav/app.rb", 2, 0) is None  # p1 is a local variable: nothing to go to
    assert g.definition_at("/nav/nowhere.rb", 1, 0) is None


def test_hover_shows_signature_owner_comments_and_ancestors(g):
    hover = g.hover_at("/nav/lib/shop/product.rb", 9, 9)  # def label
    assert hover.name == "Shop::Product#label()" and hover.signature == "(width = 10)"
    assert hover.owner == "Shop::Product" and hover.comments == ["# The label shown in lists."]
    hover = g.hover_at("/nav/app.rb", 4, 7)  # Special
    assert hover.kind == "Class" and hover.ancestors[:3] == ["Shop::Special", "Shop::Product", "Object"]


def test_completion_after_scope_operator_and_dot(g):
    labels = [c.label for c in g.completions_at("/nav/app.rb", 6, 6)]  # "Shop::"
    assert labels[:4] == ["Item", "Factory", "Product", "Special"]  # constants first, shorter first
    labels = [c.label for c in g.completions_at("/nav/app.rb", 7, 15)]  # "Shop::Product.n"
    assert labels[0] == "new" and all(label.startswith("n") for label in labels)


def test_completion_in_scope_prefers_exact_prefix(g):
    labels = [c.label for c in g.completions_at("/nav/lib/shop/product.rb", 10, 8)]  # "na" in label's body
    assert labels[0] == "name"


def test_dead_code_candidates(g):
    names = [d.name for d in g.dead_code_candidates()]
    assert "Shop::Product#unused_helper()" in names
    assert "Shop::Product#label()" not in names  # called
    assert "Shop::Product#initialize()" not in names  # called by Ruby itself
    assert "Shop::Factory" in names  # never referenced
    assert not any(n.startswith(("Kernel", "Object#", "Comparable")) for n in names)  # core excluded


def test_bad_positions_are_invalid_arguments(g):
    for args in [("/nav/app.rb", 0, 0), ("/nav/app.rb", 1, -1), (5, 1, 1), ("/nav/app.rb", "1", 0)]:
        with pytest.raises(rdx.InvalidArgumentError):
            g.definition_at(*args)


def test_navigation_answers_carry_the_revision():
    g = build_graph({"a.rb": "class Foo\n  def bar; end\nend\nFoo.new.bar\n"})
    rev = g.revision
    refs = g.references_to("Foo")
    target = g.definition_at("file:///fixture/a.rb", 4, 0)
    hover = g.hover_at("file:///fixture/a.rb", 1, 6)
    assert refs and all(r.revision == rev for r in refs)
    assert target is not None and target.revision == rev
    assert hover is not None and hover.revision == rev
    g.index_source("file:///fixture/b.rb", "class Baz; end\n")
    assert g.references_to("Foo")[0].revision == g.revision > rev


def test_references_include_the_prefixes_of_longer_paths() -> None:
    """``M::Thing::CONST`` uses ``M::Thing`` and ``M`` too (an owner named as written)."""
    g = rdx.Graph()
    g.index_source("file:///a.rb", "module M\n  class Thing\n    CONST = 1\n  end\nend\nM::Thing::CONST\n::M::Thing\nx = M::Thing.new\n")
    g.resolve()
    assert [(r.name, str(r.location)) for r in g.references_to("M::Thing")] == [
        ("M::Thing", "/a.rb:6:0-6:8"), ("M::Thing", "/a.rb:7:0-7:10"), ("M::Thing", "/a.rb:8:4-8:12"),
    ]
    assert [str(r.location) for r in g.references_to("M")] == ["/a.rb:6:0-6:1", "/a.rb:7:0-7:3", "/a.rb:8:4-8:5"]
    assert [str(r.location) for r in g.references_to("M::Thing::CONST")] == ["/a.rb:6:0-6:15"]


def test_diagnostics_of_one_document_are_its_share_of_all() -> None:
    g = rdx.Graph()
    g.index_source("file:///a.rb", "class A\n  def x(\nend\nFoo::Missing\n")
    g.index_source("file:///b.rb", "class B < Nope; end\n")
    everything = [str(d) for d in g.diagnostics]
    per_document = [str(d) for uri in ("file:///a.rb", "file:///b.rb") for d in g.diagnostics_of(uri)]
    assert sorted(per_document) == sorted(everything) and everything
    assert all(d.path == "/a.rb" for d in g.diagnostics_of("file:///a.rb"))
