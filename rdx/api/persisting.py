"""Opening, saving and refreshing a ``Graph`` made by ``Graph.open``: the snapshot of parsed
documents (``.rdx/index.msgpack``), the saved resolved graph, the project's gems
(``rdx.workspace.dependencies``) and what changed on disk. A mixin of ``Graph``, as ``Navigable`` and
``Greppable`` are: the graph supplies its store, text index and resolver."""

from __future__ import annotations

import gc
import hashlib
import os
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Self

import msgspec

from rdx.api.other_languages import ForeignSide
from rdx.cache.envelope import Opened
from rdx.cache.snapshot import (
    SCHEMA_VERSION,
    SNAPSHOT_NAME,
    SavedDocuments,
    Snapshot,
    Stamp,
    code_fingerprint,
    default_cache_dir,
    discovery_fingerprint,
    documents_digest,
    load_image,
    load_snapshot,
    read_image,
    save_image,
    save_snapshot,
    unwritable,
    writer_lock,
)
from rdx.model.errors import InvalidArgumentError
from rdx.model.foreign import ForeignState
from rdx.model.public import Diagnostic
from rdx.model.records import FileResult
from rdx.model.store import CORE_URI, Documents, GraphStore, ResolvedImage, ResolvedState, Unread, stored_entries
from rdx.rails.schema import apply_schema
from rdx.ruby.discover.parse import RubyParser
from rdx.ruby.query.handles import View
from rdx.ruby.resolve.base import CoreBase
from rdx.ruby.resolve.driver import Resolver
from rdx.ruby.resolve.image import published_state, share_ids
from rdx.search.text_workspace import ProjectText, any_file
from rdx.workspace.config import WorkspaceConfig, load_config
from rdx.workspace.dependencies import PlannedGem, load_dependencies, plan_dependencies
from rdx.workspace.files import (
    FileEntry,
    ProjectRoots,
    WalkResult,
    changed_files,
    content_hash,
    is_source_file,
    is_source_path,
    path_to_uri,
    read_regular,
    still_wanted,
)
from rdx.workspace.gems import LOCKFILE
from rdx.workspace.pool import discover_files, paused_gc

__all__ = ["Persistent", "check_jobs", "core_base", "core_document", "documents_fingerprint", "settle"]


def _core_source() -> bytes:
    # Read by its path where rdx is installed as files (importing ``importlib.resources``'
    # readers costs a warm open about 10 ms); through them otherwise (a zipped install).
    try:
        with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "core.rb"), "rb") as f:
            return f.read()
    except OSError:
        return resources.files("rdx.data").joinpath("core.rb").read_bytes()


@lru_cache(maxsize=1)
def core_document() -> FileResult:
    """Ruby core's description (``rdx/data/core.rb``) parsed: 100 to 200 ms, so a graph made by
    ``Graph.open`` takes it from its snapshot when the file is the same (see ``_open``)."""
    source = _core_source()
    result = RubyParser().discover(CORE_URI, source, None)
    result.content_hash = content_hash(source)
    return result


class _CoreBases:
    """The process's resolved core (``rdx.ruby.resolve.base.CoreBase``) for each core
    description it met (one, in practice), built on the second full resolve of a small
    project that asks for it: a process that resolves once (a command) never pays for it."""

    def __init__(self) -> None:
        self.bases: dict[tuple[str, int], CoreBase] = {}
        self.asked: set[tuple[str, int]] = set()
        self.lock = threading.Lock()

    def get(self, core: FileResult) -> CoreBase | None:
        if os.environ.get("RDX_CORE_BASE") == "0":
            return None
        key = (core.uri, core.content_hash)
        with self.lock:
            base = self.bases.get(key)
            if base is None:
                if key not in self.asked:
                    self.asked.add(key)
                    return None
                base = self.bases[key] = CoreBase(core)
        return base


core_base = _CoreBases().get


_uri_of = attrgetter("uri")
_path_of = attrgetter("path")


@lru_cache(maxsize=1)
def _core_hash() -> int:
    return content_hash(_core_source())


def documents_fingerprint(documents: Iterable[FileResult | Unread], entries: Iterable[str] = (), digest: str | None = None) -> str:
    """Names a set of documents exactly (URIs and content), the entry points that order them
    (``Graph._root_order``) and the rdx code that resolves them, for the saved resolved graph
    and indexes. ``digest``: the documents' ``documents_digest`` when known already (a
    snapshot's, for a warm open that reuses exactly its documents)."""
    h = hashlib.blake2b(f"{SCHEMA_VERSION}:{code_fingerprint()}".encode(), digest_size=16)
    for entry in entries:
        h.update(f"\0entry\0{entry}".encode())
    h.update(b"\0documents\0" + (digest or documents_digest(documents)).encode())
    return h.hexdigest()


def settle(freeze: bool) -> None:
    """Hand a freshly loaded or resolved graph to the garbage collector as long-lived data.

    Its hundreds of thousands of containers make no cycles. Left in the youngest generation,
    the next collection would walk them all at once (and again as they age). ``gc.freeze()``
    moves every tracked object out of the collector's sight; unfreezing at once puts them in
    the oldest generation, where only the (rare) full collections visit them. Keeping them
    frozen (``freeze_gc=True``) also spares those, at the price of never collecting cycles that
    were alive at that moment, which is why only rdx's own processes ask for it."""
    gc.freeze()
    if not freeze:
        gc.unfreeze()


class WalkInThread:
    """``walk()`` running in a thread from now on; ``result`` waits for it (and raises what
    it raised). For ``Graph.open``, whose walk overlaps the snapshot's read."""

    def __init__(self, walk: Callable[[], list[list[WalkResult]]]) -> None:
        self._walk = walk
        self._result: list[list[WalkResult]] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="rdx-walk", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._walk()
        except BaseException as exc:  # Raised again by ``result``, in the caller's thread.
            self._error = exc

    def result(self) -> list[list[WalkResult]]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def check_jobs(jobs: object) -> None:
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise InvalidArgumentError(f"jobs must be a positive integer, got {jobs!r}")


class Persistent:
    """``Graph.open``, ``save``, ``refresh_paths`` and ``plan`` (see the module docstring)."""

    _store: GraphStore
    _view: View | None
    _resolver: Resolver | None
    _walk_problems: list[Diagnostic]
    _sources: dict[str, bytes]
    _text: ProjectText
    _foreign: ForeignSide
    open_stats: dict[str, object]
    config: WorkspaceConfig
    _workspace: tuple[list[str], str] | None
    _saved_fingerprint: str | None
    _freeze_gc: bool
    # A graph that started from the saved resolved graph: the documents, the image and the
    # state published from it, until an edit or ``prepare_queries`` needs the resolver
    # (``_writer``), whose bookkeeping only edits read.
    _restorable: tuple[Documents[int], ResolvedImage, ResolvedState] | None

    if TYPE_CHECKING:

        def __init__(self, *, core: bool = True) -> None: ...

        @staticmethod
        def _roots(paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[str]: ...

        def _collect(
            self,
            paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
            config: WorkspaceConfig | None = None,
            config_root: str | None = None,
            select: Callable[[str], bool] = is_source_file,
        ) -> tuple[list[FileEntry], list[Diagnostic]]: ...

        @staticmethod
        def _walk(roots: list[str], config: WorkspaceConfig | None, config_root: str | None, select: Callable[[str], bool]) -> list[WalkResult]: ...

        def _gather(self, walks: list[WalkResult]) -> tuple[list[FileEntry], list[Diagnostic]]: ...

        def _project_roots(self) -> ProjectRoots | None: ...

        def _root_order(self) -> tuple[list[str], list[str], list[tuple[str, tuple[str, ...] | None, tuple[str, ...]]]]: ...

        def _publish(self, state: ResolvedState, foreign: ForeignState | None, changed: set[str] | None) -> View: ...

    @classmethod
    def open(
        cls,
        roots: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
        *,
        cache_dir: str | os.PathLike[str] | None = None,
        jobs: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        freeze_gc: bool = False,
    ) -> Self:
        """A graph of the project at ``roots``, starting warm from the snapshot in ``cache_dir``
        (default: ``.rdx/`` in the first root). Files are checked by size and mtime, then by
        content hash; only changed and new files are parsed, deleted ones are dropped, and the
        snapshot is rewritten when anything changed. A bad snapshot is reported and rebuilt.
        When nothing changed and the resolved graph was saved, the graph starts resolved.

        ``freeze_gc=True`` is for processes that hold the graph and nothing else of note
        (rdx's CLI and MCP server): after loading and after each full resolve, ``gc.freeze()``
        keeps every object then alive out of the cyclic collector's sight for good. It is
        process-wide: cycles alive at that moment are never collected, hence off by default;
        by default the graph is only moved to the oldest generation (see ``_settle``)."""
        check_jobs(jobs)
        # The collector stays off while the graph loads; objects allocated meanwhile make no cycles.
        with paused_gc():
            return cls._open(roots, cache_dir, jobs, progress, freeze_gc)

    @classmethod
    def _open(
        cls,
        roots: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
        cache_dir: str | os.PathLike[str] | None,
        jobs: int | None,
        progress: Callable[[int, int], None] | None,
        freeze_gc: bool,
    ) -> Self:
        graph = cls(core=False)
        graph._freeze_gc = freeze_gc
        root_list = [os.path.abspath(r) for r in cls._roots(roots)]
        config = load_config(root_list[0])
        graph.config = config
        load_paths = [p for p in config.load_paths if p not in root_list and os.path.exists(p)]
        cache = os.fspath(cache_dir) if cache_dir is not None else default_cache_dir(root_list[0])
        # One walk for the Ruby files and the text index (every file), in a thread while the
        # snapshot is read: the walk waits on the disk (a stat per file) and the snapshot's
        # read and checksums let go of the interpreter, so on two cores most of one hides
        # behind the other. Nothing is decided before both are done.
        walks = [(root_list, config)]
        if load_paths:
            # Load paths are indexed whole: ``include`` selects within the project only.
            walks.append((load_paths, msgspec.structs.replace(config, include=())))
        walking = WalkInThread(lambda: [graph._walk(cls._roots(paths), c, root_list[0], any_file) for paths, c in walks])
        with paused_gc():
            loaded, problem = load_snapshot(cache, root_list, graph._parse_again, lambda stamp: graph._parse_damaged(stamp, cache))
        if problem is not None:
            graph._walk_problems.append(Diagnostic("snapshot-rebuilt", problem, "warning", cache))
        stubs = loaded[1].stubs if loaded is not None else []
        # Ruby core first, as ``Graph()`` puts it: from the snapshot when core.rb is the same.
        core = next((s for s in stubs if s.uri == CORE_URI and s.content_hash == _core_hash()), None)
        graph._store.put_document(core if core is not None else core_document())
        # By path, every stub but Ruby core's (URIs are unique), built in C (``map``).
        uris = list(map(_uri_of, stubs))
        others = stubs[: (at := uris.index(CORE_URI))] + stubs[at + 1 :] if CORE_URI in uris else stubs
        previous = dict(zip(map(_path_of, others), others, strict=True))
        # The resolved graph's file is read (not decoded) while the walk may still run: used
        # if nothing changed, which only the walk tells.
        with paused_gc():
            image_file = read_image(cache) if loaded is not None else None
        project_walk, *load_path_walks = walking.result()
        every, _ = graph._gather(project_walk)
        for walk in load_path_walks:
            extra, _ = graph._gather(walk)
            known = {e.uri for e in every}
            every += [e for e in extra if e.uri not in known]
        entries = [e for e in every if is_source_path(e.path)]
        reused: list[FileResult | Unread] = []
        stale: list[FileEntry] = []
        for entry in entries:
            prev = previous.get(entry.path)
            if prev is None or prev.uri != entry.uri:
                stale.append(entry)
                continue
            # The walk has just stat'ed the file (``FileEntry.size``/``mtime_ns``): no second stat.
            if entry.size == prev.size and entry.mtime_ns == prev.mtime_ns:
                reused.append(prev)  # Decoded when first read (``rdx.model.store.Documents``).
                continue
            # Touched but maybe not changed: compare the content hash before parsing again.
            try:
                same = prev.content_hash != 0 and content_hash(read_regular(entry.path, entry.roots)) == prev.content_hash
            except OSError:
                same = False
            if same:
                reused.append(msgspec.structs.replace(prev.read(), mtime_ns=entry.mtime_ns, size=entry.size))
            else:
                stale.append(entry)
        for result in reused:
            graph._store.put_document(result)
        parsed = 0

        def tick(n: int) -> None:
            nonlocal parsed  # ``progress`` gets running counts, as ``index_all`` gives them.
            parsed += n
            if progress is not None:
                progress(parsed, len(stale))

        fresh = list(discover_files(stale, jobs=jobs, progress=tick if progress else None))
        for result in fresh:
            graph._store.put_document(result)
        dependencies = load_dependencies(root_list[0], config, jobs=jobs)
        known_uris = set(map(_uri_of, entries))
        graph._adopt(dependencies.documents)
        for result in dependencies.documents:
            if result.uri not in known_uris:  # a gem vendored inside the project is the project's
                graph._store.put_document(result)
        graph._walk_problems += dependencies.problems
        deleted = len(set(previous).difference(map(_path_of, entries)))
        graph._workspace = (root_list, cache)
        graph._foreign.add_roots(root_list)
        graph._foreign.cache_dir, graph._foreign.fingerprint = cache, documents_fingerprint
        graph._foreign.report = graph._report_cache_problem
        changed = bool(fresh or deleted or loaded is None or len(reused) != len(previous))
        if changed or core is None:
            graph.save()
        # The text index is opened, checked and synced with this walk when first needed
        # (rdx.search.text_workspace): a first answer that is not a grep does not wait for it.
        graph._text.defer(cache, every, config)
        graph._join_schema()  # schema.rb columns joined to their models, as resolve() does
        # Every document reused as the snapshot holds it, and no others (Ruby core's among
        # them), none changed by the schema's join (which gives the models it joins a content
        # hash of their own): the snapshot's digest names them (``documents_fingerprint``).
        same = loaded is not None and not changed and core is not None and not dependencies.documents and not graph._store.schema_uris
        digest = loaded[0].documents if same and loaded is not None else ""
        restored = not changed and graph._restore_resolved(image_file, digest or None)
        graph.open_stats = {
            "reused": len(reused), "parsed": len(fresh), "deleted": deleted, "snapshot": loaded is not None, "resolved": restored,
            "gems": dependencies.gems, "gems_cached": dependencies.cached, "gem_files_parsed": dependencies.parsed_files,
        }
        settle(freeze_gc)
        return graph

    def _adopt(self, documents: Iterable[FileResult | Unread]) -> None:
        """Gem documents that fail to decode are parsed again by this graph (``_parse_again``)."""
        for doc in documents:
            if type(doc) is Unread and isinstance(doc.source, SavedDocuments):
                doc.source.fallback = self._parse_again

    def _join_schema(self) -> None:
        """``apply_schema``, when some document holds schema.rb tables: the join reads every
        document, which would decode every document a warm open left unread."""
        if self._store.schema_uris:
            apply_schema(self._store)

    def _parse_again(self, stamp: Stamp) -> FileResult:
        """A snapshot document that passed its checksum but does not decode (which only a bug
        can cause): parsed again from its file, and reported."""
        message = f"a saved document of {stamp.uri} does not decode; parsed again from its file"
        if not any(p.code == "internal-error" and p.message == message for p in self._walk_problems):
            self._walk_problems.append(Diagnostic("internal-error", message, "warning", stamp.uri))
        return self._parse_file(stamp)

    def _parse_damaged(self, stamp: Stamp, cache_dir: str) -> FileResult:
        """A snapshot document that fails its checksum when first read (checked then, not at
        the open: ``SavedDocuments``): parsed again from its file, which the open found
        unchanged since the snapshot was written, and reported once per snapshot (the
        snapshot is rewritten without the damage)."""
        path = os.path.join(cache_dir, SNAPSHOT_NAME)
        message = f"the index snapshot {path} is corrupted: saved documents fail their checksum; their files are parsed again"
        if not any(p.code == "snapshot-rebuilt" and p.message == message for p in self._walk_problems):
            self._walk_problems.append(Diagnostic("snapshot-rebuilt", message, "warning", cache_dir))
        return self._parse_file(stamp)

    def _parse_file(self, stamp: Stamp) -> FileResult:
        if stamp.uri == CORE_URI or stamp.path is None:
            return core_document()
        roots = self._project_roots()
        # A gem's directory is a root of its own (see ``read_project_file``).
        allowed = roots.real if roots is not None and stamp.library is None else ()
        result = next(iter(discover_files([FileEntry(stamp.path, stamp.uri, roots=allowed)], jobs=1)))
        result.library = stamp.library
        return result

    def _restore_resolved(self, image_file: tuple[Opened | None, str | None] | None = None, digest: str | None = None) -> bool:
        """Start resolved from the saved image when it describes exactly these documents
        (``image_file``: its file, if read already; ``digest``: the documents'
        ``documents_digest``, if known). Only the state queries read is published here; the
        resolver's bookkeeping is restored when an edit needs it (``_writer``)."""
        assert self._workspace is not None
        store = self._store
        fingerprint = documents_fingerprint(store.documents.entries(), self._root_order()[0], digest)
        with paused_gc():
            image, problem = load_image(self._workspace[1], fingerprint, image_file)
        if problem is not None:
            self._walk_problems.append(Diagnostic("snapshot-rebuilt", problem, "warning", self._workspace[1]))
        if image is None:
            return False
        try:
            # The stored values, stubs included: nothing is decoded here.
            # (``peek`` unrolled: ``dict.__getitem__`` called from C, 54,000 times on 10 copies.)
            documents = Documents(zip(image.uris, map(dict.__getitem__, repeat(store.documents), image.uris.values()), strict=True))
        except KeyError:
            return False
        with paused_gc():
            state = published_state(image, documents)
        store.mark_resolved(state)
        self._restorable = (documents, image, state)
        self._view = self._publish(state, None, None)
        self._saved_fingerprint = fingerprint
        return True

    def _writer(self) -> Resolver | None:
        """The resolver that makes the next revision; for a graph that started from the saved
        image, restored from it now (its bookkeeping reads every document: 0.2 s and more on a
        big project, which a warm start to a first answer does not pay)."""
        if self._resolver is None and self._restorable is not None:
            documents, image, state = self._restorable
            self._restorable = None
            with paused_gc():
                share_ids(state)
                resolver = Resolver(documents, restoring=True)
                resolver.image.restore(image, state)
                # The load order an edit builds walks the roots as the first resolve did.
                resolver.use_roots(*self._root_order())
            self._resolver = resolver
            settle(self._freeze_gc)
        return self._resolver

    def _save_resolved(self, resolver: Resolver) -> None:
        """Persist the resolved graph of a graph made by ``Graph.open`` (after a full resolve)."""
        if self._workspace is None:
            return
        fingerprint = documents_fingerprint(stored_entries(resolver.docs), self._root_order()[0])
        if fingerprint == self._saved_fingerprint:
            return
        try:
            with writer_lock(self._workspace[1]):
                save_image(self._workspace[1], resolver.export(fingerprint))
        except OSError as exc:
            self._report_cache_problem("snapshot-unwritable", unwritable(self._workspace[1], exc))
            return
        self._saved_fingerprint = fingerprint

    def _report_cache_problem(self, code: str, message: str) -> None:
        """A cache file that was damaged (``snapshot-rebuilt``) or could not be written
        (``snapshot-unwritable``): one warning per message, on the cache directory."""
        assert self._workspace is not None
        if not any(p.code == code and p.message == message for p in self._walk_problems):
            self._walk_problems.append(Diagnostic(code, message, "warning", self._workspace[1]))

    def save(self) -> None:
        """Write the snapshot of a graph made by ``Graph.open`` (atomically, under the lock)."""
        if self._workspace is None:
            raise InvalidArgumentError("save() needs a graph made by Graph.open(root); this one has no cache directory")
        roots, cache = self._workspace
        # Dependencies live in the user-level gem cache (rdx.workspace.dependencies), not the
        # snapshot; Ruby core does, so that the next open need not parse it again.
        documents = [d for d in self._store.documents.entries() if d.library is None]
        try:
            with writer_lock(cache):
                save_snapshot(cache, Snapshot(schema=SCHEMA_VERSION, roots=roots, documents=documents, discovery=discovery_fingerprint()))
        except OSError as exc:
            self._report_cache_problem("snapshot-unwritable", unwritable(cache, exc))
            return
        if self._view is not None and self._resolver is not None and not self._store.is_stale:
            self._save_resolved(self._resolver)  # Resolved and current: the next open starts resolved.

    def refresh_paths(self, paths: Iterable[str]) -> tuple[int, int]:
        """Re-read files that changed on disk: re-parse the Ruby files that exist (and still
        belong to the workspace), forget those that are gone, and bring the text index up to
        date for every file. Returns (updated, removed) Ruby documents."""
        updated = removed = 0
        fresh: list[FileEntry] = []
        # One rule for what is in the project (``ProjectRoots``): a path whose real path is
        # outside it is neither walked nor read, and is forgotten if it was indexed.
        roots = self._project_roots()
        paths = self._expand(paths, roots)
        self._foreign.note_paths(paths)
        root = self._workspace[0][0] if self._workspace is not None else None
        if root is None:
            self._text.refresh(paths, keeps=roots.holds if roots is not None else None)
        else:
            self._text.refresh(paths, self.config.max_file_size, lambda p: (roots is None or roots.holds(p)) and self.config.keeps(p, root))
        for path in paths:
            if not is_source_file(os.path.basename(path)):
                continue
            uri = path_to_uri(path)
            if self._wanted(path, roots):
                fresh.append(FileEntry(path, uri, roots=roots.real if roots is not None else ()))
            elif self._store.remove_document(uri):
                self._sources.pop(uri, None)
                removed += 1
        for result in discover_files(fresh, jobs=1):
            self._store.put_document(result)
            self._sources.pop(result.uri, None)
            updated += 1
        if root is not None and os.path.join(root, LOCKFILE) in paths:
            added, dropped = self._reload_dependencies(root)
            updated, removed = updated + added, removed + dropped
        return updated, removed

    def _reload_dependencies(self, root: str) -> tuple[int, int]:
        """Gemfile.lock changed: index the gems it locks now and forget those it no longer does."""
        self._walk_problems = [p for p in self._walk_problems if not p.code.startswith(("gem-", "lockfile-"))]
        dependencies = load_dependencies(root, self.config, jobs=1)
        self._adopt(dependencies.documents)
        self._walk_problems += dependencies.problems
        wanted = {d.uri: d for d in dependencies.documents}
        documents = self._store.documents
        gone = [
            uri for uri, d in zip(list(documents), list(documents.entries()), strict=True)
            if d.library is not None and (uri not in wanted or wanted[uri].library != d.library)
        ]
        for uri in gone:
            self._store.remove_document(uri)
        added = [d for uri, d in wanted.items() if uri not in documents]
        for result in added:
            self._store.put_document(result)
        return len(added), len(gone)

    def _expand(self, paths: Iterable[str], roots: ProjectRoots | None) -> list[str]:
        root = self._workspace[0][0] if self._workspace is not None else None
        indexed = self._text.paths() + [d.path for d in self._store.documents.entries() if d.path]
        return changed_files(paths, self.config, root, indexed, roots)

    def _wanted(self, path: str, roots: ProjectRoots | None) -> bool:
        # ``index_all`` applies no configuration: neither do its updates.
        return still_wanted(path, self.config if self._workspace is not None else None, self._workspace[0][0] if self._workspace else None, roots)

    @classmethod
    def plan(cls, root: str | os.PathLike[str]) -> tuple[list[str], list[Diagnostic], WorkspaceConfig]:
        """What ``Graph.open(root)`` would index (paths), what it would skip, and the config used."""
        root = os.path.abspath(cls._roots(root)[0])
        config = load_config(root)
        graph = cls(core=False)
        entries, problems = graph._collect([root], config, root)
        load_paths = [p for p in config.load_paths if os.path.exists(p) and p != root]
        if load_paths:
            extra, more = graph._collect(load_paths, msgspec.structs.replace(config, include=()), root)
            entries += extra
            problems += more
        return [e.path for e in entries], problems, config

    @classmethod
    def plan_dependencies(cls, root: str | os.PathLike[str]) -> tuple[list[PlannedGem], list[Diagnostic]]:
        """The gems ``Graph.open(root)`` would index besides the project's files (those
        ``Gemfile.lock`` locks, found where they are installed), each with its version and
        file count, and the problems it would report (see ``plan`` for the project's files)."""
        paths, _, config = cls.plan(root)
        root = os.path.abspath(cls._roots(root)[0])
        return plan_dependencies(root, config, project=frozenset(path_to_uri(p) for p in paths))
