"""Tables that successive resolved states share instead of copying (issue 21).

An incremental update makes a new ``ResolvedState`` from the previous one and changes a few
entries of tables that hold a million of them on a large project (declarations, names,
chains). Copying such a table costs tens of milliseconds per keystroke; so the newest state
owns the one table, a ``Journaled`` dict, and each update writes into it in place while its
``Journal`` records what every key held before the update first wrote it. The previous state
gets an ``Earlier`` view of the same table: it reads through the journals, oldest first, and
so answers exactly as the table stood when that state was published. Published states thus
stay unchanged, as before, without a copy.

- Reads of the newest state run at a dict's speed (``Journaled`` overrides only writes).
- An earlier state's reads walk the journals written since (each holds only the keys one
  update wrote); iterating one builds its table once (``Earlier.table``).
- Journals are linked oldest to newest and held only by ``Earlier`` views: once the old
  states are gone, so are their journals.
- ``fork`` is the one way a state's table passes to its successor: a table that is not yet
  ``Journaled`` (a full resolve's or a warm open's) is copied once, and that copy is shared
  from then on.
"""

from __future__ import annotations

import itertools
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any, Generic, TypeVar

__all__ = ["Earlier", "Journal", "Journaled", "KeyOrdered", "fork"]

K = TypeVar("K")
V = TypeVar("V")

# A key the table did not hold before an update wrote it.
_ABSENT: Any = object()
_UNSEEN: Any = object()


class Journal:
    """What one update overwrote in a ``Journaled`` table: each key's value before the
    update first wrote it (``_ABSENT`` when there was none), and the next update's journal."""

    __slots__ = ("before", "newer")

    def __init__(self) -> None:
        self.before: dict[Any, Any] = {}
        self.newer: Journal | None = None


class Journaled(dict[K, V]):
    """The newest state's table: a dict whose writes are recorded in its current ``journal``
    (None: nobody needs the earlier values, as while a full resolve builds it)."""

    __slots__ = ("journal",)

    def __init__(self, items: Iterable[tuple[K, V]] | Mapping[K, V] = ()) -> None:
        super().__init__(items)
        self.journal: Journal | None = None

    def _record(self, key: K) -> None:
        journal = self.journal
        if journal is not None and key not in journal.before:
            journal.before[key] = dict.get(self, key, _ABSENT)

    def __setitem__(self, key: K, value: V) -> None:
        self._record(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: K) -> None:
        self._record(key)
        dict.__delitem__(self, key)

    def pop(self, key: K, *default: Any) -> Any:
        if key in self:
            self._record(key)
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[K, V]:
        key, value = dict.popitem(self)
        journal = self.journal
        if journal is not None and key not in journal.before:
            journal.before[key] = value
        return key, value

    def setdefault(self, key: K, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
            return default
        return dict.__getitem__(self, key)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> Journaled[K, V]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def clear(self) -> None:
        journal = self.journal
        if journal is not None:
            before = journal.before
            for key, value in dict.items(self):
                if key not in before:
                    before[key] = value
        dict.clear(self)

    def copy(self) -> dict[K, V]:  # type: ignore[override]
        return dict(dict.items(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(dict.items(self)),))


class KeyOrdered(Journaled[K, V]):
    """A ``Journaled`` table read in increasing key order, as a resolved state's documents
    are (a document's key is its place in load order). A key written below the largest one
    lands at the dict's end: the table then notes that it is out of order, and puts its
    entries back in key order, in place, the next time they are read in order (iteration,
    ``keys``, ``values``, ``items``, copies). Lookups never pay for it, and an update that
    adds a document no longer copies the whole table. Reordering changes no entry: nothing
    is journaled."""

    __slots__ = ("in_order",)

    def __init__(self, items: Iterable[tuple[K, V]] | Mapping[K, V] = ()) -> None:
        super().__init__(items)
        keys = dict.keys(self)
        self.in_order = all(a < b for a, b in itertools.pairwise(keys))  # type: ignore[operator]

    def __setitem__(self, key: K, value: V) -> None:
        if self.in_order and dict.__len__(self) and not dict.__contains__(self, key) and key < next(reversed(dict.keys(self))):  # type: ignore[operator]
            self.in_order = False
        Journaled.__setitem__(self, key, value)

    def settle(self) -> None:
        """Put the entries in key order now (``Graph`` does before it publishes a state, so
        that no read of a published state reorders its table while another thread reads it)."""
        self._order()

    def _order(self) -> None:
        if not self.in_order:
            items = sorted(dict.items(self))  # type: ignore[type-var]  # (Keys differ: values are never compared.)
            dict.clear(self)
            dict.update(self, items)
            self.in_order = True

    def __iter__(self) -> Iterator[K]:
        self._order()
        return dict.__iter__(self)

    def __reversed__(self) -> Iterator[K]:
        self._order()
        return dict.__reversed__(self)

    def keys(self) -> KeysView[K]:  # type: ignore[override]
        self._order()
        return dict.keys(self)

    def values(self) -> ValuesView[V]:  # type: ignore[override]
        self._order()
        return dict.values(self)

    def items(self) -> ItemsView[K, V]:  # type: ignore[override]
        self._order()
        return dict.items(self)

    def copy(self) -> dict[K, V]:  # type: ignore[override]
        self._order()
        return dict(dict.items(self))

    def __reduce__(self) -> tuple[Any, ...]:
        self._order()
        return (dict, (dict(dict.items(self)),))


class Earlier(Mapping[K, V], Generic[K, V]):
    """A ``Journaled`` table as it stood before the update that wrote ``journal`` and every
    later one: read-only."""

    __slots__ = ("_journal", "_table", "_whole")

    def __init__(self, table: Journaled[K, V], journal: Journal) -> None:
        self._table = table
        self._journal = journal
        self._whole: dict[K, V] | None = None

    def _find(self, key: Any) -> Any:
        whole = self._whole
        if whole is not None:
            return whole.get(key, _ABSENT)
        journal: Journal | None = self._journal
        while journal is not None:
            value = journal.before.get(key, _UNSEEN)
            if value is not _UNSEEN:
                return value
            journal = journal.newer
        return dict.get(self._table, key, _ABSENT)

    def __getitem__(self, key: K) -> V:
        value = self._find(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value  # type: ignore[no-any-return]

    def get(self, key: K, default: Any = None) -> Any:
        value = self._find(key)
        return default if value is _ABSENT else value

    def __contains__(self, key: object) -> bool:
        return self._find(key) is not _ABSENT

    def table(self) -> dict[K, V]:
        """The whole table as it stood (built once, on the first question that needs every
        entry; the journals are then no longer read)."""
        if self._whole is None:
            journals = []
            journal: Journal | None = self._journal
            while journal is not None:
                journals.append(journal)
                journal = journal.newer
            whole = dict(dict.items(self._table))
            for journal in reversed(journals):
                for key, value in journal.before.items():
                    if value is _ABSENT:
                        whole.pop(key, None)
                    else:
                        whole[key] = value
            if isinstance(self._table, KeyOrdered):
                whole = dict(sorted(whole.items()))  # type: ignore[arg-type]  # (Keys put back went last.)
            self._whole = whole
        return self._whole

    def __iter__(self) -> Iterator[K]:
        return iter(self.table())

    def __len__(self) -> int:
        return len(self.table())

    def keys(self) -> KeysView[K]:
        return self.table().keys()

    def values(self) -> ValuesView[V]:
        return self.table().values()

    def items(self) -> ItemsView[K, V]:
        return self.table().items()

    def copy(self) -> dict[K, V]:
        return dict(self.table())

    def __eq__(self, other: object) -> bool:
        return self.table() == (other.table() if isinstance(other, Earlier) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Earlier table: {len(self)} entries>"


def fork(table: Mapping[K, V], kind: type[Journaled[K, V]] = Journaled) -> tuple[Journaled[K, V], Earlier[K, V] | None]:
    """The table for a new state made from the state holding ``table``, and what that state
    holds from now on instead (None: it keeps ``table``, which was copied).

    A ``Journaled`` table is shared: a new journal starts, and the earlier state reads
    through it. Any other table (a full resolve's, a warm open's lazily decoded one) is
    copied into a ``Journaled`` one once (of ``kind``: ``KeyOrdered`` for one read in key
    order)."""
    if type(table) is kind:
        journal = Journal()
        if table.journal is not None:
            table.journal.newer = journal
        table.journal = journal
        return table, Earlier(table, journal)
    read_all = getattr(table, "read_all", None)
    if read_all is not None:
        read_all()  # A lazily decoded table decodes everything once, as its copy would.
    return kind(dict.items(table) if isinstance(table, dict) else table.items()), None
