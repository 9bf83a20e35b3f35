"""What the extractors of other languages yield (``rdx.languages``): one shared vocabulary of
symbol kinds, a ``Symbol`` record per definition (nested as written), the ``Reference``s a file
makes and its ``Import``s. Plain data: discovery emits it, the snapshot keeps it."""

from __future__ import annotations

from enum import StrEnum

import msgspec

__all__ = ["Import", "RefKind", "Reference", "Symbol", "SymbolKind"]


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


class RefKind(StrEnum):
    CALL = "call"
    TYPE = "type"
    BASE = "base"
    IMPORT = "import"


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


class Reference(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A name used in a file: a call (``foo()``, ``obj.foo()``, ``pkg.Foo()``), a type named in a
    signature or annotation, or a base (``extends``, ``implements``, a Python base class).
    ``name`` is the name itself; ``qualifier`` what was written before it (``obj``, ``pkg``,
    ``os.path``, ``Foo::``), if anything. Offsets are bytes of the name; ``scope`` indexes the
    innermost enclosing symbol (-1: top level)."""

    kind: str
    name: str
    line: int
    column: int
    start: int
    end: int
    qualifier: str | None = None
    scope: int = -1


class Import(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One import, include or ``use`` as written.

    ``module`` is the path of what is imported in the language's own spelling (``os.path``,
    ``..parser`` for a relative Python import, ``./util`` or ``lodash`` for JavaScript,
    ``net/http`` for Go, ``crate::a::b`` or ``super::x`` for Rust, ``foo/bar.h`` for C).
    ``names`` are the (imported name, local name) pairs it binds (``from m import a as b`` ->
    ``("a", "b")``; ``"*"`` for a wildcard); ``alias`` is the local name bound to the module
    itself (``import numpy as np`` -> ``np``, ``import * as ns``, a Go package's name), if any.
    ``system`` marks a C ``#include <...>``."""

    module: str
    line: int
    column: int
    start: int
    end: int
    names: list[tuple[str, str]] = []
    alias: str | None = None
    system: bool = False
