"""What every exported function of librdx's Python half shares (``rdx_capi``): the handle table,
the conversion of C arguments, the handing of results to C, the accessor and iterator
factories, and turning exceptions into status codes. ``bind(ffi, lib)`` is called once by
``rdx_capi.install`` before any function runs."""

from __future__ import annotations

import itertools
import os
import secrets
import threading
from collections.abc import Callable
from typing import Any

import rdx

OK = 0
DONE = 1

# Handle tags live in the low byte of every handle, so a handle of one type passed where
# another is expected is recognized as such.
GRAPH = 1
DECLARATION = 2
DEFINITION = 3
CONSTANT_REFERENCE = 4
METHOD_REFERENCE = 5
DIAGNOSTIC = 6
DECLARATION_ITER = 7
DEFINITION_ITER = 8
CONSTANT_REFERENCE_ITER = 9
METHOD_REFERENCE_ITER = 10
DIAGNOSTIC_ITER = 11

TYPE_NAMES = {
    GRAPH: "rdx_graph_t",
    DECLARATION: "rdx_declaration_t",
    DEFINITION: "rdx_definition_t",
    CONSTANT_REFERENCE: "rdx_constant_reference_t",
    METHOD_REFERENCE: "rdx_method_reference_t",
    DIAGNOSTIC: "rdx_diagnostic_t",
    DECLARATION_ITER: "rdx_declaration_iter_t",
    DEFINITION_ITER: "rdx_definition_iter_t",
    CONSTANT_REFERENCE_ITER: "rdx_constant_reference_iter_t",
    METHOD_REFERENCE_ITER: "rdx_method_reference_iter_t",
    DIAGNOSTIC_ITER: "rdx_diagnostic_iter_t",
}

MATCH_MODES = {0: "fuzzy", 1: "prefix", 2: "exact", 3: "ranked"}

# Set by install(); the functions below run only after it.
ffi: Any = None
lib: Any = None
NULL: Any = None
SIZE_MAX = 2**64 - 1
# The longest string argument taken (rdx.h says so): a larger length is a caller's mistake
# (a negative number cast to size_t, a wrong variable), refused before any byte is read.
MAX_LENGTH = 1 << 30
_UINTPTR: Any = None
_VOIDP: Any = None


class GraphSlot:
    """One live graph: the Python Graph, the lock that serializes calls on it, the handles
    derived from it (released with it), and whether rdx_graph_open made it."""

    __slots__ = ("alive", "children", "graph", "lock", "opened")

    def __init__(self, graph: rdx.Graph, opened: bool = False) -> None:
        self.graph = graph
        self.opened = opened
        # Every exported function takes it once and nothing it calls takes it again, so a plain
        # (cheaper) lock suffices.
        self.lock = threading.Lock()
        self.children: set[int] = set()
        self.alive = True


class Iter:
    """What an iterator handle refers to: the answer, computed once, and a cursor."""

    __slots__ = ("item_tag", "items", "position")

    def __init__(self, items: list[Any], item_tag: int) -> None:
        self.items = items
        self.item_tag = item_tag
        self.position = 0


class HandleTable:
    """Handles are ``(serial << 8 | tag) XOR salt``: serials are never reused, so a freed handle
    stays invalid forever, and a random per-process salt keeps handles of an earlier run (or a
    guessed small integer) from naming a live object. The salt's low byte is zero, so the tag
    survives and no handle is ever 0 (NULL)."""

    def __init__(self) -> None:
        self.entries: dict[int, tuple[int, Any, GraphSlot]] = {}
        self._serial = itertools.count(1)
        self._salt = secrets.randbits(40) << 8

    def add(self, tag: int, value: Any, slot: GraphSlot) -> int:
        handle = ((next(self._serial) << 8) | tag) ^ self._salt
        self.entries[handle] = (tag, value, slot)
        if tag != GRAPH:
            slot.children.add(handle)
        return handle

    def lookup(self, handle: int, tag: int, what: str) -> tuple[Any, GraphSlot]:
        entry = self.entries.get(handle)
        if entry is None:
            if handle == 0:
                raise rdx.InvalidArgumentError(f"{what} is NULL; pass a {TYPE_NAMES[tag]} * obtained from rdx")
            raise rdx.InvalidHandleError(
                f"{what} {handle:#x} is not a live {TYPE_NAMES[tag]}: it was freed, its graph was freed, or rdx never issued it"
            )
        if entry[0] != tag:
            raise rdx.InvalidHandleError(f"{what} {handle:#x} is a {TYPE_NAMES[entry[0]]}, not a {TYPE_NAMES[tag]}")
        return entry[1], entry[2]

    def release(self, handle: int, tag: int, what: str) -> None:
        if handle == 0:
            return  # Like free(NULL).
        _, slot = self.lookup(handle, tag, what)
        with slot.lock:
            if self.entries.pop(handle, None) is None:
                raise rdx.InvalidHandleError(f"{what} {handle:#x} was freed by another thread during this call")
            if tag == GRAPH:
                slot.alive = False
                for child in slot.children:
                    self.entries.pop(child, None)
                slot.children.clear()
                slot.graph = None  # type: ignore[assignment]
            else:
                slot.children.discard(handle)


TABLE = HandleTable()


# -- converting arguments ------------------------------------------------------------------


def _id(pointer: Any) -> int:
    return int(ffi.cast(_UINTPTR, pointer))


def _need(pointer: Any, what: str) -> None:
    if pointer == NULL:
        raise rdx.InvalidArgumentError(f"{what} is NULL; pass a pointer for the result")


def _bytes(pointer: Any, length: int, what: str) -> bytes:
    if pointer == NULL:
        raise rdx.InvalidArgumentError(f"{what} is NULL; pass a string (and its length, or RDX_NTS)")
    if length == SIZE_MAX:
        return ffi.string(pointer)  # type: ignore[no-any-return]
    if length > MAX_LENGTH:
        raise rdx.InvalidArgumentError(f"{what}_length is {length}, more than the {MAX_LENGTH} bytes rdx takes; pass the string's length, or RDX_NTS")
    return ffi.unpack(pointer, length)  # type: ignore[no-any-return]


def _quote(data: bytes) -> str:
    """Bytes from C quoted for a message: as text, undecodable bytes as escapes, cut short."""
    return rdx.excerpt(data.decode("utf-8", "backslashreplace"))


def _no_nul(data: bytes, what: str) -> None:
    at = data.find(b"\0")
    if at >= 0:
        raise rdx.InvalidArgumentError(f"{what} {_quote(data)} contains a NUL byte at offset {at}; pass the name without it")


def _text(pointer: Any, length: int, what: str) -> str:
    """A name or URI: UTF-8 without NUL bytes."""
    data = _bytes(pointer, length, what)
    _no_nul(data, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise rdx.EncodingFailureError(f"{what} {_quote(data)} is not valid UTF-8 (at byte {exc.start}); pass UTF-8 text") from None


def _path(pointer: Any, length: int, what: str) -> str:
    """A file system path: bytes as the OS takes them (not necessarily UTF-8), without NUL."""
    data = _bytes(pointer, length, what)
    _no_nul(data, what)
    return os.fsdecode(data)


def _string_list(items: Any, lengths: Any, count: int, what: str, convert: Callable[[Any, int, str], str]) -> list[str]:
    if count and items == NULL:
        raise rdx.InvalidArgumentError(f"{what} is NULL but its count is {count}; pass an array of {count} strings")
    has_lengths = lengths != NULL
    return [convert(items[i], lengths[i] if has_lengths else SIZE_MAX, f"{what}[{i}]") for i in range(count)]


def _graph(handle: Any, what: str = "graph") -> GraphSlot:
    slot: GraphSlot = TABLE.lookup(_id(handle), GRAPH, what)[0]
    return slot


def _alive(slot: GraphSlot, handle: Any, what: str) -> None:
    """Inside the graph's lock: the graph was not freed by another thread since the lookup."""
    if not slot.alive:
        raise rdx.InvalidHandleError(f"{what} {_id(handle):#x} belongs to a graph that was freed during this call")


# -- handing results to C ------------------------------------------------------------------


def _cstr(text: str) -> Any:
    """A malloc'ed copy for the caller (released with rdx_string_free)."""
    data = text.encode("utf-8", "surrogateescape")
    pointer = lib.rdx__strdup(data, len(data))
    if pointer == NULL:
        raise MemoryError("out of memory copying a string for the caller")
    return pointer


_STATIC: dict[str, Any] = {}


def _static(text: str) -> Any:
    """A string owned by the library for the life of the process (kinds and severities, a small
    fixed vocabulary, so the cache is bounded)."""
    pointer = _STATIC.get(text)
    if pointer is None:
        pointer = _STATIC[text] = _cstr(text)
    return pointer


def _give_strings(out: Any, out_count: Any, strings: list[str], what: str) -> int:
    """Hand ``strings`` over as a malloc'ed array of malloc'ed strings (NULL when empty), which
    the caller releases with rdx_string_array_free. The strings go to C packed in one buffer
    and are split there, one call for the list rather than one per string."""
    count = len(strings)
    if not count:
        out[0] = NULL
        out_count[0] = 0
        return OK
    packed = "\0".join(strings).encode("utf-8", "surrogateescape") + b"\0"
    if packed.count(b"\0") == count:
        array = lib.rdx__string_array_unpack(packed, len(packed), count)
        if array == NULL:
            raise MemoryError(f"out of memory copying {count} {what} for the caller")
    else:
        # A string with a NUL byte inside (a comment, say) would split in two: copy one by one.
        array = lib.rdx__string_array(count)
        if array == NULL:
            raise MemoryError(f"out of memory allocating the {what} array")
        try:
            for i, text in enumerate(strings):
                array[i] = _cstr(text)
        except MemoryError:
            lib.rdx_string_array_free(array, count)
            raise
    out[0] = array
    out_count[0] = count
    return OK


def _fill_location(out: Any, location: rdx.Location) -> None:
    path = _cstr(location.path)
    try:
        uri = _cstr(location.uri or location.path)
    except MemoryError:
        lib.rdx_string_free(path)
        raise
    out.path = path
    out.uri = uri
    out.start_line = location.start_line
    out.start_column = location.start_column
    out.end_line = location.end_line
    out.end_column = location.end_column


def _give(out: Any, tag: int, value: Any, slot: GraphSlot) -> int:
    out[0] = ffi.cast(_VOIDP, TABLE.add(tag, value, slot))
    return OK


# Accessors of items (declarations, definitions, references, diagnostics) share one shape:
# look the handle up, take its graph's lock, read one attribute, hand it over.


def _string_accessor(tag: int, what: str, read: Callable[[Any], str]) -> Callable[[Any, Any], int]:
    def accessor(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, slot = TABLE.lookup(_id(handle), tag, what)
        with slot.lock:
            _alive(slot, handle, what)
            out[0] = _cstr(read(value))
        return OK

    return accessor


def _static_accessor(tag: int, what: str, read: Callable[[Any], str]) -> Callable[[Any, Any], int]:
    def accessor(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, slot = TABLE.lookup(_id(handle), tag, what)
        with slot.lock:
            _alive(slot, handle, what)
            out[0] = _static(read(value))
        return OK

    return accessor


def _handle_accessor(
    tag: int, what: str, read: Callable[[Any], Any], result_tag: int, missing: Callable[[Any], str]
) -> Callable[[Any, Any], int]:
    def accessor(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, slot = TABLE.lookup(_id(handle), tag, what)
        with slot.lock:
            _alive(slot, handle, what)
            result = read(value)
            if result is None:
                raise rdx.NotFoundError(missing(value))
            return _give(out, result_tag, result, slot)

    return accessor


def _list_accessor(tag: int, what: str, read: Callable[[Any], list[Any]], iter_tag: int, item_tag: int) -> Callable[[Any, Any], int]:
    def accessor(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, slot = TABLE.lookup(_id(handle), tag, what)
        with slot.lock:
            _alive(slot, handle, what)
            return _give(out, iter_tag, Iter(read(value), item_tag), slot)

    return accessor


def _names_accessor(tag: int, what: str, read: Callable[[Any], list[Any]], items: str) -> Callable[[Any, Any, Any], int]:
    def accessor(handle: Any, out_names: Any, out_count: Any) -> int:
        _need(out_names, "out_names")
        _need(out_count, "out_count")
        value, slot = TABLE.lookup(_id(handle), tag, what)
        with slot.lock:
            _alive(slot, handle, what)
            names = [item.name for item in read(value)]
        return _give_strings(out_names, out_count, names, items)

    return accessor


def _location_accessor(
    tag: int, what: str, read: Callable[[Any], rdx.Location | None], missing: Callable[[Any], str]
) -> Callable[[Any, Any], int]:
    def accessor(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, slot = TABLE.lookup(_id(handle), tag, what)
        with slot.lock:
            _alive(slot, handle, what)
            location = read(value)
            if location is None:
                raise rdx.NotFoundError(missing(value))
            _fill_location(out, location)
        return OK

    return accessor


def _free(tag: int, what: str) -> Callable[[Any], int]:
    def free(handle: Any) -> int:
        TABLE.release(_id(handle), tag, what)
        return OK

    return free


# Iterators: one implementation, five typed families.


def _iter_count(tag: int) -> Callable[[Any, Any], int]:
    def count(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, _ = TABLE.lookup(_id(handle), tag, "iter")
        out[0] = len(value.items)
        return OK

    return count


def _iter_next(tag: int) -> Callable[[Any, Any], int]:
    def next_item(handle: Any, out: Any) -> int:
        _need(out, "out")
        value, slot = TABLE.lookup(_id(handle), tag, "iter")
        with slot.lock:
            _alive(slot, handle, "iter")
            if value.position >= len(value.items):
                return DONE
            item = value.items[value.position]
            value.position += 1
            return _give(out, value.item_tag, item, slot)

    return next_item


# -- attaching -----------------------------------------------------------------------------


def _fail(code: int, message: str) -> int:
    data = message.encode("utf-8", "replace")
    lib.rdx__set_last_error(data, len(data))
    return code


def _on_error(name: str) -> Callable[[type[BaseException], BaseException, Any], int]:
    """cffi's ``onerror`` hook for ``name``: the exception becomes a status code (what the hook
    returns is what the C caller gets) and the thread's last error message. Using the hook
    rather than a wrapping try/except keeps an extra Python frame off every call."""

    def on_error(kind: type[BaseException], exc: BaseException, traceback: Any) -> int:
        try:
            if isinstance(exc, rdx.RdxError):
                return _fail(int(exc.code), str(exc))
            if isinstance(exc, MemoryError):
                return _fail(int(rdx.ErrorCode.INTERNAL), f"{name}: {exc or 'out of memory'}")
            return _fail(int(rdx.ErrorCode.INTERNAL), f"{name} failed inside rdx ({kind.__name__}: {exc}); this is a bug in rdx")
        except BaseException:
            return int(rdx.ErrorCode.INTERNAL)  # Even formatting the message failed.

    return on_error


def bind(ffi_: Any, lib_: Any) -> None:
    """Attach the cffi module (``install`` calls it first)."""
    global ffi, lib, SIZE_MAX, _UINTPTR, _VOIDP, NULL
    ffi, lib = ffi_, lib_
    SIZE_MAX = 2 ** (8 * ffi.sizeof("size_t")) - 1
    _UINTPTR = ffi.typeof("uintptr_t")
    _VOIDP = ffi.typeof("void *")
    NULL = ffi.NULL
