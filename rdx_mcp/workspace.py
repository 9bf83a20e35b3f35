"""``Workspace``: one project's graph for the MCP server and ``rdx serve``.

It indexes in a background thread (warm from the ``.rdx/`` snapshot when there is one) and
keeps the graph fresh from file-system events, so tools answer at once: before the first index
is ready they return an ``indexing`` error with progress, except grep (``search_code``), which
answers from the text index as soon as it is synced, before any Ruby is parsed.
"""

from __future__ import annotations

import os
import threading
import time

import rdx
from rdx_mcp.errors import tool_error as _error

__all__ = ["Workspace"]


class Workspace:
    """A project root, its graph, and the thread that keeps the graph current."""

    def __init__(self, root: str, *, cache_dir: str | None = None, watch: bool = True, extra_roots: tuple[str, ...] = ()) -> None:
        self.root = os.path.abspath(root)
        # Directories the graph opens beside the root (``rdx fleet``: another repository's
        # Python packages that this one imports); paths stay relative to ``root``.
        self.extra_roots = tuple(os.path.abspath(r) for r in extra_roots)
        self._prefix = self.root.rstrip(os.sep) + os.sep
        self.cache_dir = cache_dir
        self._lock = threading.RLock()
        self._graph: rdx.Graph | None = None
        # The text index alone, for grep until the graph is ready (see ``text``).
        self._text: rdx.TextSearch | None = None
        self._progress = (0, 0)
        self._error: str | None = None
        self.last_indexed: float | None = None
        self.pending: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(watch,), name="rdx-index", daemon=True)

    @property
    def lock(self) -> threading.RLock:
        """The lock under which the graph moves: the watcher thread applies changes holding it,
        and every reader that asks the graph more than one question (an MCP tool, a page of
        ``rdx serve``) holds it for the whole answer, so the answer comes from one revision.
        Re-entrant; hold it briefly (never across I/O of the client's)."""
        return self._lock

    def start(self) -> Workspace:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def wait_ready(self, timeout: float = 120.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._graph is not None or self._error is not None:
                return self._graph is not None
            time.sleep(0.02)
        return False

    def _run(self, watch: bool) -> None:
        try:
            # The text index first (synced from one walk, without parsing): grep answers from
            # it while the graph loads. Graph.open then finds it synced.
            self._text = rdx.TextSearch.open(self.root, cache_dir=self.cache_dir)
        except Exception:  # Graph.open reports what is wrong; grep waits for the graph.
            self._text = None
        try:
            graph = rdx.Graph.open([self.root, *self.extra_roots], cache_dir=self.cache_dir, progress=self._on_progress, freeze_gc=True)
            graph.resolve()
            # Before the graph is shared, so no tool call waits for it (they say "indexing").
            graph.prepare_queries()
        except Exception as exc:  # Reported through every tool call instead of killing the server.
            self._error = f"indexing {self.root} failed: {exc}"
            return
        with self._lock:
            self._graph = graph
            self._text = None  # The graph's own text index answers from now on.
            self.last_indexed = time.time()
        if watch:
            self._watch()

    def _on_progress(self, done: int, total: int) -> None:
        self._progress = (done, total)

    def _watch(self) -> None:
        graph = self._graph
        assert graph is not None

        def updated(changed: int, removed: int, seconds: float) -> None:
            self.last_indexed = time.time()

        def quiet() -> None:
            # Files went quiet: rebuild the query indexes and write the snapshot now, not after
            # every change of a burst.
            graph.prepare_queries()
            graph.save()

        rdx.follow_changes(graph, self.root, stop=self._stop, lock=self._lock, tick_ms=500, on_update=updated, on_idle=quiet)

    def graph(self) -> rdx.Graph:
        """The ready graph, or an ``indexing`` tool error with progress."""
        if self._error is not None:
            raise _error("index_failed", self._error, "check that the project path exists and is readable")
        if self._graph is None:
            done, total = self._progress
            raise _error("indexing", f"the project is still being indexed ({done} of {total or '?'} files)", "retry in a few seconds")
        return self._graph

    def text(self) -> rdx.Graph | rdx.TextSearch:
        """What grep searches: the ready graph, or until it is ready, the project's text index
        (opened first thing), else an ``indexing`` tool error."""
        graph, text = self._graph, self._text
        if graph is None and text is not None and self._error is None:
            return text
        return self.graph()

    def rel(self, path: str | None) -> str | None:
        if path is None:
            return None
        if path.startswith(self._prefix):
            return path[len(self._prefix) :]  # The common case, without relpath's system calls.
        try:
            rel = os.path.relpath(path, self.root)
        except ValueError:
            return path
        return path if rel.startswith("..") else rel

    def loc(self, location: rdx.Location | None) -> str | None:
        if location is None:
            return None
        path = self.rel(location.path) if "://" not in location.path else location.path
        return f"{path}:{location.start_line}:{location.start_column}-{location.end_line}:{location.end_column}"
