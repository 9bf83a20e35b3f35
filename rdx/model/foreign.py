"""The resolved side of every language other than Ruby: declarations merged from the symbols of
their files, each file's imports resolved to files, each reference resolved to a declaration.

Plain data, published as a whole like Ruby's ``ResolvedState`` and never changed afterwards:
``rdx.languages.resolve`` builds one from the documents and carries it to the next revision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from rdx.model.records import FileResult

__all__ = ["ForeignDeclaration", "ForeignImage", "ForeignState", "family_of"]

# Languages whose files see each other's names (one family, one namespace of declarations).
_FAMILIES = {"javascript": "js", "typescript": "js", "c": "c", "cpp": "c"}


def family_of(language: str) -> str:
    return _FAMILIES.get(language, language)


class ForeignDeclaration(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One named entity of another language, merged from its definitions: a Go type whose
    methods live in several files, a C function declared in a header and defined in a source
    file, a Python class. ``unit`` scopes the name ("" when the language's names are global
    (Python modules, Java packages, C), else the file, Go package directory or Rust crate
    that holds it); ``definitions`` are (document URI, symbol index) pairs in URI order;
    ``owner`` is the enclosing declaration, if any."""

    id: int
    language: str
    name: str
    unqualified: str
    kind: str
    unit: str
    separator: str
    definitions: tuple[tuple[str, int], ...]
    owner: int | None = None


@dataclass(frozen=True)
class ForeignState:
    """Everything resolution computed for the non-Ruby documents of one revision."""

    # URI -> the document (foreign documents only).
    files: dict[str, FileResult] = field(default_factory=dict)
    declarations: dict[int, ForeignDeclaration] = field(default_factory=dict)
    # Qualified name -> ids (the same name may be declared in several units).
    by_name: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # URI -> declaration id of each symbol.
    symbol_declarations: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # URI -> per import, the URIs of the files it names (empty: outside the project or unknown).
    import_targets: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # URI -> per import, names that are modules of their own (Python ``from pkg import mod``).
    import_modules: dict[str, tuple[dict[str, str], ...]] = field(default_factory=dict)
    # URI -> per reference, the declaration it names (None: unresolved or ambiguous).
    reference_targets: dict[str, tuple[int | None, ...]] = field(default_factory=dict)
    # URI -> the files whose symbols resolving its references consulted (its dependencies).
    dependencies: dict[str, frozenset[str]] = field(default_factory=dict)


class ForeignImage(msgspec.Struct, array_like=True, gc=False):
    """A ``ForeignState`` as plain data for the cache (``.rdx/foreign.msgpack``), without the
    documents (the snapshot has them) and without the name table (rebuilt from the
    declarations). ``fingerprint`` names the documents and the layout it was computed from; it is
    only ever restored onto exactly those."""

    fingerprint: str
    declarations: list[ForeignDeclaration]
    symbol_declarations: dict[str, tuple[int, ...]]
    import_targets: dict[str, tuple[tuple[str, ...], ...]]
    import_modules: dict[str, tuple[dict[str, str], ...]]
    reference_targets: dict[str, tuple[int | None, ...]]
    dependencies: dict[str, list[str]]

    @classmethod
    def of(cls, state: ForeignState, fingerprint: str) -> ForeignImage:
        return cls(
            fingerprint, list(state.declarations.values()), state.symbol_declarations, state.import_targets, state.import_modules,
            state.reference_targets, {uri: sorted(deps) for uri, deps in state.dependencies.items()},
        )

    def state(self, files: dict[str, FileResult]) -> ForeignState:
        by_name: dict[str, list[int]] = {}
        for decl in self.declarations:
            by_name.setdefault(decl.name, []).append(decl.id)
        return ForeignState(
            files, {d.id: d for d in self.declarations}, {name: tuple(sorted(ids)) for name, ids in by_name.items()},
            self.symbol_declarations, self.import_targets, self.import_modules, self.reference_targets,
            {uri: frozenset(deps) for uri, deps in self.dependencies.items()},
        )
