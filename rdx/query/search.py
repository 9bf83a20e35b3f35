"""Declaration name search: exact, prefix and fuzzy matching with a deterministic ranking.

Reads a resolved state only. Fuzzy matching splits names into sub-word tokens (``::``, ``#``,
``_`` and camel-case boundaries) so ``ActRec`` finds ``ActiveRecord`` and ``find_by`` finds
``find_by_sql``; ties are broken by name so results are stable across runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rdx.model.declarations import DeclarationRecord

__all__ = ["MATCH_MODES", "search_declarations"]

MATCH_MODES = ("exact", "prefix", "fuzzy")
_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^\w\s:#]+")


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _subsequence(query: str, text: str) -> bool:
    it = iter(text)
    return all(ch in it for ch in query)


class SearchIndex:
    """Lower-cased names and sub-word tokens of every declaration, computed once per resolved
    state so that each search is a scan of precomputed strings."""

    __slots__ = ("entries", "_tokens")

    def __init__(self, records: Iterable[DeclarationRecord]) -> None:
        self.entries = [(rec, rec.name.lower(), rec.unqualified.lower().rstrip("()")) for rec in records]
        self._tokens: dict[int, list[str]] = {}

    def tokens(self, rec: DeclarationRecord) -> list[str]:
        found = self._tokens.get(rec.id)
        if found is None:
            found = self._tokens[rec.id] = _tokens(rec.name)
        return found


def _fuzzy_score(query: str, rec: DeclarationRecord, name: str | None = None, unq: str | None = None, index: SearchIndex | None = None, qt: list[str] | None = None) -> float | None:
    """Lower is better; None when ``query`` does not match at all."""
    q = query.lower()
    if name is None:
        name = rec.name.lower()
    if unq is None:
        unq = rec.unqualified.lower().rstrip("()")
    if unq == q or name == q:
        return 0.0
    if unq.startswith(q):
        return 1.0 + len(unq) / 1000
    if q in unq:
        return 2.0 + unq.index(q) / 100 + len(unq) / 1000
    if q in name:
        return 3.0 + len(name) / 1000
    # Sub-word prefixes in order: "ActRec" -> ["act", "rec"] against ["active", "record"].
    if qt is None:
        qt = _tokens(query)
    if qt and qt[0][:1] not in name:
        qt_possible = False
    else:
        qt_possible = bool(qt)
    nt = (index.tokens(rec) if index is not None else _tokens(rec.name)) if qt_possible else []
    if qt_possible:
        i = 0
        for tok in nt:
            if i < len(qt) and tok.startswith(qt[i]):
                i += 1
        if i == len(qt):
            return 4.0 + len(nt) / 100
    if len(q) >= 3 and _subsequence(q, unq):
        return 5.0 + len(unq) / 100
    return None


def search_declarations(
    records: Iterable[DeclarationRecord], query: str, mode: str = "fuzzy", kind: str | None = None, index: SearchIndex | None = None
) -> list[DeclarationRecord]:
    """All matching records, best first (then by name)."""
    if mode not in MATCH_MODES:
        raise ValueError(f"match mode {mode!r} is not one of {', '.join(MATCH_MODES)}")
    scored: list[tuple[float, str, DeclarationRecord]] = []
    for rec in records:
        if kind is not None and rec.kind != kind:
            continue
        if mode == "exact":
            if rec.name == query or rec.unqualified == query or rec.unqualified == query + "()":
                scored.append((0.0 if rec.name == query else 1.0, rec.name, rec))
        elif mode == "prefix":
            if rec.name.startswith(query):
                scored.append((0.0, rec.name, rec))
            elif rec.unqualified.startswith(query):
                scored.append((1.0, rec.name, rec))
        elif index is None:
            score = _fuzzy_score(query, rec)
            if score is not None:
                scored.append((score, rec.name, rec))
    if mode == "fuzzy" and index is not None:
        qt = _tokens(query)
        for rec, name, unq in index.entries:
            if kind is not None and rec.kind != kind:
                continue
            score = _fuzzy_score(query, rec, name, unq, index, qt)
            if score is not None:
                scored.append((score, rec.name, rec))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [rec for _, _, rec in scored]
