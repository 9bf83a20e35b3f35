"""Incremental updates: after any sequence of edits, ``resolve()`` gives exactly what a graph
built from scratch over the final files gives. Edits inside method bodies take the fast path
(only the edited document's references are resolved again); the test checks it is taken."""

from __future__ import annotations

import os
import random

import pytest

import rdx

BASE = {
    "file:///inc/a.rb": """\
module Shop
  # Pricing helpers.
  module Pricing
    RATE = 2
    def total(x)
      x * RATE
    end
  end

  class Item
    include Pricing
    attr_reader :name

    def initialize(name)
      @name = name
    end

    def label
      name.upcase
    end
  end
end
""",
    "file:///inc/b.rb": """\
require_relative "a"

module Shop
  class Special < Item
    def label
      total(3).to_s + super
    end

    private

    def secret; end
  end

  LIST = [Item, Special].freeze
end
""",
    "file:///inc/c.rb": """\
class Report
  def run
    Shop::Special.new("x").label
  end
end
""",
}

# Edits that keep every definition as it is (the fast path).
BODY_EDITS = [
    lambda s: "\n\n" + s,  # shift every position
    lambda s: s.replace("x * RATE", "x * RATE + Shop::Item.new('y').label.size"),
    lambda s: s.replace("name.upcase", "name.upcase.then { |n| n + Report.new.run.to_s }"),
    lambda s: s.replace("total(3).to_s + super", "total(4).to_s + LIST.size.to_s + super"),
    lambda s: s.replace("# Pricing helpers.", "# Pricing helpers, now documented."),
    lambda s: s.replace('Shop::Special.new("x").label', 'Shop::Item.new("x").label + Undefined::Thing.to_s'),
]
# Edits that change definitions (a full resolve).
SHAPE_EDITS = [
    lambda s: s.replace("    def secret; end\n", "    def secret; end\n    def extra; end\n"),
    lambda s: s.replace("include Pricing", "include Pricing\n    include Comparable"),
    lambda s: s.replace("class Special < Item", "class Special < Item\n    RATE = 5"),
    lambda s: s.replace("attr_reader :name", "attr_accessor :name"),
    lambda s: s + "\nmodule Extra; end\n",
]


_CHAINED = ("Class", "Module", "SingletonClass", "Todo")


def _entry(d: object) -> tuple:
    """What ``dump`` says of one declaration, read through the public API."""
    return (
        d.kind,
        d.owner.name if d.owner else None,
        sorted(m.name for m in d.members),
        [(x.uri, x.kind, x.name, str(x.location), tuple(x.comments), x.signature) for x in d.definitions],
        [a.name for a in d.ancestors] if d.kind in _CHAINED else None,
        d.visibility,
        d.target.name if d.target else None,
    )


# Ruby core's declarations as a graph of core alone has them: by id, (signature, entry).
_core_entries: tuple[object, dict[int, tuple[tuple, tuple]]] | None = None


def _signature(view: object, rec: object, core_file: object) -> tuple | None:
    """Everything ``_entry`` reads of a declaration of core that only core defines, as ids and
    indexes (declaration ids are hashes of names, so the same id is the same name); None for
    one defined elsewhere too, or whose answer reads more (a constant alias's target, which
    follows other declarations). Two declarations with the same signature have the same
    entry, in any two graphs whose core document is the same object."""
    if rec.kind == "ConstantAlias":
        return None
    state = view.state
    docs = state.documents
    decls = state.declarations
    indexes = []
    for doc, index in rec.definitions:
        if docs.get(doc) is not core_file:
            return None
        indexes.append(index)
    if rec.owner is not None and rec.owner not in decls:
        return None
    keys = decls.keys()
    chain = view.chain(rec.id) if rec.kind in _CHAINED else None
    if chain is not None and not keys >= set(chain):
        return None
    members = tuple(rec.members.values())
    # Which members the graph has (``members`` leaves out those it lacks): all, usually.
    present = True if keys >= set(members) else tuple(m in decls for m in members)
    return (rec.name, rec.kind, rec.owner, rec.visibility, rec.private, tuple(indexes), members, present, chain)


def _core() -> tuple[object, dict[int, tuple[tuple, tuple]]]:
    """The core document and, by id, the signature and entry of each declaration of a graph of
    core alone (made once per process)."""
    global _core_entries
    if _core_entries is None:
        g = rdx.Graph()
        g.resolve()
        view = g._view
        core_file = next(iter(view.state.documents.values()))
        assert core_file.uri == "rdx-core:///core.rb"
        entries = {}
        for d in g.declarations:
            rec = view.state.declarations.get(getattr(d, "id", None))
            sig = _signature(view, rec, core_file) if rec is not None else None
            if sig is not None:
                entries[rec.id] = (sig, _entry(d))
        _core_entries = (core_file, entries)
    return _core_entries


# RDX_DUMP_CHECK=1: every dump also reads every declaration again, and the two must agree.
_CHECK_SHARED = bool(os.environ.get("RDX_DUMP_CHECK"))


def dump(g: rdx.Graph, share_core: bool = True) -> dict:
    """A canonical description of everything a graph answers.

    Core's declarations that the graph has as a graph of core alone has them (the same
    signature, ``_signature``) take their entries from that graph's (``_core``): two thirds of
    the time of a dump of a small project. ``share_core=False`` reads every one again; the
    two are the same (``test_a_dump_sharing_core_entries_is_the_full_dump``, and every dump of
    a run with RDX_DUMP_CHECK=1)."""
    found = _dump(g, share_core)
    if share_core and _CHECK_SHARED:
        assert found == _dump(g, False), "a dump sharing core's entries differs from the full dump"
    return found


def _dump(g: rdx.Graph, share_core: bool) -> dict:
    decls = {}
    handles = g.declarations
    view = g._view
    core_file, core = _core() if share_core else (None, {})
    records = view.state.declarations if share_core else {}
    for d in handles:
        entry = None
        rec = records.get(d.id) if type(d) is rdx.Declaration else None
        if rec is not None and (known := core.get(rec.id)) is not None and _signature(view, rec, core_file) == known[0]:
            entry = known[1]
        decls[d.name] = entry if entry is not None else _entry(d)
    refs = sorted((str(r.location), r.name, r.declaration.name if r.declaration else None) for r in g.constant_references)
    calls = sorted((str(r.location), r.name, r.receiver.name if r.receiver else None) for r in g.method_references)
    diags = sorted(str(x) for x in g.diagnostics)
    # The text index (grep) is not part of the resolved graph: built on demand by some graphs.
    stats = {k: v for k, v in g.stats().items() if k not in ("revision", "diagnostics", "text_files", "text_bytes")}
    # Internal consistency: no reference may point at a declaration that no longer exists.
    state = g._view.state
    dangling = sum(1 for rows in (state.constant_targets, state.method_receivers) for row in rows.values() for t in row if t is not None and t not in state.declarations)
    return {"declarations": decls, "constant_references": refs, "method_references": calls, "diagnostics": diags, "stats": stats, "dangling": dangling}


def fresh(files: dict[str, str], core: bool = True) -> rdx.Graph:
    """The graph of ``files`` resolved from scratch: the oracle of every incremental test (a
    full resolve of a small project otherwise starts from the resolved core and adds the
    files, which is itself an incremental update: ``tests/test_core_base.py``)."""
    g = rdx.Graph(core=core)
    for uri, text in files.items():
        g.index_source(uri, text)
    g.resolve(from_scratch=True)
    return g


# ``fresh_dump``'s answers, by files (in their order) and core; the oldest go past _FRESH_DUMPS.
_fresh_dumps: dict[tuple[tuple[tuple[str, str], ...], bool], dict] = {}
_FRESH_DUMPS = 512


def fresh_dump(files: dict[str, str], core: bool = True) -> dict:
    """``dump(fresh(files, core))``, the oracle's answers, made once per process for the same
    files in the same order: a resolve from scratch gives the same answers for the same input,
    and the random edit sequences come back to the same files often (in
    ``test_random_edit_sequences_match_a_fresh_graph``, three times in four). The answers are
    only compared, never changed."""
    key = (tuple(files.items()), core)
    found = _fresh_dumps.pop(key, None)
    if found is None:
        found = dump(fresh(files, core))
        if len(_fresh_dumps) >= _FRESH_DUMPS:
            del _fresh_dumps[next(iter(_fresh_dumps))]
    _fresh_dumps[key] = found  # Last: the least recently used goes first.
    return found


def test_body_edit_takes_the_fast_path_and_matches_a_fresh_graph():
    files = dict(BASE)
    g = fresh(files)
    before = g["Shop::Item"]
    files["file:///inc/a.rb"] = BODY_EDITS[1](files["file:///inc/a.rb"])
    g.index_source("file:///inc/a.rb", files["file:///inc/a.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"  # no full resolve happened
    assert dump(g) == fresh_dump(files)
    # The earlier answer still describes the earlier revision.
    assert before.revision < g.revision and before.name == "Shop::Item"


def test_member_edit_replays_members_and_matches_a_fresh_graph():
    files = dict(BASE)
    g = fresh(files)
    before = g["Shop::Special"]
    files["file:///inc/b.rb"] = SHAPE_EDITS[0](files["file:///inc/b.rb"])
    g.index_source("file:///inc/b.rb", files["file:///inc/b.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"  # members replayed, no full resolve
    assert "Shop::Special#extra()" in g
    assert g["Shop::Special#extra()"].visibility == "private"
    assert dump(g) == fresh_dump(files)
    # The earlier answer still describes the earlier revision.
    assert "extra()" not in [m.unqualified_name for m in before.members]


def test_a_mixin_added_recomputes_the_chains_incrementally():
    files = dict(BASE)
    g = fresh(files)
    files["file:///inc/a.rb"] = SHAPE_EDITS[1](files["file:///inc/a.rb"])
    g.index_source("file:///inc/a.rb", files["file:///inc/a.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"
    assert "Comparable" in [a.name for a in g["Shop::Item"].ancestors]
    assert dump(g) == fresh_dump(files)


@pytest.mark.parametrize("seed", range(200))
def test_random_edit_sequences_match_a_fresh_graph(seed):
    rng = random.Random(seed)
    files = dict(BASE)
    # Without the Ruby core stub: the property is about updates, and it keeps 200 runs fast.
    g = fresh(files, core=False)
    for _ in range(rng.randint(2, 5)):
        uri = rng.choice(sorted(files))
        roll = rng.random()
        if roll < 0.6:
            files[uri] = rng.choice(BODY_EDITS)(files[uri])
            g.index_source(uri, files[uri])
        elif roll < 0.85:
            files[uri] = rng.choice(SHAPE_EDITS)(files[uri])
            g.index_source(uri, files[uri])
        elif roll < 0.93 and len(files) > 1:
            del files[uri]
            g.delete_document(uri)
        else:
            new_uri = f"file:///inc/new{rng.randint(0, 3)}.rb"
            files[new_uri] = rng.choice(list(BASE.values()))
            g.index_source(new_uri, files[new_uri])
        if rng.random() < 0.7:
            g.resolve()
            assert dump(g) == fresh_dump(files, core=False), f"seed {seed}"
    g.resolve()
    assert dump(g) == fresh_dump(files, core=False), f"seed {seed}"


def test_an_incremental_update_that_fails_resolves_from_scratch_and_says_so(monkeypatch):
    files = dict(BASE)
    g = fresh(files)
    from rdx.ruby.resolve.driver import Resolver

    def broken(self, new):  # type: ignore[no-untyped-def]
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(Resolver, "refresh_document", broken)
    files["file:///inc/a.rb"] = BODY_EDITS[1](files["file:///inc/a.rb"])
    g.index_source("file:///inc/a.rb", files["file:///inc/a.rb"])
    g.resolve()
    notes = [d for d in g.diagnostics if d.code == "internal-error"]
    assert len(notes) == 1 and "simulated bug" in notes[0].message
    answers = dump(g)
    answers["diagnostics"] = [x for x in answers["diagnostics"] if "internal-error" not in x]
    assert answers == fresh_dump(files)


# Reopens core (methods, a mixin, a constant, an alias, visibility) and adds to it from outside.
CORE_EDITS = {
    "file:///core_ext/a.rb": """\
module Loud
  def shout; upcase; end
end

class String
  include Loud
  # Turns a title into a slug.
  def slugify; downcase; end
end

class Object
  ROOT_VERSION = 1
end

module Comparable
  private :clamp
end

Kernel.module_eval do
  def helper_everywhere; end
end

Enumerable::Alias = Comparable
Hash.include(Loud)
""",
}


def test_a_dump_sharing_core_entries_is_the_full_dump(tmp_path) -> None:
    """``dump`` takes core's entries from a graph of core alone where the signature says they
    are the same; it answers what reading every declaration answers, for graphs that leave
    core alone, change it (then those declarations are read again), edit it incrementally,
    have no core, or were opened from a snapshot (another core document object)."""
    core_file, entries = _core()
    assert len(entries) > 3000
    plain = fresh(dict(BASE))
    reopened = fresh({**BASE, **CORE_EDITS})
    edited = fresh(dict(BASE))
    edited.index_source("file:///core_ext/a.rb", CORE_EDITS["file:///core_ext/a.rb"])
    edited.resolve()
    undone = fresh({**BASE, **CORE_EDITS})
    undone.delete_document("file:///core_ext/a.rb")
    undone.resolve()
    for name, text in BASE.items():
        (tmp_path / name.removeprefix("file:///inc/")).write_text(text)
    rdx.Graph.open([tmp_path], cache_dir=str(tmp_path / "cache")).resolve()
    opened = rdx.Graph.open([tmp_path], cache_dir=str(tmp_path / "cache"))  # Core from the snapshot.
    opened.resolve()
    for g in (plain, reopened, edited, undone, fresh(dict(BASE), core=False), opened):
        assert _dump(g, True) == _dump(g, False)

    def shared(g: rdx.Graph) -> set[str]:
        view = g._view
        return {
            rec.name
            for rec in view.state.declarations.values()
            if (known := entries.get(rec.id)) is not None and _signature(view, rec, core_file) == known[0]
        }

    # Core's entries serve the graphs that leave it alone; not String, Object, Comparable#clamp()
    # nor Hash once they change; over another core document object, only the declarations that
    # no document defines (singleton classes no code opens).
    assert len(shared(plain)) > 3000 and len(shared(undone)) > 3000
    for g in (reopened, edited):
        assert len(shared(g)) > 2000
        assert not {"String", "Object", "Comparable#clamp()", "Hash"} & shared(g)
    assert shared(opened) and not any(opened[name].definitions for name in shared(opened))
