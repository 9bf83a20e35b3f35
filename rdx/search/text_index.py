"""The text index: every text file of a project in one SQLite database, with an FTS5 trigram
index that names the files which may contain a string.

Layout (``text.sqlite`` in the cache directory, or in memory for graphs without one):

- ``files``: one row per indexed file (path, size, mtime, content hash, language); a path is
  kept as its UTF-8 bytes (``_key``), so a file name that is not valid UTF-8 is indexed too;
- ``bodies``: the file's bytes, exactly as read (matches are verified on them and their byte
  columns reported);
- ``grams``: a contentless FTS5 table with the ``trigram`` tokenizer and ``detail=none``: for
  each case-folded trigram, the files containing it, nothing more. Positions are not stored
  (``detail=full`` costs 3.6 times the space): a candidate is verified on its text anyway.

Measured on the Debian Ruby corpus (36 MB of text): built in about 2.5 s, 1.4 bytes on disk per
byte indexed, bodies included. A sync compares each file's size and mtime, then its content
hash, and re-indexes only what changed; all of it in one transaction, so a reader sees the old
or the new index. A database that cannot be read (corrupt, another schema) is rebuilt.

Damage is never served. SQLite checks its own structure (``PRAGMA quick_check``), not what rows
hold, so rows are checked too: the ``files`` rows and the trigram index's own tables
(``grams_data``, ``grams_idx``) each carry a sum of their rows' BLAKE2b digests in ``sums``; a
mismatch rebuilds the index. Both checks together cost 130 to 170 ms on the Debian corpus, so
an open runs them only when the database is not as rdx last left it: the stamp beside it
(``text.sqlite.stamp``) records the file's inode, size, mtime and ctime, written once its sums
were checked or settled and its write-ahead log emptied. Anything that writes the file (SQLite
from another program, a flipped byte, a copy over it) changes its ctime, which no program can
set back, so the stamp no longer matches and the next open checks everything (and stamps the
file again when the check passes); so does a write-ahead log that holds frames. The
``files`` sum follows each row in the write's own transaction. The trigram tables' sums cannot
(FTS5 rewrites its blocks as it merges segments, and SQLite 3.40 crashes when triggers watch
them), and computing them again costs time in proportion to the whole index, so a write marks
them pending (``PENDING``) and they are settled once writes pause for ``SETTLE_SECONDS``, at
``close`` and at exit: an editor's keystroke costs what it did before. A pending sum is not
checked on open (its writer may still be in its pause, in another process); an index left
pending by a writer that died in that pause is settled by the next writer, after SQLite's
check. A body is checked against its file's content
hash before grep reads it (once per process), and a damaged or missing body is read again from
the disk. SQLite reporting corruption at any time rebuilds the index and retries.

A full disk or an unwritable cache moves the index to memory (``repairs`` says so): rebuilt
from the files it held, it answers as before, and the file on disk is left as it was.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

import msgspec

from rdx.model.languages import language_of
from rdx.search.pattern import Requirement
from rdx.workspace.files import MAX_FILE_BYTES, content_hash, open_regular
from rdx.workspace.opening import read_descriptor

__all__ = ["INDEX_NAME", "SyncStats", "TextFile", "TextIndex", "check_database", "failure_kind", "verify_text_index"]

INDEX_NAME = "text.sqlite"
SCHEMA = 4  # 4: paths stored as BLOBs (``_key``), so any file name fits.
T = TypeVar("T")
# Row sums are kept modulo this (below 2**63: SQLite integers are signed 64-bit).
_SUM_MODULUS = 1 << 62
# The tables whose rows are summed, with the columns that make a row.
_SUMMED = {
    "files": ("id", "path", "size", "mtime_ns", "hash", "language"),
    "grams_data": ("id", "block"),
    "grams_idx": ("segid", "term", "pgno"),
}
# SQLite's primary result codes that say the disk or the directory cannot take a write, and
# those that say the database file is damaged.
_UNWRITABLE = {3: "permission denied", 8: "read-only", 10: "I/O error", 13: "no space left on device", 14: "cannot open the file"}
_CORRUPT = {11, 26}
_CHUNK = 500  # Ids per ``IN (...)`` query.
# A sum no table can have (sums are below ``_SUM_MODULUS``): written while a write's trigram
# sums are not computed yet.
PENDING = -1
# Quiet time after a write before the trigram tables' sums are computed again.
SETTLE_SECONDS = 1.0
# Beside the database: what its file was when rdx last checked or settled it (``_stamp``).
STAMP_SUFFIX = ".stamp"
# A file time this close to the moment it was read may still be shared by a write that comes
# after (file times follow a coarse clock, one tick is 1 to 10 ms): a stamp waits it out.
_TICK_NS = 20_000_000


@dataclass(frozen=True, slots=True)
class TextFile:
    id: int
    path: str
    language: str
    size: int
    hash: int = 0  # content_hash of the body, signed as SQLite stores it.


@dataclass
class SyncStats:
    indexed: int = 0  # Files read and (re-)indexed.
    kept: int = 0  # Files unchanged since the last sync.
    removed: int = 0
    binary: int = 0  # Skipped: NUL bytes.
    unreadable: int = 0
    too_large: int = 0


def _key(path: str) -> bytes:
    """How a path is stored and looked up: its UTF-8 bytes as a BLOB. A name that is not valid
    UTF-8 reaches Python with surrogate escapes, which SQLite cannot bind as TEXT;
    ``surrogatepass`` encodes every str, and ``_path`` gives back the same str."""
    return path.encode("utf-8", "surrogatepass")


def _path(stored: object) -> str:
    """The path a stored key (``_key``) stands for; a damaged row's value as text."""
    if isinstance(stored, bytes):
        return stored.decode("utf-8", "surrogatepass")
    return str(stored)


def _signed(h: int) -> int:
    return h - (1 << 64) if h >= 1 << 63 else h


def _row_digest(columns: tuple[object, ...]) -> int:
    return int.from_bytes(hashlib.blake2b(msgspec.msgpack.encode(columns), digest_size=8).digest(), "little") % _SUM_MODULUS


def _mix(value: int, sign: int, *columns: object) -> int:
    """A table's sum with one row added (``sign`` 1) or taken out (-1); called by triggers."""
    return (value + sign * _row_digest(columns)) % _SUM_MODULUS


def _table_sums(db: sqlite3.Connection, tables: Iterable[str] = _SUMMED) -> dict[str, int]:
    """The sums of ``tables`` (every summed table by default), computed from their rows."""
    sums: dict[str, int] = {}
    for table in tables:
        columns = _SUMMED[table]
        total = 0
        for row in db.execute(f"SELECT {', '.join(columns)} FROM {table}"):
            total += _row_digest(row)
        sums[table] = total % _SUM_MODULUS
    return sums


def check_database(db: sqlite3.Connection) -> str | None:
    """Why the text index in ``db`` cannot be trusted (None when it can): SQLite's structural
    check, then every summed table against its stored sum, in one read transaction."""
    in_transaction = db.in_transaction
    if not in_transaction:
        db.execute("BEGIN")
    try:
        verdict = db.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            return f"SQLite's check failed: {verdict}"
        stored = dict(db.execute("SELECT name, value FROM sums").fetchall())
        # A table whose sum is pending (a writer is still in its pause, or died in it) cannot
        # be checked; its writer or the next ``settle`` computes it.
        for table, value in _table_sums(db, [t for t in _SUMMED if stored.get(t) != PENDING]).items():
            if stored.get(table) != value:
                return f"the rows of {table} fail their checksum"
        return None
    finally:
        if not in_transaction:
            db.execute("COMMIT")


def _disk_state(path: str) -> list[int] | None:
    """(inode, size, mtime, ctime) of the database at ``path`` when its write-ahead log holds
    nothing (absent or empty: the file alone is the database); None otherwise."""
    try:
        if os.stat(path + "-wal").st_size:
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def stamp_holds(path: str) -> bool:
    """Whether the database at ``path`` is, byte for byte, as rdx last stamped it (its checks
    passed or its own writes settled since): same file, size and times, an empty log."""
    try:
        with open(path + STAMP_SUFFIX, "rb") as f:
            saved = msgspec.json.decode(f.read(), type=list[int])
    except (OSError, msgspec.DecodeError):
        return False
    state = _disk_state(path)
    return state is not None and saved == [SCHEMA, *state]


def write_stamp(path: str) -> None:
    """Stamp the database at ``path`` as it is now (see ``stamp_holds``); only for a state
    that was checked or written by rdx with its sums settled. A log with frames, or a file
    that changes meanwhile, leaves no stamp (the next open then checks)."""
    stamp = path + STAMP_SUFFIX
    state = _disk_state(path)
    if state is not None and time.time_ns() - max(state[2], state[3]) < _TICK_NS:
        # Wait out the clock tick of the last write: a write in the same tick would leave
        # the same times.
        time.sleep(_TICK_NS / 1e9)
        state = state if _disk_state(path) == state else None
    try:
        if state is None:
            os.remove(stamp)
            return
        tmp = f"{stamp}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(msgspec.json.encode([SCHEMA, *state]))
        os.replace(tmp, stamp)
    except OSError:
        pass  # No stamp: the next open checks, which is only slower.


def verify_text_index(path: str) -> str | None:
    """The deep check of ``rdx index --verify``: SQLite's full ``integrity_check``, every row
    sum and every stored body against its file's content hash. Returns what is wrong (the
    file is then removed, to be rebuilt by the next sync), None when all is well or absent."""
    if not os.path.exists(path):
        return None
    problem: str | None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.create_function("rdx_mix", -1, _mix, deterministic=True)
        try:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
            problem = None if verdict == "ok" else f"SQLite's integrity check failed: {verdict}"
            if problem is None and db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA:
                problem = check_database(db)
                if problem is None:
                    rows = db.execute("SELECT files.path, files.hash, bodies.body FROM files LEFT JOIN bodies ON bodies.id = files.id")
                    bad = [p for p, digest, body in rows if not isinstance(body, bytes) or _signed(content_hash(body)) != digest]
                    if bad:
                        problem = f"the stored text of {len(bad)} files fails its checksum (first: {_path(bad[0])!r})"
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        problem = f"SQLite cannot read it ({exc})"
    if problem is not None:
        for suffix in ("", "-wal", "-shm", "-journal", STAMP_SUFFIX):
            try:
                os.remove(path + suffix)
            except OSError:
                pass
    return problem


def failure_kind(exc: BaseException) -> str | None:
    """"corrupt", "unwritable" or None (a failure that is neither, such as a bad query)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    if code & 0xFF in _CORRUPT:
        return "corrupt"
    if code & 0xFF in _UNWRITABLE:
        return "unwritable"
    return None


def _reason(exc: BaseException) -> str:
    code = getattr(exc, "sqlite_errorcode", 0) or 0
    return _UNWRITABLE.get(code & 0xFF, str(exc))


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
        # What went wrong after opening, as (diagnostic code, message): damage found and
        # repaired, a disk that could not take a write (the index then lives in memory).
        self.repairs: list[tuple[str, str]] = []
        self._lock = threading.RLock()
        self._settle_timer: threading.Timer | None = None
        self._closed = False
        # Set by ``_connect`` when a writer left the trigram sums pending and is gone.
        self._orphaned_sums = False
        # Written since the last ``settle``: sums to compute or a stamp to write.
        self._unsettled = False
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:
            if failure_kind(exc) == "unwritable":
                raise  # Not damage: the caller keeps the index in memory.
            self.problem = f"text index {path} was corrupted ({exc}); rebuilt"
            self._discard()
            self._db = self._connect()
        self.files: dict[str, TextFile] = {}
        self.by_id: dict[int, TextFile] = {}
        self._version = 0
        # Ids whose bodies matched their content hash (checked once per process).
        self._verified: set[int] = set()
        self._limit: int | None = None
        self._grams_changed = False  # In the current write transaction.
        if self._orphaned_sums:
            self._unsettled = True
            self._schedule_settle()
        # Real paths a file's real path must be inside when it is read (set by the owner of
        # the index; see ``ProjectRoots``): a file swapped for a link out is not read.
        self.roots: tuple[str, ...] = ()
        self._reload()

    # -- storage ---------------------------------------------------------------------------

    def _discard(self) -> None:
        if self.path is None:
            return
        for suffix in (STAMP_SUFFIX, "", "-wal", "-shm", "-journal"):
            try:
                os.remove(self.path + suffix)
            except FileNotFoundError:
                pass

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path or ":memory:", check_same_thread=False, isolation_level=None)
        # The ``files`` sum is kept with this as rows come and go (``_sum_file``).
        db.create_function("rdx_mix", -1, _mix, deterministic=True)
        db.execute("PRAGMA busy_timeout = 5000")
        if self.path is not None:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            # No memory map: another process truncating the file would kill this one (SIGBUS).
            db.execute("PRAGMA mmap_size = 0")
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
                    id INTEGER PRIMARY KEY, path BLOB UNIQUE NOT NULL, size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL, hash INTEGER NOT NULL, language TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS bodies(id INTEGER PRIMARY KEY, body BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS skipped(path BLOB PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL);
                CREATE VIRTUAL TABLE IF NOT EXISTS grams USING fts5(
                    body, tokenize = 'trigram', detail = none, content = '');
                CREATE TABLE IF NOT EXISTS sums(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                PRAGMA user_version = {SCHEMA};
                """
            )
            db.executemany("INSERT INTO sums VALUES(?, ?)", list(_table_sums(db).items()))
            db.execute("COMMIT")
        elif self.path is not None:
            pending = db.execute("SELECT count(*) FROM sums WHERE value = ?", (PENDING,)).fetchone()[0]
            # As rdx left it (checked, or written and settled): nothing to check again.
            if pending or not stamp_holds(self.path):
                problem = check_database(db)
                if problem is not None:
                    db.close()
                    raise sqlite3.DatabaseError(problem)
                if pending:
                    self._orphaned_sums = True
                else:
                    write_stamp(self.path)
        db.execute("SELECT count(*) FROM files").fetchone()  # Fails now on a corrupt file.
        return db

    def close(self) -> None:
        with self._lock:
            self.settle()
            self._closed = True
            self._db.close()

    # -- damage and full disks -------------------------------------------------------------

    def _guarded(self, op: Callable[[], T]) -> T:
        """``op()``; when SQLite says the file is damaged, the index is rebuilt from the files
        it held and ``op`` runs again; when the disk cannot take a write, the same happens in
        memory. Any other failure is raised."""
        with self._lock:
            try:
                return op()
            except sqlite3.DatabaseError as exc:
                kind = failure_kind(exc)
                if kind is None:
                    raise
                self._fall_back(kind, exc)
            return op()

    def _fall_back(self, kind: str, exc: BaseException) -> None:
        known = sorted(self.files)
        try:
            self._db.close()
        except sqlite3.Error:
            pass
        if kind == "corrupt" and self.path is not None:
            self.repairs.append(("snapshot-rebuilt", f"text index {self.path} was corrupted ({exc}); rebuilt from the files"))
            self._discard()
            try:
                self._db = self._connect()
                self._reload()
                self._read_again(known)
                return
            except sqlite3.DatabaseError as again:
                if failure_kind(again) is None:
                    raise
                exc = again
                try:
                    self._db.close()
                except sqlite3.Error:
                    pass
        if self.path is not None:
            self.repairs.append(
                ("snapshot-unwritable", f"cannot write the cache at {os.path.dirname(self.path)}: {_reason(exc)}; answers come from memory")
            )
        # The file on disk stays as it was (a full disk leaves a valid older index): the next
        # process that can write brings it up to date.
        self.path = None
        self._db = self._connect()
        self._reload()
        self._read_again(known)

    def _read_again(self, paths: list[str]) -> None:
        rows = []
        for path in paths:
            try:
                st = os.stat(path)
            except OSError:
                continue
            rows.append((path, st.st_size, st.st_mtime_ns))
        self._sync(rows, self._limit)

    def _remember(self, f: TextFile) -> None:
        self.files[f.path] = f
        self.by_id[f.id] = f

    def _sum_grams(self) -> None:
        """Store the sums of the trigram index's tables, computed again from their rows (FTS5
        writes them itself, merging segments, so they cannot be followed row by row; SQLite
        3.40 crashes when triggers watch them). About 50 ms for the Debian corpus."""
        self._db.executemany("UPDATE sums SET value = ? WHERE name = ?", [(v, k) for k, v in _table_sums(self._db, ("grams_data", "grams_idx")).items()])

    def settle(self) -> None:
        """Compute the trigram sums a write left pending, now (``close`` and exit call it;
        otherwise a timer does, once writes pause), and stamp the file (``write_stamp``)."""
        with self._lock:
            if self._settle_timer is not None:
                self._settle_timer.cancel()
                self._settle_timer = None
            if self._closed or self.path is None or not self._unsettled:
                return
            self._unsettled = False
            try:
                pending = self._db.execute("SELECT count(*) FROM sums WHERE value = ?", (PENDING,)).fetchone()[0]
                if pending:
                    self._db.execute("BEGIN IMMEDIATE")
                    try:
                        self._sum_grams()
                        self._db.execute("COMMIT")
                    except BaseException:
                        if self._db.in_transaction:
                            self._db.execute("ROLLBACK")
                        raise
                # Empty the log (without waiting for other processes' readers: a busy log
                # leaves no stamp) so that the file alone is the database, then stamp it.
                self._db.execute("PRAGMA busy_timeout = 0")
                try:
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                finally:
                    self._db.execute("PRAGMA busy_timeout = 5000")
                write_stamp(self.path)
            except sqlite3.Error:
                # Left pending: the next open rebuilds an index it cannot check, and damage
                # found by a query is repaired there.
                pass

    def _schedule_settle(self) -> None:
        if self.path is None:
            return
        if self._settle_timer is not None:
            self._settle_timer.cancel()
        else:
            _OPEN.add(self)
        timer = threading.Timer(SETTLE_SECONDS, self.settle)
        timer.daemon = True
        self._settle_timer = timer
        timer.start()

    def _sum_file(self, sign: int, path: str) -> None:
        """Take the row of ``path`` out of the ``files`` sum (-1) or put it in (1)."""
        self._db.execute(
            "UPDATE sums SET value = (SELECT rdx_mix(sums.value, ?, id, path, size, mtime_ns, hash, language) FROM files WHERE path = ?) "
            "WHERE name = 'files' AND EXISTS (SELECT 1 FROM files WHERE path = ?)",
            (sign, _key(path), _key(path)),
        )

    def _forget(self, path: str) -> bool:
        # Asked of the database, not of ``self.files``: another process may have written it.
        row = self._db.execute("SELECT id FROM files WHERE path = ?", (_key(path),)).fetchone()
        f = self.files.pop(path, None)
        if f is not None:
            self.by_id.pop(f.id, None)
        if row is None:
            return False
        (fid,) = row
        self._sum_file(-1, path)
        (old,) = self._db.execute("SELECT body FROM bodies WHERE id = ?", (fid,)).fetchone() or (b"",)
        if not isinstance(old, bytes):  # A damaged row: give back what it holds now.
            old = str(old).encode("utf-8", "replace")
        # A contentless FTS5 row is deleted by giving back the text it was indexed from.
        self._db.execute("INSERT INTO grams(grams, rowid, body) VALUES('delete', ?, ?)", (fid, old.decode("utf-8", "replace")))
        self._grams_changed = True
        self._db.execute("DELETE FROM bodies WHERE id = ?", (fid,))
        self._db.execute("DELETE FROM files WHERE id = ?", (fid,))
        return True

    def _store(self, path: str, data: bytes, size: int, mtime_ns: int) -> None:
        self._forget(path)
        self._db.execute("DELETE FROM skipped WHERE path = ?", (_key(path),))
        cur = self._db.execute(
            "INSERT INTO files(path, size, mtime_ns, hash, language) VALUES(?, ?, ?, ?, ?)",
            (_key(path), size, mtime_ns, _signed(content_hash(data)), language_of(path)),
        )
        fid = cur.lastrowid
        assert fid is not None
        self._sum_file(1, path)
        self._db.execute("INSERT INTO bodies(id, body) VALUES(?, ?)", (fid, data))
        self._db.execute("INSERT INTO grams(rowid, body) VALUES(?, ?)", (fid, data.decode("utf-8", "replace")))
        self._grams_changed = True
        self._remember(TextFile(fid, path, language_of(path), len(data), _signed(content_hash(data))))
        self._verified.add(fid)

    # -- updates ---------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One write transaction, taken before anything is read for it (other processes may
        write the same file); on any failure it is rolled back and the file table reloaded."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._grams_changed = False
            changes = self._db.total_changes
            try:
                yield
                if self._grams_changed and self.path is not None:
                    self._db.execute("UPDATE sums SET value = ? WHERE name IN ('grams_data', 'grams_idx')", (PENDING,))
                self._db.execute("COMMIT")
                if self._db.total_changes != changes:
                    # The file's stamp is stale now: settled (and stamped again) once writes pause.
                    self._unsettled = True
                    self._schedule_settle()
            except BaseException:
                # A failed COMMIT (a full disk) may have rolled back already; rolling back
                # again would replace the real error with "no transaction is active".
                if self._db.in_transaction:
                    try:
                        self._db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                try:
                    self._reload()
                except sqlite3.Error:
                    pass  # The caller's error says more; ``_guarded`` rebuilds.
                raise

    def sync(self, files: Iterable[tuple[str, int, int]], limit: int | None = None) -> SyncStats:
        """Make the index hold exactly ``files`` ((path, size, mtime_ns) from a walk): read the
        new and changed ones, drop the rest. Binary and unreadable files are left out."""
        rows = list(files)
        self._limit = limit
        return self._guarded(lambda: self._sync(rows, limit))

    def _sync(self, files: list[tuple[str, int, int]], limit: int | None) -> SyncStats:
        stats = SyncStats()
        with self._lock:
            seen: set[str] = set()
            with self._writing():
                # Read under the write lock: another indexer may have just synced.
                self._refresh()
                known = {_path(row[0]): row[1:] for row in self._db.execute("SELECT path, size, mtime_ns, hash FROM files")}
                # Binary files seen before: not read again while their size and mtime hold.
                binary = {_path(row[0]): row[1:] for row in self._db.execute("SELECT path, size, mtime_ns FROM skipped")}
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
                self._db.executemany("DELETE FROM skipped WHERE path = ?", [(_key(p),) for p in set(binary) - seen])
            if stats.indexed > 1000:
                with self._writing():
                    self._db.execute("INSERT INTO grams(grams) VALUES('optimize')")
                    self._grams_changed = True  # Segments merged: the sums are computed again.
            if self.path is not None and stats.indexed + stats.removed:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return stats

    def _reload(self) -> None:
        self.files.clear()
        self.by_id.clear()
        self._verified.clear()
        for fid, fpath, language, size, digest in self._db.execute("SELECT id, path, language, size, hash FROM files"):
            self._remember(TextFile(fid, _path(fpath), language, size, digest))
        self._version = self._db.execute("PRAGMA data_version").fetchone()[0]

    def _refresh(self) -> None:
        """Reload the file table when another connection (another process) committed since."""
        if self._db.execute("PRAGMA data_version").fetchone()[0] != self._version:
            self._reload()

    def _read_into(self, path: str, prev: tuple[int, int, int] | None, stats: SyncStats, limit: int | None) -> None:
        data, size, mtime_ns, problem = _read_text(path, limit, self.roots)
        if data is None:
            setattr(stats, problem, getattr(stats, problem) + 1)
            if problem == "binary":
                self._db.execute("INSERT OR REPLACE INTO skipped VALUES(?, ?, ?)", (_key(path), size, mtime_ns))
            if self._forget(path):
                stats.removed += 1
            return
        if prev is not None and prev[2] == _signed(content_hash(data)):
            # Touched, not changed: remember the new mtime only.
            self._sum_file(-1, path)
            self._db.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, _key(path)))
            self._sum_file(1, path)
            stats.kept += 1
            return
        self._store(path, data, size, mtime_ns)
        stats.indexed += 1

    def update(self, paths: Iterable[str], limit: int | None = None) -> SyncStats:
        """Re-read ``paths`` (changed on disk): index those that are text files, drop the others."""
        wanted = list(paths)
        return self._guarded(lambda: self._update(wanted, limit))

    def _update(self, paths: list[str], limit: int | None) -> SyncStats:
        stats = SyncStats()
        with self._writing():
            for path in paths:
                row = self._db.execute("SELECT size, mtime_ns, hash FROM files WHERE path = ?", (_key(path),)).fetchone()
                self._read_into(path, row, stats, limit)
        return stats

    def put(self, path: str, data: bytes) -> None:
        """Index ``data`` as the text of ``path`` (an editor buffer: it wins over the disk)."""
        self._guarded(lambda: self._put(path, data))

    def _put(self, path: str, data: bytes) -> None:
        with self._writing():
            if b"\0" in data:
                self._forget(path)
            else:
                self._store(path, data, len(data), 0)

    def remove(self, path: str) -> bool:
        return self._guarded(lambda: self._remove(path))

    def _remove(self, path: str) -> bool:
        with self._writing():
            return self._forget(path)

    # -- reads -----------------------------------------------------------------------------

    def candidates(self, requirement: Requirement, deadline: float = float("inf")) -> list[TextFile] | None:
        """Files that may match (every file when nothing is required), sorted by path; None
        when the trigram query was still running at ``deadline`` (``time.monotonic()``)."""
        return self._guarded(lambda: self._candidates(requirement, deadline))

    def _candidates(self, requirement: Requirement, deadline: float) -> list[TextFile] | None:
        with self._lock:
            self._refresh()
            if requirement is None:
                found = list(self.files.values())
            else:
                # SQLite calls the handler every thousand steps; a true answer interrupts
                # the query, so a search's budget covers its index lookup too.
                if deadline != float("inf"):
                    self._db.set_progress_handler(lambda: time.monotonic() > deadline, 1_000)
                try:
                    rows = self._db.execute("SELECT rowid FROM grams WHERE grams MATCH ?", (_expression(requirement),)).fetchall()
                except sqlite3.OperationalError as exc:
                    if time.monotonic() > deadline and "interrupt" in str(exc):
                        return None
                    raise
                finally:
                    self._db.set_progress_handler(None, 0)
                by_id = self.by_id
                found = [by_id[r[0]] for r in rows if r[0] in by_id]
        found.sort(key=lambda f: f.path)
        return found

    def bodies(self, files: list[TextFile]) -> Iterator[tuple[TextFile, bytes]]:
        """(file, bytes) in the order of ``files``, read in chunks; each body checked against
        its content hash first (a damaged one is read again from the disk)."""
        for start in range(0, len(files), _CHUNK):
            chunk = files[start : start + _CHUNK]
            found: dict[int, bytes] = self._guarded(functools.partial(self._read_bodies, [f.id for f in chunk]))
            for f in chunk:
                body = self._checked(f, found.get(f.id))
                if body is not None:
                    yield f, body

    def _read_bodies(self, ids: list[int]) -> dict[int, bytes]:
        marks = ",".join("?" * len(ids))
        return dict(self._db.execute(f"SELECT id, body FROM bodies WHERE id IN ({marks})", ids).fetchall())

    def body(self, path: str) -> bytes | None:
        f = self.files.get(path)
        if f is None:
            return None
        row = self._guarded(lambda: self._db.execute("SELECT body FROM bodies WHERE id = ?", (f.id,)).fetchone())
        return self._checked(f, row[0] if row else None)

    def _reread(self, path: str) -> None:
        """Index ``path`` from the disk again, whatever its row says (it was found damaged)."""
        with self._writing():
            self._forget(path)
            self._read_into(path, None, SyncStats(), self._limit)

    def _checked(self, f: TextFile, body: bytes | None) -> bytes | None:
        """``body`` when it is the text ``f`` was indexed with; else the file is read again
        (its damaged row replaced) and its text as read now is returned (None: gone)."""
        if f.id in self._verified:
            return body
        # A damaged row may not even hold bytes any more.
        if isinstance(body, bytes) and _signed(content_hash(body)) == f.hash:
            self._verified.add(f.id)
            return body
        with self._lock:
            if self.files.get(f.path) is not f:
                current = self.files.get(f.path)  # Re-indexed meanwhile (by an update).
                return None if current is None else self.body(f.path)
            where = self.path or "in memory"
            self.repairs.append(("snapshot-rebuilt", f"text index {where}: the stored text of {f.path} failed its checksum; read again from the disk"))
            self._guarded(lambda: self._reread(f.path))
            fresh = self.files.get(f.path)
            if fresh is None:
                return None
            row = self._guarded(lambda: self._db.execute("SELECT body FROM bodies WHERE id = ?", (fresh.id,)).fetchone())
            return row[0] if row else None

    def disk_bytes(self) -> int:
        if self.path is None:
            return 0
        return sum(os.path.getsize(self.path + s) for s in ("", "-wal") if os.path.exists(self.path + s))

    def text_bytes(self) -> int:
        return sum(f.size for f in self.files.values())


# Indexes with a settle timer running: settled at exit, so a short-lived command leaves none
# pending.
_OPEN: weakref.WeakSet[TextIndex] = weakref.WeakSet()


@atexit.register
def _settle_all() -> None:
    for index in list(_OPEN):
        index.settle()


def _read_text(path: str, limit: int | None, roots: tuple[str, ...] = ()) -> tuple[bytes | None, int, int, str]:
    """(bytes, size, mtime_ns, "") for a text file; (None, 0, 0, reason) otherwise."""
    try:
        # Regular files only, opened without blocking and inside ``roots`` (rdx.workspace.files).
        fd, st = open_regular(path, roots)
        try:
            if st.st_size > min(limit or MAX_FILE_BYTES, MAX_FILE_BYTES):
                return None, 0, 0, "too_large"
            data = read_descriptor(fd, st.st_size, MAX_FILE_BYTES)
        finally:
            os.close(fd)
    except OSError:
        return None, 0, 0, "unreadable"
    if b"\0" in data:
        return None, st.st_size, st.st_mtime_ns, "binary"
    return data, len(data), st.st_mtime_ns, ""
