"""Ranked declaration search: intent-style queries ("format number as currency") over names,
doc comments, namespaces and paths, ranked by BM25 and then by what makes code search good.

Retrieval is SQLite FTS5 (Porter-stemmed words, BM25 with per-column weights) over one row
per declaration: its name split into sub-words (``number_to_currency`` -> number to currency,
``MessageVerifier`` -> message verifier), its namespace, the first paragraph of its doc
comment, the rest of it, and the file path. The best few hundred rows are then re-scored:

- how much of the query the declaration covers, each word weighted by its rarity (IDF) and
  by where it was found (name > summary > namespace > rest of the doc > path);
- the query naming the declaration (exactly, or as a prefix) comes first;
- namespaces over their singleton twins (``Foo::<Foo>`` is never listed beside ``Foo``);
  private methods, variables, undocumented, generated, vendored and test code weigh less;
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
from rdx.query.synonyms import related_words

__all__ = ["SymbolIndex", "split_words"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_TEXT_WORD = re.compile(r"[A-Za-z]+|\d+")
_QUERY_TOKEN = re.compile(r'"[^"]*"|\(|\)|[^\s()"]+')
_STOP = frozenset(
    "a an the of to in on for and or with from by as at is it its this that these those be been being are was were "
    "do does did has have had how what which when where who why can could i me my we our you your should would will "
    "into onto out over than then so all any some one each every get gets use using used just like not no there "
    "their them they whether if else also only".split()
)
_KIND_WORDS = {
    "Class": "class", "Module": "module", "Method": "method", "Constant": "constant", "ConstantAlias": "constant alias",
    "GlobalVariable": "global variable", "InstanceVariable": "instance variable", "ClassVariable": "class variable",
}
_SKIPPED_KINDS = frozenset({"SingletonClass", "Todo"})
_VARIABLES = frozenset({"InstanceVariable", "ClassVariable", "GlobalVariable"})
_CANDIDATES = 300
_DOC_WORDS = 150  # Words of the doc comment beyond its summary that re-scoring reads.
# BM25 column weights: words, namespace, summary, rest of the doc, path, kind.
_WEIGHTS = (6.0, 1.0, 3.0, 1.0, 0.5, 0.5)
# Where a query word was found, as a share of its IDF: name, summary, namespace, doc, path.
_FIELD = (1.0, 0.75, 0.45, 0.4, 0.25)
# A related word ("folder" asked, "dir" found) counts for this share of the word itself.
_RELATED_SHARE = 0.6
_LOW_VALUE_PATH = re.compile(r"/(test|tests|spec|specs|fixtures?|examples?|generated|vendor|templates?|benchmarks?)/|_(test|spec)\.rb$")


def split_words(name: str) -> list[str]:
    """Sub-words of an identifier, lower-cased: ``HTTPServer_v2`` -> http, server, v, 2."""
    return [w.lower() for w in _WORD.findall(name)]


def _comment_text(lines: Iterable[str]) -> tuple[str, str]:
    """(first paragraph, rest) of a doc comment, without the ``#`` marks."""
    summary: list[str] = []
    rest: list[str] = []
    target = summary
    for raw in lines:
        line = raw.lstrip().lstrip("#").strip()
        if not line:
            if summary:
                target = rest
            continue
        if line.startswith(("=begin", "=end", "-*-", "frozen_string_literal", "rubocop:", ":call-seq:", ":nodoc:")):
            continue
        target.append(line)
    return " ".join(summary), " ".join(rest[:80])


class _Row:
    """What re-scoring needs of a declaration besides its indexed text."""

    __slots__ = ("doc_words", "id", "kind", "name", "name_stems", "path", "prior", "private", "unqualified", "words")

    def __init__(self, rec: DeclarationRecord, words: list[str], path: str, doc_words: int) -> None:
        self.id = rec.id
        self.name = rec.name
        self.kind = rec.kind
        self.unqualified = rec.unqualified.rstrip("()")
        self.words = words
        self.path = path
        self.private = rec.visibility == "private"
        self.doc_words = doc_words
        self.name_stems = len(set(words))
        self.prior = _prior(self)


class SymbolIndex:
    """The ranked-search index of one resolved state. Built once (about two seconds for
    ninety thousand declarations), then carried from revision to revision by ``advance``,
    which re-indexes only the declarations of changed documents."""

    def __init__(self, state: ResolvedState) -> None:
        self._lock = threading.RLock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.executescript(
            """
            CREATE VIRTUAL TABLE sym USING fts5(words, namespace, summary, doc, path, kind, tokenize = 'porter unicode61');
            CREATE VIRTUAL TABLE terms USING fts5vocab(sym, 'row');
            """
        )
        self._stemmer = sqlite3.connect(":memory:", check_same_thread=False)
        self._stemmer.executescript(
            """
            CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61');
            CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');
            """
        )
        self._stem_cache: dict[str, str] = {}
        self._split_cache: dict[str, str] = {}
        self._rows: dict[int, _Row] = {}
        self._by_name: dict[str, set[int]] = {}
        self._doc_decls: dict[int, set[int]] = {}
        # Per row, stemmed words per field, loaded when the row is first re-scored.
        self._fields: dict[int, tuple[str, str, str, str, str]] = {}
        self._shared: dict[str, str] = {}
        self.state = state
        self._insert(state, (rec for rec in state.declarations.values()))
        self._db.execute("INSERT INTO sym(sym) VALUES('optimize')")

    # -- building --------------------------------------------------------------------------

    def _words_of(self, text: str) -> str:
        found = self._split_cache.get(text)
        if found is None:
            if len(self._split_cache) > 200_000:
                self._split_cache.clear()
            found = self._split_cache[text] = " ".join(split_words(text))
        return found

    def _insert(self, state: ResolvedState, records: Iterable[DeclarationRecord]) -> None:
        values = []
        for rec in records:
            if rec.kind in _SKIPPED_KINDS or not rec.definitions:
                continue
            comments: list[str] = []
            path = ""
            for key, index in rec.definitions:
                doc: FileResult | None = state.documents.get(key)
                if doc is None:
                    continue
                self._doc_decls.setdefault(key, set()).add(rec.id)
                if not path:
                    path = doc.path or doc.uri
                comments.extend(doc.definitions[index].comments)
            summary, rest = _comment_text(comments)
            owner = state.declarations.get(rec.owner) if rec.owner is not None else None
            unq = rec.unqualified.rstrip("()")
            words = self._words_of(unq).split()
            row = _Row(rec, words, path, summary.count(" ") + rest.count(" ") + (1 if summary else 0))
            self._rows[rec.id] = row
            self._by_name.setdefault(unq.lower(), set()).add(rec.id)
            self._by_name.setdefault(rec.name.lower(), set()).add(rec.id)
            text = " ".join([*words, unq.lower()]) if len(words) > 1 else " ".join(words) or unq.lower()
            tail = "/".join(path.split("/")[-3:])
            values.append(
                (_rowid(rec.id), text, self._words_of(owner.name) if owner is not None else "", summary, rest, self._words_of(tail), _KIND_WORDS.get(rec.kind, rec.kind.lower()))
            )
        with self._db:
            self._db.executemany("INSERT INTO sym(rowid, words, namespace, summary, doc, path, kind) VALUES(?, ?, ?, ?, ?, ?, ?)", values)

    def _delete(self, ids: Iterable[int]) -> None:
        gone = []
        for did in ids:
            row = self._rows.pop(did, None)
            self._fields.pop(did, None)
            if row is None:
                continue
            for key in (row.unqualified.lower(), row.name.lower()):
                found = self._by_name.get(key)
                if found is not None:
                    found.discard(did)
            gone.append((_rowid(did),))
        with self._db:
            self._db.executemany("DELETE FROM sym WHERE rowid = ?", gone)

    def advance(self, state: ResolvedState) -> SymbolIndex:
        """This index, brought to ``state`` (a later revision of the same graph): the
        declarations of documents that changed, appeared or went are indexed again. The index
        then belongs to ``state``'s view (an older view that searches again builds its own)."""
        with self._lock:
            old = self.state
            changed = [k for k in old.documents if state.documents.get(k) is not old.documents[k]]
            changed += [k for k in state.documents if k not in old.documents]
            affected: set[int] = set()
            for key in changed:
                affected |= self._doc_decls.pop(key, set())
                affected.update(d for d in state.definition_declarations.get(key, ()) if d is not None)
            # A declaration's namespace may have been renamed away: its members are new ids anyway.
            self._delete(affected)
            self._insert(state, (state.declarations[d] for d in sorted(affected) if d in state.declarations))
            self.state = state
        return self

    # -- queries ---------------------------------------------------------------------------

    def search(self, query: str, *, kind: str | None = None, path: str | None = None, limit: int = 20) -> list[int]:
        """Declaration ids, best first."""
        expression, words, exclusions, plain = _parse(query)
        with self._lock:
            if expression is not None and plain:
                expression = self._selective(words) or expression
            ids = self._candidates(expression, words) if expression is not None else []
            if not exclusions:
                ids += sorted(self._by_name.get(query.strip().lower(), ()))
            rows = [r for r in dict.fromkeys(self._rows.get(i) for i in ids) if r is not None]
            rows = [r for r in rows if (kind is None or r.kind == kind) and (path is None or path in r.path)]
            if not rows:
                return []
            scored = self._rescore(rows, query, words)
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [did for _, _, did in scored[:limit]]

    def _selective(self, words: list[str]) -> str | None:
        """The words of a plain query without the very common ones (in more than one row in
        twenty): they would make BM25 score most of the index to pick candidates, and
        re-scoring still counts them. None when every word is common."""
        stems = self._stems(words)
        counts = dict(self._db.execute(f"SELECT term, doc FROM terms WHERE term IN ({','.join('?' * len(stems))})", sorted(stems)).fetchall())
        limit = len(self._rows) / 20
        kept = [w for w in dict.fromkeys(words) if counts.get(self._stem_cache.get(w, w), 0) <= limit]
        return " OR ".join(_fts_word(w) for w in kept) if kept else None

    def _candidates(self, expression: str, words: list[str]) -> list[int]:
        """The best rows by BM25 over every column, over the doc comment alone (long names
        and namespaces otherwise crowd out a declaration whose doc says what was asked), over
        the name alone, and over names and summaries for the query's related words."""
        ids: list[int] = []
        related = " OR ".join(_fts_word(r) for w in dict.fromkeys(words) for r in related_words(w) if r not in words)
        for columns, query, weights, count in (
            ("", expression, _WEIGHTS, _CANDIDATES),
            ("{summary doc} : ", expression, (0, 0, 2.0, 1.0, 0, 0), _CANDIDATES),
            ("{words} : ", expression, _WEIGHTS, _CANDIDATES // 2),
            ("{words summary} : ", related, _WEIGHTS, _CANDIDATES // 2),
        ):
            if not query:
                continue
            try:
                rows = self._db.execute(
                    "SELECT rowid FROM sym WHERE sym MATCH ? ORDER BY bm25(sym, ?, ?, ?, ?, ?, ?) LIMIT ?",
                    (f"{columns}({query})" if columns else query, *weights, count),
                ).fetchall()
            except sqlite3.OperationalError:
                return ids
            ids += [_declaration_id(r[0]) for r in rows]
        return ids

    def _rescore(self, rows: list[_Row], query: str, words: list[str]) -> list[tuple[float, str, int]]:
        missing = [r.id for r in rows if r.id not in self._fields]
        if missing:
            self._load_fields(missing)
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
        q = query.strip().lower()
        # Declarations the query names exactly, or (one word of three letters or more) begins.
        exact_ids = {r.id for r in rows if q in (r.unqualified.lower(), r.name.lower())}
        if len(q) > 2 and " " not in q:
            exact_ids |= {r.id for r in rows if r.unqualified.lower().startswith(q)}
        scored = []
        fields_of = self._fields
        f_name, f_summary, f_namespace, f_doc, f_path = _FIELD
        r_name, r_summary, r_namespace = (x * _RELATED_SHARE for x in _FIELD[:3])
        for rank, row in enumerate(rows):
            name, summary, namespace, doc, rpath = fields_of[row.id]
            covered = namespace_only = 0.0
            asked = 0
            for probe, weight_idf, others in probes:
                if probe in name:
                    covered += f_name * weight_idf
                    asked += 1
                elif probe in summary:
                    covered += f_summary * weight_idf
                elif others is not None and others(name):
                    covered += r_name * weight_idf
                elif others is not None and others(summary):
                    covered += r_summary * weight_idf
                elif probe in namespace:
                    namespace_only += f_namespace * weight_idf
                elif probe in doc:
                    covered += f_doc * weight_idf
                elif others is not None and others(namespace):
                    namespace_only += r_namespace * weight_idf
                elif probe in rpath:
                    covered += f_path * weight_idf
            covered += namespace_only
            score = 10.0 * covered / total + row.prior - rank * 0.0005
            if asked and asked == row.name_stems:
                score += 0.5  # Every word of the name was asked for.
            if exact_ids and row.id in exact_ids:
                unq = row.unqualified.lower()
                score += 100.0 if q == unq or q == row.name.lower() else 20.0
            scored.append((score, row.name, row.id))
        return scored

    def _load_fields(self, ids: list[int]) -> None:
        """Each row's stemmed words per field (name, summary, namespace, doc, path), as
        space-delimited strings (``" a b "``: membership is a substring test, in C)."""
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self._db.execute(
                f"SELECT rowid, namespace, summary, doc, path FROM sym WHERE rowid IN ({','.join('?' * len(chunk))})", [_rowid(i) for i in chunk]
            ).fetchall()
            for rowid, namespace, summary, doc, rpath in rows:
                did = _declaration_id(rowid)
                row = self._rows.get(did)
                if row is None:
                    continue
                self._fields[did] = (
                    self._stem_text(row.words),
                    self._stem_text(_TEXT_WORD.findall(summary.lower())),
                    self._shared_stem_text(namespace),
                    self._stem_text(_TEXT_WORD.findall(doc.lower())[:_DOC_WORDS]),
                    self._shared_stem_text(rpath),
                )

    def _stem_text(self, words: list[str]) -> str:
        if not words:
            return " "
        self._stems(words)
        cache = self._stem_cache
        return " " + " ".join(dict.fromkeys(cache[w] for w in words)) + " "

    def _shared_stem_text(self, text: str) -> str:
        found = self._shared.get(text)
        if found is None:
            found = self._shared[text] = self._stem_text(text.split())
        return found

    def _idf(self, terms: list[str]) -> dict[str, float]:
        n = len(self._rows) or 1
        counts = dict(self._db.execute(f"SELECT term, doc FROM terms WHERE term IN ({','.join('?' * len(terms))})", terms).fetchall()) if terms else {}
        return {t: math.log(1 + (n - counts.get(t, 0) + 0.5) / (counts.get(t, 0) + 0.5)) for t in terms}

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


def _prior(row: _Row) -> float:
    """What a declaration is worth before the query: documented public API over the rest."""
    score = min(math.log1p(row.doc_words), 6.0) * 0.12
    if row.private:
        score -= 0.8
    if row.kind in _VARIABLES:
        score -= 1.5
    elif row.kind in ("Constant", "ConstantAlias"):
        score -= 0.3
    if _LOW_VALUE_PATH.search(row.path):
        score -= 1.0
    return score


def _rowid(did: int) -> int:
    return did - (1 << 64) if did >= 1 << 63 else did


def _declaration_id(rowid: int) -> int:
    return rowid + (1 << 64) if rowid < 0 else rowid


def _fts_word(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _parse(query: str) -> tuple[str | None, list[str], bool, bool]:
    """An FTS5 expression for ``query``, its plain words (for coverage), and whether it
    excludes anything, and whether it is plain (single words ORed, no operator, phrase or
    prefix). Words are split like names (``findEach`` -> find each); plain words are ORed
    unless joined by AND; ``NOT x`` and ``-x`` exclude."""
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
        return None, [], bool(negative), False
    expression = " ".join(positive)
    if negative:
        expression = f"({expression}) NOT ({' OR '.join(negative)})"
    return expression, words, bool(negative), plain


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
