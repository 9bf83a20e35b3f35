"""The MCP tools' output models (each becomes a tool's ``outputSchema``), shared parameter
types, and paging. Schemas are compacted: every client reads them into a model's context."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

import rdx


def compact_schema(schema: dict[str, Any], output: bool = True) -> None:
    """Shrink generated schemas, which every client reads into a model's context: drop
    pydantic's titles (they repeat the property names), write ``X | None`` as a type list, drop
    null defaults, and in output schemas every default (outputs always carry their values).
    Length limits of strings and lists are checked but not listed: they are far above any
    real argument, and a rejected call's error names the limit."""
    stack = [schema]
    while stack:
        node = stack.pop()
        node.pop("title", None)
        if not output:
            for part in [node, *node.get("anyOf", ())]:
                part.pop("maxLength", None)
                part.pop("maxItems", None)
        if output or ("default" in node and node["default"] is None):
            # A null default says nothing that leaving the parameter out of ``required`` does not.
            node.pop("default", None)
        any_of = node.get("anyOf")
        if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
            other = next(x for x in any_of if x != {"type": "null"})
            if set(other) == {"type"} and isinstance(other["type"], str):
                del node["anyOf"]
                node["type"] = [other["type"], "null"]
            elif set(other) <= {"type", "minimum", "maximum", "items"} and isinstance(other["type"], str):
                del node["anyOf"]
                node.update(other)
                node["type"] = [other["type"], "null"]
        for key in ("properties", "$defs"):
            stack.extend(v for v in node.get(key, {}).values() if isinstance(v, dict))
        items = node.get("items")
        if isinstance(items, dict):
            stack.append(items)


class _Out(BaseModel):
    model_config = ConfigDict(json_schema_extra=compact_schema)


class Item(_Out):
    name: str
    kind: str
    location: str | None = None
    # Set for declarations of other languages than Ruby (python, typescript, go, ...).
    language: str | None = None


class _PageMeta(_Out):
    """Paging fields shared by every list result."""

    total: int
    offset: int
    limit: int
    next_offset: int | None
    limit_clamped: bool = False
    truncated: bool = False
    # The graph revision the answer comes from; a larger one later means it may be stale.
    revision: int = 0


class Page(_PageMeta):
    """One page of a list: ``items`` ordered as documented by the tool."""

    items: list[Item]


class Targets(Page):
    # definition_at's answer: ``certain`` is false for a guess by name (a call whose receiver's
    # type is unknown), whose items are the methods of that name. (Comments, not a docstring:
    # a docstring would be sent with the schema.)
    certain: bool = True


class RefItem(_Out):
    at: str = Field(description="L:C-L:C")
    name: str
    certain: bool = True
    receiver: str | None = None


class RefFile(_Out):
    path: str
    refs: list[RefItem]


class RefPage(_PageMeta):
    """References grouped by file, in path order."""

    files: list[RefFile]


class FlatRef(BaseModel):
    path: str
    ref: RefItem


class DefinitionOut(_Out):
    kind: str
    location: str | None
    comments: list[str] = []
    signature: str | None = None


class DeclarationOut(_Out):
    name: str
    kind: str
    language: str | None = None
    # "dependency" (only the project's gems define it) or "core"; unset for the project's own.
    origin: str | None = None
    owner: str | None = None
    visibility: str | None = None
    definitions: list[DefinitionOut]
    ancestors: list[str] = []
    members: list[Item] = []
    truncated: bool = False
    revision: int = 0


class HoverOut(DeclarationOut):
    # hover_at's answer: ``certain`` is false for a guess by name (a call whose receiver's type
    # is unknown), as definition_at's; several methods of that name are listed in ``candidates``.
    certain: bool = True
    candidates: list[str] | None = None


class MapOut(_Out):
    """The repository map: ``text`` in the compact format its first line explains."""

    text: str
    tokens: int = Field(description="cl100k_base tokens of text")
    declarations: int
    files: int
    detail: str
    unmatched: list[str] = []
    revision: int = 0


class CodeLine(_Out):
    line: int
    column: int  # 0-based byte offset of the first match
    text: str
    before: list[str] | None = None  # Context lines, when asked for.
    after: list[str] | None = None


class CodeFile(_Out):
    path: str
    language: str
    lines: list[CodeLine]


class CodePage(_PageMeta):
    # Matching lines grouped by file, in path order; ``total`` and ``next_offset`` count lines.
    matched_files: int
    files: list[CodeFile]
    # False when the search ran out of time: the counts then cover only the files searched.
    complete: bool = True


class Stats(_Out):
    revision: int
    documents: int
    bytes: int
    definitions: int
    declarations: int
    declarations_by_kind: dict[str, int]
    constant_references: int
    constant_references_resolved: int | None = None
    method_references: int
    diagnostics: int
    text_files: int | None = None
    text_bytes: int | None = None


class Status(_Out):
    state: str
    revision: int | None = None
    files: int | None = None
    indexed_files: int = 0
    total_files: int = 0
    pending_changes: int = 0
    last_indexed: float | None = None


# Parameter types shared by the tools (module level: the SDK evaluates annotations by name).
Offset = Annotated[int, Field(ge=0, description="index of the first item")]
MaxTokens = Annotated[int | None, Field(ge=1, description="cut the answer to about this many tokens")]

# Sizes of string arguments. Validation rejects a longer one before a tool runs, so a huge
# argument costs no work and is never quoted back (pydantic's message names only the limit).
MAX_NAME_CHARS = 1024  # A declaration or constant name, a search query, a filter.
MAX_PATH_CHARS = 4096  # A file path (PATH_MAX on Linux).
MAX_PATTERN_CHARS = 4096  # A grep pattern; rdx also caps it at 4096 UTF-8 bytes.
MAX_LIST_ITEMS = 64  # Globs, nesting, focus entries.
Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
Filter = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
FilePath = Annotated[str, Field(max_length=MAX_PATH_CHARS)]


def envelope_tokens(total: int, offset: int, limit: int) -> int:
    """Tokens of a page's JSON besides its list, at their longest (every paging field, the
    revision, the list's key): ``max_tokens`` bounds the whole answer, which is what a model reads."""
    fields = {"total": total, "offset": offset, "limit": limit, "next_offset": total, "limit_clamped": False, "truncated": True}
    return rdx.count_tokens(json.dumps({**fields, "revision": 2**31, "matched_files": total, "items": []}, separators=(",", ":")))


def fit_tokens(chunk: list[Any], max_tokens: int | None, envelope: int = 0) -> tuple[list[Any], bool]:
    """The longest leading part of ``chunk`` (output models) whose JSON, with ``envelope`` more
    tokens, is within ``max_tokens`` tokens (cl100k_base, ``rdx.count_tokens``), and whether items
    were dropped. Measured as the server sends it: compact, without nulls."""
    if max_tokens is None or not chunk:
        return chunk, False
    dumps = [c.model_dump(exclude_none=True) for c in chunk]

    def fits(k: int) -> bool:
        return envelope + rdx.count_tokens(json.dumps(dumps[:k], separators=(",", ":"), ensure_ascii=False)) <= max_tokens

    if fits(len(chunk)):
        return chunk, False
    # The JSON of a prefix grows with its length: search for the longest prefix that fits.
    low, high = 0, len(chunk) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return chunk[:low], True


def whole(items: list[Item], revision: int, max_tokens: int | None = None) -> Page:
    """A list returned in one piece (ancestors, a file's declarations, definition targets),
    cut to about ``max_tokens`` (then ``truncated``; ``total`` still counts every item)."""
    shown, truncated = fit_tokens(items, max_tokens, envelope_tokens(len(items), 0, len(items)) if max_tokens is not None else 0)
    return Page(total=len(items), offset=0, limit=len(items), next_offset=None, truncated=truncated, items=shown, revision=revision)


def page_of(
    items: list[Any], offset: int, limit: int, maximum: int, max_tokens: int | None, build: Any = None
) -> tuple[list[Any], dict[str, Any]]:
    """One page of ``items`` and its paging fields; ``build`` turns the page's raw items into
    output models (only those: building all of a long list would cost more than the query)."""
    clamped = limit > maximum
    limit = min(limit, maximum)
    chunk = items[offset : offset + limit]
    if build is not None:
        chunk = [build(x) for x in chunk]
    # Items dropped from the end so that the page fits; ``next_offset`` then points at them.
    # The envelope is measured only when there is a budget (a tokenizer call per page otherwise).
    chunk, truncated = fit_tokens(chunk, max_tokens, envelope_tokens(len(items), offset, limit) if max_tokens is not None else 0)
    end = offset + len(chunk)
    meta = {
        "total": len(items),
        "offset": offset,
        "limit": limit,
        "next_offset": end if end < len(items) else None,
        "limit_clamped": clamped,
        "truncated": truncated,
    }
    return chunk, meta
