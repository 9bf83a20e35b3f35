"""A query's patterns as the table the native runner's own matcher reads (``query.c``).

The native runner (``query.c``) matches the common patterns itself, in one walk of the tree,
instead of running tree-sitter's query cursor over it (which costs about half a parse): for each
pattern, its steps in order, each a node (a type, or any named node), the field it must be in,
its captures, its anchors and the fields it must not have. ``table`` compiles a query's text
into that table, or answers None when a pattern uses what the matcher does not read
(alternations, quantifiers, supertypes, a bare ``_``, several top-level nodes...): the runner
then runs the query with tree-sitter's cursor, as it always did. Predicates (``#match?`` and
the others) are not in the table: the runner evaluates the query's own, as for the cursor's
matches. ``tests/test_native_query.py`` and ``bench/bench_polyglot.py --check`` compare what
both give. This module imports nothing from rdx.
"""

from __future__ import annotations

import re
from array import array
from typing import Any

__all__ = ["STEP_SIZE", "table"]

# The integers per step (see ``query.c``, ``MatchStep``): depth, symbol (-1: any named node;
# -2: a supertype's, any node under a hidden node of that supertype), the supertype, field
# (0: any), immediate (an anchor before it), last (an anchor after it), optional (``?``), three
# capture ids (-1: none), three negated field ids (0: none).
STEP_SIZE = 13
_MOST_CAPTURES = 3
_MOST_NEGATED = 3

_TOKEN = re.compile(
    r"""\s+|;[^\n]*
    |(?P<string>"(?:[^"\\]|\\.)*")
    |(?P<paren>[()\[\]])
    |(?P<capture>@[A-Za-z_][\w.-]*)
    |(?P<negated>![A-Za-z_]\w*)
    |(?P<field>[A-Za-z_]\w*:)
    |(?P<quantifier>[?*+])
    |(?P<anchor>\.)
    |(?P<predicate>\#[\w-]+[?!]?)
    |(?P<word>[A-Za-z_][\w/]*)
    """,
    re.VERBOSE,
)


class Unsupported(Exception):
    """A pattern the matcher does not read."""


def _tokens(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise Unsupported(text[at : at + 20])
        at = match.end()
        if match.lastgroup is not None:
            found.append((match.lastgroup, match.group()))
    return found


class _Step:
    """A node of a pattern; ``children`` holds its child nodes and alternations (each a list
    of nodes, one of which matches) in order."""

    def __init__(self, symbol: int, field: int, depth: int) -> None:
        self.supertype = 0
        self.symbol = symbol
        self.field = field
        self.depth = depth
        self.immediate = False
        self.last = False
        self.optional = False
        self.captures: list[int] = []
        self.negated: list[int] = []
        self.children: list[_Step | list[_Step]] = []

    def copy(self) -> _Step:
        step = _Step(self.symbol, self.field, self.depth)
        step.supertype, step.immediate, step.last, step.optional = self.supertype, self.immediate, self.last, self.optional
        step.captures, step.negated = list(self.captures), list(self.negated)
        return step


# The most sequences of steps a pattern's alternations may expand to.
_MOST_VARIANTS = 16


class _Parser:
    def __init__(self, language: Any, tokens: list[tuple[str, str]], captures: dict[str, int]) -> None:
        self.language = language
        self.tokens = tokens
        self.at = 0
        self.captures = captures
        # (Language.node_kind_is_supertype answers True for every kind in py-tree-sitter 0.26.)
        self.supertypes = frozenset(language.supertypes)

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise Unsupported("end")
        self.at += 1
        return token

    def at_predicate(self, kind: str, text: str) -> bool:
        following = self.peek()
        return (kind, text) == ("paren", "(") and following is not None and following[0] == "predicate"

    def skip_predicate(self) -> None:
        self.take()
        depth = 1
        while depth:
            kind, text = self.take()
            if kind == "paren":
                depth += 1 if text in "([" else -1

    def pattern(self) -> _Step:
        """A top-level pattern: a node, or a node grouped with predicates."""
        kind, text = self.take()
        if kind != "paren" or text != "(":
            raise Unsupported(text)
        if self.peek() == ("paren", "("):
            # ((node) @x (#pred? ...)): one node, then predicates only.
            root = self.node(0, 0)
            self.captures_of(root)
            while True:
                kind, text = self.take()
                if (kind, text) == ("paren", ")"):
                    break
                if not self.at_predicate(kind, text):
                    raise Unsupported(text)
                self.skip_predicate()
        else:
            self.at -= 1
            root = self.node(0, 0)
            self.captures_of(root)
        if self.peek() is not None:
            raise Unsupported("more than one node")
        return root

    def captures_of(self, step: _Step) -> None:
        while True:
            token = self.peek()
            if token is None or token[0] != "capture":
                return
            name = self.take()[1][1:]
            if name not in self.captures or len(step.captures) == _MOST_CAPTURES:
                raise Unsupported(name)
            step.captures.append(self.captures[name])

    def node(self, depth: int, field: int) -> _Step:
        kind, text = self.take()
        if kind == "string":
            if "\\" in text:
                raise Unsupported(text)
            symbol = self.language.id_for_node_kind(text[1:-1], False)
            if not symbol:
                raise Unsupported(text)
            step = _Step(symbol, field, depth)
            self.captures_of(step)
            return step
        if kind != "paren" or text != "(":
            raise Unsupported(text)
        kind, text = self.take()
        if kind != "word" or "/" in text or text in ("ERROR", "MISSING"):
            raise Unsupported(text)
        supertype = 0
        if text == "_":
            symbol = -1
        else:
            symbol = self.language.id_for_node_kind(text, True)
            if not symbol:
                raise Unsupported(text)
            if symbol in self.supertypes:
                # Any node (but an error) under a hidden node of this supertype.
                if depth == 0:
                    raise Unsupported("supertype root")
                symbol, supertype = -2, symbol
        step = _Step(symbol, field, depth)
        step.supertype = supertype
        anchored = False
        last_child: _Step | list[_Step] | None = None
        while True:
            kind, text = self.take()
            if (kind, text) == ("paren", ")"):
                break
            if kind == "anchor":
                anchored = True
                continue
            if kind == "negated":
                field_id = self.language.field_id_for_name(text[1:])
                if not field_id or len(step.negated) == _MOST_NEGATED:
                    raise Unsupported(text)
                step.negated.append(field_id)
                continue
            if self.at_predicate(kind, text):
                self.skip_predicate()
                continue
            child_field = 0
            if kind == "field":
                child_field = self.language.field_id_for_name(text[:-1])
                if not child_field:
                    raise Unsupported(text)
            else:
                self.at -= 1
            child: _Step | list[_Step]
            if self.peek() == ("paren", "["):
                child = self.alternation(depth + 1, child_field)
                for alternative in child:
                    alternative.immediate = anchored
            else:
                child = self.node(depth + 1, child_field)
                child.immediate = anchored
            anchored = False
            step.children.append(child)
            last_child = child
        if anchored:
            if last_child is None:
                raise Unsupported("anchor")
            for alternative in last_child if isinstance(last_child, list) else [last_child]:
                alternative.last = True
        following = self.peek()
        if following is not None and following[0] == "quantifier":
            # ``?`` on a node without children, not anchored (checked in _compile too).
            if self.take()[1] != "?" or depth == 0 or step.children or step.negated:
                raise Unsupported("quantifier")
            step.optional = True
        if depth > 0:
            self.captures_of(step)
        return step

    def alternation(self, depth: int, field: int) -> list[_Step]:
        """``[(a) (b !f) ...] @x``: nodes, each one of the ways to match (no quantifier)."""
        self.take()
        alternatives: list[_Step] = []
        while self.peek() != ("paren", "]"):
            alternatives.append(self.node(depth, field))
        self.take()
        following = self.peek()
        if not alternatives or (following is not None and following[0] == "quantifier"):
            raise Unsupported("alternation")
        captures = _Step(0, 0, depth)
        self.captures_of(captures)
        for alternative in alternatives:
            if alternative.optional or len(alternative.captures) + len(captures.captures) > _MOST_CAPTURES:
                raise Unsupported("alternation")
            alternative.captures.extend(captures.captures)
        return alternatives


def _variants(step: _Step) -> list[list[_Step]]:
    """The sequences of steps (in preorder) that ``step``'s alternations expand to: tree-sitter
    matches each alternative as a state of its own, so a pattern's matches are those of all its
    sequences."""
    found: list[list[_Step]] = [[step.copy()]]
    for child in step.children:
        options = [x for alternative in (child if isinstance(child, list) else [child]) for x in _variants(alternative)]
        found = [head + tail for head in found for tail in options]
        if len(found) > _MOST_VARIANTS:
            raise Unsupported("too many alternatives")
    return found


def _compile(language: Any, text: str, captures: dict[str, int]) -> list[list[_Step]]:
    parser = _Parser(language, _tokens(text), captures)
    variants = _variants(parser.pattern())
    for steps in variants:
        root = steps[0]
        children = [s for s in steps if s.depth == 1]
        if root.symbol < 0:
            # A wildcard root is read from its child (as tree-sitter's cursor does): one child
            # of a known type, not anchored, and nothing else on the root.
            if root.field or root.negated or len(children) != 1 or children[0].symbol < 0 or children[0].immediate:
                raise Unsupported("wildcard root")
        if root.field:
            raise Unsupported("root field")
        for index, step in enumerate(steps):
            # An optional node is read only followed by a sibling step, without anchors.
            if step.optional and (
                index + 1 == len(steps) or steps[index + 1].depth != step.depth or step.immediate or step.last or steps[index + 1].immediate
            ):
                raise Unsupported("optional")
    if len(variants) > 1 and any(step.optional or step.immediate or step.last for steps in variants for step in steps):
        raise Unsupported("alternatives with anchors or optional nodes")
    return variants


def table(language: Any, query: Any, text: bytes) -> bytes | None:
    """The matcher's table of ``query`` (a tree_sitter.Query compiled from ``text`` for
    ``language``), or None when a pattern uses what the matcher does not read.

    The table is 32-bit integers (native byte order): the number of entries, then per entry
    its pattern's index, its step count and its steps, ``STEP_SIZE`` integers each (see the
    constant). A pattern has an entry per sequence its alternations expand to."""
    captures = {query.capture_name(i): i for i in range(query.capture_count)}
    values = array("i", [0])
    try:
        for pattern in range(query.pattern_count):
            source = text[query.start_byte_for_pattern(pattern) : query.end_byte_for_pattern(pattern)].decode()
            for steps in _compile(language, source, captures):
                values[0] += 1
                values.extend([pattern, len(steps)])
                for step in steps:
                    capture_ids = [*step.captures, -1, -1, -1][:_MOST_CAPTURES]
                    negated = [*step.negated, 0, 0, 0][:_MOST_NEGATED]
                    values.extend(
                        [
                            step.depth,
                            step.symbol,
                            step.supertype,
                            step.field,
                            int(step.immediate),
                            int(step.last),
                            int(step.optional),
                            *capture_ids,
                            *negated,
                        ]
                    )
    except (Unsupported, UnicodeDecodeError):
        return None
    return values.tobytes()
