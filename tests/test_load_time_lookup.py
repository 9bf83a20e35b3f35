"""Superclasses and mixins are looked up as Ruby runs them while the file loads.

A constant that the same file defines only further down does not exist yet when a
superclass expression (``class X < Y``, ``Class.new(Y)``) or a mixin argument (``include M``)
is evaluated: Ruby's lookup goes on past it, lexical scopes outward, then ancestors. One
defined by another file, or earlier in the same file, is there. Ruby is the oracle
(``check_against_ruby``); the incremental cases compare an edited graph with a fresh one.
"""

from __future__ import annotations

from test_differential_ruby import check_against_ruby
from test_incremental import dump, fresh

# -- against Ruby ------------------------------------------------------------------------------


def test_class_new_in_a_loop_before_a_nested_class_of_the_same_name(tmp_path):
    """openssl/cipher.rb: ``Class.new(Cipher)`` inside ``class Cipher`` runs before
    ``class Cipher < Cipher`` defines ``Cipher::Cipher``: its superclass is the outer Cipher."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            module OpenSSL
              class Cipher
                %w(AES BF).each { |name|
                  klass = Class.new(Cipher) { }
                  const_set(name, klass)
                }
                Single = Class.new(Cipher) { def kind; end }
                class Cipher < Cipher; end
              end
            end
            """
        },
        targets=["OpenSSL::Cipher::AES", "OpenSSL::Cipher::BF", "OpenSSL::Cipher::Single", "OpenSSL::Cipher::Cipher"],
        methods=[("OpenSSL::Cipher::Single", "kind")],
    )


def test_superclass_defined_further_down_finds_the_outer_one(tmp_path):
    """``class Bar < Foo`` ahead of ``class Foo < Foo`` inside a namespace: both are the
    top-level Foo; so are a compact superclass path and one found through ancestors."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            class Foo; end
            module Util
              class Base; end
            end
            module N
              class Bar < Foo; end
              class Foo < Foo; end
              class Baz < Foo; end
              class Inner < Util::Base; end
              module Util
                class Base; end
              end
              class Later < Util::Base; end
            end
            """
        },
        targets=["N::Bar", "N::Foo", "N::Baz", "N::Inner", "N::Later"],
    )


def test_superclass_found_through_ancestors_when_the_lexical_one_comes_later(tmp_path):
    """The lookup goes on to the ancestors of the innermost scope, past the later constant."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            class Base; end
            class Parent
              class Base; end
              module M; end
            end
            class Child < Parent
              class Sub < Base; end
              include M
              class Base; end
              module M; end
            end
            """
        },
        targets=["Child", "Child::Sub"],
    )


def test_a_definition_in_a_file_loaded_earlier_or_further_up_is_visible(tmp_path):
    """Reopenings count: a constant that an earlier file or an earlier line of the same file
    already defined is there, even when the same file defines it again further down."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            class Base; end
            module M; end
            module N
              class Base; end
              module M; end
            end
            """,
            "b.rb": """
            module N
              class Child < Base; end
              class Mixed
                include M
              end
              class Base; end
              module M; end
            end
            module Q
              class Early; end
              class Uses < Early; end
              class Early; end
            end
            class Early; end
            """,
        },
        targets=["N::Child", "N::Mixed", "Q::Uses"],
    )


def test_mixins_defined_further_down_find_the_outer_module(tmp_path):
    """``include``, ``prepend`` and ``extend`` ahead of a module of the same name: the outer one;
    after it, the inner one."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            module M; end
            module P; end
            module E; end
            class A
              include M
              prepend P
              extend E
              module M; end
              module P; end
              module E; end
              class Inner
                include M
              end
            end
            class B
              module M; end
              include M
            end
            """
        },
        targets=["A", "A::Inner", "B"],
    )


def test_alias_targets_and_external_mixins_are_evaluated_while_the_file_loads(tmp_path):
    """``X = Y`` and ``Foo.include(M)`` ahead of ``module Y`` / ``module M`` in the same
    namespace: the outer ones; after them, the inner ones."""
    check_against_ruby(
        tmp_path,
        {
            "a.rb": """
            module M; end
            module Outer; end
            class Host; end
            module N
              Early = Outer
              Host.include(M)
              module Outer; end
              module M; end
              class Host; end
              Late = Outer
              N::Host.include(M)
            end
            PROBE(1, N::Early)
            PROBE(2, N::Late)
            """
        },
        targets=["Host", "N::Host"],
    )


# -- incremental updates give the graph a fresh resolve gives -----------------------------------

BASE = {
    "file:///lt/a.rb": "class Foo; end\nmodule M; end\n",
    "file:///lt/b.rb": "module N\n  class Bar < Foo\n    include M\n  end\n  class Foo; end\n  module M; end\nend\n",
}


def _edit_matches_fresh(files: dict[str, str], uri: str, text: str) -> str:
    g = fresh(files)
    files = {**files, uri: text}
    g.index_source(uri, text)
    g.resolve()
    assert dump(g) == dump(fresh(files))
    return g.last_resolve


def test_moving_a_definition_above_the_superclass_and_mixin_matches_a_fresh_graph():
    moved = "module N\n  class Foo; end\n  module M; end\n  class Bar < Foo\n    include M\n  end\nend\n"
    _edit_matches_fresh(dict(BASE), "file:///lt/b.rb", moved)
    g = fresh({**BASE, "file:///lt/b.rb": moved})
    assert [a.name for a in g["N::Bar"].ancestors][:3] == ["N::Bar", "N::M", "N::Foo"]


def test_moving_only_an_include_past_the_module_matches_a_fresh_graph():
    """Same definitions in the same order, only the include moves: positions alone decide."""
    text = "module N\n  class Bar < Foo\n    module M; end\n    include M\n  end\n  class Foo; end\nend\n"
    base = {**BASE, "file:///lt/b.rb": "module N\n  class Bar < Foo\n    include M\n    module M; end\n  end\n  class Foo; end\nend\n"}
    assert "M" in [a.name for a in fresh(base)["N::Bar"].ancestors]
    _edit_matches_fresh(base, "file:///lt/b.rb", text)
    assert "N::Bar::M" in [a.name for a in fresh({**base, "file:///lt/b.rb": text})["N::Bar"].ancestors]


def test_a_body_edit_keeps_the_answers():
    text = BASE["file:///lt/b.rb"].replace("class Bar < Foo\n", "class Bar < Foo\n    def x; 1; end\n")
    _edit_matches_fresh(dict(BASE), "file:///lt/b.rb", text)


def test_another_file_reopening_the_later_constant_makes_it_visible():
    """A reopening of ``N::Foo`` added in an earlier file makes ``class Bar < Foo`` find it."""
    text = BASE["file:///lt/a.rb"] + "module N\n  class Foo; end\n  module M; end\nend\n"
    _edit_matches_fresh(dict(BASE), "file:///lt/a.rb", text)
    g = fresh({**BASE, "file:///lt/a.rb": text})
    assert [a.name for a in g["N::Bar"].ancestors][:3] == ["N::Bar", "N::M", "N::Foo"]
    back = _edit_matches_fresh({**BASE, "file:///lt/a.rb": text}, "file:///lt/a.rb", BASE["file:///lt/a.rb"])
    assert back in ("incremental", "full")


def test_references_and_receivers_follow_a_reopening_in_another_file():
    """References and call receivers in a class body also see ``N::Foo`` only once another
    file defines it; adding and removing that reopening refreshes them."""
    base = {
        "file:///lt/a.rb": "class Foo\n  def self.x; end\nend\n",
        "file:///lt/b.rb": "module N\n  Foo.x\n  LIST = [Foo]\n  class Foo\n    def self.x; end\n  end\nend\n",
    }
    g = fresh(base)
    assert {r.declaration.name for r in g.constant_references if r.location.path == "/lt/b.rb" and r.name == "Foo"} == {"Foo"}
    assert {r.receiver.name for r in g.method_references if r.location.path == "/lt/b.rb" and r.name == "x"} == {"Foo::<Foo>"}
    text = base["file:///lt/a.rb"] + "module N\n  class Foo; end\nend\n"
    _edit_matches_fresh(base, "file:///lt/a.rb", text)
    _edit_matches_fresh({**base, "file:///lt/a.rb": text}, "file:///lt/a.rb", base["file:///lt/a.rb"])
    g = fresh({**base, "file:///lt/a.rb": text})
    assert {r.declaration.name for r in g.constant_references if r.location.path == "/lt/b.rb" and r.name == "Foo"} == {"N::Foo"}
