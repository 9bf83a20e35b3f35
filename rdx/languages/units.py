"""What the other languages' resolution shares (``rdx.languages.resolve`` and
``rdx.languages.binding``): the unit that scopes a file's names, separators, and the limits of
reference resolution."""

from __future__ import annotations

import os
from functools import cache

from rdx.languages.registry import spec_for
from rdx.model.records import FileResult
from rdx.model.symbols import SymbolKind

__all__ = ["IMPLICIT_THIS", "MAX_BASE_DEPTH", "MAX_INCLUDES", "member_separator", "SELF_NAMES", "separators", "TYPE_KINDS", "unit_of"]

SELF_NAMES = frozenset({"self", "this", "cls", "Self", "$this", "static", "@"})
TYPE_KINDS = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM})
# Languages whose unit is the file itself, the file's directory (a package), the crate.
_FILE_UNITS = frozenset({"javascript", "typescript", "markdown"})
MAX_INCLUDES = 256
MAX_BASE_DEPTH = 8
# Languages where a method's body sees its type's members without a qualifier (implicit this).
IMPLICIT_THIS = frozenset({"java", "csharp", "cpp", "c"})


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
def separators(language: str) -> tuple[str, str]:
    spec = spec_for("tsx" if language == "tsx" else language)
    if spec is None:
        return ".", "."
    return spec.separator, spec.member_separator or spec.separator


def member_separator(language: str) -> str:
    return separators(language)[1]
