"""Discovery and the declarations built from it, checked against small inline fixtures.

Every case states its Ruby source and the exact answer expected (Rubydex naming: ``Foo::Bar``,
``Foo#bar()``, ``Foo::<Foo>#bar()``, ``Foo#@ivar``, ``Foo#@@cvar``, ``$g``). Cases where rdx
gives a wrong answer today are marked ``xfail(strict=True)`` with a FIXME so they flip to a
failure the moment the behaviour changes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import rdx
from rdx.ruby.discover.parse import discover_source

FIXTURE = "file:///fixture/"


def graph(src: str | dict[str, str], core: bool = True) -> rdx.Graph:
    """A resolved graph of one source (``a.rb``) or of several named files."""
    files = {"a.rb": src} if isinstance(src, str) else src
    g = rdx.Graph(core=core)
    for name in sorted(files):
        g.index_source(FIXTURE + name, textwrap.dedent(files[name]))
    g.resolve()
    return g


def fixture_const_refs(g: rdx.Graph) -> list[rdx.ConstantReference]:
    return [r for r in g.constant_references if r.location.uri.startswith(FIXTURE)]


def fixture_method_refs(g: rdx.Graph) -> list[rdx.MethodReference]:
    return [r for r in g.method_references if r.location.uri.startswith(FIXTURE)]


def loc(location: rdx.Location) -> tuple[str, int, int, int, int]:
    return (location.path, location.start_line, location.start_column, location.end_line, location.end_column)


# ---------------------------------------------------------------------------------------------
# Declaration names and kinds, one row per definition kind.
# Each case: (source, {declaration name: declaration kind}, names that must NOT be declared).
# ---------------------------------------------------------------------------------------------

DECLARATION_CASES = {
    "class-and-module": (
        """
        module Outer
          class Inner
          end
          module Deep
          end
        end
        class Outer::Compact
        end
        class ::Top
        end
        """,
        {
            "Outer": "Module",
            "Outer::Inner": "Class",
            "Outer::Deep": "Module",
            "Outer::Compact": "Class",
            "Top": "Class",
            # Every class and module gets its singleton class.
            "Outer::<Outer>": "SingletonClass",
            "Outer::Inner::<Inner>": "SingletonClass",
        },
        ["Inner", "Compact", "Outer::Top", "Deep"],
    ),
    "singleton-class-self": (
        """
        class Foo
          class << self
            def cm; end
          end
        end
        """,
        {"Foo::<Foo>": "SingletonClass", "Foo::<Foo>#cm()": "Method"},
        ["Foo#cm()"],
    ),
    "singleton-class-of-constant": (
        """
        class Foo
        end
        class << Foo
          def other; end
        end
        """,
        {"Foo::<Foo>": "SingletonClass", "Foo::<Foo>#other()": "Method"},
        ["Object#other()", "Foo#other()"],
    ),
    "singleton-method-inside-singleton-class": (
        """
        class Foo
          class << self
            def self.meta; end
          end
        end
        """,
        {"Foo::<Foo>::<<Foo>>#meta()": "Method"},
        ["Foo::<Foo>#meta()"],
    ),
    "constant": (
        """
        module M
          X = 1
          LIST = [1, 2].freeze
        end
        TOP = "t"
        """,
        {"M::X": "Constant", "M::LIST": "Constant", "TOP": "Constant"},
        ["X", "LIST"],
    ),
    "constant-aliases": (
        """
        class Target; end
        module N
          class Inner; end
        end
        Plain = Target
        Scoped = N::Inner
        OrAssign ||= Target
        Chain = Middle = Target
        """,
        {
            "Plain": "ConstantAlias",
            "Scoped": "ConstantAlias",
            "OrAssign": "ConstantAlias",
            "Chain": "ConstantAlias",
            "Middle": "ConstantAlias",
        },
        [],
    ),
    "methods": (
        """
        class Foo
          def plain; end
          def self.on_self; end
          def Foo.on_name; end
          def ==(other); end
          def <=>(other); end
          def +(other); end
          def -@; end
          def [](i); end
          def []=(i, v); end
          def value=(v); end
          def ready?; end
          def save!; end
        end
        def Foo.outside; end
        def toplevel; end
        """,
        {
            "Foo#plain()": "Method",
            "Foo::<Foo>#on_self()": "Method",
            "Foo::<Foo>#on_name()": "Method",
            "Foo#==()": "Method",
            "Foo#<=>()": "Method",
            "Foo#+()": "Method",
            "Foo#-@()": "Method",
            "Foo#[]()": "Method",
            "Foo#[]=()": "Method",
            "Foo#value=()": "Method",
            "Foo#ready?()": "Method",
            "Foo#save!()": "Method",
            "Foo::<Foo>#outside()": "Method",
            "Object#toplevel()": "Method",
        },
        ["Foo#on_self()", "Foo#outside()", "Foo#value()"],
    ),
    "nested-def-goes-to-the-enclosing-class": (
        """
        class Foo
          def outer
            def inner; end
          end
        end
        """,
        {"Foo#outer()": "Method", "Foo#inner()": "Method"},
        ["Foo#outer()#inner()"],
    ),
    "define-method": (
        """
        class Foo
          define_method(:dyn) { 1 }
          define_method("dyn_str") { 2 }
        end
        """,
        {"Foo#dyn()": "Method", "Foo#dyn_str()": "Method"},
        [],
    ),
    "attributes": (
        """
        class Foo
          attr_reader :r1, :r2
          attr_writer :w
          attr_accessor :acc
          attr :old_style
          attr_reader "from_string"
        end
        """,
        {
            "Foo#r1()": "Method",
            "Foo#r2()": "Method",
            "Foo#w=()": "Method",
            "Foo#acc()": "Method",
            "Foo#acc=()": "Method",
            "Foo#old_style()": "Method",
            "Foo#from_string()": "Method",
        },
        ["Foo#r1=()", "Foo#w()", "Foo#old_style=()"],
    ),
    "attributes-in-singleton-class": (
        """
        class Foo
          class << self
            attr_accessor :config
          end
        end
        """,
        {"Foo::<Foo>#config()": "Method", "Foo::<Foo>#config=()": "Method"},
        ["Foo#config()"],
    ),
    "method-aliases": (
        """
        class Foo
          def orig; end
          alias bare_alias orig
          alias :sym_alias :orig
          alias_method :am_alias, :orig
          alias_method "str_alias", "orig"
        end
        """,
        {
            "Foo#bare_alias()": "Method",
            "Foo#sym_alias()": "Method",
            "Foo#am_alias()": "Method",
            "Foo#str_alias()": "Method",
        },
        [],
    ),
    "globals": (
        """
        $counter = 0
        class Foo
          def bump
            $in_method = 1
          end
        end
        alias $aliased $counter
        """,
        {"$counter": "GlobalVariable", "$in_method": "GlobalVariable", "$aliased": "GlobalVariable"},
        ["Foo#$in_method", "Object#$counter"],
    ),
    "instance-variables": (
        """
        class Foo
          @in_body = 1
          def initialize
            @in_method = 1
            [1].each { @in_block = 2 }
          end
          def self.build
            @in_singleton_method = 1
          end
        end
        def Foo.external
          @in_external = 1
        end
        """,
        {
            "Foo#@in_method": "InstanceVariable",
            "Foo#@in_block": "InstanceVariable",
            "Foo::<Foo>#@in_body": "InstanceVariable",
            "Foo::<Foo>#@in_singleton_method": "InstanceVariable",
            "Foo::<Foo>#@in_external": "InstanceVariable",
        },
        ["Foo#@in_body", "Foo#@in_singleton_method", "Foo#initialize()#@in_method"],
    ),
    "class-variables": (
        """
        class Foo
          @@in_body = 1
          def m
            @@in_method = 2
          end
          def self.s
            @@in_singleton_method = 3
          end
          class << self
            @@in_singleton_class = 4
            def t
              @@in_singleton_class_method = 5
            end
          end
        end
        """,
        {
            "Foo#@@in_body": "ClassVariable",
            "Foo#@@in_method": "ClassVariable",
            "Foo#@@in_singleton_method": "ClassVariable",
            "Foo#@@in_singleton_class": "ClassVariable",
            "Foo#@@in_singleton_class_method": "ClassVariable",
        },
        ["Foo::<Foo>#@@in_singleton_class", "Foo::<Foo>#@@in_singleton_method"],
    ),
    "class-new": (
        """
        class Base; end
        Foo = Class.new(Base) do
          def from_block; end
        end
        """,
        {"Foo": "Class", "Foo#from_block()": "Method", "Foo::<Foo>": "SingletonClass"},
        ["Object#from_block()"],
    ),
    "module-new": (
        """
        Helpers = Module.new do
          def helper; end
        end
        """,
        {"Helpers": "Module", "Helpers#helper()": "Method"},
        ["Object#helper()"],
    ),
    "struct-new": (
        """
        Point = Struct.new(:a, :b) do
          def dist; end
        end
        class Pair < Struct.new(:left)
        end
        """,
        {
            "Point": "Class",
            "Point#a()": "Method",
            "Point#a=()": "Method",
            "Point#b()": "Method",
            "Point#b=()": "Method",
            "Point#dist()": "Method",
            "Pair": "Class",
            "Pair#left()": "Method",
            "Pair#left=()": "Method",
        },
        [],
    ),
    "data-define": (
        """
        Coord = Data.define(:x, :y)
        """,
        {"Coord": "Class", "Coord#x()": "Method", "Coord#y()": "Method"},
        ["Coord#x=()", "Coord#y=()"],
    ),
}


@pytest.mark.parametrize("case", sorted(DECLARATION_CASES))
def test_declaration_names_and_kinds(case):
    src, expected, absent = DECLARATION_CASES[case]
    g = graph(src)
    actual = {name: g[name].kind for name in expected if name in g}
    assert actual == expected
    for name in absent:
        assert name not in g, f"{name} should not be declared"


# Definition kinds as discovery records them, in source order, for one declaration each.
DEFINITION_KIND_CASES = [
    ("class Foo; end", "Foo", ["Class"]),
    ("module Foo; end", "Foo", ["Module"]),
    ("class Foo; class << self; end; end", "Foo::<Foo>", ["SingletonClass"]),
    ("X = 1", "X", ["Constant"]),
    ("class B; end\nX = B", "X", ["ConstantAlias"]),
    ("module M\n  X = 1\n  private_constant :X\nend", "M::X", ["Constant", "ConstantVisibility"]),
    ("module M\n  X = 1\n  public_constant :X\nend", "M::X", ["Constant", "ConstantVisibility"]),
    ("def foo; end", "Object#foo()", ["Method"]),
    ("class Foo\n  def m; end\n  private :m\nend", "Foo#m()", ["Method", "MethodVisibility"]),
    ("class Foo\n  attr_reader :r\nend", "Foo#r()", ["AttrReader"]),
    ("class Foo\n  attr :r\nend", "Foo#r()", ["AttrReader"]),
    ("class Foo\n  attr_writer :w\nend", "Foo#w=()", ["AttrWriter"]),
    ("class Foo\n  attr_accessor :a\nend", "Foo#a()", ["AttrAccessor"]),
    ("class Foo\n  attr_accessor :a\nend", "Foo#a=()", ["AttrAccessor"]),
    ("class Foo\n  def a; end\n  alias b a\nend", "Foo#b()", ["MethodAlias"]),
    ("class Foo\n  def a; end\n  alias_method :b, :a\nend", "Foo#b()", ["MethodAlias"]),
    ("$g = 1", "$g", ["GlobalVariable"]),
    ("$g = 1\nalias $h $g", "$h", ["GlobalVariableAlias"]),
    ("class Foo\n  def m; @x = 1; end\nend", "Foo#@x", ["InstanceVariable"]),
    ("class Foo\n  @@c = 1\nend", "Foo#@@c", ["ClassVariable"]),
    ("Foo = Class.new", "Foo", ["Class"]),
    ("Foo = Module.new", "Foo", ["Module"]),
    ("Foo = Struct.new(:a)", "Foo", ["Class"]),
    ("Foo = Data.define(:a)", "Foo", ["Class"]),
    ("class Foo; end\nclass Foo; end", "Foo", ["Class", "Class"]),
]


@pytest.mark.parametrize("src,name,kinds", DEFINITION_KIND_CASES, ids=[c[0].replace("\n", " | ")[:60] for c in DEFINITION_KIND_CASES])
def test_definition_kinds(src, name, kinds):
    g = graph(src)
    assert [d.kind for d in g[name].definitions] == kinds
    for d in g[name].definitions:
        if d.kind == "AttrAccessor":
            # One definition declares both the reader and the writer.
            assert d.declaration in (g["Foo#a()"], g["Foo#a=()"])
        else:
            assert d.declaration == g[name]


def test_every_definition_kind_is_covered():
    covered = {k for _, _, kinds in DEFINITION_KIND_CASES for k in kinds}
    from rdx.model.records import DEFINITION_KINDS

    assert covered == set(DEFINITION_KINDS)


# ---------------------------------------------------------------------------------------------
# Visibility
# ---------------------------------------------------------------------------------------------

VISIBILITY_CASES = {
    "bare-keywords": (
        """
        class Foo
          def pub; end
          private
          def priv; end
          protected
          def prot; end
          public
          def pub_again; end
        end
        """,
        {"Foo#pub()": "public", "Foo#priv()": "private", "Foo#prot()": "protected", "Foo#pub_again()": "public"},
    ),
    "retroactive-symbol-arguments": (
        """
        class Foo
          def a; end
          def b; end
          def c; end
          def d; end
          private :a, :b
          protected :c
          private
          def e; end
          public :e
        end
        """,
        {"Foo#a()": "private", "Foo#b()": "private", "Foo#c()": "protected", "Foo#d()": "public", "Foo#e()": "public"},
    ),
    "string-and-array-arguments": (
        """
        class Foo
          def a; end
          def b; end
          def c; end
          private "a"
          private [:b, :c]
        end
        """,
        {"Foo#a()": "private", "Foo#b()": "private", "Foo#c()": "private"},
    ),
    "inline-def": (
        """
        class Foo
          private def hidden; end
          protected def guarded; end
          def still_public; end
        end
        """,
        {"Foo#hidden()": "private", "Foo#guarded()": "protected", "Foo#still_public()": "public"},
    ),
    "attributes-follow-the-default": (
        """
        class Foo
          attr_reader :open
          private
          attr_reader :closed
          public
          private attr_accessor :inline
          attr_writer :after_inline
        end
        """,
        {
            "Foo#open()": "public",
            "Foo#closed()": "private",
            "Foo#inline()": "private",
            "Foo#inline=()": "private",
            "Foo#after_inline=()": "public",
        },
    ),
    "private-does-not-touch-singleton-methods": (
        """
        class Foo
          private
          def self.still_public; end
          def inst; end
        end
        """,
        {"Foo::<Foo>#still_public()": "public", "Foo#inst()": "private"},
    ),
    "private-inside-singleton-class": (
        """
        class Foo
          class << self
            def open; end
            private
            def closed; end
          end
        end
        """,
        {"Foo::<Foo>#open()": "public", "Foo::<Foo>#closed()": "private"},
    ),
    "scopes-do-not-leak": (
        """
        class Foo
          private
          class Inner
            def inner_m; end
          end
          def after_inner; end
        end
        class Foo
          def reopened; end
        end
        """,
        {"Foo::Inner#inner_m()": "public", "Foo#after_inner()": "private", "Foo#reopened()": "public"},
    ),
    "private-in-method-body-has-no-effect": (
        """
        class Foo
          def setup
            private
          end
          def after; end
        end
        """,
        {"Foo#setup()": "public", "Foo#after()": "public"},
    ),
    "module-function-bare": (
        """
        module Util
          def before; end
          module_function
          def helper; end
        end
        """,
        {"Util#before()": "public", "Util#helper()": "private", "Util::<Util>#helper()": "public"},
    ),
    "module-function-with-arguments": (
        """
        module Util
          def a; end
          def b; end
          module_function :a
        end
        """,
        {"Util#a()": "private", "Util::<Util>#a()": "public", "Util#b()": "public"},
    ),
    "private-class-method": (
        """
        class Foo
          def self.secret; end
          def self.open; end
          private_class_method :secret
          private_class_method def self.inline_secret; end
          private_class_method :new
        end
        """,
        {
            "Foo::<Foo>#secret()": "private",
            "Foo::<Foo>#open()": "public",
            "Foo::<Foo>#inline_secret()": "private",
            # Ruby copies the inherited Class#new into Foo's singleton class as private.
            "Foo::<Foo>#new()": "private",
        },
    ),
    "public-class-method": (
        """
        class Foo
          class << self
            private
            def hidden; end
          end
          public_class_method :hidden
        end
        """,
        {"Foo::<Foo>#hidden()": "public"},
    ),
    "top-level-methods-are-private": (
        """
        def helper; end
        """,
        {"Object#helper()": "private"},
    ),
    "private-constant": (
        """
        module M
          Hidden = 1
          Shown = 2
          class Klass; end
          private_constant :Hidden, :Klass
          public_constant :Shown
        end
        """,
        {"M::Hidden": "private", "M::Klass": "private", "M::Shown": "public"},
    ),
    # Ruby: an alias copies the method entry, visibility included.
    "alias-of-private-method": pytest.param(
        """
        class Foo
          def a; end
          private :a
          alias_method :b, :a
          alias c a
        end
        """,
        {"Foo#a()": "private", "Foo#b()": "private", "Foo#c()": "private"},
    ),
    # Ruby: ``def Foo.x`` / ``def self.x`` define public singleton methods, even at top level.
    "top-level-singleton-method-is-public": pytest.param(
        """
        class Foo; end
        def Foo.build; end
        """,
        {"Foo::<Foo>#build()": "public"},
    ),
    # Ruby: a def nested in a method body defines a public method whatever the class default.
    "nested-def-is-public": pytest.param(
        """
        class Foo
          private
          def outer
            def inner; end
          end
        end
        """,
        {"Foo#outer()": "private", "Foo#inner()": "public"},
    ),
}


def _visibility_param(case_id):
    case = VISIBILITY_CASES[case_id]
    if hasattr(case, "marks"):  # already a pytest.param carrying an xfail
        return pytest.param(*case.values, id=case_id, marks=case.marks)
    return pytest.param(*case, id=case_id)


@pytest.mark.parametrize("src,expected", [_visibility_param(c) for c in VISIBILITY_CASES])
def test_visibility(src, expected):
    g = graph(src)
    assert {name: g[name].visibility for name in expected if name in g} == expected


def test_visibility_definitions_are_attached_in_order():
    g = graph(
        """
        class Foo
          def a; end
          private :a
          public :a
        end
        """
    )
    assert [d.kind for d in g["Foo#a()"].definitions] == ["Method", "MethodVisibility", "MethodVisibility"]
    assert [d.visibility for d in g["Foo#a()"].definitions][1:] == ["private", "public"]
    assert g["Foo#a()"].visibility == "public"


# ---------------------------------------------------------------------------------------------
# Comments, nesting, superclass, mixins, targets
# ---------------------------------------------------------------------------------------------


def test_comments_attach_to_the_definition_below():
    g = graph(
        """
        # Docs for Foo
        # second line
        class Foo
          # documents m
          def m; end

          # separated by a blank line

          def undocumented; end
          x = 1 # trailing comment
          def after_trailing; end
          # a constant
          K = 1
          # an attribute
          attr_reader :r
          # an alias
          alias_method :m2, :m
        end
        """
    )
    expected = {
        "Foo": ["# Docs for Foo", "# second line"],
        "Foo#m()": ["# documents m"],
        "Foo#undocumented()": [],
        "Foo#after_trailing()": [],
        "Foo::K": ["# a constant"],
        "Foo#r()": ["# an attribute"],
        "Foo#m2()": ["# an alias"],
    }
    assert {name: g[name].definitions[0].comments for name in expected} == expected
    assert g["Foo"].comments == expected["Foo"]


def test_comments_from_every_definition_are_merged():
    g = graph({"a.rb": "# first\nclass Foo; end\n", "b.rb": "# second\nclass Foo; end\n"})
    assert g["Foo"].comments == ["# first", "# second"]


def test_lexical_nesting():
    g = graph(
        """
        module A
          module B; end
          class B::C
            module D
              def m; end
              X = 1
            end
          end
        end
        def top; end
        """,
    )
    assert g["A"].definitions[0].lexical_nesting == []
    assert g["A::B::C"].definitions[0].lexical_nesting == ["A"]
    assert g["A::B::C::D#m()"].definitions[0].lexical_nesting == ["A", "B::C", "D"]
    assert g["A::B::C::D::X"].definitions[0].lexical_nesting == ["A", "B::C", "D"]
    assert g["Object#top()"].definitions[0].lexical_nesting == []


def test_compact_name_scope_is_resolved_lexically():
    g = graph(
        """
        module A
          module B; end
          class B::C; end
        end
        """
    )
    assert g["A::B::C"].kind == "Class"
    assert "B" not in g and "B::C" not in g


def test_superclass_as_written_and_resolved():
    g = graph(
        """
        module Lib
          class Base; end
          class Child < Base; end
          class Scoped < ::Lib::Base; end
        end
        Anon = Class.new(Lib::Base)
        Rec = Struct.new(:a)
        class Plain; end
        """
    )
    cases = {
        "Lib::Child": ("Base", "Lib::Base"),
        "Lib::Scoped": ("::Lib::Base", "Lib::Base"),
        "Anon": ("Lib::Base", "Lib::Base"),
        "Rec": ("Struct", "Struct"),
        "Plain": (None, "Object"),
    }
    actual = {name: (g[name].definitions[0].superclass, g[name].superclass.name) for name in cases}
    assert actual == cases


def test_mixins_keep_argument_order():
    g = graph(
        """
        module A; end
        module B; end
        module C; end
        module D; end
        class Foo
          include A, B
          extend C
          prepend D
          include C
        end
        module Selfish
          extend self
        end
        """
    )
    mixins = [(m.kind, m.name) for m in g["Foo"].definitions[0].mixins]
    assert mixins == [("include", "A"), ("include", "B"), ("extend", "C"), ("prepend", "D"), ("include", "C")]
    assert [(m.kind, m.name) for m in g["Selfish"].definitions[0].mixins] == [("extend", "self")]
    assert g["Selfish"] in g["Selfish::<Selfish>"].ancestors
    # Ruby inserts the arguments of one include so that the first ends up first.
    assert [a.name for a in g["Foo"].ancestors][:5] == ["D", "Foo", "C", "A", "B"]


def test_constant_alias_targets():
    g = graph(
        """
        class Target; end
        module N
          class Inner; end
        end
        Plain = Target
        Scoped = N::Inner
        OrAssign ||= Target
        Chain = Middle = Target
        Second = Plain
        """
    )
    written = {n: g[n].definitions[0].target for n in ("Plain", "Scoped", "OrAssign", "Chain", "Middle", "Second")}
    assert written == {
        "Plain": "Target",
        "Scoped": "N::Inner",
        "OrAssign": "Target",
        "Chain": "Middle",
        "Middle": "Target",
        "Second": "Plain",
    }
    resolved = {n: g[n].target.name for n in written}
    assert resolved == {"Plain": "Target", "Scoped": "N::Inner", "OrAssign": "Target", "Chain": "Target", "Middle": "Target", "Second": "Target"}


def test_method_alias_old_name():
    g = graph("class Foo\n  def a; end\n  alias b a\n  alias_method :c, :a\nend\n$x = 1\nalias $y $x\n")
    assert g["Foo#b()"].definitions[0].target == "a"
    assert g["Foo#c()"].definitions[0].target == "a"
    assert g["$y"].definitions[0].target == "$x"


def test_method_signature():
    g = graph("class Foo\n  def a(x, y = 1, *rest, k:, **opts, &blk); end\n  def b; end\n  def c x, y\n  end\nend\n")
    assert g["Foo#a()"].definitions[0].signature == "(x, y = 1, *rest, k:, **opts, &blk)"
    assert g["Foo#b()"].definitions[0].signature == "()"
    assert g["Foo#c()"].definitions[0].signature == "(x, y)"


def test_members_and_owner():
    g = graph("class Foo\n  X = 1\n  def m; @v = 1; end\n  class Bar; end\nend\n")
    assert {m.name for m in g["Foo"].members} == {"Foo::X", "Foo#m()", "Foo#@v", "Foo::Bar"}
    assert g["Foo#m()"].owner == g["Foo"]
    assert g["Foo::<Foo>"].attached_object == g["Foo"]
    assert g["Foo"].singleton_class == g["Foo::<Foo>"]
    assert g["Foo#m()"].unqualified_name == "m()"


# ---------------------------------------------------------------------------------------------
# Locations
# ---------------------------------------------------------------------------------------------


def test_definition_locations():
    src = "module A\n  class B < C\n    def m(x)\n      @v = x\n    end\n  end\nend\n$g = 1\n"
    g = graph(src)
    p = "/fixture/a.rb"
    expected = {
        "A": ((p, 1, 0, 7, 3), (p, 1, 7, 1, 8)),
        "A::B": ((p, 2, 2, 6, 5), (p, 2, 8, 2, 9)),
        "A::B#m()": ((p, 3, 4, 5, 7), (p, 3, 8, 3, 9)),
        "A::B#@v": ((p, 4, 6, 4, 8), (p, 4, 6, 4, 8)),
        "$g": ((p, 8, 0, 8, 2), (p, 8, 0, 8, 2)),
    }
    actual = {n: (loc(g[n].definitions[0].location), loc(g[n].definitions[0].name_location)) for n in expected}
    assert actual == expected
    assert loc(g["A::B"].location) == expected["A::B"][0]
    assert g["A"].definitions[0].uri == "file:///fixture/a.rb"


def test_columns_are_bytes():
    g = graph("X = \"é\"; class Foo; end\n")
    # "é" is two bytes in UTF-8, so ``class`` starts at byte 10.
    assert loc(g["Foo"].location)[1:3] == (1, 10)


def test_location_path_for_plain_paths(tmp_path):
    path = tmp_path / "lib" / "foo.rb"
    g = rdx.Graph(core=False)
    g.index_source(str(path), "class Foo; end\n")
    assert g["Foo"].location.path == str(path)
    assert g["Foo"].location.uri == path.as_uri()


# ---------------------------------------------------------------------------------------------
# Constant references
# ---------------------------------------------------------------------------------------------


def test_constant_references():
    g = graph(
        """
        module A
          module B
            class C; end
          end
        end
        A::B::C.new
        ::A::B
        x = A::B::C
        module A::B
          C
        end
        Missing::Thing
        """
    )
    refs = [(r.name, loc(r.location)[1:], r.declaration.name if r.declaration else None) for r in fixture_const_refs(g)]
    p = (7, 0, 7, 7)
    assert refs == [
        ("A::B::C", p, "A::B::C"),
        ("::A::B", (8, 0, 8, 6), "A::B"),
        ("A::B::C", (9, 4, 9, 11), "A::B::C"),
        ("A", (10, 7, 10, 8), "A"),  # the scope part of ``module A::B``
        ("C", (11, 2, 11, 3), "A::B::C"),
        ("Missing::Thing", (13, 0, 13, 14), None),
    ]


def test_a_document_lists_its_own_references():
    g = graph({"a.rb": "module A\n  class C; end\nend\nA::C.new.to_s\n", "b.rb": "A::C\nputs 1\n"})
    every = {(r.location.uri, r.location.start_line, r.name) for r in [*g.constant_references, *g.method_references]}
    for name in ("a.rb", "b.rb"):
        doc = g.document(FIXTURE + name)
        assert doc is not None
        own = [(r.location.uri, r.location.start_line, r.name) for r in [*doc.constant_references, *doc.method_references]]
        assert own and all(uri == doc.uri for uri, _, _ in own)
        # Exactly the graph-wide references located in this document.
        assert sorted(own) == sorted(x for x in every if x[0] == doc.uri)
    assert [r.declaration.name for r in g.document(FIXTURE + "b.rb").constant_references] == ["A::C"]


def test_constant_reference_lookup_rules():
    g = graph(
        """
        X = :top
        module Outer
          X = :outer
          class Inner
            def read; X; end
          end
        end
        class Outer::Compact
          def read; X; end
        end
        module Mixin
          Y = 1
        end
        class UsesMixin
          include Mixin
          def read; Y; end
        end
        """
    )
    refs = {loc(r.location)[1]: r.declaration.name for r in fixture_const_refs(g) if r.name in ("X", "Y")}
    # Lexical scope wins inside ``module Outer; class Inner``; a compact ``class Outer::Compact``
    # does not see Outer's constants lexically; ancestors are searched for Y.
    assert refs == {6: "Outer::X", 10: "X", 17: "Mixin::Y"}


def test_private_constant_hidden_from_scoped_lookup():
    g = graph(
        """
        module M
          class Hidden; end
          private_constant :Hidden
          def self.inside; Hidden; end
        end
        M::Hidden
        """
    )
    by_line = {loc(r.location)[1]: r.declaration for r in fixture_const_refs(g) if r.name.endswith("Hidden")}
    assert by_line[5] == g["M::Hidden"]
    assert by_line[7] is None
    assert g.resolve_constant("M::Hidden") is None
    assert g.resolve_constant("Hidden", ["M"]) == g["M::Hidden"]


# ---------------------------------------------------------------------------------------------
# Method references
# ---------------------------------------------------------------------------------------------


def test_method_references_receivers():
    g = graph(
        """
        class Foo
          def self.make; end
          def bar; end
          def baz
            bar()
            self.bar
            Foo.make
            Foo.new.bar
            self.value = 1
            other.thing(1)
          end
          def self.cm
            make()
          end
          helper_in_body :x
        end
        """
    )
    refs = [
        (r.name, r.receiver.name if r.receiver else None, r.method.name if r.method else None, r.receiver_text)
        for r in fixture_method_refs(g)
    ]
    assert refs == [
        ("bar", "Foo", "Foo#bar()", None),
        ("bar", "Foo", "Foo#bar()", "self"),
        ("make", "Foo::<Foo>", "Foo::<Foo>#make()", "Foo"),
        # Outer call first: the walk meets ``.bar`` before the ``Foo.new`` it is called on.
        ("bar", "Foo", "Foo#bar()", "Foo.new"),
        ("new", "Foo::<Foo>", "Class#new()", "Foo"),
        ("value=", "Foo", None, "self"),
        ("thing", None, None, "other"),
        # ``other`` is not a local variable, so it is a call of a method without arguments.
        ("other", "Foo", None, None),
        ("make", "Foo::<Foo>", "Foo::<Foo>#make()", None),
        ("helper_in_body", "Foo::<Foo>", None, None),
    ]


RECEIVER_FORMS = """\
module Lib
  Foo.bar
  ::Foo.bar(1)
  Foo::Bar.baz
  ::Foo::Bar::Baz&.qux
  Foo.new.bar.baz
  X = Foo::Bar.build { |b| Baz.call(b) }
  class << Foo
    def m = Bar.new
  end
  def self.make
    "#{Foo.name}: #{Foo::Bar.name}"
  end
  [1].each { Foo.tap { Bar::Baz.call } }
  Foo.include(Bar)
  Foo::bar
end
"""


def test_every_call_receiver_is_a_constant_reference_at_the_same_place():
    # Incremental resolution decides a call receiver by the constant reference recorded at the
    # same place (``Mentions.seeing_top_level``, ``unnaming``): the same lookup.
    from corpus import debian_corpus

    sources = [RECEIVER_FORMS.encode()]
    for root in debian_corpus()[:2]:
        for directory, _, names in sorted(os.walk(root))[::40]:
            sources += [open(os.path.join(directory, n), "rb").read() for n in sorted(names) if n.endswith(".rb")][:3]
    receivers = 0
    for source in sources:
        result = discover_source("file:///r.rb", source)
        refs = {(r.path.segments, r.path.start, r.path.absolute) for r in result.const_refs}
        for call in result.method_refs:
            if call.receiver is not None and call.receiver.segments:
                receivers += 1
                assert (call.receiver.segments, call.receiver.start, call.receiver.absolute) in refs, (call.name, call.receiver)
    assert receivers > 20


def test_method_reference_location_and_scoped_receiver():
    g = graph("module A\n  class B\n    def self.c; end\n  end\nend\nA::B.c\n")
    (ref,) = fixture_method_refs(g)
    assert (ref.name, loc(ref.location)) == ("c", ("/fixture/a.rb", 6, 5, 6, 6))
    assert ref.receiver == g["A::B::<B>"]
    assert ref.method == g["A::B::<B>#c()"]


def test_inherited_method_is_found_through_ancestors():
    g = graph(
        """
        module Greeting
          def hello; end
        end
        class Base
          include Greeting
        end
        class Child < Base
          def run
            hello()
          end
        end
        """
    )
    (ref,) = [r for r in fixture_method_refs(g) if r.name == "hello"]
    assert ref.receiver == g["Child"]
    assert ref.method == g["Greeting#hello()"]


def test_bare_identifier_call_is_a_method_reference():
    g = graph(
        """
        class Foo
          def bar; end
          def baz
            local = 1
            local
            bar
          end
        end
        """
    )
    refs = [(r.name, r.receiver.name if r.receiver else None) for r in fixture_method_refs(g)]
    assert refs == [("bar", "Foo")]


# ---------------------------------------------------------------------------------------------
# Requires (discovery output)
# ---------------------------------------------------------------------------------------------


def test_requires():
    src = b'require "json"\nrequire_relative "lib/x"\nrequire name\nrequire("set")\nload "tasks.rb"\nrequire "a#{b}"\nobj.require "nope"\n'
    result = discover_source("file:///t/a.rb", src, "/t/a.rb")
    assert [(r.path, r.relative) for r in result.requires] == [("json", False), ("lib/x", True), ("set", False), ("tasks.rb", False)]
    first = result.requires[0]
    assert src[first.start : first.end] == b'require "json"'


# ---------------------------------------------------------------------------------------------
# Placeholders across files
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "files,expected_kind",
    [
        ({"a.rb": "class Foo::Bar; end\n"}, "Todo"),
        ({"a.rb": "class Foo::Bar; end\n", "b.rb": "module Foo; end\n"}, "Module"),
        ({"a.rb": "class Foo::Bar; end\n", "b.rb": "class Foo; end\n"}, "Class"),
        ({"a.rb": "module Foo; end\n", "b.rb": "class Foo::Bar; end\n"}, "Module"),
    ],
    ids=["alone", "module-later", "class-later", "module-earlier"],
)
def test_placeholder_namespaces(files, expected_kind):
    g = graph(files)
    assert g["Foo"].kind == expected_kind
    assert g["Foo::Bar"].kind == "Class"
    assert g["Foo::Bar"].owner == g["Foo"]
    assert len(g["Foo"].definitions) == (0 if expected_kind == "Todo" else 1)


def test_placeholder_promotion_follows_edits():
    g = rdx.Graph()
    g.index_source(FIXTURE + "a.rb", "class Foo::Bar; end\n")
    assert g["Foo"].kind == "Todo"
    g.index_source(FIXTURE + "b.rb", "module Foo; end\n")
    assert g["Foo"].kind == "Module"
    assert g.delete_document(FIXTURE + "b.rb") is True
    assert g["Foo"].kind == "Todo"
    assert g.delete_document(FIXTURE + "b.rb") is False


def test_nested_placeholders_and_superclass_placeholders():
    g = graph("class A::B::C < Missing::Base; end\n")
    assert [g[n].kind for n in ("A", "A::B", "A::B::C", "Missing", "Missing::Base")] == ["Todo", "Todo", "Class", "Todo", "Todo"]
    assert g["A::B::C"].superclass == g["Missing::Base"]


# ---------------------------------------------------------------------------------------------
# Stable ids
# ---------------------------------------------------------------------------------------------

_ID_SCRIPT = """
import json, sys, rdx
g = rdx.Graph()
g.index_source("file:///fixture/a.rb", sys.argv[1])
out = {"Foo": g["Foo"].id, "Foo#bar()": g["Foo#bar()"].id, "def": g["Foo#bar()"].definitions[0].id,
       "class_def": g["Foo"].definitions[0].id}
print(json.dumps(out))
"""


def test_ids_are_stable_across_processes():
    src = "class Foo\n  def bar; end\nend\n"
    g = graph(src)
    here = {
        "Foo": g["Foo"].id,
        "Foo#bar()": g["Foo#bar()"].id,
        "def": g["Foo#bar()"].definitions[0].id,
        "class_def": g["Foo"].definitions[0].id,
    }
    env = dict(os.environ, PYTHONHASHSEED="12345")
    proc = subprocess.run([sys.executable, "-c", _ID_SCRIPT, src], capture_output=True, text=True, env=env, timeout=60, check=True)
    assert json.loads(proc.stdout) == here
    assert all(isinstance(v, int) and 0 <= v < 2**64 for v in here.values())
    assert len(set(here.values())) == len(here)


def test_ids_do_not_depend_on_indexing_order():
    a = graph({"a.rb": "class Foo; end\n", "b.rb": "class Foo\n  def m; end\nend\n"})
    b = rdx.Graph()
    b.index_source(FIXTURE + "b.rb", "class Foo\n  def m; end\nend\n")
    b.index_source(FIXTURE + "a.rb", "class Foo; end\n")
    assert a["Foo"].id == b["Foo"].id
    assert a["Foo#m()"].id == b["Foo#m()"].id
    assert {d.id for d in a["Foo"].definitions} == {d.id for d in b["Foo"].definitions}


# ---------------------------------------------------------------------------------------------
# Search, resolve_constant, stats
# ---------------------------------------------------------------------------------------------

SEARCH_SRC = """
module ActiveRecord
  class Base
    def find_by_sql; end
    def self.create; end
  end
end
"""


@pytest.mark.parametrize(
    "query,kwargs,expected",
    [
        ("ActiveRecord::Base", {"match_mode": "exact"}, ["ActiveRecord::Base"]),
        ("create", {"match_mode": "exact"}, ["ActiveRecord::Base::<Base>#create()"]),
        ("Base", {"match_mode": "exact", "kind": "Class"}, ["ActiveRecord::Base", "Random::Base"]),
        (
            "ActiveRecord::Base",
            {"match_mode": "prefix"},
            ["ActiveRecord::Base", "ActiveRecord::Base#find_by_sql()", "ActiveRecord::Base::<Base>", "ActiveRecord::Base::<Base>#create()"],
        ),
        ("ActiveRecord", {"match_mode": "prefix", "kind": "Module"}, ["ActiveRecord"]),
        ("find_by", {"kind": "Method", "match_mode": "fuzzy"}, ["ActiveRecord::Base#find_by_sql()"]),
        ("ActRec", {"limit": 2}, ["ActiveRecord", "ActiveRecord::Base"]),
        ("zzqqxxnotthere", {}, []),
    ],
)
def test_search(query, kwargs, expected):
    g = graph(SEARCH_SRC)
    assert [d.name for d in g.search(query, **kwargs)] == expected


def test_ranked_search_puts_the_named_declaration_first():
    g = graph(SEARCH_SRC)
    # Ranked (the default) also lists core methods whose names share "find"; the name the query
    # begins comes first.
    found = [d.name for d in g.search("find_by", kind="Method")]
    assert found[0] == "ActiveRecord::Base#find_by_sql()" and len(found) > 1


def test_resolve_constant():
    g = graph(
        """
        X = :top
        module Outer
          X = :outer
          module Inner; end
        end
        class Outer::Compact; end
        Alias = Outer
        """
    )
    assert g.resolve_constant("X") == g["X"]
    assert g.resolve_constant("X", ["Outer"]) == g["Outer::X"]
    assert g.resolve_constant("X", ["Outer", "Inner"]) == g["Outer::X"]
    assert g.resolve_constant("X", ["Outer::Compact"]) == g["X"]
    assert g.resolve_constant("::X", ["Outer"]) == g["X"]
    assert g.resolve_constant("Outer::Inner") == g["Outer::Inner"]
    assert g.resolve_constant("Alias::Inner") == g["Outer::Inner"]
    assert g.resolve_constant("Alias") == g["Alias"]
    assert g.resolve_constant("Nope") is None
    assert g.resolve_constant("X", ["Nope"]) is None


def test_stats():
    g = graph(
        {
            "a.rb": "class Foo < Missing\n  def bar; baz(1); end\nend\n",
            "b.rb": "module Foo::Helpers\n  X = 1\nend\nFoo.new.bar\n",
        }
    )
    s = g.stats()
    assert s["documents"] == 2
    assert s["bytes"] == len("class Foo < Missing\n  def bar; baz(1); end\nend\n") + len("module Foo::Helpers\n  X = 1\nend\nFoo.new.bar\n")
    assert s["definitions"] == 4  # Foo, Foo#bar, Foo::Helpers, Foo::Helpers::X
    # Missing (superclass), Foo (scope of Foo::Helpers), Foo (receiver of .new)
    assert s["constant_references"] == 3
    assert s["constant_references_resolved"] == 3  # Missing resolves to its placeholder
    assert s["method_references"] == 3  # baz, new, bar
    assert s["declarations_by_kind"]["Todo"] == 1
    assert s["declarations"] == len(g.declarations) == sum(s["declarations_by_kind"].values())
    assert s["diagnostics"] == len(g.diagnostics)
    assert s["revision"] == g.revision


def test_revision_and_staleness():
    g = rdx.Graph(core=False)
    r0 = g.revision
    g.index_source(FIXTURE + "a.rb", "class Foo; end\n")
    assert g.revision > r0
    assert "Foo" in g
    g.index_source(FIXTURE + "a.rb", "class Bar; end\n")
    assert "Foo" not in g and "Bar" in g  # re-indexing replaces; queries never see stale data


# ---------------------------------------------------------------------------------------------
# Misuse
# ---------------------------------------------------------------------------------------------


def test_unknown_name_raises_not_found():
    g = graph("class Foo; end\n")
    with pytest.raises(rdx.NotFoundError) as info:
        g["Nope"]
    assert isinstance(info.value, KeyError)
    assert info.value.code == rdx.ErrorCode.NOT_FOUND
    assert "Nope" in str(info.value)
    assert g.get("Nope") is None
    assert "Nope" not in g
    assert g["::Foo"] == g["Foo"]


def _misuse_cases():
    ok = [
        ("getitem-int", lambda g: g[1]),
        ("get-none", lambda g: g.get(None)),
        ("search-empty", lambda g: g.search("")),
        ("search-int", lambda g: g.search(5)),
        ("search-mode", lambda g: g.search("Foo", match_mode="regex")),
        ("resolve-lowercase", lambda g: g.resolve_constant("foo")),
        ("resolve-int", lambda g: g.resolve_constant(3)),
        ("resolve-trailing-colons", lambda g: g.resolve_constant("Foo::")),
        ("resolve-nesting-str", lambda g: g.resolve_constant("Foo", "Bar")),
        ("resolve-nesting-ints", lambda g: g.resolve_constant("Foo", [1])),
        ("index-source-uri-int", lambda g: g.index_source(1, "x")),
        ("index-source-uri-empty", lambda g: g.index_source("", "x")),
        ("index-source-src-int", lambda g: g.index_source("/t/b.rb", 1)),
        ("index-all-item-int", lambda g: g.index_all([1])),
        ("index-all-jobs-zero", lambda g: g.index_all([], jobs=0)),
        ("index-all-jobs-str", lambda g: g.index_all([], jobs="2")),
    ]
    bad = [
        ("search-kind-int", lambda g: g.search("Foo", kind=5), "search(kind=5) silently returns []"),
        ("search-limit-str", lambda g: g.search("Foo", limit="3"), "search(limit='3') raises a bare TypeError"),
        ("index-all-int", lambda g: g.index_all(1), "index_all(1) raises a bare TypeError"),
        ("delete-document-int", lambda g: g.delete_document(1), "delete_document(1) raises a bare TypeError"),
        ("document-int", lambda g: g.document(1), "document(1) raises a bare TypeError"),
    ]
    params = [pytest.param(f, id=i) for i, f in ok]
    params += [pytest.param(f, id=i) for i, f, _ in bad]
    return params


@pytest.mark.parametrize("call", _misuse_cases())
def test_bad_arguments_raise_invalid_argument(call):
    g = graph("class Foo; end\n")
    with pytest.raises(rdx.InvalidArgumentError) as info:
        call(g)
    assert info.value.code == rdx.ErrorCode.INVALID_ARGUMENT
    assert isinstance(info.value, ValueError)


def test_doc_comments_leave_out_magic_comments_and_tool_directives() -> None:
    source = (
        b"# frozen_string_literal: true\n# The thing.\n# rubocop:disable Metrics/AbcSize\nclass A\n"
        b"  # typed: strict\n  # -*- coding: utf-8 -*-\n  # Does it.\n  # rubocop:todo Style/Foo\n  def x; end\nend\n"
    )
    from rdx.ruby.discover.parse import RubyParser

    found = {d.name: d.comments for d in RubyParser().discover("file:///doc.rb", source).definitions}
    assert found == {"A": ("# The thing.",), "x": ("# Does it.",)}


@pytest.mark.parametrize(
    ("uri", "offset", "name"),
    [("file:///a.rb", 0, "Foo"), ("file:///é/ü.rb", 12345, "bär?"), ("x", -1, ""), ("file:///\udcff.rb", 7, "a\udc80"), ("file:///a.rb", 10, "1\xff2")],
)
def test_definition_ids_are_stable_ids_of_their_parts(uri, offset, name):
    # ``definition_id`` hashes the concatenation in one step; the ids stay those of the one
    # hashing function (``stable_id``), so snapshots and ids from other processes agree.
    from rdx.model.ids import definition_id, stable_id

    assert definition_id(uri, offset, name) == stable_id("def", uri, offset, name)
