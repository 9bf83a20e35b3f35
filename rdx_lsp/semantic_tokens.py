"""``textDocument/semanticTokens/full``, ``/full/delta`` and ``/range``: what each name of a
document is, as rdx resolved it, for editors to colour beyond what a grammar can tell.

Two sources, merged: rdx's uses of the document (``Graph.uses_in``: definitions, each segment
of a constant path, calls; every language rdx parses) and, for Ruby, the buffer's syntax tree
(``syntax.py``: parameters, locals, instance/class/global variables, symbols, which the index
does not keep). Where both mark the same text the resolved answer wins. The legend (also in
docs/editors.md) uses only LSP's standard types and modifiers, so every client's theme knows
them:

- a class (or what a constant aliasing one names): ``class``; a module: ``namespace``; another
  constant: ``variable`` + ``readonly``; other languages' structs, interfaces, enums, functions
  and types by their own standard type;
- a method: ``method`` at its calls, with ``declaration`` at its definition and ``static`` for a
  singleton method; ``attr_*`` names: ``property`` + ``declaration``;
- ``defaultLibrary`` on anything Ruby's core defines (``Struct``, ``Kernel#puts``);
- parameters: ``parameter``; local variables: ``variable``; both with ``declaration`` where they
  are introduced; instance variables: ``property``; class variables: ``property`` + ``static``;
  globals: ``variable`` + ``static``; symbols (``:name``, ``key:``): ``enumMember``.

A call rdx cannot resolve (its receiver's type is unknown) is still a ``method``, without
modifiers; an unresolved constant gets no token (the grammar's colour stays). Tokens never
span lines or overlap, as the protocol requires of clients without multiline support.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable

from lsprotocol import types as lsp

import rdx
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import lexical_tokens, parse_ruby

__all__ = ["LEGEND", "encode", "register", "semantic_tokens"]

TOKEN_TYPES = [
    "namespace", "class", "struct", "interface", "enum", "type", "parameter", "variable", "property", "enumMember", "function", "method",
]
TOKEN_MODIFIERS = ["declaration", "readonly", "static", "defaultLibrary"]
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)
_TYPE = {name: i for i, name in enumerate(TOKEN_TYPES)}
_MOD = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}

# Declaration kinds (Ruby's, then other languages') -> (token type, modifiers).
_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "Class": ("class", ()), "SingletonClass": ("class", ()), "Module": ("namespace", ()), "Todo": ("namespace", ()),
    "Constant": ("variable", ("readonly",)), "ConstantAlias": ("variable", ("readonly",)),
    "Method": ("method", ()), "MethodAlias": ("method", ()),
    "AttrReader": ("property", ()), "AttrWriter": ("property", ()), "AttrAccessor": ("property", ()),
    "InstanceVariable": ("property", ()), "ClassVariable": ("property", ("static",)),
    "GlobalVariable": ("variable", ("static",)), "GlobalVariableAlias": ("variable", ("static",)),
    "class": ("class", ()), "struct": ("struct", ()), "interface": ("interface", ()), "trait": ("interface", ()),
    "enum": ("enum", ()), "function": ("function", ()), "method": ("method", ()), "constant": ("variable", ("readonly",)),
    "field": ("property", ()), "type": ("type", ()), "module": ("namespace", ()), "namespace": ("namespace", ()),
}
_LEXICAL: dict[str, tuple[str, tuple[str, ...]]] = {
    "parameter": ("parameter", ()), "variable": ("variable", ()), "ivar": ("property", ()), "cvar": ("property", ("static",)),
    "gvar": ("variable", ("static",)), "symbol": ("enumMember", ()),
}
# A call is marked only where its name is written as one (not ``+``, ``[]`` or ``a.b = c``'s ``=``).
_METHOD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[?!=]?\Z")

# (row, start byte, end byte, type index, modifier bits, priority): where tokens start at one
# place the highest priority wins (see ``_use_token``; the syntax tree's tokens have 1).
_Raw = tuple[int, int, int, int, int, int]


def _use_token(use: rdx.Use) -> _Raw | None:
    loc = use.location
    if loc.start_line != loc.end_line or loc.end_column <= loc.start_column:
        return None
    mods: tuple[str, ...] = ()
    if use.role == "method":
        if not _METHOD_NAME.match(use.name):
            return None
        kind = "method"
        if use.owner is not None and use.owner.endswith(">"):
            mods += ("static",)
    elif use.kind is None:
        return None  # An unresolved constant: the grammar's colour says as much as rdx can.
    elif use.role == "definition" and use.kind == "SingletonClass":
        return None  # ``class << self``: its name is ``self``, a keyword.
    else:
        found = _KINDS.get(use.kind)
        if found is None:
            return None
        kind, mods = found
        if use.role == "definition":
            mods += ("declaration",)
            if kind == "method" and use.owner is not None and use.owner.endswith(">"):
                mods += ("static",)
    if use.origin == "core":
        mods += ("defaultLibrary",)
    # A resolved name outranks the syntax tree's reading of it; an unresolved call does not
    # (where the tree sees a local of that name, the local it is).
    priority = 2 if use.certain else 0
    return (loc.start_line - 1, loc.start_column, loc.end_column, _TYPE[kind], _bits(mods), priority)


def _bits(mods: tuple[str, ...]) -> int:
    out = 0
    for m in mods:
        out |= _MOD[m]
    return out


# A lexical token's (kind, declaration) -> (type index, modifier bits, priority 1).
_LEXICAL_RAW = {
    (kind, declared): (_TYPE[name], _bits(modifiers + (("declaration",) if declared else ())), 1)
    for kind, (name, modifiers) in _LEXICAL.items()
    for declared in (False, True)
}

# An absolute token: (line, character, length, type index, modifier bits), in client units.
Token = tuple[int, int, int, int, int]


def semantic_tokens(graph: rdx.Graph, uri: str, source: bytes, units: Callable[[str], int], uses: list[rdx.Use] | None = None) -> list[Token]:
    """The tokens of a document, sorted, none overlapping, in the client's code units
    (``units`` counts them in a string); ``source`` is the text rdx indexed the document from
    and ``uses`` its ``Graph.uses_in`` (asked here when not given)."""
    found_uses = graph.uses_in(uri) if uses is None else uses
    raw: list[_Raw] = [found for u in found_uses if (found := _use_token(u)) is not None]
    path = uri_path(uri)
    doc = graph.document(uri)
    ruby = doc.language == "ruby" if doc is not None else (path or "").endswith(".rb")
    if ruby and source:
        lexical = _LEXICAL_RAW
        raw += [(row, start, end, *lexical[kind, declaration]) for row, start, end, kind, declaration in lexical_tokens(uri, source)]
    # At one start the highest priority first (the priority is at most 2).
    raw.sort(key=lambda t: (t[0] << 32) | (t[1] << 2) | (2 - t[5]))
    out: list[Token] = []
    end_row, end_byte = -1, -1
    if source.isascii():
        # Byte columns are code units in every encoding (the usual case): no counting.
        for row, start, end, kind, mods, _ in raw:
            if row == end_row and start < end_byte or row < end_row:
                continue  # Overlaps the token before it, which won (resolved first at one start).
            end_row, end_byte = row, end
            if end > start:
                out.append((row, start, end - start, kind, mods))
        return out
    rows = source.split(b"\n")

    def column(row: int, byte: int) -> int:
        # Byte columns are code units on ASCII lines; others are counted.
        text = rows[row] if row < len(rows) else b""
        return byte if text.isascii() else units(text[:byte].decode("utf-8", "ignore"))

    for row, start, end, kind, mods, _ in raw:
        if (row, start) < (end_row, end_byte):
            continue  # Overlaps the token before it, which won (resolved first at one start).
        end_row, end_byte = row, end
        begin = column(row, start)
        length = column(row, end) - begin
        if length > 0:
            out.append((row, begin, length, kind, mods))
    return out


def encode(tokens: list[Token], wanted: lsp.Range | None = None) -> list[int]:
    """LSP's relative encoding of the tokens (those that start in ``wanted``, when given)."""
    data: list[int] = []
    last_row = last_char = 0
    low = (wanted.start.line, wanted.start.character) if wanted is not None else (0, 0)
    high = (wanted.end.line, wanted.end.character) if wanted is not None else None
    for row, char, length, kind, mods in tokens:
        if (row, char) < low or high is not None and (row, char) >= high:
            continue
        delta_line = row - last_row
        data += [delta_line, char - last_char if delta_line == 0 else char, length, kind, mods]
        last_row, last_char = row, char
    return data


def _delta(old: list[int], new: list[int]) -> list[lsp.SemanticTokensEdit]:
    """One edit turning ``old`` into ``new``: the integers between their common prefix and
    suffix (whole tokens, five integers each, as clients expect)."""
    prefix = sum(1 for _ in itertools.takewhile(lambda p: p[0] == p[1], zip(old, new, strict=False)))
    prefix -= prefix % 5
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    suffix -= suffix % 5
    if prefix == len(old) == len(new):
        return []
    return [lsp.SemanticTokensEdit(start=prefix, delete_count=len(old) - prefix - suffix, data=new[prefix : len(new) - suffix])]


# What is parsed as Ruby when it changes (the suffixes rdx indexes as Ruby; templates' Ruby too).
_RUBY_SUFFIXES = (".rb", ".rake", ".gemspec", ".ru", ".rbi", ".erb")


def _parse_when_changed(ls: RdxLanguageServer, uri: str) -> None:
    """Parse a Ruby buffer (or a template's Ruby) as soon as it changes, from the tree of its
    previous version: the tree of each version is then ready when the client asks for tokens
    right after the change (what editors do), and a one-line edit costs a millisecond or so
    here instead of a full parse in the request. Once tokens were asked of the document, an edit
    inside one method also sweeps that method again here (``syntax.py``), a small part of the
    full sweep the request would make otherwise."""
    path = uri_path(uri) or ""
    if ls.graph is None or uri in ls.oversized or ls.buffer(uri) is None or not path.endswith(_RUBY_SUFFIXES):
        return
    parse_ruby(uri, ls.source(uri))


def register(server: RdxLanguageServer) -> None:
    server.change_listeners.append(lambda uri: _parse_when_changed(server, uri))

    # The last tokens sent per document, with their result id, for ``/full/delta``.
    sent: dict[str, tuple[str, list[int]]] = {}
    counter = itertools.count(1)

    # The tokens last computed per document, keyed by the graph's revision and the text, so
    # ``/range`` and ``/full/delta`` after ``/full`` (what clients send) cost nothing more.
    computed: dict[str, tuple[tuple[int, bytes], list[Token]]] = {}

    async def compute(ls: RdxLanguageServer, uri: str) -> list[Token]:
        graph = await ls.ready()
        if uri in ls.oversized:
            return []  # Not indexed (over max_file_size), so not parsed here either.
        source = ls.source(uri)
        key = (graph.revision, hashlib.blake2b(source, digest_size=16).digest())
        found = computed.get(uri)
        if found is not None and found[0] == key:
            return found[1]
        tokens = semantic_tokens(graph, uri, source, ls.workspace.position_codec.client_num_units, ls.uses(uri))
        computed[uri] = (key, tokens)
        if len(computed) > 64:
            computed.pop(next(iter(computed)))
        return tokens

    def remember(uri: str, data: list[int]) -> str:
        result_id = str(next(counter))
        sent[uri] = (result_id, data)
        if len(sent) > 256:
            sent.pop(next(iter(sent)))
        return result_id

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def full(ls: RdxLanguageServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        data = encode(await compute(ls, params.text_document.uri))
        return lsp.SemanticTokens(data=data, result_id=remember(params.text_document.uri, data))

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA)
    async def delta(ls: RdxLanguageServer, params: lsp.SemanticTokensDeltaParams) -> lsp.SemanticTokens | lsp.SemanticTokensDelta:
        uri = params.text_document.uri
        data = encode(await compute(ls, uri))
        previous = sent.get(uri)
        result_id = remember(uri, data)
        if previous is None or previous[0] != params.previous_result_id:
            return lsp.SemanticTokens(data=data, result_id=result_id)  # Nothing to diff against.
        return lsp.SemanticTokensDelta(edits=_delta(previous[1], data), result_id=result_id)

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE)
    async def ranged(ls: RdxLanguageServer, params: lsp.SemanticTokensRangeParams) -> lsp.SemanticTokens:
        return lsp.SemanticTokens(data=encode(await compute(ls, params.text_document.uri), params.range))
