"""Plain data of the graph: what discovery emits per file and what resolution builds from it.

Nothing here does I/O or parsing; it imports only ``rdx.ids``, ``rdx.errors`` and ``rdx.text``.
"""

from rdx.model.declarations import DECLARATION_KINDS, DeclarationRecord
from rdx.model.records import (
    DEFINITION_KINDS,
    NAMESPACE_KINDS,
    ConstPath,
    ConstRef,
    DefinitionRecord,
    Diagnostic,
    FileResult,
    MethodRef,
    Mixin,
    Require,
)

__all__ = [
    "DECLARATION_KINDS",
    "DEFINITION_KINDS",
    "NAMESPACE_KINDS",
    "ConstPath",
    "ConstRef",
    "DeclarationRecord",
    "DefinitionRecord",
    "Diagnostic",
    "FileResult",
    "MethodRef",
    "Mixin",
    "Require",
]
from rdx.model.store import CORE_URI, GraphStore, ResolvedImage, ResolvedState

__all__ += ["CORE_URI", "GraphStore", "ResolvedImage", "ResolvedState"]
