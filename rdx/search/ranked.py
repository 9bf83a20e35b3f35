"""Ranked declaration search: intent-style queries ("format number as currency") over names,
doc comments, namespaces and paths, ranked by BM25 and then by what makes code search good.

Retrieval is SQLite FTS5 (Porter-stemmed words, BM25 with per-column weights) over one row
per declaration: its name split into sub-words (``number_to_currency`` -> number to currency,
``MessageVerifier`` -> message verifier), its namespace, the first paragraph of its doc
comment, the rest of it, and the file path with the parameter names (``strptime(date,
format)``). Candidates are the best rows over every column, over the doc alone, over the
name alone, and for each query word's related words ("folder" -> dir); they are then
re-scored:

- how much of the query the declaration covers, each word weighted by its rarity (IDF) and
  by where it was found (name > summary > namespace > rest of the doc > path), a related
  word counting for less than the word itself;
- the query naming the declaration (exactly, or as a prefix) comes first;
- a prior: documented public API over private methods, variables, undocumented, generated,
  vendored and test code; singleton classes are not indexed (their methods are), so
  ``Foo::<Foo>`` is never listed beside ``Foo``;
- ties broken by name, so the order is deterministic.

Adding libraries that nobody asked about must not push the wanted declarations out (issue 22):
candidates are picked by rules that hold whatever the corpus's size. A common word picks
candidates only together with another common word of the query, not alone (``_selective``);
candidate lists grow with the corpus (``_pool``); each related-words list is per query word,
so one word's many related words cannot crowd out another's. Nothing is learned from the
corpus's own vocabulary: associations learned from doc comments changed with every library
added (a third of them for nine more libraries) and moved other libraries' results.

The index lives in a SQLite database of its own: everything about a declaration is in its
rows (nothing per declaration in Python), re-scoring's fields too: the stems of the words of
its name, summary, namespace, doc and path, made when the row is written (``rescore``: read
back, a candidate costs a row; stemmed when asked for, it cost twenty times that, most of a
new query's time). So the index is saved and restored whole as the bytes of
the database (``image``/``from_image``, SQLite's serialize API), keyed by the fingerprint of the
documents it describes; the caller stores those bytes in a checksummed cache file. Built or
restored in memory, it is then moved to a private temporary database (``_off_heap``: a file
SQLite deletes itself, read through a small page cache), so that its pages (700 MB for a
million declarations) sit in the operating system's file cache rather than in the process
(issue 21); where no temporary file can be made, it stays in memory.

An index asked many times (a resident server's, ``rdx.cli.resident``) remembers what SQLite
answered until its rows change (``_changed``, called by every write): the BM25 candidate lists
by their FTS5 query (SQLite's BM25 is most of a new query's time; a word's related-words list
serves every later query with that word), the row counts of stems, and the last answers by
their arguments; and the rows it re-scored with their fields. Answers are the same as a fresh
index's for any sequence of queries (a word's stem does not depend on the words stemmed with
it).

Many indexes ranked as one (``rdx fleet``): ``statistics`` gives an index's collection
statistics per file path; summed over distinct paths they are those of one index over the
union, and a search made ``scoring_with`` them picks candidates and weighs words by them
(see ``rdx.search.ranked_score``) and reports each result's score, comparable across indexes.
"""

from __future__ import annotations

import gc
import heapq
import itertools
import math
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import cast

from rdx.cache.envelope import release
from rdx.model.declarations import DeclarationRecord
from rdx.model.foreign import ForeignState
from rdx.model.records import FileResult
from rdx.model.store import CORE_URI, ResolvedState
from rdx.search.ranked_query import fts_word, parse_query, split_words
from rdx.search.ranked_score import CollectionStatistics, Rescoring, snake_join, stem_map, stem_text
from rdx.search.synonyms import related_words

__all__ = ["SYMBOLS_NAME", "CollectionStatistics", "SymbolIndex", "scoring_with"]

# A checksummed envelope holding the database's bytes (``rdx.cache.envelope``), not a database.
SYMBOLS_NAME = "symbols.msgpack"
_SCHEMA = 6
_TEXT_WORD = re.compile(r"[A-Za-z]+|\d+")
# Parameter names in a signature ("(number, options = {})" -> number, options).
_PARAM = re.compile(r"(?<![=:.\w])[*&]{0,2}([a-z_][a-z0-9_]*)")
_KIND_WORDS = {
    "Class": "class", "Module": "module", "Method": "method", "Constant": "constant", "ConstantAlias": "constant alias",
    "GlobalVariable": "global variable", "InstanceVariable": "instance variable", "ClassVariable": "class variable",
}
_SKIPPED_KINDS = frozenset({"SingletonClass", "Todo"})
_VARIABLES = frozenset({"InstanceVariable", "ClassVariable", "GlobalVariable"})
# Rows taken from each BM25 list (the name-only list takes half): this many, or one row in
# this many of the corpus when that is more, so that a declaration as good relative to the
# others is still taken when unrelated libraries double the rows (latency grows with them).
_CANDIDATES, _CANDIDATES_SHARE = 300, 300
# Rows taken for one query word's related words: this many, or one row in this many.
_RELATED_CANDIDATES, _RELATED_SHARE = 30, 3000
# A word in more than one row in this many is too common to pick candidates with alone: BM25
# would score thousands of rows for it (most of a query's time). It picks the rows it shares
# with another common word of the query instead (``(add AND column)``): which side of this
# line a word falls on changes as libraries are added, and a declaration that two or more
# common words describe ("add a column to a table") is a candidate either way.
_COMMON = 60
# A word in more than one row in this many ("method" is the kind of most rows) picks none.
_VERY_COMMON = 8
# Common words paired at most, the rarest first (six pairs): a query of many common words
# ("add column table new name type value default") would otherwise spend on its pairs what
# it saved on the words.
_PAIRED = 4
_DOC_WORDS = 150  # Words of the doc comment beyond its summary that re-scoring reads.
# The declarations table's columns that make a ``_Row``, and the re-scoring table's, which hold
# its fields (``_rescoring_fields``) in the order ``Rescoring._rescore`` reads them.
_ROW_COLUMNS = "d.rowid, d.name, d.unq, d.kind, d.path, d.prior, d.words, d.lang"
_FIELD_COLUMNS = "f.name_stems, f.summary_stems, f.namespace_stems, f.doc_stems, f.path_stems, f.summary_words"
# Answers and BM25 candidate lists an index remembers (the oldest goes first).
_ANSWERS_KEPT, _LISTS_KEPT = 64, 512
# BM25 column weights: words, namespace, summary, rest of the doc, path, kind.
_WEIGHTS = (6.0, 1.0, 3.0, 1.0, 0.5, 0.5)
_LOW_VALUE_PATH = re.compile(r"/(test|tests|spec|specs|examples?|generated|vendor|templates?|benchmarks?)/|_(test|spec)\.rb$")
_SCHEMA_SQL = """
CREATE VIRTUAL TABLE sym USING fts5(words, namespace, summary, doc, path, kind, tokenize = 'porter unicode61');
CREATE VIRTUAL TABLE terms USING fts5vocab(sym, 'row');
CREATE TABLE decl(
    rowid INTEGER PRIMARY KEY, name TEXT NOT NULL, unq TEXT NOT NULL, kind TEXT NOT NULL,
    path TEXT NOT NULL, prior REAL NOT NULL, words TEXT NOT NULL, lang TEXT NOT NULL);
CREATE TABLE rescore(
    rowid INTEGER PRIMARY KEY, name_stems TEXT NOT NULL, summary_stems TEXT NOT NULL, namespace_stems TEXT NOT NULL,
    doc_stems TEXT NOT NULL, path_stems TEXT NOT NULL, summary_words TEXT NOT NULL);
CREATE INDEX decl_unq ON decl(lower(unq));
CREATE INDEX decl_name ON decl(lower(name));
CREATE TABLE meta(key TEXT PRIMARY KEY, value);
"""


# The statistics searches in this context score with, and where their scores go (by name).
_SCORING: ContextVar[tuple[CollectionStatistics, dict[str, tuple[float, str]]] | None] = ContextVar("rdx_ranked_scoring", default=None)


@contextmanager
def scoring_with(statistics: CollectionStatistics, scores: dict[str, tuple[float, str]]) -> Iterator[dict[str, tuple[float, str]]]:
    """Ranked searches made in this context (this thread or task) score with ``statistics`` in
    place of their index's own, and put each result's score and path (of its first
    definition) into ``scores`` by qualified name: results of different indexes then merge by
    score."""
    token = _SCORING.set((statistics, scores))
    try:
        yield scores
    finally:
        _SCORING.reset(token)


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


# Characters of a doc comment that hold its first ``_DOC_WORDS`` words, nearly always: only
# they are scanned for words, unless they hold fewer (then the whole text is).
_DOC_HEAD = 2000


def _first_words(text: str, n: int) -> list[str]:
    """The first ``n`` words (``_TEXT_WORD``) of ``text``, lower-cased. Words found in a prefix
    are those of the whole text, but for the last, which the cut may have shortened: a prefix
    that holds more than ``n`` holds the first ``n`` whole."""
    if len(text) > _DOC_HEAD:
        found = _TEXT_WORD.findall(text[:_DOC_HEAD].lower())
        if len(found) > n:
            return found[:n]
    return _TEXT_WORD.findall(text.lower())[:n]


def _prior(kind: str, path: str, private: bool, doc_words: int, dependency: bool = False) -> float:
    """What a declaration is worth before the query: documented public API over the rest, the
    project's own code over its gems'."""
    score = min(math.log1p(doc_words), 6.0) * 0.12
    if private:
        score -= 0.8
    if kind in _VARIABLES:
        score -= 1.5
    elif kind in ("Constant", "ConstantAlias"):
        score -= 0.3
    if _LOW_VALUE_PATH.search(path):
        score -= 2.0
    if dependency:
        score -= 1.0
    return score



# Pages of the private database SQLite keeps in the process (KiB, SQLite's convention for a
# negative ``cache_size``); the rest is read from the temporary file, through the OS's cache.
_PAGE_CACHE_KIB = 16384


def _off_heap(db: sqlite3.Connection) -> sqlite3.Connection:
    """The in-memory database ``db`` copied to a private temporary one (SQLite deletes its file
    when the connection closes, or at once where the system allows), ``db`` then closed; ``db``
    itself when the copy cannot be made (no writable temporary directory)."""
    disk = sqlite3.connect("", check_same_thread=False)
    try:
        # A temporary database is never synced; its journal may as well stay in memory.
        disk.execute("PRAGMA journal_mode = MEMORY")
        disk.execute(f"PRAGMA cache_size = -{_PAGE_CACHE_KIB}")
        db.backup(disk)
    except sqlite3.Error:
        disk.close()
        return db
    db.close()
    return disk


# How much of a database's image is written at a time (``_database_of``).
_SLICE = 1 << 24


def _database_of(image: bytes | memoryview) -> sqlite3.Connection:
    """A connection to the database whose bytes are ``image``, for ``_off_heap`` to copy:
    ``image`` written to a private file a slice at a time, each slice's pages let go of when
    ``image`` is a view of a mapped file (``release``), the file opened read-only and removed
    at once (the connection holds it open). The process thus never holds the whole image, as
    ``deserialize`` did, twice over with the mapped file's pages (1.5 GB at the peak of
    ``Graph.prepare_queries`` on 10 copies of the Debian corpus, issue 21). In memory
    (``deserialize``) when no such file can be written."""
    try:
        fd, path = tempfile.mkstemp(prefix="rdx-symbols-", suffix=".sqlite")
    except OSError:
        path = None
    if path is not None:
        try:
            view = memoryview(image)
            with os.fdopen(fd, "wb") as f:
                for start in range(0, len(view), _SLICE):
                    f.write(view[start : start + _SLICE])
                    release(view)
            return sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except (OSError, sqlite3.Error):
            pass  # In memory, then.
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.deserialize(image)
    return db


def _rowid(did: int) -> int:
    return did - (1 << 64) if did >= 1 << 63 else did


def _declaration_id(rowid: int) -> int:
    return rowid + (1 << 64) if rowid < 0 else rowid


class _Row:
    __slots__ = ("id", "kind", "language", "lower_name", "lower_unqualified", "name", "path", "prior", "unqualified", "words")

    def __init__(self, rowid: int, name: str, unq: str, kind: str, path: str, prior: float, words: str, language: str) -> None:
        self.language = language
        self.id = _declaration_id(rowid)
        self.name = name
        self.unqualified = unq
        # Lower-cased once: every search that re-scores the row compares them with the query.
        self.lower_name = name.lower()
        self.lower_unqualified = unq.lower()
        self.kind = kind
        self.path = path
        self.prior = prior
        self.words = words.split()


def _rows_kept(old: ResolvedState, state: ResolvedState, changed: list[int], affected: set[int]) -> set[int]:
    """The ``affected`` declarations whose rows ``_insert`` would make again as they are: the
    same record fields, definitions in the same documents in the same order, and in the
    changed documents the same comments and parameters. A namespace that hundreds of files
    reopen (``module RuboCop``) is then not indexed again whenever one of them is edited."""
    mine: tuple[dict[int, list[tuple[int, tuple[str, ...], str | None]]], ...] = ({}, {})
    for st, found in zip((old, state), mine, strict=True):
        for key in changed:
            doc = st.documents.get(key)
            row = st.definition_declarations.get(key)
            if doc is None or row is None:
                continue
            definitions = doc.definitions
            for i, d in enumerate(row):
                if d is not None and d in affected:
                    found.setdefault(d, []).append((key, definitions[i].comments, definitions[i].params))
    before, after = mine
    kept = set()
    for d in affected:
        a, b = old.declarations.get(d), state.declarations.get(d)
        if a is None or b is None or before.get(d) != after.get(d):
            continue
        if (a.name, a.kind, a.visibility, a.owner) != (b.name, b.kind, b.visibility, b.owner):
            continue
        if a.definitions is b.definitions or [k for k, _ in a.definitions] == [k for k, _ in b.definitions]:
            kept.add(d)
    return kept


class _CoreRows:
    """Ruby core's rows as the first build of the process wrote them (by row id: the
    full-text row and the declaration row), the database holding only them, and what each
    row was made from (``_core_signature``) in the core document ``document``."""

    __slots__ = ("document", "image", "rows", "signatures")

    def __init__(
        self, rows: dict[int, tuple[tuple[object, ...], tuple[object, ...]]], image: bytes, document: object, signatures: dict[int, tuple[object, ...]]
    ) -> None:
        self.rows = rows
        self.image = image
        self.document = document
        self.signatures = signatures


def _core_signature(state: ResolvedState, rec: DeclarationRecord, document: object) -> tuple[object, ...] | None:
    """Everything a row reads of a declaration that only ``document``, the state's core
    document, defines: its record's fields, its definitions' indexes in that document, and
    whether its owner is there (the owner's name follows from its id, a hash of the name).
    None for a declaration defined in another document too. The same signature in two states
    whose core documents say the same (``_same_core``) makes the same rows."""
    documents = state.documents
    indexes = []
    for key, index in rec.definitions:
        if documents.get(key) is not document:
            return None
        indexes.append(index)
    owner = rec.owner if rec.owner is not None and rec.owner in state.declarations else None
    return (rec.name, rec.unqualified, rec.kind, rec.visibility, owner, tuple(indexes))


_core_rows: _CoreRows | None = None
_core_lock = threading.Lock()


def _same_core(core: _CoreRows, state: ResolvedState) -> object:
    """The core document of ``state`` when it is the one core's rows were made from, or says
    the same (path, library and every definition equal: one restored from a snapshot); None
    otherwise. Rows read nothing else of a document."""
    kept: FileResult = core.document  # type: ignore[assignment]
    for doc in state.documents.values():
        if doc.uri == CORE_URI:
            if doc is kept or (doc.path == kept.path and doc.library == kept.library and doc.definitions == kept.definitions):
                return doc
            return None
    return None


class SymbolIndex(Rescoring):
    """The ranked-search index of one resolved state: built once (about two and a half
    seconds for ninety thousand declarations), saved beside the snapshot, and carried from
    revision to revision by ``advance``, which re-indexes only the declarations of changed
    documents."""

    def __init__(self, db: sqlite3.Connection, state: ResolvedState, foreign: ForeignState | None = None) -> None:
        self._lock = threading.RLock()
        self._db = db
        self.state = state
        # The other languages' declarations indexed here (``rdx.languages.view``), if any.
        self.foreign = foreign
        self._stemmer = sqlite3.connect(":memory:", check_same_thread=False)
        self._stemmer.executescript(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61');"
            "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');"
        )
        self._stem_cache: dict[str, str] = {}
        self._split_cache: dict[str, str] = {}
        # Rows and their stemmed fields, read from the database when first re-scored.
        self._rows: dict[int, _Row] = {}
        self._fields: dict[int, tuple[str, str, str, str, str, str]] = {}
        # What the database answered, for as long as it holds the same rows (``_changed``
        # empties them): BM25 candidate lists by their query, row counts by stem, and whole
        # answers by their arguments. A resident server (``rdx.cli.resident``) asked again, or
        # asked about a word it ranked before, skips SQLite's BM25, most of a search's time.
        self._lists: dict[tuple[object, ...], list[int] | None] = {}
        self._term_rows: dict[str, int] = {}
        self._answers: dict[tuple[object, ...], list[tuple[int, str, float, str]]] = {}
        (self._count,) = db.execute("SELECT count(*) FROM decl").fetchone()

    @classmethod
    def build(cls, state: ResolvedState, foreign: ForeignState | None = None, *, reuse_core: bool = True) -> SymbolIndex:
        """The index of ``state`` (and ``foreign``'s declarations). Ruby core's rows are the
        same in most graphs a process builds: the first build keeps them, and the database
        holding only them (``_CoreRows``); later builds start from that database and write
        only the rows that differ from it, the same rows as a build from an empty database
        (``reuse_core=False``), in about a fifth of its time for a small project."""
        db = sqlite3.connect(":memory:", check_same_thread=False)
        core = _core_rows if reuse_core else None
        if core is not None and not any(doc.uri == CORE_URI for doc in state.documents.values()):
            # A graph without Ruby core (``Graph(core=False)``) would delete every one of core's
            # rows again (about 0.2 s): its rows are written into an empty database instead.
            core = None
        if core is not None:
            db.deserialize(core.image)
        else:
            db.executescript(_SCHEMA_SQL)
        index = cls(db, state, foreign)
        same: set[int] = set()
        document = _same_core(core, state) if core is not None else None
        # The rows are hundreds of thousands of tuples, lists and strings that make no cycles:
        # the collector's passes over them were a fifth of the build.
        collecting = gc.isenabled()
        gc.disable()
        try:
            texts, decls = index._rows_of(state, state.declarations.values(), core, same, document)
            if core is not None:
                index._store_over(core, texts, decls, same)
            elif reuse_core:
                index._store_keeping_core(state, texts, decls)
            else:
                index._store(texts, decls)
            if foreign is not None:
                index._insert_foreign(foreign, foreign.declarations)
        finally:
            if collecting:
                gc.enable()
        db.execute("INSERT INTO sym(sym) VALUES('optimize')")
        db.commit()
        index._db = _off_heap(db)
        (index._count,) = index._db.execute("SELECT count(*) FROM decl").fetchone()
        return index

    @classmethod
    def from_image(cls, image: bytes | memoryview, fingerprint: str, state: ResolvedState, foreign: ForeignState | None = None) -> SymbolIndex | None:
        """The index whose database ``image`` holds (the bytes of ``image()``, which the caller
        stored and checked against its checksum), when it was made for exactly the documents
        ``fingerprint`` names and by this schema; else None. A database SQLite refuses raises
        ``sqlite3.DatabaseError``."""
        db = _database_of(image)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
            schema = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.Error:
            db.close()
            raise
        if row is None or row[0] != fingerprint or schema is None or schema[0] != _SCHEMA:
            db.close()
            return None
        return cls(_off_heap(db), state, foreign)

    def image(self, fingerprint: str) -> bytes:
        """The whole database as bytes, marked as made for the documents ``fingerprint`` names
        (the caller writes it: the index writes no cache file of its own)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES('fingerprint', ?), ('schema', ?)", (fingerprint, _SCHEMA))
            self._db.commit()
            return self._db.serialize()

    # -- building --------------------------------------------------------------------------

    def _words_of(self, text: str) -> str:
        found = self._split_cache.get(text)
        if found is None:
            if len(self._split_cache) > 200_000:
                self._split_cache.clear()
            found = self._split_cache[text] = " ".join(split_words(text))
        return found

    def _insert(self, state: ResolvedState, records: Iterable[DeclarationRecord]) -> None:
        self._store(*self._rows_of(state, records))

    def _rows_of(
        self,
        state: ResolvedState,
        records: Iterable[DeclarationRecord],
        core: _CoreRows | None = None,
        same: set[int] | None = None,
        document: object = None,
    ) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        """The rows of ``records``: for the full-text table and for the declarations table.
        With ``core`` and ``document`` (the state's core document, when it says what core's
        does: ``_same_core``), a declaration whose signature in it is that of one of core's
        rows is left out and its row id put in ``same`` instead: its rows are core's."""
        texts: list[tuple[object, ...]] = []
        decls: list[tuple[object, ...]] = []
        signatures = core.signatures if core is not None and document is not None else {}
        for rec in records:
            if rec.kind in _SKIPPED_KINDS or not rec.definitions:
                continue
            if same is not None and (known := signatures.get(rec.id)) is not None and known == _core_signature(state, rec, document):
                same.add(_rowid(rec.id))
                continue
            comments: list[str] = []
            path = ""
            params = ""
            dependency = True
            for key, index in rec.definitions:
                doc = state.documents.get(key)
                if doc is None:
                    continue
                dependency = dependency and doc.library is not None
                if not path:
                    path = doc.path or doc.uri
                definition = doc.definitions[index]
                comments.extend(definition.comments)
                if definition.params and not params:
                    params = definition.params
            summary, rest = _comment_text(comments)
            owner = state.declarations.get(rec.owner) if rec.owner is not None else None
            unq = rec.unqualified.rstrip("()")
            words = self._words_of(unq)
            doc_words = (summary.count(" ") + 1 if summary else 0) + (rest.count(" ") + 1 if rest else 0)
            rowid = _rowid(rec.id)
            name_text = f"{words} {unq.lower()}" if " " in words else words or unq.lower()
            namespace = self._words_of(owner.name) if owner is not None else ""
            texts.append((rowid, name_text, namespace, summary, rest, (self._words_of("/".join(path.split("/")[-3:])) + " " + " ".join(_PARAM.findall(params))).strip(), _KIND_WORDS.get(rec.kind, rec.kind.lower())))
            decls.append((rowid, rec.name, unq, rec.kind, path, _prior(rec.kind, path, rec.visibility == "private", doc_words, dependency), words, "ruby"))
        return texts, decls

    def _insert_foreign(self, foreign: ForeignState, ids: Iterable[int]) -> None:
        """Rows for declarations of other languages: the same fields, from their symbols (doc
        comment or docstring, signature, the file of the first definition)."""
        texts = []
        decls = []
        for did in ids:
            decl = foreign.declarations.get(did)
            if decl is None:
                continue
            uri, index = decl.definitions[0]
            doc = foreign.files[uri]
            symbol = doc.symbols[index]
            path = doc.path or doc.uri
            summary, rest = _comment_text((symbol.doc or "").splitlines())
            words = self._words_of(decl.unqualified)
            doc_words = (summary.count(" ") + 1 if summary else 0) + (rest.count(" ") + 1 if rest else 0)
            namespace = decl.name[: -len(decl.unqualified)].rstrip(".:\\")
            rowid = _rowid(did)
            name_text = f"{words} {decl.unqualified.lower()}" if " " in words else words or decl.unqualified.lower()
            params = " ".join(_PARAM.findall(symbol.signature or ""))
            kind_words = f"{decl.kind} {decl.language}"
            texts.append((rowid, name_text, self._words_of(namespace), summary, rest, (self._words_of("/".join(path.split("/")[-3:])) + " " + params).strip(), kind_words))
            private = decl.unqualified.startswith("_") and not decl.unqualified.startswith("__")
            decls.append((rowid, decl.name, decl.unqualified, decl.kind, path, _prior(decl.kind, path, private, doc_words), words, decl.language))
        self._store(texts, decls)

    def _changed(self) -> None:
        """Forget what the database answered: its rows are about to change."""
        self._lists.clear()
        self._term_rows.clear()
        self._answers.clear()

    def _store(self, texts: Sequence[tuple[object, ...]], decls: Sequence[tuple[object, ...]]) -> None:
        """Write rows: ``texts`` to the full-text table, ``decls`` (in the same order) to the
        declarations table, and their fields as re-scoring reads them (``_rescoring_fields``)
        to the re-scoring table."""
        self._changed()
        fields = self._rescoring_fields(texts, decls)
        with self._db:
            self._db.executemany("INSERT INTO sym(rowid, words, namespace, summary, doc, path, kind) VALUES(?, ?, ?, ?, ?, ?, ?)", texts)
            self._db.executemany("INSERT INTO decl VALUES(?, ?, ?, ?, ?, ?, ?, ?)", decls)
            self._db.executemany("INSERT INTO rescore VALUES(?, ?, ?, ?, ?, ?, ?)", [(d[0], *f) for d, f in zip(decls, fields, strict=True)])
        self._count += len(decls)

    def _rescoring_fields(self, texts: Sequence[tuple[object, ...]], decls: Sequence[tuple[object, ...]]) -> list[tuple[str, ...]]:
        """For each row, what re-scoring compares the query's stems with, made once when the
        row is written (reading and stemming its texts was most of a new query's time): the
        stems (``stem_text``) of its name's words, of its summary's words, of its namespace,
        of the first ``_DOC_WORDS`` words of the rest of its doc comment and of its path and
        parameters, then its summary's words as ``" a b "`` (for the words side by side)."""
        findall = _TEXT_WORD.findall
        words: set[str] = set()
        # Names, namespaces and paths recur (``initialize``, every method of a class, of a
        # file): their words are split, and their stems joined, once each.
        shared: dict[str, str] = {}
        split: list[tuple[str, list[str], str, list[str], str]] = []
        for text, decl in zip(texts, decls, strict=True):
            namespace, summary, rest, path = cast("tuple[str, str, str, str]", text[2:6])
            name = cast(str, decl[6])
            # Most rows have no doc comment at all.
            said: list[str] = findall(summary.lower()) if summary else []
            doc_words = _first_words(rest, _DOC_WORDS) if rest else []
            if said:
                words.update(said)
            if doc_words:
                words.update(doc_words)
            for recurring in (name, namespace, path):
                if recurring not in shared:
                    shared[recurring] = ""
                    words.update(recurring.split())
            split.append((name, said, namespace, doc_words, path))
        stems = stem_map(self._stemmer, sorted(words))
        for recurring in shared:
            shared[recurring] = stem_text(recurring.split(), stems)
        out: list[tuple[str, ...]] = []
        for name, said, namespace, doc_words, path in split:
            if said or doc_words:
                out.append((shared[name], stem_text(said, stems), shared[namespace], stem_text(doc_words, stems), shared[path], " " + " ".join(said) + " "))
            else:
                out.append((shared[name], " ", shared[namespace], " ", shared[path], "  "))
        return out

    def _store_keeping_core(self, state: ResolvedState, texts: list[tuple[object, ...]], decls: list[tuple[object, ...]]) -> None:
        """The first build of the process: Ruby core's rows (of declarations defined in its
        document alone) are written first, and the database as it is then is kept for the
        builds that follow (``_core_rows``); then the other rows."""
        global _core_rows
        core_keys = {key for key, doc in state.documents.items() if doc.uri == CORE_URI}
        decls_of = state.declarations
        mine = [
            i for i, row in enumerate(decls)
            if (rec := decls_of.get(_declaration_id(row[0]))) is not None  # type: ignore[arg-type]
            and all(key in core_keys for key, _ in rec.definitions)
        ]
        if not core_keys or not mine:
            self._store(texts, decls)
            return
        core_texts, core_decls = [texts[i] for i in mine], [decls[i] for i in mine]
        self._store(core_texts, core_decls)
        with _core_lock:
            if _core_rows is None:
                rows = {row[0]: (text, row) for text, row in zip(core_texts, core_decls, strict=True)}
                document = state.documents[next(iter(core_keys))]
                signatures = {}
                for row in core_decls:
                    did = _declaration_id(row[0])  # type: ignore[arg-type]
                    if (signature := _core_signature(state, decls_of[did], document)) is not None:
                        signatures[did] = signature
                _core_rows = _CoreRows(rows, self._db.serialize(), document, signatures)  # type: ignore[arg-type]
        kept = set(mine)
        self._store([t for i, t in enumerate(texts) if i not in kept], [d for i, d in enumerate(decls) if i not in kept])

    def _store_over(self, core: _CoreRows, texts: list[tuple[object, ...]], decls: list[tuple[object, ...]], same: set[int]) -> None:
        """Rows written over the database of Ruby core's rows: a row equal to core's stays
        (those of ``same`` were found equal already), core's rows that this state has
        otherwise or not at all go, the other rows are added."""
        rows = core.rows
        new_texts, new_decls = [], []
        for text, row in zip(texts, decls, strict=True):
            rowid: int = row[0]  # type: ignore[assignment]
            if rows.get(rowid) == (text, row):
                same.add(rowid)
            else:
                new_texts.append(text)
                new_decls.append(row)
        gone = [(rowid,) for rowid in rows if rowid not in same]
        if gone:
            self._changed()
            with self._db:
                self._db.executemany("DELETE FROM sym WHERE rowid = ?", gone)
                self._db.executemany("DELETE FROM decl WHERE rowid = ?", gone)
                self._db.executemany("DELETE FROM rescore WHERE rowid = ?", gone)
        self._store(new_texts, new_decls)

    def advance(self, state: ResolvedState, foreign: ForeignState | None = None, changed_keys: Iterable[int] | None = None) -> SymbolIndex:
        """This index, brought to ``state`` (a later revision of the same graph): the
        declarations of documents that changed, appeared or went are indexed again. The index
        then belongs to ``state``'s view (an older view that searches again builds its own).
        ``changed_keys``: those documents' keys, when the caller knows them (else every
        document is compared, which costs milliseconds per thousand documents)."""
        with self._lock:
            old = self.state
            if changed_keys is None:
                changed = [k for k in old.documents if state.documents.get(k) is not old.documents[k]]
                changed += [k for k in state.documents if k not in old.documents]
            else:
                changed = list(changed_keys)
            affected: set[int] = set()
            for key in changed:
                for table in (old.definition_declarations, state.definition_declarations):
                    affected.update(d for d in table.get(key, ()) if d is not None)
            affected -= _rows_kept(old, state, changed, affected)
            self._forget(affected)
            self._insert(state, (state.declarations[d] for d in sorted(affected) if d in state.declarations))
            if foreign is not None and foreign is not self.foreign:
                self._advance_foreign(foreign)
            self.state = state
        return self

    def _forget(self, affected: set[int]) -> None:
        """Drop the rows (and the cached fields) of declarations about to be indexed again."""
        self._changed()
        with self._db:
            gone = [(_rowid(d),) for d in affected]
            self._db.executemany("DELETE FROM sym WHERE rowid = ?", gone)
            self._db.executemany("DELETE FROM rescore WHERE rowid = ?", gone)
            # Kept by arithmetic: counting a million rows again costs tens of milliseconds.
            self._count -= self._db.executemany("DELETE FROM decl WHERE rowid = ?", gone).rowcount
        for did in affected:
            self._rows.pop(did, None)
            self._fields.pop(did, None)

    def _advance_foreign(self, foreign: ForeignState) -> None:
        old = self.foreign
        if old is None:
            self._insert_foreign(foreign, foreign.declarations)
        else:
            changed = [u for u in set(old.files) | set(foreign.files) if old.files.get(u) is not foreign.files.get(u)]
            affected = {d for u in changed for table in (old.symbol_declarations, foreign.symbol_declarations) for d in table.get(u, ())}
            self._forget(affected)
            self._insert_foreign(foreign, sorted(affected))
        self.foreign = foreign

    # -- queries ---------------------------------------------------------------------------

    def statistics(self) -> dict[str, CollectionStatistics]:
        """This index's collection statistics per file path (the rows of the declarations
        first defined there). An index over several projects holds each file once, so the
        statistics of the union are the sum over distinct paths (``rdx fleet``)."""
        with self._lock:
            self._db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.sym_instances USING fts5vocab(main, sym, 'instance')")
            rows = dict(self._db.execute("SELECT path, count(*) FROM decl GROUP BY path").fetchall())
            documents: dict[str, dict[str, int]] = {p: {} for p in rows}
            query = "SELECT d.path, i.term, count(DISTINCT i.doc) FROM temp.sym_instances i JOIN decl d ON d.rowid = i.doc GROUP BY d.path, i.term"
            for path, term, n in self._db.execute(query):
                documents[path][term] = n
        return {p: CollectionStatistics(rows[p], documents[p]) for p in sorted(rows)}

    def search(
        self, query: str, *, kind: str | None = None, path: str | None = None, limit: int = 20, language: str | None = None
    ) -> list[int]:
        """Declaration ids, best first (scored with given statistics in ``scoring_with``)."""
        scoring = _SCORING.get()
        with self._lock:
            key = (query, kind, path, limit, language)
            found = self._answers.get(key) if scoring is None else None
            if found is None:
                self._collection = scoring[0] if scoring is not None else None
                try:
                    found = self._search(query, kind, path, limit, language)
                finally:
                    self._collection = None
                if scoring is None:
                    if len(self._answers) >= _ANSWERS_KEPT:
                        del self._answers[next(iter(self._answers))]
                    self._answers[key] = found
        if scoring is not None:
            scoring[1].update((name, (score, where)) for _, name, score, where in found)
        return [did for did, _, _, _ in found]

    def _search(self, query: str, kind: str | None, path: str | None, limit: int, language: str | None) -> list[tuple[int, str, float, str]]:
        """(id, name, score, path) of the best ``limit`` results, best first."""
        parsed = parse_query(query)
        words = parsed.words
        with self._lock:
            ids: list[int] = []
            if parsed.expression is not None:
                expression = (self._selective(words) if parsed.plain else None) or parsed.expression
                ids = self._candidates(expression, words if parsed.plain else [])
            if not parsed.excludes:
                ids += self._named(query.strip().lower())
                joined = snake_join(query)
                if joined:
                    ids += self._named(joined)
            rows = [
                r
                for r in self._load_rows(list(dict.fromkeys(ids)))
                if (kind is None or r.kind == kind) and (path is None or path in r.path) and (language is None or r.language == language)
            ]
            if not rows:
                return []
            scored = self._rescore(rows, query, words)
            paths = {r.id: r.path for r in rows}
        # The same as sorting all and taking the first ``limit`` (ties keep their order).
        best = heapq.nsmallest(limit, scored, key=lambda x: (-x[0], x[1]))
        return [(did, name, score, paths[did]) for score, name, did in best]

    def _named(self, q: str) -> list[int]:
        """Declarations named exactly ``q`` (qualified or not, any case)."""
        rows = self._db.execute("SELECT rowid FROM decl WHERE lower(unq) = ? OR lower(name) = ? ORDER BY name", (q.removesuffix("()"), q)).fetchall()
        return [_declaration_id(r[0]) for r in rows]

    def _load_rows(self, ids: list[int]) -> list[_Row]:
        """The rows of ``ids`` (those that have one), with their re-scoring fields, read from
        the database the first time they are asked for."""
        rows = self._rows
        fields = self._fields
        missing = [i for i in ids if i not in rows]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            query = f"SELECT {_ROW_COLUMNS}, {_FIELD_COLUMNS} FROM decl d JOIN rescore f ON f.rowid = d.rowid WHERE d.rowid IN ({','.join('?' * len(chunk))})"
            for r in self._db.execute(query, [_rowid(i) for i in chunk]):
                row = _Row(*r[:8])
                rows[row.id] = row
                fields[row.id] = r[8:]
        return [rows[i] for i in ids if i in rows]

    def _selective(self, words: list[str]) -> str | None:
        """The FTS5 expression that picks a plain query's candidates: its words in at most one
        row in ``_COMMON`` ORed, and every pair of its ``_PAIRED`` rarest common words ANDed
        (a lone common word would have BM25 score thousands of rows, most of a query's time;
        see ``_COMMON``). Re-scoring still counts every word. None when no word is selective
        and no two are common."""
        self._stems(words)
        by_stem: dict[str, str] = {}
        for w in words:
            by_stem.setdefault(self._stem_cache[w], w)  # "line" and "lines": one word
        counts = self._documents(sorted(by_stem))
        total = self._rows_total()
        selective, common = [], []
        for stem, word in by_stem.items():
            rows = counts.get(stem, 0)
            if rows * _COMMON <= total:
                selective.append(fts_word(word))
            elif rows * _VERY_COMMON <= total:
                common.append((rows, fts_word(word)))
        paired = [w for _, w in sorted(common)[:_PAIRED]]
        terms = selective + [f"({a} AND {b})" for a, b in itertools.combinations(paired, 2)]
        return " OR ".join(terms) if terms else None

    def _pool(self, least: int, share: int) -> int:
        """How many rows to take from one BM25 list: ``least``, or one row in ``share``."""
        return max(least, self._rows_total() // share)

    def _candidates(self, expression: str, words: list[str]) -> list[int]:
        """The best rows by BM25 over every column, over the doc comment alone (long names
        and namespaces otherwise crowd out a declaration whose doc says what was asked), over
        the name alone, and over names and summaries for each word's related words (the words
        of a plain query: an operator's constraint must hold for every candidate)."""
        ids: list[int] = []
        count = self._pool(_CANDIDATES, _CANDIDATES_SHARE)
        lists = [
            ("", expression, _WEIGHTS, count),
            ("{summary doc} : ", expression, (0, 0, 2.0, 1.0, 0, 0), count),
            ("{words} : ", expression, _WEIGHTS, count // 2),
        ]
        # One list per word: a word with many related words ("make": create, new, build...)
        # would otherwise crowd out the one related word of another ("slug": parameterize).
        related = self._pool(_RELATED_CANDIDATES, _RELATED_SHARE)
        for word in dict.fromkeys(words):
            others = " OR ".join(fts_word(r) for r in related_words(word) if r not in words)
            if others:
                lists.append(("{words summary} : ", others, _WEIGHTS, related))
        for columns, query, weights, limit in lists:
            if not query:
                continue
            found = self._bm25(f"{columns}({query})" if columns else query, weights, limit)
            if found is None:
                return ids  # An expression FTS5 refuses (e.g. a lone NOT): nothing more to add.
            ids += found
        return ids

    def _bm25(self, match: str, weights: tuple[float, ...], limit: int) -> list[int] | None:
        """The best ``limit`` rows for the FTS5 query ``match`` by BM25 with column ``weights``
        (None: FTS5 refuses the query), remembered until the rows change."""
        key = (match, weights, limit)
        if key in self._lists:
            return self._lists[key]
        found: list[int] | None
        try:
            rows = self._db.execute("SELECT rowid FROM sym WHERE sym MATCH ? ORDER BY bm25(sym, ?, ?, ?, ?, ?, ?) LIMIT ?", (match, *weights, limit)).fetchall()
            found = [_declaration_id(r[0]) for r in rows]
        except sqlite3.OperationalError:
            found = None
        if len(self._lists) >= _LISTS_KEPT:
            del self._lists[next(iter(self._lists))]
        self._lists[key] = found
        return found
