"""rdx: a semantic code graph for Ruby.

The public API lives here; everything else is private to the package. See README.md.
"""

from rdx.errors import (
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
from rdx.fulltext.grep import GrepHit, GrepPage
from rdx.graph import Graph
from rdx.query.documents import ConstantReference, Document, MethodReference
from rdx.query.handles import Declaration, Definition
from rdx.query.navigation import Completion, Hover, Reference, Target
from rdx.query.records import (
    DeclarationSummary,
    DefinitionSummary,
    Diagnostic,
    Location,
    MemberSummary,
    Mixin,
)
from rdx.query.repomap import RepoMap, count_tokens
from rdx.textsearch import TextSearch
from rdx.watching import follow_changes

__version__ = "0.1.0"

__all__ = [
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
    "__version__",
    "count_tokens",
    "excerpt",
    "follow_changes",
]
