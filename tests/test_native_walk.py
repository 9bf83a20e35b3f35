"""The native walk step (rdx/native/walk.c) against the Python walk it replaces.

Ruby discovery walks each tree with one cursor; the native step moves that cursor in C past
the nodes no handler wants. Both walks must produce the same FileResult, byte for byte, on
sources that exercise every way the walk can stop: handled kinds, identifiers in fields whose
handler does nothing, missing nodes, syntax errors, expressions nested past MAX_SYNTAX_DEPTH,
scopes nested past MAX_NESTING. The corpus test compares the whole Debian corpus.
"""

from __future__ import annotations

import os

import msgspec
import pytest
import tree_sitter
import tree_sitter_ruby

import rdx.native
import rdx.ruby.discover.parse as parse
from rdx.ruby.discover.parse import MAX_NESTING, MAX_SYNTAX_DEPTH, RubyParser

_ENCODE = msgspec.msgpack.Encoder().encode


def _native_step():
    step = rdx.native.advance()
    assert step is not None, f"the native walk is not in use: {rdx.native.disabled_reason()} (make native builds it)"
    return step


def _python_only(patch: pytest.MonkeyPatch) -> None:
    """Discovery without any native part: the walk step, the line table, the statement calls, the ids, the words."""
    patch.setattr(parse, "native_step", lambda: None)
    patch.setattr(parse, "native_line_starts", lambda: None)
    patch.setattr(parse, "native_statement_calls", lambda: None)
    patch.setattr(parse, "native_definition_id", lambda: None)
    patch.setattr(parse, "native_find_words", lambda: None)


def _both(source: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """The FileResult of ``source`` walked natively and in Python, encoded."""
    _native_step()
    native = _ENCODE(RubyParser().discover("file:///t.rb", source, "/t.rb"))
    with monkeypatch.context() as patch:
        _python_only(patch)
        python = _ENCODE(RubyParser().discover("file:///t.rb", source, "/t.rb"))
    return native, python


SOURCES = {
    "namespaces": b"""
module A::B
  class C < D::E
    include F, G
    extend H
    attr_reader :x, :y
    private
    def g(h, *i, k: 1, &blk) = h.j(i) { |m| m + [1, 2][0] + x }
    def self.s; y; end
    class << self
      def t(a) = a&.b
    end
    X = Y::Z
    X ||= 2
    alias u g
  end
end
""",
    "locals and calls": b"""
a = 1
a.b(c, d: e) do |f, (g, h)|
  f + g - h[0] && !a
  q = -a
  p q, a[1] += 2
  self.w = 3
  w.x ||= 4
end
foo
bar(baz)
case x
in {y:} then y
in [z, *rest] then rest
end
""",
    "missing and errors": b"class A\n  def b(\n    c.d(\n  end\nmodule X; Y = ; end\nfoo(\n",
    "stray end": b"x = 1\nend\ndef y; end\n",
    "blocks and loops": b"""
[A, B].each { |k| k.include(M) }
%w[a b].each { |n| define_method(n) { n } }
Class.new(Base) do
  include Mixin
end
module Concern
  extend ActiveSupport::Concern
  included do
    include Other
  end
  class_methods do
    def cm; end
  end
end
require "x"
require_relative "y/#{1}"
autoload :Z, "z"
""",
    "heredocs and strings": b'x = <<~EOS\n  #{A::B.c(d)}\nEOS\ny = "#{E}" + :"f#{G}"\nputs `#{H}`\n',
    # The native step passes over reads of known local variables: which set is known changes
    # at every scope's start and end, in a class's name and superclass, and as locals appear.
    "locals across scopes": b"""
a = 1
b = a + c
class K < a::B
  a = 2
  x = a
  def m(p, q = a, *r, k: p, &blk)
    a = p
    [a, b, p, q, r, k, blk, z]
    -> (y) { y + a + w }
    def inner = a + p
    p
  end
  a
  p
  class << self
    a
    a = 3
    a
  end
  z = 1 if z
  case v
  in [w, *] then w
  in {u:} then u
  end
  w
  u
end
a
p
def a = a
module M; a; end
a
rescue_me rescue e
begin; rescue => e; e; end
e
for i in 1..2 do i end
i
""",
    "constant paths": b"""
A::B::C.d
X = Y::Z
::E.f
F::G.new.h
class H::I < J::K::L; M::N; end
module O::P; Q = R::S::T; end
x::Y
h = {K:, L: 1}
V::W ||= 1
Z, Z2::Z3 = 1, 2
def S::T.u = U::V
""",
    "missing names": b"foo.\nclass A\n  def b = c.\nend\n",
    # Load-time calls of other files' methods (rdx.ruby.evaluate.loadfacts), read by the native
    # statement_calls: statements of namespaces (not of a dynamically named one), of branches,
    # ``&&`` chains and ``begin``, not of methods or blocks.
    "load-time calls": b"""
Helper.setup(self, Config)
class Render < Tag
  disable_tags "include"
  abstract!
  Other.register(self, Render)
  if ok? then Other.also(Render) else Other.not(Render) end
  begin; Foo::Bar.baz(Render); end
  ready && Reg.add(Render)
  (Reg.paren(Render))
  x.call(Render)
  def m = Other.inside(Render)
  list.each { Other.block(Render) }
  class Inner < Render
    plugin :x, Inner
    Reg.nested(self)
  end
  class << self
    Reg.single(self)
  end
end
class foo::Dynamic
  Reg.hidden(self)
end
module Mod
  Reg.mod(Mod)
  attr_reader :r
end
Reg.top(Mod) unless skip
""",
    # Classes and modules the native step records itself (their bodies' scopes and marks too)
    # and those it leaves to ``on_namespace``: dynamic names and superclasses, ``Struct.new``,
    # ``DelegateClass``, ``self``, a class in a branch Ruby does not take.
    "plain and other namespaces": b"""
module A
  class B < C
    private
    def m = 1
    public
    def n = m
  end
  class D::E < ::F::G
    module_function
    def o = p
  end
  class H < Struct.new(:a, :b); end
  class I < DelegateClass(J); end
  class K < L.new(1); end
  class x::M; end
  class N < y::O; end
  class << self
    protected
    def q = 1
  end
"""
    + "  module Rb::B\u00e9; def s = t; end\n  module \u00c9t::R; end\n".encode()
    + b"""end
if RUBY_VERSION > "9"
  class P < Q; end
else
  class P < R; end
end
class S < T
  private def u = 1
  def v = u
end
class U
  def w = 1
  private
end
""",
    # Plain ``def``s the native step records itself (their bodies' scopes it opens and leaves,
    # with the scopes around them), and those it leaves to ``on_method``.
    "methods": b"""
def top(a) = a + b
class K
  def m1(x, y = 2)
    x + y + z
    @v = x
    @@w ||= y
    $g += 1
    n = 1
    n -= x
    @p, r, *@s, (t, u), $v = x
    @p2, self.r2, s2[0], *, W = x
    r + t + u + s2
    m2
  end
  private def m2; end
  def m3
    def m4(q) = q + m1
    q
  end
  module_function
  def m5 = m3
  public
  # A comment
  # on two lines
  def m6(
    a,   b
  ) = a
  def self.m7 = m6
  def K.m10 = m7
  def included(base) = base
  class << self
    def included(base) = base.include(M)
    def m8 = m7
  end
  def m9 = m1 m3
  m2
  m9
end
def top2 = top(1)
m1
""",
    # Blocks the native step opens itself (after calls it records) and those it leaves to
    # ``on_call``: literal loops, evals, ``Class.new``, constants' blocks inside and outside
    # method bodies, and block arguments.
    "blocks": b"""
list.each { |i| include(i) }
list.map do |i, j| i + j end
each_thing { |k| k }
[A, B].each { |k| k.include(M) }
{a: 1}.each { |k, v| define_method(k) { v } }
NAMES = %i[x y]
NAMES.each { |n| attr_reader n }
Foo.class_eval { include Bar }
obj.instance_exec(1) { |x| x }
Class.new(Base) { include Mixin }
Struct.new(:a) do def b = a end
lambda { |z| z }
-> { outer }
File.open(x) do |f| f.read end
def m
  File.open(x) do |f| f.read end
  NAMES.each { |n| n }
  LIST = [1]
  list.map(&:name).each(&:"quoted")
  tap { |t| t }
  [1].each(&:to_s)
end
module Mod
  ITEMS = [C, D]
  def n = ITEMS.each { |c| c.include(E) }
  ITEMS.each { |c| c.extend(F) }
  class << self
    def o = ITEMS.each { |c| c }
  end
end
x.y = 1
x.y += 1
x[0] = 1
x[0] += 1
self.attr = 2
a.b, c[1] = 1, 2
""",
    # The native step records plain calls, operators, element references, identifiers and
    # constants itself, notes local variables and setter calls, and leaves the rest to the
    # handlers: each source below has both sides of each of its rules.
    "calls it records and calls it leaves": b"""
foo(1).bar.baz(2)
self.qux
@a.b(c) + d[1] - !e + -f + -1 + ~g
not h
x = [1][0]
x.y = 2
x.z += 3
x[0] = 4
x[1] ||= 5
A.b
A::B.c
::D.e
F.new.g
H::I.new.j
k::L.m
(A::B).new.n
self.class.o
"#{p}".q
A + B - C::D * E.new
!A
[A][0]
-A::B
block_pass(&:sym)
@u = 1
@@v ||= 2
$w += 3
x -= 4
list.each { |i| i }
list.map do |i, j| j end
each_thing { }
-> { u }
"""
    + b"r." * 150
    + b"s\n"
    + b"t("
    + "\u00e9".encode()
    + b"\xff\xfe)\n",
    "names the walk knows": b"""
def helper(a) = a
helper(1)
helper
class K
  helper
  helper(2)
  def m
    helper
    helper(3)
    send(:x)
    include Foo
    attr_reader :y
    private
    K.new.z
    K.w
    require "x"
  end
  include Bar
  K.include Baz
  K.w
  K::L.v
  attr_reader :u
  def helper2 = 1
  helper2
  helper2(1)
  def self.s = helper2
end
""",
    "hooks": b"""
module Hooked
  def self.included(base)
    base.extend(ClassMethods)
    base.include Other
    base.send(:include, Third)
    other.thing
    base.class_eval do
      attr_accessor :x
      include Fourth
    end
  end
  def self.extended(mod) = mod.include(Fifth)
  class << self
    def inherited(sub)
      sub.include Sixth
      sub.foo
    end
  end
  def not_a_hook(base)
    base.include Seventh
  end
end
""",
    "bindings and conditionals": b"""
def m(a, b = 1, *c, d:, e: 2, **f, &g)
  [a, b, c, d, e, f, g, h]
  ->(i, (j, k)) { i + j + k + l }
  [1].each { |m, (n, *o)| m + n + o + p }
  q, (r, *s), *t = 1
  q + r + s + t + u
  case v
  in [w, *x] | [w, x] then w + x
  in {y:, z: [*aa]} then y + aa
  in [*, bb, *] then bb
  end
  w + y + bb
  begin; rescue => cc; cc; end
  if dd then ee elsif ff then gg else hh end
  ii if jj
  kk unless ll
  unless mm then nn end
end
if __FILE__ == $0
  include Script
end
class C < (pp = D)
  if RUBY_VERSION > "2"
    include New
  else
    include Old
  end
  def n(qq) = qq + pp
end
""",
    # The step reads the comments above the definitions it records and their parameter lists
    # (walk.c's comments_above and params_text): directives and ordinary comments, white space
    # of every kind, bytes that are not UTF-8, lists past the length kept, and non-ASCII ones.
    "comments and parameters": b"""# frozen_string_literal: true
# -*- coding: utf-8 -*-
# A doc: with a colon
#   rubocop : disable Foo
# rubocop:todo Bar
# :nocov:
# standard:enable
# standard : disable X
# typed: strict
# encoding:utf-8
#coding : x
# warn_past_scope :x
# shareable_constant_value: literal
# not a directive: rubocop:disable
# rubocop: enabled-ish
module Commented
  # \xff\xfe broken bytes
  #\x0b vertical tab
\t# tab-indented
  class Inner < Base # trailing
  end
"""
    + b"".join(b"  # line %d of a long comment\n" % i for i in range(70))
    + b"""  def long_doc; end
  # -*- only -*-
  def spaced( a,
\t b ,\x1c c ,\x1f d\x0c) = a
  def bare a,   b
  end
  def empty() = 1
  def none = 2
  def long_params("""
    + b", ".join(b"arg%d" % i for i in range(90))
    + b""") = 1
  def wide(\xc3\xa9, \xc3\xbc) = 1
  def \xc3\xa9t\xc3\xa9(x) = x
  # CRLF\r
  def crlf(a)\r
  end\r
  @v = 1
  $g = 2
end
""",
    # Visibility of the methods whose records the step makes (walk.c's method_visibility): marks
    # in a namespace the step opens and in one the walker opens (``class S < Struct.new``),
    # ``module_function``, inline ``private def``, ``def self.x``, nested and top-level defs,
    # and methods whose records Python makes (inline visibility, non-ASCII parameters) before
    # a mark and another method (whose record Python makes then too) or before none.
    "visibility": b"""def top_level = 1
module Plain
  def a = 1
  private
  def b = 2
  public def c = 3
  private def d = 4
  module_function
  def e = 5
  def self.f = 6
  def g
    def nested = 7
  end
  protected
  def h(\xc3\xa9) = 8
  public
  def i = 9
end
class Walked < Struct.new(:x)
  def j = 1
  private
  def k(\xc3\xa9) = 2
  public
  def l = 3
  module_function def m = 4
  protected
  def n = 5
end
module Again
  def o = 1
end
class Unmarked < Struct.new(:y)
  def q(\xc3\xa9) = 1
  def r = 2
end
""",
    # ``require`` and ``require_relative`` calls the step records itself (walk.c's
    # collect_require) and those it leaves to ``on_call``.
    "requires": b"""require "plain"
require_relative '../relative'
require ""
require "a#{b}/c"
require "x", "y"
require(:sym)
require path
require("block") { }
self.require "on_self"
if __FILE__ == $0
  require "untaken"
end
require "after_untaken"
module M
  require "in_module"
  def m
    require "deferred"
    require_relative "deferred_relative"
  end
end
def require_relative(x) = x
require_relative "own_method"
[1].each { require "in_block" }
""",
    # Directives, constants' assignments and ``alias`` whose plain forms the step records
    # itself (walk.c's collect_directive, collect_constant_assignment, collect_alias), and
    # the forms around them it leaves to the handlers.
    "directives": b"""include TopLevel
attr_reader :top
private :top
module Concern
  extend ActiveSupport::Concern
  included do
    include InIncluded
    attr_accessor :in_included
    private :in_included
  end
  include Plain, ::Absolute::Path, self
  prepend Prepended
  extend self
  include(*MODULES)
  include foo::Dynamic
  [A, B].each { |m| include m }
  helper { include InBlock }
  include Before if __FILE__ == $0
  include After
  # Attributes.
  attr_reader :a, :b
  attr_writer :c
  attr_accessor :d
  attr :e
  attr_reader "f", :g
  attr_reader
  private
  attr_reader :h
  public attr_reader :i
  # before j
  attr_accessor :j # trailing
  protected :a, :b
  module_function :c
  private "d"
  private_class_method :e
  public
  alias_method :k, :a
  alias_method "l", :a
  alias_method :m, :a, :b
  alias n a
  alias :o :b
  alias $new $old
  alias + -
  X = 1
  Y = "two".freeze
  Z = [3, 4]
  W = Y
  V = ::Concern::X
  U = foo::Bar
  T = Struct.new(:x)
  S = R = 5
  Q = Foo.new(1)
  P = x ? 1 : 2
  O = foo.bar.freeze
  N = ::Class.new
  M = "m" + "n"
  L = -> { 1 }
  Foo.new(1)
  Foo::Bar.new
  Klass.new { }
  def method_body
    include InMethod
    attr_reader :in_method
    private :in_method
    alias in_method_alias method_body
    Q2 = 1
  end
  class << self
    attr_reader :singleton
    alias singleton_alias singleton
  end
  class Inner < Base
    include Deep
    attr_reader :deep
    def attr_reader(*) = nil
    attr_reader :own_method
  end
end
class Reopened; include Once; include Twice; end
include AtTheEnd
""",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_native_walk_gives_the_python_walks_records(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    native, python = _both(SOURCES[name], monkeypatch)
    assert native == python


def test_native_ids_on_every_length_of_uri(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ids the step makes itself (walk.c's BLAKE2b, ``rdx.model.ids.definition_id``'s
    digest) on uris whose hashed text ends on either side of the digest's 128-byte blocks."""
    source = b"module M\n  class K; end\n  @x = 1\n  def m(a) = a\n  def \xc3\xa9 = 1\nend\n"
    _native_step()
    for length in range(100, 280, 3):
        uri = "file:///" + "d\u00e9/" * (length // 4)
        native = _ENCODE(RubyParser().discover(uri, source, None))
        with monkeypatch.context() as patch:
            _python_only(patch)
            python = _ENCODE(RubyParser().discover(uri, source, None))
        assert native == python, uri


def test_native_definition_ids_are_the_python_ones() -> None:
    """``rdx.native.definition_id`` (walk.c's BLAKE2b) gives ``rdx.model.ids.definition_id``,
    on names of one and several blocks, non-ASCII and lone surrogates; the loader's own check
    (``hashes_as_hashlib``) refuses a function that does not."""
    from rdx.model.ids import definition_id, definition_prefix

    _native_step()
    native = rdx.native.definition_id()
    assert native is not None
    for uri in ("file:///a.rb", "file:///" + "\u00e9/" * 70 + "b.rb"):
        for offset in (0, 9, 10, 123_456, 4_294_967_295):
            for name in ("", "m", "caf\u00e9=", "\udcff", "N" * 300):
                assert native(definition_prefix(uri), offset, name) == definition_id(uri, offset, name)
    assert rdx.native.hashes_as_hashlib(native)
    assert not rdx.native.hashes_as_hashlib(lambda prefix, offset, name: 0)


def _collected(source: bytes, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """What the native step collected for ``Walker._record_batch`` on ``source``, and the
    MethodRefs it made itself (as ``(name, start, end, scope, receiver kind, receiver)``) and
    ConstRefs (as ``((segments, absolute), start, end, scope, 5, None)``, kind 5 as in the
    batch), in the order of the step's calls."""
    step = _native_step()
    collected: list[tuple] = []
    record = parse.Walker._record_batch

    def spy(walker: parse.Walker, batch: list, stop: int) -> None:
        collected.extend(batch)
        record(walker, batch, stop)

    def spying_step(*args: object) -> int:
        refs, const_refs = args[-1][0], args[-1][10]  # type: ignore[index]
        before, const_before = len(refs), len(const_refs)
        event = step(*args)
        collected.extend(
            (r.name, r.start, r.end, r.scope, int(r.receiver_kind), r.receiver_text if r.receiver is None else r.receiver) for r in refs[before:]
        )
        collected.extend(((r.path.segments, r.path.absolute), r.path.start, r.path.end, r.scope, 5, None) for r in const_refs[const_before:])
        return event

    monkeypatch.setattr(parse.Walker, "_record_batch", spy)
    monkeypatch.setattr(parse, "native_step", lambda: spying_step)
    RubyParser().discover("file:///t.rb", source, "/t.rb")
    return collected


def test_the_native_step_records_what_it_passes_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sources above do reach the native step's own records: method calls on every kind
    of receiver (implicit self, self, a constant, a constant's instance, anything else) and
    constant references, each made by ``Walker._record_batch`` from what the step collected."""
    collected = _collected(SOURCES["calls it records and calls it leaves"], monkeypatch)
    kinds = {entry[4] for entry in collected}
    assert kinds == {0, 1, 2, 3, 4, 5, 7, 8, 12}  # References, blocks, variables' records (parse._record_batch).
    names = {entry[0] for entry in collected if entry[4] != 5}
    assert {"foo", "bar", "baz", "qux", "b", "+", "-", "!", "-@", "~", "[]", "g", "j", "y=", "[]=", "@u", "@@v", "$w", "each", "map"} <= names
    assert "z" not in names and "z=" not in names  # Op-assignments' target calls stay on_call's.


def test_the_native_step_records_plain_methods(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``def``s of the "methods" source that the step records itself (kind 9, or 11 with
    the record made), the rest left to ``on_method``: ``def K.x``, hooks (``included``), and
    none twice; and the variables it defines (kind 12 with the record made, else 6)."""
    collected = _collected(SOURCES["methods"], monkeypatch)
    methods = [entry[0] for entry in collected if entry[4] in (9, 11)]
    assert any(entry[4] == 11 for entry in collected)
    assert {"top", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "top2"} <= set(methods)
    assert "m10" not in methods and "included" not in methods
    assert len(methods) == len(set(methods))
    # Variables assigned, one by one or several at once (not where a constant is among them).
    variables = [entry[0] for entry in collected if entry[4] in (6, 12)]
    assert variables == ["@v", "@@w", "$g", "@p", "@s", "$v"]


def test_the_native_step_records_plain_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """The classes and modules of the "plain and other namespaces" source the step records itself (kind 10)
    and those it leaves to ``on_namespace``."""
    collected = [entry[5] for entry in _collected(SOURCES["plain and other namespaces"], monkeypatch) if entry[4] == 10]
    names = {"::".join(extra[1]) for extra in collected}
    assert {"A", "B", "D::E", "Rb::B\u00e9", "S"} <= names
    assert not names & {"H", "I", "K", "N", "\u00c9t::R"}  # Struct.new, DelegateClass(J), L.new(1), y::O, a dynamic name.
    # The marks of U's body (those of a body the walk went past are used up by then).
    source = SOURCES["plain and other namespaces"]
    assert [mark for extra in collected if extra[1] == ("U",) for mark in extra[10]] == [(source.rindex(b"private"), "private")]


def test_the_native_step_makes_method_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """Of the "visibility" source, the methods whose records the step makes (kind 11) and
    the visibility they get; the records equal the Python walk's (see the test above)."""
    collected = _collected(SOURCES["visibility"], monkeypatch)
    made = {entry[0]: entry[5][0].visibility for entry in collected if entry[4] == 11}
    assert made == {"top_level": "private", "a": "public", "b": "private", "f": "public", "nested": "public", "j": "public", "o": "public", "r": "public"}
    # Inline visibility and non-ASCII parameters are Python's, and so is a method of the
    # walker's scope after one of those with a mark between (``e``, ``l``...).
    assert {entry[0] for entry in collected if entry[4] == 9} == {"c", "d", "e", "g", "h", "i", "k", "l", "m", "n", "q"}


def test_the_native_step_records_requires(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain ``require``/``require_relative`` calls of the "requires" source give their
    Require records in the step (walk.c's collect_require), the others in ``on_call``."""
    step = _native_step()
    made: list[str] = []

    def spying_step(*args: object) -> int:
        requires = args[-1][5]  # type: ignore[index]
        before = len(requires)
        event = step(*args)
        made.extend(r.path for r in requires[before:])
        return event

    monkeypatch.setattr(parse, "native_step", lambda: spying_step)
    result = RubyParser().discover("file:///t.rb", SOURCES["requires"], "/t.rb")
    assert {"plain", "../relative", "", "in_module", "deferred", "deferred_relative", "in_block"} <= set(made)
    assert not set(made) & {"untaken", "own_method", "block", "on_self"}
    assert {"untaken", "own_method", "on_self"} <= {r.path for r in result.requires}


def test_the_native_step_opens_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks after calls the step records (what self is there: kind 7) and blocks it opens
    (kind 8), block arguments it records, and the calls whose blocks it leaves to ``on_call``."""
    collected = _collected(SOURCES["blocks"], monkeypatch)
    selves = {entry[0] for entry in collected if entry[4] == 7}
    assert {"map", "each_thing", "tap"} <= selves
    assert not selves & {"class_eval", "instance_exec", "new"}
    assert sum(entry[4] == 8 for entry in collected) >= 5
    names = {entry[0] for entry in collected if entry[4] == 4}
    assert {"name", "to_s"} <= names and "quoted" not in names


def test_the_native_step_records_directives_constants_and_aliases(monkeypatch: pytest.MonkeyPatch) -> None:
    """Of the "directives" source, the mixins (kind 13), attributes (14), constants (15),
    visibilities (16) and ``alias_method``s (17) the step collects, and the ``alias``es whose
    records it makes (12); the rest stays the handlers' (the records equal the Python walk's:
    see the test above)."""
    collected = _collected(SOURCES["directives"], monkeypatch)
    mixins = [target[0] if target else None for entry in collected if entry[4] == 13 for target in entry[5]]
    # Not in blocks (``included do`` either), nor splatted, dynamic, in a method, at the top
    # level, nor after a conditional statement until the walker forgets its branches.
    assert mixins == [("ActiveSupport", "Concern"), ("Plain",), ("Absolute", "Path"), None, ("Prepended",), None, ("Deep",), ("Once",), ("Twice",)]
    attributes = [name for entry in collected if entry[4] == 14 for name, _, _ in entry[5][1]]
    # ``i``'s visibility is the ``public`` call's around it (``Walker.pending_visibility``).
    assert attributes == ["in_included", "a", "b", "c", "d", "e", "h", "i", "j", "singleton", "deep"]
    visibilities = [(entry[0], name) for entry in collected if entry[4] == 16 for name, _, _ in entry[5][1]]
    assert visibilities == [("private", "in_included"), ("protected", "a"), ("protected", "b"), ("module_function", "c")]
    assert [entry[5][1][0][0] for entry in collected if entry[4] == 17] == ["k"]
    # Not ``U`` (dynamic), ``T`` and ``N`` (factories), ``S`` (an assignment), ``P`` (a conditional), ``O`` (may read ``foo.bar``).
    assert [entry[0] for entry in collected if entry[4] == 15] == ["X", "Y", "Z", "W", "V", "R", "Q", "M", "L", "Q2"]
    aliases = [entry[0] for entry in collected if entry[4] == 12 and entry[5].kind == "MethodAlias"]
    assert aliases == ["n", "o", "singleton_alias"]


def test_native_walk_past_the_syntax_depth_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = b"x = " + b"[" * (MAX_SYNTAX_DEPTH + 50) + b"A" + b"]" * (MAX_SYNTAX_DEPTH + 50) + b"\nclass After; def m = B; end\n"
    native, python = _both(deep, monkeypatch)
    assert native == python
    result = msgspec.msgpack.decode(native, type=parse.FileResult)
    assert [d.code for d in result.diagnostics] == ["too-deep"]
    assert "After" in [d.name for d in result.definitions]  # The walk goes on after the deep part.


def test_native_walk_past_the_nesting_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    nested = b"module M\n" * (MAX_NESTING + 5) + b"X = 1\n" + b"end\n" * (MAX_NESTING + 5) + b"class After; end\n"
    native, python = _both(nested, monkeypatch)
    assert native == python
    result = msgspec.msgpack.decode(native, type=parse.FileResult)
    assert "too-deep" in [d.code for d in result.diagnostics]
    assert "After" in [d.name for d in result.definitions]


def test_the_loader_refuses_a_step_that_walks_differently() -> None:
    step = _native_step()
    assert rdx.native.agrees_on_sample(step)

    def skips_identifiers(cursor, kinds, fields, *rest):  # Never stops at an identifier.
        table = bytearray(kinds)
        table[tree_sitter.Language(tree_sitter_ruby.language()).id_for_node_kind("identifier", True)] = 0
        return step(cursor, bytes(table), fields, *rest)

    assert not rdx.native.agrees_on_sample(skips_identifiers)

    def ignores_names(cursor, kinds, fields, descend, check_missing, max_depth, depth, names, until, skip_until):
        return step(cursor, kinds, fields, descend, check_missing, max_depth, depth, None, 0, skip_until)

    def ignores_skip_until(cursor, kinds, fields, descend, check_missing, max_depth, depth, names, until, skip_until):
        return step(cursor, kinds, fields, descend, check_missing, max_depth, depth, names, until, -1)

    assert not rdx.native.agrees_on_sample(ignores_names)
    assert not rdx.native.agrees_on_sample(ignores_skip_until)


def test_the_step_checks_its_arguments() -> None:
    step = _native_step()
    tree = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language())).parse(b"a")
    with pytest.raises(TypeError, match="TreeCursor"):
        step(tree.root_node, bytes(65536), bytes(65536), True, False, 10, 0, None, 0, 0)  # A node, not a cursor.
    with pytest.raises(ValueError):
        step(tree.walk(), bytes(10), bytes(65536), True, False, 10, 0, None, 0, 0)  # A short table.
    with pytest.raises(TypeError, match="10 arguments"):
        step(tree.walk(), bytes(65536))


def test_switched_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RDX_NATIVE", "0")
    rdx.native.reset()
    try:
        assert rdx.native.advance() is None
        assert rdx.native.disabled_reason() == "RDX_NATIVE=0"
    finally:
        monkeypatch.delenv("RDX_NATIVE")
        rdx.native.reset()
    assert rdx.native.advance() is not None


@pytest.mark.corpus
def test_native_walk_on_the_debian_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    from corpus import debian_corpus

    _native_step()
    paths = sorted({os.path.join(d, f) for root in debian_corpus() for d, _, files in os.walk(root) for f in files if f.endswith(".rb")})
    assert len(paths) > 4000
    parser = RubyParser()
    different = []
    for path in paths:
        with open(path, "rb") as handle:
            source = handle.read()
        native = _ENCODE(parser.discover("file://" + path, source, path))
        with monkeypatch.context() as patch:
            _python_only(patch)
            python = _ENCODE(parser.discover("file://" + path, source, path))
        if native != python:
            different.append(path)
    assert not different, f"{len(different)} files differ, first {different[:5]}"


def _moves(tree: tree_sitter.Tree, step: object | None, kinds: bytes) -> list[tuple[int, int, int, int, int, int]]:
    """The nodes of ``tree`` of a kind flagged in ``kinds`` (and the missing ones), and the
    root, in the walk's preorder, as (kind, start, end, depth, the cursor's descendant index,
    its field): moved by the runtime's cursor (``step`` None) or by the native step (walk.c's
    cursor_first_child and cursor_next, which pass over the leaves of other kinds)."""
    seen = []
    cursor = tree.walk()
    no_fields = bytes(65536)
    depth = 0
    while True:
        node = cursor.node
        assert node is not None
        if step is not None or kinds[node.kind_id] or node.is_missing or not depth:
            seen.append((node.kind_id, node.start_byte, node.end_byte, depth, cursor.descendant_index, cursor.field_id or 0))
        if step is not None:
            event = step(cursor, kinds, no_fields, True, True, 10_000, depth, None, 0, 0)  # type: ignore[operator]
            if event & 3 == rdx.native.END:
                return seen
            depth = event >> 2
            continue
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return seen
            depth -= 1


@pytest.mark.corpus
def test_the_native_moves_are_the_runtimes_on_the_corpus() -> None:
    """The native step moves the walk's cursor with the runtime's structures (aliases, hidden
    nodes, extras): on every tenth file of the corpus it visits the nodes the runtime's own
    cursor moves visit, and leaves the cursor as those do (descendant index, field)."""
    from corpus import debian_corpus

    step = _native_step()
    language = tree_sitter.Language(tree_sitter_ruby.language())
    parser = tree_sitter.Parser(language)
    every = b"\x01" * 65536
    # Every third kind: leaves of the others passed over, in hidden nodes too.
    some = bytes(1 if kind % 3 == 0 else 0 for kind in range(65536))
    paths = sorted({os.path.join(d, f) for root in debian_corpus() for d, _, files in os.walk(root) for f in files if f.endswith(".rb")})[::10]
    assert len(paths) > 400
    for path in paths:
        with open(path, "rb") as handle:
            tree = parser.parse(handle.read())
        assert _moves(tree, step, every) == _moves(tree, None, every), path
        assert _moves(tree, step, some) == _moves(tree, None, some), path
    # The kinds the discovery walk handles stop, the others' leaves are passed over.
    handled = bytes(1 if code else 0 for code in parse._COLLECTED_KINDS)
    for source in SOURCES.values():
        tree = parser.parse(source)
        assert _moves(tree, step, handled) == _moves(tree, None, handled)


def test_native_line_starts_are_the_python_ones() -> None:
    """``rdx.native.line_starts`` (walk.c) gives ``rdx.model.text.line_starts``' bytes."""
    from rdx.model.text import line_starts

    _native_step()
    native = rdx.native.line_starts()
    assert native is not None
    for source in (b"", b"a", b"\n", b"a\nb", b"a\nb\n", b"\n\n\nx\r\ny\n\n", "\u00e9\n\u00e9".encode(), bytes(range(256)) * 40):
        assert native(source) == line_starts(source)


def test_native_find_words_says_what_in_says() -> None:
    """``rdx.native.find_words`` (walk.c) sets bit i exactly when ``words[i] in source``: on the
    words discovery looks for over sources made of their pieces (overlaps, ends, repeats),
    and on random words over a small alphabet."""
    import random

    _native_step()
    find = rdx.native.find_words()
    assert find is not None
    from rdx.rails.facts import RAILS_WORDS
    from rdx.ruby.evaluate.computed import TEMPLATE_WORDS
    from rdx.ruby.evaluate.loadfacts import MIXIN_WORDS

    words = (*MIXIN_WORDS, *TEMPLATE_WORDS, b"alias", *RAILS_WORDS)
    pieces = [w[:cut] for w in words for cut in range(1, len(w) + 1)] + [b" ", b"\n", b"#", b"{", b"_", b"\xff"]
    rng = random.Random(23)
    for _ in range(3000):
        source = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert find(source, words) == sum(1 << i for i, w in enumerate(words) if w in source), source
    for _ in range(3000):
        source = bytes(rng.choice(b"ab#{") for _ in range(rng.randint(0, 20)))
        some = tuple(bytes(rng.choice(b"ab#{") for _ in range(rng.randint(2, 4))) for _ in range(rng.randint(0, 32)))
        assert find(source, some) == sum(1 << i for i, w in enumerate(some) if w in source), (source, some)
    with pytest.raises(ValueError):
        find(b"abc", (b"a",))
    with pytest.raises(TypeError):
        find(b"abc", tuple([b"ab"] * 33))
