"""Placeholders in incremental updates (issue 21): a person typing makes unresolved names all the
time, so edits that create, find, promote, demote or drop ``Todo`` placeholders stay
incremental, and every resolve equals a graph built from scratch over the same files."""

from __future__ import annotations

import pytest

import rdx
from tests.test_incremental import dump, fresh

BASE = "module Cop\n  class Base\n    def on; end\n  end\n  module RangeHelp\n    def range; end\n  end\nend\n"
NAV = "module Cop\n  module Style\n    class SafeNav < Base\n      def on_send(node)\n        Base\n      end\n    end\n  end\nend\n"
OTHER = "class Other\n  def x\n    Ba\n    B\n    NotWrittenYet.new\n  end\nend\n"


def replay(files: dict[str, str], steps: list[tuple[str, str | None]]) -> list[str | None]:
    """Apply each step (a file's new text, or None to delete it) and resolve; every resolve is
    compared with a fresh graph. Returns the fallback reasons (None for incremental)."""
    g = fresh(files, core=False)
    current = dict(files)
    reasons: list[str | None] = []
    for uri, text in steps:
        if text is None:
            g.delete_document(uri)
            current.pop(uri)
        else:
            g.index_source(uri, text)
            current[uri] = text
        g.resolve()
        reasons.append(None if g.last_resolve == "incremental" else g.last_fallback)
        assert dump(g) == dump(fresh(current, core=False)), f"after {uri}:\n{text}"
    return reasons


def project() -> dict[str, str]:
    return {"file:///p/base.rb": BASE, "file:///p/nav.rb": NAV, "file:///p/other.rb": OTHER}


def test_typing_a_superclass_letter_by_letter_stays_incremental():
    steps = [("file:///p/nav.rb", NAV.replace(" < Base", typed)) for typed in ("", " < B", " < Ba", " < Bas", " < Base")]
    assert replay(project(), steps) == [None] * len(steps)


def test_typing_a_mixin_letter_by_letter_stays_incremental():
    steps = [("file:///p/nav.rb", NAV.replace("      def on_send", f"      include {typed}\n      def on_send")) for typed in ("R", "Ra", "Ran", "RangeHelp")]
    steps.append(("file:///p/nav.rb", NAV))
    assert replay(project(), steps) == [None] * len(steps)


def test_the_placeholder_a_superclass_made_goes_and_references_follow():
    g = fresh(project(), core=False)
    g.index_source("file:///p/nav.rb", NAV.replace(" < Base", " < B"))
    g.resolve()
    assert g["B"].kind == "Todo"
    in_other = [r for r in g.constant_references if r.name == "B" and "other.rb" in str(r.location)]
    assert [r.declaration.name for r in in_other if r.declaration] == ["B"]
    g.index_source("file:///p/nav.rb", NAV.replace(" < Base", " < Ba"))
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert g.get("B") is None and g.get("B::<B>") is None and g["Ba"].kind == "Todo"
    assert [a.name for a in g["Cop::Style::SafeNav"].ancestors][:2] == ["Cop::Style::SafeNav", "Ba"]
    assert not any(r.declaration for r in g.constant_references if r.name == "B")


def test_a_new_file_with_an_unwritten_superclass_and_its_deletion_stay_incremental():
    draft = "class Draft < NotWrittenYet\n  include AlsoMissing::Deep\n  def m; end\nend\n"
    steps: list[tuple[str, str | None]] = [("file:///p/draft.rb", draft), ("file:///p/draft.rb", None)]
    typed = "class Draft2 < NotWrittenYet\n  def m; end\nend\n"
    steps += [("file:///p/typed.rb", typed[:n]) for n in range(1, len(typed) + 1)]
    steps.append(("file:///p/typed.rb", None))
    assert replay(project(), steps) == [None] * len(steps)


def test_renaming_a_class_another_file_subclasses_demotes_it_to_a_placeholder():
    files = {
        "file:///d/a.rb": "class Animal\n  def speak; end\n  def self.kingdom; end\nend\n",
        "file:///d/b.rb": "class Dog < Animal\n  def bark; Animal.kingdom; end\nend\n",
    }
    steps = [
        ("file:///d/a.rb", files["file:///d/a.rb"].replace("Animal", "Beast")),
        ("file:///d/a.rb", files["file:///d/a.rb"]),
    ]
    assert replay(files, steps) == [None, None]


def test_defining_what_was_a_placeholder_promotes_it():
    files = {
        "file:///d/a.rb": "class Widget\n  include Helpers\nend\n",
        "file:///d/b.rb": "# nothing yet\n",
    }
    helpers = "module Helpers\n  include Comparable\n  def help; end\nend\n"
    steps = [("file:///d/b.rb", helpers), ("file:///d/b.rb", "# nothing yet\n"), ("file:///d/c.rb", helpers), ("file:///d/c.rb", None)]
    assert replay(files, steps) == [None] * len(steps)


def test_a_reopening_with_mixins_added_and_removed_stays_incremental():
    files = {
        "file:///r/a.rb": "module Loud\n  def shout; end\nend\nclass Speaker\n  def talk; end\nend\nclass Radio < Speaker; end\n",
        "file:///r/b.rb": "# later\n",
    }
    steps = [
        ("file:///r/b.rb", "class Speaker\n  include Loud\nend\n"),
        ("file:///r/b.rb", "class Speaker\n  include Loud\n  prepend Missing\nend\n"),
        ("file:///r/b.rb", "# later\n"),
    ]
    assert replay(files, steps) == [None] * len(steps)


@pytest.mark.parametrize(
    "first, second",
    [
        # A placeholder that is both a superclass and a mixin: a full resolve's answer depends on
        # which lookup runs first, so this one stays a named fallback.
        ("class A < M\nend\n", "class B\n  include M\nend\n"),
    ],
)
def test_an_order_dependent_placeholder_falls_back_and_says_why(first, second):
    files = {"file:///o/a.rb": first, "file:///o/b.rb": "# empty\n"}
    reasons = replay(files, [("file:///o/b.rb", second)])
    assert reasons[0] is not None and "placeholder" in reasons[0]


def test_the_published_revision_is_not_changed_by_an_update_that_creates_placeholders():
    g = fresh(project(), core=False)
    before = g._view.state
    object_members = dict(before.declarations[before.object_id].members)
    g.index_source("file:///p/nav.rb", NAV.replace(" < Base", " < Brand::New"))
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert dict(before.declarations[before.object_id].members) == object_members
    assert g["Brand::New"].kind == "Todo" and "Brand" not in object_members


def test_graph_api_reports_no_stale_fallback_after_an_incremental_resolve():
    g = rdx.Graph(core=False)
    g.index_source("file:///s/a.rb", "class A < Missing; end\n")
    g.resolve()
    g.index_source("file:///s/a.rb", "class A < Missin; end\n")
    g.resolve()
    assert (g.last_resolve, g.last_fallback) == ("incremental", None)


def test_renaming_a_class_its_own_file_still_subclasses_further_up_demotes_it():
    files = {"file:///o/a.rb": "class Sub < Base\n  def s; end\nend\nclass Base\n  def b; end\nend\n", "file:///o/b.rb": "Sub.new.s\n"}
    steps = [("file:///o/a.rb", files["file:///o/a.rb"].replace("class Base", "class BaseR")), ("file:///o/a.rb", files["file:///o/a.rb"])]
    # Back again: the placeholder its own file mentions is promoted; that file's lookups of the
    # name are checked before and after, as other files' are.
    assert replay(files, steps) == [None, None]


def test_renaming_a_module_its_own_file_includes_demotes_and_promotes_it():
    # ``include M`` stands after ``module M`` in the same file: renaming the module moves the
    # include among the file's constant definitions (its lookup is the same), and the name it
    # looks up becomes a placeholder; renaming back promotes it. MR is also reopened elsewhere.
    files = {
        "file:///m/a.rb": "module M\n  def a; end\nend\nclass A\n  include M\n  def c; end\nend\n",
        "file:///m/b.rb": "require_relative 'a'\nclass B < A\n  include M\nend\n",
        "file:///m/d.rb": "module MR\n  def self.s; end\nend\n",
    }
    renamed = files["file:///m/a.rb"].replace("module M\n", "module MR\n")
    steps = [("file:///m/a.rb", renamed), ("file:///m/a.rb", files["file:///m/a.rb"]), ("file:///m/a.rb", renamed)]
    assert replay(files, steps) == [None, None, None]


def test_a_module_added_in_front_of_an_include_that_found_another_stays_exact():
    # ``include M`` inside ``class A`` found the top-level M; a ``module M`` added inside A
    # before it is found instead: A's chain is computed again, or the update falls back, and
    # either way the graph equals a fresh one.
    files = {
        "file:///n/a.rb": "class A\n  include M\nend\n",
        "file:///n/m.rb": "module M\n  def m; end\nend\n",
    }
    steps = [("file:///n/a.rb", "class A\n  module M\n    def inner; end\n  end\n  include M\nend\n"), ("file:///n/a.rb", files["file:///n/a.rb"])]
    replay(files, steps)


def test_a_constant_assigned_again_in_a_new_file_and_removed_stays_incremental():
    # ``A::X`` assigned in a second file: the declaration gains a definition, then loses it.
    files = {
        "file:///k/a.rb": "class A\n  X = 1\n  def a; X; end\nend\n",
        "file:///k/b.rb": "require_relative 'a'\nA::X\n",
    }
    again = "class A\n  X = 2\n  def x; end\nend\n"
    steps = [("file:///k/c.rb", again), ("file:///k/c.rb", "class A\n  def x; end\nend\n"), ("file:///k/c.rb", again), ("file:///k/c.rb", None)]
    assert replay(files, steps) == [None] * len(steps)


@pytest.mark.parametrize(
    "text",
    [
        "class Wrong < Helpers\n  def w; end\nend\n",  # a module as superclass
        "class Wrong\n  include Widget\nend\n",  # a class as mixin
        "class Wrong < Comparable\n  include Kernel\nend\n",  # core ones
    ],
)
def test_an_added_superclass_or_mixin_of_the_wrong_kind_is_a_diagnostic_not_a_fallback(text):
    files = {"file:///w/a.rb": "module Helpers\n  def h; end\nend\nclass Widget\nend\n"}
    g = fresh(files)
    g.index_source("file:///w/b.rb", text)
    g.resolve()
    assert (g.last_resolve, g.last_fallback) == ("incremental", None)
    assert dump(g) == dump(fresh({**files, "file:///w/b.rb": text}))
    assert any(d.code in ("invalid-superclass", "invalid-mixin") for d in g.diagnostics)
