"""Stable 64-bit identifiers for every entity in the graph.

This module owns the one hashing function rdx uses for ids. Ids must be identical in every
process and on every run, so Python's salted ``hash()`` is never used here; ids are the first
eight bytes of a BLAKE2b digest of a kind tag plus canonical bytes, read as an unsigned integer.
It imports nothing from rdx.
"""

from __future__ import annotations

from functools import lru_cache
from hashlib import blake2b

__all__ = [
    "declaration_id",
    "definition_id",
    "definition_prefix",
    "name_id",
    "reference_id",
    "stable_id",
    "string_id",
    "foreign_declaration_id",
    "uri_id",
]


def stable_id(tag: str, *parts: str | int) -> int:
    """Return an unsigned 64-bit id for ``tag`` and ``parts``.

    Parts are joined with a separator byte that cannot occur in UTF-8 text, so ``("ab", "c")``
    and ``("a", "bc")`` never collide by construction.
    """
    h = blake2b(tag.encode(), digest_size=8)
    for part in parts:
        h.update(b"\xff")
        h.update(str(part).encode("utf-8", "surrogatepass"))
    return int.from_bytes(h.digest(), "little")


def _fast(prefix: bytes, text: str) -> int:
    # Same digest as ``stable_id(tag, text)``: incremental updates hash the concatenation.
    return int.from_bytes(blake2b(prefix + text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def uri_id(uri: str) -> int:
    return _fast(b"uri\xff", uri)


@lru_cache(maxsize=256)
def definition_prefix(uri: str) -> bytes:
    """What every definition id of document ``uri`` hashes first (the native walk hashes the
    same bytes: ``rdx/native/walk.c``)."""
    return b"def\xff" + uri.encode("utf-8", "surrogatepass") + b"\xff"


def definition_id(uri: str, offset: int, name: str) -> int:
    # Same digest as ``stable_id("def", uri, offset, name)``, in one update of the concatenation
    # (a discovery makes one per definition: about 4% of its time hashed part by part).
    data = definition_prefix(uri) + b"%d\xff" % offset + name.encode("utf-8", "surrogatepass")
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little")


@lru_cache(maxsize=1 << 20)
def declaration_id(fully_qualified_name: str) -> int:
    # Cached: every resolve() declares the same names again, and hashing dominates its cost.
    return _fast(b"decl\xff", fully_qualified_name)


def foreign_declaration_id(family: str, unit: str, qualified: str) -> int:
    """A declaration of another language than Ruby: its language family (JavaScript and
    TypeScript share one, as do C and C++), the unit that scopes its names ("" when names are
    global, else a file, package directory or crate) and its qualified name."""
    return stable_id("foreign", family, unit, qualified)


def name_id(unqualified: str, parent_scope: int, nesting: int) -> int:
    """A NameId: the unqualified name plus the ids of its parent scope and lexical nesting (0 for none)."""
    return stable_id("name", unqualified, parent_scope, nesting)


def string_id(text: str) -> int:
    return stable_id("str", text)


def reference_id(uri: str, offset: int, name: str) -> int:
    return stable_id("ref", uri, offset, name)
