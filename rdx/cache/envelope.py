"""The checksummed envelope every MessagePack cache file of rdx is written in.

A cache file is one MessagePack array (decoded by msgspec, never parsed by hand):

    ["rdx-cache", FORMAT, kind, writer, checksum, head, sums, parts]

``head`` and each part are MessagePack ``bin`` strings holding encoded payloads, so opening an
envelope costs nothing per byte: msgspec hands out views of them (``memoryview``) without
walking their contents, which a nested encoding (format 1) made it do for every byte of the
file (about 0.1 s per 20 MB) before any checksum was checked.

``kind`` names what the file holds (``"snapshot"``, ``"resolved"``, ``"foreign"``, ``"gem"``,
``"symbols"``), ``writer`` the rdx that wrote it. ``head`` is the encoded payload, or its
header when the payload is split into ``parts``; ``checksum`` is the CRC-32 of ``head`` (4
bytes, little-endian). ``parts`` are encoded items checked one by one: ``sums`` holds one
CRC-32 per part, so a damaged part (one document of the snapshot) is discarded alone while
the others are used. CRC-32 rather than BLAKE2b-128 since format 3: everything is checked when
a file is opened, and CRC-32 runs at several GB/s (10 ms for the Debian corpus's 32 MB
snapshot, BLAKE2b 45 ms, and 30 ms more for its resolved graph); it finds any burst of damage
up to 32 bits and misses random damage once in four billion, which is what it is there for
(nobody forges a cache file in their own project). Nothing here knows what the payloads mean; callers decode them with their own types.

A caller that decodes parts one by one when first asked for them (the snapshot's documents)
opens with ``check_parts=False``: the head is checked at once, each part only when it is about
to be decoded (``intact``), so a warm open neither reads nor sums the parts it never decodes.

A file that is not such an envelope, is of another kind or format, or whose head does not match
its checksum raises ``Damaged`` with a reason; damaged parts come back as None. Readers catch
``Damaged`` and rebuild. Nothing damaged is ever handed to a decoder.
"""

from __future__ import annotations

import mmap
import zlib
from collections.abc import Sequence
from functools import lru_cache

import msgspec

__all__ = ["FORMAT", "Damaged", "Opened", "checksum", "intact", "mapped_checksum", "open_envelope", "release", "seal", "writer"]

MAGIC = "rdx-cache"
# Bump when the envelope itself changes shape (payload shapes have their own versions).
# 3: CRC-32 sums instead of BLAKE2b-128 digests.
FORMAT = 3
_SUM = 4


class _Envelope(msgspec.Struct, array_like=True, gc=False):
    magic: str
    format: int
    kind: str
    writer: str
    checksum: bytes
    # Views into the file's bytes (``bin`` in the file): no copy, no walk of the payload.
    head: memoryview
    sums: bytes = b""
    parts: list[memoryview] = []


class _Prefix(msgspec.Struct, array_like=True, gc=False):
    """The first fields of any envelope, whatever its format (the rest is ignored): what a
    file that does not decode as this format's envelope says it is."""

    magic: str
    format: int


class Damaged(Exception):
    """A cache file that cannot be used: damaged, truncated, or not written by this format."""


class Opened(msgspec.Struct, gc=False):
    """A verified envelope: its writer, the head's bytes and each part's (None: damaged),
    views into the file's bytes. ``sums``: the parts' checksums when they were not checked at
    the open (``check_parts=False``; check each with ``intact`` before decoding it), else empty."""

    writer: str
    head: memoryview
    parts: list[memoryview | None]
    sums: bytes = b""


_decoder = msgspec.msgpack.Decoder(_Envelope)
_prefix_decoder = msgspec.msgpack.Decoder(_Prefix)
_encoder = msgspec.msgpack.Encoder()


def checksum(data: bytes | memoryview) -> bytes:
    return zlib.crc32(data).to_bytes(_SUM, "little")


# How much of a mapped file is summed before its pages are let go of (``mapped_checksum``).
_SLICE = 1 << 24


def release(data: object) -> None:
    """Let go of the pages that reading ``data`` put in the process, when it is a mapped file
    or a view of one (``MADV_DONTNEED``; cache files are mapped read-only, so nothing is lost):
    they stay in the OS's page cache, and a later read maps the pages it reads again. A no-op
    for bytes, or where the system cannot."""
    mapped = data.obj if isinstance(data, memoryview) else data
    if isinstance(mapped, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED") and not mapped.closed:
        try:
            mapped.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):
            pass


def mapped_checksum(data: bytes | memoryview) -> bytes:
    """``checksum(data)``; for a view of a mapped file, summed a slice at a time and each
    slice's pages let go of once summed (``release``): checking a file of hundreds of
    megabytes (the ranked-search database's image, 800 MB on 10 copies of the Debian corpus)
    does not put all of it in the process (issue 21)."""
    view = memoryview(data)
    if not isinstance(view.obj, mmap.mmap) or len(view) <= _SLICE:
        return checksum(view)
    crc = 0
    for start in range(0, len(view), _SLICE):
        crc = zlib.crc32(view[start : start + _SLICE], crc)
        release(view)
    return crc.to_bytes(_SUM, "little")


@lru_cache(maxsize=1)
def writer() -> str:
    """``rdx <version>``: who wrote a file, for the reports of ``rdx index --verify``."""
    try:
        from importlib.metadata import version

        return f"rdx {version('rdx')}"
    except Exception:
        return "rdx (unknown version)"


def seal(kind: str, head: bytes, parts: Sequence[bytes] = ()) -> bytes:
    """The bytes of a cache file holding ``head`` and ``parts`` (each already encoded)."""
    envelope = _Envelope(
        MAGIC, FORMAT, kind, writer(), checksum(head), memoryview(head),
        b"".join(checksum(p) for p in parts), [memoryview(p) for p in parts],
    )
    return _encoder.encode(envelope)


def intact(sums: bytes, index: int, part: memoryview) -> bool:
    """Whether part ``index`` matches its checksum in ``sums`` (``Opened.sums``)."""
    return zlib.crc32(part) == int.from_bytes(sums[index * _SUM : (index + 1) * _SUM], "little")


def open_envelope(data: bytes | memoryview | mmap.mmap, kind: str, *, check_parts: bool = True) -> Opened:
    """Verify a cache file's envelope and head; raises ``Damaged`` saying why it cannot be used.
    A part whose digest does not match comes back as None. ``check_parts=False``: the parts
    come back unchecked, with their sums (``Opened.sums``), for the caller to check each with
    ``intact`` before it decodes it."""
    try:
        envelope = _decoder.decode(data)
    except Exception as exc:  # msgspec's DecodeError, ValidationError, or anything a damaged byte provokes
        try:
            prefix = _prefix_decoder.decode(data)
        except Exception:
            prefix = None
        if prefix is not None and prefix.magic == MAGIC and prefix.format != FORMAT:
            raise Damaged(f"written in another cache format ({prefix.magic} {prefix.format}, this rdx reads {MAGIC} {FORMAT})") from None
        raise Damaged(f"not a readable rdx cache file ({exc})") from None
    if envelope.magic != MAGIC or envelope.format != FORMAT:
        raise Damaged(f"written in another cache format ({envelope.magic} {envelope.format}, this rdx reads {MAGIC} {FORMAT})")
    if envelope.kind != kind:
        raise Damaged(f"holds {envelope.kind!r}, not {kind!r}")
    if mapped_checksum(envelope.head) != envelope.checksum:
        raise Damaged("its header fails its checksum")
    sums = envelope.sums
    if len(sums) != len(envelope.parts) * _SUM:
        raise Damaged("its parts do not match their checksums")
    if not check_parts:
        return Opened(envelope.writer, envelope.head, list(envelope.parts), bytes(sums))
    crc = zlib.crc32
    parts: list[memoryview | None] = []
    for i, part in enumerate(envelope.parts):
        parts.append(part if crc(part) == int.from_bytes(sums[i * _SUM : (i + 1) * _SUM], "little") else None)
    return Opened(envelope.writer, envelope.head, parts)
