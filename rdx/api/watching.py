"""The one watch loop: apply file changes under a project root to a graph as they happen.

``rdx watch`` and the MCP server both run ``follow_changes``; they differ only in what they do
after an update (print it, or nothing) and when files go quiet (save the snapshot, build the
query indexes). Which files count is ``is_indexed_path``, the same rule as the walk's (every
file, for the text index; ``Graph.refresh_paths`` re-parses the Ruby ones). What is read is
decided there, by the project's roots (``ProjectRoots``): an event whose real path is outside
them reads nothing and drops the file if it was indexed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from rdx.search.text_workspace import any_file
from rdx.workspace.files import is_indexed_path

if TYPE_CHECKING:
    from rdx.api.graph import Graph

__all__ = ["follow_changes"]


def follow_changes(
    graph: Graph,
    root: str,
    *,
    stop: threading.Event | None = None,
    lock: AbstractContextManager[object] | None = None,
    debounce_ms: int = 50,
    tick_ms: int = 200,
    on_update: Callable[[int, int, float], None] | None = None,
    on_idle: Callable[[], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    max_batches: int | None = None,
) -> None:
    """Re-read changed files under ``root`` into ``graph`` and resolve, batch by batch, until
    ``stop`` is set (or ``max_batches`` batches were applied).

    Each batch runs under ``lock`` (when given) and then calls ``on_update(updated, removed,
    seconds)``. ``on_ready`` is called once the watcher runs; ``on_idle`` when files go quiet
    after at least one batch (a tick with no change), once per quiet period."""
    import watchfiles

    root = os.path.abspath(root)
    guard = lock if lock is not None else nullcontext()

    def indexed(change: watchfiles.Change, path: str) -> bool:
        # Every file: Ruby files feed the graph, all text files the text index.
        return is_indexed_path(path, root, any_file)

    ready = False
    busy = False
    batches = 0
    for changes in watchfiles.watch(
        root, watch_filter=indexed, stop_event=stop, debounce=debounce_ms, rust_timeout=tick_ms, yield_on_timeout=True
    ):
        if not changes:
            if not ready:
                ready = True
                if on_ready is not None:
                    on_ready()
            if busy and on_idle is not None:
                with guard:
                    on_idle()
            busy = False
            continue
        t0 = time.perf_counter()
        with guard:
            updated, removed = graph.refresh_paths(sorted({p for _, p in changes}))
            graph.resolve()
        if on_update is not None:
            on_update(updated, removed, time.perf_counter() - t0)
        busy = True
        batches += 1
        if max_batches is not None and batches >= max_batches:
            break
