"""rdx: a semantic code graph for Ruby.

The public API lives here; everything else is private to the package. See README.md.

Each name is imported from its module the first time it is used (``rdx.Graph``, ``from rdx
import Graph``), not when ``rdx`` is imported: a process imports only what its command needs
(``rdx grep`` never loads the resolver; ``tests/test_lazy_imports.py``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rdx.api.batches import discover_batch, ranked_statistics, seed_snapshot
    from rdx.api.editing import Use
    from rdx.api.graph import Graph
    from rdx.api.watching import follow_changes
    from rdx.map.repomap import RepoMap, count_tokens
    from rdx.model.errors import (
        EncodingFailureError,
        ErrorCode,
        InternalError,
        InvalidArgumentError,
        InvalidHandleError,
        IOFailureError,
        NotFoundError,
        NotResolvedError,
        RdxError,
        excerpt,
    )
    from rdx.model.public import (
        DeclarationSummary,
        DefinitionSummary,
        Diagnostic,
        Location,
        MemberSummary,
        Mixin,
    )
    from rdx.ruby.discover.erb import ruby_of_template
    from rdx.ruby.query.documents import ConstantReference, Document, MethodReference
    from rdx.ruby.query.handles import Declaration, Definition
    from rdx.ruby.query.navigation import Completion, Hover, Reference, Target
    from rdx.search.grep import GrepHit, GrepPage, display_path
    from rdx.search.ranked import CollectionStatistics, scoring_with
    from rdx.search.textsearch import TextSearch

__version__ = "0.1.0"

# The module that defines each public name (tests/test_lazy_imports.py checks that this table
# and ``__all__`` agree, and that each name is there).
_MODULES = {
    "api.batches": ("discover_batch", "ranked_statistics", "seed_snapshot"),
    "api.editing": ("Use",),
    "api.graph": ("Graph",),
    "api.watching": ("follow_changes",),
    "map.repomap": ("RepoMap", "count_tokens"),
    "model.errors": (
        "EncodingFailureError", "ErrorCode", "InternalError", "InvalidArgumentError", "InvalidHandleError", "IOFailureError",
        "NotFoundError", "NotResolvedError", "RdxError", "excerpt",
    ),
    "model.public": ("DeclarationSummary", "DefinitionSummary", "Diagnostic", "Location", "MemberSummary", "Mixin"),
    "ruby.discover.erb": ("ruby_of_template",),
    "ruby.query.documents": ("ConstantReference", "Document", "MethodReference"),
    "ruby.query.handles": ("Declaration", "Definition"),
    "ruby.query.navigation": ("Completion", "Hover", "Reference", "Target"),
    "search.grep": ("GrepHit", "GrepPage", "display_path"),
    "search.ranked": ("CollectionStatistics", "scoring_with"),
    "search.textsearch": ("TextSearch",),
}
_HOME = {name: f"rdx.{module}" for module, names in _MODULES.items() for name in names}

__all__ = [
    "CollectionStatistics",
    "Completion",
    "ConstantReference",
    "Declaration",
    "DeclarationSummary",
    "Definition",
    "DefinitionSummary",
    "Diagnostic",
    "Document",
    "EncodingFailureError",
    "ErrorCode",
    "Graph",
    "GrepHit",
    "GrepPage",
    "Hover",
    "IOFailureError",
    "InternalError",
    "InvalidArgumentError",
    "InvalidHandleError",
    "Location",
    "MemberSummary",
    "MethodReference",
    "Mixin",
    "NotFoundError",
    "NotResolvedError",
    "RdxError",
    "Reference",
    "RepoMap",
    "Target",
    "TextSearch",
    "Use",
    "__version__",
    "count_tokens",
    "discover_batch",
    "display_path",
    "excerpt",
    "follow_changes",
    "ranked_statistics",
    "ruby_of_template",
    "scoring_with",
    "seed_snapshot",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module at its first use and kept in the package's
    namespace, so that later uses are plain attribute lookups."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'rdx' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
