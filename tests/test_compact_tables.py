"""The declarations a warm-opened graph decodes all at once share their values (issue 23):
ids are the table's keys, document keys one int per document, equal names one string; and
the graph answers as one resolved from scratch."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from conftest import write

import rdx
from rdx.model.declarations import DeclarationRecord
from rdx.model.store import Declarations, DeclarationTable
from rdx.ruby.resolve.image import PackedRecords
from tests.test_incremental import dump
from tests.test_warm_lazy import saved_project

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
