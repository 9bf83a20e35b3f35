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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rdx.languages.binding import resolve_references
from rdx.languages.importing import ImportResolver
from rdx.languages.layout import Layout
from rdx.languages.units import separators, unit_of
from rdx.model.foreign import ForeignDeclaration, ForeignState, family_of
from rdx.model.ids import foreign_declaration_id
from rdx.model.records import FileResult
from rdx.model.symbols import Symbol

__all__ = ["advance", "build"]

# Qualifiers that name the enclosing type (or its instance).


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
    resolve_references(draft, list(files))
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
    resolve_references(draft, sorted(uri for uri in again if uri in draft.files))
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
        separator = separators(doc.language)[0]
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
