"""Declaration name search: exact, prefix and fuzzy matching with a deterministic ranking,
and the suggestions for a name that names nothing (``suggest_names``).

Reads a resolved state only. Fuzzy matching splits names into sub-word tokens (``::``, ``#``,
``_`` and camel-case boundaries) so ``ActRec`` finds ``ActiveRecord`` and ``find_by`` finds
``find_by_sql``; ties are broken by name so results are stable across runs.

Typos: a name whose unqualified part is within a few edits of the query's last segment
(optimal string alignment, Damerau–Levenshtein's adjacent transpositions included: ``Oder``,
``Specificatoin``) matches too. The edits allowed grow with the segment's length
(``typo_budget``): none below four characters, one up to seven, two from eight; a qualified
query also matches its last segment under a namespace a typo away (``Sprea::Order``). Typos
rank after the prefix matches and before the substrings, one edit before two; between typos of
a qualified query (``Spree::Oder``), the one nearest to the whole name comes first.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import accumulate

from rdx.model.declarations import DeclarationRecord

__all__ = ["MATCH_MODES", "search_declarations", "suggest_names", "typo_budget", "typo_distance"]

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


# Token strings by name segment (the text between ``::`` and ``#``), shared by the indexes of
# successive revisions. No token spans a ``:`` or a ``#`` (``_TOKEN`` matches neither, and
# ``[A-Z]+(?![a-z])`` sees neither as a lower-case letter), so a name's tokens are its
# segments' tokens one after the other. Kept by segment rather than by whole name: a project's
# names are far fewer distinct segments (``Spree``, ``Order``, ``total()``) than names, so the
# cache no longer holds a string per declaration (10 copies of the Debian corpus: 980,000
# names, 50,000 segments; the cache by name held 120 MiB; issue 23).
_TOKEN_STRINGS: dict[str, str] = {}
_TOKEN_CACHE_LIMIT = 1_000_000


def _segment_tokens(segment: str) -> str:
    found = _TOKEN_STRINGS.get(segment)
    if found is None:
        if len(_TOKEN_STRINGS) > _TOKEN_CACHE_LIMIT:
            _TOKEN_STRINGS.clear()
        found = _TOKEN_STRINGS[segment] = " ".join(_tokens(segment))
    return found


def _token_string(name: str) -> str:
    """The lower-cased tokens of ``name`` joined by spaces (``_tokens``, from the segment cache)."""
    if ":" not in name and "#" not in name:
        return _segment_tokens(name)
    return " ".join([text for text in map(_segment_tokens, name.replace("#", ":").split(":")) if text])


def typo_distance(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance between ``a`` and ``b`` (insertions, deletions,
    substitutions and transpositions of adjacent characters, each costing one; no substring
    edited twice), or ``limit + 1`` as soon as it is known to exceed ``limit``."""
    if a == b:
        return 0
    over = limit + 1
    la, lb = len(a), len(b)
    if abs(la - lb) > limit:
        return over
    # A common prefix and suffix cost nothing: only the middles are aligned.
    start = 0
    while start < la and start < lb and a[start] == b[start]:
        start += 1
    while la > start and lb > start and a[la - 1] == b[lb - 1]:
        la -= 1
        lb -= 1
    a, b = a[start:la], b[start:lb]
    la, lb = len(a), len(b)
    if not la or not lb:
        return la + lb if la + lb <= limit else over
    # Only the cells within ``limit`` of the diagonal can stay within ``limit``; the others
    # stay ``over``. Rows: ``before`` (i - 2), ``prev`` (i - 1), ``cur`` (i).
    before = [over] * (lb + 1)
    prev = [j if j <= limit else over for j in range(lb + 1)]
    for i in range(1, la + 1):
        ca = a[i - 1]
        cur = [over] * (lb + 1)
        if i <= limit:
            cur[0] = i
        low = over
        for j in range(i - limit if i > limit else 1, (i + limit if i + limit < lb else lb) + 1):
            cb = b[j - 1]
            v = prev[j - 1] + (ca != cb)
            x = prev[j] + 1
            if x < v:
                v = x
            x = cur[j - 1] + 1
            if x < v:
                v = x
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                x = before[j - 2] + 1
                if x < v:
                    v = x
            cur[j] = v
            if v < low:
                low = v
        if low > limit:
            return over
        before, prev = prev, cur
    return prev[lb] if prev[lb] <= limit else over


def typo_budget(segment: str) -> int:
    """Edits a name segment of this length may be off by and still match: a short one is
    too easily one edit from unrelated names."""
    n = len(segment)
    return 0 if n < 4 else 1 if n < 8 else 2


def _last_segment(lowered: str) -> str:
    """The unqualified part of a lower-cased query, as ``SearchIndex`` keeps unqualified
    names: ``spree::order#total()`` -> ``total``."""
    return lowered.rstrip("()").rsplit("#", 1)[-1].rsplit("::", 1)[-1]


def _whole(lowered: str) -> str:
    return lowered.removeprefix("::").rstrip("()")


def _dropped(typed: str, name: str) -> int:
    """How many of the letters typed ``name`` lacks (at most 9): a typo more often misses or
    swaps letters than mistypes one."""
    return min(9, sum((Counter(typed) - Counter(name)).values()))


def _typo_rank(last: str, whole: str | None, budget: int, name: str, unq: str) -> tuple[int, int] | None:
    """(edits, edits to the whole name capped at 9) when the declaration ``name`` (unqualified
    ``unq``) is a typo of the query: its last segment ``last`` within ``budget`` edits of
    ``unq``, or, for a qualified query (``whole``), the same last segment under a namespace a
    typo away (``Sprea::Order``). None otherwise, and for an exact match (the other tiers')."""
    d = typo_distance(last, unq, budget)
    if d > budget:
        return None
    if whole is None:
        return (d, d) if d else None
    if d == 0:
        near = typo_budget(whole)
        dw = typo_distance(whole, _whole(name), near)
        return (1, dw) if 0 < dw <= near else None
    return d, typo_distance(whole, _whole(name), 8)


class _Haystack:
    """Lines joined into one string, so ``str.find`` and ``re`` scan them all in C; a match
    position maps back to its line with a binary search over the line starts. The starts are
    a machine-integer array (one line per declaration: a list would hold an int object for
    each), with the end of the text last, so that ``line`` can cut a line out again."""

    __slots__ = ("starts", "text")

    def __init__(self, lines: list[str]) -> None:
        self.text = "\n".join(lines) + "\n"
        self.starts = array("q", accumulate((len(line) + 1 for line in lines), initial=0))

    def __len__(self) -> int:
        return len(self.starts) - 1

    def line(self, i: int) -> str:
        return self.text[self.starts[i] : self.starts[i + 1] - 1]

    def size(self, i: int) -> int:
        """The length of line ``i``."""
        return self.starts[i + 1] - self.starts[i] - 1

    def find_all(self, needle: str, into: set[int]) -> None:
        text, starts = self.text, self.starts
        last = len(starts) - 1
        i = text.find(needle)
        while i != -1:
            line = bisect_right(starts, i) - 1
            into.add(line)
            nxt = line + 1
            if nxt >= last:
                break
            i = text.find(needle, starts[nxt])

    def search_all(self, pattern: re.Pattern[str], into: set[int]) -> None:
        starts = self.starts
        for m in pattern.finditer(self.text):
            into.add(bisect_right(starts, m.start()) - 1)


class SearchIndex:
    """Everything a search scans, computed once per resolved state: lower-cased names and
    unqualified names, their sub-word tokens, and haystacks of each for fast candidate
    selection. Candidates are then scored exactly as an unindexed search would.

    Entry ``i`` is the ``i``-th record given. Nothing here holds a Python object per entry
    besides the record itself (a server keeps one index for every declaration of a large
    project, issue 21): the lower-cased names are lines of the haystacks, cut out when an
    entry is scored (``entry``); exact and prefix lookups bisect arrays of entry numbers
    sorted by name; typos look in the distinct unqualified names, grouped by length, whose
    entries are runs of one more sorted array."""

    __slots__ = (
        "_by_name", "_by_unqualified", "_distinct", "_distinct_runs", "_lengths", "_names", "_tokens", "_typo_order", "_unqualified", "records",
    )

    def __init__(self, records: Iterable[DeclarationRecord]) -> None:
        self.records = list(records)
        self._names = _Haystack([rec.name.lower() for rec in self.records])
        self._unqualified = _Haystack([rec.unqualified.lower().rstrip("()") for rec in self.records])
        self._tokens: _Haystack | None = None
        # Entry numbers sorted by name and by unqualified name (as written), for ``exact`` and ``prefix``.
        self._by_name: array[int] | None = None
        self._by_unqualified: array[int] = array("i")
        # For typos: the distinct lower-cased unqualified names sorted by (length, name); the
        # entries of ``_distinct[k]`` are ``_typo_order[_distinct_runs[k]:_distinct_runs[k + 1]]``;
        # ``_lengths`` maps a length to its range of ``_distinct``.
        self._distinct: list[str] | None = None
        self._distinct_runs: array[int] = array("i")
        self._typo_order: array[int] = array("i")
        self._lengths: dict[int, tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self.records)

    def entry(self, i: int) -> tuple[DeclarationRecord, str, str]:
        """Entry ``i``: its record, lower-cased name and lower-cased unqualified name (without ``()``)."""
        return self.records[i], self._names.line(i), self._unqualified.line(i)

    def prepare(self) -> None:
        """Build what the first queries would build lazily (token haystack, lookup tables)."""
        self._token_haystack()
        self.exact("")
        self.typo_candidates("", 0)

    def _typo_tables(self) -> list[str]:
        if self._distinct is None:
            unqualified = self._unqualified
            lowered = [unqualified.line(i) for i in range(len(unqualified))]
            # By name, then (stably) by length: both sorts compare in C.
            order = sorted(range(len(lowered)), key=lowered.__getitem__)
            order.sort(key=unqualified.size)
            distinct: list[str] = []
            runs = array("i")
            lengths: dict[int, tuple[int, int]] = {}
            previous = None
            for position, i in enumerate(order):
                unq = lowered[i]
                if unq != previous:
                    size = len(unq)
                    lo, _ = lengths.get(size, (len(distinct), 0))
                    lengths[size] = (lo, len(distinct) + 1)
                    distinct.append(unq)
                    runs.append(position)
                    previous = unq
            runs.append(len(order))
            self._typo_order = array("i", order)
            self._distinct_runs, self._lengths = runs, lengths
            self._distinct = distinct
        return self._distinct

    def _entries_of(self, k: int) -> array[int]:
        return self._typo_order[self._distinct_runs[k] : self._distinct_runs[k + 1]]

    def typo_candidates(self, last: str, budget: int) -> list[int]:
        """Entries whose unqualified name is within ``budget`` edits of ``last`` (lower-cased),
        ``last`` itself included."""
        distinct = self._typo_tables()
        if not last:
            return []
        size = len(last)
        lo, hi = self._lengths.get(size, (0, 0))
        k = bisect_left(distinct, last, lo, hi)
        out = list(self._entries_of(k)) if k < hi and distinct[k] == last else []
        if budget <= 0:
            return out
        # Each edit breaks at most three of ``last``'s two-letter pairs (a transposition: the
        # pair it swaps and both neighbours), so a name holding fewer of them than that allows
        # is too far without aligning it.
        pairs = {last[i : i + 2] for i in range(size - 1)}
        needed = len(pairs) - 3 * budget
        for length in range(size - budget, size + budget + 1):
            lo, hi = self._lengths.get(length, (0, 0))
            for k in range(lo, hi):
                unq = distinct[k]
                if needed > 0 and sum(pair in unq for pair in pairs) < needed:
                    continue
                if unq != last and typo_distance(last, unq, budget) <= budget:
                    out += self._entries_of(k)
        return out

    def tokens(self, rec: DeclarationRecord) -> list[str]:
        text = _token_string(rec.name)
        return text.split(" ") if text else []

    def _token_haystack(self) -> _Haystack:
        if self._tokens is None:
            # Every token follows a space, so a pattern starts with a literal `` tok``, which
            # ``re`` scans for quickly (a leading ``^|`` alternation is ten times slower).
            self._tokens = _Haystack([" " + _token_string(rec.name) for rec in self.records])
        return self._tokens

    def fuzzy_candidates(self, query: str, typo: _Typo | None = None) -> set[int] | None:
        """Entries that may match ``query`` fuzzily (a superset of the matches), or None when
        the query cannot be searched this way and every entry must be scored."""
        if "\n" in query or not query:
            return None
        q = query.lower()
        found: set[int] = set(self.typo_candidates(typo[0], typo[2])) if typo is not None else set()
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

    def _sorted_tables(self) -> tuple[array[int], array[int]]:
        if self._by_name is None:
            records = self.records
            names = [rec.name for rec in records]
            self._by_name = array("i", sorted(range(len(names)), key=names.__getitem__))
            names = [rec.unqualified for rec in records]
            self._by_unqualified = array("i", sorted(range(len(names)), key=names.__getitem__))
        return self._by_name, self._by_unqualified

    def _starting(self, table: array[int], text: Callable[[int], str], query: str, whole: bool) -> list[int]:
        """Entries of ``table`` (sorted by ``text``) whose text is ``query`` (``whole``) or starts with it."""
        out: list[int] = []
        i = bisect_left(table, query, key=text)
        while i < len(table):
            found = text(table[i])
            if (found != query) if whole else not found.startswith(query):
                break
            out.append(table[i])
            i += 1
        return out

    def _name(self, i: int) -> str:
        return self.records[i].name

    def _unqualified_name(self, i: int) -> str:
        return self.records[i].unqualified

    def exact(self, query: str) -> list[int]:
        by_name, by_unqualified = self._sorted_tables()
        out = self._starting(by_name, self._name, query, True)
        out += self._starting(by_unqualified, self._unqualified_name, query, True)
        out += self._starting(by_unqualified, self._unqualified_name, query + "()", True)
        return out

    def prefix(self, query: str) -> list[int]:
        by_name, by_unqualified = self._sorted_tables()
        return self._starting(by_name, self._name, query, False) + self._starting(by_unqualified, self._unqualified_name, query, False)


# A query's typo search: (last segment, whole qualified name or None, edits allowed).
_Typo = tuple[str, str | None, int]


def _typo_query(query: str) -> _Typo | None:
    """What a query's typos are measured on; None when its last segment is too short for any."""
    q = query.lower()
    last = _last_segment(q)
    budget = typo_budget(last)
    if budget == 0 or "\n" in q:
        return None
    return last, (_whole(q) if "::" in q or "#" in q else None), budget


def _fuzzy_score(
    query: str,
    rec: DeclarationRecord,
    name: str | None = None,
    unq: str | None = None,
    index: SearchIndex | None = None,
    qt: list[str] | None = None,
    typo: _Typo | None = None,
) -> float | None:
    """Lower is better; None when ``query`` does not match at all."""
    q = query.lower()
    if name is None:
        name = rec.name.lower()
    if unq is None:
        unq = rec.unqualified.lower().rstrip("()")
    score = _plain_score(query, q, rec, name, unq, index, qt)
    if typo is not None and (score is None or score > _TYPO_TIER):
        # One edit ranks before two; among typos of a qualified query, the nearer whole name;
        # then one that keeps the first letter (``Oder``: ``Order`` before ``Coder``) and every
        # letter typed (``Order`` before ``Over``).
        ranked = _typo_rank(typo[0], typo[1], typo[2], name, unq)
        if ranked is not None:
            first = unq[:1] != typo[0][:1]
            # Last, the shorter name (``Strng``: ``String`` before ``ActionCable::VERSION::STRING``).
            return (
                _TYPO_TIER + (ranked[0] - 1) / 5 + min(ranked[1], 9) / 100 + first / 500 + _dropped(typo[0], unq) / 5000
                + len(unq) / 100000 + min(len(name), 999) / 10**8
            )
    return score


_TYPO_TIER = 1.5  # After prefixes (1.x), before substrings (2.x).


def _plain_score(query: str, q: str, rec: DeclarationRecord, name: str, unq: str, index: SearchIndex | None, qt: list[str] | None) -> float | None:
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
    typos: bool = True,
) -> list[DeclarationRecord]:
    """All matching records, best first (then by name). With an ``index`` (built from the same
    records), only candidates it selects are scored; the answer is the same. Records ``demoted``
    says yes to (a project's gems) come after the others of the same match tier. Fuzzy matching
    takes typos of the last segment unless ``typos`` is false (see the module docstring)."""
    if mode not in MATCH_MODES:
        raise ValueError(f"match mode {mode!r} is not one of {', '.join(MATCH_MODES)}")
    typo = _typo_query(query) if typos and mode == "fuzzy" else None
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
            chosen = index.fuzzy_candidates(query, typo)
        entries = (index.entry(i) for i in (range(len(index)) if chosen is None else sorted(chosen)))
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
            score = _fuzzy_score(query, rec, name, unq, index, qt, typo)
            if score is not None:
                scored.append((score, rec.name, rec))
    if demoted is not None:
        scored = [(score + 0.5, name, rec) if demoted(rec) else (score, name, rec) for score, name, rec in scored]
    scored.sort(key=lambda x: (x[0], x[1]))
    return [rec for _, _, rec in scored]


# What a constant path names: namespaces and constants (the other kinds are members: ``Foo#x``).
_CONSTANT_KINDS = frozenset({"Class", "Module", "SingletonClass", "Todo", "Constant", "ConstantAlias"})


def suggest_names(
    query: str,
    index: SearchIndex,
    limit: int = 5,
    demoted: Callable[[DeclarationRecord], bool] | None = None,
    fill: bool = True,
) -> list[DeclarationRecord]:
    """What the name ``query``, which names no declaration, may have meant, nearest first.

    Typos first: declarations whose unqualified name is within a few edits of the query's last
    segment (transpositions count as one; one edit for three to seven characters, two from
    eight), or that have its last segment under another namespace (``Spree::Order`` ->
    ``Shop::Order``). Members (methods, variables) come first for a name that is not
    capitalized, constants for a capitalized one; then they rank by their distance to the whole query when it is qualified
    (``Spree::Oder`` -> ``Spree::Order`` before ``Shop::Order`` and ``Spree::Coder``), the same
    first letter, every letter typed (``Oder`` -> ``Order`` before ``Over``), the project
    before its gems, the shorter name. A qualified name suggests only methods when it names one
    (``#``), only constants when it is a constant path. Then, to fill ``limit``, what fuzzy name
    search finds for the last segment (unless ``fill`` is false)."""
    text = query.strip()
    q = text.lower()
    last = _last_segment(q)
    if not last:
        return []
    whole = _whole(q) if "::" in q or "#" in q else None
    budget = max(typo_budget(last), 1 if len(last) >= 3 else 0)
    method = "#" in q or q.endswith("()") or (whole is None and not text[:1].isupper())
    # A qualified name says what it names: a method (``#``) or a constant path (``::``).
    strict = whole is not None

    def mismatch(rec: DeclarationRecord) -> bool:
        # Members (methods, instance and class variables) after ``#``; constants after ``::``.
        return (rec.kind not in _CONSTANT_KINDS) != method

    def wanted(rec: DeclarationRecord) -> bool:
        return (rec.kind != "SingletonClass" or "<" in q) and not (strict and mismatch(rec))

    ranked: list[tuple[tuple[object, ...], DeclarationRecord]] = []
    for i in index.typo_candidates(last, budget):
        rec, name, unq = index.entry(i)
        if not wanted(rec):
            continue
        d = typo_distance(last, unq, budget)
        primary = typo_distance(whole, _whole(name), 8) if whole is not None else d
        key = (mismatch(rec), primary, unq[:1] != last[:1], _dropped(last, unq), demoted is not None and demoted(rec), d, len(rec.name), rec.name)
        ranked.append((key, rec))
    ranked.sort(key=lambda x: x[0])
    out = [rec for _, rec in ranked[:limit]]
    if fill and len(out) < limit:
        seen = {rec.id for rec in out}
        segment = text.rstrip("()").rsplit("#", 1)[-1].rsplit("::", 1)[-1]
        more = [rec for rec in search_declarations((), segment, "fuzzy", None, index, demoted, typos=False) if rec.id not in seen and wanted(rec)]
        more.sort(key=mismatch)  # stable: the fuzzy order within each group
        out += more[: limit - len(out)]
    return out
