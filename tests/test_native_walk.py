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


def _both(source: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """The FileResult of ``source`` walked natively and in Python, encoded."""
    _native_step()
    native = _ENCODE(RubyParser().discover("file:///t.rb", source, "/t.rb"))
    with monkeypatch.context() as patch:
        patch.setattr(parse, "native_step", lambda: None)
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
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_native_walk_gives_the_python_walks_records(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    native, python = _both(SOURCES[name], monkeypatch)
    assert native == python


def test_the_native_step_records_what_it_passes_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sources above do reach the native step's own records: method calls on every kind
    of receiver (implicit self, self, a constant, a constant's instance, anything else) and
    constant references, each made by ``Walker._record_batch`` from what the step collected."""
    _native_step()
    collected: list[tuple] = []
    record = parse.Walker._record_batch

    def spy(walker: parse.Walker, batch: list) -> None:
        collected.extend(batch)
        record(walker, batch)

    monkeypatch.setattr(parse.Walker, "_record_batch", spy)
    RubyParser().discover("file:///t.rb", SOURCES["calls it records and calls it leaves"], "/t.rb")
    kinds = {entry[4] for entry in collected}
    assert kinds == {0, 1, 2, 3, 4, 5}
    names = {entry[0] for entry in collected if entry[4] != 5}
    assert {"foo", "bar", "baz", "qux", "b", "+", "-", "!", "-@", "~", "[]", "g", "j"} <= names
    assert "y=" not in names and "z" not in names  # Setter calls stay on_call's.


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
            patch.setattr(parse, "native_step", lambda: None)
            python = _ENCODE(parser.discover("file://" + path, source, path))
        if native != python:
            different.append(path)
    assert not different, f"{len(different)} files differ, first {different[:5]}"
