"""The architecture invariants of docs/architecture.md, one test each.

- A published graph never changes: answers from revision N stay the same after later edits.
- Queries never write: asking anything leaves the resolved state byte for byte as it was.
- Declarations depend on definitions only: code inside bodies and references never change
  which declarations exist.
- A body edit never changes another document's answers.
- Incremental equals fresh: see test_incremental*.py (random edit sequences compared with
  graphs built from scratch after every resolve).
"""

from __future__ import annotations

import msgspec
from test_incremental import BASE, dump, fresh

import rdx


def state_bytes(g: rdx.Graph) -> bytes:
    """The whole resolved state of a graph's current view, encoded."""
    state = g._view.state
    return msgspec.msgpack.encode(
        [
            sorted(state.declarations.items()),
            sorted(state.by_name.items()),
            sorted(state.definition_declarations.items()),
            sorted(state.constant_targets.items()),
            sorted(state.method_receivers.items()),
            sorted(state.ancestors.items()),
            state.diagnostics,
        ]
    )


def answers(decl: rdx.Declaration) -> tuple:
    return (
        decl.kind,
        [m.name for m in decl.members],
        [a.name for a in decl.ancestors],
        [str(d.location) for d in decl.definitions],
        [d.name for d in decl.descendants],
        decl.revision,
    )


def test_a_published_graph_never_changes():
    files = dict(BASE)
    g = fresh(files)
    item = g["Shop::Item"]
    special = g["Shop::Special"]
    before = (answers(item), answers(special), state_bytes(g))
    old_view = g._view
    edits = [
        ("file:///inc/a.rb", lambda s: s.replace("    def secret; end\n", "    def secret; end\n    def extra; end\n")),
        ("file:///inc/a.rb", lambda s: s.replace("include Pricing", "include Pricing\n    include Comparable")),
        ("file:///inc/b.rb", lambda s: s.replace("class Special < Item", "class Special < Object")),
        ("file:///inc/new.rb", lambda s: "module Shop\n  class Item\n    def added; end\n  end\nend\n"),
    ]
    for uri, change in edits:
        files[uri] = change(files.get(uri, ""))
        g.index_source(uri, files[uri])
        g.resolve()
    g.delete_document("file:///inc/new.rb")
    g.resolve()
    assert g.revision > item.revision
    assert (answers(item), answers(special)) == before[:2]
    saved = g._view
    g._view = old_view
    try:
        assert state_bytes(g) == before[2]
    finally:
        g._view = saved


def test_queries_never_write():
    g = fresh(dict(BASE))
    before = state_bytes(g)
    count = len(g._view.state.declarations)
    for decl in g.declarations:
        single = decl.singleton_class
        if single is not None:
            # Singleton classes of singleton classes that no code opens exist for the asker only.
            [a.name for a in single.ancestors]
            twice = single.singleton_class
            if twice is not None:
                [a.name for a in twice.ancestors]
        decl.find_member("label()")
        decl.target  # noqa: B018
        g.references_to(decl.name)
    for path in ("/inc/a.rb", "/inc/b.rb"):
        for line in range(1, 15):
            for column in (0, 4, 10):
                try:
                    g.definition_at(path, line, column)
                    g.hover_at(path, line, column)
                except rdx.InvalidArgumentError:
                    pass  # A line or column the file does not have.
    g.resolve_constant("Item", ["Shop"])
    g.search("Ite")
    g.dead_code_candidates()
    assert len(g._view.state.declarations) == count
    assert state_bytes(g) == before


def test_declarations_depend_on_definitions_only():
    """The same definitions with other code in the bodies (calls, references, locals) give
    the same declarations, ancestors and definition attachments."""
    plain = {"file:///d/a.rb": "module M; end\nclass A\n  include M\n  def run; end\n  class << self\n    def make; end\n  end\nend\n"}
    busy = {
        "file:///d/a.rb": "module M; end\nclass A\n  include M\n  def run; self.class.singleton_class.foo; A::B::C; end\n"
        "  class << self\n    def make; self.singleton_class; Missing::Thing.new; end\n  end\nend\n"
    }
    a, b = fresh(plain), fresh(busy)
    decls = lambda g: sorted((d.name, d.kind, [x.name for x in d.ancestors]) for d in g.declarations)  # noqa: E731
    assert decls(a) == decls(b)


def test_a_body_edit_never_changes_another_documents_answers():
    files = dict(BASE)
    g = fresh(files)
    g.prepare_queries()  # idle time, as a server: the big tables become shared (rdx.model.versions)
    state = g._view.state
    tables = state.declarations
    key_a = next(k for k, d in state.documents.items() if d.uri == "file:///inc/a.rb")
    others = {k: (state.constant_targets[k], state.method_receivers[k]) for k in state.documents if k != key_a}
    files["file:///inc/a.rb"] = files["file:///inc/a.rb"].replace("x * RATE", "x * RATE + Shop::Special.new('y').label.size")
    g.index_source("file:///inc/a.rb", files["file:///inc/a.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"
    after = g._view.state
    assert {k: (after.constant_targets[k], after.method_receivers[k]) for k in after.documents if k != key_a} == others
    # Nothing but that document's references was redone: the declarations are the same table,
    # and the update wrote nothing into it.
    assert after.declarations is tables and tables.journal is not None and not tables.journal.before
    assert dump(g) == dump(fresh(files))
