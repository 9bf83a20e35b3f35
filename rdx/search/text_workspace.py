"""The text side of a graph: which files its text index holds and how it follows changes.

A graph made by ``Graph.open`` keeps its index in the cache directory, synced with the same
walk as the Ruby files (every file the walk selects, not only Ruby). The open only hands the
walk over (``defer``): the index is opened, checked and synced when something first needs it
(a grep, its counts, a file change, ``prepare``), so a first answer that is not a grep does not
wait for it; editor buffers given meanwhile are applied after that sync, and what the opening
found wrong is reported from then on (``repairs``). A graph
filled by ``index_all``/``index_source`` builds an in-memory index on its first search, from
the roots it indexed and the buffers it was given. Editor buffers win over the disk. Files are
the project's by ``ProjectRoots`` (rdx.workspace.files), checked by the walk and again when the
index reads them, so no link leads grep out of the project.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence

import msgspec

from rdx.model.errors import InvalidArgumentError
from rdx.search.grep import GrepPage, grep
from rdx.search.text_index import INDEX_NAME, SyncStats, TextIndex
from rdx.workspace.config import WorkspaceConfig
from rdx.workspace.files import FileEntry, ProjectRoots, collect_files

__all__ = ["ProjectText", "any_file", "walk_every_file"]


def any_file(name: str) -> bool:
    return True


def walk_every_file(roots: list[str], config: WorkspaceConfig) -> list[FileEntry]:
    """Every file ``Graph.open`` would walk under ``roots`` and the config's load paths (which
    are walked whole), deduplicated; the Ruby ones among them are what it parses."""
    entries: dict[str, FileEntry] = {}
    project = ProjectRoots.of(roots, config)
    for root in roots:
        for e in collect_files(root, config, roots[0], any_file, project).files:
            entries.setdefault(e.path, e)
    whole = msgspec.structs.replace(config, include=())  # Load paths are walked whole.
    for extra in config.load_paths:
        if extra not in roots and os.path.exists(extra):
            for e in collect_files(extra, whole, roots[0], any_file, project).files:
                entries.setdefault(e.path, e)
    return list(entries.values())


def _roots_of(entries: Iterable[FileEntry]) -> tuple[str, ...]:
    """Every root the walks that found ``entries`` allowed (``FileEntry.roots``)."""
    return tuple(dict.fromkeys(r for roots in {e.roots for e in entries} for r in roots))


class ProjectText:
    def __init__(self) -> None:
        self._index: TextIndex | None = None
        # Roots to walk when the index is first needed: (root, config, config root).
        self._roots: list[tuple[str, WorkspaceConfig | None, str | None]] = []
        # Buffers given by ``index_source`` (None: deleted), applied over the walk.
        self._buffers: dict[str, bytes | None] = {}
        self._last_sync: SyncStats | None = None
        # ``defer``'s arguments until the index is first needed, and what attaching it then
        # found wrong, as (code, message).
        self._deferred: tuple[str, list[FileEntry], WorkspaceConfig] | None = None
        self._problems: list[tuple[str, str]] = []
        self._attaching = threading.Lock()
        # Buffers (None: deleted) given since the index last read them: written into it when
        # something next reads it (``_flushed``), not at every keystroke.
        self._pending: dict[str, bytes | None] = {}

    @property
    def last_sync(self) -> SyncStats | None:
        """What the last sync read, kept and dropped (a deferred index is attached first)."""
        self._attached()
        return self._last_sync

    def defer(self, cache_dir: str, entries: list[FileEntry], config: WorkspaceConfig) -> None:
        """``attach`` when the index is first needed rather than now (see the module
        docstring); the problems it meets then are reported by ``repairs``. A cache without a
        text index builds it now: the first open of a project makes its whole cache."""
        self._deferred = (cache_dir, entries, config)
        if not os.path.exists(os.path.join(cache_dir, INDEX_NAME)):
            self._attached()

    def prepare(self) -> None:
        """Attach a deferred index now (a server's idle time), so no grep waits for it."""
        self._attached()
        self._flushed()

    def _flushed(self) -> TextIndex | None:
        """The index with every pending buffer written into it (None when there is none yet)."""
        index = self._index
        if index is not None and self._pending:
            with self._attaching:
                pending, self._pending = self._pending, {}
                for path, data in pending.items():
                    if data is None:
                        index.remove(path)
                    else:
                        index.put(path, data)
        return index

    def _attached(self) -> None:
        if self._deferred is None:
            return
        with self._attaching:  # Queries may run in several threads: one attaches.
            if self._deferred is not None:
                cache_dir, entries, config = self._deferred
                problems = self.attach(cache_dir, entries, config)
                # Buffers given meanwhile win over the disk, as they would have after the sync.
                assert self._index is not None
                for path, data in self._buffers.items():
                    if data is None:
                        self._index.remove(path)
                    else:
                        self._index.put(path, data)
                self._deferred = None
                self._problems += [(code, message) for code, message, _, _ in problems]

    def attach(self, cache_dir: str, entries: Iterable[FileEntry], config: WorkspaceConfig) -> list[tuple[str, str, str, str]]:
        """Open the persistent index in ``cache_dir`` and sync it with ``entries``; returns
        the problems as (code, message, severity, path)."""
        problems: list[tuple[str, str, str, str]] = []
        try:
            index = TextIndex(os.path.join(cache_dir, INDEX_NAME))
        except (sqlite3.Error, OSError) as exc:
            problems.append(("snapshot-unwritable", f"cannot open the text index in {cache_dir} ({exc}); kept in memory", "warning", cache_dir))
            index = TextIndex(None)
        if index.problem is not None:
            problems.append(("snapshot-rebuilt", index.problem, "warning", cache_dir))
        entries = list(entries)
        index.roots = _roots_of(entries)
        self._last_sync = index.sync(((e.path, e.size, e.mtime_ns) for e in entries), config.max_file_size)
        self._index = index
        return problems

    def add_roots(self, roots: Sequence[str], config: WorkspaceConfig | None = None, config_root: str | None = None) -> None:
        self._attached()
        self._roots += [(r, config, config_root) for r in roots]
        if self._index is not None and roots:
            entries = [e for root in roots for e in collect_files(root, config, config_root, select=any_file).files]
            if self._index.roots:  # Empty: nothing walked yet, so nothing to check against.
                self._index.roots = tuple(dict.fromkeys(self._index.roots + _roots_of(entries)))
            self._index.update(e.path for e in entries)

    def buffer(self, path: str | None, data: bytes) -> None:
        if path is None:
            return
        self._buffers[path] = data  # Applied when a deferred index is attached.
        if self._index is not None:
            self._pending[path] = data

    def forget(self, path: str | None) -> None:
        if path is None:
            return
        self._buffers[path] = None
        if self._index is not None:
            self._pending[path] = None

    def refresh(self, paths: Iterable[str], limit: int | None = None, keeps: Callable[[str], bool] | None = None) -> None:
        """Re-read files changed on disk (not those open as buffers); files over ``limit``
        bytes or that ``keeps`` rejects (the configuration's globs) are dropped."""
        self._attached()
        index = self._flushed()
        if index is None:
            return
        paths = [p for p in paths if p not in self._buffers]
        dropped = [p for p in paths if keeps is not None and not keeps(p)]
        index.update((p for p in paths if p not in dropped), limit)
        for path in dropped:
            index.remove(path)

    def counts(self) -> tuple[int, int] | None:
        """(files, bytes) in the text index; None when it was not built yet."""
        self._attached()
        index = self._flushed()
        if index is None:
            return None
        return len(index.files), index.text_bytes()

    def repairs(self) -> list[tuple[str, str]]:
        """(code, message) of what the text index repaired, or could not write, since it was
        opened (``TextIndex.repairs``): damage found and rebuilt, a full disk; for a deferred
        index, also what attaching it found. Nothing for an index not attached yet: it
        reports once something needs it."""
        return self._problems + (list(self._index.repairs) if self._index is not None else [])

    def paths(self) -> list[str]:
        self._attached()
        index = self._flushed()
        return list(index.files) if index is not None else []

    def index(self) -> TextIndex:
        self._attached()
        self._flushed()
        if self._index is None:
            index = TextIndex(None)
            rows: dict[str, tuple[str, int, int]] = {}
            found: list[FileEntry] = []
            for root, config, config_root in self._roots:
                found += collect_files(root, config, config_root, select=any_file).files
            index.roots = _roots_of(found)
            for e in found:
                rows[e.path] = (e.path, e.size, e.mtime_ns)
            self._last_sync = index.sync(sorted(rows.values()))
            for path, data in self._buffers.items():
                if data is None:
                    index.remove(path)
                else:
                    index.put(path, data)
            self._index = index
        return self._index

    def grep(self, pattern: str, root: str | None, *, path: object = None, **options: object) -> GrepPage:
        """``grep`` over this index; globs are relative to ``root``, ``path`` (one path or a
        list) keeps files below it."""
        under: list[str] = []
        if path is not None:
            items: list[object] = [path] if isinstance(path, (str, os.PathLike)) else list(path) if isinstance(path, (list, tuple)) else [path]
            for item in items:
                if not isinstance(item, (str, os.PathLike)):
                    raise InvalidArgumentError(f"path must be a path or a list of paths, got {path!r}")
                under.append(os.path.abspath(os.fspath(item)))
        return grep(self.index(), pattern, relative_to=root, under=under, **options)  # type: ignore[arg-type]

    def close(self) -> None:
        self._deferred = None
        index = self._flushed()
        if index is not None:
            index.close()
