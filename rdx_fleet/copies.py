"""The shards' private copies of published snapshots, on each node: ``COPIES/<token>/`` holds
one shard's copies (``<repository>/``) and ``owner.lock``, which the shard's process holds
locked as long as it lives: a POSIX record lock (``lockf``), which belongs to the process and
is not inherited by the processes it forks (a worker pool must not keep a dead shard's copies
alive, as it would an ``flock``). The kernel releases the lock when the process dies, however
it dies, so a lock anyone can take marks a directory nobody owns: ``sweep`` removes those. A shard sweeps when it starts (so a shard Ray restarts removes what its dead process
left), the fleet sweeps every node when it starts and stops, and a shard removes its own
copies when it is closed. It owns that directory; it never opens a graph.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time

__all__ = ["ShardCopies", "copies_root", "sweep"]

# The directories this process owns: ``sweep`` never opens their lock files (taking a POSIX
# lock the process holds succeeds, and closing the file would release it).
_MINE: set[str] = set()
# A directory that has no lock file yet is being made, unless it is older than this (its
# maker died between ``mkdtemp`` and taking the lock).
_GRACE_SECONDS = 120.0


def copies_root() -> str:
    """Where this node's shards keep their copies (``RDX_FLEET_COPIES``, else under the
    system's temporary directory)."""
    return os.environ.get("RDX_FLEET_COPIES") or os.path.join(tempfile.gettempdir(), "rdx-fleet-copies")


def _owned(entry: str) -> bool:
    """Whether a live process holds ``entry``'s lock (or may be about to take it)."""
    lock = os.path.join(entry, "owner.lock")
    try:
        fd = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        try:
            return time.time() - os.stat(entry).st_mtime < _GRACE_SECONDS
        except OSError:
            return True  # Gone meanwhile: nothing to remove.
    except OSError:
        return True
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True  # Held: its shard is alive.
    finally:
        os.close(fd)  # Closing releases the lock just taken, if it was.
    return False


def sweep(root: str | None = None) -> list[str]:
    """Remove the copies no live process owns under ``root`` (default: this node's); the
    directories removed."""
    base = root or copies_root()
    gone = []
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return []
    for name in entries:
        entry = os.path.join(base, name)
        if os.path.isdir(entry) and entry not in _MINE and not _owned(entry):
            shutil.rmtree(entry, ignore_errors=True)
            gone.append(entry)
    return gone


class ShardCopies:
    """One shard's directory of copies, locked by this process until ``close``."""

    def __init__(self, root: str | None = None) -> None:
        base = root or copies_root()
        os.makedirs(base, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix=f"shard-{os.getpid()}-", dir=base)
        _MINE.add(self.dir)
        self._fd: int | None = os.open(os.path.join(self.dir, "owner.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def copy(self, name: str, snapshot: str) -> str:
        """A private copy of the snapshot directory ``snapshot`` for repository ``name``."""
        target = os.path.join(self.dir, name)
        shutil.copytree(snapshot, target)
        return target

    def close(self) -> None:
        """Remove every copy, then give up the lock."""
        shutil.rmtree(self.dir, ignore_errors=True)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        _MINE.discard(self.dir)
