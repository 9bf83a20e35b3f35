"""What the extractors of other languages yield: one shared vocabulary of symbol kinds and a
``Symbol`` record per definition, nested as written."""

from __future__ import annotations

from enum import StrEnum

import msgspec

__all__ = ["Symbol", "SymbolKind"]


class SymbolKind(StrEnum):
    MODULE = "module"
    NAMESPACE = "namespace"
    CLASS = "class"
    STRUCT = "struct"
    INTERFACE = "interface"
    TRAIT = "trait"
    ENUM = "enum"
    FUNCTION = "function"
    METHOD = "method"
    CONSTANT = "constant"
    FIELD = "field"
    TYPE_ALIAS = "type"
    SECTION = "section"


class Symbol(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One definition. Offsets are bytes; ``line`` is 1-based and ``column`` the 0-based byte
    column of the name; ``parent`` indexes the enclosing symbol (-1: top level);
    ``qualified`` follows the language's convention (``pkg.mod.Class.method``,
    ``Type.Method`` in Go, ``mod::Type::method`` in Rust)."""

    name: str
    kind: str
    qualified: str
    line: int
    column: int
    start: int
    end: int
    name_start: int
    name_end: int
    parent: int = -1
    signature: str | None = None
    doc: str | None = None
