"""Positions between LSP and rdx: LSP counts columns in the negotiated encoding's code units
(UTF-16 unless the client offers UTF-8 or UTF-32), rdx in UTF-8 bytes; both count lines from 0
and 1 respectively. Line texts come from the editor's buffer when the document is open, else
from the file on disk (read once per request). A negative line or character is the client's
mistake: InvalidParams, never silence (lsprotocol already refuses one in a request it decodes,
and ``RdxProtocol`` answers those). A position past the end of the document names nothing (the
text may have changed since the client computed it) and a character past the end of its line
means the end of the line, as the protocol says."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

import rdx

__all__ = ["Lines", "byte_column", "client_column"]


def byte_column(line: str, character: int, units: Callable[[str], int]) -> int:
    """The UTF-8 byte column of the ``character``-th code unit of ``line``."""
    count = 0
    for index, char in enumerate(line):
        if count >= character:
            return len(line[:index].encode("utf-8", "surrogatepass"))
        count += units(char)
    return len(line.encode("utf-8", "surrogatepass"))


def client_column(line: bytes, column: int, units: Callable[[str], int]) -> int:
    """The code unit count of ``line``'s first ``column`` bytes (a column inside a character
    counts as its start)."""
    return units(line[:column].decode("utf-8", "ignore"))


class Lines:
    """Line texts per document URI for one request: open buffers first, then the disk."""

    def __init__(self, buffers: Callable[[str], str | bytes | None], units: Callable[[str], int]) -> None:
        self._buffers = buffers
        self._units = units
        self._cache: dict[str, list[bytes]] = {}

    def _lines(self, uri: str, path: str | None) -> list[bytes]:
        found = self._cache.get(uri)
        if found is None:
            text = self._buffers(uri)
            if isinstance(text, bytes):
                data = text  # The file's bytes, read by the caller under rdx's rules.
            elif text is not None:
                data = text.encode("utf-8", "surrogatepass")
            else:
                # Not a buffer and not a file rdx may read (outside the roots, not regular):
                # positions are taken as they come, and nothing is read from the disk here.
                data = b""
            found = self._cache[uri] = data.split(b"\n")
        return found

    def to_rdx(self, uri: str, path: str, position: lsp.Position) -> tuple[int, int]:
        """(1-based line, byte column) for an LSP position in a document."""
        lines = self._lines(uri, path)
        if position.line < 0 or position.character < 0:
            raise JsonRpcInvalidParams(f"position {position.line}:{position.character} in {uri} is negative; send 0-based positions")
        line = lines[position.line].decode("utf-8", "replace") if position.line < len(lines) else ""
        return position.line + 1, byte_column(line, position.character, self._units)

    def position(self, uri: str, path: str | None, line: int, column: int) -> lsp.Position:
        lines = self._lines(uri, path)
        text = lines[line - 1] if 0 < line <= len(lines) else b""
        return lsp.Position(line=max(0, line - 1), character=client_column(text, column, self._units))

    def range(self, loc: rdx.Location) -> lsp.Range:
        return lsp.Range(
            start=self.position(loc.uri, loc.path, loc.start_line, loc.start_column),
            end=self.position(loc.uri, loc.path, loc.end_line, loc.end_column),
        )

    def location(self, loc: rdx.Location) -> lsp.Location:
        return lsp.Location(uri=loc.uri, range=self.range(loc))

    def text(self, loc: rdx.Location) -> str:
        """The source text of a one-line location."""
        lines = self._lines(loc.uri, loc.path)
        if loc.start_line != loc.end_line or not 0 < loc.start_line <= len(lines):
            return ""
        return lines[loc.start_line - 1][loc.start_column : loc.end_column].decode("utf-8", "replace")
