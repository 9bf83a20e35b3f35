"""What the language server reads from a Ruby buffer's syntax tree alone, without the graph:
local variables and parameters (Ruby's scoping rules: ``def``/``class``/``module`` start an
empty scope, blocks and lambdas see the one around them, a name is a local from its first
assignment on), instance, class and global variables and symbols. These are what rdx's index
does not record (it keeps declarations and uses, not every local), so semantic tokens take
them from here. Parsing is tree-sitter's Ruby grammar; one query collects the nodes, and a
sweep in source order applies the scopes (no recursion: real code nests deeply; no walk of
every node in Python: a 700-line file has 10,000). Results are cached per document text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import tree_sitter
import tree_sitter_language_pack
import tree_sitter_ruby

import rdx

__all__ = ["LexicalToken", "lexical_tokens", "parse", "parse_ruby"]

_LANGUAGE = tree_sitter.Language(tree_sitter_ruby.language())



@dataclass(frozen=True, slots=True)
class LexicalToken:
    """One name of the buffer: 0-based row, byte columns on that row, its kind (``parameter``,
    ``variable``, ``ivar``, ``cvar``, ``gvar``, ``symbol``) and whether it is declared here."""

    row: int
    start: int
    end: int
    kind: str
    declaration: bool = False


# Per document: the digest of its text, the text, its tree and its tokens. The text and tree
# stay so that the next version parses incrementally (tree-sitter reuses what did not change).
_cache: dict[str, tuple[bytes, bytes, tree_sitter.Tree, list[LexicalToken]]] = {}


def parse_ruby(uri: str, source: bytes) -> tree_sitter.Tree:
    """The syntax tree of ``source`` (cached for the document's current text)."""
    return _cached(uri, source)[2]


_other_trees: dict[str, tuple[bytes, tree_sitter.Tree]] = {}


def parse(uri: str, source: bytes, language: str) -> tree_sitter.Tree | None:
    """The syntax tree of a document in any language rdx parses (None for a language the
    bundled grammars do not have), cached for the document's current text."""
    if language == "ruby":
        return parse_ruby(uri, source)
    digest = hashlib.blake2b(source + language.encode(), digest_size=16).digest()
    found = _other_trees.get(uri)
    if found is not None and found[0] == digest:
        return found[1]
    try:
        parser = tree_sitter_language_pack.get_parser(language)  # type: ignore[arg-type]
    except Exception:  # An unknown name: the pack raises its own lookup errors.
        return None
    tree = parser.parse(source)
    _other_trees[uri] = (digest, tree)
    if len(_other_trees) > 64:
        _other_trees.pop(next(iter(_other_trees)))
    return tree


def lexical_tokens(uri: str, source: bytes) -> list[LexicalToken]:
    """The names of a Ruby buffer, in source order (cached for the document's current text)."""
    return _cached(uri, source)[3]


def _cached(uri: str, source: bytes) -> tuple[bytes, bytes, tree_sitter.Tree, list[LexicalToken]]:
    if uri.endswith(".erb"):
        # A template's Ruby, at the template's own offsets: its tags' code, the rest blank.
        source = rdx.ruby_of_template(source)
    digest = hashlib.blake2b(source, digest_size=16).digest()
    found = _cache.get(uri)
    if found is not None and found[0] == digest:
        return found
    parser = tree_sitter.Parser(_LANGUAGE)
    if found is not None:
        old_source, old_tree = found[1], found[2]
        start, old_end, new_end = _edit(old_source, source)
        old_tree.edit(
            start_byte=start, old_end_byte=old_end, new_end_byte=new_end, start_point=_point(old_source, start),
            old_end_point=_point(old_source, old_end), new_end_point=_point(source, new_end),
        )
        tree = parser.parse(source, old_tree)
    else:
        tree = parser.parse(source)
    entry = (digest, source, tree, _walk(tree))
    _cache.pop(uri, None)
    _cache[uri] = entry
    if len(_cache) > 64:  # Open buffers: a handful; never grow without bound.
        _cache.pop(next(iter(_cache)))
    return entry


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix, by halving (each comparison in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _point(source: bytes, offset: int) -> tuple[int, int]:
    return source.count(b"\n", 0, offset), offset - (source.rfind(b"\n", 0, offset) + 1)


def _edit(old: bytes, new: bytes) -> tuple[int, int, int]:
    """The one edit that turns ``old`` into ``new`` (their common prefix and suffix kept): where
    it starts, and where it ends in the old text and in the new one (bytes)."""
    start = _common_prefix(old, new)
    # The suffix may not reach back into the prefix of either text.
    longest = min(len(old), len(new)) - start
    suffix = _common_prefix(old[len(old) - longest :][::-1], new[len(new) - longest :][::-1]) if longest > 0 else 0
    return start, len(old) - suffix, len(new) - suffix


# One query finds every node the rules below read, in C; Python then sweeps the captures in
# source order with a stack of scopes (each popped once the sweep passes its end).
_QUERY = tree_sitter.Query(
    _LANGUAGE,
    """
    [(method) (singleton_method) (class) (module) (singleton_class)] @hard
    [(block) (do_block) (lambda)] @soft
    [(method_parameters (identifier) @param) (block_parameters (identifier) @param) (lambda_parameters (identifier) @param)
     (destructured_parameter (identifier) @param)
     (optional_parameter name: (identifier) @param) (keyword_parameter name: (identifier) @param)
     (splat_parameter name: (identifier) @param) (hash_splat_parameter name: (identifier) @param)
     (block_parameter name: (identifier) @param)]
    [(assignment left: (identifier) @assign) (operator_assignment left: (identifier) @assign)
     (left_assignment_list (identifier) @assign) (rest_assignment (identifier) @assign)
     (destructured_left_assignment (identifier) @assign) (exception_variable (identifier) @assign)
     (for pattern: (identifier) @assign)]
    [(call method: (identifier) @name) (method name: (identifier) @name) (singleton_method name: (identifier) @name)
     (alias (identifier) @name)]
    (identifier) @identifier
    (instance_variable) @ivar
    (class_variable) @cvar
    (global_variable) @gvar
    [(simple_symbol) (hash_key_symbol)] @symbol
    (delimited_symbol) @delimited
    """,
)
# What each capture is, for the sweep: scopes first at one offset, then declarations, then uses.
_ORDER = {"hard": 0, "soft": 0, "param": 1, "assign": 1, "identifier": 2, "ivar": 2, "cvar": 2, "gvar": 2, "symbol": 2, "delimited": 2}
_VARIABLES = {"ivar": "ivar", "cvar": "cvar", "gvar": "gvar"}


def _walk(tree: tree_sitter.Tree) -> list[LexicalToken]:
    captures = tree_sitter.QueryCursor(_QUERY).captures(tree.root_node)
    # Identifiers that are method names (``foo.bar``, ``def bar``): rdx's index marks those.
    names = {n.start_byte for n in captures.get("name", ())}
    roles = {n.start_byte: "param" for n in captures.get("param", ())}
    roles.update((n.start_byte, "assign") for n in captures.get("assign", ()))
    events = sorted(
        ((node.start_byte, _ORDER[kind], kind, node) for kind, nodes in captures.items() if kind in _ORDER for node in nodes),
        key=lambda e: (e[0], e[1]),
    )
    out: list[LexicalToken] = []
    # Scopes: (end byte, names visible there, innermost last); the file's own at the bottom.
    stack: list[tuple[int, list[dict[str, str]]]] = [(len(tree.root_node.text or b"") + 1, [{}])]
    for start, _, kind, node in events:
        while len(stack) > 1 and start >= stack[-1][0]:
            stack.pop()
        scope = stack[-1][1]
        if kind == "hard":
            stack.append((node.end_byte, [{}]))
        elif kind == "soft":
            stack.append((node.end_byte, [*scope, {}]))
        elif kind == "identifier":
            role = roles.get(start)
            if role is None and start not in names:
                text = _text(node)
                known = next((s[text] for s in reversed(scope) if text in s), None)
                if known is not None:
                    out.append(_token(node, known))
        elif kind == "param":
            scope[-1][_text(node)] = "parameter"
            out.append(_token(node, "parameter", True))
        elif kind == "assign":
            text = _text(node)
            known = next((s[text] for s in reversed(scope) if text in s), None)
            if known is None:
                scope[-1][text] = "variable"
            out.append(_token(node, known or "variable", known is None))
        elif kind in _VARIABLES:
            out.append(_token(node, _VARIABLES[kind]))
        elif node.start_point.row == node.end_point.row and (kind == "symbol" or not any(c.type == "interpolation" for c in node.children)):
            out.append(_token(node, "symbol"))
    return out


def _text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def _token(node: tree_sitter.Node, kind: str, declaration: bool = False) -> LexicalToken:
    return LexicalToken(node.start_point.row, node.start_point.column, node.end_point.column, kind, declaration)
