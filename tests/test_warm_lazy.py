"""A warm open decodes what its questions read, not the whole cache (issue 23).

``Graph.open`` of an unchanged project reads the snapshot's header and the saved resolved
graph's tables; documents (``rdx.model.store.Documents``) and declaration records
(``Declarations``) stay encoded until something reads them, and the resolver's bookkeeping is
restored when an edit (or ``prepare_queries``) needs it. These tests check that little is
decoded before the first answer, that every way of reading a table decodes what it hands out,
that answers are those of a graph built from scratch, and that a cache this rdx cannot use
heals itself. None of them times anything.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import msgspec
import pytest
from conftest import write
from test_incremental import dump

import rdx
import rdx.api.persisting as persisting
from rdx.cache.envelope import FORMAT, open_envelope, seal
from rdx.cache.snapshot import IMAGE_NAME, SNAPSHOT_NAME, SavedDocuments
from rdx.model.declarations import DeclarationRecord
from rdx.model.packed import (
    BisectedChains,
    BuiltRows,
    ChainTable,
    LazyNames,
    NameTable,
    PackedChains,
    PackedDeclarations,
    PackedIds,
    PackedNames,
    PackedRecords,
    PackedRows,
)
from rdx.model.records import FileResult
from rdx.model.store import CORE_URI, Declarations, DeclarationTable, Documents, Rows, RowTable, Unread

FILES = {
    "lib/shop.rb": "module Shop\n  module Priced\n    def price; end\n  end\n  class Item\n    include Priced\n    def <=>(o) = price <=> o.price\n  end\nend\n",
    "lib/special.rb": "require_relative 'shop'\nmodule Shop\n  class Special < Item\n    alias cost price\n    def self.build = new\n  end\nend\n",
    "lib/use.rb": "class Report\n  def run = Shop::Special.build.cost\nend\n",
    "lib/other.rb": "class Other\n  def a = 1\nend\n",
    "lib/more.rb": "module More\n  class Thing < Other; end\nend\n",
}


def saved_project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A project of ``files`` whose snapshot and resolved graph are saved in its cache."""
    root = tmp_path / "project"
    for rel, text in files.items():
        write(root / rel, text)
    rdx.Graph.open(root).resolve()
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return saved_project(tmp_path, FILES)


def from_scratch(root: Path) -> rdx.Graph:
    g = rdx.Graph()
    g.index_all([root])
    g.resolve(from_scratch=True)
    return g


def unread_documents(g: rdx.Graph) -> int:
    return sum(type(d) is Unread for d in g._store.documents.entries())


def undecoded_declarations(g: rdx.Graph) -> int:
    assert g._view is not None
    decls = g._view.state.declarations
    if type(decls) is PackedDeclarations:  # Its table holds only the records decoded.
        return len(decls) - dict.__len__(decls)
    return sum(type(v) is int for v in dict.values(decls))


def test_a_warm_open_decodes_only_what_its_first_question_reads(project):
    g = rdx.Graph.open(project)
    assert g.open_stats["resolved"] is True and g.open_stats["parsed"] == 0
    # Every document (Ruby core's too) is a stub, and no declaration record is decoded.
    assert unread_documents(g) == len(FILES) + 1
    assert isinstance(g._view.state.declarations, Declarations)
    total = len(g._view.state.declarations)
    assert undecoded_declarations(g) == total
    # Neither the table of ids nor that of names is built.
    assert type(g._view.state.declarations) is PackedDeclarations and type(g._view.state.by_name) is LazyNames
    # The resolver waits for an edit.
    assert g._resolver is None and g._restorable is not None
    # A first question: the ancestors of a class read a few records and no document.
    assert [a.name for a in g["Shop::Special"].ancestors][:3] == ["Shop::Special", "Shop::Item", "Shop::Priced"]
    assert unread_documents(g) == len(FILES) + 1
    assert 0 < total - undecoded_declarations(g) < total // 4
    rows = g._view.state.constant_targets
    assert isinstance(rows, PackedRows) and rows.packed is not None and dict.__len__(rows) == 0  # Not even filled.
    # The chains too: only those the answer read are decoded.
    chains = g._view.state.ancestors
    assert type(chains) is BisectedChains and 0 < dict.__len__(chains) < len(chains)
    # Everything else is decoded when asked, with the answers of a graph made from scratch.
    assert dump(g) == dump(from_scratch(project))
    assert unread_documents(g) == 0 or all(type(d) is FileResult for d in g._view.state.documents.values())
    assert type(g._view.state.declarations) is DeclarationTable  # Reads at a dict's speed again.
    assert type(g._view.state.method_receivers) in (RowTable, BuiltRows)
    chains = g._view.state.ancestors
    assert type(chains) is ChainTable or not any(map(chains._encoded, dict.values(chains)))


def test_a_warm_open_names_its_documents_by_the_snapshot_s_digest(project, monkeypatch):
    calls = []
    digest = persisting.documents_digest
    monkeypatch.setattr(persisting, "documents_digest", lambda docs: calls.append(1) or digest(docs))
    g = rdx.Graph.open(project)
    assert g.open_stats["resolved"] is True and calls == []  # Nothing hashed again.
    # The digest saved names exactly the documents the graph holds.
    assert g._saved_fingerprint == persisting.documents_fingerprint(g._store.documents.entries(), g._root_order()[0])
    # A file changed: parsed again, and the documents are hashed as they are now.
    write(project / "lib/other.rb", FILES["lib/other.rb"] + "# changed\n")
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 1 and calls and "Other#a()" in g


def test_the_first_edit_restores_the_resolver_and_updates_incrementally(project):
    g = rdx.Graph.open(project)
    assert g["Shop::Item"] is not None
    text = FILES["lib/other.rb"].replace("def a = 1", "def a = 1\n  def b = 2")
    write(project / "lib/other.rb", text)
    g.index_source(str(project / "lib/other.rb"), text)
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert g._resolver is not None and g._restorable is None
    assert "Other#b()" in g
    assert dump(g) == dump(from_scratch(project))


def test_prepared_graph_shares_the_records_names_with_the_name_table(project):
    g = rdx.Graph.open(project)
    g.prepare_queries()
    state = g._view.state
    names = {name: name for name in state.by_name}
    assert all(r.name is names[r.name] for r in state.declarations.values())
    assert unread_documents(g) == 0 or not any(type(d) is Unread for d in state.documents.values())


def test_ruby_core_comes_from_the_snapshot(project, monkeypatch):
    def parse_core() -> FileResult:
        raise AssertionError("Ruby core was parsed again")

    monkeypatch.setattr(persisting, "core_document", parse_core)
    g = rdx.Graph.open(project)
    assert type(g._store.documents.peek(CORE_URI)) is Unread
    assert [a.name for a in g["Shop::Item"].ancestors][-3:] == ["Object", "Kernel", "BasicObject"]


def test_a_changed_core_stub_is_parsed_again_and_saved(project, monkeypatch):
    monkeypatch.setattr(persisting, "_core_hash", lambda: 12345)
    g = rdx.Graph.open(project)
    assert type(g._store.documents.peek(CORE_URI)) is FileResult  # Parsed, not the saved one.
    assert dump(g) == dump(from_scratch(project))


def _rewrite_part(path: Path, uri: str, payload: bytes) -> None:
    """Replace the saved document of ``uri`` by ``payload`` with a valid checksum: damage the
    checksum cannot see, as only a bug could make."""
    opened = open_envelope(path.read_bytes(), "snapshot")
    head = msgspec.msgpack.decode(opened.head)
    stamps = head["stamps"]
    index = next(i for i, s in enumerate(stamps) if s[0] == uri)
    parts = [bytes(p) if p is not None else b"" for p in opened.parts]
    parts[index] = payload
    path.write_bytes(seal("snapshot", bytes(opened.head), parts))


def test_a_saved_document_that_does_not_decode_is_parsed_again(project):
    uri = (project / "lib/use.rb").resolve().as_uri()
    _rewrite_part(project / ".rdx" / SNAPSHOT_NAME, uri, msgspec.msgpack.encode(["not", "a", "document"]))
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 0  # Its checksum is right: found when read.
    answers = dump(g)
    notes = [d.message for d in g.diagnostics if d.code == "internal-error"]
    assert len(notes) == 1 and uri in notes[0]
    answers["diagnostics"] = [x for x in answers["diagnostics"] if "internal-error" not in x]
    assert answers == dump(from_scratch(project))


def test_a_cache_of_the_previous_format_is_rebuilt(project):
    for name, kind in ((SNAPSHOT_NAME, "snapshot"), (IMAGE_NAME, "resolved")):
        path = project / ".rdx" / name
        path.write_bytes(msgspec.msgpack.encode(["rdx-cache", FORMAT - 1, kind, "rdx 0", b"0" * 16, b"", b"", []]))
    g = rdx.Graph.open(project)
    notes = [d.message for d in g.diagnostics if d.code == "snapshot-rebuilt"]
    assert notes and all("another cache format" in n for n in notes), notes
    assert g.open_stats["parsed"] == len(FILES)
    assert dump(g) == {**dump(from_scratch(project)), "diagnostics": dump(g)["diagnostics"]}
    again = rdx.Graph.open(project)
    assert again.open_stats["reused"] == len(FILES) and again.open_stats["resolved"] is True


# -- the tables themselves ---------------------------------------------------------------------


class _Source:
    """Documents decoded on demand, counting the decodes."""

    def __init__(self, docs: list[FileResult]) -> None:
        self.docs = docs
        self.reads: list[int] = []

    def read(self, index: int) -> FileResult:
        self.reads.append(index)
        return self.docs[index]


def _documents() -> tuple[Documents[str], _Source]:
    docs = [FileResult(uri=f"file:///{i}.rb", path=f"/{i}.rb", size=i, content_hash=i) for i in range(4)]
    source = _Source(docs)
    table: Documents[str] = Documents((d.uri, Unread(source, i, d.uri, d.path, d.size, 0, d.content_hash, False)) for i, d in enumerate(docs))
    return table, source


READS = {
    "dict()": lambda t: list(dict(t).values()),
    "{**}": lambda t: list({**t}.values()),
    "copy": lambda t: list(t.copy().values()),
    "values": lambda t: list(t.values()),
    "items": lambda t: [v for _, v in t.items()],
    "index": lambda t: [t[k] for k in list(t)],
    "get": lambda t: [t.get(k) for k in list(t)],
    "pop": lambda t: [t.pop(k) for k in list(t)],
    "union": lambda t: list((t | {}).values()),
    "pickle": lambda t: list(pickle.loads(pickle.dumps(t)).values()),
    "deepcopy": lambda t: list(copy.deepcopy(t).values()),
    "update": lambda t: list(_updated(t).values()),
}


def _updated(table: dict[str, FileResult]) -> dict[str, FileResult]:
    out: dict[str, FileResult] = {}
    out.update(table)
    return out


@pytest.mark.parametrize("how", READS)
def test_every_read_of_documents_decodes(how):
    table, source = _documents()
    values = READS[how](table)
    assert len(values) == 4 and all(type(v) is FileResult for v in values), values
    assert sorted(set(source.reads)) == [0, 1, 2, 3]


def test_documents_entries_and_peek_decode_nothing():
    table, source = _documents()
    assert [d.uri for d in table.entries()] == list(table) and all(type(d) is Unread for d in table.entries())
    assert "file:///2.rb" in table and len(table) == 4
    assert type(table.peek("file:///2.rb")) is Unread
    assert source.reads == []
    first = table["file:///1.rb"]
    assert table["file:///1.rb"] is first and source.reads == [1]


def _declarations() -> tuple[Declarations, list[str]]:
    records = [DeclarationRecord(id=100 + i, name="", unqualified=f"C{i}", kind="Class", owner=None) for i in range(5)]
    names = [f"C{i}" for i in range(5)]
    # Packed as a saved image holds them (``ResolvedImage.declaration_records``).
    data, ends = PackedRecords.pack([msgspec.msgpack.encode(r) for r in records])
    return Declarations([100 + i for i in range(5)], names, PackedRecords(memoryview(data), ends)), names


@pytest.mark.parametrize("how", READS)
def test_every_read_of_declarations_decodes(how):
    table, names = _declarations()
    values = READS[how](table)
    assert [type(v) for v in values] == [DeclarationRecord] * 5
    assert [v.name for v in values] == names


@pytest.mark.parametrize("how", READS)
def test_every_read_of_rows_decodes(how):
    table = Rows({k: msgspec.Raw(msgspec.msgpack.encode([k, None, 7])) for k in range(3)})
    values = READS[how](table)
    assert values == [[0, None, 7], [1, None, 7], [2, None, 7]]


@pytest.mark.parametrize("how", READS)
def test_every_read_of_packed_rows_decodes(how):
    rows = {k: [k, None, 7] for k in range(3)}
    data, ends = PackedRecords.pack([msgspec.msgpack.encode(r) for r in rows.values()])
    table = PackedRows((PackedIds.pack(list(rows))[0], memoryview(data), ends))
    values = READS[how](table)
    assert values == [[0, None, 7], [1, None, 7], [2, None, 7]]


def test_packed_rows_fill_on_first_read_then_decode_one_row_at_a_time():
    data, ends = PackedRecords.pack([msgspec.msgpack.encode([k, None]) for k in range(3)])
    table = PackedRows((PackedIds.pack([10, 20, 30])[0], memoryview(data), ends))
    assert dict.__len__(table) == 0 and table.packed is not None
    assert 20 in table and 21 not in table and len(table) == 3 and table.packed is None
    row = table[20]
    assert row == [1, None] and table.get(20) is row and sum(map(table._encoded, dict.values(table))) == 2
    assert list(table.values()) == [[0, None], [1, None], [2, None]] and type(table) is BuiltRows
    assert PackedRows((memoryview(b""), memoryview(b""), memoryview(b""))) == {}


def _chains() -> PackedChains:
    # Packed as a saved image holds them (``ResolvedImage.ancestors``).
    data, ends = PackedRecords.pack([msgspec.msgpack.encode((10 + i, 1, 0)) for i in range(3)])
    return PackedChains([10, 11, 12], PackedRecords(memoryview(data), ends))


@pytest.mark.parametrize("how", READS)
def test_every_read_of_packed_chains_decodes(how):
    values = READS[how](_chains())
    assert values == [(10, 1, 0), (11, 1, 0), (12, 1, 0)]


def _bisected_chains() -> tuple[BisectedChains, list[int]]:
    ids = [12, 2**64 - 2, 10, 7]
    data, ends = PackedRecords.pack([msgspec.msgpack.encode((i, 1)) for i in ids])
    return BisectedChains(PackedIds(*PackedIds.pack(ids)), PackedRecords(memoryview(data), ends)), ids


@pytest.mark.parametrize("how", READS)
def test_every_read_of_bisected_chains_decodes(how):
    table, ids = _bisected_chains()
    assert READS[how](table) == [(i, 1) for i in ids]


def test_bisected_chains_find_by_bisection_then_build_their_table_in_order():
    table, ids = _bisected_chains()
    assert len(table) == 4 and 10 in table and 11 not in table and table.get(11) is None and table.get(11, ()) == ()
    chain = table[2**64 - 2]
    assert chain == (2**64 - 2, 1) and table.get(2**64 - 2) is chain and dict.__len__(table) == 1
    assert type(table) is BisectedChains and "not built" in repr(table)
    assert list(table) == ids and type(table) is PackedChains and table[2**64 - 2] is chain
    assert list(table.values()) == [(i, 1) for i in ids] and type(table) is ChainTable


def test_chains_decode_one_at_a_time_then_become_a_plain_table():
    table = _chains()
    assert 11 in table and len(table) == 3 and table.get(99) is None and table.get(99, ()) == ()
    chain = table[11]
    assert chain == (11, 1, 0) and table[11] is chain and table.get(11) is chain
    assert sum(map(table._encoded, dict.values(table))) == 2
    assert list(table.values()) == [(10, 1, 0), (11, 1, 0), (12, 1, 0)]
    assert type(table) is ChainTable and table[11] is chain and not table.records
    assert PackedChains([], PackedRecords(memoryview(b""), b"")) == {}


NAMES = ["Zeta", "A", "Été::Ça", "A::B", "nul\0name", "B#x()", "", "A::B::C", "🦀"]


def _packed_names(names: list[str]) -> PackedNames:
    ids = [1000 - 7 * i for i in range(len(names))]
    data, ends = PackedIds.pack(ids)
    return PackedNames(*PackedNames.pack(names), PackedIds(data, ends))


def test_packed_names_find_every_name_by_bisection_as_a_dict_would():
    names = _packed_names(NAMES)
    expected = dict(zip(NAMES, names.ids.all(), strict=True))
    for name in NAMES:
        assert names.find(name) == NAMES.index(name) and names[NAMES.index(name)] == name
    for missing in ("", "a", "A::", "Zeta ", "\udc80", "zz", "A::B::C::D"):
        found = names.find(missing)
        assert (found is not None) == (missing in expected) and (found is None or NAMES[found] == missing)
    # Decoded once, NUL inside a name or not; the same strings on every call.
    assert names.strings() == NAMES and names.strings() is names.strings() and names[2] is names.strings()[2]
    # Equal names: the last wins, as in ``dict(zip(names, ids))``.
    twice = _packed_names(["B", "A", "B"])
    assert twice.find("B") == 2


LAZY_NAME_READS = {
    "index": lambda t: t["A::B"],
    "get": lambda t: t.get("A::B"),
    "in": lambda t: "A::B" in t,
    "len": lambda t: len(t),
    "missing": lambda t: (t.get("Nope", -1), "Nope" in t, 5 in t),
}


@pytest.mark.parametrize("how", LAZY_NAME_READS)
def test_lazy_names_answer_lookups_without_building_the_table(how):
    table = LazyNames(_packed_names(NAMES))
    plain = dict(zip(NAMES, table.names.ids.all(), strict=True))
    assert LAZY_NAME_READS[how](table) == LAZY_NAME_READS[how](plain)
    assert type(table) is LazyNames and dict.__len__(table) == 0
    with pytest.raises(KeyError):
        table["Nope"]


@pytest.mark.parametrize("how", READS)
def test_every_other_read_of_lazy_names_builds_the_table(how):
    table = LazyNames(_packed_names(NAMES))
    ids = table.names.ids.all()
    values = READS[how](table)
    assert values == ids
    assert type(table) in (NameTable, dict) or how == "pop"


def test_lazy_names_build_after_many_lookups_and_share_the_strings():
    names = _packed_names(NAMES)
    table = LazyNames(names)
    for _ in range(300):
        assert table.get("A") == names.ids[1]
    assert type(table) is NameTable and table.names is None
    assert list(table) == NAMES and all(a is b for a, b in zip(table, names.strings(), strict=True))
    assert table == dict(zip(NAMES, names.ids.all(), strict=True)) and table["A::B"] == names.ids[3]
    assert LazyNames(_packed_names([])) == {}


def _packed_declarations() -> tuple[PackedDeclarations, list[int]]:
    ids = [5, 10**19, 3, 2**64 - 1, 40]
    records = [DeclarationRecord(id=i, name="", unqualified=f"C{n}", kind="Class", owner=None) for n, i in enumerate(ids)]
    data, ends = PackedRecords.pack([msgspec.msgpack.encode(r) for r in records])
    packed_ids = PackedIds(*PackedIds.pack(ids))
    names = [f"C{n}" for n in range(len(ids))]
    return PackedDeclarations(packed_ids, names, PackedRecords(memoryview(data), ends)), ids


@pytest.mark.parametrize("how", READS)
def test_every_read_of_packed_declarations_decodes(how):
    table, ids = _packed_declarations()
    values = READS[how](table)
    assert [v.id for v in values] == ids and [v.name for v in values] == [f"C{n}" for n in range(5)]


def test_packed_declarations_decode_by_bisection_then_build_their_table_in_order():
    table, ids = _packed_declarations()
    assert len(table) == 5 and 3 in table and 4 not in table and "3" not in table and table.get(7) is None
    record = table[2**64 - 1]
    assert record.unqualified == "C3" and table.get(2**64 - 1) is record and dict.__len__(table) == 1
    with pytest.raises(KeyError):
        table[6]
    assert type(table) is PackedDeclarations
    assert list(table) == ids  # Built: every id, in the state's order.
    assert type(table) is Declarations and table[2**64 - 1] is record
    assert [r.id for r in table.values()] == ids and type(table) is DeclarationTable


def test_declarations_decode_one_record_at_a_time_then_become_a_plain_table():
    table, names = _declarations()
    assert 102 in table and len(table) == 5 and table.get(999) is None and table.get(999, 7) == 7
    record = table[102]
    assert record.name is names[2] and record.unqualified == "C2" and table[102] is record
    assert sum(type(v) is int for v in dict.values(table)) == 4
    assert type(table) is Declarations
    list(table.values())
    assert type(table) is DeclarationTable and table[102] is record
    assert not table.records and not table.names  # The file's bytes are let go.


def test_saved_documents_let_the_file_go_once_all_are_read(project):
    g = rdx.Graph.open(project)
    stub = g._store.documents.peek(CORE_URI)
    assert type(stub) is Unread and isinstance(stub.source, SavedDocuments)
    saved = stub.source
    assert saved.left == len(FILES) + 1
    list(g._store.documents.values())
    assert saved.left == 0 and saved.parts == [] and not saved.sharing.strings


LOCK = "GEM\n  remote: https://rubygems.org/\n  specs:\n    widget (1.2.0)\n"
WIDGET = "module Widget\n  class Crank\n    def turn; end\n  end\nend\n"


def test_gem_documents_come_from_the_gem_cache_undecoded(tmp_path, monkeypatch):
    monkeypatch.setenv("RDX_GEM_CACHE", str(tmp_path / "gem-cache"))
    root = tmp_path / "app"
    write(root / "Gemfile.lock", LOCK)
    write(root / "vendor/bundle/ruby/3.1.0/gems/widget-1.2.0/lib/widget.rb", WIDGET)
    write(root / "lib/machine.rb", "class Machine < Widget::Crank\n  def run = turn\nend\n")
    cold = rdx.Graph.open(root)
    cold.resolve()
    g = rdx.Graph.open(root)
    assert g.open_stats["gems_cached"] == 1 and g.open_stats["resolved"] is True
    gems = [d for d in g._store.documents.entries() if d.library is not None]
    assert [(type(d), d.library) for d in gems] == [(Unread, "widget-1.2.0")]
    assert "Widget::Crank#turn()" in g and [a.name for a in g["Machine"].ancestors][:2] == ["Machine", "Widget::Crank"]
    assert {d.library for d in g.documents if d.library} == {"widget-1.2.0"}
    assert dump(g) == dump(cold)


def test_packed_records_hand_out_each_record_s_bytes():
    """The image's records, one byte string and their ends: record ``i`` is exactly its bytes."""
    encoded = [msgspec.msgpack.encode(x) for x in ([1, "a"], [], "a longer record" * 20, 7)]
    data, ends = PackedRecords.pack(encoded)
    packed = PackedRecords(memoryview(data), ends)
    assert len(packed) == 4 and [bytes(packed[i]) for i in range(4)] == encoded
    assert bytes(packed[-1]) == encoded[-1] and [bytes(p) for p in packed[1:3]] == encoded[1:3]
    assert PackedRecords(memoryview(b""), b"")[0:0] == []


@pytest.mark.parametrize("name", ["a.rb", ".rb", "..rb", "...x.rb", "Gemfile", "x.rake", "x.py", "x.rb.txt", "README", "a.b.rb", "rb", "x.erb"])
def test_a_path_is_a_source_path_when_its_name_is_a_source_file(name):
    from rdx.workspace.files import is_source_file, is_source_path

    assert is_source_path(f"/p/q.rb/{name}") == is_source_file(name) == is_source_path(name)
