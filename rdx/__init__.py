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
)
from rdx.graph import Graph
from rdx.query.navigation import Completion, Hover, Reference, Target
from rdx.query.handles import (
    ConstantReference,
    Declaration,
    Definition,
    Diagnostic,
    Document,
    Location,
    MethodReference,
    Mixin,
)

__version__ = "0.1.0"

__all__ = [
    "Graph",
    "Declaration",
    "Definition",
    "Document",
    "Location",
    "Mixin",
    "ConstantReference",
    "MethodReference",
    "Diagnostic",
    "Reference",
    "Target",
    "Hover",
    "Completion",
    "ErrorCode",
    "RdxError",
    "InvalidArgumentError",
    "NotFoundError",
    "InvalidHandleError",
    "IOFailureError",
    "EncodingFailureError",
    "NotResolvedError",
    "InternalError",
    "__version__",
]
