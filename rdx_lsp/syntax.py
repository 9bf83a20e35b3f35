"""What the language server reads from a Ruby buffer's syntax tree alone, without the graph:
local variables and parameters (Ruby's scoping rules: ``def``/``class``/``module`` start an
empty scope, blocks and lambdas see the one around them, a name is a local from its first
assignment on), instance, class and global variables and symbols. These are what rdx's index
does not record (it keeps declarations and uses, not every local), so semantic tokens take
them from here. Parsing is tree-sitter's Ruby grammar; one query collects the nodes, and a
sweep in source order applies the scopes (no recursion: real code nests deeply; no walk of
every node in Python: a 700-line file has 10,000). Trees are cached per document text, and
tokens too once asked for.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
from typing import NamedTuple

import tree_sitter
import tree_sitter_ruby

import rdx

__all__ = ["LexicalToken", "lexical_tokens", "parse", "parse_ruby"]

_LANGUAGE = tree_sitter.Language(tree_sitter_ruby.language())



class LexicalToken(NamedTuple):
    """One name of the buffer: 0-based row, byte columns on that row, its kind (``parameter``,
    ``variable``, ``ivar``, ``cvar``, ``gvar``, ``symbol``) and whether it is declared here."""

    row: int
    start: int
    end: int
    kind: str
    declaration: bool = False


class _Parsed:
    """One document's current text: its digest, the text, its tree and (once asked) its tokens.
    The text and tree stay so that the next version parses incrementally (tree-sitter reuses
    what did not change); the tokens are swept only when asked for, not on every parse."""

    __slots__ = ("digest", "source", "tree", "tokens")

    def __init__(self, digest: bytes, source: bytes, tree: tree_sitter.Tree) -> None:
        self.digest = digest
        self.source = source
        self.tree = tree
        self.tokens: list[LexicalToken] | None = None


_cache: dict[str, _Parsed] = {}


def parse_ruby(uri: str, source: bytes) -> tree_sitter.Tree:
    """The syntax tree of ``source`` (cached for the document's current text)."""
    return _cached(uri, source).tree


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
    import tree_sitter_language_pack  # Only for the other languages' buffers.

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
    entry = _cached(uri, source)
    if entry.tokens is None:
        entry.tokens = _walk(entry.tree.root_node, entry.source)
    return entry.tokens


def _cached(uri: str, source: bytes) -> _Parsed:
    if uri.endswith(".erb"):
        # A template's Ruby, at the template's own offsets: its tags' code, the rest blank.
        source = rdx.ruby_of_template(source)
    digest = hashlib.blake2b(source, digest_size=16).digest()
    found = _cache.get(uri)
    if found is not None and found.digest == digest:
        return found
    parser = tree_sitter.Parser(_LANGUAGE)
    if found is not None:
        old_source, old_tree = found.source, found.tree
        start, old_end, new_end = _edit(old_source, source)
        old_end_point, new_end_point = _point(old_source, old_end), _point(source, new_end)
        old_tree.edit(
            start_byte=start, old_end_byte=old_end, new_end_byte=new_end, start_point=_point(old_source, start),
            old_end_point=old_end_point, new_end_point=new_end_point,
        )
        tree = parser.parse(source, old_tree)
        entry = _Parsed(digest, source, tree)
        if found.tokens is not None:
            # Tokens are asked of this document: keep them current, which an edit inside one
            # method makes cheap (None otherwise: swept in full when asked).
            entry.tokens = _swept_again(found, old_tree, entry, (start, old_end, new_end), old_end_point, new_end_point)
    else:
        entry = _Parsed(digest, source, parser.parse(source))
    _cache.pop(uri, None)
    _cache[uri] = entry
    if len(_cache) > 64:  # Open buffers: a handful; never grow without bound.
        _cache.pop(next(iter(_cache)))
    return entry


# Nodes that start an empty scope of locals: what is inside one depends on nothing outside it.
_HARD_TYPES = frozenset({"method", "singleton_method", "class", "module", "singleton_class"})


def _swept_again(
    old: _Parsed, edited_tree: tree_sitter.Tree, new: _Parsed, edit: tuple[int, int, int],
    old_end_point: tuple[int, int], new_end_point: tuple[int, int],
) -> list[LexicalToken] | None:
    """The tokens of ``new`` from those of ``old`` when the edit and every change of syntax it
    caused lie inside one scope-starting node (a ``def``, a class body): that node swept alone,
    the tokens before it kept, those after it moved as the edit moved the text. None when the
    change reaches further (the caller sweeps everything)."""
    assert old.tokens is not None
    start, old_end, new_end = edit
    node: tree_sitter.Node | None = new.tree.root_node.descendant_for_byte_range(start, new_end)
    while node is not None and node.type not in _HARD_TYPES:
        node = node.parent
    if node is None or not (node.start_byte < start and new_end < node.end_byte):
        return None
    low, high = node.start_byte, node.end_byte
    if any(r.start_byte < low or r.end_byte > high for r in edited_tree.changed_ranges(new.tree)):
        return None
    begin = tuple(node.start_point)  # The same in both texts: the edit comes after it.
    stop = _point(old.source, high - (new_end - old_end))  # Where the node ended in the old text.
    tokens = old.tokens
    before = tokens[: bisect.bisect_left(tokens, begin)]
    rows, columns = new_end_point[0] - old_end_point[0], new_end_point[1] - old_end_point[1]
    new_token = tuple.__new__
    after = [
        t if t.row != old_end_point[0] and rows == 0 else new_token(LexicalToken, (
            t.row + rows, t.start + columns if t.row == old_end_point[0] else t.start,
            t.end + columns if t.row == old_end_point[0] else t.end, t.kind, t.declaration,
        ))
        for t in tokens[bisect.bisect_left(tokens, stop) :]
    ]
    return before + _walk(node, new.source) + after


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
# source order with a stack of scopes (each popped once the sweep passes its end). Compiled at
# its first use (tens of milliseconds): a server whose client asks for no tokens never needs it.
_QUERY_TEXT = """
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
    """


@functools.cache
def _query() -> tree_sitter.Query:
    return tree_sitter.Query(_LANGUAGE, _QUERY_TEXT)


# What each capture is, for the sweep: scopes first at one offset, then declarations, then uses.
# Each event is sorted by one integer, ``start * 16 + code``; the code's high bits are that order.
_HARD, _SOFT, _PARAM, _ASSIGN, _IDENTIFIER, _IVAR, _CVAR, _GVAR, _SYMBOL, _DELIMITED = 0, 1, 4, 5, 8, 9, 10, 11, 12, 13
_CODES = {
    "hard": _HARD, "soft": _SOFT, "param": _PARAM, "assign": _ASSIGN, "identifier": _IDENTIFIER, "ivar": _IVAR, "cvar": _CVAR,
    "gvar": _GVAR, "symbol": _SYMBOL, "delimited": _DELIMITED,
}
_VARIABLES = {_IVAR: "ivar", _CVAR: "cvar", _GVAR: "gvar"}


def _walk(root: tree_sitter.Node, source: bytes) -> list[LexicalToken]:
    """The sweep of ``root``'s subtree (the file's, or one scope-starting node's). It runs on
    versions of open buffers, so it does little per capture: one integer sort key, names as
    byte slices of ``source``, a node's point asked only for the tokens it gives (a name's end
    is on its start's row)."""
    captures = tree_sitter.QueryCursor(_query()).captures(root)
    # Identifiers that are method names (``foo.bar``, ``def bar``): rdx's index marks those.
    names = {n.start_byte for n in captures.get("name", ())}
    keys: list[int] = []
    nodes: list[tree_sitter.Node] = []
    for kind, found in captures.items():
        code = _CODES.get(kind)
        if code is None:
            continue
        if code == _IDENTIFIER:
            # Declarations are their own events, and method names are not locals.
            found = [n for n in found if n.start_byte not in names]
        nodes += found
        keys += [n.start_byte * 16 + code for n in found]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    out: list[LexicalToken] = []
    new = tuple.__new__
    declared: set[int] = set()  # Start bytes of parameters and assigned names.
    # Scopes: (end byte, names visible there, innermost last); the file's own at the bottom.
    stack: list[tuple[int, list[dict[bytes, str]]]] = [(len(source) + 1, [{}])]
    scope = stack[-1][1]
    for i in order:
        key = keys[i]
        start, code = key >> 4, key & 15
        if start >= stack[-1][0]:
            while len(stack) > 1 and start >= stack[-1][0]:
                stack.pop()
            scope = stack[-1][1]
        node = nodes[i]
        if code == _IDENTIFIER:
            if start in declared:
                continue
            text = source[start : node.end_byte]
            for names_here in reversed(scope):
                known = names_here.get(text)
                if known is not None:
                    row, column = node.start_point
                    out.append(new(LexicalToken, (row, column, column + len(text), known, False)))
                    break
        elif code == _HARD:
            stack.append((node.end_byte, [{}]))
            scope = stack[-1][1]
        elif code == _SOFT:
            stack.append((node.end_byte, [*scope, {}]))
            scope = stack[-1][1]
        elif code == _PARAM or code == _ASSIGN:
            declared.add(start)
            text = source[start : node.end_byte]
            known = None
            if code == _ASSIGN:
                known = next((s[text] for s in reversed(scope) if text in s), None)
            if known is None:
                scope[-1][text] = "parameter" if code == _PARAM else "variable"
            row, column = node.start_point
            out.append(new(LexicalToken, (row, column, column + len(text), known or scope[-1][text], known is None)))
        elif code in _VARIABLES:
            row, column = node.start_point
            out.append(new(LexicalToken, (row, column, column + node.end_byte - start, _VARIABLES[code], False)))
        else:
            (row, column), (end_row, end_column) = node.start_point, node.end_point
            if row == end_row and (code == _SYMBOL or not any(c.type == "interpolation" for c in node.children)):
                out.append(new(LexicalToken, (row, column, end_column, "symbol", False)))
    return out
