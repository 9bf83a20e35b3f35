"""What a ``Graph`` keeps for languages other than Ruby between revisions.

The foreign side of a revision (``ForeignState``) is computed on the first question about it,
from the documents of that revision: carried from the previous revision's state by
``advance`` when that one was computed, else built whole. The project layout the import
resolver needs (go.mod module paths, tsconfig paths, include directories) is read here, once,
and again when one of those files changes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable

import msgspec

from rdx.cache.snapshot import load_foreign, save_foreign, unwritable, writer_lock
from rdx.languages.layout import Layout, read_layout
from rdx.languages.resolve import advance, build
from rdx.model.foreign import ForeignImage, ForeignState
from rdx.model.records import FileResult
from rdx.workspace.files import ProjectRoots, read_regular

__all__ = ["LAYOUT_FILES", "ForeignSide"]

# Files whose change changes how imports resolve.
LAYOUT_FILES = frozenset({"go.mod", "tsconfig.json", "jsconfig.json", "Cargo.toml", "package.json"})


class ForeignSide:
    def __init__(self) -> None:
        self.roots: list[str] = []
        self._layout: Layout | None = None
        # The paths the layout was read for (documents and the layout files found next to them).
        self._layout_key: frozenset[str] | None = None
        self.layout_changed = False
        # Where a graph opened on a workspace keeps its cache, and how it names a set of
        # documents: a full build is saved there and restored while nothing changed.
        self.cache_dir: str | None = None
        self.fingerprint: Callable[[Iterable[FileResult]], str] | None = None
        # Where problems with that cache go (code, message): the graph's diagnostics.
        self.report: Callable[[str, str], None] | None = None

    def add_roots(self, roots: Iterable[str]) -> None:
        for root in roots:
            root = os.path.abspath(root)
            if root not in self.roots:
                self.roots.append(root)
                self._layout = None

    def note_paths(self, paths: Iterable[str]) -> None:
        """File events: a changed go.mod or tsconfig means reading the layout again."""
        if any(os.path.basename(p) in LAYOUT_FILES for p in paths):
            self._layout = None
            self.layout_changed = True

    def _reader(self) -> Callable[[str], bytes | None]:
        """Reads a layout file under the project's rules: a tsconfig's ``extends`` or a
        symlinked go.mod never brings in a file outside the roots, nor a FIFO or device."""
        real = ProjectRoots.of(self.roots).real

        def read(path: str) -> bytes | None:
            try:
                return read_regular(path, real)
            except OSError:
                return None

        return read

    def layout(self, documents: Iterable[FileResult]) -> Layout:
        paths = sorted(d.path for d in documents if d.path and d.language != "ruby")
        key = frozenset(os.path.dirname(p) for p in paths)
        if self._layout is None or self._layout_key != key:
            files = list(paths)
            # Layout files sit in a document's directory or above it (a go.mod at the module
            # root, a tsconfig.json at the package root), up to the project's roots.
            directories: set[str] = set(self.roots)
            for directory in key:
                while directory not in directories:
                    directories.add(directory)
                    parent = os.path.dirname(directory)
                    if parent == directory or any(r.startswith(directory + os.sep) for r in self.roots):
                        break
                    directory = parent
            for directory in sorted(directories):
                for name in LAYOUT_FILES:
                    candidate = os.path.join(directory, name)
                    if os.path.isfile(candidate):
                        files.append(candidate)
            self._layout = read_layout(list(self.roots), sorted(set(files)), self._reader())
            self._layout_key = key
        return self._layout

    def source(
        self, documents: dict[int, FileResult], previous: ForeignState | None, changed: set[str] | None, changed_languages: set[str] | None = None
    ) -> Callable[[], ForeignState]:
        """How the view of a new revision computes its foreign state, when first asked.
        ``changed_languages``: the languages of the ``changed`` documents still present, when
        the caller knows them (else found by reading every document)."""
        layout_changed, self.layout_changed = self.layout_changed, False
        if changed is not None and changed_languages is None:
            changed_languages = {d.language for d in documents.values() if d.uri in changed}
        foreign_changed = bool(changed_languages and changed_languages - {"ruby"}) or (
            previous is not None and changed is not None and any(uri in previous.files for uri in changed)
        )

        def compute() -> ForeignState:
            if previous is not None and changed is not None and not layout_changed and not foreign_changed:
                return previous  # A Ruby edit: nothing to read, not even the layout.
            docs = list(documents.values())
            layout = self.layout(docs)
            if previous is not None and changed is not None and not layout_changed:
                return advance(previous, {d.uri: d for d in docs}, changed, layout)
            return self._cached_build(docs, layout)

        return compute

    def _cached_build(self, docs: list[FileResult], layout: Layout) -> ForeignState:
        """``build``, or its saved result when the documents and the layout are the same."""
        if self.cache_dir is None or self.fingerprint is None:
            return build(docs, layout)
        key = self.fingerprint(docs) + ":" + hashlib.blake2b(msgspec.msgpack.encode(layout), digest_size=8).hexdigest()
        files = {d.uri: d for d in docs if d.language != "ruby"}
        image, problem = load_foreign(self.cache_dir, key)
        if problem is not None and self.report is not None:
            self.report("snapshot-rebuilt", problem)
        if image is not None and set(image.symbol_declarations) == set(files):
            return image.state(files)
        state = build(docs, layout)
        try:
            with writer_lock(self.cache_dir):
                save_foreign(self.cache_dir, ForeignImage.of(state, key))
        except OSError as exc:
            # An unwritable cache: answers come from memory, the next process builds again.
            if self.report is not None:
                self.report("snapshot-unwritable", unwritable(self.cache_dir, exc))
        return state
