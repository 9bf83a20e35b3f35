"""What a resident server checks before each answer, so that no answer is older than the files.

The watch loop (``rdx.follow_changes``) applies changes as they come, but only after its
debounce: a command run right after an edit could otherwise be answered from the revision
before it. So the server keeps, for every file and directory the project's walk covers, the
``stat`` it saw before the graph read it (``Freshness.scan``, before ``Graph.open``), and
before each answer compares them all again (``sweep``): changed, new and removed files go to
``Graph.refresh_paths`` first. A directory whose entries changed is listed again, which finds
new files, new directories (walked) and removed ones. The watch loop's own batches pass
through ``note``, which records what it applies so that neither side parses a file twice.

Some changes are not a matter of files: ``rdx.toml`` and ``pyproject.toml`` (which files,
load paths, gems), every ``.gitignore`` (what the walk skips), a symbolic link appearing (where
the walk goes), the gems' own files and rdx's own code. For those the server does not patch
its graph; it reports a reason (``restart``), exits and the client starts a fresh server.

Stat first, read after: a file changed again while it was being read has a newer stat than
the one recorded, so the next sweep reads it again. The server calls all of this under the
lock that the watch loop's updates take.

Statting every file costs tens of milliseconds on a project of thousands of files, on every
command. So on Linux, once the first sweep has compared everything, the server ``listen``s: an
inotify watch on every recorded directory (and on the directories holding the restart paths).
The kernel queues an event before the write that caused it returns, so a sweep only has to
read the queue without waiting (``Journal.pending``) and look at the paths named there: no
event, nothing changed. A full sweep comes back whenever the queue overflowed, a watch could
not be added (the user's watch limit) or inotify is missing; restart paths in directories
that cannot be watched are statted every time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from rdx.search.text_workspace import any_file
from rdx.workspace.files import SKIPPED_DIRS, is_indexed_path

__all__ = ["Freshness", "Journal"]

# (mtime, ctime, size, inode) of a path, or None when there is nothing there.
Sig = tuple[int, int, int, int] | None


def _sig(path: str) -> Sig:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _listing(directory: str) -> frozenset[str] | None:
    try:
        return frozenset(n for n in os.listdir(directory) if n not in SKIPPED_DIRS)
    except OSError:
        return None


class Journal:
    """inotify watches on directories and the paths their events name (see the module
    docstring). ``broken`` once anything may have been missed: then the owner sweeps in full."""

    def __init__(self) -> None:
        from inotify_simple import INotify, flags  # type: ignore[import-untyped,unused-ignore]  # Linux only; the caller falls back to sweeps

        self._flags = flags
        self._inotify = INotify(nonblocking=True)
        self._mask = (
            flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.CREATE | flags.DELETE | flags.MOVED_FROM | flags.MOVED_TO
            | flags.DELETE_SELF | flags.MOVE_SELF | flags.DONT_FOLLOW | flags.ONLYDIR
        )
        self.dirs: dict[int, str] = {}  # watch descriptor -> directory
        self.watched: set[str] = set()
        self.broken = False

    def watch(self, directory: str) -> bool:
        """Watch ``directory``'s entries; False if it cannot be watched (gone, not a
        directory, or the watch limit reached)."""
        if directory in self.watched:
            return True
        try:
            wd = self._inotify.add_watch(directory, self._mask)
        except OSError:
            return False
        old = self.dirs.get(wd)
        if old is not None:  # The same directory, moved: its watch went with it.
            self.watched.discard(old)
        self.dirs[wd] = directory
        self.watched.add(directory)
        return True

    def pending(self) -> set[str]:
        """The paths named by the events queued so far (a directory's own path for its
        deletion or move), without waiting. Sets ``broken`` on an overflow."""
        out: set[str] = set()
        flags = self._flags
        try:
            events = self._inotify.read(timeout=0)
        except OSError:
            self.broken = True
            return out
        for event in events:
            if event.mask & flags.Q_OVERFLOW:
                self.broken = True
                continue
            directory = self.dirs.get(event.wd)
            if directory is None:
                continue
            if event.mask & flags.IGNORED:  # The directory is gone: its watch went with it.
                del self.dirs[event.wd]
                self.watched.discard(directory)
                out.add(directory)
                continue
            out.add(os.path.join(directory, event.name) if event.name else directory)
        return out

    def close(self) -> None:
        self._inotify.close()


class Freshness:
    """The recorded state of a project's files (see the module docstring)."""

    def __init__(self, roots: Iterable[str], keeps: Callable[[str], bool] | None = None) -> None:
        # The project's root first, then its load paths: what the walk covers.
        self.roots = [os.path.abspath(r) for r in roots]
        # The configuration's globs (``WorkspaceConfig.keeps`` against the root), if any.
        self._keeps = keeps
        self.files: dict[str, Sig] = {}
        self.dirs: dict[str, Sig] = {}
        self.children: dict[str, frozenset[str]] = {}
        # Paths whose change means a new server (configuration, ignore files, gems, code).
        self.restart: dict[str, Sig] = {}
        # Once ``listen`` ran: the events that stand in for a full sweep; and the restart
        # paths whose directories it could not watch (statted on every sweep).
        self.journal: Journal | None = None
        self._unwatched_restart: set[str] = set()
        self._listening = False
        self._full_next = False

    def _root_of(self, path: str) -> str | None:
        for root in self.roots:
            if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
                return root
        return None

    def _indexable(self, path: str) -> bool:
        """Whether the walk would read a file at ``path`` (the watch loop's filter, and the
        configuration's globs)."""
        root = self._root_of(path)
        if root is None or (self._keeps is not None and not self._keeps(path)):
            return False
        return path == root or is_indexed_path(path, root, any_file)

    def _enters(self, directory: str) -> bool:
        """Whether the walk would enter ``directory`` (not skipped, not ignored; the globs
        apply to the files inside, ``include = ["lib/**/*.rb"]`` too)."""
        root = self._root_of(directory)
        return root is not None and is_indexed_path(os.path.join(directory, "x"), root, any_file)

    def watch_restart(self, paths: Iterable[str]) -> None:
        """Record ``paths`` (which may not exist yet) as ones whose change means a new server;
        a path recorded already keeps the state first recorded."""
        for path in paths:
            path = os.path.abspath(path)
            if path not in self.restart:
                self.restart[path] = _sig(path)
                if self.journal is not None and not self.journal.watch(os.path.dirname(path)):
                    self._unwatched_restart.add(path)

    def listen(self) -> bool:
        """From now on, sweep by inotify events (see the module docstring): watch every
        recorded directory and the restart paths' directories. The next sweep still compares
        everything (a change before a watch existed has no event); later ones read only what
        the events name. Returns whether the watches are in place; where inotify is missing or
        the watch limit is reached, every sweep stays a full one."""
        self._listening = True
        self._full_next = True
        return self._arm()

    def _arm(self) -> bool:
        if self.journal is not None:
            return True
        try:
            journal = Journal()
        except (ImportError, OSError):
            self._listening = False
            return False
        if not all(journal.watch(d) for d in self.dirs):
            journal.close()
            self._listening = False  # The watch limit: no use trying again on every sweep.
            return False
        self.journal = journal
        self._unwatched_restart = {p for p in self.restart if not journal.watch(os.path.dirname(p))}
        return True

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    def scan(self, files: Iterable[str]) -> None:
        """Record ``files`` (the walk's, absolute), the directories holding them up to their
        root, and the directories under those that the walk would enter but that hold no file
        yet (so a file created in one is seen too)."""
        dirs: set[str] = set()
        for path in files:
            self.files[path] = _sig(path)
            root = self._root_of(path)
            d = os.path.dirname(path)
            while root is not None and d not in dirs and (d == root or d.startswith(root.rstrip(os.sep) + os.sep)):
                dirs.add(d)
                if d == root:
                    break
                d = os.path.dirname(d)
        dirs.update(r for r in self.roots if os.path.isdir(r))
        stack = sorted(dirs)
        while stack:
            d = stack.pop()
            self.dirs[d] = _sig(d)
            names = _listing(d) or frozenset()
            self.children[d] = names
            if ".gitignore" in names:
                self.restart[os.path.join(d, ".gitignore")] = _sig(os.path.join(d, ".gitignore"))
            for name in names:
                child = os.path.join(d, name)
                if child in dirs or child in self.files or os.path.islink(child):
                    continue
                if os.path.isdir(child):
                    if self._enters(child):
                        dirs.add(child)
                        stack.append(child)
                elif self._indexable(child):
                    # A file the walk skipped (too large, say): it may become one it reads.
                    self.files[child] = _sig(child)

    def sweep(self) -> tuple[list[str], str | None]:
        """Compare everything recorded with the disk: (paths to refresh, sorted; a reason to
        restart or None). The record is updated to what was found. When ``listen`` ran, only
        the paths the queued events name are compared."""
        if self._listening:
            journal = self.journal
            if journal is not None:
                touched = journal.pending()  # Drained before the comparison below, if it runs.
                if not journal.broken and not self._full_next:
                    return self._sweep_touched(touched)
                if journal.broken:  # An overflow: something may have been missed.
                    self.close()
            self._full_next = False
            self._arm()  # Watches first, then everything compared: no change falls between.
        for path, old in self.restart.items():
            if _sig(path) != old:
                return [], f"{path} changed"
        out: set[str] = set()
        files = self.files
        for path, old in files.items():
            now = _sig(path)
            if now != old:
                files[path] = now
                out.add(path)
        moved = [d for d, old in self.dirs.items() if _sig(d) != old]
        for d in moved:
            reason = self._rescan(d, out)
            if reason is not None:
                return [], reason
        return sorted(out), None

    def _sweep_touched(self, touched: set[str]) -> tuple[list[str], str | None]:
        """``sweep`` over the paths events named (and the restart paths nothing watches)."""
        for path in self._unwatched_restart | (touched & self.restart.keys()):
            if _sig(path) != self.restart[path]:
                return [], f"{path} changed"
        out: set[str] = set()
        dirs = {p for p in touched if p in self.dirs} | {d for p in touched if (d := os.path.dirname(p)) in self.dirs}
        for d in sorted(dirs):
            if d in self.dirs and _sig(d) != self.dirs[d]:
                reason = self._rescan(d, out)
                if reason is not None:
                    return [], reason
        files = self.files
        for path in touched:
            if path in files:
                now = _sig(path)
                if now != files[path]:
                    files[path] = now
                    out.add(path)
        return sorted(out), None

    def note(self, paths: Iterable[str]) -> tuple[list[str], str | None]:
        """The watch loop's changed ``paths``: those not already applied (their stat differs
        from the record, or they are new), with what their directories' listings add; and a
        reason to restart or None."""
        out: set[str] = set()
        for path in (os.path.abspath(p) for p in paths):
            if path in self.restart or os.path.basename(path) == ".gitignore":
                return [], f"{path} changed"
            parent = os.path.dirname(path)
            if parent in self.dirs and _sig(parent) != self.dirs[parent]:
                reason = self._rescan(parent, out)
                if reason is not None:
                    return [], reason
            if path in self.dirs:
                if _sig(path) != self.dirs[path]:
                    reason = self._rescan(path, out)
                    if reason is not None:
                        return [], reason
            else:
                now = _sig(path)
                if path not in self.files or now != self.files[path]:
                    self.files[path] = now
                    out.add(path)
        return sorted(out), None

    def _rescan(self, d: str, out: set[str]) -> str | None:
        """List directory ``d`` again: new entries are recorded (directories walked) and
        added to ``out``, removed ones forgotten and added too."""
        sig = _sig(d)
        names = _listing(d) if sig is not None else None
        old = self.children.get(d, frozenset())
        if names is None:
            self._forget(d, out)
            return None
        self.dirs[d] = sig
        self.children[d] = names
        for name in sorted(names - old):
            path = os.path.join(d, name)
            if name == ".gitignore" or os.path.islink(path):
                return f"{path} appeared"
            if os.path.isdir(path):
                if self._enters(path):
                    self._walk_new(path, out)
                    out.add(path)
            elif self._indexable(path):
                self._record(path, out)
        for name in sorted(old - names):
            path = os.path.join(d, name)
            if name == ".gitignore":
                return f"{path} was removed"
            self._forget(path, out)
        return None

    def _walk_new(self, top: str, out: set[str]) -> None:
        """Record a directory that appeared, and everything the walk would read under it."""
        stack = [top]
        while stack:
            d = stack.pop()
            if self.journal is not None and not self.journal.watch(d):
                self.journal.broken = True  # Watched before listed: no creation slips between.
            self.dirs[d] = _sig(d)
            names = _listing(d) or frozenset()
            self.children[d] = names
            for name in names:
                path = os.path.join(d, name)
                if os.path.islink(path):
                    continue  # Walked or not by the next full walk's rules; the graph decides.
                if os.path.isdir(path):
                    if self._enters(path):
                        stack.append(path)
                elif self._indexable(path):
                    self._record(path, out)

    def _record(self, path: str, out: set[str]) -> None:
        """Record a file found in a listing; it is to be read unless already recorded as it is
        (the watch loop may have brought it in first)."""
        now = _sig(path)
        if path not in self.files or self.files[path] != now:
            self.files[path] = now
            out.add(path)

    def _forget(self, path: str, out: set[str]) -> None:
        """Forget ``path`` and everything recorded under it (all gone from the disk)."""
        out.add(path)
        prefix = path.rstrip(os.sep) + os.sep
        for table in (self.files, self.dirs, self.children):
            for p in [p for p in table if p == path or p.startswith(prefix)]:
                del table[p]
