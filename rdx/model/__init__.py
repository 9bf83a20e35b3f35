"""Plain data of the graph, at the bottom of every dependency: what discovery emits per file and
what resolution builds from it, the plain records the public API returns (``public.py``), and
the foundations every layer shares: ids (``ids.py``), the one error table (``errors.py``) and
byte offset <-> line/column conversion (``text.py``).

Nothing here does I/O or parsing; it imports nothing from rdx outside ``rdx.model``.
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
