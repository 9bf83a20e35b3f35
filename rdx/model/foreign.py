"""The resolved side of every language other than Ruby: declarations merged from the symbols of
their files, each file's imports resolved to files, each reference resolved to a declaration.

Plain data, published as a whole like Ruby's ``ResolvedState`` and never changed afterwards:
``rdx.polyglot.resolve`` builds one from the documents and carries it to the next revision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from rdx.model.records import FileResult

__all__ = ["ForeignDeclaration", "ForeignState", "family_of"]

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
