"""Load order: the order in which resolution reads documents (core first, requires before requirers)."""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from fnmatch import fnmatchcase

from rdx.model.records import BUNDLER_REQUIRE, COMPUTED_PLACEHOLDER, COMPUTED_SPLAT, FileResult, Require, is_computed
from rdx.model.store import CORE_URI

# A Gemfile's gems in its order, as ``(name, requires, groups)`` (``rdx.workspace.gems.read_gemfile``):
# what a ``Bundler.require`` loads (``LoadOrder``).
BundledGem = tuple[str, tuple[str, ...] | None, tuple[str, ...]]

# Document keys are multiples of DOC_GAP in load order, so that a document added later can take
# a key between its neighbours: every comparison of (document, index) pairs stays a comparison
# of program positions, and no other document's key changes.
# Keys stay below MAX_KEY: ancestor chains time their entries as ``key << 32 | offset``, which
# must fit the 64-bit integers of the snapshot. 2**14 leaves room for 14 halvings between two
# neighbours (files added at one spot) and for 262,143 documents; beyond that the gap shrinks.
DOC_GAP = 1 << 14
MAX_KEY = (1 << 32) - 1


def keyed(ordered: Iterable[FileResult]) -> dict[int, FileResult]:
    """Documents in load order -> {document key: document}."""
    docs = list(ordered)
    gap = max(1, min(DOC_GAP, MAX_KEY // (len(docs) + 1)))
    return {i * gap: d for i, d in enumerate(docs)}


def load_order(
    documents: Iterable[FileResult], entries: Sequence[str] = (), late: Sequence[str] = (), bundle: Sequence[BundledGem] = ()
) -> list[FileResult]:
    """Documents in an approximation of Ruby's load order.

    Where definitions of one namespace are spread over files, Ruby's answers depend on the
    order the files were loaded (which superclass is seen first, which mixin lands last). rdx
    follows load-time ``require``/``require_relative`` edges (not those in method bodies):
    starting from each root document, a file's requirements come before it (requires sit at the
    top of files), except those written in a class or module body, which come right after it
    (``split_requires``). Roots are walked in this order: the core stub; the project's entry points
    (``entries``: URIs, in the order Ruby loads them, from ``rdx.toml``'s ``entry_points`` or
    inferred, see ``Graph``), so that what they require loads in their order; every other
    document in URI order; last those under the ``late`` URI prefixes (a project's specs and
    tests, which load after the code they test). A load-time ``Bundler.require`` (Rails'
    ``config/application.rb``) requires, where it is called, the main file of every gem of the
    project's Gemfile (``bundle``) in the groups it names, in Gemfile order, as Bundler does;
    a directory glob's requires (``Dir.glob(File.expand_path("core_ext/*.rb", __dir__)).each
    { |f| require f }``, ``rdx.ruby.evaluate.globs``) require the indexed files it matches, in
    name order. Deterministic for the same documents, entries and Gemfile.
    """
    return LoadOrder(documents, entries, late, bundle).ordered


class RootOrder:
    """The order in which root documents are walked (see ``load_order``): a sort key per URI."""

    __slots__ = ("bundle", "entries", "late", "rank")

    def __init__(self, entries: Sequence[str] = (), late: Sequence[str] = (), bundle: Sequence[BundledGem] = ()) -> None:
        self.entries = tuple(dict.fromkeys(entries))
        self.rank = {uri: i for i, uri in enumerate(self.entries)}
        self.late = tuple(late)  # URI prefixes (a project's spec/ and test/ directories).
        self.bundle = tuple(bundle)  # What a ``Bundler.require`` loads (``LoadOrder._bundled``).

    def key(self, uri: str) -> tuple[bool, int, str]:
        if uri == CORE_URI:
            return (False, 0, uri)
        rank = self.rank.get(uri)
        if rank is not None:
            return (True, rank - len(self.rank), uri)  # Before every other document.
        return (True, 1 if self.late and uri.startswith(self.late) else 0, uri)



def load_time_requires(doc: FileResult) -> list[Require]:
    """The requires of ``doc`` that run while it loads (not those in method bodies, nor
    ``autoload``s, which load their file later, see ``LoadOrder``)."""
    return [r for r in doc.requires if not r.deferred and not r.constant]


def load_time_autoloads(doc: FileResult) -> list[Require]:
    """The ``autoload``s of ``doc`` registered while it loads."""
    return [r for r in doc.requires if r.constant and not r.deferred and not is_computed(r)]


def computed_calls(doc: FileResult) -> list[Require]:
    """``doc``'s load-time calls with literal arguments that may require a computed path
    (``rdx.ruby.evaluate.computed``): one record per argument."""
    return [r for r in doc.requires if not r.deferred and is_computed(r)]


def require_templates(doc: FileResult) -> list[Require]:
    """The methods of ``doc`` that require a path built from a parameter, as templates
    (``rdx.ruby.evaluate.computed``)."""
    return [r for r in doc.requires if r.deferred and is_computed(r) and COMPUTED_PLACEHOLDER in r.path]


def _underscore(name: str) -> str:
    """ActiveSupport's ``underscore``: ``ActiveSupport::HTMLSafe`` -> ``active_support/html_safe``."""
    path = name.replace("::", "/")
    path = re.sub(r"([A-Z\d]+)([A-Z][a-z])", r"\1_\2", path)
    path = re.sub(r"([a-z\d])([A-Z])", r"\1_\2", path)
    return path.replace("-", "_").lower()


def autoload_entries(doc: FileResult) -> list[tuple[str, Require]]:
    """``doc``'s load-time ``autoload``s as (qualified constant, Require): the name in the
    namespaces around the call (as written); a path-less ``autoload :Name``
    (ActiveSupport::Autoload) gets the path ActiveSupport derives from that name, with the
    directory of an ``autoload_under "dir" do ... end`` around it (a path ``"::dir"``,
    ``rdx.ruby.discover.directives``) after the namespace: ``ns/dir/name``."""
    autoloads = load_time_autoloads(doc)
    if not autoloads:
        return []
    nesting = _Nesting(doc)
    out = []
    for req in autoloads:
        around = nesting.at(req.scope)
        if around is None:
            continue
        name = (around[0] + "::" + req.constant) if around else req.constant
        if not req.path or req.path.startswith("::"):
            derived = name if not req.path else "::".join([*around[:1], req.path[2:], req.constant])
            req = Require(_underscore(derived), False, req.start, req.end, req.deferred, req.constant, req.scope)
        out.append((name, req))
    return out


class _Nesting:
    """The written names of the namespaces around each scope definition of one document
    (``A``, ``A::B`` for ``module A; class B``), innermost first; None inside a method body,
    where nothing runs while the file loads."""

    __slots__ = ("doc", "memo")

    def __init__(self, doc: FileResult) -> None:
        self.doc = doc
        self.memo: dict[int, tuple[str, ...] | None] = {-1: ()}

    def at(self, index: int) -> tuple[str, ...] | None:
        if index in self.memo:
            return self.memo[index]
        defs = self.doc.definitions
        d = defs[index] if 0 <= index < len(defs) else None
        if d is None:
            out: tuple[str, ...] | None = ()
        else:
            outer = self.at(d.parent)
            if outer is None or d.kind == "Method":
                out = None
            elif d.kind in ("Class", "Module"):
                name = d.name[2:] if d.name.startswith("::") else d.name
                out = ((outer[0] + "::" + name) if outer and not d.name.startswith("::") else name,) + outer
            else:
                out = outer
        self.memo[index] = out
        return out


_NAMESPACE_KINDS = frozenset({"Class", "Module"})


def split_requires(doc: FileResult, computed: Sequence[Require] = ()) -> tuple[list[Require], list[Require]]:
    """``doc``'s load-time requires in two lists: those read before it, and those read right
    after it: written in a class or module body, or after the start of its last one. Ruby runs
    the latter while a body is open or once the bodies have run, and the required file often
    reopens what the body created: representable's ``class Binding`` requires
    ``pipeline_factories.rb``, which defines ``Binding::Factories``; kramdown's ``class
    Kramdown`` requires the files that reopen it with their mixins; rack-oauth2's authorize.rb
    requires, after its classes, the files that mix into them, in that order. A definition in
    another file counts as there for the body's own later lookups (``include Factories``:
    ``Lookup.lookup_path_at``), so reading the required file after the whole document loses
    nothing there. A require between two top-level bodies stays ahead of the document: the
    second body may mix in after what the required file mixes in, and a document is read whole."""
    requires = load_time_requires(doc)
    if computed:  # The computed requires bound to their templates (``LoadOrder.computed``).
        requires = sorted(requires + list(computed), key=lambda r: r.start)
    bodies = [(d.start, d.end) for d in doc.definitions if d.kind in _NAMESPACE_KINDS and d.end > d.start] if requires else []
    if not bodies:
        return requires, []
    last = max(start for start, _ in bodies)
    starts, ends = _open_spans(bodies)
    before: list[Require] = []
    after: list[Require] = []
    for r in requires:
        k = bisect.bisect_left(starts, r.start) - 1  # The last span starting before r.
        inside = k >= 0 and r.start < ends[k]
        (after if inside or r.start > last else before).append(r)
    return before, after


def _open_spans(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The union of open intervals ``(start, end)`` as disjoint ones, sorted: their starts
    and their ends (an offset lies inside one of ``spans`` when it lies inside one of these)."""
    starts: list[int] = []
    ends: list[int] = []
    for start, end in sorted(spans):
        if ends and start < ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


def first_require_after(doc: FileResult) -> int | None:
    """Where the first load-time require that ``doc`` reads right after it (``split_requires``:
    in a class or module body, or past the start of its last one) is written, if any: the
    files it loads come after ``doc`` in load order, yet Ruby runs them before the code that
    follows it. Without one, every document after ``doc`` in load order runs after all of it
    (``Lookup.defined_after``)."""
    after = split_requires(doc)[1]
    return min(r.start for r in after) if after else None


# What marks a require's path as a directory glob's pattern (``rdx.ruby.evaluate.globs``).
_GLOB_CHARS = frozenset("*?[")


def is_glob(req: Require) -> bool:
    """A require of every file a directory glob lists (``rdx.ruby.evaluate.globs``)."""
    return req.relative and not _GLOB_CHARS.isdisjoint(req.path)


def glob_pattern(doc: FileResult, req: Require) -> tuple[str, str] | None:
    """The directory and the name pattern of glob require ``req`` of ``doc`` (None for a
    document without a path)."""
    if not doc.path:
        return None
    directory, name = posixpath.split(posixpath.normpath(posixpath.join(posixpath.dirname(doc.path), req.path)))
    return directory, name


def glob_matches(doc: FileResult, req: Require, path: str) -> bool:
    """Whether glob require ``req`` of ``doc`` lists the file at ``path``: a file of the
    pattern's directory whose name matches its last segment."""
    pattern = glob_pattern(doc, req)
    if pattern is None:
        return False
    path = posixpath.normpath(path)
    return posixpath.dirname(path) == pattern[0] and fnmatchcase(posixpath.basename(path), pattern[1])


def _require_name(req: Require) -> str:
    return req.path if req.path.endswith(".rb") else req.path + ".rb"


def _bundler_groups(path: str) -> frozenset[str]:
    """The groups of a ``Bundler.require`` marker: ``default`` without arguments, ``default``
    and ``development`` (Rails' ``*Rails.groups`` outside production) for groups that are not
    literal."""
    inside = path[len(BUNDLER_REQUIRE) :].strip("()")
    groups = set(inside.split(",")) if inside else {"default"}
    if "*" in groups:
        groups |= {"default", "development"}
    return frozenset(groups)


class LoadOrder:
    """The load order of a set of documents, with what makes one more or one less document
    cheap to place: which documents were walked from as roots (the others were pulled in by a
    require, and by which document), what each document's requires resolve to, and indexes to
    resolve them. ``add`` and ``remove`` keep it current when the change moves no other
    document; otherwise they say no and the caller computes the order anew."""

    __slots__ = (
        "autoloads", "by_basename", "by_path", "by_uri", "globbing", "order", "ordered", "path_templates", "pulled", "required_by", "requirers", "root_order", "roots", "walks",
    )

    def __init__(
        self, documents: Iterable[FileResult], entries: Sequence[str] = (), late: Sequence[str] = (), bundle: Sequence[BundledGem] = ()
    ) -> None:
        self.order = RootOrder(entries, late, bundle)
        key = self.order.key
        docs = sorted(documents, key=lambda d: key(d.uri))
        self.by_uri: dict[str, FileResult] = {d.uri: d for d in docs}
        self.root_order: list[tuple[bool, int, str]] = [key(d.uri) for d in docs]
        self.by_path: dict[str, FileResult] = {}
        self.by_basename: dict[str, list[FileResult]] = {}
        # Basename of a required file -> URIs of the documents whose requires name it.
        self.requirers: dict[str, set[str]] = {}
        self.globbing: set[str] = set()  # Documents with a directory glob's require.
        # ``Receiver.method`` -> the template of the method, which requires a path built
        # from its parameter (``rdx.ruby.evaluate.computed``); the first in root order.
        self.path_templates: dict[str, Require] = {}
        for d in docs:
            for t in require_templates(d):
                self.path_templates.setdefault(t.constant, t)
        for d in docs:
            self._index(d)
        self.roots: set[str] = set()
        self.pulled: dict[str, set[str]] = {}  # document -> documents its requires pulled in
        self.required_by: dict[str, set[str]] = {}
        self.ordered: list[FileResult] = []
        # Document -> the root whose walk emitted it (``same_walk``).
        self.walks: dict[str, str] = {}
        # ``autoload``s registered by the documents emitted so far: qualified constant ->
        # the Require (its file loads at the constant's first load-time reference).
        self.autoloads: dict[str, Require] = {}
        checked: set[str] = set()
        seen: set[str] = set()
        # Each document's requires to follow: those ahead of it first, the first ``ahead[uri]``
        # (``split_requires``), then those read right after it.
        requires: dict[str, list[Require]] = {}
        ahead: dict[str, int] = {}

        def follow(doc: FileResult) -> None:
            before, after = split_requires(doc, self.computed(doc))
            before, after = self._globbed(doc, self._bundled(doc, before)), self._globbed(doc, self._bundled(doc, after))
            requires[doc.uri] = before + after
            ahead[doc.uri] = len(before)

        for root in docs:
            if root.uri in seen:
                continue
            seen.add(root.uri)
            self.roots.add(root.uri)
            walked = len(self.ordered)
            if root.uri == CORE_URI:
                # Ruby's core exists before anything loads, its prelude's requires included:
                # the stub comes first and what it requires (gem_prelude's) right after it.
                self.ordered.append(root)
            # Iterative depth-first walk: (document, index of its next require to follow); a
            # document is emitted once the requires ahead of it are.
            stack: list[tuple[FileResult, int]] = [(root, 0)]
            follow(root)
            while stack:
                doc, i = stack[-1]
                own = requires[doc.uri]
                if i == ahead[doc.uri] and doc.uri != CORE_URI:
                    if doc.uri not in checked:
                        # Its autoloads are registered as it loads; the files of those its
                        # load-time references reach first load ahead of it.
                        checked.add(doc.uri)
                        self._register(doc)
                        triggered = self._triggered(doc, seen) if self.autoloads else []
                        if triggered:
                            own[i:i] = triggered
                            ahead[doc.uri] += len(triggered)
                            continue
                    self.ordered.append(doc)
                if i < len(own):
                    stack[-1] = (doc, i + 1)
                    nxt = self.target(doc, own[i])
                    if nxt is not None:
                        self.required_by.setdefault(nxt.uri, set()).add(doc.uri)
                        if nxt.uri not in seen:
                            seen.add(nxt.uri)
                            self.pulled.setdefault(doc.uri, set()).add(nxt.uri)
                            follow(nxt)
                            stack.append((nxt, 0))
                    continue
                stack.pop()
            for d in self.ordered[walked:]:
                self.walks[d.uri] = root.uri

    def same_walk(self, a: str, b: str) -> bool:
        """Whether documents ``a`` and ``b`` were placed by the walk from one root: their
        order then follows requires (a file's requirements, a file's requires in their order),
        while the order of two roots' walks is only the roots' order (URI order for files that
        no entry point reaches), a guess where something rdx does not read loads them (rspec's
        ``%w[...].each { |f| require_rspec_mocks(f) }``)."""
        walk = self.walks.get(a)
        return walk is not None and walk == self.walks.get(b)

    def _bundled(self, doc: FileResult, requires: list[Require], every: bool = False) -> list[Require]:
        """``requires`` with each ``Bundler.require`` marker replaced by requires of the
        Gemfile's gems in its groups, in Gemfile order, at the marker's place: a gem's
        ``require:`` paths, else its name, or its name with ``-`` read as ``/`` when only that
        names a file (Bundler tries both). ``every``: both names (to index the requirers)."""
        if not any(r.path.startswith(BUNDLER_REQUIRE) for r in requires):
            return requires
        out: list[Require] = []
        for r in requires:
            if not r.path.startswith(BUNDLER_REQUIRE):
                out.append(r)
                continue
            groups = _bundler_groups(r.path)
            for name, paths, gem_groups in self.order.bundle:
                if groups.isdisjoint(gem_groups):
                    continue
                if paths is None:
                    names = [name, name.replace("-", "/")] if "-" in name else [name]
                    if not every:
                        names = [next((n for n in names if self.target(doc, Require(n, False, r.start, r.end)) is not None), name)]
                    paths = tuple(names)
                out.extend(Require(p, False, r.start, r.end) for p in paths)
        return out

    def _globbed(self, doc: FileResult, requires: list[Require]) -> list[Require]:
        """``requires`` with each directory glob (``rdx.ruby.evaluate.globs``) replaced by
        requires of the indexed files it matches, in name order, at its place."""
        if not any(is_glob(r) for r in requires):
            return requires
        out: list[Require] = []
        for r in requires:
            if not is_glob(r):
                out.append(r)
                continue
            here = posixpath.dirname(doc.path or "")
            out.extend(Require(posixpath.relpath(d.path, here), True, r.start, r.end) for d in self.globbed(doc, r) if d.path)
        return out

    def globbed(self, doc: FileResult, req: Require) -> list[FileResult]:
        """The indexed files a glob require of ``doc`` matches, in path order (``Dir.glob``
        sorted): those in the pattern's directory whose name matches its last segment."""
        pattern = glob_pattern(doc, req)
        if pattern is None:
            return []
        directory, name = pattern
        # The keys are normal paths: a plain prefix test leaves the few in that directory.
        prefix = directory if directory.endswith("/") else directory + "/"
        found = [p for p in self.by_path if p.startswith(prefix) and posixpath.dirname(p) == directory and fnmatchcase(posixpath.basename(p), name)]
        return [self.by_path[p] for p in sorted(found)]

    def _load_requires(self, d: FileResult, every: bool = False) -> list[Require]:
        return self._bundled(d, load_time_requires(d) + self.computed(d), every)

    def computed(self, doc: FileResult) -> list[Require]:
        """The requires ``doc``'s load-time calls make through a method that requires a path
        built from its parameter (``Sequel.extension :symbol_as`` requires
        ``sequel/extensions/symbol_as``): each call bound to the template of the method its
        receiver names, tried in the namespaces around the call, innermost first, as a
        constant is; a call no template binds requires nothing."""
        calls = computed_calls(doc) if self.path_templates else []
        if not calls:
            return []
        nesting = _Nesting(doc)
        groups: dict[tuple[int, str], list[Require]] = {}
        for r in calls:
            groups.setdefault((r.start, r.constant), []).append(r)
        out: list[Require] = []
        for (_, constant), args in groups.items():
            around = nesting.at(args[0].scope)
            if around is None:
                continue
            receiver, name = constant.rsplit(".", 1)
            names = [receiver[2:]] if receiver.startswith("::") else [*(n + "::" + receiver for n in around), receiver]
            template = next((t for n in names if (t := self.path_templates.get(n + "." + name)) is not None), None)
            if template is None:
                continue
            values = [a.path for a in args] if template.scope == COMPUTED_SPLAT else [args[template.scope].path] if 0 <= template.scope < len(args) else []
            out.extend(Require(template.path.replace(COMPUTED_PLACEHOLDER, v), False, args[0].start, args[0].end) for v in values)
        return out

    def _register(self, doc: FileResult) -> None:
        for name, req in autoload_entries(doc):
            self.autoloads.setdefault(name, req)

    def reach(self, doc: FileResult) -> tuple[str, ...]:
        """The autoloaded constants ``doc``'s load-time references reach, in the order it
        reaches them: what, besides its requires, decides where it pulls files in. An edit
        that changes it moves other documents (the caller computes the order again)."""
        if not self.autoloads:
            return ()
        return tuple(name for name, _, _, _ in self._reached(doc))

    def _reached(self, doc: FileResult) -> Iterator[tuple[str, Require, int, int]]:
        """(name, autoload, start, end of the reference) for each autoloaded constant
        ``doc``'s load-time references reach, first reference first: each name is tried in
        the namespaces around the reference, innermost first, as Ruby's lexical lookup does
        (and every prefix of a path, ``A::B::C`` reaching ``A`` and ``A::B`` first)."""
        taken: set[str] = set()
        autoloads = self.autoloads
        nesting = _Nesting(doc)
        for ref in doc.const_refs:
            around = nesting.at(ref.scope)
            if around is None:
                continue
            segments = ref.path.segments
            for k in range(1, len(segments) + 1):
                text = "::".join(segments[:k])
                names = [text] if ref.path.absolute else [*(n + "::" + text for n in around), text]
                for name in names:
                    req = autoloads.get(name)
                    if req is None:
                        continue
                    if name not in taken:
                        taken.add(name)
                        yield name, req, ref.path.start, ref.path.end
                    break

    def _triggered(self, doc: FileResult, seen: set[str]) -> list[Require]:
        """Requires of the autoloaded files, not loaded yet, that ``doc``'s load-time
        references reach (``_reached``), at the references."""
        out: list[Require] = []
        for _, req, start, end in self._reached(doc):
            target = self.target(doc, req)
            if target is not None and target.uri not in seen and target.uri != doc.uri:
                out.append(Require(req.path, False, start, end))
        return out

    def _index(self, d: FileResult) -> None:
        if d.path:
            norm = posixpath.normpath(d.path)
            self.by_path[norm] = d
            bisect.insort(self.by_basename.setdefault(posixpath.basename(norm), []), d, key=lambda x: self.order.key(x.uri))
        for req in self._load_requires(d, every=True) + [r for _, r in autoload_entries(d)]:
            self.requirers.setdefault(posixpath.basename(_require_name(req)), set()).add(d.uri)
            if is_glob(req):
                self.globbing.add(d.uri)

    def _unindex(self, d: FileResult) -> None:
        if d.path:
            norm = posixpath.normpath(d.path)
            if self.by_path.get(norm) is d:
                del self.by_path[norm]
            same = self.by_basename.get(posixpath.basename(norm), [])
            if d in same:
                same.remove(d)
        for req in self._load_requires(d, every=True) + [r for _, r in autoload_entries(d)]:
            self.requirers.get(posixpath.basename(_require_name(req)), set()).discard(d.uri)
        self.globbing.discard(d.uri)

    def target(self, doc: FileResult, req: Require) -> FileResult | None:
        name = _require_name(req)
        if req.relative:
            if not doc.path:
                return None
            return self.by_path.get(posixpath.normpath(posixpath.join(posixpath.dirname(doc.path), name)))
        suffix = "/" + name
        for cand in self.by_basename.get(posixpath.basename(name), ()):
            if cand.path and cand.path.endswith(suffix):
                return cand
        return None

    def add(self, doc: FileResult, key_of: Callable[[str], int | None], keys: list[int]) -> int | None:
        """A key for ``doc`` between its neighbours when adding it moves no other document: no
        document requires a file of its name, and whatever it requires comes before it. Updates
        the order; None (nothing changed) otherwise. ``keys`` are the current keys, sorted."""
        name = posixpath.basename(doc.path) if doc.path else None
        if doc.uri in self.by_uri or (name is not None and self.requirers.get(name)) or split_requires(doc)[1]:
            return None  # Also when it requires files after itself (``split_requires``).
        if any(r.path.startswith(BUNDLER_REQUIRE) or is_glob(r) or is_computed(r) for r in doc.requires) or load_time_autoloads(doc):
            return None  # Its Bundler.require, glob or computed requires pull in files; its autoloads may load files.
        globbing = [self.by_uri[u] for u in sorted(self.globbing) if u in self.by_uri]
        if doc.path and any(glob_matches(other, r, doc.path) for other in globbing for r in load_time_requires(other) if is_glob(r)):
            return None  # A directory glob of another document requires it.
        if self.autoloads and self._triggered(doc, set()):
            return None  # It may be the first to reach an autoloaded constant.
        at = bisect.bisect_left(self.root_order, self.order.key(doc.uri))
        # Everything before its turn as a root was emitted before it; the last root walked
        # before that turn was emitted last.
        before = at - 1
        while before >= 0 and self.root_order[before][-1] not in self.roots:
            before -= 1
        low = key_of(self.root_order[before][-1]) if before >= 0 else -1
        if low is None:
            return None
        targets = [t for req in load_time_requires(doc) if (t := self.target(doc, req)) is not None]
        if any((key_of(t.uri) or 0) > low for t in targets):
            return None
        nxt = bisect.bisect_right(keys, low)
        high = keys[nxt] if nxt < len(keys) else min(low + 2 * DOC_GAP, MAX_KEY)
        if high - low < 2:
            return None
        self.by_uri[doc.uri] = doc
        self.root_order.insert(at, self.order.key(doc.uri))
        self.roots.add(doc.uri)
        self.walks[doc.uri] = doc.uri
        self._index(doc)
        for t in targets:
            self.required_by.setdefault(t.uri, set()).add(doc.uri)
        return (low + high) // 2

    def remove(self, uri: str) -> bool:
        """Forget document ``uri`` when that moves no other document: it pulled nothing in,
        and the requires that named it name no other file once it is gone. False (nothing
        changed) otherwise."""
        doc = self.by_uri.get(uri)
        if doc is None or self.pulled.get(uri) or load_time_autoloads(doc) or any(is_computed(r) for r in doc.requires):
            return False
        self._unindex(doc)
        name = posixpath.basename(doc.path) if doc.path else None
        for requirer in self.required_by.get(uri, ()):
            other = self.by_uri[requirer]
            for req in self._load_requires(other):
                if posixpath.basename(_require_name(req)) == name and self.target(other, req) is not None:
                    self._index(doc)
                    return False
        self.required_by.pop(uri, None)
        del self.by_uri[uri]
        at = bisect.bisect_left(self.root_order, self.order.key(uri))
        if at < len(self.root_order) and self.root_order[at][-1] == uri:
            del self.root_order[at]
        self.roots.discard(uri)
        self.walks.pop(uri, None)
        self._unindex(doc)
        for req in self._load_requires(doc):
            t = self.target(doc, req)
            if t is not None:
                self.required_by.get(t.uri, set()).discard(uri)
        for pulled in self.pulled.values():
            pulled.discard(uri)
        return True
