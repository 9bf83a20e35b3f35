"""Load-time calls of methods another file defines (``rdx.ruby.resolve.loadcalls``): Ruby runs
the files in name order (rdx's load order for files without requires) and says what the
ancestors are; edits of the caller's or the callee's file give the graph a fresh resolve gives.

Until ``rdx.ruby.discover.parse`` calls ``rdx.ruby.evaluate.loadtime.cross_file_facts`` itself and
passes its two lists to ``FileResult`` (``load_calls``, ``method_effects``), the ``wired``
fixture does it around ``RubyParser.discover``; it steps aside once the walker does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_ruby
from test_incremental import dump, fresh
from test_loadtime_calls import check

import rdx

SPELL = """
module Spell
  module Correctable; end
  module NameCheck; end
  def self.correct_error(error_class, spell_checker)
    @map = { error_class.to_s => spell_checker }
    error_class.prepend(Correctable) if error_class.is_a?(Class) && !(error_class < Correctable)
  end
end
"""

RAILS_STYLE = """
class AppError < StandardError
  class Correction; end
  if defined?(Spell) && Spell.respond_to?(:correct_error)
    Spell.correct_error(self, Correction)
  end
end
class SubError < AppError
  Spell.correct_error(self, Spell::NameCheck)
end
class Other < StandardError; end
Spell.correct_error(Other, Spell::NameCheck)
Spell.correct_error(KeyError, "not a constant")
"""


def test_correct_error_from_another_file(tmp_path: Path) -> None:
    """Rails' ``DidYouMean.correct_error(self, Correction)``: the callee's file prepends its
    module to the argument, guarded by ``!(error_class < Correctable)`` (SubError, whose
    superclass has it, gets it once); a top-level call with a constant argument works alike."""
    watch = ["Spell::Correctable", "AppError", "SubError", "Other", "KeyError", "IndexError", "StandardError"]
    files = {"a_spell.rb": SPELL, "b_errors.rb": RAILS_STYLE}
    ruby, ours = check(tmp_path, files, ["AppError", "SubError", "Other", "KeyError"], watch)
    assert ours == ruby
    assert ruby[0][0] == "Spell::Correctable"  # The case is not vacuous.


HOOKS = """
module Hooks
  extend self
  module Greeting; end
  module Loud; end
  module Quiet; end
  def install(base, extra = Loud)
    base.include(Greeting)
    base.send(:prepend, extra)
    quiet(base)
  end
  def quiet(target)
    target.extend(Quiet)
  end
end
module Tools
  module Helper; end
  module_function
  def add(base) = base.include(Helper)
end
class Box
  module Lid; end
  class << self
    def close(base)
      base.include(Lid)
    end
  end
end
"""

USES = """
class Target
  Hooks.install(self)
  Tools.add(self)
  Box.close(self)
end
class Other; end
Hooks.install(Other, Hooks::Quiet)
"""


def test_extend_self_module_function_singleton_class_and_nested_calls(tmp_path: Path) -> None:
    """Methods callable on a module through ``extend self``, ``module_function`` and
    ``class << self``; a default argument; a call of another method of the callee's file."""
    watch = ["Hooks::Greeting", "Hooks::Loud", "Hooks::Quiet", "Tools::Helper", "Box::Lid", "Target", "Other"]
    files = {"a_hooks.rb": HOOKS, "b_uses.rb": USES}
    ruby, ours = check(tmp_path, files, ["Target", "Other", "Target", "Other"], watch, ())
    assert ours[:2] == ruby[:2]
    single = check(tmp_path, files, ["Target", "Other"], watch, ("Target", "Other"))
    assert single[1] == single[0]
    assert "Hooks::Quiet" in single[0][0]


LATER = """
class Early
  Lib.wrap(self) if defined?(Lib) && Lib.respond_to?(:wrap)
end
"""

LIB = """
module Lib
  module Wrapped; end
  def self.wrap(base)
    base.include(Wrapped)
  end
end
class Late
  Lib.wrap(self)
end
"""

OVERRIDE = """
module Lib
  def self.wrap(base); end
end
class Latest
  Lib.wrap(self)
end
"""


def test_only_methods_defined_earlier_and_the_last_definition_count(tmp_path: Path) -> None:
    """A call in a file loaded before the method's file finds nothing (Ruby: respond_to? is
    false); a later redefinition without mixins replaces the method for later calls."""
    watch = ["Lib::Wrapped", "Early", "Late", "Latest"]
    files = {"a_early.rb": LATER, "b_lib.rb": LIB, "c_override.rb": OVERRIDE}
    ruby, ours = check(tmp_path, files, ["Early", "Late", "Latest"], watch)
    assert ours == ruby
    assert ruby == [["Early"], ["Late", "Lib::Wrapped"], ["Latest"]]


# -- incrementality ------------------------------------------------------------------------

BASE = {"file:///x/a_spell.rb": SPELL, "file:///x/b_errors.rb": RAILS_STYLE, "file:///x/c_plain.rb": "class Plain\n  def x; end\nend\n"}
EDITS = [
    ("file:///x/a_spell.rb", SPELL.replace("error_class.prepend(Correctable)", "error_class.include(Correctable)")),
    ("file:///x/a_spell.rb", SPELL.replace("    @map = ", "    helper\n    @map = ").replace("module NameCheck; end", "module NameCheck; end\n  def self.helper; end")),
    ("file:///x/a_spell.rb", SPELL.replace("def self.correct_error(error_class, spell_checker)", "def self.other(error_class, spell_checker)")),
    ("file:///x/b_errors.rb", RAILS_STYLE.replace("Spell.correct_error(self, Correction)", "nil")),
    ("file:///x/b_errors.rb", RAILS_STYLE + "class More < StandardError\n  def m; end\nend\n"),
    ("file:///x/c_plain.rb", "class Plain\n  def x; end\n  def y; end\nend\n"),
    ("file:///x/c_plain.rb", "module Spell\n  def self.correct_error(a, b); end\nend\n"),
    # A module's own method: ``extend self`` makes it callable on the module.
    ("file:///x/c_plain.rb", "module Spell\n  extend self\n  def correct_error(a, b); end\nend\n"),
    ("file:///x/c_plain.rb", "class Plain\n  def x; end\n  class << self\n    def correct_error(a, b); end\n  end\nend\n"),
    ("file:///x/a_two.rb", "module Spell\n  def self.correct_error(a, b); end\nend\n"),
    ("file:///x/0_first.rb", "module Spell\n  module Correctable; end\nend\n"),
    ("file:///x/d_new.rb", "class Newer < StandardError\n  Spell.correct_error(self, Spell::NameCheck)\nend\n"),
]


@pytest.mark.parametrize("uri, text", EDITS, ids=[f"{i}" for i in range(len(EDITS))])
def test_edits_of_caller_or_callee_match_a_fresh_resolve(uri: str, text: str) -> None:
    files = dict(BASE)
    g = fresh(files)
    assert "Spell::Correctable" in [a.name for a in g["AppError"].ancestors]
    files[uri] = text
    g.index_source(uri, text)
    g.resolve()
    assert dump(g) == dump(fresh(files)), g.last_fallback


def test_deleting_the_callee_file_matches_a_fresh_resolve() -> None:
    files = dict(BASE)
    g = fresh(files)
    del files["file:///x/a_spell.rb"]
    g.delete_document("file:///x/a_spell.rb")
    g.resolve()
    assert dump(g) == dump(fresh(files))
    assert "Spell::Correctable" not in [a.name for a in g["AppError"].ancestors]


@pytest.mark.parametrize("text", [
    "class Plain\n  def x; end\n  def z; end\nend\n",
    # An instance method of a class named like a called method: no load-time call can run it,
    # and a class added above it moves nothing.
    "class Added\n  def correct_error(a, b); end\nend\nclass Plain\n  def x; end\n  def correct_error; end\nend\n",
])
def test_an_unrelated_member_edit_stays_incremental(text: str) -> None:
    files = dict(BASE)
    g = fresh(files)
    uri = "file:///x/c_plain.rb"
    files[uri] = text
    g.index_source(uri, files[uri])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert dump(g) == dump(fresh(files))


def test_snapshot_restores_the_applied_mixins(tmp_path: Path) -> None:
    """A warm start restores the mixins of load-time calls from the snapshot's image: an edit
    after it that computes AppError's chain again (its prepended module changes) finds them."""
    extra = "module Extra; end\nmodule Spell\n  module Correctable\n  end\nend\n"
    sources = {"a_spell.rb": SPELL, "b_errors.rb": RAILS_STYLE, "c_extra.rb": extra}
    project = tmp_path / "project"
    project.mkdir()
    for name, text in sources.items():
        (project / name).write_text(text)
    cold = rdx.Graph.open(project, jobs=1)
    chain = [a.name for a in cold["SubError"].ancestors]
    assert "Spell::Correctable" in chain
    assert run_ruby(SPELL + RAILS_STYLE + "puts SubError.ancestors.include?(Spell::Correctable)", tmp_path).strip() == "true"
    warm = rdx.Graph.open(project, jobs=1)
    assert warm.open_stats["resolved"] is True
    assert [a.name for a in warm["SubError"].ancestors] == chain
    sources["c_extra.rb"] = extra.replace("module Correctable\n", "module Correctable\n    include Extra\n")
    warm.index_source((project / "c_extra.rb").as_uri(), sources["c_extra.rb"])
    warm.resolve()
    assert warm.last_resolve == "incremental", warm.last_fallback
    scratch = fresh({(project / n).as_uri(): t for n, t in sources.items()})
    for name in ("AppError", "SubError"):
        assert [a.name for a in warm[name].ancestors] == [a.name for a in scratch[name].ancestors]
    assert "Extra" in [a.name for a in warm["AppError"].ancestors]


# -- templates that no load-time call runs (issue 21: ``def`` typed in a ``class << self`` body) --

TYPING = "module Top\n  module Mid\n    class Foo < Base\n      class << self\n        {typed}\n      end\n      include Helpers\n      extend Ext\n\n      MSG = 'x'\n\n      def x; end\n    end\n  end\nend\n"
TYPING_LIB = "module Top\n  module Mid\n    class Base\n    end\n    module Helpers\n      def h; end\n    end\n    module Ext\n    end\n  end\nend\n"


def test_typing_def_in_a_class_self_body_above_mixins_stays_incremental() -> None:
    # ``def`` before its name is typed: tree-sitter reads a method named ``end`` whose body
    # takes the class's ``include``/``extend`` lines, a template of mixin effects. No load-time
    # call runs a method of that name, so the template changes nothing another file sees.
    from test_incremental_placeholders import replay

    texts = [TYPING.format(typed=t) for t in ("", "d", "def", "def ", "def h", "def helper")]
    files = {"file:///x/lib.rb": TYPING_LIB, "file:///x/typing.rb": TYPING.format(typed="")}
    assert replay(files, [("file:///x/typing.rb", t) for t in texts]) == [None] * len(texts)


TOOLS = "module Tools\n  def self.setup(base)\n    base.{kind}(Spell::NameCheck)\n  end\nend\n"


def test_a_template_no_call_runs_changes_incrementally_until_a_call_runs_it(tmp_path: Path) -> None:
    from test_incremental_placeholders import replay

    called = "the mixin effects of a method a load-time call may run change"
    steps: list[tuple[str, str | None]] = [
        ("file:///x/c_plain.rb", TOOLS.format(kind="include")),  # A template nothing calls.
        ("file:///x/c_plain.rb", TOOLS.format(kind="prepend")),  # It changes.
        ("file:///x/d_uses.rb", "class Uses\n  Tools.setup(self)\nend\n"),  # A call of another file's method.
        ("file:///x/c_plain.rb", TOOLS.format(kind="include")),  # Now the change reaches Uses.
        ("file:///x/d_uses.rb", None),
        ("file:///x/c_plain.rb", "class Plain\nend\n"),
    ]
    assert replay(dict(BASE), steps) == [
        None,
        None,
        "add file:///x/d_uses.rb: its load-time calls of other files' methods change",
        f"replace file:///x/c_plain.rb: {called}",
        "remove file:///x/d_uses.rb: its load-time calls apply mixins of another file's method",
        None,
    ]
    # Ruby agrees on what the call applies once it runs the template.
    files = dict(BASE)
    files.update({"file:///x/c_plain.rb": TOOLS.format(kind="include"), "file:///x/d_uses.rb": "class Uses\n  Tools.setup(self)\nend\n"})
    program = "".join(files[u] for u in sorted(files)) + "puts Uses.ancestors.take(2).inspect\n"
    assert run_ruby(program, tmp_path).strip() == "[Uses, Spell::NameCheck]"
    assert [a.name for a in fresh(files)["Uses"].ancestors][:2] == ["Uses", "Spell::NameCheck"]


@pytest.mark.parametrize("template_first", [True, False])
def test_a_call_on_self_and_a_template_of_its_name_meeting_fall_back_whichever_comes_first(template_first: bool) -> None:
    # ``setup_it()`` in a class body runs nothing until the superclass defines ``self.setup_it``
    # with a mixin effect; whichever of the two edits comes second changes Child's chain.
    from test_incremental_placeholders import replay

    parent = "class Parent\n  def self.setup_it\n    include Spell::NameCheck\n  end\nend\n"
    child = "class Child < Parent\n  setup_it()\nend\n"
    files = dict(BASE)
    files.update({"file:///x/c_plain.rb": "class Parent\nend\n", "file:///x/d_child.rb": "class Child < Parent\nend\n"})
    steps: list[tuple[str, str | None]] = [("file:///x/c_plain.rb", parent), ("file:///x/d_child.rb", child)]
    if not template_first:
        steps.reverse()
    reasons = replay(files, steps)
    second = "its load-time calls of other files' methods change" if template_first else "the mixin effects of a method a load-time call may run change"
    assert reasons == [None, f"replace {steps[1][0]}: {second}"]
    assert "Spell::NameCheck" in [a.name for a in fresh({**files, **dict(steps)})["Child"].ancestors]  # type: ignore[arg-type]


MACROS = "module Tools\n  def self.setup(base, m)\n    base.include(m)\n  end\nend\nmodule Config\nend\n"


@pytest.mark.parametrize("call, runs", [("setting Config", False), ("Tools.other(self, Config)", False), ("Tools.setup(self, Config)", True)])
def test_an_argument_finding_another_constant_matters_only_to_a_call_that_runs_a_template(call: str, runs: bool) -> None:
    # ``App::Config`` added in another file: ``Config`` in App's body now finds it. A call of a
    # method no template has (a macro, a probe) applies nothing, wherever its arguments lead
    # (``LoadCalls.binding_paths``); ``Tools.setup`` runs one, whose mixin may change.
    from test_incremental_placeholders import replay

    files = {"file:///ab/a.rb": MACROS + f"class App\n  {call}\nend\n", "file:///ab/b.rb": "class Other\nend\n"}
    reasons = replay(files, [("file:///ab/b.rb", "class App\n  module Config\n  end\nend\n"), ("file:///ab/b.rb", "class Other\nend\n")])
    if runs:
        assert reasons[0] == "replace file:///ab/b.rb: a constant path in file:///ab/a.rb now finds something else"
    else:
        assert reasons == [None, None]


@pytest.mark.parametrize("pad", ["\n", "\n\n\n", "   \n\n" * 20, "# comment\n" * 3])
def test_leading_blank_lines_do_not_shift_what_a_method_body_is_searched_for(pad: str) -> None:
    # ``root.text`` starts at the first token, the records' ranges at the file's start: a
    # method's text is searched at its range less the root's first byte. Before, a file
    # opening with blank lines lost its templates and computed requires.
    from rdx.ruby.discover.parse import discover_source

    src = 'module Tools\n  def self.setup(base)\n    base.include(Spell)\n  end\n  def self.go(x)\n    require "a/#{x}"\n  end\nend\n'
    plain, padded = discover_source("file:///x.rb", src.encode()), discover_source("file:///x.rb", (pad + src).encode())
    assert len(plain.method_effects) == len(padded.method_effects) == 1
    assert [r.path for r in plain.requires] == [r.path for r in padded.requires] == ["a/#{}"]
    assert [r.start + len(pad) for r in plain.requires] == [r.start for r in padded.requires]
