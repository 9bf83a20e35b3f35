"""The one extraction engine every language shares, driven by a ``Spec``.

A spec is mostly a tree-sitter query: each pattern captures a definition node as ``@<kind>``
(a ``SymbolKind`` value) and its name as ``@name``; ``@scope`` marks a node that only
qualifies what it contains (a Rust ``impl Type``). The query runs in C; the engine then sorts
the matches by position, nests them by byte range, turns functions inside types into methods,
and reads each definition's signature (the text between its name and its body) and doc
comment (comment lines right above it, or what the spec's ``doc`` hook finds, such as a
Python docstring). Qualified names join the enclosing names with the language's separator,
after the module prefix the spec's ``module`` hook reads (a Go package clause, a Java
package declaration) or the caller gives (a Python module path).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import msgspec
import tree_sitter as ts

from rdx.languages.symbols import Import, Reference, RefKind, Symbol, SymbolKind

__all__ = ["Extraction", "Spec", "extract", "extract_all"]

_TYPES = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM, "scope"})
_SPACES = re.compile(r"\s+")
_MAX_SIGNATURE = 240
_MAX_DOC_LINES = 40


@dataclass(frozen=True)
class Spec:
    """How one language is read (see the module docstring)."""

    language: str
    grammar: str
    query: str
    separator: str = "."
    # Between a type and its members, when the language writes it differently (PHP ``::``).
    member_separator: str | None = None
    # The module prefix a file's own text declares (package clause), if any.
    module: Callable[[ts.Node, bytes], str | None] | None = None
    # A doc the language keeps elsewhere than in comments above (a Python docstring).
    doc: Callable[[ts.Node, bytes], str | None] | None = None
    # For a method defined outside its type (Go ``func (r *T) M()``): the type's name.
    owner: Callable[[ts.Node, bytes], str | None] | None = None
    # Node types of comments.
    comments: frozenset[str] = field(default_factory=lambda: frozenset({"comment", "line_comment", "block_comment"}))
    # A tree-sitter query for references: each pattern captures a name as ``@call``, ``@type``
    # or ``@base`` (a ``RefKind`` value) and, optionally, what is written before it as
    # ``@qualifier`` (``obj`` in ``obj.foo()``).
    references: str = ""
    # The file's imports, read from the tree.
    imports: Callable[[ts.Node, bytes], list[Import]] | None = None


class Extraction(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """Everything a file yields: its definitions, the names it uses and its imports."""

    symbols: list[Symbol]
    references: list[Reference]
    imports: list[Import]


@cache
def _parser(grammar: str) -> ts.Parser:
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar)  # type: ignore[arg-type]


@cache
def _query(grammar: str, source: str) -> ts.Query:
    from tree_sitter_language_pack import get_language

    return ts.Query(get_language(grammar), source)  # type: ignore[arg-type]


def _text(source: bytes, start: int, end: int) -> str:
    return source[start:end].decode("utf-8", "replace")


@cache
def _combined(grammar: str, definitions: str, references: str) -> tuple[ts.Query, int]:
    """One query for definitions and references (one walk of the tree instead of two, about a
    third less matching time) and the number of its patterns that are definitions'."""
    return _query(grammar, definitions + "\n" + references), _query(grammar, definitions).pattern_count


Match = tuple[int, dict[str, list[ts.Node]]]


def extract(spec: Spec, source: bytes, module: str | None = None) -> list[Symbol]:
    """The definitions in ``source``, in source order (a parent before its children)."""
    root = _parser(spec.grammar).parse(source).root_node
    return _symbols(spec, root, source, module, ts.QueryCursor(_query(spec.grammar, spec.query)).matches(root))


def extract_all(spec: Spec, source: bytes, module: str | None = None) -> Extraction:
    """Definitions, references (each with its innermost enclosing symbol) and imports."""
    root = _parser(spec.grammar).parse(source).root_node
    definitions: list[Match] = []
    uses: list[Match] = []
    if spec.references:
        query, split = _combined(spec.grammar, spec.query, spec.references)
        for match in ts.QueryCursor(query).matches(root):
            (definitions if match[0] < split else uses).append(match)
    else:
        definitions = ts.QueryCursor(_query(spec.grammar, spec.query)).matches(root)
    symbols = _symbols(spec, root, source, module, definitions)
    references = _references(source, symbols, uses) if uses else []
    imports = spec.imports(root, source) if spec.imports is not None else []
    return Extraction(symbols, references, imports)


_REF_ORDER = (RefKind.CALL.value, RefKind.TYPE.value, RefKind.BASE.value)


def _references(source: bytes, symbols: list[Symbol], matches: list[Match]) -> list[Reference]:
    # (Per reference, every node property read builds Python objects: this loop stays lean.)
    found: dict[int, tuple[str, ts.Node, list[ts.Node] | None]] = {}
    for _pattern, captures in matches:
        for kind in _REF_ORDER:
            nodes = captures.get(kind)
            if nodes:
                node = nodes[0]
                start = node.start_byte
                # One reference per name node: the first match (the most specific) wins.
                if start not in found:
                    found[start] = (kind, node, captures.get("qualifier"))
                break
    # Each reference's scope: the innermost symbol containing it (symbols are in source
    # order, parents first, so a stack of open ranges finds it in one merged pass).
    result: list[Reference] = []
    stack: list[int] = []
    next_symbol = 0
    count = len(symbols)
    for start in sorted(found):
        kind, node, qualifiers = found[start]
        while next_symbol < count and symbols[next_symbol].start <= start:
            while stack and symbols[stack[-1]].end <= symbols[next_symbol].start:
                stack.pop()
            stack.append(next_symbol)
            next_symbol += 1
        while stack and symbols[stack[-1]].end <= start:
            stack.pop()
        end = node.end_byte
        if end - start > 200 or end == start:
            continue
        name = source[start:end].decode("utf-8", "replace")
        written = None
        if qualifiers:
            qualifier = qualifiers[0]
            q_start, q_end = qualifier.start_byte, qualifier.end_byte
            if q_end - q_start <= 200:
                written = source[q_start:q_end].decode("utf-8", "replace")
                if "\n" in written:
                    written = None
        row, column = node.start_point
        result.append(Reference(kind, name, row + 1, column, start, end, written, stack[-1] if stack else -1))
    return result


def _symbols(spec: Spec, root: ts.Node, source: bytes, module: str | None, matches: list[Match]) -> list[Symbol]:
    found: dict[tuple[int, int], tuple[int, str, ts.Node, ts.Node]] = {}
    for pattern, captures in matches:
        names = captures.get("name")
        if not names:
            continue
        for kind, nodes in captures.items():
            if kind == "name" or kind.startswith("_"):
                continue
            node = nodes[0]
            key = (node.start_byte, node.end_byte)
            # The first pattern that matches a node wins: specs list the most specific first.
            if key not in found or found[key][0] > pattern:
                found[key] = (pattern, kind, node, names[0])
            break
    prefix = module if module is not None else (spec.module(root, source) if spec.module is not None else None)
    items = sorted(((key, value[1:]) for key, value in found.items()), key=lambda x: (x[0][0], -x[0][1]))
    return _nest(spec, source, items, prefix)


def _nest(spec: Spec, source: bytes, items: list[tuple[tuple[int, int], tuple[str, ts.Node, ts.Node]]], prefix: str | None) -> list[Symbol]:
    symbols: list[Symbol] = []
    kinds: list[str] = []  # Per symbol index, including scopes (which are not emitted).
    qualified: list[str] = []
    emitted: list[int] = []  # Symbol index -> position in ``symbols`` (-1 for a scope).
    parents: list[int] = []
    stack: list[tuple[int, int]] = []  # (end byte, symbol index)
    for (start, end), (kind, node, name_node) in items:
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1][1] if stack else -1
        name = _text(source, name_node.start_byte, name_node.end_byte).strip()
        if kind == SymbolKind.FUNCTION and parent >= 0 and kinds[parent] in _TYPES:
            kind = SymbolKind.METHOD
        owner = spec.owner(node, source) if spec.owner is not None else None
        if owner is not None:
            kind = SymbolKind.METHOD
            base = ((prefix + spec.separator) if prefix else "") + owner
        elif parent >= 0:
            base = qualified[parent]
        else:
            base = prefix or ""
        join = (
            spec.member_separator
            if spec.member_separator and (owner is not None or (parent >= 0 and kinds[parent] in _TYPES))
            else spec.separator
        )
        full = f"{base}{join}{name}" if base else name
        index = len(kinds)
        kinds.append(kind)
        qualified.append(full)
        parents.append(parent)
        stack.append((end, index))
        if kind == "scope":
            emitted.append(-1)
            continue
        visible_parent = parent
        while visible_parent >= 0 and emitted[visible_parent] < 0:
            visible_parent = parents[visible_parent]
        emitted.append(len(symbols))
        symbols.append(
            Symbol(
                name=name,
                kind=str(kind),
                qualified=full,
                line=name_node.start_point[0] + 1,
                column=name_node.start_point[1],
                start=start,
                end=end,
                name_start=name_node.start_byte,
                name_end=name_node.end_byte,
                parent=emitted[visible_parent] if visible_parent >= 0 else -1,
                signature=_signature(source, node, name_node),
                doc=(spec.doc(node, source) if spec.doc is not None else None) or _comments_above(spec, node, source),
            )
        )
    return symbols


def _signature(source: bytes, node: ts.Node, name_node: ts.Node) -> str | None:
    """The text between the name and the body (parameters, return type, bases), on one line."""
    body = node.child_by_field_name("body")
    if body is not None:
        end = body.start_byte
    else:
        # No body field (a type, a field, a constant): the rest of the name's line.
        end = source.find(b"\n", name_node.end_byte, node.end_byte)
        end = node.end_byte if end < 0 else end
    if end - name_node.end_byte > 4 * _MAX_SIGNATURE:
        end = name_node.end_byte + 4 * _MAX_SIGNATURE
    raw = source[name_node.end_byte : end]
    if not raw.strip():
        return None
    text = raw.decode("utf-8", "replace")
    if "  " in text or "\n" in text or "\t" in text or "\r" in text:
        text = _SPACES.sub(" ", text)
    text = text.strip().rstrip(":{;").strip()
    if not text:
        return None
    return text if len(text) <= _MAX_SIGNATURE else text[: _MAX_SIGNATURE - 1] + "…"


_WRAPPERS = frozenset({"decorated_definition", "export_statement", "template_declaration"})


def _comments_above(spec: Spec, node: ts.Node, source: bytes) -> str | None:
    """Comment lines directly above ``node`` (no blank line between), without their markers.

    Decorators, attributes and export wrappers sit between a definition and its comments, as
    does a declaration that holds only this definition (Go's ``type X struct``): the comments
    are looked for above those. (Each node access builds a Python object: this stays lean.)"""
    comments = spec.comments
    current = node
    prev = current.prev_sibling
    while prev is None or prev.type not in comments:
        parent = current.parent
        if parent is None or parent.parent is None or not (parent.type in _WRAPPERS or parent.named_child_count == 1):
            return None
        current = parent
        prev = current.prev_sibling
    lines: list[str] = []
    next_row = current.start_point[0]
    while prev is not None and prev.type in comments and prev.end_point[0] >= next_row - 1 and len(lines) < _MAX_DOC_LINES:
        lines[:0] = _text(source, prev.start_byte, prev.end_byte).splitlines()
        next_row = prev.start_point[0]
        prev = prev.prev_sibling
    text = "\n".join(_strip_comment(x) for x in lines).strip()
    return text or None


_MARKERS = re.compile(r"^\s*(///?|//!|/\*\*?|\*/|\*|#|--)\s?")


def _strip_comment(line: str) -> str:
    stripped = _MARKERS.sub("", line).rstrip()
    stripped = stripped.removesuffix("*/").rstrip()
    return stripped
