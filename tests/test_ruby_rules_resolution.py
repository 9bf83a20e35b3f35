"""Ruby rules of resolution checked against Ruby itself: ``super`` lookups past prepended
modules, visibility copies, singleton classes of values, dead-code candidates."""

from __future__ import annotations

import json

from conftest import RUBY, build_graph, run_ruby

SUPER_SOURCE = """
module P; def m; end; end
module M; def m; end; end
class B; def m; end; end
class C < B
  include M
  prepend P
  def m; end
end
module Q; def q; end; end
class Plain; def q; end; end
class Sub < Plain; prepend Q; def q; end; end
"""

SUPER_PROBE = """
out = {}
um = C.new.method(:m)
out["C"] = [um.owner, um.super_method.owner, um.super_method.super_method.owner, um.super_method.super_method.super_method.owner].map(&:name)
# C.instance_method(:m) is P's (prepended); C's own method is the next one.
out["after C"] = um.super_method.super_method.owner.name
out["after P"] = P.instance_method(:m).bind(C.new).super_method.owner.name
out["after M"] = M.instance_method(:m).bind(C.new).super_method.owner.name
out["after B"] = B.instance_method(:m).bind(C.new).super_method
out["Sub after Sub"] = Sub.new.method(:q).super_method.super_method.owner.name
out["Sub after Q"] = Q.instance_method(:q).bind(Sub.new).super_method.owner.name
puts JSON.generate(out)
"""


def _owner(found) -> str | None:  # type: ignore[no-untyped-def]
    return found.owner.name if found is not None else None


def test_super_lookup_skips_the_prepended_modules(tmp_path):
    """Starting behind a class (``super`` from its method) continues past its prepended modules
    (at M for C in [P, C, M, B]); starting behind a prepended module continues at the class."""
    assert RUBY
    ruby = json.loads(run_ruby("require 'json'\n" + SUPER_SOURCE + SUPER_PROBE, tmp_path))
    g = build_graph({"a.rb": SUPER_SOURCE})
    c = g["C"]
    got = {
        "C": [_owner(c.find_member("m()"))] + [_owner(c.find_member_after("m()", g[n])) for n in ("P", "C", "M")],
        "after C": _owner(c.find_member("m()", only_inherited=True)),
        "after P": _owner(c.find_member_after("m()", g["P"])),
        "after M": _owner(c.find_member_after("m()", g["M"])),
        "after B": _owner(c.find_member_after("m()", g["B"])),
        "Sub after Sub": _owner(g["Sub"].find_member("q()", only_inherited=True)),
        "Sub after Q": _owner(g["Sub"].find_member_after("q()", g["Q"])),
    }
    assert got == ruby
    assert ruby["after C"] == "M" and ruby["after P"] == "C"  # The oracle says what the rule says.


REQUIRED_FILES = {
    "a_user.rb": 'require_relative "z_helpers"\nclass User\n  include Helpers\n  private :greet\n  public :wave\nend\n',
    "z_helpers.rb": "module Helpers\n  def greet; end\n  private def wave; end\nend\n",
}


def test_visibility_change_finds_a_method_from_a_file_required_first(tmp_path):
    """``private :greet`` in a_user.rb, whose module comes from z_helpers.rb: later by name, but
    loaded first by ``require_relative``. Ruby finds the method; so must rdx, whether the two
    files are resolved together or the required one arrives in a later revision."""
    for name, text in REQUIRED_FILES.items():
        (tmp_path / name).write_text(text)
    probe = f'require_relative {str(tmp_path / "a_user")!r}\n'
    probe += 'require "json"\nputs JSON.generate(%w[greet wave].map { |m| [User.instance_method(m).owner.name, User.private_method_defined?(m) ? "private" : "public"] })\n'
    ruby = json.loads(run_ruby(probe, tmp_path))
    assert ruby == [["Helpers", "private"], ["Helpers", "public"]]
    g = build_graph(REQUIRED_FILES)
    answers = [(g["User"].find_member(f"{m}()"), m) for m in ("greet", "wave")]
    assert [[f.owner.name, f.visibility] for f, _ in answers] == ruby
    later = build_graph({"a_user.rb": REQUIRED_FILES["a_user.rb"]})
    later.index_source("file:///fixture/z_helpers.rb", REQUIRED_FILES["z_helpers.rb"])
    later.resolve()
    assert [[later["User"].find_member(f"{m}()").owner.name, later["User"].find_member(f"{m}()").visibility] for m in ("greet", "wave")] == ruby


VALUE_SCOPES = {
    "a.rb": "Foo = 1\nbegin\n  Dead = Missing::Thing\nrescue NameError\nend\n",
    "b.rb": """
begin
  class << Foo
    def x; end
    BAR = 1
  end
rescue TypeError
end
begin
  class Foo::Inner; def y; end; end
rescue TypeError
end
begin
  class Dead::Inner; def w; end; end
rescue NameError
end
begin
  class << Dead
    def v; end
  end
rescue NameError
end
""",
}
VALUE_PROBES = {
    "Foo::<Foo>": "Foo.singleton_class",
    "Foo::<Foo>#x()": "Foo.singleton_class.instance_method(:x)",
    "Foo::<Foo>::BAR": "Foo.singleton_class.const_get(:BAR)",
    "Foo::Inner": "Foo::Inner",
    "Foo::Inner#y()": "Foo::Inner.instance_method(:y)",
    "Dead::Inner": "Dead::Inner",
    "Dead::Inner#w()": "Dead::Inner.instance_method(:w)",
    "Dead::<Dead>": "Dead.singleton_class",
    "Dead::<Dead>#v()": "Dead.singleton_class.instance_method(:v)",
}


def test_scopes_that_name_a_value_declare_nothing(tmp_path):
    """``class << Foo`` where Foo holds 1, ``class Foo::Inner``, and the same under an alias that
    never resolves: Ruby raises (TypeError, NameError) and defines nothing; rdx declares
    nothing there, in one resolve and when the scopes arrive in a later revision."""
    for name, text in VALUE_SCOPES.items():
        (tmp_path / name).write_text(text)
    probe = "".join(f"require_relative {str(tmp_path / n)!r}\n" for n in sorted(VALUE_SCOPES))
    probe += 'require "json"\nputs JSON.generate({' + ", ".join(f'"{k}" => (!!({v}) rescue false)' for k, v in VALUE_PROBES.items()) + "})\n"
    ruby = json.loads(run_ruby(probe, tmp_path))
    assert set(ruby.values()) == {False}, ruby
    g = build_graph(VALUE_SCOPES)
    assert {name: g.get(name) is not None for name in VALUE_PROBES} == ruby
    assert g["Foo"].kind == "Constant"
    later = build_graph({"a.rb": VALUE_SCOPES["a.rb"]})
    later.index_source("file:///fixture/b.rb", VALUE_SCOPES["b.rb"])
    later.resolve()
    assert {name: later.get(name) is not None for name in VALUE_PROBES} == ruby


DEAD_CODE_FILES = {
    "app.rb": """
class String
  def shout; upcase + "!"; end
end
module Comparable
  def between_twice?; end
end
class Integer
  def to_s(*); super; end
end
class Widget
  def unused_helper; end
  def size; 0; end
end
OLD_LIMIT = 3
""",
    "gem.rb": "module GemThing\n  def gem_helper; end\nend\nclass Widget\n  def from_gem; end\nend\n",
}

EXISTS_IN_BARE_RUBY = """
require "json"
names = JSON.parse(STDIN.read)
out = names.map do |name|
  if name.include?("#")
    owner, meth = name.split("#")
    meth = meth.delete_suffix("()")
    mod = (Object.const_get(owner) rescue nil)
    [name, !!(mod && (mod.method_defined?(meth) || mod.private_method_defined?(meth)))]
  else
    [name, Object.const_defined?(name)]
  end
end
puts JSON.generate(out.to_h)
"""


def test_dead_code_candidates_are_never_core_or_dependency_declarations(tmp_path):
    """Every candidate is the project's own: bare Ruby (``--disable-gems``, nothing loaded)
    knows none of them, so no core class, module or method is listed, even when the project
    reopens or redefines it; declarations from a dependency's files are not listed either."""
    g = build_graph(DEAD_CODE_FILES)
    view_docs = g._store.documents  # noqa: SLF001 - marking a document as a gem's, as rdx.workspace.dependencies does
    for result in view_docs.values():
        if result.uri.endswith("/gem.rb"):
            result.library = "fake-gem-1.0"
    g.resolve()
    names = [d.name for d in g.dead_code_candidates()]
    script = tmp_path / "exists.rb"
    script.write_text(EXISTS_IN_BARE_RUBY)
    import subprocess

    proc = subprocess.run([RUBY, "--disable-gems", str(script)], input=json.dumps(names), capture_output=True, text=True, timeout=60, check=True)
    in_core = json.loads(proc.stdout)
    assert [n for n, known in in_core.items() if known] == []
    assert "String#shout()" in names and "Widget#unused_helper()" in names and "OLD_LIMIT" in names
    assert not {"String", "Comparable", "Integer#to_s()", "GemThing", "GemThing#gem_helper()", "Widget#from_gem()"} & set(names)


LATE_PREPENDS = """
module A; end
module B; end
module C; end
module I; end
module ::Kernel; prepend A; prepend B; end
module Base; end
class User; include Base; end
module Base; prepend A; end
module Base; prepend B; include I; end
module Base; prepend C; end
class Later; include Base; end
class Foo; end
"""


def test_modules_prepended_later_come_out_newest_first_in_every_includer(tmp_path):
    """Prepends to a module that classes already include (``Kernel``, in every chain; the
    debug gem prepends two interceptors to it) reach the includers newest first, as in the
    module's own chain: ``Object, B, A, Kernel``, not ``Object, A, B, Kernel``."""
    names = ["Foo", "Object", "Kernel", "Base", "User", "Later"]
    probe = LATE_PREPENDS + "require 'json'\nputs JSON.generate({" + ", ".join(f'"{n}" => {n}.ancestors.map(&:name)' for n in names) + "})\n"
    ruby = json.loads(run_ruby(probe, tmp_path))
    g = build_graph({"late.rb": LATE_PREPENDS})
    for name in names:
        ours = [a.name for a in g[name].ancestors]
        # Ruby's own core modules outside the stub's view (JSON's mixins, PP) are left out.
        assert ours == [n for n in ruby[name] if n in ours or n in ("A", "B", "C", "I", "Base", "Kernel")], name


FACTORIES = """
module M
  class Error < StandardError; end
  B = ::Class.new(Error)
  C = Module.new.freeze
  D = ::Struct.new(:x)
  E = Class.new(Error)
  F = "x".freeze
end
"""


def test_namespace_factories_written_with_a_leading_colon_pair_or_frozen(tmp_path):
    """``::Class.new(E)``, ``::Struct.new(:x)`` and ``Module.new.freeze`` make a class or a
    module as their plain spellings do (dry-types, asciidoctor, rspec-expectations)."""
    probe = FACTORIES + "require 'json'\nputs JSON.generate(%w[B C D E F].to_h { |n| v = M.const_get(n); [n, v.is_a?(Module) ? [v.class.name, v.ancestors.map(&:name).take(3), v.instance_methods(false).sort.map(&:to_s)] : nil] })\n"
    ruby = json.loads(run_ruby(probe, tmp_path))
    g = build_graph({"factories.rb": FACTORIES})
    for name, answer in ruby.items():
        decl = g[f"M::{name}"]
        if answer is None:
            assert decl.kind == "Constant", name
            continue
        kind, ancestors, methods = answer
        assert decl.kind == kind, name
        assert [a.name for a in decl.ancestors][: len(ancestors)] == ancestors, name
        assert sorted(m.unqualified_name.removesuffix("()") for m in decl.members if m.kind == "Method") == methods, name
