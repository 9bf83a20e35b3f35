"""The persisted snapshot of a project's discovery results and of its resolved graph.

A snapshot is one MessagePack file (``index.msgpack`` in the cache directory, ``.rdx/`` in the
project by default) holding a schema version, the roots it describes and every document's
FileResult, which already carries the file's size, mtime and content hash. It is written to a
temporary file and renamed into place, so a reader sees the old or the new snapshot, never half
of one; writers also serialize on a lock file so two indexers do not race.

Every file is a checksummed envelope (``rdx.cache.envelope``): the snapshot's header is checked
as a whole and each document on its own, so a damaged document is parsed again and the others
are still used. Anything unusable (truncated, corrupted, another schema or format) is reported
in one line, removed, and rebuilt by the caller; nothing that fails its checksum is decoded.

Cache files are mapped (``mmap``), not read: a warm open touches only the pages it decodes. The
snapshot's header is checked at the open, each document's checksum when the document is first
decoded or copied into a new snapshot (``SavedDocuments``): a warm open to a first answer sums
the few documents it reads, not 30 MB. A document found damaged then is parsed again from its
file (the open compared its size and mtime with the file's, as for any document it reuses), the
graph reports it, and the snapshot is rewritten at once without the damage (``heal``). rdx
never writes a cache file in place (always a new file renamed over the old one), so a mapping
always sees the bytes it was opened with; a file truncated in place by another program while
a graph is open would make reading its pages fail (SIGBUS), as for any mapped file.

The resolved graph (``resolved.msgpack``, a ResolvedImage) is written the same way after a full
resolve. It names the documents it was resolved from by a fingerprint, and the caller restores
it only onto exactly those documents; any other image is ignored.

A write that fails (a full disk, a read-only or missing directory) raises OSError after its
temporary file is removed; callers report ``unwritable`` and keep answering from memory.
"""

from __future__ import annotations

import fcntl
import hashlib
import mmap
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from itertools import repeat
from operator import attrgetter, is_
from typing import Protocol, TypeVar

import msgspec

from rdx.cache.envelope import Damaged, Opened, intact, open_envelope, seal
from rdx.model.foreign import ForeignImage
from rdx.model.records import FileResult
from rdx.model.store import DocumentSharing, ResolvedImage, Unread

__all__ = [
    "SCHEMA_VERSION",
    "check_cache_files",
    "code_fingerprint",
    "discovery_fingerprint",
    "documents_digest",
    "SavedDocuments",
    "Snapshot",
    "Stamp",
    "default_cache_dir",
    "discard",
    "load_blob",
    "load_foreign",
    "load_image",
    "load_snapshot",
    "prepare_cache_dir",
    "read_image",
    "save_blob",
    "save_foreign",
    "save_image",
    "save_snapshot",
    "stamp_of",
    "unwritable",
    "write_atomically",
    "writer_lock",
]

# Bump whenever FileResult, ResolvedImage or any record inside them changes shape.
SCHEMA_VERSION = 21
SNAPSHOT_NAME = "index.msgpack"
IMAGE_NAME = "resolved.msgpack"
FOREIGN_NAME = "foreign.msgpack"
T = TypeVar("T")


class Snapshot(msgspec.Struct, kw_only=True, gc=False):
    """What ``save_snapshot`` writes: the documents, each a FileResult or the ``Unread`` stub
    of a document read from the snapshot and never decoded (its bytes are copied as they are)."""

    schema: int
    roots: list[str]
    documents: list[FileResult | Unread]
    # ``discovery_fingerprint()`` of the rdx that parsed the documents: another rdx's records
    # may differ even where the schema does not, so its snapshot is parsed again.
    discovery: str = ""


class Stamp(msgspec.Struct, array_like=True, gc=False):
    """What a warm open compares with the file on disk, per document, in the snapshot's
    header: read without decoding the document itself."""

    uri: str
    path: str | None
    size: int
    mtime_ns: int
    content_hash: int
    # Holds db/schema.rb tables (``rdx.rails.schema`` joins them with the models).
    schema: bool = False
    # The gem a dependency's document belongs to (gem cache entries; None in a snapshot).
    library: str | None = None


class SavedDocuments:
    """The documents of an opened snapshot, decoded one by one when first read (issue 23).

    ``stubs`` are the intact documents' ``Unread`` stubs; damaged ones (failing their
    checksum at the open, for envelopes whose parts were checked then) have none and are
    counted in ``damaged``. ``read`` decodes a document once and hands out that object ever
    after; equal values are shared across the documents decoded (``DocumentSharing``). Once every
    stub is read, the file's bytes and the shared values' tables go. A document that fails to decode
    despite its checksum (a bug, not damage) is parsed again from its file by ``fallback``.

    Parts not checked at the open (``Opened.sums``, the project's snapshot) are checked when
    first decoded or copied (``raw``). One that fails is parsed again by ``damaged_fallback``
    (which reports it), and the snapshot at ``path`` is rewritten without the damage
    (``_heal``), so that the next open finds it whole."""

    def __init__(
        self,
        opened: Opened,
        stamps: list[Stamp],
        fallback: Callable[[Stamp], FileResult],
        saved: tuple[str, _SnapshotHead, tuple[int, int, int]] | None = None,
        damaged_fallback: Callable[[Stamp], FileResult] | None = None,
    ) -> None:
        self.parts: list[memoryview | None] = opened.parts
        self.sums = opened.sums
        self.stamps = stamps
        self.fallback = fallback
        self.damaged_fallback = damaged_fallback
        # The snapshot's path, header and file identity (inode, size, mtime), for ``_heal``.
        self.saved = saved
        self.decoded: dict[int, FileResult] = {}
        self.lock = threading.Lock()
        self.sharing = DocumentSharing()
        self.left = 0
        self.stubs: list[Unread] = []
        if len(stamps) == len(self.parts) and (self.sums or not any(map(is_, self.parts, repeat(None)))):
            # Every part present (parts checked when read always are): one stub per stamp,
            # their fields taken in C (54,000 stubs on 10 copies of the Debian corpus).
            fields = [map(attrgetter(name), stamps) for name in ("uri", "path", "size", "mtime_ns", "content_hash", "schema", "library")]
            self.stubs = list(map(Unread, repeat(self), range(len(stamps)), *fields))
        else:
            for index, (stamp, part) in enumerate(zip(stamps, self.parts, strict=True)):
                if part is not None:
                    self.stubs.append(Unread(self, index, stamp.uri, stamp.path, stamp.size, stamp.mtime_ns, stamp.content_hash, stamp.schema, stamp.library))
        self.left = len(self.stubs)
        self.damaged = len(stamps) - self.left

    def read(self, index: int) -> FileResult:
        doc = self.decoded.get(index)
        if doc is not None:
            return doc
        with self.lock:  # Queries may run in several threads: one decodes, the others wait.
            return self._read(index)

    def _intact(self, index: int, part: memoryview) -> bool:
        return not self.sums or intact(self.sums, index, part)

    def _read(self, index: int) -> FileResult:
        doc = self.decoded.get(index)
        if doc is not None:
            return doc
        part = self.parts[index]
        damaged = part is not None and not self._intact(index, part)
        if damaged:
            doc = (self.damaged_fallback or self.fallback)(self.stamps[index])
        else:
            try:
                if part is None:
                    raise Damaged("checksum mismatch")
                doc = self.sharing.share(_decoded(_document_decoder, part))
            except Damaged:
                doc = self.fallback(self.stamps[index])
        self.decoded[index] = doc
        if damaged:
            self._heal()
        self.parts[index] = None
        self.left -= 1
        if self.left <= 0:
            # Every document decoded: nothing needs the file's bytes or the sharing tables now.
            self.parts = []
            self.sharing = DocumentSharing()
        return doc

    def raw(self, index: int) -> memoryview | None:
        """A document's bytes as saved, while not decoded and intact (for rewriting the
        snapshot); None otherwise (the writer then reads the document)."""
        part = self.parts[index] if index < len(self.parts) else None
        return part if part is not None and self._intact(index, part) else None

    def _heal(self) -> None:
        """Rewrite the snapshot this was opened from, now that a damaged document was found in
        it: the documents decoded, the others' intact bytes as they are, and those that fail
        their checksum too parsed again now (they are this graph's documents from then on).
        Only when the file is still the one opened (another writer may have
        replaced it) and no writer holds the lock (a writer of this process may be rewriting
        it from these very documents); a write that fails leaves things as they were."""
        if self.saved is None:
            return
        path, head, identity = self.saved
        cache_dir = os.path.dirname(path)
        try:
            with open(os.path.join(cache_dir, "lock"), "a+b") as lock:
                try:
                    fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return
                try:
                    st = os.stat(path)
                    if (st.st_ino, st.st_size, st.st_mtime_ns) != identity:
                        return
                    stamps: list[Stamp] = []
                    parts: list[bytes] = []
                    for index, stamp in enumerate(self.stamps):
                        doc = self.decoded.get(index)
                        if doc is not None:
                            stamps.append(stamp_of(doc))
                            parts.append(_encoder.encode(doc))
                            continue
                        raw = self.raw(index)
                        if raw is not None:
                            stamps.append(stamp)
                            parts.append(bytes(raw))
                            continue
                        # Damaged too, not read yet: parsed again now, so that the rewritten
                        # snapshot holds every document.
                        doc = self.decoded[index] = (self.damaged_fallback or self.fallback)(stamp)
                        self.parts[index] = None
                        self.left -= 1
                        stamps.append(stamp_of(doc))
                        parts.append(_encoder.encode(doc))
                    new_head = msgspec.structs.replace(head, stamps=stamps, documents=documents_digest(stamps))
                    write_atomically(cache_dir, SNAPSHOT_NAME, seal("snapshot", _encoder.encode(new_head), parts))
                    self.saved = None
                finally:
                    fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        except OSError:
            pass  # Not rewritten: the next open finds the damage again, and parses again.


def _source_fingerprint(subpackages: tuple[str, ...], start: str = "") -> str:
    digest = hashlib.blake2b(str(SCHEMA_VERSION).encode() + start.encode(), digest_size=8)
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for sub in subpackages:
        directory = os.path.join(package, sub)
        for name in sorted(os.listdir(directory)):
            if name.endswith((".py", ".rb", ".c")):
                with open(os.path.join(directory, name), "rb") as f:
                    digest.update(sub.encode() + b"/" + name.encode() + b"\0" + f.read())
    return digest.hexdigest()


# The packages (directories under rdx/) whose code turns files into records: the Ruby walker
# and evaluator, Rails' facts, the other languages, the walk and worker pool, the model, the
# native walk step (its C source included).
DISCOVERY_CODE = (
    "ruby", os.path.join("ruby", "discover"), os.path.join("ruby", "evaluate"), "rails",
    "languages", os.path.join("languages", "specs"), "workspace", "model", "native",
)
# Everything else that turns them into a resolved graph and its indexes (resolution, queries,
# search, the map, the façade, the core stub).
RESOLUTION_CODE = ("", os.path.join("ruby", "resolve"), os.path.join("ruby", "query"), "search", "map", "api", "data")


@lru_cache(maxsize=1)
def discovery_fingerprint() -> str:
    """Names the code that turns files into records: the schema version and the bytes of rdx's
    ``DISCOVERY_CODE`` modules (any change there may change the results)."""
    return _source_fingerprint(DISCOVERY_CODE)


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Names all the code that turns files into a resolved graph and its indexes (discovery,
    resolution, queries, the core stub), for what is saved keyed by the documents. The
    discovery code enters through its fingerprint, so that each file is read once."""
    return _source_fingerprint(RESOLUTION_CODE, start=discovery_fingerprint())


class _SnapshotHead(msgspec.Struct, kw_only=True, gc=False):
    schema: int
    roots: list[str]
    discovery: str = ""
    # One per part, in order.
    stamps: list[Stamp] = []
    # ``documents_digest`` of the stamps: what a warm open that reuses every document as it
    # is (and has no others) names them by, without hashing them all again.
    documents: str = ""


class _Described(Protocol):
    uri: str
    content_hash: int
    size: int


_uri_of = attrgetter("uri")


def documents_digest(documents: Iterable[_Described]) -> str:
    """Names a set of documents exactly by their URIs, content hashes and sizes (documents,
    their ``Unread`` stubs or a snapshot's stamps alike), whatever their order."""
    # One string hashed at once: a third of the time of one update per document. Sorted by
    # URI alone: URIs are unique, so the order is that of the (URI, hash, size) triples.
    joined = "".join([f"\0{d.uri}\0{d.content_hash}\0{d.size}" for d in sorted(documents, key=_uri_of)])
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_head_decoder = msgspec.msgpack.Decoder(_SnapshotHead)
_document_decoder = msgspec.msgpack.Decoder(FileResult)
_header_decoder = msgspec.msgpack.Decoder(dict)
_image_decoder = msgspec.msgpack.Decoder(ResolvedImage)
_foreign_decoder = msgspec.msgpack.Decoder(ForeignImage)
_encoder = msgspec.msgpack.Encoder()


def default_cache_dir(root: str) -> str:
    return os.path.join(root if os.path.isdir(root) else os.path.dirname(os.path.abspath(root)), ".rdx")


def _read(path: str, what: str, then: str) -> tuple[bytes | mmap.mmap | None, str | None]:
    """(data, None); (None, None) when the file does not exist; (None, reason) when unreadable.
    The data is the file mapped (read-only), or read when it cannot be mapped (an empty file)."""
    data, _, problem = _map(path, what, then)
    return data, problem


def _map(path: str, what: str, then: str) -> tuple[bytes | mmap.mmap | None, tuple[int, int, int], str | None]:
    """``_read``, with the identity of the file read: (inode, size, mtime)."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            identity = (st.st_ino, st.st_size, st.st_mtime_ns)
            if st.st_size > 0:
                try:
                    return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), identity, None
                except (OSError, ValueError):
                    pass  # Not mappable here (some file systems): read instead.
            return f.read(), identity, None
    except (FileNotFoundError, NotADirectoryError):
        return None, (0, 0, 0), None  # No file there (the directory may not even be one: writes say so).
    except OSError as exc:
        return None, (0, 0, 0), f"cannot read {what} {path}: {exc.strerror}; {then}"


def _opened(
    path: str, kind: str, what: str, then: str, check_parts: bool = True
) -> tuple[Opened | None, str | None, tuple[int, int, int]]:
    """The verified envelope of the cache file at ``path``: (opened, None, identity); (None,
    None, _) when there is no file; (None, reason, _) when it cannot be used, the file then
    being removed so that nothing reads it again before it is rebuilt. ``check_parts``: see
    ``open_envelope``; ``identity``: the file's (inode, size, mtime) when read."""
    data, identity, problem = _map(path, what, then)
    if data is None:
        return None, problem, identity
    try:
        return open_envelope(data, kind, check_parts=check_parts), None, identity
    except Damaged as exc:
        reason = str(exc)
    # A file of the previous, envelope-less format names its schema at the top level.
    try:
        schema = _header_decoder.decode(data).get("schema")
    except Exception:
        schema = None
    discard(path)
    if schema is not None and schema != SCHEMA_VERSION:
        return None, f"{what} {path} has schema {schema}, this rdx uses {SCHEMA_VERSION}; {then}", identity
    return None, f"{what} {path} is corrupted: {reason}; {then}", identity


def discard(path: str) -> None:
    """Remove a damaged cache file (it is rebuilt; a missing one is fine)."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _decoded(decoder: msgspec.msgpack.Decoder[T], raw: memoryview) -> T:
    """Decode a verified payload; raises ``Damaged`` when it still does not decode (a payload
    of another shape under the same format)."""
    try:
        return decoder.decode(raw)
    except Exception as exc:
        raise Damaged(f"its payload does not decode ({exc})") from None


def load_snapshot(
    cache_dir: str,
    roots: list[str],
    fallback: Callable[[Stamp], FileResult],
    damaged: Callable[[Stamp], FileResult] | None = None,
) -> tuple[tuple[_SnapshotHead, SavedDocuments] | None, str | None]:
    """((header, documents), None), or (None, reason) when there is none or it cannot be
    used. Nothing is decoded but the header: documents are decoded when first read
    (``SavedDocuments``), and each document's checksum is checked then: one that fails is
    parsed again by ``damaged`` (default ``fallback``), which is where it is reported, and the
    snapshot is rewritten without it."""
    path = os.path.join(cache_dir, SNAPSHOT_NAME)
    opened, problem, identity = _opened(path, "snapshot", "the index snapshot", "rebuilding", check_parts=False)
    if opened is None:
        return None, problem
    try:
        head = _decoded(_head_decoder, opened.head)
        if len(head.stamps) != len(opened.parts):
            raise Damaged(f"its header names {len(head.stamps)} documents, it holds {len(opened.parts)}")
    except Damaged as exc:
        discard(path)
        return None, f"the index snapshot {path} is corrupted: {exc}; rebuilding"
    if head.schema != SCHEMA_VERSION:
        return None, f"the index snapshot {path} has schema {head.schema}, this rdx uses {SCHEMA_VERSION}; rebuilding"
    if sorted(head.roots) != sorted(roots):
        return None, f"the index snapshot {path} describes other roots; rebuilding"
    if head.discovery != discovery_fingerprint():
        return None, f"the index snapshot {path} was made by another version of rdx; rebuilding"
    documents = SavedDocuments(opened, head.stamps, fallback, (path, head, identity), damaged)
    return (head, documents), None


@contextmanager
def writer_lock(cache_dir: str) -> Iterator[None]:
    """Exclusive lock for writers of one cache directory (released on exit or process death)."""
    os.makedirs(cache_dir, exist_ok=True)
    with open(os.path.join(cache_dir, "lock"), "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def stamp_of(doc: FileResult) -> Stamp:
    return Stamp(doc.uri, doc.path, doc.size, doc.mtime_ns, doc.content_hash, bool(doc.rails is not None and doc.rails.tables), doc.library)


def save_snapshot(cache_dir: str, snapshot: Snapshot) -> None:
    """Write atomically: a temporary file in the same directory, fsynced, then renamed. Each
    document is a part of its own, checked on its own when read; a document never decoded
    since it was read from the snapshot is written back as the bytes it was read from."""
    stamps: list[Stamp] = []
    parts: list[bytes] = []
    for doc in snapshot.documents:
        if type(doc) is Unread:
            source = doc.source
            raw = source.raw(doc.index) if isinstance(source, SavedDocuments) else None
            if raw is not None:
                assert isinstance(source, SavedDocuments)
                stamps.append(source.stamps[doc.index])
                parts.append(bytes(raw))
                continue
            doc = doc.read()
        assert isinstance(doc, FileResult)
        try:
            encoded = _encoder.encode(doc)
        except UnicodeEncodeError:
            # A path that is not UTF-8 (surrogate escapes) cannot be stored: the document is
            # left out, and the next open parses it again (a rare name, never a lost graph).
            continue
        stamps.append(stamp_of(doc))
        parts.append(encoded)
    head = _encoder.encode(
        _SnapshotHead(schema=snapshot.schema, roots=snapshot.roots, discovery=snapshot.discovery, stamps=stamps, documents=documents_digest(stamps))
    )
    write_atomically(cache_dir, SNAPSHOT_NAME, seal("snapshot", head, parts))


def read_image(cache_dir: str) -> tuple[Opened | None, str | None]:
    """The saved resolved graph's file, read and its checksum checked, not decoded: what
    ``load_image`` decodes (``Graph.open`` reads it while its file walk runs)."""
    opened, problem, _ = _opened(os.path.join(cache_dir, IMAGE_NAME), "resolved", "the resolved graph", "resolving again")
    return opened, problem


def load_image(
    cache_dir: str, fingerprint: str, read: tuple[Opened | None, str | None] | None = None
) -> tuple[ResolvedImage | None, str | None]:
    """(image, None) for the saved resolved graph of exactly the documents ``fingerprint``
    names; (None, None) when there is none for them; (None, reason) when the file cannot be
    used. The caller then resolves, which is always correct, only slower. ``read``: what
    ``read_image`` returned earlier, if the caller read the file already."""
    path = os.path.join(cache_dir, IMAGE_NAME)
    opened, problem = read if read is not None else read_image(cache_dir)
    if opened is None:
        return None, problem
    try:
        image = _decoded(_image_decoder, opened.head)
    except Damaged as exc:
        if _image_fingerprint(opened.head) not in (None, fingerprint):
            # Written by another rdx, whose image may have another shape: its fingerprint
            # (which names the code) differs, so it would not be used anyway.
            return None, None
        discard(path)
        return None, f"the resolved graph {path} is corrupted: {exc}; resolving again"
    if image.fingerprint != fingerprint:
        return None, None
    # Its bulk (records, names, rows, chains, the resolver's bookkeeping) stays views of the
    # mapped file until decoded (``rdx.model.store.Declarations``, ``rdx.ruby.resolve.image``):
    # a mapping costs memory only for the pages read, and rdx never writes a cache file in
    # place (see the module docstring), so the views see the bytes that were checked.
    return image, None


class _ImageFingerprint(msgspec.Struct, array_like=True, gc=False):
    """The first field of any ``ResolvedImage``, whatever the shape of the others."""

    fingerprint: str


def _image_fingerprint(head: memoryview) -> str | None:
    try:
        return msgspec.msgpack.decode(head, type=_ImageFingerprint).fingerprint
    except Exception:
        return None


def save_image(cache_dir: str, image: ResolvedImage) -> None:
    write_atomically(cache_dir, IMAGE_NAME, seal("resolved", _encoder.encode(image)))


def load_foreign(cache_dir: str, fingerprint: str) -> tuple[ForeignImage | None, str | None]:
    """The saved resolution of the other languages for exactly ``fingerprint`` (else None), and
    why the file could not be used, if it could not (the caller rebuilds: it only costs time)."""
    path = os.path.join(cache_dir, FOREIGN_NAME)
    opened, problem, _ = _opened(path, "foreign", "the other languages' resolution", "resolving again")
    if opened is None:
        return None, problem
    try:
        image = _decoded(_foreign_decoder, opened.head)
    except Damaged as exc:
        discard(path)
        return None, f"the other languages' resolution {path} is corrupted: {exc}; resolving again"
    return (image, None) if image.fingerprint == fingerprint else (None, None)


def save_foreign(cache_dir: str, image: ForeignImage) -> None:
    write_atomically(cache_dir, FOREIGN_NAME, seal("foreign", _encoder.encode(image)))


def load_blob(cache_dir: str, name: str, kind: str, what: str) -> tuple[memoryview | None, str | None]:
    """The verified payload of a cache file holding opaque bytes (the ranked-search database's
    image): (bytes, None), (None, None) when absent, (None, reason) when damaged (removed)."""
    opened, problem, _ = _opened(os.path.join(cache_dir, name), kind, what, "rebuilding it")
    if opened is None:
        return None, problem
    try:
        return _decoded(_bytes_decoder, opened.head), None
    except Damaged as exc:
        discard(os.path.join(cache_dir, name))
        return None, f"{what} {os.path.join(cache_dir, name)} is corrupted: {exc}; rebuilding it"


def save_blob(cache_dir: str, name: str, kind: str, data: bytes) -> None:
    write_atomically(cache_dir, name, seal(kind, _encoder.encode(data)))


# A view into the file's bytes: the image is handed on without another copy.
_bytes_decoder = msgspec.msgpack.Decoder(memoryview)


def unwritable(cache_dir: str, exc: OSError) -> str:
    """The one-line report of a cache that cannot be written, naming the directory."""
    reason = exc.strerror or str(exc)
    return f"cannot write the cache at {cache_dir}: {reason[:1].lower() + reason[1:]}; answers come from memory"


def prepare_cache_dir(cache_dir: str) -> None:
    """Create the cache directory, with a ``.gitignore`` that keeps it out of version control."""
    os.makedirs(cache_dir, exist_ok=True)
    ignore = os.path.join(cache_dir, ".gitignore")
    if not os.path.exists(ignore):
        try:
            with open(ignore, "w") as f:
                f.write("# rdx's index cache; safe to delete.\n*\n")
        except OSError:
            discard(ignore)  # A half-written file (a full disk) would never be completed.
            raise


def write_atomically(cache_dir: str, name: str, data: bytes) -> None:
    """Write ``name`` in ``cache_dir`` atomically: a temporary file beside it, fsynced, renamed."""
    prepare_cache_dir(cache_dir)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".tmp", dir=cache_dir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(cache_dir, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def check_cache_files(cache_dir: str) -> list[str]:
    """Check every checksum of the envelope files in ``cache_dir`` (``rdx index --verify``):
    one line per damaged file or document found. A file damaged as a whole is removed (the
    next open rebuilds it); a snapshot with damaged documents is left for the open, which
    parses those documents again and rewrites it."""
    found: list[str] = []
    for name, kind in ((SNAPSHOT_NAME, "snapshot"), (IMAGE_NAME, "resolved"), (FOREIGN_NAME, "foreign"), ("symbols.msgpack", "symbols")):
        path = os.path.join(cache_dir, name)
        data, problem = _read(path, name, "rebuilding")
        if data is None:
            if problem is not None:
                found.append(problem)
            continue
        try:
            opened = open_envelope(data, kind)
        except Damaged as exc:
            discard(path)
            found.append(f"{path}: {exc}; removed")
            continue
        damaged = sum(1 for part in opened.parts if part is None)
        if damaged:
            found.append(f"{path}: {damaged} of {len(opened.parts)} documents fail their checksum")
    return found
