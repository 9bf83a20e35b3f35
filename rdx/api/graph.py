"""The public Graph façade: index files, resolve, and ask questions.

This module ties the phases together: discovery (the walk and worker pool of ``rdx.workspace``
running ``rdx.ruby.discover`` and ``rdx.languages``) fills the store with per-file results,
resolution (``rdx.ruby.resolve``) turns them into declarations, and the query layers
(``rdx.ruby.query``, ``rdx.languages``, ``rdx.search``, ``rdx.map``) answer questions. Queries on a graph changed since the last
``resolve()`` resolve first, so answers are never stale.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

from rdx.api.editing import Use, uses_in
from rdx.api.mapping import build_repo_map
from rdx.api.navigating import Navigable
from rdx.api.other_languages import ForeignSide
from rdx.api.persisting import Persistent, check_jobs, core_base, core_document, documents_fingerprint, settle
from rdx.api.reporting import Reporting
from rdx.api.searching import find_declarations, foreign_suggestions, suggest, symbol_index
from rdx.languages.view import ForeignDeclarationHandle, ForeignView
from rdx.map.repomap import RepoMap
from rdx.model.errors import EncodingFailureError, InvalidArgumentError, IOFailureError, NotFoundError, excerpt
from rdx.model.foreign import ForeignState
from rdx.model.public import Diagnostic
from rdx.model.records import ConstPath, FileResult
from rdx.model.store import CORE_URI, GraphStore, ResolvedState, stored_entries
from rdx.model.versions import KeyOrdered
from rdx.ruby.query.documents import ConstantReference, Document, MethodReference, iter_constant_references, iter_method_references
from rdx.ruby.query.handles import Declaration, View
from rdx.ruby.resolve.base import MAX_BASE_DOCUMENTS
from rdx.ruby.resolve.driver import Resolver
from rdx.ruby.resolve.order import BundledGem, LoadOrder, keyed
from rdx.search.names import SearchIndex
from rdx.search.text_workspace import ProjectText
from rdx.search.textsearch import Greppable
from rdx.workspace.config import WorkspaceConfig
from rdx.workspace.files import (
    FileEntry,
    ProjectRoots,
    WalkResult,
    collect_files,
    content_hash,
    is_source_file,
    path_to_uri,
    read_regular,
    uri_to_path,
)
from rdx.workspace.gems import read_gemfile
from rdx.workspace.pool import discover_files, discover_source, paused_gc

__all__ = ["Graph"]


def _parse_path(text: str) -> ConstPath:
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgumentError(f"constant name {text!r} is empty or not a string; pass a name like 'Foo::Bar'")
    absolute = text.startswith("::")
    segments = tuple(text[2:].split("::") if absolute else text.split("::"))
    if any(not s or not (s[0].isupper() or not s[0].isascii()) for s in segments):
        raise InvalidArgumentError(f"{text!r} is not a constant path; constant names start with an uppercase letter")
    return ConstPath(segments, absolute, 0, 0)


class Graph(Persistent, Reporting, Greppable, Navigable):
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
        # Every text file's content, for ``grep`` (see rdx.search.text_workspace).
        self._text = ProjectText()
        # Other languages: the layout their imports resolve against (see rdx.api.other_languages).
        self._foreign = ForeignSide()
        # What the last ``Graph.open`` reused from the snapshot and what it parsed again.
        self.open_stats: dict[str, object] = {}
        self.config = WorkspaceConfig()
        # (roots, cache directory) of a graph made by ``Graph.open``.
        self._workspace: tuple[list[str], str] | None = None
        # The project Gemfile's (mtime, size) and gems, as last read (``_bundle``).
        self._gemfile: tuple[tuple[int, int], list[BundledGem]] | None = None
        # Fingerprint of the documents whose resolved graph was last saved or restored.
        self._saved_fingerprint: str | None = None
        # A graph that started from the saved resolved graph, until it needs its resolver
        # (see ``Persistent._writer``).
        self._restorable = None
        self._freeze_gc = False
        # How the last ``resolve()`` went: "none" (nothing to do), "incremental" or "full";
        # for a full one after edits, why the incremental update gave up.
        self.last_resolve = "none"
        self.last_fallback: str | None = None
        # Where the last full resolve started: "core" (Ruby core resolved alone, see
        # ``resolve``) or "scratch"; None before the first. For a small project that started
        # from scratch, why it could not start from core.
        self.last_start: str | None = None
        self.last_start_why: str | None = None
        # Files Ruby loads first, in order (paths or URIs): the load order walks their requires
        # before any other file's. Set it before resolving; ``Graph.open`` reads ``rdx.toml``.
        self.entry_points: list[str] = []
        if core:
            self._store.put_document(core_document())

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
        check_jobs(jobs)
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
        return self._gather(self._walk(self._roots(paths), config, config_root, select))

    @staticmethod
    def _walk(roots: list[str], config: WorkspaceConfig | None, config_root: str | None, select: Callable[[str], bool]) -> list[WalkResult]:
        """The walks of ``roots``, one per root. Reads the disk only, changes nothing: a thread
        may run it while the caller does other work (``Graph.open``)."""
        # Every root walked here is one of the project's: a link from one into another is left
        # to the other's walk rather than reported as leading out of the project.
        project = ProjectRoots.of(roots + ([config_root] if config_root else []), config)
        return [collect_files(root, config, config_root, select, project) for root in roots]

    def _gather(self, walks: list[WalkResult]) -> tuple[list[FileEntry], list[Diagnostic]]:
        """The files of ``walks`` (deduplicated) and their problems, each reported once."""
        entries: list[FileEntry] = []
        problems: list[Diagnostic] = []
        seen: set[str] = set()
        for walk in walks:
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

    def resolve(self, *, from_scratch: bool = False) -> None:
        """Resolve names, ancestors and references for everything indexed so far.

        After edits that only change code inside method bodies (the same definitions, nesting,
        mixins and visibility), only the edited documents' references are resolved again.
        After edits that change only members (methods, attributes, aliases, variables, method
        visibility), or add or remove namespaces and constants nothing else depends on, only
        what they touch is redone. Anything else resolves from scratch. Either way the answers
        are the same; should an incremental update fail unexpectedly, the graph resolves from
        scratch and says so in an ``internal-error`` diagnostic.

        A full resolve of a project of a few files starts from Ruby core resolved alone and
        adds the project's documents to it (``rdx.ruby.resolve.base``; ``last_start`` says
        "core", else "scratch"): the same answers, without resolving core again.
        ``from_scratch=True`` resolves everything from nothing (what the incremental tests
        compare with), as does ``RDX_CORE_BASE=0`` in the environment."""
        store = self._store
        if self._view is not None and not store.is_stale:
            self.last_resolve = "none"
            return  # Nothing changed since the last resolve (or the restored one).
        # Rails: db/schema.rb columns become methods of the models that own the tables; the
        # joined schema documents are stored like edits (rdx.rails.schema, issue 14).
        self._join_schema()
        changed = store.replaced | store.added | store.removed
        resolver = self._writer() if self._view is not None else None
        if self._view is not None and resolver is not None and store.resolved is not None:
            with paused_gc():
                # The documents' keys before the update (a removed one's goes with it): what the
                # carried-over search index indexes again.
                changed_keys = {k for uri in changed if (k := resolver.key_of(uri)) is not None}
                state = self._update(resolver)
                # Its state's tables now read through the journals of the shared ones.
                self._view.unbind()
                if state is not None:
                    changed_keys.update(k for uri in changed if (k := resolver.key_of(uri)) is not None)
                    store.mark_resolved(state)
                    # A replaced view that holds big query indexes (search, call sites) is kept
                    # until ``prepare_queries`` (idle time) or the next such view: freeing them
                    # here would cost an edit a second on a large project.
                    old = self._view
                    # Only a view with indexes of its own is kept: the views of a typing burst
                    # (whose symbol index moves on) are freed at once, cheaply, and the prepared
                    # one, whose indexes cost a fifth of a second to free, waits for idle time.
                    if old is not None and old.has_own_indexes:
                        if self._retired is not None:
                            self._retired.retire()
                        self._retired = old
                    self._view = self._publish(state, old.foreign_ready if old is not None else None, changed)
                    if old is not None and old.symbol_index is not None:
                        # Carried over: only the declarations of the edited documents change.
                        self._view.symbol_index = old.symbol_index.advance(state, self._view.foreign.state, changed_keys)
                        old.symbol_index = None
                    if old is not None and old is not self._retired:
                        old.retire()
                    self.last_resolve = "incremental"
                    self.last_fallback = None
                    # The new tables (copies of the old ones) are long-lived too: out of the
                    # young generations before the collector is back on (see ``_settle``).
                    settle(self._freeze_gc)
                    return
        self.last_resolve = "full"
        if self._view is None:
            self.last_fallback = None
        roots = self._root_order()
        with paused_gc():
            based = None if from_scratch else self._resolve_on_core(roots)
            self.last_start_why = based if isinstance(based, str) else None
            if based is not None and not isinstance(based, str):
                resolver, state = based
                self.last_start = "core"
            else:
                order = LoadOrder(store.documents.values(), *roots)
                resolver = Resolver(keyed(order.ordered))
                resolver.use_order(order)
                state = resolver.run()
                self.last_start = "scratch"
            store.mark_resolved(state)
            self._resolver = resolver
            previous = self._view
            self._view = self._publish(state, previous.foreign_ready if previous is not None else None, changed if previous is not None else None)
            if previous is not None and previous is not self._retired:
                previous.retire()
            self._save_resolved(resolver)
            settle(self._freeze_gc)  # Before the collector is back on (see ``Graph.open``).

    def _resolve_on_core(self, roots: tuple[list[str], list[str], list[BundledGem]]) -> tuple[Resolver, ResolvedState] | str | None:
        """The resolver and state of a full resolve that starts from Ruby core resolved alone
        (``rdx.ruby.resolve.base``), for a project of at most ``MAX_BASE_DOCUMENTS`` Ruby
        documents besides core; None when it does not apply; why not when an addition needs a
        full resolve or it fails (which is reported, as a failed incremental update is)."""
        documents = self._store.documents
        if not 1 < len(documents) <= MAX_BASE_DOCUMENTS + 1:
            return None
        core = documents.get(CORE_URI)
        base = core_base(core) if core is not None else None
        if base is None:
            return None
        try:
            return base.resolve_on(documents.values(), *roots)
        except Exception as exc:  # A bug must cost time, never a wrong or lost graph.
            self._walk_problems.append(Diagnostic("internal-error", f"resolving on the resolved core failed ({exc!r}); resolved from scratch", "warning", CORE_URI))
            return f"failed: {exc!r}"

    def _root_order(self) -> tuple[list[str], list[str], list[BundledGem]]:
        """The project's entry points (URIs, in the order Ruby loads them), the URI prefixes
        of what loads last (its spec/ and test/ directories) and the gems of its ``Gemfile``
        in order (what a ``Bundler.require`` loads): see ``rdx.ruby.resolve.order``.
        Entry points come from ``rdx.toml`` (``entry_points``); without them, a Rails
        application's ``config/application.rb`` and a gem's ``lib/NAME.rb`` (for its
        ``NAME.gemspec``) are."""
        if self._workspace is None:
            return list(self.entry_points), [], []
        root = self._workspace[0][0]
        entries = list(self.entry_points) or [p for p in self.config.entry_points if os.path.isfile(p)]
        if not entries:
            application = os.path.join(root, "config", "application.rb")
            entries = [application] if os.path.isfile(application) else []
            try:
                gemspecs = sorted(n for n in os.listdir(root) if n.endswith(".gemspec"))
            except OSError:
                gemspecs = []
            entries += [main for n in gemspecs if os.path.isfile(main := os.path.join(root, "lib", n.removesuffix(".gemspec") + ".rb"))]
        late = [path_to_uri(os.path.join(root, d)) + "/" for d in ("spec", "test", "tests")]
        return [path_to_uri(e) if "://" not in e else e for e in entries], late, self._bundle(root)

    def _bundle(self, root: str) -> list[BundledGem]:
        """The gems of ``root/Gemfile`` in order (``read_gemfile``), read again only when the
        file changed; none without one."""
        gemfile = os.path.join(root, "Gemfile")
        try:
            st = os.stat(gemfile)
            stamp = (st.st_mtime_ns, st.st_size)
            if self._gemfile is not None and self._gemfile[0] == stamp:
                return self._gemfile[1]
            with open(gemfile, "rb") as f:
                source = f.read(1 << 20)
        except OSError:
            return []
        gems = read_gemfile(source)
        self._gemfile = (stamp, gems)
        return gems

    def _publish(self, state: ResolvedState, foreign: ForeignState | None, changed: set[str] | None) -> View:
        """The view of a new revision; its other languages are resolved when first asked,
        from ``foreign`` (the previous revision's, if computed) and the ``changed`` URIs."""
        if isinstance(state.documents, KeyOrdered):
            state.documents.settle()  # Published states are only read: reads never reorder it.
        view = View(state, self._store.revision)
        languages = None
        if changed is not None:
            # Read by URI: the changed documents only, not every document of the state.
            documents = self._store.documents
            languages = {doc.language for uri in changed if (doc := documents.get(uri)) is not None}
        view.foreign_source = self._foreign.source(state.documents, foreign, changed, languages)
        view.foreign_view = ForeignView
        return view

    def _update(self, resolver: Resolver) -> ResolvedState | None:
        """Apply the documents replaced, removed and added since the last resolve to the
        resolver, one at a time, each giving a new state; None when one of them needs a full
        resolve (or fails unexpectedly, which is reported as an ``internal-error``)."""
        store = self._store
        state: ResolvedState | None = None
        keys: dict[str, int] = {}
        moved: set[str] = set()
        walk_anew = False

        def reorders(uri: str) -> bool:
            """Whether the new version of ``uri`` may move documents: its requires or the
            autoloads its references reach changed (offsets included)."""
            key = resolver.key_of(uri)
            if key is None:
                return False
            doc, before = store.documents[uri], resolver.docs[key]
            return doc.requires != before.requires or resolver.autoload_reach(doc) != resolver.autoload_reach(before)

        def in_place(versions: list[FileResult]) -> bool:
            """Take each new version into the load order in place (``replace_in_order``);
            False when the order must be walked anew: one it cannot take, or a second one
            that moves documents."""
            nonlocal keys, moved
            for doc in versions:
                placed = resolver.replace_in_order(doc)
                if placed is None or (placed[1] and moved):
                    resolver.use_order(None)  # Walked anew from the documents resolved now.
                    return False
                if placed[1]:
                    keys, moved = placed
            return True

        if store.added or store.removed:
            walk_anew = any(reorders(uri) for uri in store.replaced)
            if not walk_anew and not store.added:
                # A deleted document that requires files (or may autoload some) is first
                # emptied in the load order, as an edit would: what it pulled in moves, and
                # then it goes like any other.
                gone = [resolver.docs[key] for uri in sorted(store.removed) if (key := resolver.key_of(uri)) is not None]
                walk_anew = not in_place([FileResult(uri=d.uri, path=d.path) for d in gone if d.requires or resolver.autoload_reach(d)])
                moved -= store.removed  # (It goes; it does not come back.)
            quick = None if walk_anew else resolver.place_documents([store.documents[uri] for uri in sorted(store.added)], sorted(store.removed))
            walk_anew = quick is None
            keys = {**keys, **(quick or {})}
        else:
            # An edited document's requires may move others in load order (without a change
            # the order keeps the version it read).
            walk_anew = not in_place([store.documents[uri] for uri in sorted(u for u in store.replaced if reorders(u))])
        if walk_anew:
            # Walk the whole load order again: documents whose place or walk changes go and
            # come back at their new keys (``moving_keys``).
            current = {k: d for k, d in resolver.docs.items() if d.uri not in store.removed}
            placed = resolver.reorder(current, LoadOrder(store.documents.values(), *self._root_order()))
            if placed is None:
                self.last_fallback = "no key is free between two documents of the new load order"
                return None
            keys, moved = placed
        steps = [("replace", uri) for uri in sorted(store.replaced) if uri not in moved]
        steps += [("remove", uri) for uri in sorted(store.removed | moved)] + [("add", uri) for uri in sorted(store.added | moved)]
        for step, uri in steps:
            try:
                if step == "remove":
                    state = resolver.remove_document(uri)
                elif step == "add":
                    state = resolver.add_document(keys[uri], store.documents[uri])
                else:
                    doc = store.documents[uri]
                    # Requires that changed were checked above (``reorder``): the load order stays.
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
            raise NotFoundError(f"no declaration named {excerpt(name)}; Graph.suggest({excerpt(name)}) lists the nearest names")
        return decl

    def suggest(self, name: str, limit: int = 5, nesting: Sequence[str] = ()) -> list[str]:
        """Names of the declarations ``name`` may have meant (it names none, or not the one
        wanted), nearest first: typos of one or two edits (transpositions included) of its last
        segment, ranked by their distance to the whole name (``Spree::Oder`` ->
        ``Spree::Order``), then fuzzy name matches of the last segment. A constant written
        inside ``nesting`` (outermost first, as ``resolve_constant`` takes it) is looked for
        under the innermost namespace first. A name that is not Ruby-qualified (no ``::`` or
        ``#``) also gets other languages' names a typo away: first when it is dotted
        (``pkg.mod.Clas``), with its last part's ranked matches, else after Ruby's typos. What
        every surface (the command line, MCP, HTTP) offers as "did you mean"."""
        view = self._ready()
        if isinstance(nesting, str) or not all(isinstance(n, str) for n in nesting):
            raise InvalidArgumentError(f"nesting must be a list of constant paths, got {nesting!r}")
        found: list[str] = []
        if nesting and isinstance(name, str) and not name.startswith("::"):
            scope = "::".join(n.strip(":") for n in nesting if n.strip(":"))
            found = suggest(view, f"{scope}::{name}", limit) if scope else []
        if isinstance(name, str) and ("::" in name or "#" in name):
            return (found + [n for n in suggest(view, name, limit) if n not in found])[:limit]
        typos = suggest(view, name, limit, fill=False)
        rest = [n for n in suggest(view, name, limit) if n not in typos]
        foreign = foreign_suggestions(view.foreign.state.by_name, name, limit)
        if "." in name and name.strip(". "):
            # Another language's name: its last part ranked over every language comes next.
            last = name.strip(". ").rsplit(".", 1)[-1]
            try:
                near = [d.name for d in self.search(last, limit=limit * 2)] if last.strip() and len(foreign) < limit else []
            except InvalidArgumentError:
                near = []
            ordered = foreign + typos + near + rest
        else:
            ordered = typos + foreign + rest
        for n in ordered:
            if n not in found:
                found.append(n)
        return found[:limit]

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
                ns = resolver.follow(resolver.member_constant(owner, scope.segments[0]))
            else:
                ns = resolver.lookup_namespace(scope, site)
            if ns is None or not view.state.declarations[ns].is_namespace:
                return None
            site = (ns,) + site
        return view.declaration(resolver.lookup_path(path, site))

    def prepare_queries(self) -> None:
        """Resolve if needed and build the indexes that the first search, descendants and
        method-reference questions of this revision would otherwise build on demand, and
        opens the text index a warm open left for the first grep. For servers, which can do
        it while idle so that no caller waits. Also builds what the next incremental update
        reads (descendant, mention and reference indexes, load order)."""
        view = self._ready()
        if self._retired is not None:
            self._retired.retire()
            self._retired = None
        resolver = self._writer()
        if resolver is not None:
            with paused_gc():
                resolver.prepare_updates()
            state = resolver.binding.state
            if view.state is not state:
                # A warm open published the saved image's state; the resolver restored an
                # equal one of its own, whose big tables are now the kind updates share
                # (rdx.model.versions). The view answers from that one, so that the two
                # copies of every big table do not both stay.
                view.adopt(state)
                self._store.resolved = state
        if view.search_index is None:
            view.search_index = SearchIndex(view.state.declarations.values())
        view.search_index.prepare()
        symbol_index(view, (self._workspace[1], lambda: documents_fingerprint(stored_entries(view.state.documents), self._root_order()[0]), self._report_cache_problem) if self._workspace else None)
        view.descendants()
        view.call_sites("")
        self._text.prepare()  # The text index a warm open deferred (rdx.search.text_workspace).

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
        exact and prefix name matches first (see rdx.search.ranked); ``AND``/``OR``/``NOT``
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
            saved = (cache, lambda: documents_fingerprint(stored_entries(view.state.documents), self._root_order()[0]), self._report_cache_problem)
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

    def _project_roots(self) -> ProjectRoots | None:
        """The roots whose files are the project's (see ``ProjectRoots``): those ``Graph.open``
        was given and the configuration's load paths, else those ``index_all`` indexed; None
        for a graph of buffers only, which has no files of its own to protect."""
        if self._workspace is not None:
            return ProjectRoots.of(self._workspace[0], self.config)
        roots = self._foreign.roots
        return ProjectRoots.of(roots) if roots else None

    def read_project_file(self, path: str | os.PathLike[str]) -> bytes | None:
        """The bytes of a file rdx may read for its callers (an editor asking about a document
        it has not opened): a buffer given to ``index_source``, else a regular file whose real
        path is inside the project's roots, or a gem's document the graph indexed; read without
        ever blocking and within the size limit. None for anything else (``/dev/zero``, a FIFO,
        a file outside the project), which is never opened."""
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidArgumentError(f"read_project_file expects a path, got {path!r}")
        path = os.path.abspath(os.fspath(path))
        uri = path_to_uri(path)
        buffered = self._sources.get(uri)
        if buffered is not None:
            return buffered
        document = self._store.documents.get(uri)
        roots = self._project_roots()
        if document is not None and document.library is not None:
            allowed: tuple[str, ...] = ()  # A gem's directory is a root of its own, read-only.
        elif roots is not None and roots.holds(path):
            allowed = roots.real
        else:
            return None
        try:
            return read_regular(path, allowed)
        except OSError:
            return None

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
        key = view.document_key(uri)
        return None if key is None else Document(view, key)

    def uses_in(self, uri_or_path: str) -> list[Use]:
        """Every name rdx resolved (or could not) in one document, in source order: definitions'
        names, each segment of a constant path, calls (see ``rdx.api.editing``); what editors
        colour and annotate. Empty for a document the graph does not hold."""
        if not isinstance(uri_or_path, (str, os.PathLike)):
            raise InvalidArgumentError(f"uses_in expects a URI or path, got {uri_or_path!r}")
        uri_or_path = os.fspath(uri_or_path)
        return uses_in(self._ready(), uri_or_path if "://" in uri_or_path else path_to_uri(uri_or_path))

    @property
    def constant_references(self) -> list[ConstantReference]:
        return list(iter_constant_references(self._ready()))

    @property
    def method_references(self) -> list[MethodReference]:
        return list(iter_method_references(self._ready()))

    def repo_map(self, max_tokens: int = 2048, focus: Iterable[str] | str | None = None, detail: str = "auto") -> RepoMap:
        """A map of the repository for an LLM: the declarations that matter most (PageRank over
        resolved references, personalized toward ``focus``: file paths an agent is editing or
        declaration names it mentioned), in the compact format, within ``max_tokens``
        (cl100k_base tokens, a hard ceiling). ``detail``: ``"symbols"``, ``"files"`` (one line
        per file, for very small budgets) or ``"auto"`` (files below 384 tokens)."""
        return build_repo_map(self, self._ready(), max_tokens, focus, detail)
