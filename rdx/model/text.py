"""Conversions between byte offsets and (line, column) positions.

This is the only place that converts positions. Internally rdx keeps byte offsets into the
UTF-8 source; public locations use 1-based lines and 0-based columns counted in bytes (as
tree-sitter counts them). A document's line table is the sorted list of byte offsets at which
its lines start, stored packed (native unsigned 32-bit integers in a ``bytes``): one object per
document instead of one per line, which keeps snapshots fast to load. This module imports
nothing from rdx.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence

__all__ = ["line_count", "line_span", "line_starts", "offset_to_position", "position_to_offset"]

LineTable = bytes | Sequence[int]


def line_starts(source: bytes) -> bytes:
    """Packed byte offsets at which each line of ``source`` starts (always begins with 0)."""
    starts = array("I", [0])
    find = source.find
    i = find(b"\n")
    while i != -1:
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts.tobytes()


def _table(starts: LineTable) -> Sequence[int]:
    if isinstance(starts, (bytes, bytearray)):
        return memoryview(starts).cast("I") if starts else (0,)
    return starts or (0,)


def offset_to_position(starts: LineTable, offset: int) -> tuple[int, int]:
    """(1-based line, 0-based byte column) of ``offset``."""
    table = _table(starts)
    line = bisect_right(table, offset) - 1
    line = max(line, 0)
    return line + 1, offset - table[line]


def position_to_offset(starts: LineTable, line: int, column: int) -> int:
    """Byte offset of a 1-based ``line`` and 0-based ``column``; clamps to the document."""
    starts = _table(starts)
    if line < 1:
        return 0
    if line > len(starts):
        return starts[-1]
    return starts[line - 1] + max(column, 0)


def line_count(starts: LineTable) -> int:
    """How many lines a document has (the text after its last newline is one, even empty)."""
    return len(_table(starts))


def line_span(starts: LineTable, line: int, size: int = 0) -> tuple[int, int | None]:
    """Byte offsets where 1-based ``line`` starts and ends (its newline excluded); the end of
    the last line is ``size``, None when ``size`` does not reach it (unknown)."""
    table = _table(starts)
    begin = table[line - 1]
    if line < len(table):
        return begin, table[line] - 1
    return begin, size if size >= begin else None
