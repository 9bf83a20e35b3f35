"""The public Graph façade: index files, resolve, and ask questions.

This module ties the phases together: discovery (``rdx.discovery``) fills the store with
per-file results, resolution (``rdx.resolution``) turns them into declarations, and the query
layer (``rdx.query``) answers questions. Queries on a graph changed since the last
``resolve()`` resolve first, so answers are never stale.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from importlib import resources

import msgspec

from rdx.cache.snapshot import (
    SCHEMA_VERSION,
    Snapshot,
    default_cache_dir,
    load_image,
    load_snapshot,
    save_image,
    save_snapshot,
    writer_lock,
)
from rdx.dependencies import load_dependencies
from rdx.discovery.config import WorkspaceConfig, load_config
from rdx.discovery.files import (
    FileEntry,
    changed_files,
    collect_files,
    content_hash,
    is_source_file,
    path_to_uri,
    still_wanted,
    uri_to_path,
)
from rdx.discovery.gems import LOCKFILE
from rdx.discovery.parse import RubyParser
from rdx.discovery.pool import discover_files, discover_source, paused_gc
from rdx.errors import EncodingFailureError, InvalidArgumentError, IOFailureError, NotFoundError
from rdx.foreign_graph import ForeignSide
from rdx.fulltext.workspace import ProjectText, any_file
from rdx.mapping import build_repo_map
from rdx.model.foreign import ForeignState
from rdx.model.records import ConstPath, FileResult
from rdx.model.store import CORE_URI, GraphStore, ResolutionDiagnostic, ResolvedState
from rdx.navigating import Navigable
from rdx.query.foreign import ForeignDeclarationHandle
from rdx.query.handles import (
    ConstantReference,
    Declaration,
    Diagnostic,
    Document,
    MethodReference,
    View,
    iter_constant_references,
    iter_method_references,
)
from rdx.query.repomap import RepoMap
from rdx.query.search import SearchIndex
from rdx.railsschema import apply_schema
from rdx.resolution.driver import Resolver
from rdx.resolution.order import LoadOrder, keyed, place
from rdx.searching import find_declarations, symbol_index
from rdx.textsearch import Greppable

__all__ = ["Graph"]


@lru_cache(maxsize=1)
def _core_document() -> FileResult:
    source = resources.files("rdx.data").joinpath("core.rb").read_bytes()
    result = RubyParser().discover(CORE_URI, source, None)
    result.content_hash = content_hash(source)
    return result


def _fingerprint(documents: Iterable[FileResult]) -> str:
    """Names a set of documents exactly (URIs and content), for the saved resolved graph."""
    from rdx import __version__

    h = hashlib.blake2b(f"{SCHEMA_VERSION}:{__version__}".encode(), digest_size=16)
    for uri, digest, size in sorted((d.uri, d.content_hash, d.size) for d in documents):
        h.update(f"\0{uri}\0{digest}\0{size}".encode())
    return h.hexdigest()


def _parse_path(text: str) -> ConstPath:
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgumentError(f"constant name {text!r} is empty or not a string; pass a name like 'Foo::Bar'")
    absolute = text.startswith("::")
    segments = tuple(text[2:].split("::") if absolute else text.split("::"))
    if any(not s or not (s[0].isupper() or not s[0].isascii()) for s in segments):
        raise InvalidArgumentError(f"{text!r} is not a constant path; constant names start with an uppercase letter")
    return ConstPath(segments, absolute, 0, 0)


def _settle(freeze: bool) -> None:
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


def _check_jobs(jobs: object) -> None:
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise InvalidArgumentError(f"jobs must be a positive integer, got {jobs!r}")


class Graph(Greppable, Navigable):
    """A semantic graph of a Ruby codebase (see the README for a tour); ``grep`` searches the
    text of every file of the project (see ``Greppable``)."""

    def __init__(self, *, core: bool = True) -> None:
        self._store = GraphStore()
        self._view: View | None = None
        # The writer of the next revision (see ``resolve``); queries never use it.
        self._resolver: Resolver | None = None
        # The view an incremental update replaced (see ``resolve``).
        self._retired: View | None = None
        self._walk_problems: list[Diagnostic] = []
        self._sources: dict[str, bytes] = {}
        # Every text file's content, for ``grep`` (see rdx.fulltext).
        self._text = ProjectText()
        # Other languages: the layout their imports resolve against (see rdx.foreign_graph).
        self._foreign = ForeignSide()
        # What the last ``Graph.open`` reused from the snapshot and what it parsed again.
        self.open_stats: dict[str, object] = {}
        self.config = WorkspaceConfig()
        # (roots, cache directory) of a graph made by ``Graph.open``.
        self._workspace: tuple[list[str], str] | None = None
        # Fingerprint of the documents whose resolved graph was last saved or restored.
        self._saved_fingerprint: str | None = None
        self._freeze_gc = False
        # How the last ``resolve()`` went: "none" (nothing to do), "incremental" or "full";
        # for a full one after edits, why the incremental update gave up.
        self.last_resolve = "none"
        self.last_fallback: str | None = None
        if core:
            self._store.put_document(_core_document())

    # -- indexing ------------------------------------------------------------------------

    def index_all(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        jobs: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Diagnostic]:
        """Index every Ruby file under ``paths``; returns the per-file problems (errors only).

        A bad file never raises: it becomes a diagnostic and the rest of the index is intact.
        A root that does not exist raises IOFailureError before anything is indexed.
        """
        _check_jobs(jobs)
        roots = self._roots(paths)
        entries, problems = self._collect(roots)
        self._text.add_roots(roots)
        self._foreign.add_roots(roots)
        total = len(entries)
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress is not None:
                progress(done, total)

        for result in discover_files(entries, jobs=jobs, progress=tick):
            self._store.put_document(result)
            for d in result.diagnostics:
                if d.severity == "error":
                    problems.append(self._file_diagnostic(result, d))
        return problems

    @staticmethod
    def _roots(paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[str]:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        try:
            paths = list(paths)
        except TypeError:
            raise InvalidArgumentError(f"expected a list of paths, got {paths!r}") from None
        roots = []
        for p in paths:
            if not isinstance(p, (str, os.PathLike)):
                raise InvalidArgumentError(f"expected paths, got {p!r}")
            p = os.fspath(p)
            if not os.path.exists(p):
                raise IOFailureError(f"path {p!r} does not exist; pass an existing file or directory")
            roots.append(p)
        return roots

    def _collect(
        self,
        paths: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
        config: WorkspaceConfig | None = None,
        config_root: str | None = None,
        select: Callable[[str], bool] = is_source_file,
    ) -> tuple[list[FileEntry], list[Diagnostic]]:
        """Files under ``paths`` (deduplicated; Ruby files unless ``select`` says otherwise)
        and the walk's problems, each reported once."""
        entries: list[FileEntry] = []
        problems: list[Diagnostic] = []
        seen: set[str] = set()
        for root in self._roots(paths):
            walk = collect_files(root, config, config_root, select)
            for path, diag in walk.problems:
                problems.append(Diagnostic(diag.code, diag.message, diag.severity, path))
            for entry in walk.files:
                if entry.uri not in seen:
                    seen.add(entry.uri)
                    entries.append(entry)
        known = {(p.path, p.code) for p in self._walk_problems}
        problems = list({(p.path, p.code): p for p in problems if (p.path, p.code) not in known}.values())
        self._walk_problems.extend(problems)
        return entries, problems

    @classmethod
    def open(
        cls,
        roots: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
        *,
        cache_dir: str | os.PathLike[str] | None = None,
        jobs: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        freeze_gc: bool = False,
    ) -> Graph:
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
        _check_jobs(jobs)
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
    ) -> Graph:
        graph = cls()
        graph._freeze_gc = freeze_gc
        root_list = [os.path.abspath(r) for r in cls._roots(roots)]
        config = load_config(root_list[0])
        graph.config = config
        load_paths = [p for p in config.load_paths if p not in root_list and os.path.exists(p)]
        cache = os.fspath(cache_dir) if cache_dir is not None else default_cache_dir(root_list[0])
        with paused_gc():
            snapshot, problem = load_snapshot(cache, root_list)
        if problem is not None:
            graph._walk_problems.append(Diagnostic("snapshot-rebuilt", problem, "warning", cache))
        previous = {d.path: d for d in snapshot.documents} if snapshot is not None else {}
        # One walk for the Ruby files and the text index (every file).
        every, _ = graph._collect(root_list, config, root_list[0], any_file)
        if load_paths:
            # Load paths are indexed whole: ``include`` selects within the project only.
            extra, _ = graph._collect(load_paths, msgspec.structs.replace(config, include=()), root_list[0], any_file)
            known = {e.uri for e in every}
            every += [e for e in extra if e.uri not in known]
        entries = [e for e in every if is_source_file(os.path.basename(e.path))]
        reused: list[FileResult] = []
        stale: list[FileEntry] = []
        for entry in entries:
            prev = previous.get(entry.path)
            if prev is None or prev.uri != entry.uri:
                stale.append(entry)
                continue
            try:
                st = os.stat(entry.path)
            except OSError:
                stale.append(entry)  # Discovery reports the problem.
                continue
            if st.st_size == prev.size and st.st_mtime_ns == prev.mtime_ns:
                reused.append(prev)
                continue
            # Touched but maybe not changed: compare the content hash before parsing again.
            try:
                with open(entry.path, "rb") as f:
                    same = prev.content_hash != 0 and content_hash(f.read()) == prev.content_hash
            except OSError:
                same = False
            if same:
                reused.append(msgspec.structs.replace(prev, mtime_ns=st.st_mtime_ns, size=st.st_size))
            else:
                stale.append(entry)
        for result in reused:
            graph._store.put_document(result)
        fresh = list(discover_files(stale, jobs=jobs, progress=(lambda n: progress(n, len(stale))) if progress else None))
        for result in fresh:
            graph._store.put_document(result)
        dependencies = load_dependencies(root_list[0], config, jobs=jobs)
        known_uris = {e.uri for e in entries}
        for result in dependencies.documents:
            if result.uri not in known_uris:  # a gem vendored inside the project is the project's
                graph._store.put_document(result)
        graph._walk_problems += dependencies.problems
        deleted = len(set(previous) - {e.path for e in entries})
        graph._workspace = (root_list, cache)
        graph._foreign.add_roots(root_list)
        graph._foreign.cache_dir, graph._foreign.fingerprint = cache, _fingerprint
        changed = bool(fresh or deleted or snapshot is None or len(reused) != len(snapshot.documents))
        if changed:
            graph.save()
        graph._walk_problems += [Diagnostic(*problem) for problem in graph._text.attach(cache, every, config)]
        apply_schema(graph._store)  # schema.rb columns joined to their models, as resolve() does
        restored = not changed and graph._restore_resolved()
        graph.open_stats = {
            "reused": len(reused), "parsed": len(fresh), "deleted": deleted, "snapshot": snapshot is not None, "resolved": restored,
            "gems": dependencies.gems, "gems_cached": dependencies.cached, "gem_files_parsed": dependencies.parsed_files,
        }
        _settle(freeze_gc)
        return graph

    def _restore_resolved(self) -> bool:
        """Start resolved from the saved image when it describes exactly these documents."""
        assert self._workspace is not None
        store = self._store
        fingerprint = _fingerprint(store.documents.values())
        with paused_gc():
            image, problem = load_image(self._workspace[1], fingerprint)
        if problem is not None:
            self._walk_problems.append(Diagnostic("snapshot-rebuilt", problem, "warning", self._workspace[1]))
        if image is None:
            return False
        try:
            documents = {key: store.documents[uri] for key, uri in image.uris.items()}
        except KeyError:
            return False
        resolver = Resolver.restore(documents, image)
        store.mark_resolved(resolver.state)
        self._resolver = resolver
        self._view = self._publish(resolver.state, None, None)
        self._saved_fingerprint = fingerprint
        return True

    def _save_resolved(self, resolver: Resolver) -> None:
        """Persist the resolved graph of a graph made by ``Graph.open`` (after a full resolve)."""
        if self._workspace is None:
            return
        fingerprint = _fingerprint(resolver.docs.values())
        if fingerprint == self._saved_fingerprint:
            return
        try:
            with writer_lock(self._workspace[1]):
                save_image(self._workspace[1], resolver.export(fingerprint))
        except OSError as exc:
            self._walk_problems.append(
                Diagnostic("snapshot-unwritable", f"cannot write the resolved graph in {self._workspace[1]}: {exc.strerror}", "warning", self._workspace[1])
            )
            return
        self._saved_fingerprint = fingerprint

    def save(self) -> None:
        """Write the snapshot of a graph made by ``Graph.open`` (atomically, under the lock)."""
        if self._workspace is None:
            raise InvalidArgumentError("save() needs a graph made by Graph.open(root); this one has no cache directory")
        roots, cache = self._workspace
        # Dependencies live in the user-level gem cache (rdx.dependencies), not the snapshot.
        documents = [d for d in self._store.documents.values() if d.uri != CORE_URI and d.library is None]
        try:
            with writer_lock(cache):
                save_snapshot(cache, Snapshot(schema=SCHEMA_VERSION, roots=roots, documents=documents))
        except OSError as exc:
            self._walk_problems.append(
                Diagnostic("snapshot-unwritable", f"cannot write the index snapshot in {cache}: {exc.strerror}", "warning", cache)
            )
            return
        if self._view is not None and self._resolver is not None and not self._store.is_stale:
            self._save_resolved(self._resolver)  # Resolved and current: the next open starts resolved.

    def refresh_paths(self, paths: Iterable[str]) -> tuple[int, int]:
        """Re-read files that changed on disk: re-parse the Ruby files that exist (and still
        belong to the workspace), forget those that are gone, and bring the text index up to
        date for every file. Returns (updated, removed) Ruby documents."""
        updated = removed = 0
        fresh: list[FileEntry] = []
        paths = self._expand(paths)
        self._foreign.note_paths(paths)
        root = self._workspace[0][0] if self._workspace is not None else None
        if root is None:
            self._text.refresh(paths)
        else:
            self._text.refresh(paths, self.config.max_file_size, lambda p: self.config.keeps(p, root))
        for path in paths:
            if not is_source_file(os.path.basename(path)):
                continue
            uri = path_to_uri(path)
            if self._wanted(path):
                fresh.append(FileEntry(path, uri))
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
        self._walk_problems += dependencies.problems
        wanted = {d.uri: d for d in dependencies.documents}
        documents = self._store.documents
        gone = [uri for uri, d in documents.items() if d.library is not None and (uri not in wanted or wanted[uri].library != d.library)]
        for uri in gone:
            self._store.remove_document(uri)
        added = [d for uri, d in wanted.items() if uri not in documents]
        for result in added:
            self._store.put_document(result)
        return len(added), len(gone)

    def _expand(self, paths: Iterable[str]) -> list[str]:
        root = self._workspace[0][0] if self._workspace is not None else None
        indexed = self._text.paths() + [d.path for d in self._store.documents.values() if d.path]
        return changed_files(paths, self.config, root, indexed)

    def _wanted(self, path: str) -> bool:
        # ``index_all`` applies no configuration: neither do its updates.
        return still_wanted(path, self.config if self._workspace is not None else None, self._workspace[0][0] if self._workspace else None)

    @staticmethod
    def plan(root: str | os.PathLike[str]) -> tuple[list[str], list[Diagnostic], WorkspaceConfig]:
        """What ``Graph.open(root)`` would index (paths), what it would skip, and the config used."""
        root = os.path.abspath(Graph._roots(root)[0])
        config = load_config(root)
        graph = Graph(core=False)
        entries, problems = graph._collect([root], config, root)
        load_paths = [p for p in config.load_paths if os.path.exists(p) and p != root]
        if load_paths:
            extra, more = graph._collect(load_paths, msgspec.structs.replace(config, include=()), root)
            entries += extra
            problems += more
        return [e.path for e in entries], problems, config

    def index_source(self, uri: str | os.PathLike[str], source: str | bytes) -> list[Diagnostic]:
        """Index (or re-index) one document from text; ``uri`` may be a URI or a path."""
        if not isinstance(uri, (str, os.PathLike)):
            raise InvalidArgumentError(f"uri must be a string, got {uri!r}")
        uri = os.fspath(uri)
        if not uri:
            raise InvalidArgumentError("uri is empty; pass a file path or a URI such as 'file:///x.rb'")
        if isinstance(source, str):
            try:
                data = source.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise EncodingFailureError(f"source for {uri!r} is not valid Unicode text: {exc.reason}") from None
        elif isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
        else:
            raise InvalidArgumentError(f"source must be str or bytes, got {type(source).__name__}")
        path: str | None
        if "://" in uri:
            path = uri_to_path(uri)
        else:
            path = uri
            uri = path_to_uri(uri)
        result = discover_source(uri, data, path)
        result.content_hash = content_hash(data)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            from rdx.model.records import Diagnostic as RawDiagnostic

            result.diagnostics.insert(0, RawDiagnostic("invalid-utf8", f"invalid UTF-8 at byte {exc.start}", exc.start, exc.start + 1, "warning"))
        self._store.put_document(result)
        # Kept for completion, which needs the text before the cursor of unsaved buffers.
        self._sources[uri] = data
        self._text.buffer(path, data)
        return [self._file_diagnostic(result, d) for d in result.diagnostics if d.severity == "error"]

    def delete_document(self, uri: str | os.PathLike[str]) -> bool:
        """Forget a document; returns False when it was not indexed."""
        if not isinstance(uri, (str, os.PathLike)):
            raise InvalidArgumentError(f"delete_document expects a URI or path, got {uri!r}")
        uri = os.fspath(uri)
        if "://" not in uri:
            uri = path_to_uri(uri)
        self._sources.pop(uri, None)
        self._text.forget(uri_to_path(uri))
        return self._store.remove_document(uri)

    def resolve(self) -> None:
        """Resolve names, ancestors and references for everything indexed so far.

        After edits that only change code inside method bodies (the same definitions, nesting,
        mixins and visibility), only the edited documents' references are resolved again.
        After edits that change only members (methods, attributes, aliases, variables, method
        visibility), or add or remove namespaces and constants nothing else depends on, only
        what they touch is redone. Anything else resolves from scratch. Either way the answers
        are the same; should an incremental update fail unexpectedly, the graph resolves from
        scratch and says so in an ``internal-error`` diagnostic."""
        store = self._store
        if self._view is not None and not store.is_stale:
            self.last_resolve = "none"
            return  # Nothing changed since the last resolve (or the restored one).
        # Rails: db/schema.rb columns become methods of the models that own the tables; the
        # joined schema documents are stored like edits (rdx.railsschema, issue 14).
        apply_schema(store)
        changed = store.replaced | store.added | store.removed
        if self._view is not None and self._resolver is not None and store.resolved is not None:
            with paused_gc():
                state = self._update(self._resolver)
                if state is not None:
                    store.mark_resolved(state)
                    # A replaced view that holds big query indexes (search, call sites) is kept
                    # until ``prepare_queries`` (idle time) or the next such view: freeing them
                    # here would cost an edit a second on a large project.
                    old = self._view
                    if old is not None and old.has_indexes:
                        self._retired = old
                    self._view = self._publish(state, old.foreign_ready if old is not None else None, changed)
                    if old is not None and old.symbol_index is not None:
                        # Carried over: only the declarations of the edited documents change.
                        self._view.symbol_index = old.symbol_index.advance(state, self._view.foreign.state)
                        old.symbol_index = None
                    self.last_resolve = "incremental"
                    # The new tables (copies of the old ones) are long-lived too: out of the
                    # young generations before the collector is back on (see ``_settle``).
                    _settle(self._freeze_gc)
                    return
        self.last_resolve = "full"
        if self._view is None:
            self.last_fallback = None
        order = LoadOrder(store.documents.values())
        resolver = Resolver(keyed(order.ordered))
        resolver._order = order
        with paused_gc():
            state = resolver.run()
            store.mark_resolved(state)
            self._resolver = resolver
            previous = self._view
            self._view = self._publish(state, previous.foreign_ready if previous is not None else None, changed if previous is not None else None)
            self._save_resolved(resolver)
            _settle(self._freeze_gc)  # Before the collector is back on (see ``Graph.open``).

    def _publish(self, state: ResolvedState, foreign: ForeignState | None, changed: set[str] | None) -> View:
        """The view of a new revision; its other languages are resolved when first asked,
        from ``foreign`` (the previous revision's, if computed) and the ``changed`` URIs."""
        view = View(state, self._store.revision)
        view.foreign_source = self._foreign.source(state.documents, foreign, changed)
        return view

    def _update(self, resolver: Resolver) -> ResolvedState | None:
        """Apply the documents replaced, removed and added since the last resolve to the
        resolver, one at a time, each giving a new state; None when one of them needs a full
        resolve (or fails unexpectedly, which is reported as an ``internal-error``)."""
        store = self._store
        state: ResolvedState | None = None
        requires_changed = any(
            store.documents[uri].requires != resolver.docs[key].requires
            for uri in store.replaced
            if (key := resolver.key_of(uri)) is not None
        )
        keys: dict[str, int] = {}
        if store.added or store.removed or requires_changed:
            added = [store.documents[uri] for uri in sorted(store.added)]
            quick = None if requires_changed else resolver.place_documents(added, sorted(store.removed))
            if quick is None:
                # Compute the whole load order again; the other documents must keep theirs.
                current = {k: d for k, d in resolver.docs.items() if d.uri not in store.removed}
                quick, resolver._order = place(current, store.documents.values())
            if quick is None:
                self.last_fallback = "the load order of the other files changes"
                return None
            keys = quick
        steps = [("replace", uri) for uri in sorted(store.replaced)]
        steps += [("remove", uri) for uri in sorted(store.removed)] + [("add", uri) for uri in sorted(store.added)]
        for step, uri in steps:
            try:
                if step == "remove":
                    state = resolver.remove_document(uri)
                elif step == "add":
                    state = resolver.add_document(keys[uri], store.documents[uri])
                else:
                    doc = store.documents[uri]
                    # Requires that changed were checked above (``place``): the load order stays.
                    state = resolver.refresh_document(doc) or resolver.refresh_members(doc, order_checked=True)
            except Exception as exc:  # A bug must cost time, never a wrong or lost graph.
                self._walk_problems.append(
                    Diagnostic("internal-error", f"the incremental update of {uri} failed ({exc!r}); resolved from scratch", "warning", uri)
                )
                state = None
            if state is None:
                self.last_fallback = f"{step} {uri}: {resolver.fallback or 'not incremental'}"
                self._resolver = None  # Spent: the full resolve starts a new one.
                return None
        return state

    # -- questions -----------------------------------------------------------------------

    @property
    def revision(self) -> int:
        """Increases with every change; compare it to tell whether earlier answers are stale."""
        return self._store.revision

    def _ready(self) -> View:
        if self._view is None or self._store.is_stale:
            self.resolve()
        assert self._view is not None
        return self._view

    @property
    def _state(self) -> ResolvedState:
        return self._ready().state

    def get(self, name: str) -> Declaration | None:
        if not isinstance(name, str):
            raise InvalidArgumentError(f"declaration names are strings, got {name!r}")
        view = self._ready()
        decl_id = view.state.by_name.get(name)
        if decl_id is None and name.startswith("::"):
            decl_id = view.state.by_name.get(name[2:])
        if decl_id is None:
            # Another language's declaration (``pkg.mod.Class``, ``http.Client.Do``), when the
            # name is declared in one place only: see ``declarations_named`` for the others.
            named = view.foreign.named(name)
            return named[0] if len(named) == 1 else None
        return view.declaration(decl_id)

    def declarations_named(self, name: str) -> list[Declaration]:
        """Every declaration with this exact name: Ruby's (one at most), then other languages',
        which may declare one name in several units (two JavaScript files, two Go packages)."""
        if not isinstance(name, str):
            raise InvalidArgumentError(f"declaration names are strings, got {name!r}")
        view = self._ready()
        ruby = view.declaration(view.state.by_name.get(name))
        return ([ruby] if ruby is not None else []) + list(view.foreign.named(name))

    def __getitem__(self, name: str) -> Declaration:
        decl = self.get(name)
        if decl is None:
            raise NotFoundError(f"no declaration named {name!r}; try Graph.search({name!r}) for similar names")
        return decl

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def resolve_constant(self, name: str, nesting: Sequence[str] = ()) -> Declaration | None:
        """What constant ``name`` written inside ``nesting`` (outermost first, as written) names."""
        path = _parse_path(name)
        if isinstance(nesting, str) or not all(isinstance(n, str) for n in nesting):
            raise InvalidArgumentError(f"nesting must be a list of constant paths, got {nesting!r}")
        view = self._ready()
        resolver = view.lookup
        site: tuple[int, ...] = ()
        for text in nesting:
            scope = _parse_path(text)
            if len(scope.segments) == 1 and not scope.absolute:
                owner = site[0] if site else view.state.object_id
                ns = resolver.follow(resolver._member_constant(owner, scope.segments[0]))
            else:
                ns = resolver.lookup_namespace(scope, site)
            if ns is None or not view.state.declarations[ns].is_namespace:
                return None
            site = (ns,) + site
        return view.declaration(resolver.lookup_path(path, site))

    def prepare_queries(self) -> None:
        """Resolve if needed and build the indexes that the first search, descendants and
        method-reference questions of this revision would otherwise build on demand. For
        servers, which can do it while idle so that no caller waits. Also builds what the next
        incremental update reads (descendant, mention and reference indexes, load order)."""
        view = self._ready()
        self._retired = None
        if self._resolver is not None:
            with paused_gc():
                self._resolver.prepare_updates()
        if view.search_index is None:
            view.search_index = SearchIndex(view.state.declarations.values())
        view.search_index.prepare()
        symbol_index(view, (self._workspace[1], lambda: _fingerprint(view.state.documents.values())) if self._workspace else None)
        view.descendants()
        view.call_sites("")

    def search(
        self,
        query: str,
        *,
        kind: str | None = None,
        match_mode: str = "ranked",
        limit: int | None = None,
        path: str | None = None,
        language: str | None = None,
        dependencies: bool = True,
    ) -> list[Declaration]:
        """Declarations for ``query``, best first.

        ``match_mode="ranked"`` (the default) takes intent-style queries ("format number as
        currency"): BM25 over names split into words, doc comments, namespaces and paths, with
        exact and prefix name matches first (see rdx.query.ranked); ``AND``/``OR``/``NOT``
        (or ``-word``) and ``prefix*`` work; one name-like word (``find_by``, the abbreviation
        ``ActRec``) matches names first. ``"exact"``, ``"prefix"`` and ``"fuzzy"`` match names
        only. ``kind``, ``path`` (a substring of the defining file's path) and ``language``
        (``ruby``, ``python``, ``go``...) filter; ranked search covers every language and
        returns at most 100 by default; name matching covers Ruby. The project's gems
        (``Graph.open`` indexes what Gemfile.lock locks) rank below its own code;
        ``dependencies=False`` leaves them out."""
        view = self._ready()
        saved = None
        if self._workspace is not None:
            cache = self._workspace[1]
            saved = (cache, lambda: _fingerprint(view.state.documents.values()))
        found = find_declarations(
            view, query, kind=kind, match_mode=match_mode, limit=limit, path=path, saved=saved, language=language, dependencies=dependencies
        )
        foreign = view.foreign if match_mode == "ranked" else None
        return [Declaration(view, did) if foreign is None or did in view.state.declarations else ForeignDeclarationHandle(foreign, did) for did in found]

    def _roots_list(self) -> list[str]:
        """The project's roots: those ``Graph.open`` was given, else those indexed."""
        if self._workspace is not None:
            return list(self._workspace[0])
        return list(self._foreign.roots)

    def _grep_root(self) -> str | None:
        return self._workspace[0][0] if self._workspace is not None else None

    @property
    def declarations(self) -> list[Declaration]:
        """Every declaration: Ruby's, then those of other languages."""
        view = self._ready()
        foreign = view.foreign
        return [Declaration(view, d) for d in view.state.declarations] + [ForeignDeclarationHandle(foreign, d) for d in foreign.state.declarations]

    @property
    def documents(self) -> list[Document]:
        view = self._ready()
        return [Document(view, key) for key in view.state.documents]

    def document(self, uri_or_path: str) -> Document | None:
        if not isinstance(uri_or_path, (str, os.PathLike)):
            raise InvalidArgumentError(f"document expects a URI or path, got {uri_or_path!r}")
        uri_or_path = os.fspath(uri_or_path)
        uri = uri_or_path if "://" in uri_or_path else path_to_uri(uri_or_path)
        view = self._ready()
        for i, d in view.state.documents.items():
            if d.uri == uri:
                return Document(view, i)
        return None

    @property
    def constant_references(self) -> list[ConstantReference]:
        return list(iter_constant_references(self._ready()))

    @property
    def method_references(self) -> list[MethodReference]:
        return list(iter_method_references(self._ready()))

    def _file_diagnostic(self, result: FileResult, d) -> Diagnostic:  # type: ignore[no-untyped-def]
        location = None
        # A zero-width diagnostic (tree-sitter's MISSING node) has a place too: only 0-0 means
        # the whole file.
        if (d.end > d.start or d.start > 0) and result.line_starts:
            from rdx.query.handles import Location
            from rdx.text import offset_to_position

            sl, sc = offset_to_position(result.line_starts, d.start)
            el, ec = offset_to_position(result.line_starts, d.end)
            location = Location(result.path or result.uri, sl, sc, el, ec, result.uri)
        return Diagnostic(d.code, d.message, d.severity, result.path or result.uri, location)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every problem of the project: unreadable files, syntax errors, what resolution could
        not resolve, and gems that could not be indexed. A dependency's own problems are not the
        project's: ``diagnostics_of`` a dependency's file lists them."""
        view = self._ready()
        out = list(self._walk_problems)
        documents = view.state.documents
        for result in documents.values():
            if result.library is None:
                out += [self._file_diagnostic(result, d) for d in result.diagnostics]
        out += [self._resolution_diagnostic(view, diag) for diag in view.state.diagnostics if documents[diag.doc].library is None]
        return out

    def diagnostics_of(self, uri_or_path: str) -> list[Diagnostic]:
        """``diagnostics`` of one document only (what an editor shows for an open file),
        without building every other document's."""
        if not isinstance(uri_or_path, (str, os.PathLike)):
            raise InvalidArgumentError(f"diagnostics_of expects a URI or path, got {uri_or_path!r}")
        uri_or_path = os.fspath(uri_or_path)
        uri = uri_or_path if "://" in uri_or_path else path_to_uri(uri_or_path)
        view = self._ready()
        key = next((k for k, d in view.state.documents.items() if d.uri == uri), None)
        path = uri_to_path(uri)
        out = [p for p in self._walk_problems if p.path == path]
        if key is None:
            return out
        result = view.state.documents[key]
        out += [self._file_diagnostic(result, d) for d in result.diagnostics]
        out += [self._resolution_diagnostic(view, diag) for diag in view.state.diagnostics if diag.doc == key]
        return out

    @staticmethod
    def _resolution_diagnostic(view: View, diag: ResolutionDiagnostic) -> Diagnostic:
        result = view.state.documents[diag.doc]
        return Diagnostic(diag.code, diag.message, diag.severity, result.path or result.uri, view.location(diag.doc, diag.start, diag.end))

    @staticmethod
    def _language_stats(view: View) -> dict[str, dict[str, int]]:
        foreign = view.foreign.state
        out: dict[str, dict[str, int]] = {}
        for uri, doc in foreign.files.items():
            entry = out.setdefault(doc.language, {"documents": 0, "declarations": 0, "references": 0, "references_resolved": 0, "imports": 0, "imports_resolved": 0})
            entry["documents"] += 1
            entry["references"] += len(doc.references)
            entry["references_resolved"] += sum(1 for t in foreign.reference_targets.get(uri, ()) if t is not None)
            entry["imports"] += len(doc.imports)
            entry["imports_resolved"] += sum(1 for t in foreign.import_targets.get(uri, ()) if t)
        for decl in foreign.declarations.values():
            out[decl.language]["declarations"] += 1
        return dict(sorted(out.items()))

    def repo_map(self, max_tokens: int = 2048, focus: Iterable[str] | str | None = None, detail: str = "auto") -> RepoMap:
        """A map of the repository for an LLM: the declarations that matter most (PageRank over
        resolved references, personalized toward ``focus``: file paths an agent is editing or
        declaration names it mentioned), in the compact format, within ``max_tokens``
        (cl100k_base tokens, a hard ceiling). ``detail``: ``"symbols"``, ``"files"`` (one line
        per file, for very small budgets) or ``"auto"`` (files below 384 tokens)."""
        return build_repo_map(self, self._ready(), max_tokens, focus, detail)

    def stats(self) -> dict[str, object]:
        """Counts of documents, definitions, declarations (by kind), references, diagnostics."""
        view = self._ready()
        state = view.state
        kinds: dict[str, int] = {}
        for rec in state.declarations.values():
            kinds[rec.kind] = kinds.get(rec.kind, 0) + 1
        docs = [d for d in state.documents.values() if d.uri != CORE_URI]
        text = self._text.counts()
        resolved_consts = sum(1 for key, targets in state.constant_targets.items() if key != 0 for t in targets if t is not None)
        total_consts = sum(len(d.const_refs) for d in docs)
        return {
            "revision": self.revision,
            "documents": len(docs),
            "bytes": sum(d.size for d in docs),
            "definitions": sum(len(d.definitions) for d in docs),
            "declarations": len(state.declarations),
            "declarations_by_kind": dict(sorted(kinds.items())),
            "constant_references": total_consts,
            "constant_references_resolved": resolved_consts if state.documents and state.documents.get(0) is not None and state.documents[0].uri == CORE_URI else None,
            "method_references": sum(len(d.method_refs) for d in docs),
            "diagnostics": len(self.diagnostics),
            # Other languages than Ruby: documents, declarations, references and how many resolved.
            "languages": self._language_stats(view),
            # Every text file, for grep (None until a graph not opened from a cache greps).
            "text_files": None if text is None else text[0],
            "text_bytes": None if text is None else text[1],
            # The project's gems (``Graph.open``): how many, and how many of the documents are theirs.
            "dependencies": len({d.library for d in docs if d.library is not None}),
            "dependency_documents": sum(1 for d in docs if d.library is not None),
        }
