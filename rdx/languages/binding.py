"""Reference resolution of one file of another language against a ``ForeignState`` draft
(``rdx.languages.resolve``'s last step): imports bound, then each reference looked up through
enclosing definitions, the file's top level, imported names, peers of its unit and bases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rdx.languages.units import (
    IMPLICIT_THIS,
    MAX_BASE_DEPTH,
    MAX_INCLUDES,
    SELF_NAMES,
    TYPE_KINDS,
    separators,
    unit_of,
)
from rdx.model.foreign import family_of
from rdx.model.symbols import Reference, RefKind, SymbolKind

if TYPE_CHECKING:
    from rdx.languages.resolve import _Draft

__all__ = ["resolve_references"]


def resolve_references(draft: _Draft, uris: list[str]) -> None:
    for uri in uris:
        targets, deps = _FileResolution(draft, uri).run()
        draft.reference_targets[uri] = targets
        draft.dependencies[uri] = frozenset(deps)


class _FileResolution:
    """The references of one file, resolved against a draft (see the module docstring)."""

    def __init__(self, draft: _Draft, uri: str) -> None:
        self.draft = draft
        self.uri = uri
        self.doc = draft.files[uri]
        self.family = family_of(self.doc.language)
        self.deps: set[str] = {uri}
        # Local name -> files whose top level defines it (``from m import a as b``: b -> m).
        self.bound: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        # Local module name -> files (``import numpy as np``, a Go package, ``import * as ns``).
        self.modules: dict[str, tuple[str, ...]] = {}
        self.wildcards: list[str] = []
        self._children: dict[int, dict[str, list[int]]] | None = None
        self._tops: dict[str, dict[str, list[int]]] = {}
        self._others: dict[str, _FileResolution] = {}
        self._bases: dict[int, list[int]] = {}
        self._base_refs: dict[int, list[Reference]] | None = None
        self._bind_imports()

    def _bind_imports(self) -> None:
        doc = self.doc
        targets = self.draft.import_targets.get(self.uri, ())
        modules = self.draft.import_modules.get(self.uri, ())
        includes = doc.language in ("c", "cpp")
        for i, imp in enumerate(doc.imports):
            files = targets[i] if i < len(targets) else ()
            submodules = modules[i] if i < len(modules) else {}
            if includes:
                self.wildcards.extend(files)
                continue
            language = doc.language
            if language == "go" and imp.alias in (".", "_"):
                if imp.alias == ".":
                    self.wildcards.extend(files)  # ``import . "pkg"``: its names are the file's own.
                continue
            if imp.alias:
                self.modules[imp.alias] = files
            elif not imp.names and files:
                if language == "go":
                    # A Go import binds the package's name, its path's last element by convention.
                    self.modules[imp.module.rstrip("/").rsplit("/", 1)[-1]] = files
                elif language == "rust":
                    # ``mod foo;`` (encoded ``self::foo``) binds ``foo``.
                    self.modules[imp.module.rsplit("::", 1)[-1]] = files
                else:
                    self.modules[imp.module] = files  # ``import a.b`` binds ``a.b``.
            for imported, local in imp.names:
                if imported == "*":
                    self.wildcards.extend(files)
                elif imported in submodules:
                    self.modules[local] = (submodules[imported],)
                else:
                    self.bound.setdefault(local, []).append((imported, files))
        if includes:
            self.wildcards = self._include_closure(self.wildcards)

    def _include_closure(self, start: list[str]) -> list[str]:
        """C and C++: what a file includes, and what those include, in breadth-first order."""
        seen = dict.fromkeys(start)
        queue = list(start)
        while queue and len(seen) < MAX_INCLUDES:
            for target in self.draft.import_targets.get(queue.pop(0), ()):
                for uri in target:
                    if uri not in seen and uri != self.uri:
                        seen[uri] = None
                        queue.append(uri)
        return list(seen)

    # -- tables ----------------------------------------------------------------------

    def children(self, index: int) -> dict[str, list[int]]:
        if self._children is None:
            table: dict[int, dict[str, list[int]]] = {}
            for i, symbol in enumerate(self.doc.symbols):
                table.setdefault(symbol.parent, {}).setdefault(symbol.name, []).append(i)
            self._children = table
        return self._children.get(index, {})

    def top(self, uri: str, name: str) -> list[int]:
        """Declarations named ``name`` at the top level of the file at ``uri``."""
        if uri == self.uri:
            return [self.draft.symbol_declarations[uri][i] for i in self.children(-1).get(name, ())]
        doc = self.draft.files.get(uri)
        if doc is None:
            return []
        self.deps.add(uri)
        table = self._tops.get(uri)
        if table is None:
            table = {}
            for i, symbol in enumerate(doc.symbols):
                if symbol.parent < 0:
                    table.setdefault(symbol.name, []).append(i)
            self._tops[uri] = table
        ids = self.draft.symbol_declarations.get(uri, ())
        return [ids[i] for i in table.get(name, ())]

    def member(self, decl_id: int, name: str, depth: int = 0) -> int | None:
        """The member ``name`` of a declaration, wherever it is defined (a Go method in another
        file of the package, a C++ method defined out of its class)."""
        decl = self.draft.declarations.get(decl_id)
        if decl is None:
            return None
        _, separator = separators(decl.language)
        found = [i for i in self.draft.by_name.get(decl.name + separator + name, ()) if self.draft.declarations[i].unit == decl.unit]
        for i in found:
            self.deps.update(uri for uri, _ in self.draft.declarations[i].definitions)
        if len(found) == 1:
            return found[0]
        if found or depth >= MAX_BASE_DEPTH:
            return None
        # Inherited: the first base (in the order written) that has it.
        for base in self.bases(decl_id):
            inherited = self.member(base, name, depth + 1)
            if inherited is not None:
                return inherited
        return None

    def bases(self, decl_id: int) -> list[int]:
        """The resolved bases of a type, from the base references of its definitions (in
        whichever file they are), resolved here so the answer does not depend on the order
        files are resolved in."""
        cached = self._bases.get(decl_id)
        if cached is not None:
            return cached
        found: list[int] = []
        self._bases[decl_id] = found  # A cycle of bases (broken code) ends here.
        decl = self.draft.declarations.get(decl_id)
        if decl is None or decl.kind not in TYPE_KINDS:
            return found
        for uri, index in decl.definitions:
            self.deps.add(uri)
            other = self if uri == self.uri else self._other(uri)
            parent = other.doc.symbols[index].parent
            for ref in other.base_references().get(index, ()):
                target = other.qualified(ref.qualifier, ref.name, parent) if ref.qualifier else other.name(ref.name, parent)
                if target is not None and target != decl_id and target not in found:
                    found.append(target)
            if other is not self:
                self.deps.update(other.deps)
        return found

    def base_references(self) -> dict[int, list[Reference]]:
        """The file's base references by the symbol (type) they base."""
        if self._base_refs is None:
            table: dict[int, list[Reference]] = {}
            for ref in self.doc.references:
                if ref.kind == RefKind.BASE:
                    table.setdefault(ref.scope, []).append(ref)
            self._base_refs = table
        return self._base_refs

    def _other(self, uri: str) -> _FileResolution:
        other = self._others.get(uri)
        if other is None:
            other = self._others[uri] = _FileResolution(self.draft, uri)
        return other

    def peers(self) -> list[str]:
        """The other files of this file's unit when the unit is a package (Go)."""
        if self.doc.language != "go":
            return []
        units = self.draft.units
        if not units:
            for uri, doc in self.draft.files.items():
                if doc.language == "go":
                    units.setdefault(("go", unit_of(doc)), []).append(uri)
        return [u for u in units.get(("go", unit_of(self.doc)), ()) if u != self.uri]

    # -- lookups ---------------------------------------------------------------------

    @staticmethod
    def _one(found: Iterable[int]) -> int | None | bool:
        """The one declaration found, None if none, False if several (ambiguous)."""
        distinct = set(found)
        if not distinct:
            return None
        return next(iter(distinct)) if len(distinct) == 1 else False

    def name(self, name: str, scope: int) -> int | None:
        ids = self.draft.symbol_declarations[self.uri]
        symbols = self.doc.symbols
        implicit_this = self.doc.language in IMPLICIT_THIS
        while scope >= 0:
            here = self.children(scope).get(name) if implicit_this or symbols[scope].kind not in TYPE_KINDS else None
            if here:
                return ids[here[0]]
            scope = symbols[scope].parent
        own = self.children(-1).get(name)
        if own:
            return ids[own[0]]
        # Then what imports bind, wildcard imports and includes, the package's other files;
        # each step only when the one before found nothing (most names stop early).
        bound = self.bound.get(name)
        if bound:
            one = self._one(i for imported, files in bound for f in files for i in self.top(f, imported))
            if one is not None:
                return None if one is False else int(one)
        if self.wildcards:
            one = self._one(i for f in self.wildcards for i in self.top(f, name))
            if one is not None:
                return None if one is False else int(one)
        if self.doc.language == "go":
            one = self._one(i for f in self.peers() for i in self.top(f, name))
            if one is not None:
                return None if one is False else int(one)
        return None

    def enclosing_type(self, scope: int) -> int | None:
        symbols = self.doc.symbols
        while scope >= 0:
            symbol = symbols[scope]
            if symbol.kind in TYPE_KINDS:
                return self.draft.symbol_declarations[self.uri][scope]
            if symbol.kind == SymbolKind.METHOD and symbol.parent < 0:
                # A method defined outside its type (Go receivers, C++ ``T::m``): its owner by name.
                sep = separators(self.doc.language)[1]
                owner = symbol.qualified.rsplit(sep, 1)[0] if sep in symbol.qualified else None
                found = [i for i in self.draft.by_name.get(owner or "", ()) if self.draft.declarations[i].unit == unit_of(self.doc)]
                return found[0] if len(found) == 1 else None
            scope = symbol.parent
        return None

    def qualified(self, qualifier: str, name: str, scope: int) -> int | None:
        if qualifier in SELF_NAMES:
            owner = self.enclosing_type(scope)
            return self.member(owner, name) if owner is not None else None
        files = self.modules.get(qualifier)
        if files is not None:
            one = self._one(i for f in files for i in self.top(f, name))
            return int(one) if one is not None and one is not False else None
        head = qualifier.rsplit("::", 1)[-1].rsplit(".", 1)[-1].rsplit("\\", 1)[-1]
        if not head.isidentifier() or head != qualifier.lstrip(":\\"):
            return None  # An expression (``a.b().c``) or a longer path: its type is unknown here.
        target = self.name(head, scope)
        if target is None:
            return None
        decl = self.draft.declarations[target]
        if decl.kind not in TYPE_KINDS and decl.kind not in (SymbolKind.MODULE, SymbolKind.NAMESPACE):
            return None
        return self.member(target, name)

    def run(self) -> tuple[tuple[int | None, ...], set[str]]:
        results: list[int | None] = []
        symbols = self.doc.symbols
        for ref in self.doc.references:
            scope = ref.scope
            if ref.kind == RefKind.BASE and scope >= 0 and symbols[scope].start <= ref.start:
                scope = symbols[scope].parent  # A base is named outside the class it bases.
            if ref.qualifier:
                results.append(self.qualified(ref.qualifier, ref.name, scope))
            else:
                results.append(self.name(ref.name, scope))
        return tuple(results), self.deps
