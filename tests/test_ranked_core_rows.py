"""The ranked-search index a graph builds over the database of Ruby core's rows that an earlier
build of the process kept (``SymbolIndex.build``) holds exactly what a build from an empty
database holds, and answers every search the same, whatever the graph changes in core."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import build_graph, write

import rdx
import rdx.search.ranked as ranked
from rdx.search.ranked import SymbolIndex

# Reopens core classes (a documented method of String, Object gaining a mixin and a constant,
# Comparable's method made private) beside a project of its own.
REOPENING = {
    "core_ext.rb": """
module Shouting
  # Says it louder, in capital letters.
  def shout; upcase + "!"; end
end

class String
  include Shouting
  # Turns a title into a slug for URLs.
  def slugify; downcase.tr(" ", "-"); end
end

# The root of everything, with a version.
class Object
  VERSION_OF_ALL = 1
end

module Comparable
  private :clamp
end
""",
    "shop.rb": """
module Shop
  # Formats a number as currency, with its unit.
  def self.number_to_currency(number, unit: "$"); end

  class Item < Struct.new(:name, :price)
    # The price with tax, rounded to cents.
    def total(tax_rate); end
  end
end
""",
}

QUERIES = ["format number as currency", "slug for url", "louder capital letters", "string", "each", "hash merge", "to_s", "Shop", "clamp", "version"]


def contents(index: SymbolIndex) -> dict[str, list[tuple[object, ...]]]:
    db: sqlite3.Connection = index._db
    return {
        "decl": db.execute("SELECT rowid, * FROM decl ORDER BY rowid").fetchall(),
        "sym": db.execute("SELECT rowid, words, namespace, summary, doc, path, kind FROM sym ORDER BY rowid").fetchall(),
        "terms": db.execute("SELECT * FROM terms ORDER BY term").fetchall(),
        "count": [(index._count,)],
    }


def answers(index: SymbolIndex) -> list[object]:
    found: list[object] = [index._search(q, None, None, 30, None) for q in QUERIES]
    found.append(index.search("each", kind="Method", limit=50))
    found.append(index.statistics())
    return found


def test_an_index_built_over_core_rows_is_the_index_built_from_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first build keeps core's rows; the next builds, over them, hold and answer what a
    build from nothing does: for a graph that leaves core alone, one that changes some of its
    rows, one without core (whose own String, Object and Comparable have core's row ids), and
    one opened from disk with another language's declarations."""
    write(tmp_path / "lib/app.py", 'def format_currency(amount):\n    """Formats an amount as currency."""\n    return amount\n')
    write(tmp_path / "lib/app.rb", "class App\n  # Starts the application.\n  def run; end\nend\n")
    rdx.Graph.open([tmp_path], cache_dir=str(tmp_path / "cache")).resolve()
    # Opened again: its core document comes from the snapshot, another object saying the same.
    opened = rdx.Graph.open([tmp_path], cache_dir=str(tmp_path / "cache"))
    opened.search("currency")  # Makes the view searchable (the other languages' side included).
    assert opened._view.symbol_index.foreign.declarations

    # The first build of a graph that changes core keeps core's other rows.
    monkeypatch.setattr(ranked, "_core_rows", None)
    first = build_graph(REOPENING)._view.state
    first_fresh, first_kept = SymbolIndex.build(first, reuse_core=False), SymbolIndex.build(first)
    assert ranked._core_rows is not None and len(ranked._core_rows.rows) > 1000
    assert contents(first_kept) == contents(first_fresh) and answers(first_kept) == answers(first_fresh)
    kept = ranked._core_rows.rows
    no_core = build_graph(REOPENING, core=False)
    for g in (build_graph({}), build_graph(REOPENING), no_core, opened):
        state, foreign = g._view.state, g._view.symbol_index.foreign if g is opened else None
        fresh, shared = SymbolIndex.build(state, foreign, reuse_core=False), SymbolIndex.build(state, foreign)
        assert contents(shared) == contents(fresh)
        assert answers(shared) == answers(fresh)
        rows = {row[0]: row for row in fresh._db.execute("SELECT * FROM decl")}
        if g is opened:
            found = ranked._same_core(ranked._core_rows, state)
            assert found is not None and found is not ranked._core_rows.document
        # Core's kept rows stay as they are; without core, they go.
        assert all(rows[rowid] == row for rowid, (_, row) in kept.items() if rowid in rows)
        assert sum(1 for rowid in kept if rowid in rows) == (0 if g is no_core else len(kept))

    # Over the rows of a graph that leaves core alone, the reopenings change some and leave
    # others (String and Comparable#clamp() have rows of their own then).
    monkeypatch.setattr(ranked, "_core_rows", None)
    SymbolIndex.build(build_graph({})._view.state)
    kept = ranked._core_rows.rows
    reopened = build_graph(REOPENING)
    fresh, shared = SymbolIndex.build(reopened._view.state, reuse_core=False), SymbolIndex.build(reopened._view.state)
    assert contents(shared) == contents(fresh) and answers(shared) == answers(fresh)
    assert sum(1 for row in fresh._db.execute("SELECT * FROM decl") if row[0] in kept and kept[row[0]][1] != row) >= 2
    assert [r.name for r in reopened.search("turns a title into a slug")][0] == "String#slugify()"
