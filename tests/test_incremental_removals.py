"""Deleting declarations re-resolves only the references that can change (issue 21): those that
found a deleted declaration, those whose path names one on the way (``A::Z`` found through a
deleted ``A``'s ancestors) and call receivers naming one (``Y = X; Y.new`` follows the alias).
References that name a deleted declaration but found another keep their answers. Every case
is checked against a graph built from scratch."""

from __future__ import annotations

import json

import pytest
from conftest import run_ruby
from test_incremental import dump, fresh, fresh_dump

import rdx
from rdx.ruby.resolve.order import LoadOrder

BASE = {
    "file:///rm/a.rb": "module M\n  X = 1\nend\nclass Base\n  Z = 1\nend\nclass A < Base\nend\nclass Target\nend\nY = Target\n",
    "file:///rm/b.rb": "module M\n  class C\n    def f\n      X\n    end\n  end\nend\nclass D\n  X = 2\n  def g\n    X\n  end\nend\n",
    "file:///rm/c.rb": "class E\n  def h\n    A::Z\n  end\n  def i\n    Y.new\n    Y::Missing\n  end\nend\n",
}

EDITS = {
    # M::X goes: b.rb's X inside M::C finds nothing; D's X still finds D::X.
    "constant": ("file:///rm/a.rb", lambda s: s.replace("  X = 1\n", "")),
    # A goes: A::Z (Base::Z through A's superclass) finds nothing.
    "namespace": ("file:///rm/a.rb", lambda s: s.replace("class A < Base\nend\n", "")),
    # Y goes: the receiver of Y.new (Target, through the alias) is unknown (removing a
    # constant alias still resolves in full; the answer must be the same either way).
    "alias": ("file:///rm/a.rb", lambda s: s.replace("Y = Target\n", "")),
    # Target goes, Y stays: Y.new's receiver went with it.
    "alias target": ("file:///rm/a.rb", lambda s: s.replace("class Target\nend\n", "")),
    # The file holding all of them goes.
    "file": ("file:///rm/a.rb", None),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_deleting_declarations_matches_a_fresh_graph(edit):
    files = dict(BASE)
    g = fresh(files)
    g.prepare_queries()
    before = dump(g)
    uri, change = EDITS[edit]
    if change is None:
        files.pop(uri)
        g.delete_document(uri)
    else:
        files[uri] = change(files[uri])
        g.index_source(uri, files[uri])
    g.resolve()
    assert g.last_resolve == "incremental" or edit in ("alias", "alias target", "file")
    after = dump(g)
    assert after == fresh_dump(files)
    assert after != before


def test_a_reference_that_found_another_declaration_keeps_its_answer():
    files = dict(BASE)
    g = fresh(files)
    d_ref = next(r for r in g.constant_references if r.name == "X" and r.declaration is not None and r.declaration.name == "D::X")
    uri, change = EDITS["constant"]
    files[uri] = change(files[uri])
    g.index_source(uri, files[uri])
    g.resolve()
    refs = {(str(r.location), r.declaration.name if r.declaration else None) for r in g.constant_references if r.name == "X"}
    assert (str(d_ref.location), "D::X") in refs
    assert any(target is None for _, target in refs)  # M::C's X found M::X, which went


# Outer::N has two bodies, one loaded before c.rb and one after it. While c.rb loads, its ``N``
# finds Outer::N only while a.rb's body exists; without it, Outer::N is defined only after c.rb
# and Ruby finds the top-level N (``ruby 0main.rb`` prints Outer::N, then N; the entry point
# comes first in URI order, so rdx walks the others from it). The reference in the method
# body runs after every file has loaded: Outer::N either way.
LOADING = {
    "file:///lo/0main.rb": 'require_relative "d"\nrequire_relative "a"\nrequire_relative "c"\nrequire_relative "b"\n',
    "file:///lo/d.rb": "class N\nend\n",
    "file:///lo/a.rb": "module Outer\n  module N\n  end\nend\n",
    "file:///lo/c.rb": "module Outer\n  p N\n  def self.f\n    N\n  end\nend\n",
    "file:///lo/b.rb": "module Outer\n  module N\n  end\nend\n",
}


def _n_targets(g) -> list[tuple[int, str | None]]:
    return sorted(
        (r.location.start_line, r.declaration.name if r.declaration else None) for r in g.constant_references if r.name == "N" and r.location.uri.endswith("/c.rb")
    )


@pytest.mark.parametrize("how", ["body removed", "file deleted"])
def test_a_namespace_losing_a_body_refreshes_the_load_time_references_to_it(how):
    files = dict(LOADING)
    g = fresh(files)
    g.prepare_queries()
    assert _n_targets(g) == [(2, "Outer::N"), (4, "Outer::N")]
    uri = "file:///lo/a.rb"
    if how == "file deleted":
        files.pop(uri)
        g.delete_document(uri)
    else:
        files[uri] = "module Outer\nend\n"
        g.index_source(uri, files[uri])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert _n_targets(g) == [(2, "N"), (4, "Outer::N")]
    assert dump(g) == fresh_dump(files)


# Removing a constant alias: what found it, through it or behind it must answer as a graph
# built without it (incremental or not: some of these fall back, for reasons of their own).
ALIASES = {
    "file:///al/a.rb": "module Target\n  K = 1\n  def self.make = 1\nend\nclass Other\nend\n",
    "file:///al/b.rb": "Y = Target\n",
    "file:///al/c.rb": "class User\n  def f\n    Y.make\n    Y::K\n    Y\n  end\nend\n",
}
ALIAS_USES = {
    "references": "",
    "mixin": "class Mixer\n  include Y\nend\n",
    "namespace": "module Y\n  class Inner\n  end\nend\n",
    "singleton method": "def Y.extra = 2\n",
    "alias of alias": "Z = Y\nclass Z2\n  def g = Z::K\nend\n",
    "reassigned": "Y = Other\n",
}


# Those that stay incremental: d.rb's definitions that depend on the alias (a body written
# under its name, a mixin, a receiver) are taken out, the alias goes, and they come back, each
# step a one-document update (``Incremental._detour``).
INCREMENTAL_ALIAS_USES = {"references", "mixin", "namespace", "singleton method"}


@pytest.mark.parametrize("use", sorted(ALIAS_USES))
def test_removing_a_constant_alias_matches_a_fresh_graph(use):
    files = dict(ALIASES)
    files["file:///al/d.rb"] = ALIAS_USES[use]
    g = fresh(files)
    g.prepare_queries()
    before = dump(g)
    files["file:///al/b.rb"] = "\n"
    g.index_source("file:///al/b.rb", files["file:///al/b.rb"])
    g.resolve()
    if use in INCREMENTAL_ALIAS_USES:
        assert g.last_resolve == "incremental", g.last_fallback
    after = dump(g)
    assert after == fresh_dump(files)
    assert after != before


# A class renamed away from a name that its new version's superclass, mixin or scope still
# names (``class B < B`` becoming ``class BR < B``, random skeleton sequence seed 157): the
# old declaration stays as the placeholder that lookup declares in a fresh graph (same name,
# superclass Object), or goes at the end of the update when that lookup finds something else.
# Another file refers to B from a method body, so references are refreshed too.
RENAMED_AWAY = {
    "own superclass": ("class B < B\n  def d; end\nend\n", "class BR < B\n  def d; end\nend\n"),
    "module as superclass": ("module B\n  def d; end\nend\n", "class BR < B\n  def d; end\nend\n"),
    "superclass with a superclass": ("class B < S\nend\n", "class BR < B\n  def d; end\nend\n"),
    "scope": ("class B\nend\n", "class BR < B::X\nend\n"),
    "mixin": ("class B\nend\n", "class BR\n  include B\nend\n"),
    "found elsewhere": ("module Outer\n  class B\n  end\nend\n", "module Outer\nend\nclass BR < B\nend\n"),
    "not found": ("class B\nend\n", "class BR < Outer::B\nend\n"),
    "module to class": ("module B\nend\n", "class B < B\nend\n"),
}
RENAMED_AWAY_OTHERS = {
    "file:///rn/a.rb": "class S\n  def s; end\nend\n",
    "file:///rn/c.rb": "class User\n  def f\n    B\n    B.new.d\n  end\nend\n",
}


@pytest.mark.parametrize("case", sorted(RENAMED_AWAY))
def test_a_class_renamed_away_from_a_name_its_own_lookups_still_name_is_incremental(case):
    old, new = RENAMED_AWAY[case]
    assert_incremental_edit({**RENAMED_AWAY_OTHERS, "file:///rn/b.rb": old}, "file:///rn/b.rb", new)


def assert_incremental_edit(files: dict[str, str], uri: str, new: str) -> rdx.Graph:
    """Replace ``uri`` with ``new`` in a prepared graph of ``files`` (no core): the resolve is
    incremental, changes the answers and gives a fresh graph's. Returns the graph."""
    files = dict(files)
    g = fresh(files, core=False)
    g.prepare_queries()
    before = dump(g)
    files[uri] = new
    g.index_source(uri, new)
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    after = dump(g)
    assert after == fresh_dump(files, core=False)
    assert after != before
    return g


# ``module Y`` after ``Y = Target`` reopens Target (Target::Inner); once the alias goes, the same
# body declares a module Y of its own (Y::Inner). The body is in another file, or in the file
# that loses the alias, further down. Ruby says what each version defines.
REOPENED_THROUGH = {
    "other file": {
        "file:///ra/a.rb": "module Target\n  K = 1\nend\n",
        "file:///ra/b.rb": "Y = Target\n",
        "file:///ra/c.rb": "module Y\n  class Inner\n    def k = K\n  end\nend\nclass User\n  def f\n    Y::Inner\n    Y::K\n  end\nend\n",
    },
    "same file": {
        "file:///ra/a.rb": "module Target\n  K = 1\nend\n",
        "file:///ra/b.rb": "Y = Target\nmodule Y\n  class Inner\n    def k = K\n  end\nend\n",
        "file:///ra/c.rb": "class User\n  def f\n    Y::Inner\n    Y::K\n  end\nend\n",
    },
}
PROBE = """
p [Y.equal?(Target), Target.const_defined?(:Inner, false), Y.const_defined?(:Inner, false), Y.const_defined?(:K, false)]
"""


def _ruby_answers(files: dict[str, str], tmp_path, probe: str = PROBE) -> str:
    """What Ruby prints for ``probe`` after loading ``files`` in the order of their names."""
    for uri, text in files.items():
        (tmp_path / uri.rsplit("/", 1)[1]).write_text(text)
    loads = "".join(f"require_relative {uri.rsplit('/', 1)[1]!r}\n" for uri in sorted(files))
    return run_ruby(loads + probe, tmp_path).strip()


def _graph_answers(g) -> str:
    y = g.get("Y")
    same = y is not None and y.kind == "ConstantAlias" and y.target is not None and y.target.name == "Target"
    inner = "Target::Inner" if same else "Y::Inner"
    return str([same, g.get("Target::Inner") is not None, g.get(inner) is not None, same]).lower()


@pytest.mark.parametrize("where", sorted(REOPENED_THROUGH))
def test_removing_an_alias_a_namespace_body_is_written_under_is_incremental(where, tmp_path):
    files = dict(REOPENED_THROUGH[where])
    g = fresh(files, core=False)
    g.prepare_queries()
    assert _graph_answers(g) == _ruby_answers(files, tmp_path) == "[true, true, true, true]"
    before = dump(g)
    files["file:///ra/b.rb"] = files["file:///ra/b.rb"].replace("Y = Target\n", "")
    g.index_source("file:///ra/b.rb", files["file:///ra/b.rb"])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    after = dump(g)
    assert after == fresh_dump(files, core=False)
    assert after != before
    assert _graph_answers(g) == _ruby_answers(files, tmp_path) == "[false, false, true, false]"
    # And back: the alias added again (the body reopens Target once more).
    files["file:///ra/b.rb"] = REOPENED_THROUGH[where]["file:///ra/b.rb"]
    g.index_source("file:///ra/b.rb", files["file:///ra/b.rb"])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert dump(g) == fresh_dump(files, core=False) == before


# A constant alias assigned twice (``Y = Target`` in b.rb, ``Y = Other`` in d.rb) names what
# its last assignment names. Removing the first changes nothing it names; removing the last
# makes it name Target again: references through it, a mixin of it and a body written under
# its name (loaded after both, so that Ruby and the last-assignment rule agree) follow.
REASSIGNED = {
    "file:///rs/a.rb": "module Target\n  K = 1\n  def self.make = 1\nend\nmodule Other\n  K = 2\n  def self.make = 2\nend\n",
    "file:///rs/b.rb": "Y = Target\n",
    "file:///rs/c.rb": "class User\n  def f\n    Y.make\n    Y::K\n  end\nend\n",
    "file:///rs/d.rb": "Y = Other\n",
    "file:///rs/e.rb": "class Mixer\n  include Y\nend\nmodule Y\n  class Inner\n  end\nend\n",
}
REASSIGNED_PROBE = "p [Y.name, Mixer.include?(Target), defined?(Target::Inner).nil?, defined?(Other::Inner).nil?]\n"


def _reassigned_graph(g) -> str:
    mixer = [a.name for a in g["Mixer"].ancestors]
    return json.dumps([g["Y"].target.name, "Target" in mixer, g.get("Target::Inner") is None, g.get("Other::Inner") is None])


@pytest.mark.parametrize("goes", ["file:///rs/b.rb", "file:///rs/d.rb"])
def test_removing_one_assignment_of_a_reassigned_alias_is_incremental(goes, tmp_path):
    files = dict(REASSIGNED)
    g = fresh(files, core=False)
    g.prepare_queries()
    assert _reassigned_graph(g) == _ruby_answers(files, tmp_path, REASSIGNED_PROBE) == '["Other", false, true, false]'
    before = dump(g)
    files[goes] = "\n"
    g.index_source(goes, files[goes])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    after = dump(g)
    assert after == fresh_dump(files, core=False)
    expected = '["Other", false, true, false]' if goes.endswith("b.rb") else '["Target", true, false, true]'
    assert _reassigned_graph(g) == _ruby_answers(files, tmp_path, REASSIGNED_PROBE) == expected
    assert after != before


# A constant alias added under a new name: references through it, and an alias of it, find
# what it names, as in a graph built from scratch.
ADDED_ALIASES = {
    "plain": "Z = Target\n",
    "of an alias": "Z = Y\n",
    "of nothing": "Z = Nowhere\n",
    "nested": "module Target\n  Z = Target\nend\n",
}


@pytest.mark.parametrize("alias", sorted(ADDED_ALIASES))
def test_adding_a_constant_alias_is_incremental(alias):
    files = {
        "file:///aa/a.rb": "module Target\n  K = 1\n  def self.make = 1\nend\nY = Target\n",
        "file:///aa/c.rb": "class User\n  def f\n    Z.make\n    Z::K\n    Target::Z::K\n  end\nend\n",
    }
    g = fresh(files, core=False)
    g.prepare_queries()
    before = dump(g)
    files["file:///aa/b.rb"] = ADDED_ALIASES[alias]
    g.index_source("file:///aa/b.rb", files["file:///aa/b.rb"])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    after = dump(g)
    assert after == fresh_dump(files, core=False)
    assert after != before


# A class that other files' definitions name (a receiver, an alias target, a ``class << Foo``
# body, a compact name, a superclass) is renamed or removed, then typed back. Lookups that
# declare no placeholder and found it (``def Foo.helper``, ``X = Foo``) would find something
# else: their documents are taken out, the edit applied, and they come back
# (``Incremental._detour``); typed back, those that found nothing may find it again.
FOO = "module M\n  def m = 1\nend\nclass Foo\n  def f = 1\nend\n"
FOO_USES = {
    "receiver": "def Foo.helper = 2\nclass User\n  def u = Foo.helper\nend\n",
    "alias": "X = Foo\nclass User\n  def u = X.new.f\nend\n",
    "receiver and alias": "X = Foo\ndef Foo.helper = 2\n",
    "singleton body": "class << Foo\n  def x = 1\nend\n",
    "compact": "class Foo::Bar\nend\n",
    "subclass": "class Sub < Foo\nend\n",
}


@pytest.mark.parametrize("edit", ["removed", "renamed"])
@pytest.mark.parametrize("use", sorted(FOO_USES))
def test_a_class_other_files_name_removed_and_typed_back_is_incremental(use, edit):
    files = {"file:///fo/a.rb": FOO, "file:///fo/b.rb": FOO_USES[use], "file:///fo/c.rb": "class Other\n  def o = Foo\nend\n"}
    g = fresh(files, core=False)
    g.prepare_queries()
    before = dump(g)
    for text in (FOO.replace("class Foo\n  def f = 1\nend\n", "") if edit == "removed" else FOO.replace("class Foo", "class Fooo"), FOO):
        files["file:///fo/a.rb"] = text
        g.index_source("file:///fo/a.rb", text)
        g.resolve()
        assert g.last_resolve == "incremental", g.last_fallback
        assert dump(g) == fresh_dump(files, core=False)
    assert dump(g) == before


# A detour whose steps need detours of their own (random skeleton sequence seed 297): a.rb's
# X goes; b.rb's alias names it, so b.rb is emptied first; emptying b.rb removes M, which
# c.rb's alias names, so c.rb goes out of the way before it. All three come back in turn.
CHAINED_DETOUR = {
    "file:///cd/a.rb": "module X\n  def x; end\nend\n",
    "file:///cd/b.rb": "module M\n  K = X\n  def m; end\nend\n",
    "file:///cd/c.rb": "class N\n  K = M\n  def n\n    K\n  end\nend\n",
    "file:///cd/d.rb": "class User\n  def f\n    N.new.n\n    M::K\n    N::K\n  end\nend\n",
}


@pytest.mark.parametrize("change", ["removed", "renamed"])
def test_a_detour_whose_steps_go_around_other_documents_stays_incremental(change):
    files = dict(CHAINED_DETOUR)
    g = assert_incremental_edit(files, "file:///cd/a.rb", "\n" if change == "removed" else "module Y\n  def x; end\nend\n")
    # And back: X is declared again, and the aliases find it.
    g.index_source("file:///cd/a.rb", files["file:///cd/a.rb"])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert dump(g) == fresh_dump(files, core=False)


# A declaration that goes while an addition takes its name with another kind: typing
# ``MSG2 = 'x'`` above ``MSG = '...'`` reads ``MSG2 = MSG = '...'`` (an alias) until the quote
# makes the rest a string (a constant); ``class Broken`` becoming ``module Broken``. The
# edited document is emptied first, then given its new text (ids are names').
REDECLARED = {
    "alias to constant": ("class K\n  MSG2 = \n  MSG = 'a'\n  def f = MSG2\nend\n", "class K\n  MSG2 = '\n  MSG = 'a'\n  def f = MSG2\nend\n"),
    "class to module": ("class Broken\n  def f; end\nend\n", "module Broken\n  def f; end\nend\n"),
    "constant to class": ("Broken = 1\n", "class Broken\nend\n"),
}


@pytest.mark.parametrize("case", sorted(REDECLARED))
def test_a_name_declared_again_with_another_kind_is_incremental(case):
    old, new = REDECLARED[case]
    files = {"file:///rd/a.rb": old, "file:///rd/b.rb": "class User\n  def g\n    Broken\n    K::MSG2\n    K::MSG\n  end\nend\n"}
    assert_incremental_edit(files, "file:///rd/a.rb", new)


# Deleting a file that pulled others in (``require_relative`` in its class body, as RuboCop's
# ``method_call_with_args_parentheses.rb`` does): they move to where the load order reaches
# them now (after m.rb), in place, without walking the whole order again.
PULLING = {
    "file:///pl/lib/a.rb": "class A\n  require_relative 'z'\n  include Z\nend\n",
    "file:///pl/lib/m.rb": "class M\n  Z\n  def f = Z\nend\n",
    "file:///pl/lib/z.rb": "module Z\n  def z; end\nend\nX = Z\n",
    "file:///pl/lib/u.rb": "class U\n  def g\n    A.new.z\n    X\n  end\nend\n",
}


def test_deleting_a_file_that_pulled_others_in_moves_them_incrementally(monkeypatch):
    files = dict(PULLING)
    g = fresh(files, core=False)
    g.prepare_queries()
    before = dump(g)
    walks = []
    init = LoadOrder.__init__
    monkeypatch.setattr(LoadOrder, "__init__", lambda self, *a, **k: walks.append(a) or init(self, *a, **k))
    files.pop("file:///pl/lib/a.rb")
    g.delete_document("file:///pl/lib/a.rb")
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert walks == []  # The order was updated in place, not walked again from its roots.
    after = dump(g)
    assert after == fresh_dump(files, core=False)
    assert after != before
