"""Placeholders in incremental updates (issue 21): a person typing makes unresolved names all the
time, so edits that create, find, promote, demote or drop ``Todo`` placeholders stay
incremental, and every resolve equals a graph built from scratch over the same files."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from test_incremental import dump, fresh, fresh_dump

import rdx

BASE = "module Cop\n  class Base\n    def on; end\n  end\n  module RangeHelp\n    def range; end\n  end\nend\n"
NAV = "module Cop\n  module Style\n    class SafeNav < Base\n      def on_send(node)\n        Base\n      end\n    end\n  end\nend\n"
OTHER = "class Other\n  def x\n    Ba\n    B\n    NotWrittenYet.new\n  end\nend\n"


def replay(files: dict[str, str], steps: list[tuple[str, str | None]], core: bool = False) -> list[str | None]:
    """Apply each step (a file's new text, or None to delete it) and resolve; every resolve is
    compared with a fresh graph. Returns the fallback reasons (None for incremental)."""
    g = fresh(files, core=core)
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
        assert dump(g) == fresh_dump(current, core=core), f"after {uri}:\n{text}"
    return reasons


def ruby_prints(script: str) -> str:
    """What Ruby prints running ``script`` (the oracle of these tests)."""
    ruby = shutil.which("ruby")
    assert ruby is not None, "ruby is the oracle of this test: install it"
    return subprocess.run([ruby, "-e", script], capture_output=True, text=True, check=True).stdout


def toggled(files: dict[str, str], uri: str, text: str) -> tuple[rdx.Graph, str]:
    """Replace ``uri`` with ``text``, back and again, each step incremental and equal to a
    fresh graph; returns the fresh graph with ``text`` and the program (the files in load
    order) for Ruby."""
    steps: list[tuple[str, str | None]] = [(uri, text), (uri, files[uri]), (uri, text)]
    assert replay(files, steps) == [None] * len(steps)
    edited = {**files, uri: text}
    return fresh(edited, core=False), "".join(edited[u] for u in sorted(edited))


def targets_in(g: rdx.Graph, path: str) -> dict[int, str | None]:
    """Line -> what the constant reference on it names, in file ``path``."""
    return {r.location.start_line: r.declaration and r.declaration.name for r in g.constant_references if r.location.path == path}


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


def ancestors_of(files: dict[str, str], names: list[str]) -> dict[str, list[str]]:
    g = fresh(files, core=False)
    return {n: [a.name for a in g[n].ancestors] for n in names}


@pytest.mark.parametrize("swap", [False, True])
def test_a_placeholder_both_a_superclass_and_a_mixin_is_the_same_whichever_lookup_meets_it_first(swap):
    # Every placeholder has Object as its superclass, whoever makes it; including one inserts
    # only its own part. So the answer does not depend on whether ``include M`` or ``< M`` is
    # looked up first (the file order decides which), and no Object appears twice.
    texts = ["class A\n  include M\nend\n", "class B < M\nend\n"]
    if swap:
        texts.reverse()
    got = ancestors_of({"file:///o/a.rb": texts[0], "file:///o/b.rb": texts[1]}, ["A", "B", "M"])
    assert got == {"A": ["A", "M", "Object", "BasicObject"], "B": ["B", "M", "Object", "BasicObject"], "M": ["M", "Object", "BasicObject"]}


def test_a_placeholder_mixed_in_leaves_the_modules_prepended_to_object_where_they_are():
    # Object has a prepended module (ActiveSupport's ToJsonWithActiveSupportEncoder, say): a
    # placeholder's own part stops before Object's chain, which starts at that module, so
    # prepending the placeholder (Thor's ``prepend DidYouMean::Correctable`` when DidYouMean
    # is not indexed) does not bring the encoder in a second time ahead of the class.
    files = {
        "file:///o/enc.rb": "module Enc; end\nclass Object\n  prepend Enc\nend\n",
        "file:///o/err.rb": "class Err\n  prepend Missing::Correctable\nend\nclass Mix\n  include Missing::Other\nend\n",
    }
    g = fresh(files)
    got = {n: [a.name for a in g[n].ancestors][:4] for n in ("Err", "Mix")}
    assert got == {
        "Err": ["Missing::Correctable", "Err", "Enc", "Object"],
        "Mix": ["Mix", "Missing::Other", "Enc", "Object"],
    }


@pytest.mark.parametrize(
    "files, steps",
    [
        # A superclass's placeholder is then included elsewhere, and the other way round.
        ({"file:///o/a.rb": "class A < M\nend\n", "file:///o/b.rb": "# empty\n"}, [("file:///o/b.rb", "class B\n  include M\nend\n"), ("file:///o/b.rb", "# empty\n")]),
        ({"file:///o/a.rb": "class A\n  include M\nend\n", "file:///o/b.rb": "# empty\n"}, [("file:///o/b.rb", "class B < M\nend\n"), ("file:///o/b.rb", None)]),
        # A reopening gains a superclass that its class already includes (``class A < M`` in
        # another file while ``include M`` made the placeholder).
        (
            {"file:///o/a.rb": "class A\n  include M\n  def c; end\nend\n", "file:///o/c.rb": "class A\n  def h; end\nend\n"},
            [("file:///o/c.rb", "class A < M\n  def h; end\nend\n"), ("file:///o/c.rb", "class A\n  def h; end\nend\n")],
        ),
        # A subclass of a placeholder that is also a mixin is renamed, and back.
        (
            {"file:///o/a.rb": "class A\n  include M\nend\n", "file:///o/b.rb": "class B < M\n  def d; end\nend\nclass C < B; end\n"},
            [("file:///o/b.rb", "class BR < M\n  def d; end\nend\nclass C < B; end\n"), ("file:///o/b.rb", "class B < M\n  def d; end\nend\nclass C < B; end\n")],
        ),
    ],
)
def test_a_placeholder_that_is_both_a_superclass_and_a_mixin_stays_incremental(files, steps):
    assert replay(files, steps) == [None] * len(steps)


def test_a_removed_module_that_one_file_includes_and_another_subclasses_becomes_a_placeholder():
    # ``class B < M`` names a module: a diagnostic, and B stays a subclass of Object. Renaming
    # the module leaves M a placeholder that both lookups find: B's superclass now, A's mixin
    # still; renaming it back promotes it, and B's superclass is a diagnostic again.
    files = {
        "file:///r/a.rb": "class A\n  include M\n  def c; end\nend\n",
        "file:///r/b.rb": "require_relative 'a'\nclass B < M\n  def d; end\nend\n",
        "file:///r/d.rb": "module M\n  def self.s; end\nend\nclass D < B\nend\n",
    }
    renamed = files["file:///r/d.rb"].replace("module M\n", "module MR\n")
    steps = [("file:///r/d.rb", renamed), ("file:///r/d.rb", files["file:///r/d.rb"]), ("file:///r/d.rb", renamed)]
    assert replay(files, steps) == [None] * len(steps)
    g = fresh({**files, "file:///r/d.rb": renamed}, core=False)
    assert [a.name for a in g["B"].ancestors] == ["B", "M", "Object", "BasicObject"] and g["M"].kind == "Todo"
    assert [a.name for a in g["D"].ancestors] == ["D", "B", "M", "Object", "BasicObject"]


@pytest.mark.parametrize(
    "before, after",
    [
        # ``class B < B`` names the class itself (a diagnostic); renamed, its clause names the
        # placeholder B that other files' subclasses keep.
        ("class B < B\n  def d; end\nend\n", "class BR < B\n  def d; end\nend\n"),
        # A module that includes itself is renamed: the renamed one, and another file, include
        # the placeholder it leaves.
        ("module N\n  include Missing2\n  include N\n  def f; end\nend\n", "module NR\n  include Missing2\n  include N\n  def f; end\nend\n"),
    ],
)
def test_a_renamed_namespace_whose_new_clause_names_its_old_name_demotes_it(before, after):
    files = {"file:///t/b.rb": before, "file:///t/c.rb": "require_relative 'b'\nclass C < B\nend\nclass K\n  include N\nend\n"}
    assert replay(files, [("file:///t/b.rb", after), ("file:///t/b.rb", before)]) == [None, None]


def test_a_superclass_that_loses_its_placeholder_leaves_no_singleton_class_behind():
    # ``class A < Missing`` (a reopening in c.rb) made Missing's singleton class part of A's
    # singleton chain; once a.rb's first definition names Object, c.rb's clause is a mismatch,
    # Missing stays a placeholder (c.rb still names it) and its singleton class goes.
    files = {
        "file:///s/a.rb": "class A\n  def c; end\nend\n",
        "file:///s/c.rb": "require_relative 'a'\nclass A < Missing\n  def h; end\nend\n",
    }
    steps = [("file:///s/a.rb", "class A < Object\n  def c; end\nend\n"), ("file:///s/a.rb", files["file:///s/a.rb"])]
    assert replay(files, steps) == [None] * len(steps)


def test_a_placeholder_that_a_superclass_mismatch_leaves_unused_still_has_its_chain():
    # ``class A < Missing2`` in a reopening after ``class A < Object``: a mismatch, so no chain
    # passes through the placeholder it makes; a full resolve and an update both compute its own.
    files = {"file:///s/a.rb": "class A < Object\nend\n", "file:///s/c.rb": "require_relative 'a'\nclass A\nend\n"}
    steps = [
        ("file:///s/c.rb", "require_relative 'a'\nclass A < Missing2\nend\n"),
        ("file:///s/c.rb", "require_relative 'a'\nclass A < Missing3\nend\n"),
        ("file:///s/n.rb", "class N < Missing4\nend\nclass N < Missing5\nend\n"),
    ]
    assert replay(files, steps) == [None] * len(steps)
    assert ancestors_of({**files, "file:///s/c.rb": steps[1][1]}, ["Missing3"]) == {"Missing3": ["Missing3", "Object", "BasicObject"]}


CYCLE = {"file:///y/a.rb": "class A < B\n  def a; end\nend\n", "file:///y/b.rb": "require_relative 'a'\nclass B < A\n  def b; end\nend\n"}


def ruby_ancestors(program: str, names: list[str]) -> dict[str, list[str]]:
    """Ruby's own ancestors of ``names`` after running ``program`` (TypeErrors rescued), without
    Kernel, which a graph without core does not have."""
    ruby = shutil.which("ruby")
    assert ruby is not None, "ruby is the oracle of this test: install it"
    script = f"{program}\n" + "".join(f"puts ({n}.ancestors - [Kernel]).map(&:name).join(' ')\n" for n in names)
    out = subprocess.run([ruby, "-e", script], capture_output=True, text=True, check=True).stdout.splitlines()
    return dict(zip(names, (line.split() for line in out), strict=True))


def test_a_superclass_cycle_is_cut_where_ruby_raises_superclass_mismatch():
    # Ruby raises before a cycle forms. Resolution assumes every class exists; with both
    # defined up front (B, as ``class B; end``), the clause that runs last (b.rb's ``B < A``) is Ruby's "superclass
    # mismatch for class B": B stays a subclass of Object, and A < B stands.
    program = "class B; end\nclass A < B; end\nbegin\n  class B < A; end\nrescue TypeError\nend"
    expected = ruby_ancestors(program, ["A", "B"])
    assert expected == {"A": ["A", "B", "Object", "BasicObject"], "B": ["B", "Object", "BasicObject"]}
    g = fresh(CYCLE, core=False)
    assert {n: [a.name for a in g[n].ancestors] for n in ("A", "B")} == expected
    assert [d.code for d in g.diagnostics] == ["superclass-cycle"] and "b.rb" in str(g.diagnostics[0])
    # The same answer whichever chain is asked first: file order decides, not lookup order.
    swapped = {"file:///y/a.rb": "class B < A\nend\n", "file:///y/b.rb": "class A < B\nend\n"}
    assert ancestors_of(swapped, ["A", "B"]) == {"A": ["A", "Object", "BasicObject"], "B": ["B", "A", "Object", "BasicObject"]}


@pytest.mark.parametrize(
    "steps",
    [
        # The cycle closes, then opens again by the class that was not cut, then by the cut one.
        [("file:///y/a.rb", "class A\n  def a; end\nend\n"), ("file:///y/a.rb", CYCLE["file:///y/a.rb"]), ("file:///y/b.rb", "class B\n  def b; end\nend\n")],
        # A third class joins the cycle and leaves it.
        [("file:///y/c.rb", "class C < B\nend\nclass A < C; end\n"), ("file:///y/c.rb", None)],
        # Subclasses and mixins of cycle members come and go (a class of a cycle looks up
        # top-level constants through Object, which its chain ends in).
        [
            ("file:///y/e.rb", "class E < B\n  include M\n  def e; end\nend\n"),
            ("file:///y/m.rb", "module M\n  def m; end\nend\n"),
            ("file:///y/e.rb", None),
            ("file:///y/m.rb", "module MR\n  prepend MR\nend\n"),
        ],
    ],
)
def test_superclass_cycles_made_and_broken_by_edits_stay_incremental(steps):
    assert replay(dict(CYCLE), steps) == [None] * len(steps)


def test_a_module_included_by_a_class_of_a_cycle_is_renamed():
    files = {
        "file:///z/a.rb": "module M\n  def a; end\nend\nclass A\n  include M\nend\n",
        "file:///z/b.rb": "require_relative 'a'\nclass B < A\nend\nmodule N\n  prepend M\n  def f; end\nend\n",
        "file:///z/c.rb": "require_relative 'b'\nclass C < B\n  include N\nend\nclass A < D\nend\n",
        "file:///z/d.rb": "class D < A\nend\n",
    }
    renamed = files["file:///z/b.rb"].replace("module N\n", "module NR\n")
    steps = [("file:///z/b.rb", renamed), ("file:///z/b.rb", files["file:///z/b.rb"])]
    assert replay(files, steps) == [None] * len(steps)


def test_a_restored_graph_knows_which_cycle_it_cut(tmp_path):
    # The cut is found again from its diagnostic after a warm open: breaking the cycle by
    # editing the class that was not cut gives the cut one its superclass back.
    for uri, text in CYCLE.items():
        (tmp_path / uri.rsplit("/", 1)[1]).write_text(text)
    rdx.Graph.open(tmp_path).resolve()
    warm = rdx.Graph.open(tmp_path)
    assert warm.open_stats["resolved"] is True  # restored from the image, not resolved
    text = "class A\n  def a; end\nend\n"
    (tmp_path / "a.rb").write_text(text)
    warm.index_source(str(tmp_path / "a.rb"), text)
    warm.resolve()
    assert [a.name for a in warm["B"].ancestors][:3] == ["B", "A", "Object"]
    scratch = rdx.Graph()
    scratch.index_all([tmp_path])
    scratch.resolve()
    assert dump(warm) == dump(scratch)


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
    assert dump(g) == fresh_dump({**files, "file:///w/b.rb": text})
    assert any(d.code in ("invalid-superclass", "invalid-mixin") for d in g.diagnostics)


COPY = "module Copy0\n  module RuboCop\n    module Cop\n      class Base\n      end\n    end\n  end\nend\n"
USER = "class User\n  def run\n    RuboCop::Cop::Base\n    Known::Missing\n  end\nend\n"


def typed(text: str) -> list[str]:
    return [text[:n] for n in range(1, len(text) + 1)]


def test_typing_a_compact_name_whose_scope_names_nothing_stays_incremental():
    # ``class RuboCop::Cop::Draft`` at top level where RuboCop exists only inside Copy0 (the
    # benchmark's ten copies): each keystroke from ``class RuboCop::C`` on makes placeholders
    # for the scope (RuboCop, RuboCop::Cop), which another file's reference then finds, and
    # drops them again when the name changes or the file goes.
    files = {"file:///p/copy.rb": COPY, "file:///p/user.rb": USER}
    steps: list[tuple[str, str | None]] = [("file:///p/draft.rb", t) for t in typed("class RuboCop::Cop::Draft")]
    steps += [("file:///p/draft.rb", "class RuboCop::Cop::Draft\n  def run(node)\n    node\n  end\nend\n")]
    steps += [("file:///p/draft.rb", "class Other::Draft\nend\n"), ("file:///p/draft.rb", None)]
    assert replay(files, steps) == [None] * len(steps)


def test_a_compact_name_under_a_known_scope_makes_placeholders_below_it():
    files = {"file:///p/known.rb": "module Known\nend\n", "file:///p/user.rb": USER}
    steps: list[tuple[str, str | None]] = [("file:///p/new.rb", "class Known::Missing::Deep::X\nend\nclass Known::Missing::Y\nend\n")]
    steps += [("file:///p/new.rb", "class Known::Missing::Y\nend\n"), ("file:///p/new.rb", None)]
    assert replay(files, steps) == [None] * len(steps)


def test_a_placeholder_scope_is_promoted_by_a_later_definition_and_demoted_again():
    files = {"file:///p/copy.rb": COPY, "file:///p/draft.rb": "class RuboCop::Cop::Draft\nend\n"}
    steps: list[tuple[str, str | None]] = [("file:///p/rubocop.rb", "module RuboCop\nend\n"), ("file:///p/rubocop.rb", None)]
    assert replay(files, steps)[-1] is None  # The first step may fall back; both equal a fresh graph.


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # The addition declares the missing scope itself, further down: a later round of
        # phase 1 finds it, so no placeholder is made.
        ("class A::B\nend\nmodule A\nend\n", "the addition declares A"),
        # Ruby raises (TypeError) at a value used as a scope: nothing is declared.
        ("V = 1\nclass V::Inner\nend\n", None),
    ],
)
def test_compact_names_a_full_resolve_must_decide_are_named(text, reason):
    reasons = replay({"file:///p/copy.rb": COPY}, [("file:///p/new.rb", text)])
    if reason is not None:
        assert reason in (reasons[0] or "")


# The same checks over a graph with Ruby core: make test runs them, make check the core-less ones.
CORE_TOO = pytest.param(True, marks=pytest.mark.slow)

# ``class << self`` bodies: the first one of a class declares its singleton class's singleton
# class (``Foo::<Foo>::<<Foo>>``), whose chain declares those of its superclasses' singleton
# classes that do not exist yet; the last one going takes them away again.
HIERARCHY = "class Qux\nend\nclass Foo < Qux\n  def x; end\nend\nclass Bar < Foo\nend\n"


def with_body(body: str, where: str = "Foo", text: str = HIERARCHY) -> str:
    """``text`` with a ``class << self`` body holding ``body`` first in class ``where``."""
    start = text.index(f"class {where}")
    line_end = text.index("\n", start) + 1
    return text[:line_end] + f"  class << self\n{body}  end\n" + text[line_end:]


@pytest.mark.parametrize("core", [False, CORE_TOO])
@pytest.mark.parametrize(
    ("start", "steps"),
    [
        # Typed into a class, filled, emptied, removed.
        (HIERARCHY, [with_body(""), with_body("    def y; end\n"), with_body(""), HIERARCHY]),
        # The superclass has a body already: its singleton class's singleton class stays.
        (with_body("    def q; end\n", "Qux"), [with_body("    def y; end\n", "Foo", with_body("    def q; end\n", "Qux")), with_body("    def q; end\n", "Qux")]),
        # ``def self.x`` in a body is a method of the singleton class's singleton class.
        (HIERARCHY, [with_body("    def self.meta; end\n"), HIERARCHY]),
    ],
)
def test_a_first_class_self_body_and_the_last_one_going_stay_incremental(core, start, steps):
    reasons = replay({"file:///s/a.rb": start}, [("file:///s/a.rb", text) for text in steps], core=core)
    assert reasons == [None] * len(steps)


@pytest.mark.parametrize("core", [False, CORE_TOO])
def test_the_last_body_of_a_superclass_going_keeps_what_a_subclass_chain_needs(core):
    # C's last ``class << self`` body goes while Sub has one: Sub::<Sub>::<<Sub>>'s chain still
    # holds C::<C>::<<C>>, which a full resolve declares for that chain alone
    # (``Placeholders.drop_lost_bodies``).
    files = {"file:///am/a.rb": "class C\n  class << self\n    def x = 1\n  end\nend\n", "file:///am/b.rb": "class Sub < C\n  class << self\n    def y = 2\n  end\nend\n"}
    steps = [("file:///am/a.rb", "class C\n  def self.x = 1\nend\n"), ("file:///am/a.rb", files["file:///am/a.rb"])]
    assert replay(files, steps, core=core) == [None, None]


def test_a_body_in_a_first_body_is_a_named_fallback_both_ways():
    # Pasted at once: the inner body's singleton class is declared by the outer one's chain;
    # removed, the singleton class of a singleton class loses its last body.
    steps = [with_body("    class << self\n      def deeper; end\n    end\n"), with_body(""), HIERARCHY]
    reasons = replay({"file:///s/a.rb": HIERARCHY}, [("file:///s/a.rb", text) for text in steps], core=True)
    assert reasons == [
        "replace file:///s/a.rb: a ``class << self`` body inside a first one needs a full resolve",
        "replace file:///s/a.rb: Foo::<Foo>::<<Foo>> loses its last body",
        None,
    ]


def test_a_class_self_body_in_another_file_keeps_what_the_first_declared():
    files = {"file:///s/a.rb": with_body("    def y; end\n"), "file:///s/b.rb": "# empty\n"}
    steps: list[tuple[str, str | None]] = [
        ("file:///s/b.rb", "class Foo\n  class << self\n    def z; end\n  end\nend\n"),
        ("file:///s/a.rb", HIERARCHY),
        ("file:///s/b.rb", None),
    ]
    assert replay(files, steps, core=True) == [None] * len(steps)


@pytest.mark.parametrize("core", [False, CORE_TOO])
def test_a_class_with_a_class_self_body_deleted_or_renamed_stays_incremental(core):
    # Its singleton class's singleton class goes with it, and so does the one its chain
    # declared for the superclass (Qux has no body of its own). Renamed, the body goes with
    # its class while a namespace comes with its own.
    start = "class Qux\nend\nclass Foo < Qux\n  class << self\n    def y; end\n  end\nend\n"
    steps = [start.replace("class Foo", "class Renamed"), start, "class Qux\nend\n"]
    files = {"file:///s/a.rb": start}
    reasons = replay(files, [("file:///s/a.rb", text) for text in steps], core=core)
    reasons += replay({"file:///s/a.rb": "class Qux\nend\n", "file:///s/b.rb": "class Foo < Qux\n  class << self\n  end\nend\n"}, [("file:///s/b.rb", None)], core=core)
    assert reasons == [None] * 4


@pytest.mark.parametrize("core", [False, CORE_TOO])
def test_class_self_bodies_with_mixins_come_and_go_incrementally(core):
    # While ``class << self`` is typed before its ``end``, the body takes the rest of the
    # class, ``include``/``extend`` calls too: the singleton class's chain (and its
    # subclasses' singleton classes' chains) are computed again.
    files = {"file:///s/m.rb": "module Helpers\n  def h; end\nend\n", "file:///s/a.rb": HIERARCHY}
    steps = [with_body("    include Helpers\n    def y; end\n"), with_body("    def y; end\n"), with_body("    extend Helpers\n"), HIERARCHY]
    assert replay(files, [("file:///s/a.rb", t) for t in steps], core=core) == [None] * len(steps)


@pytest.mark.parametrize("core", [False, CORE_TOO])
def test_class_self_bodies_of_a_named_class_or_a_value_stay_incremental(core):
    # A body whose target is a value (Ruby raises TypeError: nothing is declared), then one
    # of a class named outright.
    text = "class Foo\n  MSG = 'x'\n  def a; end\nend\nclass Other\nend\n"
    steps = [
        text.replace("  def a", "  class << MSG\n    def v; end\n  end\n  def a"),
        text.replace("  def a", "  class << Other\n    def z; end\n  end\n  def a"),
        text,
    ]
    assert replay({"file:///s/a.rb": text}, [("file:///s/a.rb", t) for t in steps], core=core) == [None] * len(steps)


@pytest.mark.parametrize("core", [False, CORE_TOO])
def test_a_placeholder_an_external_mixin_also_finds_is_promoted_and_demoted_incrementally(core):
    # bench_typing's ten copies: RuboCop exists only inside Copy0, so ``include
    # ::RuboCop::AST::Descendence`` makes top-level placeholders, which an external mixin's
    # absolute path (a lookup that creates nothing) finds too. ``class RuboCop`` typed at top
    # level promotes the placeholder; ``class RuboCop::C`` demotes it again.
    files = {
        "file:///w/node.rb": "module Copy0\n  class Node\n    include ::RuboCop::AST::Descendence\n  end\nend\n",
        "file:///w/range.rb": "module Copy0\n  class Range\n  end\n  ::Copy0::Range.include ::RuboCop::AST::Ext::Range\nend\n",
    }
    steps = [("file:///w/zz_draft.rb", t) for t in ("class RuboCop", "class RuboCop:", "class RuboCop::", "class RuboCop::C", "class RuboCop")]
    steps.append(("file:///w/zz_draft.rb", None))
    assert replay(files, steps, core=core) == [None] * len(steps)


def test_a_promoted_placeholder_that_an_earlier_compact_name_would_now_find_is_a_named_fallback():
    # f1's ``F::A`` in A found nothing in the first round and made a top-level placeholder F;
    # zz's ``A::F::A`` then made the placeholder A::F. ``class F`` added in A (f0, loaded first)
    # makes A::F a class in the first round, where f1's lookup now finds it: F::A moves to
    # A::F::A. Both lookups find A::F before and after, so only the placement tells.
    files = {"file:///s/f0.rb": "class A\nend\n", "file:///s/f1.rb": "class A\n  module F::A\n  end\nend\n", "file:///s/zz.rb": "module A::F::A\nend\n"}
    reasons = replay(files, [("file:///s/f0.rb", "class A\n  class F\n  end\nend\n")])
    assert reasons == ["replace file:///s/f0.rb: a definition in file:///s/f1.rb is declared elsewhere than its scope now leads"]


def test_a_top_level_placeholder_comes_and_goes_for_exactly_the_references_that_reach_object():
    # ``class Thing < Base`` at the top level makes a placeholder ``::Base``. References to
    # Base that found Lib::Base lexically keep it; one that found nothing, and one that runs
    # while its file loads before Lib::Base is defined, find the placeholder, and lose it
    # when the superclass goes again. Every step is compared with a fresh graph.
    files = {
        "file:///t/early.rb": "module Lib\n  EARLY = Base\nend\n",
        "file:///t/base.rb": "module Lib\n  class Base\n  end\nend\n",
        "file:///t/item.rb": "module Lib\n  class Item < Base\n    def x = Base\n  end\nend\nclass Loose\n  def y = Base\n  def z = Lib::Base\nend\n",
        "file:///t/thing.rb": "class Thing\nend\n",
        # Call receivers: ``Lib::Base`` looks Base up in Lib only; ``Object::Base`` in Object.
        "file:///t/calls.rb": "class Caller\n  def a = Lib::Base.new.a\n  def b = Object::Base.new.b\n  def c = Base.new.c\nend\n",
    }
    steps = [("file:///t/thing.rb", t) for t in ("class Thing < B\nend\n", "class Thing < Base\nend\n", "class Thing\nend\n", "class Thing < Base\nend\n")]
    assert replay(files, steps) == [None] * len(steps)

    def receivers(thing: str) -> dict[str, str | None]:
        g = fresh({**files, "file:///t/thing.rb": thing}, core=False)
        return {r.name: r.receiver and r.receiver.name for r in g.method_references if r.location.path == "/t/calls.rb" and r.name in "abc"}

    # The placeholder is what ``Object::Base.new`` and ``Base.new`` find, and only while it exists.
    assert receivers("class Thing < Base\nend\n") == {"a": "Lib::Base", "b": "Base", "c": "Base"}
    assert receivers("class Thing\nend\n") == {"a": "Lib::Base", "b": None, "c": None}


    def targets(thing: str) -> dict[tuple[str, int], str | None]:
        g = fresh({**files, "file:///t/thing.rb": thing}, core=False)
        return {(r.location.path, r.location.start_line): r.declaration and r.declaration.name for r in g.constant_references if r.location.path != "/t/calls.rb"}

    lexical = {("/t/early.rb", 2): "Lib::Base", ("/t/item.rb", 2): "Lib::Base", ("/t/item.rb", 3): "Lib::Base", ("/t/item.rb", 8): "Lib::Base"}
    assert targets("class Thing < Base\nend\n") == {**lexical, ("/t/item.rb", 7): "Base", ("/t/thing.rb", 1): "Base"}
    assert targets("class Thing\nend\n") == {**lexical, ("/t/item.rb", 7): None}


def test_a_mixin_that_joins_or_leaves_a_chain_changes_the_lookups_of_its_constants_only():
    # Host's body finds X through Host's chain once M (and N, which M includes) are in it, and
    # the top-level X otherwise. The edits add and remove the ``include``, reorder two mixins
    # (which may change any name), and add a file whose module both holds Z and joins, then
    # loses Z and leaves in one edit.
    files = {
        "file:///c/a_mods.rb": "module N\n  X = 'N::X'\nend\nmodule M\n  include N\n  Y = 'M::Y'\nend\nmodule K\n  X = 'K::X'\nend\nX = 'top X'\nY = 'top Y'\n",
        "file:///c/b_host.rb": "module Host\nend\n",
        "file:///c/c_reader.rb": "module Host\n  XS = X\n  YS = Y\n  def self.x = X\n  def self.y = Y\n  def self.z = Z\nend\n",
    }
    host = "file:///c/b_host.rb"
    texts = [
        "module Host\n  include M\nend\n",
        "module Host\n  include M\n  include K\nend\n",
        "module Host\n  include K\n  include M\nend\n",
        "module Host\nend\n",
        "module Host\n  include M\nend\n",
    ]
    steps: list[tuple[str, str | None]] = [(host, t) for t in texts]
    steps.append(("file:///c/d_more.rb", "module Z2\n  Z = 'Z2::Z'\nend\nmodule Host\n  include Z2\nend\n"))
    steps.append(("file:///c/d_more.rb", "module Z2\nend\n"))  # Z and the include go at once.
    assert replay(files, steps) == [None] * len(steps)

    ruby = shutil.which("ruby")
    assert ruby is not None, "ruby is the oracle of this test: install it"
    for text in texts:
        source = {**files, host: text}
        script = "".join(source[u] for u in sorted(source)) + "puts Host.x, Host.y\n"
        seen = subprocess.run([ruby, "-e", script], capture_output=True, text=True, check=True).stdout.splitlines()
        g = fresh(source, core=False)
        found = {r.location.start_line: r.declaration and r.declaration.name for r in g.constant_references if r.location.path == "/c/c_reader.rb"}
        # Lines 4 and 5: ``def self.x = X`` and ``def self.y = Y``; a constant named X holds "its name".
        assert [found[4], found[5]] == [v.replace("top ", "") for v in seen], text


def test_a_new_top_level_placeholder_is_found_after_object_or_its_aliases_only():
    # ``A::Base`` skips Object's constants unless A is Object: ``Lib::Base`` never finds a
    # top-level placeholder, while ``Object::Base``, ``O::Base`` (O = Object) and
    # ``P::Base`` (P = O) do. Each step is compared with a fresh graph, and Ruby says which
    # of the paths reach a top-level Base.
    files = {
        "file:///o/a_alias.rb": "O = Object\nP = O\n",
        "file:///o/b_lib.rb": "module Lib\n  class Base\n  end\nend\n",
        "file:///o/c_user.rb": "module Lib\n  K = Lib::Base\nend\n",
        "file:///o/z_thing.rb": "class Thing\nend\n",
    }
    reaching = {"file:///o/d_object.rb": "X = Object::Base\n", "file:///o/d_alias.rb": "Y = O::Base\n", "file:///o/d_chain.rb": "Z = P::Base\n"}
    steps: list[tuple[str, str | None]] = [("file:///o/z_thing.rb", "class Thing < Base\nend\n"), ("file:///o/z_thing.rb", "class Thing\nend\n")]
    assert replay(files, steps) == [None, None]
    for uri, text in reaching.items():
        # Each path that reaches Object is seen: the placeholder changes what it finds.
        reasons = replay({**files, uri: text}, steps)
        assert reasons[0] == "replace file:///o/z_thing.rb: a new placeholder changes what another file's lookup finds", uri
    script = "O = Object\nP = O\nmodule Lib\n  class Base\n  end\nend\nclass Base\nend\n"
    script += "p [Lib::Base, Object::Base, O::Base, P::Base].map { |c| c.name }\n"
    assert ruby_prints(script).strip() == '["Lib::Base", "Base", "Base", "Base"]'


def test_a_reopening_earlier_in_load_order_changes_only_the_load_time_lookups_of_its_name():
    # b.rb's ``S = [Style]`` runs before b.rb's own ``module Style`` in Outer, so it finds the
    # top-level Style; once a.rb (loaded first) reopens Outer::Style, it finds that one.
    # ``def self.s = Style`` runs later and finds Outer::Style either way. Ruby is the oracle;
    # every step is compared with a fresh graph and stays incremental.
    files = {
        "file:///l/a.rb": "module Outer\nend\n",
        "file:///l/b.rb": "module Style\nend\nmodule Outer\n  S = [Style]\n  def self.s = Style\n  module Style\n  end\nend\n",
    }
    reopened = "module Outer\n  module Style\n  end\nend\n"
    steps: list[tuple[str, str | None]] = [("file:///l/a.rb", reopened), ("file:///l/a.rb", files["file:///l/a.rb"])]
    assert replay(files, steps) == [None, None]
    for a_text in (files["file:///l/a.rb"], reopened):
        seen = ruby_prints(a_text + files["file:///l/b.rb"] + "puts Outer::S.first.name, Outer.s.name\n").split()
        g = fresh({**files, "file:///l/a.rb": a_text}, core=False)
        found = {r.location.start_line: r.declaration and r.declaration.name for r in g.constant_references if r.location.path == "/l/b.rb"}
        assert [found[4], found[5]] == seen, a_text


def test_a_top_level_namespace_coming_and_going_refreshes_only_the_longer_paths_that_reach_object():
    # ``Style::X`` in Lib finds Lib::Style in a lexical scope before Object: a top-level
    # Style (whose X comes from a mixin: no new name but Style) coming or going changes
    # nothing there. At the top level, or above Lib::Style in the file that defines it (the
    # load-time lookup passes it over), it does; ``Lib::Style::X`` never looks Style up in
    # Object. Every step is compared with a fresh graph; Ruby says what each finds.
    files = {
        "file:///s/a_mixin.rb": "module Mixin\n  X = 2\nend\n",
        "file:///s/b_thing.rb": "class Thing\nend\n",
        "file:///s/c_lib.rb": "module Lib\n  EARLY = [Style::X]\n  module Style\n    X = 1\n  end\nend\n",
        "file:///s/d_user.rb": "module Lib\n  A = [Style::X]\n  def self.a = Style::X\n  module Inner\n    B = [Style::X]\n  end\nend\nTOP = [Style::X]\nFULL = [Lib::Style::X]\n",
    }
    g, script = toggled(files, "file:///s/b_thing.rb", "class Style\n  include Mixin\nend\n")
    found = {(r.location.path[3:], r.location.start_line): r.declaration and r.declaration.name for r in g.constant_references if "Style::X" in r.name}
    script += "puts [Lib::EARLY[0], Lib::A[0], Lib.a, Lib::Inner::B[0], TOP[0], FULL[0]].inspect\n"
    seen = ruby_prints(script).strip()
    assert seen == "[2, 1, 1, 1, 2, 1]"
    value = {"Mixin::X": 2, "Lib::Style::X": 1}
    ours = [found[("c_lib.rb", 2)], found[("d_user.rb", 2)], found[("d_user.rb", 3)], found[("d_user.rb", 5)], found[("d_user.rb", 8)], found[("d_user.rb", 9)]]
    assert "[" + ", ".join(str(value[n]) for n in ours) + "]" == seen, ours


def test_a_new_namespace_is_seen_by_the_bodies_whose_lookups_reach_it_only():
    # Outer::Style added: ``Style`` in Outer's body (and a receiver there) now finds it; in
    # Inner's body, Inner::Style is a nearer lexical scope's and stays. Every step is compared
    # with a fresh graph; Ruby says what each finds.
    files = {
        "file:///n/a_inner.rb": "module Outer\n  module Inner\n    module Style\n    end\n  end\nend\n",
        "file:///n/b_new.rb": "module Outer\nend\n",
        "file:///n/c_user.rb": "module Outer\n  module Inner\n    A = [Style]\n  end\n  B = [Style]\n  def self.b = Style.name\nend\n",
    }
    g, script = toggled(files, "file:///n/b_new.rb", "module Outer\n  module Style\n  end\nend\n")
    found = targets_in(g, "/n/c_user.rb")
    seen = ruby_prints(script + "puts Outer::Inner::A[0].name, Outer::B[0].name, Outer.b\n").split()
    assert [found[3], found[5], found[6]] == seen == ["Outer::Inner::Style", "Outer::Style", "Outer::Style"]


def test_a_constant_added_to_a_module_is_seen_through_the_paths_that_lead_to_it():
    # ``P::N`` finds O::N when P includes O, ``O::N`` too; ``Q::N`` (Q unrelated) never does,
    # and ``Object::N`` never finds a constant of O. Each step (added, removed, added again)
    # is compared with a fresh graph; Ruby says what each finds once it is there.
    files = {
        "file:///m/a_mods.rb": "module O\nend\nmodule P\n  include O\nend\nmodule Q\nend\n",
        "file:///m/b_edit.rb": "module O\nend\n",
        "file:///m/c_user.rb": "module User\n  def self.a = P::N\n  def self.b = Q::N\n  def self.c = O::N\n  def self.d = P::N::X\nend\n",
    }
    g, script = toggled(files, "file:///m/b_edit.rb", "module O\n  module N\n    X = 1\n  end\nend\n")
    found = targets_in(g, "/m/c_user.rb")
    script += "puts User.a.name, User.c.name, User.d, (User.b rescue 'missing')\n"
    seen = ruby_prints(script).split()
    assert seen == ["O::N", "O::N", "1", "missing"]
    assert [found[2], found[4], found[5], found[3]] == ["O::N", "O::N", "O::N::X", None]


def test_a_file_required_again_drops_the_top_level_placeholder_its_absence_made():
    # While c/x.rb is gone, ``include X`` names nothing: a top-level placeholder X. Back, it
    # finds M::C::X, and the placeholder, which no lookup finds any more, goes (it left C's
    # chain: ``Placeholders.left_placeholders``).
    a = "module M\n  class C\n    require_relative 'c/x'\n    include X\n  end\nend\n"
    x = "module M\n  class C\n    module X\n      def x; end\n    end\n  end\nend\n"
    files = {"file:///p/lib/a.rb": a, "file:///p/lib/c/x.rb": x}
    assert replay(files, [("file:///p/lib/c/x.rb", None), ("file:///p/lib/c/x.rb", x)]) == [None, None]
    g = fresh(files, core=False)
    assert g.get("X") is None
    assert "M::C::X" in [m.name for m in g["M::C"].ancestors]
    assert ruby_prints(x + a.replace("    require_relative 'c/x'\n", "") + "p Object.const_defined?(:X), M::C.include?(M::C::X)\n") == "false\ntrue\n"


def test_a_namespace_that_goes_stays_no_placeholder_for_a_lookup_that_finds_another():
    # ``class C::Style`` goes as ``include Style`` is typed in C: a full resolve finds the
    # top-level Style, so C::Style is not kept as a placeholder for that lookup
    # (``Placeholders._wanted``: it would have the wrong shape, and the update fell back).
    files = {"file:///s/a.rb": "module Style\n  def style; end\nend\n", "file:///s/c.rb": "class C\n  class Style\n    include Comparable\n  end\nend\n"}
    edited = "class C\n  include Style\nend\n"
    g, program = toggled(files, "file:///s/c.rb", edited)
    assert g.get("C::Style") is None
    assert [m.name for m in g["C"].ancestors][:2] == ["C", "Style"]
    assert ruby_prints(program + "p C.ancestors.take(2), C.const_defined?(:Style, false)\n") == "[C, Style]\nfalse\n"


def test_requires_that_move_files_in_load_order_stay_incremental():
    # a.rb requires c/x.rb inside its class body: x.rb loads right after a.rb, before b.rb.
    # Without the require it loads after b.rb (URI order); required at the top, before
    # a.rb. Each edit moves x.rb among the others: it goes and comes back at its new key
    # (``documents.moving_keys``), and every resolve equals a fresh one.
    a = "module M\n  class C\n    require_relative 'c/x'\n    include X\n  end\nend\n"
    x = "module M\n  class C\n    module X\n      def x; end\n    end\n  end\nend\n"
    b = "module M\n  class C\n    def b; X; end\n  end\n  X2 = C::X\nend\n"
    files = {"file:///p/lib/a.rb": a, "file:///p/lib/b.rb": b, "file:///p/lib/c/x.rb": x}
    without = a.replace("    require_relative 'c/x'\n", "")
    on_top = "require_relative 'c/x'\n" + without
    steps: list[tuple[str, str | None]] = [("file:///p/lib/a.rb", t) for t in (without, on_top, a, "# typing\n" + a)]
    assert replay(files, steps) == [None] * len(steps)


OBJECT_READERS = [
    "module M\n  class Foo < Bar\n  end\nend\n",  # A superclass in a module body.
    "module M\n  class Bar::Deep\n  end\nend\n",  # A compact name's scope.
    "module M\n  class Foo\n    include Helper\n  end\nend\n",  # A mixin.
    "module M\n  def self.f = Bar.new\n  X = Helper\nend\n",  # References.
    "class Foo < Bar\nend\nclass Bar::Deep\nend\n",  # At the top level.
]


@pytest.mark.parametrize("reader", OBJECT_READERS, ids=range(len(OBJECT_READERS)))
def test_a_module_object_includes_gaining_a_mixin_is_a_named_fallback(reader):
    # ``include Mix`` at the top level, then Mix includes Mix2: Object's chain gains Mix2, so
    # Mix2's constants are found from every lexical scope, module bodies too (whose own chains
    # do not change). Recomputing the chains alone would leave these lookups stale; the
    # generated programs never caught that, so it is pinned here.
    files = {
        "file:///t/a.rb": "module Mix2\n  class Bar\n  end\n  module Helper\n  end\nend\n",
        "file:///t/a1.rb": "module Mix\nend\n",
        "file:///t/b.rb": "include Mix\n",
        "file:///t/c.rb": reader,
    }
    steps = [("file:///t/a1.rb", "module Mix\n  include Mix2\nend\n"), ("file:///t/a1.rb", files["file:///t/a1.rb"])]
    assert replay(files, steps) == ["replace file:///t/a1.rb: Object's ancestors change: every lookup may change"] * 2
