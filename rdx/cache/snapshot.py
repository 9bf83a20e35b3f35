"""The persisted snapshot of a project's discovery results and of its resolved graph.

A snapshot is one MessagePack file (``index.msgpack`` in the cache directory, ``.rdx/`` in the
project by default) holding a schema version, the roots it describes and every document's
FileResult, which already carries the file's size, mtime and content hash. It is written to a
temporary file and renamed into place, so a reader sees the old or the new snapshot, never half
of one; writers also serialize on a lock file so two indexers do not race. Anything unreadable
(truncated, corrupted, another schema) is reported in one line and ignored: the caller rebuilds.

The resolved graph (``resolved.msgpack``, a ResolvedImage) is written the same way after a full
resolve. It names the documents it was resolved from by a fingerprint, and the caller restores
it only onto exactly those documents; any other image is ignored.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import msgspec

from rdx.model.foreign import ForeignImage
from rdx.model.records import FileResult
from rdx.model.store import ResolvedImage

__all__ = [
    "SCHEMA_VERSION",
    "code_fingerprint",
    "discovery_fingerprint",
    "Snapshot",
    "default_cache_dir",
    "load_foreign",
    "load_image",
    "load_snapshot",
    "prepare_cache_dir",
    "save_foreign",
    "save_image",
    "save_snapshot",
    "write_atomically",
    "writer_lock",
]

# Bump whenever FileResult, ResolvedImage or any record inside them changes shape.
SCHEMA_VERSION = 18
SNAPSHOT_NAME = "index.msgpack"
IMAGE_NAME = "resolved.msgpack"
FOREIGN_NAME = "foreign.msgpack"


class Snapshot(msgspec.Struct, kw_only=True, gc=False):
    schema: int
    roots: list[str]
    documents: list[FileResult]
    # ``discovery_fingerprint()`` of the rdx that parsed the documents: another rdx's records
    # may differ even where the schema does not, so its snapshot is parsed again.
    discovery: str = ""


def _source_fingerprint(subpackages: tuple[str, ...]) -> str:
    digest = hashlib.blake2b(str(SCHEMA_VERSION).encode(), digest_size=8)
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for sub in subpackages:
        directory = os.path.join(package, sub)
        for name in sorted(os.listdir(directory)):
            if name.endswith((".py", ".rb")):
                with open(os.path.join(directory, name), "rb") as f:
                    digest.update(sub.encode() + b"/" + name.encode() + b"\0" + f.read())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def discovery_fingerprint() -> str:
    """Names the code that turns files into records: the schema version and the bytes of rdx's
    discovery, polyglot and model modules (any change there may change the results)."""
    return _source_fingerprint(("discovery", "polyglot", os.path.join("polyglot", "languages"), "model"))


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Names all the code that turns files into a resolved graph and its indexes (discovery,
    resolution, queries, the core stub), for what is saved keyed by the documents."""
    return _source_fingerprint(
        ("", "discovery", "polyglot", os.path.join("polyglot", "languages"), "model", "resolution", "query", "data", "fulltext")
    )


_decoder = msgspec.msgpack.Decoder(Snapshot)
_header_decoder = msgspec.msgpack.Decoder(dict)
_image_decoder = msgspec.msgpack.Decoder(ResolvedImage)
_foreign_decoder = msgspec.msgpack.Decoder(ForeignImage)


def default_cache_dir(root: str) -> str:
    return os.path.join(root if os.path.isdir(root) else os.path.dirname(os.path.abspath(root)), ".rdx")


def _read(path: str, what: str, then: str) -> tuple[bytes | None, str | None]:
    """(data, None); (None, None) when the file does not exist; (None, reason) when unreadable."""
    try:
        with open(path, "rb") as f:
            return f.read(), None
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot read {what} {path}: {exc.strerror}; {then}"


def load_snapshot(cache_dir: str, roots: list[str]) -> tuple[Snapshot | None, str | None]:
    """(snapshot, None), or (None, reason) when there is none or it cannot be used."""
    path = os.path.join(cache_dir, SNAPSHOT_NAME)
    data, problem = _read(path, "the index snapshot", "rebuilding")
    if data is None:
        return None, problem
    try:
        snapshot = _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        # An older schema may not even decode as a Snapshot; say which when we can tell.
        try:
            schema = _header_decoder.decode(data).get("schema")
        except Exception:
            schema = None
        if schema is not None and schema != SCHEMA_VERSION:
            return None, f"the index snapshot {path} has schema {schema}, this rdx uses {SCHEMA_VERSION}; rebuilding"
        return None, f"the index snapshot {path} is corrupted ({exc}); rebuilding"
    if snapshot.schema != SCHEMA_VERSION:
        return None, f"the index snapshot {path} has schema {snapshot.schema}, this rdx uses {SCHEMA_VERSION}; rebuilding"
    if sorted(snapshot.roots) != sorted(roots):
        return None, f"the index snapshot {path} describes other roots; rebuilding"
    if snapshot.discovery != discovery_fingerprint():
        return None, f"the index snapshot {path} was made by another version of rdx; rebuilding"
    return snapshot, None


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


def save_snapshot(cache_dir: str, snapshot: Snapshot) -> None:
    """Write atomically: a temporary file in the same directory, fsynced, then renamed."""
    write_atomically(cache_dir, SNAPSHOT_NAME, msgspec.msgpack.encode(snapshot))


def load_image(cache_dir: str, fingerprint: str) -> tuple[ResolvedImage | None, str | None]:
    """(image, None) for the saved resolved graph of exactly the documents ``fingerprint``
    names; (None, None) when there is none for them; (None, reason) when the file cannot be
    used. The caller then resolves, which is always correct, only slower."""
    path = os.path.join(cache_dir, IMAGE_NAME)
    data, problem = _read(path, "the resolved graph", "resolving again")
    if data is None:
        return None, problem
    try:
        image = _image_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return None, f"the resolved graph {path} is corrupted or from another rdx ({exc}); resolving again"
    return (image, None) if image.fingerprint == fingerprint else (None, None)


def save_image(cache_dir: str, image: ResolvedImage) -> None:
    write_atomically(cache_dir, IMAGE_NAME, msgspec.msgpack.encode(image))


def load_foreign(cache_dir: str, fingerprint: str) -> ForeignImage | None:
    """The saved resolution of the other languages for exactly ``fingerprint``, else None (an
    unreadable file is rebuilt by the caller: it only costs time)."""
    data, _ = _read(os.path.join(cache_dir, FOREIGN_NAME), "the other languages' resolution", "resolving again")
    if data is None:
        return None
    try:
        image = _foreign_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return image if image.fingerprint == fingerprint else None


def save_foreign(cache_dir: str, image: ForeignImage) -> None:
    write_atomically(cache_dir, FOREIGN_NAME, msgspec.msgpack.encode(image))


def prepare_cache_dir(cache_dir: str) -> None:
    """Create the cache directory, with a ``.gitignore`` that keeps it out of version control."""
    os.makedirs(cache_dir, exist_ok=True)
    ignore = os.path.join(cache_dir, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w") as f:
            f.write("# rdx's index cache; safe to delete.\n*\n")


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
