"""Re-scoring of ranked-search candidates (``SymbolIndex``'s second stage, see
``rdx.search.ranked``): IDF-weighted coverage of the query's stems by field (name > summary >
namespace > doc > path; related words count for a share), adjacent-word bonuses, exact,
prefix and snake_case name bonuses, and the prior. A mixin of ``SymbolIndex``: the index
supplies its database, stemmer and caches.

The collection statistics re-scoring reads (how many rows, how many rows hold a word) are the
index's own, or ``CollectionStatistics`` given for a search (``rdx fleet``: those of every
repository it serves, so that scores from different indexes compare). With given statistics
the nudge by the row's place in the BM25 candidate lists is left out: FTS5 computes BM25
from its own table's statistics only, so that place is not comparable across indexes."""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

from rdx.search.ranked_query import STOP_WORDS
from rdx.search.synonyms import related_words

if TYPE_CHECKING:
    from rdx.search.ranked import _Row

__all__ = ["CollectionStatistics", "Rescoring", "snake_join", "stem_map", "stem_text"]

_TEXT_WORD = re.compile(r"[A-Za-z]+|\d+")
# Where a query word was found, as a share of its IDF: name, summary, namespace, doc, path.
_FIELD = (1.0, 0.75, 0.45, 0.4, 0.25)
# A related word ("folder" asked, "dir" found) counts for this share of the word itself.
_RELATED_SHARE = 0.6
# Per pair of adjacent asked words found side by side in a summary.
_PHRASE = 0.3
# Words stemmed in one go (``stem_map``).
_STEM_BATCH = 20_000


class CollectionStatistics(msgspec.Struct, frozen=True):
    """What ranking knows of a collection of declarations: its ``rows`` and, per Porter stem,
    how many rows hold it (``documents``). Statistics of disjoint collections add up."""

    rows: int = 0
    documents: dict[str, int] = {}

    def plus(self, other: CollectionStatistics) -> CollectionStatistics:
        documents = dict(self.documents)
        for term, n in other.documents.items():
            documents[term] = documents.get(term, 0) + n
        return CollectionStatistics(self.rows + other.rows, documents)


def snake_join(query: str) -> str | None:
    """``"find by"`` -> ``"find_by"``: two to four plain words may name a snake_case method."""
    words = query.strip().lower().split()
    if 2 <= len(words) <= 4 and all(w.isidentifier() for w in words):
        return "_".join(words)
    return None


class Rescoring:
    """The re-scoring half of ``SymbolIndex`` (see the module docstring)."""

    _db: sqlite3.Connection
    _stemmer: sqlite3.Connection
    _stem_cache: dict[str, str]
    _fields: dict[int, tuple[str, str, str, str, str, str]]
    _term_rows: dict[str, int]
    _count: int
    # Statistics given for the search under way (``SymbolIndex.search``), else None: its own.
    _collection: CollectionStatistics | None = None

    def _rows_total(self) -> int:
        return self._collection.rows if self._collection is not None else self._count

    def _documents(self, terms: list[str]) -> dict[str, int]:
        """How many rows hold each of ``terms`` (Porter stems), absent ones left out."""
        if self._collection is not None:
            found = self._collection.documents
            return {t: found[t] for t in terms if t in found}
        known = self._term_rows  # Counts read before, until the rows change.
        missing = [t for t in terms if t not in known]
        if missing:
            found = dict(self._db.execute(f"SELECT term, doc FROM terms WHERE term IN ({','.join('?' * len(missing))})", missing).fetchall())
            if len(known) > 100_000:
                known.clear()
            for t in missing:
                known[t] = found.get(t, 0)
        return {t: n for t in terms if (n := known[t])}

    def _rescore(self, rows: list[_Row], query: str, words: list[str]) -> list[tuple[float, str, int]]:
        wanted = sorted(self._stems(words))
        idf = self._idf(wanted)
        # Stand-ins for each asked word (its related words' stems), found at a lower weight.
        alternatives: dict[str, set[str]] = {}
        for w in words:
            stem = self._stem_cache.get(w, w)
            alternatives.setdefault(stem, set()).update(x for x in self._stems(list(related_words(w))) if x != stem)
        probes = [
            (f" {t} ", idf[t], re.compile(" (?:" + "|".join(map(re.escape, sorted(alternatives[t]))) + ") ").search if alternatives.get(t) else None)
            for t in wanted
        ]
        total = sum(idf.values()) or 1.0
        plain = [w for w in _TEXT_WORD.findall(query.lower())]
        phrases = [f" {a} {b} " for a, b in zip(plain, plain[1:], strict=False) if a not in STOP_WORDS and b not in STOP_WORDS]
        q = query.strip().lower()
        # Declarations the query names exactly, or (one word of three letters or more) begins.
        named = {r.id: 100.0 for r in rows if q == r.lower_unqualified or q == r.lower_name}
        if len(q) > 2 and " " not in q:
            named.update({r.id: 20.0 for r in rows if r.id not in named and r.lower_unqualified.startswith(q)})
        joined = snake_join(query)
        if joined:  # "find by" names find_by
            named.update({r.id: 30.0 for r in rows if r.id not in named and r.lower_unqualified == joined})
        f_name, f_summary, f_namespace, f_doc, f_path = _FIELD
        r_name, r_summary, r_namespace = (x * _RELATED_SHARE for x in _FIELD[:3])
        scored = []
        nudge = 0.0005 if self._collection is None else 0.0  # See the module docstring.
        for rank, row in enumerate(rows):
            name, summary, namespace, doc, rpath, said = self._fields[row.id]
            covered = 0.0
            asked = 0
            for probe, weight, others in probes:
                if probe in name:
                    covered += f_name * weight
                    asked += 1
                elif probe in summary:
                    covered += f_summary * weight
                elif others is not None and others(name):
                    covered += r_name * weight
                elif others is not None and others(summary):
                    covered += r_summary * weight
                elif probe in namespace:
                    covered += f_namespace * weight
                elif probe in doc:
                    covered += f_doc * weight
                elif others is not None and others(namespace):
                    covered += r_namespace * weight
                elif probe in rpath:
                    covered += f_path * weight
            score = 10.0 * covered / total + row.prior - rank * nudge + named.get(row.id, 0.0)
            if phrases:
                # Two asked words side by side in the summary ("foreign key", "snake case").
                score += _PHRASE * sum(1 for p in phrases if p in said)
            if asked and asked == len(set(row.words)):
                score += 0.5  # Every word of the name was asked for.
            scored.append((score, row.name, row.id))
        return scored

    def _idf(self, terms: list[str]) -> dict[str, float]:
        n = self._rows_total() or 1
        counts = self._documents(terms)
        return {t: math.log(1 + (n - counts.get(t, 0) + 0.5) / (counts.get(t, 0) + 0.5)) for t in terms}

    def _stems(self, words: list[str]) -> set[str]:
        """The Porter stems FTS5 indexes ``words`` under (``stem_map``), remembered."""
        cache = self._stem_cache
        missing = [w for w in dict.fromkeys(words) if w not in cache]
        if missing:
            cache.update(stem_map(self._stemmer, missing))
        return {cache[w] for w in words}


def stem_map(stemmer: sqlite3.Connection, words: Iterable[str]) -> dict[str, str]:
    """The Porter stem FTS5 indexes each of ``words`` under: the term of the word's first token
    (the word itself when it has none), asked of ``stemmer`` (a database holding the table ``t``
    tokenized as the index is, and ``v``, its ``fts5vocab`` of instances) in one go. A word of
    ASCII letters and digits is one token: those go in one row, each found by its offset (a row
    per word cost three times as much); any other word gets a row of its own, so that a word
    the tokenizer splits (``max_age``) or drops (``_``) does not shift the words after it."""
    single: list[str] = []
    other: list[str] = []
    for w in words:
        (single if w.isascii() and w.isalnum() else other).append(w)
    found: dict[str, str] = {}
    # In batches: a build stems a whole corpus's vocabulary.
    for start in range(0, max(len(single), len(other)), _STEM_BATCH):
        ones, others = single[start : start + _STEM_BATCH], other[start : start + _STEM_BATCH]
        if ones:
            stemmer.execute("INSERT INTO t(rowid, x) VALUES(0, ?)", (" ".join(ones),))
        if others:
            stemmer.executemany("INSERT INTO t(rowid, x) VALUES(?, ?)", enumerate(others, 1))
        for doc, offset, term in stemmer.execute("SELECT doc, offset, term FROM v WHERE doc = 0 OR offset = 0"):
            found[others[doc - 1] if doc else ones[offset]] = term
        stemmer.execute("DELETE FROM t")
    for w in other:
        found.setdefault(w, w)  # Words the tokenizer drops (punctuation) stem to themselves.
    return found


def stem_text(words: list[str], stems: dict[str, str]) -> str:
    """The stems of ``words`` (each in ``stems``) as ``" a b "``, each once: whether a field
    holds a stem is then a substring test, in C."""
    if not words:
        return " "
    return " " + " ".join(dict.fromkeys(map(stems.__getitem__, words))) + " "
