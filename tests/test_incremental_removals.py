"""Deleting declarations re-resolves only the references that can change (issue 21): those that
found a deleted declaration, those whose path names one on the way (``A::Z`` found through a
deleted ``A``'s ancestors) and call receivers naming one (``Y = X; Y.new`` follows the alias).
References that name a deleted declaration but found another keep their answers. Every case
is checked against a graph built from scratch."""

from __future__ import annotations

import pytest

from tests.test_incremental import dump, fresh

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
    assert after == dump(fresh(files))
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
    assert dump(g) == dump(fresh(files))


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
    if use == "references":
        assert g.last_resolve == "incremental", g.last_fallback
    after = dump(g)
    assert after == dump(fresh(files))
    assert after != before
