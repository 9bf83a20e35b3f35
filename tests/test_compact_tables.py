"""The declarations a warm-opened graph decodes all at once share their values (issue 23):
ids are the table's keys, document keys one int per document, equal names one string; and
the graph answers as one resolved from scratch."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from conftest import build_graph, write
from test_incremental import dump
from test_warm_lazy import saved_project

import rdx
from rdx.model.declarations import DeclarationRecord
from rdx.model.records import FileResult
from rdx.model.store import Declarations, DeclarationTable, DocumentSharing
from rdx.ruby.resolve.image import PackedRecords

FILES = {
    "lib/shop.rb": "module Shop\n  module Priced\n    def price; end\n  end\n  class Item\n    include Priced\n    def <=>(o) = price <=> o.price\n    def price = 2\n  end\nend\n",
    "lib/special.rb": "require_relative 'shop'\nmodule Shop\n  class Special < Item\n    alias cost price\n    def self.build = new\n    def price = 3\n  end\nend\n",
    "lib/use.rb": "class Report\n  def run = Shop::Special.build.cost\n  def price = 1\nend\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return saved_project(tmp_path, FILES)


def test_a_prepared_warm_graph_shares_ids_document_keys_and_names(project):
    g = rdx.Graph.open(project)
    g.prepare_queries()
    decls = g._view.state.declarations
    assert not isinstance(decls, Declarations)  # Every record decoded (a shared table by now).
    keys = {k: k for k in decls}
    records = list(decls.values())
    assert all(r.id is keys[r.id] for r in records)
    for r in records:
        for value in (r.owner, r.superclass, r.singleton, r.attached, r.target, *r.members.values()):
            assert value is None or value not in keys or value is keys[value], r
    # The definitions' rows name the declarations by the same ints (``share_ids``).
    rows = g._view.state.definition_declarations
    assert all(d is None or d is keys[d] for row in rows.values() for d in row)
    # One int per document key, one string per unqualified name.
    documents: dict[int, int] = {}
    for r in records:
        for doc, _ in r.definitions:
            assert documents.setdefault(doc, doc) is doc
    strings: dict[str, str] = {}
    for r in records:
        assert strings.setdefault(r.unqualified, r.unqualified) is r.unqualified
        for name in r.members:
            assert strings.setdefault(name, name) is name
    assert sum(r.unqualified == "price()" for r in records) == 4
    # The same answers as a graph resolved from scratch, before and after an edit.
    fresh = rdx.Graph()
    fresh.index_all([project])
    fresh.resolve()
    assert dump(g) == dump(fresh)
    text = FILES["lib/use.rb"].replace("def price = 1", "def price = 1\n  def total = price")
    write(project / "lib/use.rb", text)
    g.index_source(str(project / "lib/use.rb"), text)
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    fresh.index_source(str(project / "lib/use.rb"), text)
    fresh.resolve()
    assert dump(g) == dump(fresh)


def _table() -> Declarations:
    records = [
        DeclarationRecord(id=10**12 + i, name="", unqualified="same", kind="Class", owner=10**12 if i else None, definitions=[(10**9, i)])
        for i in range(4)
    ]
    data, ends = PackedRecords.pack([msgspec.msgpack.encode(r) for r in records])
    return Declarations([10**12 + i for i in range(4)], ["A", "B", "C", "D"], PackedRecords(memoryview(data), ends))


def test_records_read_one_by_one_keep_their_own_values_and_those_read_together_share():
    one_by_one = _table()
    alone = [one_by_one[k] for k in list(one_by_one)]
    assert type(one_by_one) is Declarations and one_by_one.sharing is None
    assert len({id(r.unqualified) for r in alone}) == 4
    table = _table()
    together = list(table.values())
    assert type(table) is DeclarationTable and table.sharing is None  # Let go once all are read.
    key = next(k for k in table if k == 10**12)
    assert all(r.owner is key for r in together[1:]) and all(r.id is k for r, k in zip(together, table, strict=True))
    assert len({id(r.unqualified) for r in together}) == 1
    assert len({id(r.definitions[0][0]) for r in together}) == 1
    # Equal records either way.
    assert [msgspec.structs.asdict(r) for r in together] == [msgspec.structs.asdict(r) for r in alone]


# Two gems vendoring the same file, and a third file: the warm open's documents share equal
# offsets, names, comments, constant path segments and line tables (``DocumentSharing``).
VENDORED = "module Money\n  # Formats an amount.\n  # With a currency.\n  def self.format(x) = Kernel::Float(x).round(2).to_s\n  class Rate < Numeric::Base; end\nend\n"
SHARED_FILES = {
    "lib/a/money.rb": VENDORED,
    "lib/b/money.rb": VENDORED,
    "lib/use.rb": "require_relative 'a/money'\n# Formats an amount.\n# With a currency.\ndef show(x) = Money.format(x)\n",
}


def _values(doc: FileResult) -> list[object]:
    """Every shareable value of ``doc``, in a fixed order."""
    out: list[object] = [doc.line_starts]
    for call in doc.method_refs:
        out += [call.name, call.start, call.end]
        if call.receiver is not None:
            out += [call.receiver.segments, call.receiver.start, call.receiver.end]
    for ref in doc.const_refs:
        out += [ref.path.segments, *ref.path.segments, ref.path.start, ref.path.end]
    for d in doc.definitions:
        out += [d.name, d.start, d.end, d.name_start, d.name_end, d.comments, *d.comments]
        out += [x for p in (d.path, d.superclass) if p is not None for x in (p.segments, p.start, p.end)]
    return out


def test_documents_decoded_together_share_equal_values():
    from rdx.cache.snapshot import _document_decoder  # the snapshot's own decoder

    parsed = from_scratch_documents(SHARED_FILES)
    a, b = (parsed[f"lib/{d}/money.rb"] for d in "ab")
    encoded = [msgspec.msgpack.encode(a), msgspec.msgpack.encode(b), msgspec.msgpack.encode(parsed["lib/use.rb"])]
    plain = [_document_decoder.decode(x) for x in encoded]
    sharing = DocumentSharing()
    shared = [sharing.share(_document_decoder.decode(x)) for x in encoded]
    # Equal documents, equal hashes of the frozen records, whatever was shared.
    assert shared == plain
    assert [hash(r) for d in shared for r in d.method_refs] == [hash(r) for d in plain for r in d.method_refs]
    # Every value of the second copy is the first copy's object (its line table too).
    first, second = _values(shared[0]), _values(shared[1])
    assert len(first) > 30 and all(x is y for x, y in zip(first, second, strict=True))
    assert all(x is not y for x, y in zip(_values(plain[0]), _values(plain[1]), strict=True) if isinstance(x, (str, tuple)) and x)
    # Across different files: the comment strings, names and segments are the same objects.
    use = shared[2]
    assert use.definitions[0].comments is shared[0].definitions[1].comments
    paths = {p.segments: p.segments for p in [r.path for r in shared[0].const_refs] + [d.path for d in shared[0].definitions if d.path]}
    assert ("Money",) in paths and all(r.path.segments is paths[r.path.segments] for r in use.const_refs if r.path.segments in paths)


def test_a_warm_graph_with_vendored_copies_shares_and_answers_as_a_fresh_one(tmp_path):
    project = saved_project(tmp_path, SHARED_FILES)
    g = rdx.Graph.open(project)
    g.prepare_queries()
    docs = {d.path: d for d in g._view.state.documents.values() if d.path}
    a, b = (docs[str(project / f"lib/{d}/money.rb")] for d in "ab")
    assert all(x is y for x, y in zip(_values(a), _values(b), strict=True))
    fresh = rdx.Graph()
    fresh.index_all([project])
    fresh.resolve()
    assert dump(g) == dump(fresh)
    text = SHARED_FILES["lib/b/money.rb"].replace("round(2)", "round(3)").replace("# With", "# Without")
    write(project / "lib/b/money.rb", text)
    for graph in (g, fresh):
        graph.index_source(str(project / "lib/b/money.rb"), text)
        graph.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert dump(g) == dump(fresh)
    refs = [[(str(r.location), r.name) for r in graph.references_to("Money::<Money>#format()")] for graph in (g, fresh)]
    assert refs[0] == refs[1] and refs[0]


def from_scratch_documents(files: dict[str, str]) -> dict[str, FileResult]:
    """The documents discovery makes of ``files``, by name."""
    g = build_graph(files)
    return {uri.removeprefix("file:///fixture/"): d for uri, d in g._store.documents.items()}
