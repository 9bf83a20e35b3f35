"""The snapshot store: ``STORE/<name>/<commit>/`` holds one repository's rdx snapshot at one
commit (the cache directory ``rdx.Graph.open`` reads and writes, plus ``fleet.json``), and
``STORE/<name>/CURRENT`` names the commit served. It owns the layout and the atomic publish
(build in ``.tmp-*``, ``os.rename`` into place, ``os.replace`` of ``CURRENT``), so a reader sees a
whole snapshot or none; it never opens a graph.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import uuid

__all__ = ["Store", "commit_of"]

_SKIP_DIRS = {".git", ".rdx", ".bundle", ".hg", ".svn", "node_modules"}


def commit_of(path: str) -> str:
    """What identifies the state of the checkout at ``path``: its git commit when the work tree
    is clean, else ``w`` and a hash of every file's path, size and mtime (a dirty tree or no git)."""
    head = ""
    try:
        head = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], check=True, capture_output=True, text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain"], check=True, capture_output=True, text=True, timeout=60).stdout.strip()
        if head and not dirty:
            return head
    except (OSError, subprocess.SubprocessError):
        head = ""
    h = hashlib.blake2b(head.encode(), digest_size=12)
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            h.update(f"{os.path.relpath(full, path)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return "w" + h.hexdigest()


class Store:
    """The snapshots of a fleet under one directory."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)

    def snapshot_dir(self, name: str, commit: str) -> str:
        return os.path.join(self.root, name, commit)

    def current(self, name: str) -> str | None:
        """The commit published last for ``name``, or None."""
        try:
            with open(os.path.join(self.root, name, "CURRENT"), encoding="utf-8") as f:
                commit = f.read().strip()
        except OSError:
            return None
        return commit if commit and os.path.isdir(self.snapshot_dir(name, commit)) else None

    def has(self, name: str, commit: str) -> bool:
        return os.path.isfile(os.path.join(self.snapshot_dir(name, commit), "fleet.json"))

    def metadata(self, name: str, commit: str) -> dict[str, object]:
        with open(os.path.join(self.snapshot_dir(name, commit), "fleet.json"), encoding="utf-8") as f:
            return dict(json.load(f))

    def scratch(self, name: str, commit: str, warm_from: str | None) -> str:
        """A fresh build directory for ``name`` at ``commit``, seeded with a copy of the
        snapshot of ``warm_from`` (a commit) so the build parses only what changed."""
        os.makedirs(os.path.join(self.root, name), exist_ok=True)
        tmp = os.path.join(self.root, name, f".tmp-{commit}-{uuid.uuid4().hex[:8]}")
        if warm_from is not None and os.path.isdir(self.snapshot_dir(name, warm_from)):
            shutil.copytree(self.snapshot_dir(name, warm_from), tmp, ignore=shutil.ignore_patterns("fleet.json", "*.lock"))
        else:
            os.makedirs(tmp)
        return tmp

    def publish(self, name: str, commit: str, tmp: str, metadata: dict[str, object]) -> None:
        """Move the finished build ``tmp`` into place and make it current. A snapshot that
        another attempt published first wins; ``tmp`` is then removed."""
        with open(os.path.join(tmp, "fleet.json"), "w", encoding="utf-8") as f:
            json.dump(metadata, f, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        final = self.snapshot_dir(name, commit)
        try:
            os.rename(tmp, final)
        except OSError:
            if not self.has(name, commit):
                raise
            shutil.rmtree(tmp, ignore_errors=True)
        self.set_current(name, commit)

    def set_current(self, name: str, commit: str) -> None:
        pointer = os.path.join(self.root, name, "CURRENT")
        tmp = f"{pointer}.{uuid.uuid4().hex[:8]}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(commit + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, pointer)

    def sweep(self, name: str) -> int:
        """Remove the build directories that crashed attempts left behind; how many."""
        base = os.path.join(self.root, name)
        gone = 0
        for entry in os.listdir(base) if os.path.isdir(base) else []:
            if entry.startswith(".tmp-"):
                shutil.rmtree(os.path.join(base, entry), ignore_errors=True)
                gone += 1
        return gone
