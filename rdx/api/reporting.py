"""What a ``Graph`` reports about itself: diagnostics (the project's, or one document's) and
counts (``stats``). A mixin of ``Graph``; frontends build their output from these."""

from __future__ import annotations

import os

from rdx.model.errors import InvalidArgumentError
from rdx.model.public import Diagnostic
from rdx.model.records import FileResult
from rdx.model.store import CORE_URI, ResolutionDiagnostic
from rdx.ruby.query.handles import View
from rdx.search.text_workspace import ProjectText
from rdx.workspace.files import path_to_uri, uri_to_path

__all__ = ["CACHE_CODES", "Reporting"]

# The codes of the problems that are the cache directory's own: damage found and rebuilt, a
# cache (or gem cache) that could not be written. Only the walk's problems and the text
# index's repairs carry them, never a file's or resolution's diagnostics.
CACHE_CODES = frozenset({"snapshot-rebuilt", "snapshot-unwritable", "gem-cache-damaged", "gem-cache-unwritable"})


class Reporting:
    """``diagnostics``, ``diagnostics_of`` and ``stats`` (see the module docstring)."""

    _walk_problems: list[Diagnostic]
    _text: ProjectText

    def _ready(self) -> View:
        raise NotImplementedError

    def _cache_dir(self) -> str | None:
        workspace: tuple[list[str], str] | None = getattr(self, "_workspace", None)
        return workspace[1] if workspace is not None else None

    @property
    def revision(self) -> int:
        raise NotImplementedError

    def _file_diagnostic(self, result: FileResult, d) -> Diagnostic:  # type: ignore[no-untyped-def]
        location = None
        # A zero-width diagnostic (tree-sitter's MISSING node) has a place too: only 0-0 means
        # the whole file.
        if (d.end > d.start or d.start > 0) and result.line_starts:
            from rdx.model.public import Location
            from rdx.model.text import offset_to_position

            sl, sc = offset_to_position(result.line_starts, d.start)
            el, ec = offset_to_position(result.line_starts, d.end)
            location = Location(result.path or result.uri, sl, sc, el, ec, result.uri)
        return Diagnostic(d.code, d.message, d.severity, result.path or result.uri, location)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every problem of the project: unreadable files, syntax errors, what resolution could
        not resolve, and gems that could not be indexed. A dependency's own problems are not the
        project's: ``diagnostics_of`` a dependency's file lists them."""
        view = self._ready()
        out = list(self._walk_problems)
        # The text index repairs itself while answering (a damaged body read again, a full
        # disk): those reports are the cache directory's.
        out += [Diagnostic(code, message, "warning", self._cache_dir() or "") for code, message in self._text.repairs()]
        documents = view.state.documents
        for result in documents.values():
            if result.library is None:
                out += [self._file_diagnostic(result, d) for d in result.diagnostics]
        out += [self._resolution_diagnostic(view, diag) for diag in view.state.diagnostics if documents[diag.doc].library is None]
        return out

    def cache_problems(self) -> list[Diagnostic]:
        """The problems of ``diagnostics`` whose code is in ``CACHE_CODES``, in the same order,
        without making every file's diagnostics (milliseconds on a large project, which a
        command that only warns about the cache should not pay)."""
        self._ready()
        out = [p for p in self._walk_problems if p.code in CACHE_CODES]
        out += [Diagnostic(code, message, "warning", self._cache_dir() or "") for code, message in self._text.repairs() if code in CACHE_CODES]
        return out

    def diagnostics_of(self, uri_or_path: str) -> list[Diagnostic]:
        """``diagnostics`` of one document only (what an editor shows for an open file),
        without building every other document's."""
        if not isinstance(uri_or_path, (str, os.PathLike)):
            raise InvalidArgumentError(f"diagnostics_of expects a URI or path, got {uri_or_path!r}")
        uri_or_path = os.fspath(uri_or_path)
        uri = uri_or_path if "://" in uri_or_path else path_to_uri(uri_or_path)
        view = self._ready()
        key = next((k for k, d in view.state.documents.items() if d.uri == uri), None)
        path = uri_to_path(uri)
        out = [p for p in self._walk_problems if p.path == path]
        if key is None:
            return out
        result = view.state.documents[key]
        out += [self._file_diagnostic(result, d) for d in result.diagnostics]
        out += [self._resolution_diagnostic(view, diag) for diag in view.state.diagnostics if diag.doc == key]
        return out

    @staticmethod
    def _resolution_diagnostic(view: View, diag: ResolutionDiagnostic) -> Diagnostic:
        result = view.state.documents[diag.doc]
        return Diagnostic(diag.code, diag.message, diag.severity, result.path or result.uri, view.location(diag.doc, diag.start, diag.end))

    @staticmethod
    def _language_stats(view: View) -> dict[str, dict[str, int]]:
        foreign = view.foreign.state
        out: dict[str, dict[str, int]] = {}
        for uri, doc in foreign.files.items():
            entry = out.setdefault(doc.language, {"documents": 0, "declarations": 0, "references": 0, "references_resolved": 0, "imports": 0, "imports_resolved": 0})
            entry["documents"] += 1
            entry["references"] += len(doc.references)
            entry["references_resolved"] += sum(1 for t in foreign.reference_targets.get(uri, ()) if t is not None)
            entry["imports"] += len(doc.imports)
            entry["imports_resolved"] += sum(1 for t in foreign.import_targets.get(uri, ()) if t)
        for decl in foreign.declarations.values():
            out[decl.language]["declarations"] += 1
        return dict(sorted(out.items()))

    def stats(self) -> dict[str, object]:
        """Counts of documents, definitions, declarations (by kind), references, diagnostics."""
        view = self._ready()
        state = view.state
        kinds: dict[str, int] = {}
        for rec in state.declarations.values():
            kinds[rec.kind] = kinds.get(rec.kind, 0) + 1
        docs = [d for d in state.documents.values() if d.uri != CORE_URI]
        text = self._text.counts()
        resolved_consts = sum(1 for key, targets in state.constant_targets.items() if key != 0 for t in targets if t is not None)
        total_consts = sum(len(d.const_refs) for d in docs)
        return {
            "revision": self.revision,
            "documents": len(docs),
            "bytes": sum(d.size for d in docs),
            "definitions": sum(len(d.definitions) for d in docs),
            "declarations": len(state.declarations),
            "declarations_by_kind": dict(sorted(kinds.items())),
            "constant_references": total_consts,
            "constant_references_resolved": resolved_consts if state.documents and state.documents.get(0) is not None and state.documents[0].uri == CORE_URI else None,
            "method_references": sum(len(d.method_refs) for d in docs),
            "diagnostics": len(self.diagnostics),
            # Other languages than Ruby: documents, declarations, references and how many resolved.
            "languages": self._language_stats(view),
            # Every text file, for grep (None until a graph not opened from a cache greps).
            "text_files": None if text is None else text[0],
            "text_bytes": None if text is None else text[1],
            # The project's gems (``Graph.open``): how many, and how many of the documents are theirs.
            "dependencies": len({d.library for d in docs if d.library is not None}),
            "dependency_documents": sum(1 for d in docs if d.library is not None),
        }
