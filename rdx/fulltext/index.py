"""The text index: every text file of a project in one SQLite database, with an FTS5 trigram
index that names the files which may contain a string.

Layout (``text.sqlite`` in the cache directory, or in memory for graphs without one):

- ``files``: one row per indexed file (path, size, mtime, content hash, language);
- ``bodies``: the file's bytes, exactly as read (matches are verified on them and their byte
  columns reported);
- ``grams``: a contentless FTS5 table with the ``trigram`` tokenizer and ``detail=none``: for
  each case-folded trigram, the files containing it, nothing more. Positions are not stored
  (``detail=full`` costs 3.6 times the space): a candidate is verified on its text anyway.

Measured on the Debian Ruby corpus (36 MB of text): built in about 2.5 s, 1.4 bytes on disk per
byte indexed, bodies included. A sync compares each file's size and mtime, then its content
hash, and re-indexes only what changed; all of it in one transaction, so a reader sees the old
or the new index. A database that cannot be read (corrupt, another schema) is rebuilt.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rdx.discovery.files import MAX_FILE_BYTES, content_hash
from rdx.fulltext.pattern import Requirement
from rdx.model.languages import language_of

__all__ = ["INDEX_NAME", "SyncStats", "TextFile", "TextIndex"]

INDEX_NAME = "text.sqlite"
SCHEMA = 2
_CHUNK = 500  # Ids per ``IN (...)`` query.


@dataclass(frozen=True, slots=True)
class TextFile:
    id: int
    path: str
    language: str
    size: int


@dataclass
class SyncStats:
    indexed: int = 0  # Files read and (re-)indexed.
    kept: int = 0  # Files unchanged since the last sync.
    removed: int = 0
    binary: int = 0  # Skipped: NUL bytes.
    unreadable: int = 0
    too_large: int = 0


def _signed(h: int) -> int:
    return h - (1 << 64) if h >= 1 << 63 else h


def _expression(req: Requirement) -> str:
    """An FTS5 query for a requirement (not None)."""
    if isinstance(req, str):
        return '"' + req.replace('"', '""') + '"'
    assert req is not None
    op, items = req
    return "(" + f" {op.upper()} ".join(_expression(r) for r in items) + ")"


class TextIndex:
    """The text of a project's files, searchable by trigram. Thread-safe."""

    def __init__(self, path: str | None = None) -> None:
        """Open (or create) the index at ``path``; ``None`` keeps it in memory. An unreadable
        database or another schema is replaced by an empty one (``self.problem`` says why)."""
        self.path = path
        self.problem: str | None = None
        self._lock = threading.RLock()
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:
            self.problem = f"text index {path} was unreadable ({exc}); rebuilt"
            self._discard()
            self._db = self._connect()
        self.files: dict[str, TextFile] = {}
        self.by_id: dict[int, TextFile] = {}
        self._version = 0
        self._reload()

    # -- storage ---------------------------------------------------------------------------

    def _discard(self) -> None:
        if self.path is None:
            return
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.remove(self.path + suffix)
            except FileNotFoundError:
                pass

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path or ":memory:", check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 5000")
        if self.path is not None:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA mmap_size = 1073741824")  # Bodies read through the page cache, no copies.
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA):
            db.close()
            self.problem = f"text index {self.path} has schema {version}, this rdx writes {SCHEMA}; rebuilt"
            self._discard()
            return self._connect()
        if version == 0:
            db.executescript(
                f"""
                BEGIN;
                CREATE TABLE IF NOT EXISTS files(
                    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL, hash INTEGER NOT NULL, language TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS bodies(id INTEGER PRIMARY KEY, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS skipped(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL);
                CREATE VIRTUAL TABLE IF NOT EXISTS grams USING fts5(
                    body, tokenize = 'trigram', detail = none, content = '');
                PRAGMA user_version = {SCHEMA};
                COMMIT;
                """
            )
        db.execute("SELECT count(*) FROM files").fetchone()  # Fails now on a corrupt file.
        return db

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _remember(self, f: TextFile) -> None:
        self.files[f.path] = f
        self.by_id[f.id] = f

    def _forget(self, path: str) -> bool:
        # Asked of the database, not of ``self.files``: another process may have written it.
        row = self._db.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        f = self.files.pop(path, None)
        if f is not None:
            self.by_id.pop(f.id, None)
        if row is None:
            return False
        (fid,) = row
        (old,) = self._db.execute("SELECT body FROM bodies WHERE id = ?", (fid,)).fetchone() or (b"",)
        # A contentless FTS5 row is deleted by giving back the text it was indexed from.
        self._db.execute("INSERT INTO grams(grams, rowid, body) VALUES('delete', ?, ?)", (fid, old.decode("utf-8", "replace")))
        self._db.execute("DELETE FROM bodies WHERE id = ?", (fid,))
        self._db.execute("DELETE FROM files WHERE id = ?", (fid,))
        return True

    def _store(self, path: str, data: bytes, size: int, mtime_ns: int) -> None:
        self._forget(path)
        self._db.execute("DELETE FROM skipped WHERE path = ?", (path,))
        cur = self._db.execute(
            "INSERT INTO files(path, size, mtime_ns, hash, language) VALUES(?, ?, ?, ?, ?)",
            (path, size, mtime_ns, _signed(content_hash(data)), language_of(path)),
        )
        fid = cur.lastrowid
        assert fid is not None
        self._db.execute("INSERT INTO bodies(id, body) VALUES(?, ?)", (fid, data))
        self._db.execute("INSERT INTO grams(rowid, body) VALUES(?, ?)", (fid, data.decode("utf-8", "replace")))
        self._remember(TextFile(fid, path, language_of(path), len(data)))

    # -- updates ---------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One write transaction, taken before anything is read for it (other processes may
        write the same file); on any failure it is rolled back and the file table reloaded."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                self._reload()
                raise

    def sync(self, files: Iterable[tuple[str, int, int]], limit: int | None = None) -> SyncStats:
        """Make the index hold exactly ``files`` ((path, size, mtime_ns) from a walk): read the
        new and changed ones, drop the rest. Binary and unreadable files are left out."""
        stats = SyncStats()
        with self._lock:
            seen: set[str] = set()
            with self._writing():
                # Read under the write lock: another indexer may have just synced.
                self._refresh()
                known = {row[0]: row[1:] for row in self._db.execute("SELECT path, size, mtime_ns, hash FROM files")}
                # Binary files seen before: not read again while their size and mtime hold.
                binary = {row[0]: row[1:] for row in self._db.execute("SELECT path, size, mtime_ns FROM skipped")}
                for path, size, mtime_ns in files:
                    seen.add(path)
                    prev = known.get(path)
                    if prev is not None and prev[0] == size and prev[1] == mtime_ns:
                        stats.kept += 1
                        continue
                    if binary.get(path) == (size, mtime_ns):
                        stats.binary += 1
                        continue
                    self._read_into(path, prev, stats, limit)
                for path in set(known) - seen:
                    self._forget(path)
                    stats.removed += 1
                self._db.executemany("DELETE FROM skipped WHERE path = ?", [(p,) for p in set(binary) - seen])
            if stats.indexed > 1000:
                self._db.execute("INSERT INTO grams(grams) VALUES('optimize')")
            if self.path is not None and stats.indexed + stats.removed:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return stats

    def _reload(self) -> None:
        self.files.clear()
        self.by_id.clear()
        for fid, fpath, language, size in self._db.execute("SELECT id, path, language, size FROM files"):
            self._remember(TextFile(fid, fpath, language, size))
        self._version = self._db.execute("PRAGMA data_version").fetchone()[0]

    def _refresh(self) -> None:
        """Reload the file table when another connection (another process) committed since."""
        if self._db.execute("PRAGMA data_version").fetchone()[0] != self._version:
            self._reload()

    def _read_into(self, path: str, prev: tuple[int, int, int] | None, stats: SyncStats, limit: int | None) -> None:
        data, size, mtime_ns, problem = _read_text(path, limit)
        if data is None:
            setattr(stats, problem, getattr(stats, problem) + 1)
            if problem == "binary":
                self._db.execute("INSERT OR REPLACE INTO skipped VALUES(?, ?, ?)", (path, size, mtime_ns))
            if self._forget(path):
                stats.removed += 1
            return
        if prev is not None and prev[2] == _signed(content_hash(data)):
            # Touched, not changed: remember the new mtime only.
            self._db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path))
            stats.kept += 1
            return
        self._store(path, data, size, mtime_ns)
        stats.indexed += 1

    def update(self, paths: Iterable[str], limit: int | None = None) -> SyncStats:
        """Re-read ``paths`` (changed on disk): index those that are text files, drop the others."""
        stats = SyncStats()
        with self._writing():
            for path in paths:
                row = self._db.execute("SELECT size, mtime_ns, hash FROM files WHERE path = ?", (path,)).fetchone()
                self._read_into(path, row, stats, limit)
        return stats

    def put(self, path: str, data: bytes) -> None:
        """Index ``data`` as the text of ``path`` (an editor buffer: it wins over the disk)."""
        with self._writing():
            if b"\0" in data:
                self._forget(path)
            else:
                self._store(path, data, len(data), 0)

    def remove(self, path: str) -> bool:
        with self._writing():
            return self._forget(path)

    # -- reads -----------------------------------------------------------------------------

    def candidates(self, requirement: Requirement) -> list[TextFile]:
        """Files that may match (every file when nothing is required), sorted by path."""
        with self._lock:
            self._refresh()
            if requirement is None:
                found = list(self.files.values())
            else:
                rows = self._db.execute("SELECT rowid FROM grams WHERE grams MATCH ?", (_expression(requirement),))
                by_id = self.by_id
                found = [by_id[r[0]] for r in rows if r[0] in by_id]
        found.sort(key=lambda f: f.path)
        return found

    def bodies(self, files: list[TextFile]) -> Iterator[tuple[TextFile, bytes]]:
        """(file, bytes) in the order of ``files``, read in chunks."""
        for start in range(0, len(files), _CHUNK):
            chunk = files[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                found = dict(self._db.execute(f"SELECT id, body FROM bodies WHERE id IN ({marks})", [f.id for f in chunk]).fetchall())
            for f in chunk:
                body = found.get(f.id)
                if body is not None:
                    yield f, body

    def body(self, path: str) -> bytes | None:
        f = self.files.get(path)
        if f is None:
            return None
        with self._lock:
            row = self._db.execute("SELECT body FROM bodies WHERE id = ?", (f.id,)).fetchone()
        return row[0] if row else None

    def disk_bytes(self) -> int:
        if self.path is None:
            return 0
        return sum(os.path.getsize(self.path + s) for s in ("", "-wal") if os.path.exists(self.path + s))

    def text_bytes(self) -> int:
        return sum(f.size for f in self.files.values())


def _read_text(path: str, limit: int | None) -> tuple[bytes | None, int, int, str]:
    """(bytes, size, mtime_ns, "") for a text file; (None, 0, 0, reason) otherwise."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, 0, 0, "unreadable"
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_size > min(limit or MAX_FILE_BYTES, MAX_FILE_BYTES):
                return None, 0, 0, "too_large"
            data = f.read()
    except OSError:
        return None, 0, 0, "unreadable"
    if b"\0" in data:
        return None, st.st_size, st.st_mtime_ns, "binary"
    return data, len(data), st.st_mtime_ns, ""
