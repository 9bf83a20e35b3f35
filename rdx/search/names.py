"""Declaration name search: exact, prefix and fuzzy matching with a deterministic ranking.

Reads a resolved state only. Fuzzy matching splits names into sub-word tokens (``::``, ``#``,
``_`` and camel-case boundaries) so ``ActRec`` finds ``ActiveRecord`` and ``find_by`` finds
``find_by_sql``; ties are broken by name so results are stable across runs.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable

from rdx.model.declarations import DeclarationRecord

__all__ = ["MATCH_MODES", "search_declarations"]

MATCH_MODES = ("exact", "prefix", "fuzzy")
_TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^\w\s:#]+")


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _subsequence(query: str, text: str) -> bool:
    it = iter(text)
    return all(ch in it for ch in query)


def _not_char(ch: str) -> str:
    """A regex character class for anything but ``ch`` and a newline."""
    return "[^\\n" + ("\\" + ch if ch in "\\]^-[" else ch) + "]"


# Token strings by name, shared by the indexes of successive revisions (names rarely change).
_TOKEN_STRINGS: dict[str, str] = {}
_TOKEN_CACHE_LIMIT = 1_000_000


def _token_string(name: str) -> str:
    found = _TOKEN_STRINGS.get(name)
    if found is None:
        if len(_TOKEN_STRINGS) > _TOKEN_CACHE_LIMIT:
            _TOKEN_STRINGS.clear()
        found = _TOKEN_STRINGS[name] = " ".join(_tokens(name))
    return found


class _Haystack:
    """Lines joined into one string, so ``str.find`` and ``re`` scan them all in C; a match
    position maps back to its line with a binary search over the line starts."""

    __slots__ = ("starts", "text")

    def __init__(self, lines: list[str]) -> None:
        self.text = "\n".join(lines) + "\n"
        starts = [0] * len(lines)
        pos = 0
        for i, line in enumerate(lines):
            starts[i] = pos
            pos += len(line) + 1
        self.starts = starts

    def find_all(self, needle: str, into: set[int]) -> None:
        text, starts = self.text, self.starts
        i = text.find(needle)
        while i != -1:
            line = bisect_right(starts, i) - 1
            into.add(line)
            nxt = line + 1
            if nxt >= len(starts):
                break
            i = text.find(needle, starts[nxt])

    def search_all(self, pattern: re.Pattern[str], into: set[int]) -> None:
        starts = self.starts
        for m in pattern.finditer(self.text):
            into.add(bisect_right(starts, m.start()) - 1)


class SearchIndex:
    """Everything a search scans, computed once per resolved state: lower-cased names and
    unqualified names, their sub-word tokens, and haystacks of each for fast candidate
    selection. Candidates are then scored exactly as an unindexed search would."""

    __slots__ = ("_by_name", "_by_unqualified", "_names", "_sorted_names", "_sorted_unqualified", "_tokens", "_unqualified", "entries")

    def __init__(self, records: Iterable[DeclarationRecord]) -> None:
        self.entries = [(rec, rec.name.lower(), rec.unqualified.lower().rstrip("()")) for rec in records]
        self._names = _Haystack([e[1] for e in self.entries])
        self._unqualified = _Haystack([e[2] for e in self.entries])
        self._tokens: _Haystack | None = None
        self._by_name: dict[str, list[int]] | None = None
        self._by_unqualified: dict[str, list[int]] = {}
        self._sorted_names: list[tuple[str, int]] | None = None
        self._sorted_unqualified: list[tuple[str, int]] = []

    def prepare(self) -> None:
        """Build what the first queries would build lazily (token haystack, lookup tables)."""
        self._token_haystack()
        self.exact("")
        self.prefix("\uffff")

    def tokens(self, rec: DeclarationRecord) -> list[str]:
        text = _token_string(rec.name)
        return text.split(" ") if text else []

    def _token_haystack(self) -> _Haystack:
        if self._tokens is None:
            # Every token follows a space, so a pattern starts with a literal `` tok``, which
            # ``re`` scans for quickly (a leading ``^|`` alternation is ten times slower).
            self._tokens = _Haystack([" " + _token_string(e[0].name) for e in self.entries])
        return self._tokens

    def fuzzy_candidates(self, query: str) -> set[int] | None:
        """Entries that may match ``query`` fuzzily (a superset of the matches), or None when
        the query cannot be searched this way and every entry must be scored."""
        if "\n" in query or not query:
            return None
        q = query.lower()
        found: set[int] = set()
        self._unqualified.find_all(q, found)  # equal, prefix or substring of the unqualified name
        self._names.find_all(q, found)  # substring of the qualified name
        qt = _tokens(query)
        if qt:
            # Sub-word prefixes in order: each query token starts some later name token.
            gap = r"[^ \n]*(?: [^ \n]*)*? "
            self._token_haystack().search_all(re.compile(" " + gap.join(re.escape(t) for t in qt)), found)
        if len(q) >= 3:
            # A subsequence of the unqualified name; each gap stops at the next wanted character,
            # so the pattern never backtracks.
            parts = [re.escape(q[0])]
            for ch in q[1:]:
                parts.append(_not_char(ch) + "*" + re.escape(ch))
            self._unqualified.search_all(re.compile("".join(parts)), found)
        return found

    def exact(self, query: str) -> list[int]:
        if self._by_name is None:
            self._by_name = {}
            for i, (rec, _, _) in enumerate(self.entries):
                self._by_name.setdefault(rec.name, []).append(i)
                self._by_unqualified.setdefault(rec.unqualified, []).append(i)
        out = list(self._by_name.get(query, ()))
        out += self._by_unqualified.get(query, ())
        out += self._by_unqualified.get(query + "()", ())
        return out

    def prefix(self, query: str) -> list[int]:
        if self._sorted_names is None:
            self._sorted_names = sorted((rec.name, i) for i, (rec, _, _) in enumerate(self.entries))
            self._sorted_unqualified = sorted((rec.unqualified, i) for i, (rec, _, _) in enumerate(self.entries))
        out: list[int] = []
        for table in (self._sorted_names, self._sorted_unqualified):
            lo = bisect_left(table, (query, -1))
            while lo < len(table) and table[lo][0].startswith(query):
                out.append(table[lo][1])
                lo += 1
        return out


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
    records: Iterable[DeclarationRecord],
    query: str,
    mode: str = "fuzzy",
    kind: str | None = None,
    index: SearchIndex | None = None,
    demoted: Callable[[DeclarationRecord], bool] | None = None,
) -> list[DeclarationRecord]:
    """All matching records, best first (then by name). With an ``index`` (built from the same
    records), only candidates it selects are scored; the answer is the same. Records ``demoted``
    says yes to (a project's gems) come after the others of the same match tier."""
    if mode not in MATCH_MODES:
        raise ValueError(f"match mode {mode!r} is not one of {', '.join(MATCH_MODES)}")
    entries: Iterable[tuple[DeclarationRecord, str | None, str | None]]
    if index is None:
        entries = ((rec, None, None) for rec in records)
    else:
        chosen: Iterable[int] | None
        if mode == "exact":
            chosen = set(index.exact(query))
        elif mode == "prefix":
            chosen = set(index.prefix(query))
        else:
            chosen = index.fuzzy_candidates(query)
        entries = index.entries if chosen is None else [index.entries[i] for i in sorted(chosen)]
    scored: list[tuple[float, str, DeclarationRecord]] = []
    qt = _tokens(query)
    for rec, name, unq in entries:
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
        else:
            score = _fuzzy_score(query, rec, name, unq, index, qt)
            if score is not None:
                scored.append((score, rec.name, rec))
    if demoted is not None:
        scored = [(score + 0.5, name, rec) if demoted(rec) else (score, name, rec) for score, name, rec in scored]
    scored.sort(key=lambda x: (x[0], x[1]))
    return [rec for _, _, rec in scored]
