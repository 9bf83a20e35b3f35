"""Navigation for the ``Graph`` façade: references, definition, declaration, hover and
completion at a position, dead code; Ruby's answers from ``rdx.ruby.query.navigation``, other
languages' from ``rdx.languages.navigation``. A mixin, as ``Greppable`` is for grep: the
arguments are checked here (a position must exist in its document), the graph supplies its
current view."""

from __future__ import annotations

import os

from rdx.languages.navigation import foreign_declaration_at, foreign_definition_at, foreign_hover_at, foreign_references_to
from rdx.languages.view import ForeignDeclarationHandle
from rdx.model.errors import InvalidArgumentError, excerpt
from rdx.model.text import line_count, line_span
from rdx.ruby.query import navigation
from rdx.ruby.query.handles import Declaration, View
from rdx.ruby.query.navigation import Completion, Hover, Reference, Target
from rdx.workspace.files import is_ruby_file, path_to_uri, uri_to_path

__all__ = ["Navigable"]


class Navigable:
    """What ``Graph`` answers about positions and uses (see the module docstring)."""

    _sources: dict[str, bytes]

    def _ready(self) -> View:
        raise NotImplementedError

    def read_project_file(self, path: str | os.PathLike[str]) -> bytes | None:
        raise NotImplementedError

    def __getitem__(self, name: str) -> Declaration:
        raise NotImplementedError

    def references_to(self, name: str | Declaration) -> list[Reference]:
        """Every use of a declaration (by name, or the declaration itself when a name is
        declared in several places): constant references (through aliases), and for methods
        the calls whose receiver resolves to the owner or a descendant, plus name-only matches
        with an unknown receiver (``certain=False``); in other languages, the calls, types and
        bases resolved to it."""
        view = self._ready()
        decl = name if isinstance(name, Declaration) else self[name]
        if isinstance(decl, ForeignDeclarationHandle):
            return foreign_references_to(view.foreign, decl)
        return navigation.references_to(view, decl)

    def _position(self, path: str | os.PathLike[str], line: int, column: int) -> str:
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidArgumentError(f"path must be a string, got {path!r}")
        for value, what in ((line, "line"), (column, "column")):
            if not isinstance(value, int) or isinstance(value, bool) or value < (1 if what == "line" else 0):
                raise InvalidArgumentError(f"{what} must be an integer >= {1 if what == 'line' else 0}, got {value!r}")
        path = os.fspath(path)
        if "://" in path:
            return path
        return path_to_uri(path)

    def _checked(self, path: str | os.PathLike[str], line: int, column: int) -> tuple[View, str]:
        """The current view and the URI of a position that exists in its document: a line past
        the document's last line, or a column past its line's end, is an InvalidArgumentError
        saying so. A document the graph does not hold is not checked (it answers nothing)."""
        uri = self._position(path, line, column)
        view = self._ready()
        doc = view.foreign.state.files.get(uri) if self._is_foreign(view, uri) else None
        if doc is None:
            index = navigation._doc_index(view, uri)
            doc = view.state.documents[index] if index is not None else None
        if doc is not None and doc.line_starts:
            problem = _position_problem(doc.line_starts, doc.size, line, column)
            if problem is not None:
                raise InvalidArgumentError(f"{excerpt(os.fspath(path))}: {problem}")
        return view, uri

    def definition_at(self, path: str | os.PathLike[str], line: int, column: int) -> Target | None:
        """Go to definition: the declaration (or required document) at a position, or None.
        A position outside the document is an InvalidArgumentError (see ``_checked``)."""
        view, uri = self._checked(path, line, column)
        if self._is_foreign(view, uri):
            return foreign_definition_at(view.foreign, uri, line, column)
        return navigation.definition_at(view, uri, line, column)

    @staticmethod
    def _is_foreign(view: View, uri: str) -> bool:
        return not is_ruby_file(os.path.basename(uri)) and uri in view.foreign.state.files

    def declaration_at(self, path: str | os.PathLike[str], line: int, column: int) -> Declaration | None:
        """The declaration named at a position (a definition, a reference, a resolved call), or None."""
        view, uri = self._checked(path, line, column)
        if self._is_foreign(view, uri):
            return foreign_declaration_at(view.foreign, uri, line, column)
        return navigation.declaration_at(view, uri, line, column)

    def hover_at(self, path: str | os.PathLike[str], line: int, column: int) -> Hover | None:
        """Name, kind, signature, owner, ancestors and comments of what is at a position. A
        method call whose receiver is unknown is answered as ``definition_at`` answers it: the
        methods of that name, ``certain=False`` (see ``rdx.ruby.query.navigation.hover_at``)."""
        view, uri = self._checked(path, line, column)
        if self._is_foreign(view, uri):
            return foreign_hover_at(view.foreign, uri, line, column)
        return navigation.hover_at(view, uri, line, column)

    def completions_at(self, path: str | os.PathLike[str], line: int, column: int) -> list[Completion]:
        """Completion candidates at a position (after ``Foo::``, after ``recv.``, or in scope)."""
        _, uri = self._checked(path, line, column)
        source = self._sources.get(uri)
        if source is None:
            # Only a file of the project, and never a FIFO or a device (see Graph.read_project_file).
            file_path = uri_to_path(uri)
            source = self.read_project_file(file_path) if file_path is not None else None
        return navigation.completions_at(self._ready(), uri, line, column, source)

    def dead_code_candidates(self) -> list[Declaration]:
        """Methods never called by name and constants never referenced, outside Ruby core."""
        return navigation.dead_code_candidates(self._ready())


def _position_problem(starts: bytes, size: int, line: int, column: int) -> str | None:
    """Why ``line``:``column`` is not a position of a document with this line table (and
    ``size`` in bytes, 0 when unknown), or None when it is one. The end of a line (the column
    of its newline, or of the end of the document) is a position."""
    lines = line_count(starts)
    if line > lines:
        return f"line {line} does not exist (the file has {lines} line{'s' if lines != 1 else ''})"
    begin, end = line_span(starts, line, size)
    if end is not None and column > end - begin:
        return f"column {column} is past the end of line {line} ({end - begin} bytes long)"
    return None
