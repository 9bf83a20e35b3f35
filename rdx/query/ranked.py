"""Ranked declaration search: intent-style queries ("format number as currency") over names,
doc comments, namespaces and paths, ranked by BM25 and then by what makes code search good.

Retrieval is SQLite FTS5 (Porter-stemmed words; BM25 with per-column weights) over one row per
declaration: the name split into sub-words (``number_to_currency`` -> number to currency,
``MessageVerifier`` -> message verifier), the enclosing namespaces, the first paragraph of the
doc comment, the rest of it, and the file path. The best few hundred rows are then re-scored:

- the query naming the declaration (exactly, or as a prefix) comes first;
- coverage: the share of the query's words found in the name, then in name + summary;
- namespaces over their singleton twins (``Foo::<Foo>`` is never listed beside ``Foo``);
  private methods, instance variables, generated, vendored and test code weigh less;
- ties broken by name, so the order is deterministic.

Queries accept ``AND``, ``OR``, ``NOT`` (or ``-word``) and ``prefix*``; plain words are ORed
and ranked (the more of them a declaration covers, the better).
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections.abc import Iterable

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import FileResult
from rdx.model.store import ResolvedState

__all__ = ["SymbolIndex", "split_words"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_QUERY_TOKEN = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+')
_STOP = frozenset(
    "a an the of to in on for and or with from by as at is it its this that these those be are was were do does "
    "how what which when where who why can i me my we our you your should would into onto out over than then so "
    "all any some one each every get gets use using used".split()
)
_KIND_WORDS = {
    "Class": "class", "Module": "module", "Method": "method", "Constant": "constant", "ConstantAlias": "constant alias",
    "GlobalVariable": "global variable", "InstanceVariable": "instance variable", "ClassVariable": "class variable",
}
_SKIPPED_KINDS = frozenset({"SingletonClass", "Todo"})
_CANDIDATES = 400
# BM25 column weights: words, namespace, summary, rest of the doc, path, kind.
_WEIGHTS = (8.0, 1.5, 3.0, 0.6, 1.0, 0.5)
_LOW_VALUE_PATH = re.compile(r"/(test|tests|spec|specs|fixtures?|examples?|generated|vendor|templates?)/|_(test|spec)\.rb$")


def split_words(name: str) -> list[str]:
    """Sub-words of an identifier, lower-cased: ``HTTPServer_v2`` -> http, server, v, 2."""
    return [w.lower() for w in _WORD.findall(name)]


def _comment_text(lines: Iterable[str]) -> tuple[str, str]:
    """(first paragraph, rest) of a doc comment, without the ``#`` marks and example code."""
    summary: list[str] = []
    rest: list[str] = []
    target = summary
    for raw in lines:
        line = raw.lstrip().lstrip("#").strip()
        if not line:
            if summary:
                target = rest
            continue
        if line.startswith(("=begin", "=end", "-*-", "frozen_string_literal", "rubocop:")):
            continue
        target.append(line)
    return " ".join(summary), " ".join(rest[:60])


class _Row:
    __slots__ = ("id", "kind", "name", "path", "private", "summary", "unqualified", "words")

    def __init__(self, rec: DeclarationRecord, path: str, summary: str, private: bool) -> None:
        self.id = rec.id
        self.name = rec.name
        self.kind = rec.kind
        self.unqualified = rec.unqualified.rstrip("()")
        self.words = split_words(self.unqualified)
        self.path = path
        self.summary = summary
        self.private = private


class SymbolIndex:
    """The ranked-search index of one resolved state (built in memory in about a second for
    ninety thousand declarations; built once per revision, on the first ranked search or by
    ``Graph.prepare_queries``)."""

    def __init__(self, state: ResolvedState) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE sym USING fts5(words, namespace, summary, doc, path, kind, tokenize = 'porter unicode61')"
        )
        self._rows: dict[int, _Row] = {}
        self._by_name: dict[str, list[int]] = {}
        self._stem_cache: dict[str, str] = {}
        self._stemmer = sqlite3.connect(":memory:", check_same_thread=False)
        self._stemmer.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61')")
        self._stemmer.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        rows = []
        for rec in state.declarations.values():
            if rec.kind in _SKIPPED_KINDS or not rec.definitions:
                continue
            row, values = self._row(state, rec)
            self._rows[rec.id] = row
            self._by_name.setdefault(row.unqualified.lower(), []).append(rec.id)
            self._by_name.setdefault(rec.name.lower(), []).append(rec.id)
            rows.append((_rowid(rec.id), *values))
        with self._db:
            self._db.executemany("INSERT INTO sym(rowid, words, namespace, summary, doc, path, kind) VALUES(?, ?, ?, ?, ?, ?, ?)", rows)
        self._db.execute("INSERT INTO sym(sym) VALUES('optimize')")

    def _row(self, state: ResolvedState, rec: DeclarationRecord) -> tuple[_Row, tuple[str, ...]]:
        comments: list[str] = []
        path = ""
        for key, index in rec.definitions:
            doc: FileResult | None = state.documents.get(key)
            if doc is None:
                continue
            if not path:
                path = doc.path or doc.uri
            comments.extend(doc.definitions[index].comments)
        summary, rest = _comment_text(comments)
        owner = state.declarations.get(rec.owner) if rec.owner is not None else None
        namespace = owner.name if owner is not None else ""
        row = _Row(rec, path, summary, rec.visibility == "private")
        unq = row.unqualified
        words = " ".join([*row.words, unq.lower()]) if len(row.words) > 1 else " ".join(row.words) or unq.lower()
        tail = "/".join(path.split("/")[-3:])
        return row, (words, " ".join(split_words(namespace)), summary, rest, " ".join(split_words(tail)), _KIND_WORDS.get(rec.kind, rec.kind.lower()))

    # -- queries ---------------------------------------------------------------------------

    def search(self, query: str, *, kind: str | None = None, path: str | None = None, limit: int = 20) -> list[int]:
        """Declaration ids, best first."""
        expression, words, exclusions = _parse(query)
        found: list[tuple[int, float]] = []
        if expression is not None:
            with self._lock:
                try:
                    found = self._db.execute(
                        "SELECT rowid, bm25(sym, ?, ?, ?, ?, ?, ?) FROM sym WHERE sym MATCH ? ORDER BY 2 LIMIT ?",
                        (*_WEIGHTS, expression, _CANDIDATES),
                    ).fetchall()
                except sqlite3.OperationalError:
                    found = []
        scored: list[tuple[float, str, int]] = []
        seen: set[int] = set()
        with self._lock:
            wanted = self._stems(words)
        exact_ids = [] if exclusions else self._by_name.get(query.strip().lower(), [])
        for rank, (rowid, bm25) in enumerate(found):
            row = self._rows.get(_declaration_id(rowid))
            if row is None or (kind is not None and row.kind != kind) or (path is not None and path not in row.path):
                continue
            seen.add(row.id)
            scored.append((self._score(row, -bm25, rank, wanted, query), row.name, row.id))
        for did in exact_ids:
            row = self._rows.get(did)
            if row is not None and did not in seen and (kind is None or row.kind == kind) and (path is None or path in row.path):
                scored.append((self._score(row, 0.0, _CANDIDATES, wanted, query), row.name, row.id))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [did for _, _, did in scored[:limit]]

    def _stems(self, words: list[str]) -> set[str]:
        """The Porter stems FTS5 indexes ``words`` under (new words asked of SQLite in one go)."""
        cache = self._stem_cache
        missing = [w for w in dict.fromkeys(words) if w not in cache]
        if missing:
            db = self._stemmer
            db.execute("INSERT INTO t(rowid, x) VALUES(1, ?)", (" ".join(missing),))
            for term, offset in db.execute("SELECT term, offset FROM v WHERE doc = 1"):
                if offset < len(missing):
                    cache[missing[offset]] = term
            db.execute("DELETE FROM t")
            for w in missing:
                cache.setdefault(w, w)  # Words the tokenizer drops (punctuation) stem to themselves.
        return {cache[w] for w in words}

    def _score(self, row: _Row, bm25: float, rank: int, wanted: set[str], query: str) -> float:
        score = bm25
        q = query.strip().lower()
        unq = row.unqualified.lower()
        if q == unq or q == row.name.lower():
            score += 100.0
        elif len(q) > 2 and unq.startswith(q.replace(" ", "_")):
            score += 20.0
        if wanted:
            name_stems = self._stems(row.words)
            in_name = len(wanted & name_stems)
            score += 6.0 * in_name / len(wanted)
            if name_stems and in_name == len(name_stems):
                score += 2.0  # Every word of the name was asked for.
            summary_stems = self._stems([w.lower() for w in re.findall(r"[A-Za-z]+", row.summary)])
            score += 4.0 * len(wanted & (summary_stems | name_stems)) / len(wanted)
        if row.private:
            score -= 3.0
        if row.kind in ("InstanceVariable", "ClassVariable", "GlobalVariable"):
            score -= 4.0
        if not row.summary:
            score -= 1.0
        if _LOW_VALUE_PATH.search(row.path):
            score -= 4.0
        return score - math.log1p(rank) * 0.1


def _rowid(did: int) -> int:
    return did - (1 << 64) if did >= 1 << 63 else did


def _declaration_id(rowid: int) -> int:
    return rowid + (1 << 64) if rowid < 0 else rowid


def _fts_word(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _parse(query: str) -> tuple[str | None, list[str], bool]:
    """An FTS5 expression for ``query``, its plain words (for coverage), and whether it
    excludes anything. Words are split like names (``findEach`` -> find each); plain words
    are ORed unless joined by AND; ``NOT x`` and ``-x`` exclude."""
    positive: list[str] = []
    negative: list[str] = []
    words: list[str] = []
    pending_op: str | None = None
    negate = False
    for token in _QUERY_TOKEN.findall(query):
        if token in ("AND", "OR", "NOT"):
            if token == "NOT":
                negate = True
            else:
                pending_op = token
            continue
        if token.startswith("-") and len(token) > 1:
            negate, token = True, token[1:]
        term, plain = _term(token)
        if term is None:
            continue
        if negate:
            negative.append(term)
        else:
            words += plain
            positive.append(f"{pending_op or 'OR'} {term}" if positive else term)
        negate, pending_op = False, None
    if not positive:
        return None, [], bool(negative)
    expression = " ".join(positive)
    if negative:
        expression = f"({expression}) NOT ({' OR '.join(negative)})"
    return expression, words, bool(negative)


def _term(token: str) -> tuple[str | None, list[str]]:
    """One query token as an FTS5 term (a phrase, a prefix, or the AND of its sub-words)."""
    if token.startswith('"'):
        text = token.strip('"').lower()
        return (_fts_word(text), split_words(text)) if text.strip() else (None, [])
    prefix = token.endswith("*")
    pieces = split_words(token.strip("*()"))
    if not pieces:
        return None, []
    if prefix:
        items = [_fts_word(p) for p in pieces[:-1]] + [_fts_word(pieces[-1]) + "*"]
        return ("(" + " AND ".join(items) + ")" if len(items) > 1 else items[0]), pieces[:-1]
    kept = [p for p in pieces if p not in _STOP]
    if not kept:
        return None, []
    return ("(" + " AND ".join(_fts_word(p) for p in kept) + ")" if len(kept) > 1 else _fts_word(kept[0])), kept
