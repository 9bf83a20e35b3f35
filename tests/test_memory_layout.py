"""A server keeps one prepared graph in memory (issue 21: a prepared 10-copy graph of the Debian
corpus, a million declarations, must stay under 4 GB; it measured 7.1 GB). Two kinds of waste
are pinned down here. The query indexes ``prepare_queries`` builds held Python objects per
declaration or per call (1.9 GB): the name index, the call sites, the ranked index's in-memory
database. A graph restored from the cache held an int object per occurrence of every id and a
string per record for every kind and visibility (500 MB more than the same graph resolved in
the process). The answers themselves are checked against scans in ``test_search.py`` (indexed
search equals scoring everything), here for call sites, and in ``test_cache.py`` for restored
graphs."""

from __future__ import annotations

import gc
import os
import sys
import tracemalloc
from array import array

import pytest
from conftest import build_graph

import rdx
from rdx.model.declarations import DeclarationRecord
from rdx.model.ids import declaration_id
from rdx.search import names, ranked
from rdx.search.names import SearchIndex, search_declarations


def synthetic_records(n: int) -> list[DeclarationRecord]:
    """``n`` declarations with names of about 40 characters: classes and methods in 5,000
    namespaces, as ten copies of a project would have them."""
    out = []
    for i in range(n):
        namespace = f"Copy{i % 10}::Widgets::Part{i // 10 % 500}"
        name = f"{namespace}#render_item_{i}()" if i % 3 else f"{namespace}::Piece{i}"
        unqualified = name.rsplit("#", 1)[-1] if "#" in name else name.rsplit("::", 1)[-1]
        out.append(DeclarationRecord(declaration_id(name), name, unqualified, "Method" if i % 3 else "Class", None))
    return out


@pytest.mark.slow  # 20,000 declarations under tracemalloc, then a full collection: seconds
def test_the_name_index_holds_no_python_object_per_declaration():
    records = synthetic_records(20_000)
    names._TOKEN_STRINGS.clear()  # Counted too: the token strings it keeps across revisions.
    gc.collect()
    tracemalloc.start()
    try:
        index = SearchIndex(records)
        index.prepare()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 1,100 bytes per declaration with a tuple, two lower-cased strings, dict entries, lists
    # and ints for each; about 330 with lines of haystacks and arrays of machine integers.
    assert kept / len(records) < 500
    # And it answers as a scan of every record does.
    for query in ("Piece12", "render_item_7", "Widgets::Part3", "rendr_item_1()", "CopyWidg"):
        for mode in ("fuzzy", "prefix", "exact"):
            indexed = [r.name for r in search_declarations(records, query, mode, index=index)]
            assert indexed == [r.name for r in search_declarations(records, query, mode)], (query, mode)


CALLS = {
    "a.rb": """\
class Shape
  def area; end
  def draw
    area
    area.round
    self.area
    helper(area)
  end
end
""",
    "b.rb": """\
class Square < Shape
  def draw
    super
    area; area; other.area
    [1, 2].map(&:round)
  end
end
Square.new.draw
""",
}


def test_call_sites_are_packed_and_answer_as_a_scan():
    g = build_graph(CALLS)
    view = g._ready()
    expected: dict[str, list[tuple[int, int]]] = {}
    for doc, result in view.state.documents.items():
        for i, ref in enumerate(result.method_refs):
            expected.setdefault(ref.name, []).append((doc, i))
    assert {"area", "round", "draw", "new"} <= set(expected)
    for name, sites in expected.items():
        assert view.call_sites(name) == sites, name
    assert view.call_sites("never_called") == []
    # One machine integer per call, not a tuple of two ints.
    assert all(type(sites) is array for sites in view._call_sites.values())
    refs = g.references_to("Shape#area()")
    assert len([r for r in refs if r.kind == "method"]) >= 5


def _deleted_temporary_files() -> int:
    """Open files of this process that were deleted (SQLite's private temporary databases)."""
    fds = "/proc/self/fd"
    count = 0
    for fd in os.listdir(fds):
        try:
            count += os.readlink(os.path.join(fds, fd)).endswith(" (deleted)")
        except OSError:
            pass
    return count


SEARCHED = {
    "money.rb": """\
module Billing
  # Formats a number as a currency string.
  def self.number_to_currency(number); end
end
""",
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_the_ranked_index_lives_in_a_temporary_file_and_follows_edits(tmp_path, monkeypatch):
    # SQLite writes a temporary database's file once its page cache is full: a small cache
    # makes this small index spill as a large one does.
    monkeypatch.setattr(ranked, "_PAGE_CACHE_KIB", 16)
    for name, text in SEARCHED.items():
        (tmp_path / name).write_text(text)
    before = _deleted_temporary_files()
    g = rdx.Graph.open(tmp_path, cache_dir=tmp_path / "cache")
    assert [d.name for d in g.search("format money as currency")][:1] == ["Billing::<Billing>#number_to_currency()"]
    # Built, saved, and moved out of the process's memory into a file SQLite deleted.
    assert _deleted_temporary_files() >= before + 1
    g.index_source(str(tmp_path / "money.rb"), SEARCHED["money.rb"].replace("number_to_currency", "number_to_money"))
    g.resolve()
    assert [d.name for d in g.search("format money as currency")][:1] == ["Billing::<Billing>#number_to_money()"]
    # Restored from the saved image by another graph: moved out of memory too.
    again = rdx.Graph.open(tmp_path, cache_dir=tmp_path / "cache")
    opened = _deleted_temporary_files()
    assert [d.name for d in again.search("format money as currency")][:1] == ["Billing::<Billing>#number_to_currency()"]
    assert _deleted_temporary_files() >= opened + 1


PROJECT = {
    "shapes.rb": """\
module Drawable
  def draw; end
end
class Shape
  include Drawable
  def area; end
  private
  def helper; end
end
class Square < Shape
  def area; helper; end
end
Square.new.area
""",
    "main.rb": "Square.new.area\nShape.new.area\n",
}


def test_a_restored_graph_shares_ids_and_vocabulary_strings(tmp_path):
    for name, text in PROJECT.items():
        (tmp_path / name).write_text(text)
    rdx.Graph.open(tmp_path, cache_dir=tmp_path / "cache").resolve()  # Saves the resolved graph.
    g = rdx.Graph.open(tmp_path, cache_dir=tmp_path / "cache")
    assert g.open_stats["resolved"]
    # Ids are shared when the resolver is restored (the first edit, or here), not at open.
    g.prepare_queries()
    state = g._ready().state
    ids = {k: k for k in state.declarations}
    chains = [x for chain in state.ancestors.values() for x in chain]
    rows = [x for table in (state.constant_targets, state.method_receivers) for row in table.values() for x in row if x is not None]
    assert chains and rows
    # One int object per declaration id, the declarations' key.
    assert all(x is ids[x] for x in chains + rows)
    assert set(state.ancestors) <= set(ids) and all(k is ids[k] for k in state.ancestors)
    # One string object per kind and per visibility, however many records hold it.
    records = list(state.declarations.values())
    assert len({id(r.kind) for r in records}) == len({r.kind for r in records})
    assert len({id(r.visibility) for r in records}) == len({r.visibility for r in records})
    assert all(type(r.kind) is str for r in records)
    # The project's documents come from the snapshot (the core stub is parsed in the process).
    definitions = [d for doc in state.documents.values() if doc.path and doc.path.startswith(str(tmp_path)) for d in doc.definitions]
    assert len(definitions) >= 7
    assert len({id(d.visibility) for d in definitions}) == len({d.visibility for d in definitions})
    assert g["Shape#helper()"].visibility == "private"
    assert [a.name for a in g["Square"].ancestors][:3] == ["Square", "Shape", "Drawable"]
    # Names of calls and definitions are one string object per name across documents.
    calls = [c for doc in state.documents.values() if doc.path and doc.path.startswith(str(tmp_path)) for c in doc.method_refs]
    assert len(calls) > len({c.name for c in calls}), "the project repeats call names"
    assert len({id(c.name) for c in calls}) == len({c.name for c in calls})
    assert len({id(d.name) for d in definitions}) == len({d.name for d in definitions})


def test_token_strings_are_cached_by_segment_and_equal_the_names_tokens():
    """The token cache that successive name indexes share holds one entry per name segment
    (issue 23: 980,000 names on 10 copies, a fraction as many segments), and a name's token
    string is its segments' tokens, as tokenizing the whole name gives them."""
    import random

    rng = random.Random(23)
    alphabet = "aAbBzZ09_:#?!=<>@$ .()[]é"
    samples = ["Spree::Order#total()", "ActiveRecord::Base", "::A::B", "Foo#==", "HTTPServer::XMLParser", "Foo::<Foo>#@x", "X#[]=", "", "::", "#"]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(20_000)]
    for name in samples:
        assert names._token_string(name) == " ".join(names._tokens(name)), name
    names._TOKEN_STRINGS.clear()
    # Ten copies of a project of 300 declarations: 3,000 names, 368 distinct segments.
    names_ = [f"Copy{c}::Widgets::Part{i // 30}" + (f"#render_{i % 30}()" if i % 30 else "") for c in range(10) for i in range(300)]
    records = [DeclarationRecord(declaration_id(n), n, n.rsplit("#", 1)[-1].rsplit("::", 1)[-1], "Method" if "#" in n else "Class", None) for n in names_]
    SearchIndex(records).prepare()
    segments = {s for r in records for s in r.name.replace("#", ":").split(":")}
    assert set(names._TOKEN_STRINGS) <= segments and len(names._TOKEN_STRINGS) <= len(segments) < len(records) / 8
