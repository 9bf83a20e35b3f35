"""The one error table of rdx.

``ErrorCode`` values are shared by the Python exceptions below, the C status codes in
``bindings/rdx.h``, MCP error results and the Ruby wrapper's exception classes. Exceptions are
for misuse (bad arguments, unknown names, unreadable roots); broken Ruby code is never an
exception but a diagnostic. This module imports nothing from rdx.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "EncodingFailureError",
    "ErrorCode",
    "IOFailureError",
    "InternalError",
    "InvalidArgumentError",
    "InvalidHandleError",
    "NotFoundError",
    "NotResolvedError",
    "RdxError",
    "error_for_code",
    "excerpt",
]

# How much of a value an error message quotes: enough to recognize it, never the whole of a
# megabyte-long argument (a reply or a log line must not grow with the bad input).
EXCERPT_CHARS = 80


class ErrorCode(IntEnum):
    """Status codes; ``OK`` is zero and every error is negative, as in the C ABI."""

    OK = 0
    INVALID_ARGUMENT = -1
    NOT_FOUND = -2
    INVALID_HANDLE = -3
    IO = -4
    ENCODING = -5
    NOT_RESOLVED = -6
    INTERNAL = -99


class RdxError(Exception):
    """Base of every error rdx raises on purpose."""

    code: ErrorCode = ErrorCode.INTERNAL


class InvalidArgumentError(RdxError, ValueError):
    """Raised by any API entry point given an argument of the wrong type or shape."""

    code = ErrorCode.INVALID_ARGUMENT


class NotFoundError(RdxError, KeyError):
    """Raised by ``Graph.__getitem__`` and lookups when a name has no declaration."""

    code = ErrorCode.NOT_FOUND

    def __str__(self) -> str:  # KeyError quotes its argument; keep the sentence readable.
        return str(self.args[0]) if self.args else ""


class InvalidHandleError(RdxError):
    """Raised by the bindings when a handle is unknown, freed or belongs to another graph."""

    code = ErrorCode.INVALID_HANDLE


class IOFailureError(RdxError, OSError):
    """Raised when an index root itself cannot be read (per-file problems are diagnostics)."""

    code = ErrorCode.IO


class EncodingFailureError(RdxError, UnicodeError):
    """Raised when text passed to the API is not valid UTF-8."""

    code = ErrorCode.ENCODING


class NotResolvedError(RdxError):
    """Raised by queries that need ``Graph.resolve()`` to have run after the last change."""

    code = ErrorCode.NOT_RESOLVED


class InternalError(RdxError):
    """A bug in rdx; the message says what invariant broke."""

    code = ErrorCode.INTERNAL


_BY_CODE: dict[ErrorCode, type[RdxError]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        InvalidHandleError,
        IOFailureError,
        EncodingFailureError,
        NotResolvedError,
        InternalError,
    )
}


def error_for_code(code: ErrorCode) -> type[RdxError]:
    """The exception class that carries ``code``."""
    return _BY_CODE[code]


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``value`` quoted for an error message: its ``repr`` when short, else the repr of its
    first ``limit`` characters followed by ``… (N bytes)`` (N counts UTF-8 bytes of a string,
    the length of anything else), so a message stays short whatever it quotes."""
    if isinstance(value, (str, bytes)) and len(value) > limit:
        size = len(value.encode("utf-8", "surrogateescape")) if isinstance(value, str) else len(value)
        return f"{value[:limit]!r}… ({size} bytes)"
    text = repr(value)
    return text if len(text) <= limit + 2 else f"{text[:limit]}… ({len(text)} chars)"
