"""The tables of a saved resolved graph (``ResolvedImage``, ``rdx/ruby/resolve/image.py``) as a
warm open reads them: packed integers, names, records, rows and chains, read where they are in
the mapped file and decoded one by one when first asked for (issue 23). Each table is a
``dict`` subclass of ``rdx.model.store``'s lazy tables, so that readers see a table whatever
is decoded yet; see ``Bisected``, ``LazyNames`` and ``PackedRows``. Nothing here knows what a
declaration means; it holds and finds encoded values."""

from __future__ import annotations

import sys
import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, repeat
from typing import Any, overload

import msgspec

from rdx.model.store import Declarations, LazyTable, Rows, RowTable

__all__ = [
    "Bisected", "BisectedChains", "BuiltRows", "ChainTable", "LazyNames", "NameTable", "PackedChains", "PackedDeclarations",
    "PackedIds", "PackedNames", "PackedRecords", "PackedRows", "pack_rows",
]

_encoder = msgspec.msgpack.Encoder()

def _uint64s(data: bytes | memoryview) -> array[int] | memoryview:
    """Packed little-endian uint64s (as ``_packed_uint64s`` writes them), read where they are
    (a view of the mapped file: nothing copied, and only the pages read are touched)."""
    if sys.byteorder == "big":
        packed = array("Q")
        packed.frombytes(data)
        packed.byteswap()
        return packed
    return memoryview(data).cast("B").cast("Q")


def _packed_uint64s(values: Iterable[int]) -> memoryview:
    packed = array("Q", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return memoryview(packed.tobytes())


class PackedIds(Sequence[int]):
    """The declarations' ids of a saved image, packed (``ResolvedImage.declaration_ids``, in
    the state's order) with their positions in id order: ``position`` finds an id by
    bisection, so that a first answer needs no table of a million ids; ``listed`` makes the
    int objects once, for the tables built from them (which then share them)."""

    __slots__ = ("packed", "order", "listed")

    def __init__(self, packed: bytes | memoryview, order: bytes | memoryview) -> None:
        self.packed = _uint64s(packed)
        self.order = _uint64s(order)
        self.listed: list[int] | None = None

    def __len__(self) -> int:
        return len(self.packed)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        return self.listed[index] if self.listed is not None else self.packed[index]

    def position(self, decl_id: object) -> int | None:
        """Where ``decl_id`` is, or None (an id no declaration has, or not an id at all)."""
        if type(decl_id) is not int:
            return None if not isinstance(decl_id, int) else self.position(int(decl_id))
        packed, order = self.packed, self.order
        at = bisect_left(order, decl_id, key=packed.__getitem__)
        if at < len(order) and packed[found := order[at]] == decl_id:
            return found
        return None

    def all(self) -> list[int]:
        """Every id, as int objects made once."""
        if self.listed is None:
            self.listed = self.packed.tolist()
        return self.listed

    @staticmethod
    def pack(ids: list[int]) -> tuple[memoryview, memoryview]:
        """(``declaration_ids``, ``declaration_id_order``)."""
        return _packed_uint64s(ids), _packed_uint64s(sorted(range(len(ids)), key=ids.__getitem__))


# Held while a ``Bisected`` table decodes a value or builds its table (queries may run in
# several threads): one value is one object.
_bisecting = threading.RLock()


def _building_table(method: str) -> Callable[..., Any]:
    def run(self: Bisected, *args: Any, **kwargs: Any) -> Any:
        self.build()
        return getattr(type(self), method)(self, *args, **kwargs)  # The built class's.

    run.__name__ = method
    return run


def _built(table: object) -> bool:
    """Whether a ``Bisected`` table has become its ``built`` class (by another thread, too)."""
    return not isinstance(table, Bisected)


class Bisected:
    """What a lazy table of a saved image keyed by ids (``PackedDeclarations``,
    ``BisectedChains``) is before its table is built: the underlying dict holds only the
    values decoded so far (by id), and indexing, ``get``, ``in`` and ``len`` find the others'
    positions by bisection (``PackedIds``). Anything else (iteration, views, copies, writes)
    builds the table first (every id, in the image's order, with its position, or its value
    if decoded already) and the object becomes its ``built`` class, a ``LazyTable`` whose
    values are the positions until decoded: a first answer makes neither the ids nor their
    table (a million of each on 10 copies of the Debian corpus, issue 23).

    A mixin of such a ``LazyTable`` (it adds no slot): the ids travel with the values'
    encodings (``_IdentifiedRecords`` in its ``records``)."""

    __slots__ = ()
    built: Any

    def build(self) -> None:
        """The table of every id (see the class docstring); nothing is decoded."""
        table: Any = self
        with _bisecting:
            records = table.records
            if _built(table) or not isinstance(records, _IdentifiedRecords):
                return
            decoded = dict(dict.items(table))
            dict.clear(table)
            dict.update(table, zip(records.ids.all(), range(len(records)), strict=True))
            dict.update(table, decoded)  # In place: the order stays.
            table.records = records.records
            table.__class__ = table.built
            if not dict.__len__(table):
                table.read_all()

    def _lookup(self, key: Any) -> Any:
        table: Any = self
        value = dict.get(table, key)
        if value is not None and type(value) is not int:
            return value
        records = table.records
        if _built(table) or not isinstance(records, _IdentifiedRecords):
            return type(table).get(table, key)  # Built meanwhile (another thread).
        position = records.ids.position(key)
        if position is None:
            return None
        with _bisecting:
            value = dict.get(table, key)
            if value is None:
                if _built(table):
                    return type(table).get(table, key)
                value = table._decode_value(position)
                dict.__setitem__(table, records.ids[position], value)
            return value

    def __getitem__(self, key: Any) -> Any:
        table: Any = self
        if _built(table):
            return type(table).__getitem__(table, key)
        value = self._lookup(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        table: Any = self
        if _built(table):
            return type(table).get(table, key, default)
        value = self._lookup(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        table: Any = self
        records = table.records
        if _built(table) or not isinstance(records, _IdentifiedRecords):
            return dict.__contains__(table, key)
        return dict.__contains__(table, key) or records.ids.position(key) is not None

    def __len__(self) -> int:
        table: Any = self
        records = table.records
        return len(records.ids) if isinstance(records, _IdentifiedRecords) else dict.__len__(table)

    def __repr__(self) -> str:
        table: Any = self
        if _built(table):
            return repr(table)  # The built class's.
        return f"<{type(table).__name__}: {len(table)}, {dict.__len__(table)} decoded, table not built>"

    __iter__ = _building_table("__iter__")
    __reversed__ = _building_table("__reversed__")
    __setitem__ = _building_table("__setitem__")
    __delitem__ = _building_table("__delitem__")
    __eq__ = _building_table("__eq__")
    __or__ = _building_table("__or__")
    __ror__ = _building_table("__ror__")
    __ior__ = _building_table("__ior__")
    __reduce__ = _building_table("__reduce__")
    keys = _building_table("keys")
    values = _building_table("values")
    items = _building_table("items")
    copy = _building_table("copy")
    setdefault = _building_table("setdefault")
    pop = _building_table("pop")
    popitem = _building_table("popitem")
    update = _building_table("update")
    clear = _building_table("clear")
    read_all = _building_table("read_all")
    __hash__ = None  # type: ignore[assignment]


class PackedDeclarations(Bisected, Declarations):
    """The ``Declarations`` of a saved image before their table is built (see ``Bisected``);
    then a ``Declarations``."""

    __slots__ = ()
    built = Declarations

    def __init__(self, ids: PackedIds, names: Sequence[str], records: Sequence[memoryview]) -> None:
        dict.__init__(self)  # type: ignore[misc]
        self.names = names
        self.records = _IdentifiedRecords(records, ids)
        self.sharing = None
        if not len(ids):
            self.build()


class _IdentifiedRecords(Sequence[memoryview]):
    """Records (``PackedRecords``) with the ids they belong to, for ``PackedDeclarations``."""

    __slots__ = ("records", "ids")

    def __init__(self, records: Sequence[memoryview], ids: PackedIds) -> None:
        self.records = records
        self.ids = ids

    def __len__(self) -> int:
        return len(self.records)

    @overload
    def __getitem__(self, index: int) -> memoryview: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[memoryview]: ...

    def __getitem__(self, index: int | slice) -> memoryview | Sequence[memoryview]:
        return self.records[index]


class PackedNames(Sequence[str]):
    """The declarations' names of a saved image (``ResolvedImage.declaration_names``) without
    a string object for each: one UTF-8 byte string (names separated by NUL bytes), where each
    name ends and the positions in name order. ``find`` answers a name by bisection over that
    order (UTF-8's byte order is the code points' order, which ``pack`` sorts by), so a first
    answer needs neither a million strings nor the table of them (issue 23); ``strings``
    decodes them all, once, for the name table and the records decoded from then on.

    Equal names (which a state does not hold) would be answered as ``dict(zip(names, ids))``
    answers them: the last one, which a stable sort puts last among them."""

    __slots__ = ("data", "ends", "ids", "order", "decoded")

    def __init__(self, data: memoryview, ends: bytes | memoryview, order: bytes | memoryview, ids: PackedIds) -> None:
        self.data = data
        self.ends = _uint64s(ends)
        self.order = _uint64s(order)
        self.ids = ids
        self.decoded: list[str] | None = None

    def __len__(self) -> int:
        return len(self.ends)

    def _bytes(self, index: int) -> bytes:
        ends = self.ends
        return bytes(self.data[ends[index - 1] + 1 if index > 0 else 0 : ends[index]])

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if self.decoded is not None:
            return self.decoded[index]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._bytes(index).decode("utf-8", "surrogatepass")

    def find(self, name: str) -> int | None:
        """The position of ``name`` (the last, if several have it), or None."""
        try:
            wanted = name.encode("utf-8", "surrogatepass")
        except UnicodeEncodeError:
            return None
        order, name_bytes = self.order, self._bytes
        low, high = 0, len(order)
        while low < high:  # The first position in name order after every name <= ``wanted``.
            middle = (low + high) // 2
            if name_bytes(order[middle]) <= wanted:
                low = middle + 1
            else:
                high = middle
        if low and name_bytes(found := order[low - 1]) == wanted:
            return found
        return None

    def strings(self) -> list[str]:
        """Every name, decoded once (the same string objects on every call)."""
        if self.decoded is None:
            names = str(self.data, "utf-8", "surrogatepass").split("\0") if len(self) else []
            if len(names) != len(self):  # A name holds a NUL byte: cut at the ends instead.
                names = [self[i] for i in range(len(self))]
            self.decoded = names
        return self.decoded

    @staticmethod
    def pack(names: list[str]) -> tuple[memoryview, memoryview, memoryview]:
        """(``declaration_names``, ``declaration_name_ends``, ``declaration_name_order``)."""
        encoded = [n.encode("utf-8", "surrogatepass") for n in names]
        ends = [end + i for i, end in enumerate(accumulate(map(len, encoded)))]  # NULs between
        order = sorted(range(len(names)), key=names.__getitem__)
        return memoryview(b"\0".join(encoded)), _packed_uint64s(ends), _packed_uint64s(order)


class NameTable(dict[str, int]):
    """A state's declaration ids by name, built: what a ``LazyNames`` becomes."""

    __slots__ = ("names", "lookups")

    names: PackedNames | None
    lookups: int


# Lookups a ``LazyNames`` answers by bisection before building its table: a first answer
# asks a few names; a pass that asks thousands is better served by the table.
_LOOKUPS_BEFORE_TABLE = 256


def _building(method: str) -> Callable[..., Any]:
    def run(self: LazyNames, *args: Any, **kwargs: Any) -> Any:
        self.build()
        return getattr(dict, method)(self, *args, **kwargs)

    run.__name__ = method
    return run


class LazyNames(NameTable):
    """The name table (``ResolvedState.by_name``) of a saved image, built when first needed
    whole: until then it holds nothing itself, and indexing, ``get``, ``in`` and ``len``
    answer from the packed names (``PackedNames.find``). Every other operation (iteration,
    views, copies, comparison, any write) builds the table first, as do the first
    ``_LOOKUPS_BEFORE_TABLE`` lookups' successor; the object then becomes a plain
    ``NameTable``, read at a dict's speed. The records decoded from then on share its keys
    (``PackedNames.strings``)."""

    __slots__ = ()

    def __init__(self, names: PackedNames) -> None:
        dict.__init__(self)
        self.names = names
        self.lookups = 0
        if not len(names):
            self.build()

    def build(self) -> None:
        with _building_names:
            if type(self) is not LazyNames:
                return  # Built meanwhile (by another thread).
            names = self.names
            assert names is not None
            dict.update(self, zip(names.strings(), names.ids.all(), strict=True))
            self.__class__ = NameTable  # type: ignore[assignment]
            # The declarations hold the names as long as they need them (``Declarations``).
            self.names = None

    def _find(self, key: object) -> int | None:
        names = self.names  # A local: another thread may build the table meanwhile.
        self.lookups += 1
        if names is None or self.lookups > _LOOKUPS_BEFORE_TABLE:
            self.build()
            return dict.get(self, key)  # type: ignore[misc, no-any-return]
        if type(key) is not str:
            return None if not isinstance(key, str) else self._find(str(key))
        position = names.find(key)
        return None if position is None else names.ids[position]

    def __getitem__(self, key: str) -> int:
        if type(self) is not LazyNames:
            return dict.__getitem__(self, key)
        found = self._find(key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, key: str, default: Any = None) -> Any:
        if type(self) is not LazyNames:
            return dict.get(self, key, default)
        found = self._find(key)
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        if type(self) is not LazyNames:
            return dict.__contains__(self, key)
        return self._find(key) is not None

    def __len__(self) -> int:
        names = self.names
        return len(names) if names is not None else dict.__len__(self)

    def __eq__(self, other: object) -> bool:
        self.build()
        if isinstance(other, LazyNames):
            other.build()
        return dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        self.build()
        return (dict, (dict(dict.items(self)),))

    def __repr__(self) -> str:
        return f"<LazyNames: {len(self)} names, table not built>" if type(self) is LazyNames else dict.__repr__(self)

    __iter__ = _building("__iter__")
    __reversed__ = _building("__reversed__")
    __setitem__ = _building("__setitem__")
    __delitem__ = _building("__delitem__")
    __or__ = _building("__or__")
    __ror__ = _building("__ror__")
    __ior__ = _building("__ior__")
    keys = _building("keys")
    values = _building("values")
    items = _building("items")
    copy = _building("copy")
    setdefault = _building("setdefault")
    pop = _building("pop")
    popitem = _building("popitem")
    update = _building("update")
    clear = _building("clear")


_building_names = threading.Lock()


class PackedRecords(Sequence[memoryview]):
    """The declarations' records of an image, each encoded on its own, one after the other in
    one byte string (``ResolvedImage.declaration_records``): record ``i`` is a view of its bytes,
    decoded by ``Declarations`` when first read. Opening an image makes two objects for them,
    not one ``Raw`` per declaration (100,000 on the Debian corpus)."""

    __slots__ = ("data", "ends")

    def __init__(self, data: memoryview, ends: bytes | memoryview) -> None:
        self.data = data
        self.ends = _uint64s(ends)

    def __len__(self) -> int:
        return len(self.ends)

    @overload
    def __getitem__(self, index: int) -> memoryview: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[memoryview]: ...

    def __getitem__(self, index: int | slice) -> memoryview | Sequence[memoryview]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        ends = self.ends
        if index < 0:
            index += len(ends)
        return self.data[ends[index - 1] if index > 0 else 0 : ends[index]]

    @staticmethod
    def pack(encoded: list[bytes]) -> tuple[bytes, memoryview]:
        """(``declaration_records``, ``declaration_ends``) for these encodings, in order."""
        return b"".join(encoded), _packed_uint64s(accumulate(map(len, encoded)))


_row_decoder = msgspec.msgpack.Decoder(list[int | None])
_chain_decoder = msgspec.msgpack.Decoder(tuple[int, ...])


class BuiltRows(RowTable):
    """What a ``PackedRows`` becomes once every row is decoded (a ``RowTable``)."""

    __slots__ = ("packed",)

    packed: tuple[memoryview, memoryview, memoryview] | None


def _filling(method: str) -> Callable[..., Any]:
    def run(self: PackedRows, *args: Any, **kwargs: Any) -> Any:
        if self.packed is not None:
            self.fill()
        return getattr(Rows, method)(self, *args, **kwargs)

    run.__name__ = method
    return run


# Held while a ``PackedRows`` fills its table (queries may run in several threads).
_filling_rows = threading.Lock()


class PackedRows(Rows, BuiltRows):
    """The ``Rows`` of a saved image, packed (``_packed_rows``): nothing is made of them at the
    open (a first answer reads no rows; 160,000 of them on 10 copies of the Debian corpus).
    The first read of any kind fills the table, each row stored as (its image's rows, its
    position) until decoded; it becomes a plain ``BuiltRows`` once every row is decoded, as
    ``Rows`` becomes a ``RowTable``."""

    __slots__ = ()
    _decoded_class = BuiltRows

    def __init__(self, packed: tuple[memoryview, memoryview, memoryview]) -> None:
        dict.__init__(self)  # type: ignore[misc]
        self.packed = packed
        if not packed[0]:
            self.fill()
            self.read_all()

    def fill(self) -> None:
        """Put every row in the table, encoded (see the class docstring)."""
        with _filling_rows:
            if self.packed is None:
                return
            packed_keys, data, ends = self.packed
            keys = _uint64s(packed_keys).tolist()
            records = PackedRecords(data, ends)
            dict.update(self, zip(keys, zip(repeat(records), range(len(keys))), strict=True))  # type: ignore[misc]
            self.packed = None

    def _encoded(self, value: Any) -> bool:
        return type(value) is tuple

    def _decode_value(self, value: Any) -> list[int | None]:
        records, position = value
        return _row_decoder.decode(records[position])

    def __repr__(self) -> str:
        return "<PackedRows: not read yet>" if self.packed is not None else Rows.__repr__(self)

    __getitem__ = _filling("__getitem__")
    get = _filling("get")
    __contains__ = _filling("__contains__")
    __len__ = _filling("__len__")
    __iter__ = _filling("__iter__")
    __reversed__ = _filling("__reversed__")
    __setitem__ = _filling("__setitem__")
    __delitem__ = _filling("__delitem__")
    __eq__ = _filling("__eq__")
    __or__ = _filling("__or__")
    __ror__ = _filling("__ror__")
    __ior__ = _filling("__ior__")
    __reduce__ = _filling("__reduce__")
    keys = _filling("keys")
    values = _filling("values")
    items = _filling("items")
    copy = _filling("copy")
    setdefault = _filling("setdefault")
    pop = _filling("pop")
    popitem = _filling("popitem")
    update = _filling("update")
    clear = _filling("clear")
    read_all = _filling("read_all")
    __hash__ = None  # type: ignore[assignment]


class ChainTable(dict[int, tuple[int, ...]]):
    """A saved image's ancestor chains by namespace id, every chain decoded: what a
    ``PackedChains`` becomes once it has decoded them all."""

    __slots__ = ("records",)


class PackedChains(LazyTable[int, tuple[int, ...]], ChainTable):
    """The ancestor chains of a saved image (``ResolvedImage.ancestors``), each decoded when
    first read (see ``LazyTable``): a first answer reads a few of them, not the 170,000 of
    10 copies of the Debian corpus (about 90 MB of chains, the largest table of an image).
    Stored values are the chains' positions (ints) until decoded."""

    __slots__ = ()
    _decoded_class = ChainTable

    def __init__(self, ids: list[int], records: Sequence[memoryview]) -> None:
        dict.__init__(self, zip(ids, range(len(ids)), strict=True))  # type: ignore[misc]
        self.records = records
        if not ids:
            self.read_all()

    def _encoded(self, value: Any) -> bool:
        return type(value) is int

    def _decode_value(self, value: Any) -> tuple[int, ...]:
        return _chain_decoder.decode(self.records[value])

    def _let_go(self) -> None:
        self.records = []


class BisectedChains(Bisected, PackedChains):
    """The chains of a saved image before their table is built (see ``Bisected``); then a
    ``PackedChains``."""

    __slots__ = ()
    built = PackedChains

    def __init__(self, ids: PackedIds, records: Sequence[memoryview]) -> None:
        dict.__init__(self)  # type: ignore[misc]
        self.records = _IdentifiedRecords(records, ids)
        if not len(ids):
            self.build()


def pack_rows(rows: dict[int, list[int | None]]) -> tuple[memoryview, memoryview, memoryview]:
    """Each document's row encoded on its own, packed (see ``PackedRows``): (the document
    keys as uint64s, the rows one after the other, their ends)."""
    data, ends = PackedRecords.pack(list(map(_encoder.encode, rows.values())))
    return _packed_uint64s(rows), memoryview(data), ends
