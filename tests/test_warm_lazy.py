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

import rdx
import rdx.api.persisting as persisting
from rdx.cache.envelope import FORMAT, open_envelope, seal
from rdx.cache.snapshot import IMAGE_NAME, SNAPSHOT_NAME, SavedDocuments
from rdx.model.declarations import DeclarationRecord
from rdx.model.records import FileResult
from rdx.model.store import CORE_URI, Declarations, DeclarationTable, Documents, Rows, RowTable, Unread
from rdx.ruby.resolve.image import PackedRecords
from tests.test_incremental import dump

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
    g.resolve()
    return g


def unread_documents(g: rdx.Graph) -> int:
    return sum(type(d) is Unread for d in g._store.documents.entries())


def undecoded_declarations(g: rdx.Graph) -> int:
    assert g._view is not None
    decls = g._view.state.declarations
    return sum(type(v) is int for v in dict.values(decls))


def test_a_warm_open_decodes_only_what_its_first_question_reads(project):
    g = rdx.Graph.open(project)
    assert g.open_stats["resolved"] is True and g.open_stats["parsed"] == 0
    # Every document (Ruby core's too) is a stub, and no declaration record is decoded.
    assert unread_documents(g) == len(FILES) + 1
    assert isinstance(g._view.state.declarations, Declarations)
    total = len(g._view.state.declarations)
    assert undecoded_declarations(g) == total
    # The resolver waits for an edit.
    assert g._resolver is None and g._restorable is not None
    # A first question: the ancestors of a class read a few records and no document.
    assert [a.name for a in g["Shop::Special"].ancestors][:3] == ["Shop::Special", "Shop::Item", "Shop::Priced"]
    assert unread_documents(g) == len(FILES) + 1
    assert 0 < total - undecoded_declarations(g) < total // 4
    rows = g._view.state.constant_targets
    assert isinstance(rows, Rows) and all(type(v) is msgspec.Raw for v in dict.values(rows))
    # Everything else is decoded when asked, with the answers of a graph made from scratch.
    assert dump(g) == dump(from_scratch(project))
    assert unread_documents(g) == 0 or all(type(d) is FileResult for d in g._view.state.documents.values())
    assert type(g._view.state.declarations) is DeclarationTable  # Reads at a dict's speed again.
    assert type(g._view.state.method_receivers) is RowTable


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
    assert saved.left == 0 and saved.parts == [] and saved.names == {}


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
