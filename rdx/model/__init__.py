"""Plain data of the graph: what discovery emits per file and what resolution builds from it.

Nothing here does I/O or parsing; it imports only ``rdx.ids``, ``rdx.errors`` and ``rdx.text``.
"""

from rdx.model.records import (
    ConstPath,
    ConstRef,
    Diagnostic,
    DefinitionRecord,
    FileResult,
    MethodRef,
    Mixin,
    Require,
    DEFINITION_KINDS,
    NAMESPACE_KINDS,
)
from rdx.model.declarations import DeclarationRecord, DECLARATION_KINDS

__all__ = [
    "ConstPath",
    "ConstRef",
    "Diagnostic",
    "DefinitionRecord",
    "FileResult",
    "MethodRef",
    "Mixin",
    "Require",
    "DEFINITION_KINDS",
    "NAMESPACE_KINDS",
    "DeclarationRecord",
    "DECLARATION_KINDS",
]
from rdx.model.store import CORE_URI, GraphStore, ResolvedState  # noqa: E402

__all__ += ["CORE_URI", "GraphStore", "ResolvedState"]
