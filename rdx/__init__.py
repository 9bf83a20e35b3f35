"""rdx: a semantic code graph for Ruby.

The public API lives here; everything else is private to the package. See README.md.
"""

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
from rdx.search.grep import GrepHit, GrepPage
from rdx.search.ranked import CollectionStatistics, scoring_with
from rdx.search.textsearch import TextSearch

__version__ = "0.1.0"

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
    "excerpt",
    "follow_changes",
    "ranked_statistics",
    "ruby_of_template",
    "scoring_with",
    "seed_snapshot",
]
