"""``TextSearch``: grep over a project's files without building its Ruby graph.

``rdx grep`` uses it: it walks the project as ``Graph.open`` does (same ignore rules,
configuration and size limit) and syncs the same text index in the cache directory, so a
search costs a walk, a stat per file and the query, not a parse of every Ruby file. A graph
opened later on the same project finds the text index current.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from rdx.cache.snapshot import default_cache_dir, prepare_cache_dir, unwritable
from rdx.model.errors import InvalidArgumentError, IOFailureError
from rdx.model.public import Diagnostic
from rdx.search.grep import GREP_TIMEOUT, GrepPage
from rdx.search.text_index import SyncStats
from rdx.search.text_workspace import ProjectText, walk_every_file
from rdx.workspace.config import load_config

__all__ = ["Greppable", "TextSearch"]


class Greppable:
    """``grep`` for what holds a project's text (``Graph`` and ``TextSearch``)."""

    _text: ProjectText

    def _grep_root(self) -> str | None:
        """The directory globs are relative to (None: paths as they are)."""
        raise NotImplementedError

    def grep(
        self,
        pattern: str,
        *,
        regex: bool = False,
        ignore_case: bool = False,
        glob: str | Sequence[str] | None = None,
        language: str | Sequence[str] | None = None,
        path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        context: int = 0,
        limit: int | None = None,
        offset: int = 0,
        timeout: float | None = GREP_TIMEOUT,
    ) -> GrepPage:
        """Lines of the project's text files (every language) matching ``pattern``: a literal,
        or an RE2 regex with ``regex=True`` (linear time; ripgrep's syntax and line rules).
        Sorted by path, line and column; a page of ``limit`` hits from ``offset`` whose
        ``total`` counts all. ``glob`` (gitignore-style, ``!`` excludes) matches paths relative
        to the project root, ``path`` keeps files under the given paths, ``language`` filters by
        language (``"ruby"``, ``"markdown"``...), ``context`` adds lines around each hit.
        A search stops after ``timeout`` seconds (default 5; None: no limit) and returns the
        lines found so far with ``complete=False``; a pattern longer than 4 KiB is an
        InvalidArgumentError."""
        try:
            return self._text.grep(
                pattern, self._grep_root(), regex=regex, ignore_case=ignore_case, glob=glob, language=language, path=path, context=context,
                limit=limit, offset=offset, timeout=timeout,
            )
        except sqlite3.Error as exc:
            raise IOFailureError(f"the text index failed: {exc}") from None


class TextSearch(Greppable):
    """The text index of one project (see the module docstring); ``grep`` as ``Graph.grep``."""

    def __init__(self, root: str, text: ProjectText, diagnostics: list[Diagnostic]) -> None:
        self.root = root
        self._text = text
        self.diagnostics = diagnostics

    @classmethod
    def open(cls, root: str | os.PathLike[str], *, cache_dir: str | os.PathLike[str] | None = None) -> TextSearch:
        """The project at ``root`` (a directory or a file), its index in ``cache_dir``
        (default: ``.rdx/`` in the project), brought up to date with the disk."""
        if not isinstance(root, (str, os.PathLike)):
            raise InvalidArgumentError(f"root must be a path, got {root!r}")
        path = os.path.abspath(os.fspath(root))
        if not os.path.exists(path):
            raise IOFailureError(f"path {os.fspath(root)!r} does not exist; pass an existing file or directory")
        config = load_config(path)
        cache = os.fspath(cache_dir) if cache_dir is not None else default_cache_dir(path)
        text = ProjectText()
        diagnostics: list[Diagnostic] = []
        try:
            prepare_cache_dir(cache)
        except OSError as exc:
            diagnostics.append(Diagnostic("snapshot-unwritable", unwritable(cache, exc), "warning", cache))
            cache = ""
        entries = walk_every_file([path], config)
        if cache:
            diagnostics += [Diagnostic(*p) for p in text.attach(cache, entries, config)]
            # A full disk while syncing: the index answers from memory and says so.
            diagnostics += [Diagnostic(code, message, "warning", cache) for code, message in text.repairs()]
        else:
            text.add_roots([path], config, path)
        return cls(path if os.path.isdir(path) else os.path.dirname(path), text, diagnostics)

    def _grep_root(self) -> str | None:
        return self.root

    @property
    def last_sync(self) -> SyncStats | None:
        """What the last sync read, kept and dropped."""
        return self._text.last_sync

