"""Ranked-search queries: words, ``AND``/``OR``/``NOT``/``-word``, ``"phrases"`` and
``prefix*``, turned into an FTS5 expression and the plain words re-scoring weighs.

Words are split like names (``findEach`` -> find each) and everyday filler words ("the",
"how", "should") are dropped; plain words are ORed, so a declaration covering more of them
ranks higher.
"""

from __future__ import annotations

import re

__all__ = ["ParsedQuery", "fts_word", "parse_query", "split_words"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_QUERY_TOKEN = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+')
STOP_WORDS = frozenset(
    "a an the of to in on for and or with from by as at is it its this that these those be been being are was were "
    "do does did has have had how what which when where who why can could i me my we our you your should would will "
    "into onto out over than then so all any some one each every get gets use using used just like not no there "
    "their them they whether if else also only".split()
)


def split_words(name: str) -> list[str]:
    """Sub-words of an identifier, lower-cased: ``HTTPServer_v2`` -> http, server, v, 2."""
    return [w.lower() for w in _WORD.findall(name)]


class ParsedQuery:
    """``expression`` (FTS5; None when nothing is searchable), the plain ``words``, whether
    the query ``excludes`` anything and whether it is ``plain`` (single words ORed)."""

    __slots__ = ("excludes", "expression", "plain", "words")

    def __init__(self, expression: str | None, words: list[str], excludes: bool, plain: bool) -> None:
        self.expression = expression
        self.words = words
        self.excludes = excludes
        self.plain = plain


def fts_word(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def parse_query(query: str) -> ParsedQuery:
    """``query`` parsed; plain words are ORed unless joined by AND; ``NOT x`` and ``-x``
    exclude."""
    plain = True
    positive: list[str] = []
    negative: list[str] = []
    words: list[str] = []
    pending_op: str | None = None
    negate = False
    for token in _QUERY_TOKEN.findall(query):
        if token in ("AND", "OR", "NOT"):
            plain = False
            if token == "NOT":
                negate = True
            else:
                pending_op = token
            continue
        if token.startswith("-") and len(token) > 1:
            negate, token = True, token[1:]
        if token.startswith('"') or token.endswith("*") or negate:
            plain = False
        term, found = _term(token)
        if term is None:
            continue
        if negate:
            negative.append(term)
        else:
            words += found
            positive.append(f"{pending_op or 'OR'} {term}" if positive else term)
        negate, pending_op = False, None
    if not positive:
        return ParsedQuery(None, [], bool(negative), False)
    expression = " ".join(positive)
    if negative:
        expression = f"({expression}) NOT ({' OR '.join(negative)})"
    return ParsedQuery(expression, words, bool(negative), plain)


def _term(token: str) -> tuple[str | None, list[str]]:
    """One query token as an FTS5 term (a phrase, a prefix, or the AND of its sub-words)."""
    if token.startswith('"'):
        text = token.strip('"').lower()
        return (fts_word(text), split_words(text)) if text.strip() else (None, [])
    prefix = token.endswith("*")
    pieces = split_words(token.strip("*()"))
    if not pieces:
        return None, []
    if prefix:
        items = [fts_word(p) for p in pieces[:-1]] + [fts_word(pieces[-1]) + "*"]
        return ("(" + " AND ".join(items) + ")" if len(items) > 1 else items[0]), pieces[:-1]
    kept = [p for p in pieces if p not in STOP_WORDS]
    if not kept:
        return None, []
    return ("(" + " AND ".join(fts_word(p) for p in kept) + ")" if len(kept) > 1 else fts_word(kept[0])), kept
