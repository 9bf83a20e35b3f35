"""Read-only answers about the declarations of languages other than Ruby.

``ForeignView`` wraps one published ``ForeignState`` with the indexes its questions need
(members by owner, references by target), built on first use and never written back.
``ForeignDeclarationHandle`` and ``ForeignDefinition`` are the same public shapes as Ruby's
``Declaration`` and ``Definition`` (subclasses: every surface that takes one takes the other),
plus ``language``. Kinds are the shared lowercase vocabulary of ``SymbolKind`` (``class``,
``function``, ``method``...), where Ruby's are Rubydex's (``Class``, ``Method``).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from rdx.model.foreign import ForeignDeclaration, ForeignState
from rdx.model.public import (
    DeclarationSummary,
    DefinitionSummary,
    Location,
    MemberSummary,
)
from rdx.model.records import FileResult
from rdx.model.symbols import RefKind, Symbol
from rdx.model.text import offset_to_position
from rdx.ruby.query.handles import Declaration, Definition, View

__all__ = ["ForeignDeclarationHandle", "ForeignDefinition", "ForeignView", "foreign_location"]

_TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum"})


def foreign_location(doc: FileResult, start: int, end: int) -> Location:
    sl, sc = offset_to_position(doc.line_starts, start)
    el, ec = offset_to_position(doc.line_starts, end)
    return Location(doc.path or doc.uri, sl, sc, el, ec, doc.uri)


class ForeignView:
    """One foreign state and the indexes built over it for questions (see module docstring)."""

    def __init__(self, state: ForeignState, view: View) -> None:
        self.state = state
        self.view = view
        self._members: dict[int, list[int]] | None = None
        self._referrers: dict[int, list[tuple[str, int]]] | None = None
        self._bases: dict[int, list[int]] | None = None

    def declaration(self, decl_id: int | None) -> ForeignDeclarationHandle | None:
        if decl_id is None or decl_id not in self.state.declarations:
            return None
        return ForeignDeclarationHandle(self, decl_id)

    def named(self, name: str) -> list[ForeignDeclarationHandle]:
        return [ForeignDeclarationHandle(self, i) for i in self.state.by_name.get(name, ())]

    def owner_of(self, decl: ForeignDeclaration) -> int | None:
        """The declaration whose name is this one's minus its last part, in the same unit."""
        sep = decl.separator
        for candidate_sep in {sep, "::", "."}:
            suffix = candidate_sep + decl.unqualified
            if decl.name.endswith(suffix):
                owner = decl.name[: -len(suffix)]
                for i in self.state.by_name.get(owner, ()):
                    if self.state.declarations[i].unit == decl.unit:
                        return i
        return None

    def members_of(self, decl_id: int) -> list[int]:
        if self._members is None:
            table: dict[int, list[int]] = {}
            for i, decl in self.state.declarations.items():
                owner = self.owner_of(decl)
                if owner is not None:
                    table.setdefault(owner, []).append(i)
            self._members = table
        return sorted(self._members.get(decl_id, ()), key=lambda i: self.state.declarations[i].name)

    def referrers(self, decl_id: int) -> list[tuple[str, int]]:
        """(URI, reference index) of every reference resolved to ``decl_id``, in file order."""
        if self._referrers is None:
            table: dict[int, list[tuple[str, int]]] = {}
            for uri in sorted(self.state.reference_targets):
                for index, target in enumerate(self.state.reference_targets[uri]):
                    if target is not None:
                        table.setdefault(target, []).append((uri, index))
            self._referrers = table
        return self._referrers.get(decl_id, [])

    def bases_of(self, decl_id: int) -> list[int]:
        """The resolved bases (``extends``, ``implements``, Python base classes) of a type."""
        if self._bases is None:
            table: dict[int, list[int]] = {}
            state = self.state
            for uri, doc in state.files.items():
                targets = state.reference_targets.get(uri, ())
                ids = state.symbol_declarations.get(uri, ())
                for ref, target in zip(doc.references, targets, strict=False):
                    if ref.kind == RefKind.BASE and target is not None and ref.scope >= 0:
                        bases = table.setdefault(ids[ref.scope], [])
                        if target not in bases:
                            bases.append(target)
            self._bases = table
        return self._bases.get(decl_id, [])

    def symbol_at(self, uri: str, offset: int) -> int | None:
        """The innermost symbol of a file whose name contains ``offset``, else whose range does."""
        doc = self.state.files.get(uri)
        if doc is None:
            return None
        best = None
        for i, symbol in enumerate(doc.symbols):
            if symbol.name_start <= offset <= symbol.name_end:
                return i
            if symbol.start <= offset < symbol.end:
                best = i
        return best

    def definitions_in(self, uri: str) -> Iterator[ForeignDefinition]:
        """The definitions of one file, in order (``Document.definitions`` of such a file)."""
        return iter_foreign_definitions(self, uri)

    def reference_at(self, uri: str, offset: int) -> int | None:
        doc = self.state.files.get(uri)
        if doc is None:
            return None
        starts = [r.start for r in doc.references]
        i = bisect.bisect_right(starts, offset) - 1
        while i >= 0 and doc.references[i].start <= offset:
            if offset <= doc.references[i].end:
                return i
            i -= 1
        return None


class ForeignDefinition(Definition):
    """A definition in a file of another language (a ``Symbol`` seen through a view)."""

    __slots__ = ("_foreign", "_uri")

    def __init__(self, foreign: ForeignView, uri: str, index: int) -> None:
        super().__init__(foreign.view, -1, index)
        self._foreign = foreign
        self._uri = uri

    @property
    def _symbol(self) -> Symbol:
        return self._foreign.state.files[self._uri].symbols[self._index]

    @property
    def _file(self) -> FileResult:
        return self._foreign.state.files[self._uri]

    @property
    def id(self) -> int:
        return self._foreign.state.symbol_declarations[self._uri][self._index] ^ (self._symbol.name_start << 1)

    @property
    def kind(self) -> str:
        return self._symbol.kind

    @property
    def name(self) -> str:
        return self._symbol.name

    @property
    def qualified_name(self) -> str:
        return self._symbol.qualified

    @property
    def language(self) -> str:
        return self._file.language

    @property
    def location(self) -> Location:
        s = self._symbol
        return foreign_location(self._file, s.start, s.end)

    @property
    def name_location(self) -> Location:
        s = self._symbol
        return foreign_location(self._file, s.name_start, s.name_end)

    @property
    def uri(self) -> str:
        return self._uri

    @property
    def comments(self) -> list[str]:
        doc = self._symbol.doc
        return doc.splitlines() if doc else []

    @property
    def lexical_nesting(self) -> list[str]:
        symbols = self._file.symbols
        names = []
        parent = self._symbol.parent
        while parent >= 0:
            names.append(symbols[parent].name)
            parent = symbols[parent].parent
        return names[::-1]

    @property
    def superclass(self) -> str | None:
        return None

    @property
    def mixins(self) -> list:  # type: ignore[type-arg]
        return []

    @property
    def visibility(self) -> str:
        return "public"

    @property
    def signature(self) -> str | None:
        return self._symbol.signature

    @property
    def target(self) -> str | None:
        return None

    @property
    def declaration(self) -> ForeignDeclarationHandle | None:
        return self._foreign.declaration(self._foreign.state.symbol_declarations[self._uri][self._index])

    def __repr__(self) -> str:
        return f"<Definition {self.language} {self.kind} {self.name} at {self.location}>"


class ForeignDeclarationHandle(Declaration):
    """A declaration of another language; the same questions as a Ruby ``Declaration``."""

    __slots__ = ("_foreign",)

    def __init__(self, foreign: ForeignView, decl_id: int) -> None:
        super().__init__(foreign.view, decl_id)
        self._foreign = foreign

    @property
    def _decl(self) -> ForeignDeclaration:
        return self._foreign.state.declarations[self.id]

    def __repr__(self) -> str:
        return f"<Declaration {self.language} {self.kind} {self.name}>"

    @property
    def name(self) -> str:
        return self._decl.name

    @property
    def unqualified_name(self) -> str:
        return self._decl.unqualified

    @property
    def kind(self) -> str:
        return self._decl.kind

    @property
    def language(self) -> str:
        return self._decl.language

    @property
    def visibility(self) -> str:
        return "public"

    @property
    def definitions(self) -> list[Definition]:
        return [ForeignDefinition(self._foreign, uri, index) for uri, index in self._decl.definitions]

    @property
    def location(self) -> Location | None:
        uri, index = self._decl.definitions[0]
        return ForeignDefinition(self._foreign, uri, index).location

    @property
    def owner(self) -> Declaration | None:
        return self._foreign.declaration(self._foreign.owner_of(self._decl))

    @property
    def members(self) -> list[Declaration]:
        return [ForeignDeclarationHandle(self._foreign, i) for i in self._foreign.members_of(self.id)]

    def member(self, name: str) -> Declaration | None:
        for m in self._foreign.members_of(self.id):
            if self._foreign.state.declarations[m].unqualified == name:
                return ForeignDeclarationHandle(self._foreign, m)
        return None

    def find_member(self, name: str, only_inherited: bool = False) -> Declaration | None:
        """``name`` among the members of this type, then of its bases, breadth first."""
        seen = {self.id}
        queue = [self.id]
        while queue:
            current = queue.pop(0)
            if current != self.id or not only_inherited:
                found = ForeignDeclarationHandle(self._foreign, current).member(name)
                if found is not None:
                    return found
            for base in self._foreign.bases_of(current):
                if base not in seen:
                    seen.add(base)
                    queue.append(base)
        return None

    @property
    def ancestors(self) -> list[Declaration]:
        """This type, then its resolved bases breadth first (no language's full MRO)."""
        seen = [self.id]
        i = 0
        while i < len(seen):
            for base in self._foreign.bases_of(seen[i]):
                if base not in seen:
                    seen.append(base)
            i += 1
        return [ForeignDeclarationHandle(self._foreign, d) for d in seen]

    @property
    def descendants(self) -> list[Declaration]:
        state = self._foreign.state
        found = [d for d in state.declarations if self.id in self._foreign.bases_of(d)]
        return [ForeignDeclarationHandle(self._foreign, d) for d in sorted(found, key=lambda d: state.declarations[d].name)]

    @property
    def superclass(self) -> Declaration | None:
        bases = self._foreign.bases_of(self.id)
        return self._foreign.declaration(bases[0]) if bases and self.kind == "class" else None

    @property
    def singleton_class(self) -> Declaration | None:
        return None

    @property
    def attached_object(self) -> Declaration | None:
        return None

    @property
    def target(self) -> Declaration | None:
        return None

    def summary(self, members: bool = True) -> DeclarationSummary:
        owner = self.owner
        return DeclarationSummary(
            name=self.name,
            kind=self.kind,
            revision=self.revision,
            owner=owner.name if owner is not None else None,
            language=self.language,
            definitions=[DefinitionSummary(d.kind, d.location, d.comments, d.signature) for d in self.definitions],
            ancestors=[a.name for a in self.ancestors] if self.kind in _TYPE_KINDS else [],
            members=[MemberSummary(m.name, m.unqualified_name, m.kind, m.location) for m in self.members] if members else [],
        )


def iter_foreign_definitions(foreign: ForeignView, uri: str) -> Iterator[ForeignDefinition]:
    doc = foreign.state.files.get(uri)
    for i in range(len(doc.symbols) if doc is not None else 0):
        yield ForeignDefinition(foreign, uri, i)
