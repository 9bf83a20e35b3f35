"""Resolution for every language other than Ruby: declarations, imports, references.

``build`` turns the foreign documents into a ``ForeignState``; ``advance`` carries a state to
the next revision after some documents changed. Both run the same per-file steps, so an
incremental answer is the answer a full build would give:

- Declarations: the symbols of every file, merged by (language family, unit, qualified name).
  The unit scopes a name where the language has no global one (a JavaScript file, a Go package
  directory, a Rust crate); ids are stable hashes of the key, so a file's symbols get their
  declaration ids without looking at any other file.
- Imports: each import resolved to files of the project by ``ImportResolver`` (pure: the
  layout it needs, go.mod module paths, tsconfig paths, include directories, was read during
  discovery).
- References: a name resolves through the enclosing definitions, the file's own top level,
  the names its imports bind (then wildcard imports and C includes), then the other files of
  its unit (a Go package); a qualified name (``mod.f``, ``self.f``, ``Type::f``) through the
  module or type its qualifier names. When one step finds two different declarations the
  reference stays unresolved (ambiguous): nothing is guessed. Each file records the files it
  consulted; a change to any of them resolves its references again.

No I/O here, and nothing of Ruby.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from rdx.ids import foreign_declaration_id
from rdx.model.foreign import ForeignDeclaration, ForeignState, family_of
from rdx.model.records import FileResult
from rdx.model.symbols import Reference, RefKind, Symbol, SymbolKind
from rdx.polyglot.importing import ImportResolver
from rdx.polyglot.layout import Layout
from rdx.polyglot.registry import spec_for

__all__ = ["advance", "build", "member_separator", "unit_of"]

# Qualifiers that name the enclosing type (or its instance).
_SELF = frozenset({"self", "this", "cls", "Self", "$this", "static", "@"})
_TYPES = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM})
# Languages whose unit is the file itself, the file's directory (a package), the crate.
_FILE_UNITS = frozenset({"javascript", "typescript", "markdown"})
_MAX_INCLUDES = 256
_MAX_BASE_DEPTH = 8
# Languages where a method's body sees its type's members without a qualifier (implicit this).
_IMPLICIT_THIS = frozenset({"java", "csharp", "cpp", "c"})


def unit_of(doc: FileResult) -> str:
    """What scopes the names of ``doc`` (see ``ForeignDeclaration.unit``)."""
    path = doc.path or doc.uri
    language = doc.language
    if language in _FILE_UNITS:
        return path
    if language == "go":
        return os.path.dirname(path)
    if language == "rust":
        marker = path.rfind(f"{os.sep}src{os.sep}")
        return path[:marker] if marker >= 0 else os.path.dirname(path)
    if language == "python" and doc.module is not None and "." not in doc.module and not path.endswith("__init__.py"):
        # A script or a single-module library: two ``setup.py`` files are not one module.
        return os.path.dirname(path)
    return ""


@cache
def _separators(language: str) -> tuple[str, str]:
    spec = spec_for("tsx" if language == "tsx" else language)
    if spec is None:
        return ".", "."
    return spec.separator, spec.member_separator or spec.separator


def member_separator(language: str) -> str:
    return _separators(language)[1]


def _key_id(doc: FileResult, unit: str, symbol: Symbol) -> int:
    return foreign_declaration_id(family_of(doc.language), unit, symbol.qualified)


@dataclass
class _Draft:
    """A state under construction: plain dicts, copied from the previous state once."""

    files: dict[str, FileResult]
    declarations: dict[int, ForeignDeclaration]
    by_name: dict[str, tuple[int, ...]]
    symbol_declarations: dict[str, tuple[int, ...]]
    import_targets: dict[str, tuple[tuple[str, ...], ...]]
    import_modules: dict[str, tuple[dict[str, str], ...]]
    reference_targets: dict[str, tuple[int | None, ...]]
    dependencies: dict[str, frozenset[str]]
    # (family, unit) -> URIs, for peers (Go packages); built on demand.
    units: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, state: ForeignState) -> _Draft:
        return cls(
            dict(state.files),
            dict(state.declarations),
            dict(state.by_name),
            dict(state.symbol_declarations),
            dict(state.import_targets),
            dict(state.import_modules),
            dict(state.reference_targets),
            dict(state.dependencies),
        )

    def publish(self) -> ForeignState:
        return ForeignState(
            self.files,
            self.declarations,
            self.by_name,
            self.symbol_declarations,
            self.import_targets,
            self.import_modules,
            self.reference_targets,
            self.dependencies,
        )


def build(documents: Iterable[FileResult], layout: Layout) -> ForeignState:
    files = {d.uri: d for d in documents if d.language != "ruby"}
    draft = _Draft(files, {}, {}, {}, {}, {}, {}, {})
    _declare(draft, files, {})
    _resolve_imports(draft, list(files), layout)
    _resolve_references(draft, list(files))
    return draft.publish()


def advance(state: ForeignState, documents: Mapping[str, FileResult], changed: Iterable[str], layout: Layout) -> ForeignState:
    """The state after the documents at ``changed`` URIs were replaced, added or removed
    (``documents`` holds every current document; a changed URI missing from it was removed)."""
    changed = {uri for uri in changed if uri in state.files or (uri in documents and documents[uri].language != "ruby")}
    if not changed:
        return state
    draft = _Draft.of(state)
    old = {uri: state.files[uri] for uri in changed if uri in state.files}
    new = {uri: documents[uri] for uri in changed if uri in documents}
    for uri in old:
        del draft.files[uri]
        draft.symbol_declarations.pop(uri, None)
        draft.import_targets.pop(uri, None)
        draft.import_modules.pop(uri, None)
        draft.reference_targets.pop(uri, None)
        draft.dependencies.pop(uri, None)
    draft.files.update(new)
    _declare(draft, new, old)
    added_or_removed = set(old) ^ set(new)
    if added_or_removed:
        # Another file may now be (or no longer be) what an import names: resolve them all
        # again, and the references of files whose imports now name other files.
        before = state.import_targets
        _resolve_imports(draft, list(draft.files), layout)
        moved = {uri for uri, targets in draft.import_targets.items() if before.get(uri) != targets}
    else:
        _resolve_imports(draft, list(new), layout)
        moved = set()
    again = set(new) | moved
    again |= {uri for uri, deps in draft.dependencies.items() if not deps.isdisjoint(changed)}
    if added_or_removed:
        # A file added to a unit (a Go package) is a new peer of every file in it.
        touched = {(family_of(d.language), unit_of(d)) for d in list(old.values()) + list(new.values())}
        again |= {uri for uri, d in draft.files.items() if (family_of(d.language), unit_of(d)) in touched}
    _resolve_references(draft, sorted(uri for uri in again if uri in draft.files))
    return draft.publish()


def _declare(draft: _Draft, new: Mapping[str, FileResult], old: Mapping[str, FileResult]) -> None:
    """Merge the symbols of ``new`` documents into declarations, after taking those of the
    ``old`` versions out; only the declarations these documents contribute to are rebuilt."""
    contributions: dict[int, list[tuple[str, int]]] = {}
    touched: set[int] = set()
    for doc in old.values():
        unit = unit_of(doc)
        for symbol in doc.symbols:
            touched.add(_key_id(doc, unit, symbol))
    for decl_id in touched:
        decl = draft.declarations.get(decl_id)
        if decl is not None:
            contributions[decl_id] = [d for d in decl.definitions if d[0] not in old and d[0] not in new]
    for uri, doc in new.items():
        unit = unit_of(doc)
        ids = []
        for index, symbol in enumerate(doc.symbols):
            decl_id = _key_id(doc, unit, symbol)
            ids.append(decl_id)
            if decl_id not in contributions:
                decl = draft.declarations.get(decl_id)
                contributions[decl_id] = [d for d in decl.definitions if d[0] not in old and d[0] not in new] if decl is not None else []
            contributions[decl_id].append((uri, index))
        draft.symbol_declarations[uri] = tuple(ids)
    for decl_id, definitions in contributions.items():
        previous = draft.declarations.pop(decl_id, None)
        if previous is not None:
            _unname(draft, previous)
        if not definitions:
            continue
        definitions.sort()
        first_uri, first_index = definitions[0]
        doc = draft.files[first_uri]
        symbol = doc.symbols[first_index]
        unit = unit_of(doc)
        separator = _separators(doc.language)[0]
        decl = ForeignDeclaration(decl_id, doc.language, symbol.qualified, symbol.name, symbol.kind, unit, separator, tuple(definitions))
        draft.declarations[decl_id] = decl
        draft.by_name[decl.name] = tuple(sorted({*draft.by_name.get(decl.name, ()), decl_id}))


def _unname(draft: _Draft, decl: ForeignDeclaration) -> None:
    remaining = tuple(i for i in draft.by_name.get(decl.name, ()) if i != decl.id)
    if remaining:
        draft.by_name[decl.name] = remaining
    else:
        draft.by_name.pop(decl.name, None)


def _resolve_imports(draft: _Draft, uris: list[str], layout: Layout) -> None:
    paths = {d.path: uri for uri, d in draft.files.items() if d.path}
    resolver = ImportResolver(paths, layout)
    for uri in uris:
        doc = draft.files[uri]
        if not doc.imports or doc.path is None:
            draft.import_targets[uri] = ()
            draft.import_modules[uri] = ()
            continue
        language = "tsx" if doc.path.endswith(".tsx") else doc.language
        targets = []
        modules = []
        for imp in doc.imports:
            found = resolver.resolve(language, doc.path, imp)
            targets.append(tuple(paths[p] for p in found.files if p in paths))
            modules.append({name: paths[p] for name, p in found.names.items() if p in paths})
        draft.import_targets[uri] = tuple(targets)
        draft.import_modules[uri] = tuple(modules)


def _resolve_references(draft: _Draft, uris: list[str]) -> None:
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
        while queue and len(seen) < _MAX_INCLUDES:
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
        _, separator = _separators(decl.language)
        found = [i for i in self.draft.by_name.get(decl.name + separator + name, ()) if self.draft.declarations[i].unit == decl.unit]
        for i in found:
            self.deps.update(uri for uri, _ in self.draft.declarations[i].definitions)
        if len(found) == 1:
            return found[0]
        if found or depth >= _MAX_BASE_DEPTH:
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
        if decl is None or decl.kind not in _TYPES:
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
        implicit_this = self.doc.language in _IMPLICIT_THIS
        while scope >= 0:
            here = self.children(scope).get(name) if implicit_this or symbols[scope].kind not in _TYPES else None
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
            if symbol.kind in _TYPES:
                return self.draft.symbol_declarations[self.uri][scope]
            if symbol.kind == SymbolKind.METHOD and symbol.parent < 0:
                # A method defined outside its type (Go receivers, C++ ``T::m``): its owner by name.
                sep = _separators(self.doc.language)[1]
                owner = symbol.qualified.rsplit(sep, 1)[0] if sep in symbol.qualified else None
                found = [i for i in self.draft.by_name.get(owner or "", ()) if self.draft.declarations[i].unit == unit_of(self.doc)]
                return found[0] if len(found) == 1 else None
            scope = symbol.parent
        return None

    def qualified(self, qualifier: str, name: str, scope: int) -> int | None:
        if qualifier in _SELF:
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
        if decl.kind not in _TYPES and decl.kind not in (SymbolKind.MODULE, SymbolKind.NAMESPACE):
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
