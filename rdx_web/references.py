"""Which names of a file link where: the Ruby references of one document, for one graph
revision. It owns this cache and nothing else; it never changes the graph.

Each file's references come from its own ``Document`` (``Document.constant_references`` and
``method_references``), so a file view costs what that file holds, whatever the project's
size; a few files' lists are kept per revision (the map's picture reads thirty). What a method
call reaches is asked only for the calls of the file shown. Other languages' files give their
uses (``Graph.uses_in``: calls, types and bases, each with the declaration the graph resolved
it to when it did, from tables built at resolution), so linking them costs one pass over the
file's references, never a ``definition_at`` per token.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import rdx

__all__ = ["FileReference", "ReferenceIndex"]

# Files whose lists are kept for the current revision (the map's picture reads thirty).
KEPT_FILES = 64


@dataclass(frozen=True)
class FileReference:
    """A name as written in a file: 1-based line, 0-based byte columns on that line (a name
    never spans lines), and the handle it came from."""

    line: int
    start: int
    end: int
    handle: rdx.ConstantReference | rdx.MethodReference | rdx.Use  # A Use in other languages' files.


class ReferenceIndex:
    """The references of the files asked about, for one revision; forgotten when the graph's
    revision moves."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision = -1
        self._by_path: OrderedDict[str, list[FileReference]] = OrderedDict()

    def of(self, graph: rdx.Graph, path: str) -> list[FileReference]:
        """The references written in ``path`` (absolute), sorted by position. The caller holds
        the workspace lock, so the graph does not move while this runs."""
        with self._lock:
            if self._revision != graph.revision:
                self._by_path.clear()
                self._revision = graph.revision
            found = self._by_path.get(path)
            if found is None:
                found = self._by_path[path] = self._collect(graph, path)
                if len(self._by_path) > KEPT_FILES:
                    self._by_path.popitem(last=False)
            else:
                self._by_path.move_to_end(path)
            return found

    @staticmethod
    def _collect(graph: rdx.Graph, path: str) -> list[FileReference]:
        doc = graph.document(path)
        if doc is None:
            return []
        refs: list[FileReference] = []
        if doc.language != "ruby":
            for use in graph.uses_in(path):
                where = use.location
                # Definitions link from the file's outline (``pages._definitions``); an
                # unresolved use has nowhere to go.
                if use.role != "definition" and use.declaration is not None and where.start_line == where.end_line:
                    refs.append(FileReference(where.start_line, where.start_column, where.end_column, use))
            refs.sort(key=lambda r: (r.line, r.start, -r.end))
            return refs
        handles: list[rdx.ConstantReference | rdx.MethodReference] = [*doc.constant_references, *doc.method_references]
        for handle in handles:
            loc = handle.location
            if loc.start_line != loc.end_line:
                continue  # A name never spans lines; a call's whole span might.
            refs.append(FileReference(loc.start_line, loc.start_column, loc.end_column, handle))
        refs.sort(key=lambda r: (r.line, r.start, -r.end))
        return refs
