"""Tables shared between resolved states (``rdx.model.versions``, issue 21): the newest state
writes in place, every earlier state keeps answering as its table stood when it was made."""

from __future__ import annotations

import pickle
import random

import msgspec
import pytest

import rdx
from rdx.model.versions import Earlier, Journaled, KeyOrdered, fork


def _write(table: dict, rng: random.Random, keys: range) -> None:
    """A random mix of every way a pass writes a table."""
    for _ in range(rng.randrange(1, 12)):
        key = rng.choice(keys)
        op = rng.randrange(7)
        if op == 0:
            table[key] = rng.random()
        elif op == 1 and key in table:
            del table[key]
        elif op == 2:
            table.pop(key, None)
        elif op == 3:
            table.setdefault(key, rng.random())
        elif op == 4:
            table.update({key: rng.random(), rng.choice(keys): rng.random()})
        elif op == 5 and table:
            table.popitem()
        else:
            table[key] = table.get(key, 0.0) + 1


@pytest.mark.parametrize("seed", range(12))
def test_every_earlier_state_reads_its_own_table(seed):
    rng = random.Random(seed)
    keys = range(40)
    table = {k: rng.random() for k in keys if rng.random() < 0.6}
    current, earlier = fork(table)
    assert earlier is None and current == table and current is not table  # copied once
    versions: list[tuple[Earlier, dict]] = []
    for step in range(30):
        as_it_was = dict(current)
        current, earlier = fork(current)
        assert earlier is not None
        versions.append((earlier, as_it_was))
        _write(current, rng, keys)
        if step == 5:
            current.clear()
        # Some earlier views are read in full part-way (they then keep a table of their own).
        if rng.random() < 0.2:
            view, expected = rng.choice(versions)
            assert dict(view.items()) == expected
    for view, expected in versions:
        assert len(view) == len(expected)
        assert set(view) == set(expected)
        for k in keys:
            assert (k in view) == (k in expected)
            assert view.get(k, "none") == expected.get(k, "none")
            if k in expected:
                assert view[k] == expected[k]
            else:
                with pytest.raises(KeyError):
                    view[k]
        assert view == expected and view.copy() == expected


@pytest.mark.parametrize("seed", range(8))
def test_a_key_ordered_table_reads_in_key_order_in_every_state(seed):
    """The documents' table: keys written anywhere (a document added between two others),
    every state, newest and earlier, iterates its keys increasing, as a sorted copy would."""
    rng = random.Random(seed)
    keys = range(0, 4000, 7)
    current, earlier = fork({k: float(k) for k in keys if rng.random() < 0.3}, KeyOrdered)
    assert earlier is None and type(current) is KeyOrdered and current.in_order
    versions: list[tuple[Earlier, dict]] = []
    for _ in range(25):
        as_it_was = dict(sorted(dict.items(current)))
        current, earlier = fork(current, KeyOrdered)
        assert earlier is not None and type(current) is KeyOrdered
        versions.append((earlier, as_it_was))
        _write(current, rng, keys)
        expected = sorted(dict.keys(current))
        assert list(current) == expected
        assert list(current.keys()) == expected and [k for k, _ in current.items()] == expected
        assert list(current.values()) == [dict.__getitem__(current, k) for k in expected]
        assert list(current.copy()) == expected and list(dict(current)) == expected
        assert list(pickle.loads(pickle.dumps(current))) == expected
    for view, expected_table in versions:
        assert list(view) == list(expected_table) and list(view.items()) == list(expected_table.items())


def test_a_key_written_below_the_last_reorders_only_when_read_in_order():
    table = KeyOrdered({10: "a", 30: "c"})
    table[40] = "d"  # at the end: still in order
    assert table.in_order
    table[20] = "b"
    assert not table.in_order and table[20] == "b" and 20 in table  # lookups read as they are
    assert list(table) == [10, 20, 30, 40] and table.in_order
    assert list(reversed(table)) == [40, 30, 20, 10]


def test_a_table_not_written_by_an_update_still_forks():
    current, _ = fork({1: "a"})
    nxt, earlier = fork(current)  # an update that writes nothing here
    assert nxt is current
    nxt[1] = "b"
    assert earlier[1] == "a" and nxt[1] == "b"


def test_journaled_tables_encode_and_pickle_as_dicts():
    current, _ = fork({1: "a", 2: "b"})
    assert isinstance(current, dict) and type(current) is Journaled
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(current)) == {1: "a", 2: "b"}
    assert type(pickle.loads(pickle.dumps(current))) is dict
    assert type(current.copy()) is dict


def test_a_lazily_decoded_table_is_decoded_once_when_first_forked():
    class Lazy(dict):
        decoded = False

        def read_all(self):
            self.decoded = True

    lazy = Lazy({1: "a"})
    current, earlier = fork(lazy)
    assert lazy.decoded and earlier is None and current == {1: "a"}


def test_states_share_their_tables_across_updates_and_old_answers_stay():
    """Through the public API: an update does not copy the big tables (the new state's
    declarations are the previous state's object), and answers taken before it still
    describe their revision, however many updates followed."""
    files = {
        "file:///v/a.rb": "module Shop\n  class Item\n    def price; end\n  end\nend\n",
        "file:///v/b.rb": "module Shop\n  class Cart\n    def add(item); end\n  end\nend\n",
    }
    g = rdx.Graph()
    for uri, text in files.items():
        g.index_source(uri, text)
    g.resolve()
    g.prepare_queries()
    first = g["Shop::Cart"]
    first_members = sorted(m.name for m in first.members)
    tables = g._store.resolved.declarations
    assert type(tables) is Journaled  # prepared for updates at idle
    for n in range(4):
        g.index_source("file:///v/b.rb", files["file:///v/b.rb"].replace("def add(item); end", f"def add(item); end\n    def extra{n}; end"))
        g.resolve()
        assert g.last_resolve == "incremental"
        assert g._store.resolved.declarations is tables  # shared, not copied
    assert sorted(m.name for m in first.members) == first_members
    assert "Shop::Cart#extra3()" in g and "Shop::Cart#extra0()" not in g
    assert "Shop::Cart#extra3()" not in [m.name for m in first.members]


def test_a_file_added_between_others_joins_the_shared_documents_in_load_order():
    """A new file's document takes a key between its neighbours in load order: the update
    writes it into the documents' table, shared with the previous state rather than copied
    and sorted again, and every state still reads its documents in key order."""
    g = rdx.Graph()
    g.index_source("file:///v/a.rb", "require_relative 'c'\nmodule A; end\n")
    g.index_source("file:///v/c.rb", "module C; end\n")
    g.index_source("file:///v/z.rb", "module Z; end\n")
    g.resolve()
    g.prepare_queries()
    documents = g._store.resolved.documents
    assert type(documents) is KeyOrdered
    before = [d.uri for d in documents.values()]
    g.index_source("file:///v/a.rb", "require_relative 'c'\nrequire_relative 'b'\nmodule A; B; end\n")
    g.index_source("file:///v/b.rb", "module B; end\n")
    g.resolve()
    assert g.last_resolve == "incremental"
    state = g._store.resolved
    assert state.documents is documents  # shared, not copied
    assert documents.in_order  # put in order before it was published: reads never reorder it
    keys = list(state.documents)
    assert keys == sorted(keys)
    uris = [d.uri for d in state.documents.values()]
    assert uris.index("file:///v/c.rb") < uris.index("file:///v/b.rb") < uris.index("file:///v/a.rb")
    assert [u for u in before if u != "file:///v/b.rb"] == [u for u in uris if u != "file:///v/b.rb"]


def test_a_warm_open_keeps_one_copy_of_each_table_once_prepared(tmp_path):
    """After a warm open, ``prepare_queries`` answers from the resolver's own (equal) state,
    whose tables are the shared kind, instead of keeping the saved image's copy beside it;
    answers and an earlier handle stay as they were, and edits after it stay incremental."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "shop.rb").write_text("module Shop\n  class Cart\n    def add(item); end\n  end\nend\n")
    rdx.Graph.open([tmp_path]).resolve()
    g = rdx.Graph.open([tmp_path])
    assert g.open_stats["resolved"]
    cart = g["Shop::Cart"]
    before = sorted(m.name for m in cart.members)
    g.prepare_queries()
    state = g._view.state
    assert type(state.declarations) is Journaled and g._store.resolved is state
    assert sorted(m.name for m in g["Shop::Cart"].members) == before
    (tmp_path / "lib" / "shop.rb").write_text("module Shop\n  class Cart\n    def add(item); end\n    def drop(item); end\n  end\nend\n")
    g.refresh_paths([str(tmp_path / "lib" / "shop.rb")])
    g.resolve()
    assert g.last_resolve == "incremental"
    assert "Shop::Cart#drop()" in g
    assert sorted(m.name for m in cart.members) == before
