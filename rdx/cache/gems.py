"""The user-level cache of dependencies' discovery results (see ``rdx.dependencies``).

One file per installed gem version (``<name>-<version>-<key>.msgpack``), shared by every project
on the machine: a gem is parsed once per version and location, then decoded. The key names the
gem's locations and the discovery code that produced the results (``discovery_fingerprint``),
so a newer rdx or a gem installed elsewhere never reads stale results. A missing, corrupt or
unwritable cache only costs a parse.
"""

from __future__ import annotations

import hashlib
import os

import msgspec

from rdx.cache.snapshot import discovery_fingerprint, write_atomically
from rdx.model.records import FileResult

__all__ = ["gem_cache_dir", "discovery_fingerprint", "load_gem", "save_gem"]


class _GemImage(msgspec.Struct, kw_only=True, gc=False):
    key: str
    gem: str = ""
    locations: list[str] = []
    documents: list[FileResult]


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
    key = hashlib.blake2b("\0".join((discovery_fingerprint(), gem_key, *locations)).encode(), digest_size=8).hexdigest()
    return f"{gem_key}-{key}.msgpack", key


def load_gem(cache_dir: str, gem_key: str, locations: tuple[str, ...]) -> list[FileResult] | None:
    name, key = _file_name(gem_key, locations)
    try:
        with open(os.path.join(cache_dir, name), "rb") as f:
            image = _decoder.decode(f.read())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return image.documents if image.key == key else None


def _drop_stale(cache_dir: str, gem_key: str, locations: tuple[str, ...], kept: str) -> None:
    """Remove the results of this gem version at these locations that another rdx wrote (with
    another discovery fingerprint): nothing would read them again."""
    for entry in os.listdir(cache_dir):
        if entry == kept or not entry.startswith(gem_key + "-") or not entry.endswith(".msgpack"):
            continue
        path = os.path.join(cache_dir, entry)
        try:
            with open(path, "rb") as f:
                image = _decoder.decode(f.read())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
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
        write_atomically(cache_dir, name, _encoder.encode(_GemImage(key=key, gem=gem_key, locations=list(locations), documents=documents)))
        _drop_stale(cache_dir, gem_key, locations, name)
    except OSError as exc:
        return f"cannot write the gem cache in {cache_dir}: {exc.strerror}"
    return None
