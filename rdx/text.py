"""Conversions between byte offsets and (line, column) positions.

This is the only place that converts positions. Internally rdx keeps byte offsets into the
UTF-8 source; public locations use 1-based lines and 0-based columns counted in bytes (as
tree-sitter counts them). A document's line table is the sorted list of byte offsets at which
its lines start. This module imports nothing from rdx.
"""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["line_starts", "offset_to_position", "position_to_offset"]


def line_starts(source: bytes) -> list[int]:
    """Byte offsets at which each line of ``source`` starts (always begins with 0)."""
    starts = [0]
    find = source.find
    i = find(b"\n")
    while i != -1:
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts


def offset_to_position(starts: list[int], offset: int) -> tuple[int, int]:
    """(1-based line, 0-based byte column) of ``offset``."""
    line = bisect_right(starts, offset) - 1
    line = max(line, 0)
    return line + 1, offset - starts[line]


def position_to_offset(starts: list[int], line: int, column: int) -> int:
    """Byte offset of a 1-based ``line`` and 0-based ``column``; clamps to the document."""
    if line < 1:
        return 0
    if line > len(starts):
        return starts[-1]
    return starts[line - 1] + max(column, 0)
