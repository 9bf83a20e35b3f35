"""Load-time calls of methods defined in the same file apply the mixins of their bodies
(rdx.ruby.evaluate.loadtime): Ruby runs the fixtures and says what the ancestors are."""

from __future__ import annotations

from pathlib import Path

from conftest import build_graph, run_ruby

from rdx.ruby.discover.parse import discover_source

ASK = """
%s
[%s].each do |name, singleton|
  k = Object.const_get(name)
  k = k.singleton_class if singleton
  puts k.ancestors.map(&:to_s).select { |a| WATCH.include?(a) }.join(" ")
end
"""


def check(tmp_path: Path, files: dict[str, str], names: list[str], watch: list[str], singleton: tuple[str, ...] = ()) -> tuple[list[list[str]], list[list[str]]]:
    """Ruby's and rdx's ancestors of ``names`` (singleton classes for those in ``singleton``),
    both restricted to ``watch``. Ruby runs the files in name order, as rdx indexes them."""
    source = "\n".join(files[n] for n in sorted(files)) + f"\nWATCH = {watch!r}\n"
    pairs = ", ".join(f"[{n!r}, {str(n in singleton).lower()}]" for n in names)
    ruby = [line.split() for line in run_ruby(ASK % (source, pairs), tmp_path).splitlines()]
    g = build_graph(files)
    ours = []
    for n in names:
        decl = g[n].singleton_class if n in singleton else g[n]
        ours.append([a.name for a in decl.ancestors if a.name in watch])
    return ruby, ours


def _ruby_vs_rdx(tmp_path: Path, files: dict[str, str], names: list[str], watch: list[str], singleton: tuple[str, ...] = ()) -> None:
    ruby, ours = check(tmp_path, files, names, watch, singleton)
    assert ours == ruby


HOOK = """
module Top
  module Deps
    extend self
    module Loadable
      def self.include_into(base)
        base.include(self)
        base.remove_method(:zzz) if base.method_defined?(:zzz, false)
      end
    end
    module Blamable; end
    module ConstMissing
      def self.append_features(base)
        super
      end
      def self.include_into(base)
        base.include(self)
        append_features(base)
      end
    end
    def hook!
      Loadable.include_into(Object)
      ConstMissing.include_into(Module)
      Exception.include(Blamable)
    end
  end
end
class Plain; end
Top::Deps.hook!
"""


def test_hook_style_extend_self_and_include_into(tmp_path: Path) -> None:
    """ActiveSupport::Dependencies.hook!: an ``extend self`` module's method, called at top
    level, calls ``Mod.include_into(Object)`` whose body includes ``self`` into its parameter."""
    watch = ["Top::Deps::Loadable", "Top::Deps::Blamable", "Top::Deps::ConstMissing", "Object", "Module", "Exception", "Plain", "StandardError"]
    _ruby_vs_rdx(tmp_path, {"deps.rb": HOOK}, ["Plain", "Object", "Module", "Class", "StandardError", "Exception"], watch)


SPELL = """
module Spell
  module Correctable; end
  module NameCheck; end
  def self.correct_error(error_class, spell_checker)
    if defined?(Ractor)
      @map = { error_class.to_s => spell_checker }
    else
      @map = {}
    end
    error_class.prepend(Correctable) if error_class.is_a?(Class) && !(error_class < Correctable)
  end
  correct_error NameError, NameCheck
  correct_error NoMethodError, NameCheck
  correct_error KeyError, NameCheck if RUBY_VERSION >= '2.8.0'
  correct_error NoMatchingPatternKeyError, NameCheck if defined?(::NoMatchingPatternKeyError)
end
class MissingThing < NoMethodError; end
"""


def test_correct_error_style_parameter_and_modifier_if(tmp_path: Path) -> None:
    """did_you_mean: a module body calls its own ``def self.correct_error(klass, _)``, which
    prepends a module to its parameter under a modifier ``if`` (taken, as in Ruby 3.1) guarded
    by ``!(error_class < Correctable)``: NoMethodError, whose superclass has it, gets it once."""
    watch = ["Spell::Correctable", "NameError", "NoMethodError", "KeyError", "IndexError", "NoMatchingPatternKeyError", "StandardError", "MissingThing"]
    names = ["NameError", "NoMethodError", "MissingThing", "KeyError", "NoMatchingPatternKeyError"]
    _ruby_vs_rdx(tmp_path, {"spell.rb": SPELL}, names, watch)


SELF_IN_BODY = """
module Helpers
  module Greeting; end
  module Loud; end
  module Quiet; end
  def self.install(base, extra = Loud)
    base.include(Greeting)
    base.send(:prepend, extra)
    base.extend(self)
  end
  class << self
    def quietly(base) = base.include(Quiet)
  end
end
module Tools
  module Mark; end
  module_function
  def mark(k) = k.include(Mark)
end
class Widget
  Helpers.install(self)
end
class Gadget
  def self.setup(k)
    Helpers.quietly(k)
    k.include(Comparable)
  end
  setup(self)
  Tools.send(:mark, self)
end
"""


def test_method_called_in_a_class_body_with_self(tmp_path: Path) -> None:
    """``Helpers.install(self)`` and bare ``setup(self)`` in a class body, a default parameter,
    ``send(:prepend, ...)``, ``extend(self)``, ``class << self`` and ``module_function``
    methods, and a nested call of another method of the file."""
    watch = ["Helpers", "Helpers::Greeting", "Helpers::Loud", "Helpers::Quiet", "Tools::Mark", "Comparable", "Widget", "Gadget"]
    files = {"helpers.rb": SELF_IN_BODY}
    _ruby_vs_rdx(tmp_path, files, ["Widget", "Gadget"], watch)
    _ruby_vs_rdx(tmp_path, files, ["Widget"], watch, singleton=("Widget",))


RECURSIVE = """
module Rec
  module A; end
  module B; end
  def self.ping(base, depth)
    base.include(A)
    pong(base, depth - 1) if depth > 0
  end
  def self.pong(base, depth)
    base.include(B)
    ping(base, depth - 1) if depth > 0
  end
  def self.go(k) = k.include(A)
  class Early; end
  go(Early)
  def self.go(k) = k.include(B)
end
class R
  Rec.ping(self, 3)
end
"""


def test_recursion_guard_and_the_definition_in_force(tmp_path: Path) -> None:
    """Mutually recursive methods are inlined once each (Ruby includes the same modules again,
    which changes nothing); a call runs the definition that precedes it, not a later one."""
    _ruby_vs_rdx(tmp_path, {"rec.rb": RECURSIVE}, ["R", "Rec::Early"], ["Rec::A", "Rec::B", "R", "Rec::Early"])


def test_callee_in_another_file_is_bound_by_resolution(tmp_path: Path) -> None:
    """A load-time call of a method another file defines: discovery records the call and the
    method's effects, resolution binds them (rdx.ruby.resolve.loadcalls; more cases in
    tests/test_loadtime_cross_file.py)."""
    files = {
        "a.rb": "module Installer\n  module Mark; end\n  def self.install(base) = base.include(Mark)\nend\n",
        "b.rb": "class Thing\n  Installer.install(self)\nend\n",
    }
    ruby, ours = check(tmp_path, files, ["Thing"], ["Thing", "Installer::Mark"])
    assert ruby == ours == [["Thing", "Installer::Mark"]]


def test_unknown_arguments_and_self_in_blocks_record_nothing() -> None:
    """Conservative: an argument that is not a constant, ``self`` or a bound parameter, ``self``
    inside a block, a splat, a call before the definition and an ``else`` branch give no record."""
    source = b"""
module H
  module M; end
  def self.a(base) = base.include(M)
  def self.b(base)
    base.class_eval { include M }
    if base then 1 else base.include(M) end
  end
end
class K
  H.a(foo)
  [1].each { H.a(self) }
  H.a(*[K])
  H.b(K)
  H.c(K)
  def self.later; end
end
"""
    assert discover_source("file:///x.rb", source).external_mixins == []


def test_edits_of_callee_and_caller_match_a_fresh_graph() -> None:
    """Incremental updates: editing the callee's body (which module it includes), the caller's
    argument, or another file, gives the graph a fresh resolve gives."""
    from test_incremental import dump, fresh

    files = {
        "file:///lt/a.rb": SELF_IN_BODY,
        "file:///lt/b.rb": "class Other\n  Helpers.install(self)\nend\n",
    }
    g = fresh(files)
    edits = [
        ("file:///lt/a.rb", SELF_IN_BODY.replace("base.include(Greeting)", "base.include(Quiet)")),
        ("file:///lt/a.rb", SELF_IN_BODY.replace("  Helpers.install(self)\n", "  Helpers.install(Gadget)\n")),
        ("file:///lt/b.rb", "class Other\n  include Helpers::Loud\nend\n"),
        ("file:///lt/a.rb", SELF_IN_BODY + "\n# a comment\n"),
    ]
    for uri, text in edits:
        files[uri] = text
        g.index_source(uri, text)
        g.resolve()
        assert dump(g) == dump(fresh(files)), uri
    assert [a.name for a in g["Widget"].ancestors][:2] == ["Helpers::Loud", "Widget"]


def test_a_resolved_snapshot_keeps_the_inlined_mixins(tmp_path: Path) -> None:
    """The resolved image stores the external mixins by position; reopened, the chains that
    an inlined call built (module looked up at the callee, target at the caller) are the same."""
    import rdx

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "deps.rb").write_text(HOOK)
    (tmp_path / "lib" / "spell.rb").write_text(SPELL)
    g = rdx.Graph.open(tmp_path)
    cold = {n: [a.name for a in g[n].ancestors] for n in ("Plain", "Module", "MissingThing")}
    g2 = rdx.Graph.open(tmp_path)
    assert g2.open_stats["resolved"] is True
    assert {n: [a.name for a in g2[n].ancestors] for n in cold} == cold
    assert "Top::Deps::Loadable" in cold["Plain"] and cold["MissingThing"].count("Spell::Correctable") == 1
