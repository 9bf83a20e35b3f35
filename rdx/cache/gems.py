"""The user-level cache of dependencies' discovery results (see ``rdx.workspace.dependencies``).

One file per installed gem version (``<name>-<version>-<key>.msgpack``), shared by every project
on the machine: a gem is parsed once per version and location, then decoded. The key names the
gem's locations and the discovery code that produced the results (``discovery_fingerprint``),
so a newer rdx or a gem installed elsewhere never reads stale results. A missing, corrupt or
unwritable cache only costs a parse. Each file is a checksummed envelope (``rdx.cache.envelope``):
as the cache is shared, a damaged file would otherwise break every project using that gem, so
it is removed when read and the gem is parsed again.

Each document is a part of its own, with its stamp (URI, path, size, hash, library) in the
header, so that loading a gem decodes nothing else: the documents are ``Unread`` stubs,
decoded when first read (``rdx.cache.snapshot.SavedDocuments``; issue 23). Every part's
checksum is checked when the file is read; one damaged part makes the whole entry damaged.
"""

from __future__ import annotations

import hashlib
import os

import msgspec

from rdx.cache.envelope import FORMAT, Damaged, open_envelope, seal
from rdx.cache.snapshot import SavedDocuments, Stamp, discovery_fingerprint, stamp_of, unwritable, write_atomically
from rdx.model.records import FileResult
from rdx.model.store import Unread

__all__ = ["gem_cache_dir", "discovery_fingerprint", "gem_file", "load_gem", "save_gem"]


class _GemImage(msgspec.Struct, kw_only=True, gc=False):
    """The header of a gem's entry; its documents are the envelope's parts, one per stamp."""

    key: str
    gem: str = ""
    locations: list[str] = []
    stamps: list[Stamp] = []


_decoder = msgspec.msgpack.Decoder(_GemImage)
_encoder = msgspec.msgpack.Encoder()


def gem_cache_dir() -> str:
    """``$RDX_GEM_CACHE``, else ``$XDG_CACHE_HOME/rdx/gems``, else ``~/.cache/rdx/gems``."""
    explicit = os.environ.get("RDX_GEM_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rdx", "gems")


def _file_name(gem_key: str, locations: tuple[str, ...]) -> tuple[str, str]:
    # The envelope's format is in the key: an entry another format wrote is a miss, not damage.
    key = hashlib.blake2b("\0".join((discovery_fingerprint(), str(FORMAT), gem_key, *locations)).encode(), digest_size=8).hexdigest()
    return f"{gem_key}-{key}.msgpack", key


def gem_file(cache_dir: str, gem_key: str, locations: tuple[str, ...]) -> str:
    """Where the results of this gem version at these locations are cached."""
    return os.path.join(cache_dir, _file_name(gem_key, locations)[0])


def _decode(data: bytes) -> tuple[_GemImage, SavedDocuments]:
    """The gem image in a cache file's bytes and its documents, not decoded yet; raises
    ``Damaged`` (checksum of the header or of any document, shape of the header)."""
    opened = open_envelope(data, "gem")
    try:
        image = _decoder.decode(opened.head)
    except Exception as exc:
        raise Damaged(f"its payload does not decode ({exc})") from None
    if len(image.stamps) != len(opened.parts):
        raise Damaged(f"its header names {len(image.stamps)} documents, it holds {len(opened.parts)}")
    documents = SavedDocuments(opened, image.stamps, _undecodable)
    if documents.damaged:
        raise Damaged(f"{documents.damaged} of {len(opened.parts)} documents fail their checksum")
    return image, documents


def _undecodable(stamp: Stamp) -> FileResult:
    """A document that passed its checksum and does not decode (only a bug can cause it), when
    its loader gave no better way (``Graph.open`` parses it again: ``SavedDocuments.fallback``)."""
    raise Damaged(f"the saved document of {stamp.uri} does not decode")


def load_gem(cache_dir: str, gem_key: str, locations: tuple[str, ...]) -> tuple[list[FileResult | Unread] | None, str | None]:
    """(documents, None) from the cache, as ``Unread`` stubs decoded when first read; (None,
    None) when not cached; (None, reason) when the file was damaged: it is then removed (the
    caller parses the gem and writes it again)."""
    name, key = _file_name(gem_key, locations)
    path = os.path.join(cache_dir, name)
    try:
        with open(path, "rb") as f:
            identity = os.fstat(f.fileno()).st_ino
            data = f.read()
    except OSError:
        return None, None
    try:
        image, documents = _decode(data)
    except Damaged as exc:
        try:
            # Only the file read: another process may have just replaced it with a good one.
            if os.stat(path).st_ino == identity:
                os.unlink(path)
        except OSError:
            pass
        return None, f"the gem cache entry {path} is corrupted: {exc}; {gem_key} is parsed again"
    return (list(documents.stubs), None) if image.key == key else (None, None)


def _drop_stale(cache_dir: str, gem_key: str, locations: tuple[str, ...], kept: str) -> None:
    """Remove the results of this gem version at these locations that another rdx wrote (with
    another discovery fingerprint): nothing would read them again."""
    for entry in os.listdir(cache_dir):
        if entry == kept or not entry.startswith(gem_key + "-") or not entry.endswith(".msgpack"):
            continue
        path = os.path.join(cache_dir, entry)
        try:
            with open(path, "rb") as f:
                image, _ = _decode(f.read())
        except (OSError, Damaged):
            continue  # not ours to judge (or unreadable): leave it
        if image.gem == gem_key and tuple(image.locations) == locations:
            try:
                os.unlink(path)
            except OSError:
                pass


def save_gem(cache_dir: str, gem_key: str, locations: tuple[str, ...], documents: list[FileResult]) -> str | None:
    """Write one gem's results atomically; returns why it could not (None when written)."""
    name, key = _file_name(gem_key, locations)
    try:
        image = _GemImage(key=key, gem=gem_key, locations=list(locations), stamps=[stamp_of(d) for d in documents])
        write_atomically(cache_dir, name, seal("gem", _encoder.encode(image), [_encoder.encode(d) for d in documents]))
        _drop_stale(cache_dir, gem_key, locations, name)
    except OSError as exc:
        return unwritable(cache_dir, exc)
    return None
