"""Load order: the order in which resolution reads documents (core first, requires before requirers)."""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from itertools import islice

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


# One prefix of one load-time constant reference: the names it may reach, innermost namespace
# first, and where the reference is written (``LoadOrder._reached``).
_Candidate = tuple[tuple[str, ...], int, int]


def _iter_candidates(doc: FileResult) -> Iterator[_Candidate]:
    """For each load-time constant reference of ``doc``, first first, and each prefix of its
    path (``A``, ``A::B`` of ``A::B::C``): the names it is looked up as, in the namespaces
    around the reference, innermost first, as Ruby's lexical lookup does."""
    nesting = _Nesting(doc)
    for ref in doc.const_refs:
        around = nesting.at(ref.scope)
        if around is None:
            continue
        segments = ref.path.segments
        for k in range(1, len(segments) + 1):
            text = "::".join(segments[:k])
            names = (text,) if ref.path.absolute else (*(n + "::" + text for n in around), text)
            yield names, ref.path.start, ref.path.end


class _Facts:
    """What the load order's walk reads of one document: the URIs its requires load (None: no
    indexed file), in order, and how many of them load ahead of it (``split_requires``); its
    autoloads (``autoload_entries``) and its references' candidates (``_iter_candidates``) with
    only the names some document autoloads (``LoadOrder._candidates``), once read."""

    __slots__ = ("ahead", "candidates", "entries", "names", "targets")

    def __init__(self, targets: tuple[str | None, ...], ahead: int) -> None:
        self.targets = targets
        self.ahead = ahead
        self.entries: list[tuple[str, Require]] | None = None
        self.candidates: list[_Candidate] | None = None
        self.names: frozenset[str] | None = None  # Those of its entries and candidates.


class _Seen(set[str]):
    """The documents a walk has reached: those it added, and those before index ``before`` of
    a load order (``at``: document -> index), whose walks came earlier."""

    __slots__ = ("at", "before")

    def __init__(self, at: dict[str, int], before: int) -> None:
        super().__init__()
        self.at = at
        self.before = before

    def __contains__(self, uri: object) -> bool:
        return set.__contains__(self, uri) or (isinstance(uri, str) and self.at.get(uri, self.before) < self.before)


@dataclass(frozen=True, slots=True)
class Replaced:
    """What ``LoadOrder.replace`` changed in the load order. ``ordered[start:start + len(new)]``
    held the documents ``old`` (URIs) and holds ``new``: the same documents, in another order
    (both empty when no document moved; ``start`` is then the replaced document's index).
    ``walks``: the documents whose walk (``LoadOrder.walks``) changed, with the root of their
    new walk. ``walked``: whether it walked again (False: nothing the walk reads changed)."""

    start: int
    old: tuple[str, ...]
    new: tuple[str, ...]
    walks: dict[str, str]
    walked: bool

    @property
    def ordered_changed(self) -> bool:
        return self.old != self.new


def _span(at: int, start: int, old: tuple[str, ...], new: tuple[str, ...], walks: dict[str, str]) -> Replaced:
    """The ``Replaced`` of walks again that emitted ``new`` where ``old`` were, from index
    ``start`` (``at``: the replaced document's new index), without the ends that stayed."""
    low, high = 0, len(old)
    while low < high and old[low] == new[low]:
        low += 1
    while high > low and old[high - 1] == new[high - 1]:
        high -= 1
    if low == high:
        return Replaced(at, (), (), walks, True)
    return Replaced(start + low, old[low:high], new[low:high], walks, True)


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
    document; otherwise they say no and the caller computes the order anew. ``replace`` takes
    an edited document in, every field as a new load order would have it, walking again only
    where the edit changed what the walk reads (``Replaced`` says what moved); it says no after
    an ``add`` or a ``remove`` (``ordered`` no longer holds every document then)."""

    __slots__ = (
        "_at", "_enter", "_exact", "_facts", "_leave", "_loads", "_marks", "_names", "_parent", "_triggers",
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
        # Per document: what the walk reads of it (``_Facts``), kept so that ``replace`` walks
        # again without computing it anew; the requires its load-time references triggered
        # (``_triggered``) as the URIs they loaded; per root walked: where its walk starts in
        # ``ordered`` and how many autoloads were registered at its start and at its end.
        self._facts: dict[str, _Facts] = {}
        self._triggers: dict[str, tuple[str | None, ...]] = {}
        self._marks: dict[str, tuple[int, int, int]] = {}
        # Per document: its index in ``ordered`` and the number of autoloads registered when
        # its walk reached it and when it left it (its requires followed), and the document
        # whose require reached it (none for a root).
        self._enter: dict[str, tuple[int, int]] = {}
        self._leave: dict[str, tuple[int, int]] = {}
        self._parent: dict[str, str] = {}
        self._exact = True  # False once ``add`` or ``remove`` changed it: ``replace`` says no.
        # Every name some document's ``autoload`` registers (``_candidates``), once needed;
        # whether some ``autoload`` may load a document (``_autoloaded``), once asked.
        self._names: set[str] | None = None
        self._loads: dict[str, bool] = {}
        checked: set[str] = set()
        seen: set[str] = set()
        for root in docs:
            if root.uri in seen:
                continue
            seen.add(root.uri)
            self.roots.add(root.uri)
            walked, registered = len(self.ordered), len(self.autoloads)
            self._walk(root, seen, checked, self.ordered, self.pulled, self.required_by, self._triggers)
            for d in self.ordered[walked:]:
                self.walks[d.uri] = root.uri
            self._marks[root.uri] = (walked, registered, len(self.autoloads))
        # Document -> its index in ``ordered``.
        self._at: dict[str, int] = {d.uri: i for i, d in enumerate(self.ordered)}

    def _follow(self, doc: FileResult) -> _Facts:
        """What the walk reads of ``doc``'s requires (``split_requires``): the documents they
        load, in order, those ahead of it first."""
        before, after = split_requires(doc, self.computed(doc))
        before, after = self._globbed(doc, self._bundled(doc, before)), self._globbed(doc, self._bundled(doc, after))
        targets = tuple(t.uri if (t := self.target(doc, r)) is not None else None for r in before + after)
        facts = _Facts(targets, len(before))
        self._facts[doc.uri] = facts
        return facts

    def _walk(
        self,
        root: FileResult,
        seen: set[str],
        checked: set[str],
        out: list[FileResult],
        pulled: dict[str, set[str]],
        required_by: dict[str, set[str]] | None,
        triggers: dict[str, tuple[str | None, ...]],
        keep: bool = False,
        base: int = 0,
    ) -> None:
        """The depth-first walk from ``root`` (see ``load_order``): appends the documents it
        emits to ``out``, marks those it reaches in ``seen``, those it registered the autoloads
        of in ``checked``; what requires pulled in to ``pulled``, who required what to
        ``required_by`` (unless None), the documents references to autoloaded constants loaded
        to ``triggers`` (``_triggered``). ``keep``: keep each document's reference candidates
        (``_candidates``) in its facts. ``base``: the index in ``ordered`` of ``out``'s first."""
        facts = self._facts
        by_uri = self.by_uri
        if root.uri == CORE_URI:
            # Ruby's core exists before anything loads, its prelude's requires included:
            # the stub comes first and what it requires (gem_prelude's) right after it.
            out.append(root)
        # Iterative depth-first walk: [document, index of its next require to follow, the
        # documents its requires load, how many of them load ahead of it]; a document is
        # emitted once the requires ahead of it are.
        enter, leave, parent = self._enter, self._leave, self._parent
        f = facts.get(root.uri) or self._follow(root)
        stack: list[list[object]] = [[root, 0, f.targets, f.ahead]]
        enter[root.uri] = (base + len(out), len(self.autoloads))
        while stack:
            top = stack[-1]
            doc: FileResult = top[0]  # type: ignore[assignment]
            i: int = top[1]  # type: ignore[assignment]
            targets: tuple[str | None, ...] = top[2]  # type: ignore[assignment]
            if i == top[3] and doc.uri != CORE_URI:
                if doc.uri not in checked:
                    # Its autoloads are registered as it loads; the files of those its
                    # load-time references reach first load ahead of it.
                    checked.add(doc.uri)
                    f = facts.get(doc.uri) or self._follow(doc)
                    if f.entries is None:
                        f.entries = autoload_entries(doc)
                    for name, req in f.entries:
                        self.autoloads.setdefault(name, req)
                    if self.autoloads:
                        if keep and f.candidates is None:
                            f.candidates = self._candidates(doc)
                        triggered = self._triggered(doc, seen, f.candidates)
                        if triggered:
                            loaded = tuple(triggered)
                            triggers[doc.uri] = loaded
                            top[2] = targets[:i] + loaded + targets[i:]
                            top[3] = i + len(loaded)
                            continue
                out.append(doc)
            if i < len(targets):
                top[1] = i + 1
                t = targets[i]
                if t is not None:
                    if required_by is not None:
                        required_by.setdefault(t, set()).add(doc.uri)
                    if t not in seen:
                        seen.add(t)
                        pulled.setdefault(doc.uri, set()).add(t)
                        nxt = by_uri[t]
                        f = facts.get(t) or self._follow(nxt)
                        stack.append([nxt, 0, f.targets, f.ahead])
                        enter[t] = (base + len(out), len(self.autoloads))
                        parent[t] = doc.uri
                continue
            leave[doc.uri] = (base + len(out), len(self.autoloads))
            stack.pop()

    def replace(self, doc: FileResult) -> Replaced | None:
        """Make this the load order of the same documents with ``doc`` in place of the one of
        its URI: every field as a new ``LoadOrder`` would have it. What moved (``Replaced``);
        None when it cannot tell (not a document of the order, the core stub, another path,
        other require templates, after ``add`` or ``remove``): then compute it anew.

        When nothing the walk reads of the document changed (what its requires load, ahead of
        it or after it, its autoloads, the autoloaded constants its references may reach) it
        only takes the new document in; byte offsets are not read. Otherwise it first follows
        the document's requires again from where the old walk reached it (``_resume``): when
        that emits the documents and registers the autoloads the old walk did there, in any
        order, the rest is the old walk. Else it walks again from the root whose walk emitted
        the document (earlier walks never reached it), root by root, until the documents
        emitted so far and the autoloads registered are those of the old walks up to the same
        root: every later walk is the old one; a walk in between that reads nothing the two
        sides differ in is the old one too (``_unmoved``)."""
        uri = doc.uri
        old = self.by_uri.get(uri)
        old_facts = self._facts.get(uri)
        if old is None or not self._exact or uri == CORE_URI or old.path != doc.path or old_facts is None or old_facts.entries is None:
            return None
        old_templates, new_templates = require_templates(old), require_templates(doc)
        if [(t.constant, t.path, t.scope) for t in old_templates] != [(t.constant, t.path, t.scope) for t in new_templates]:
            return None  # Every document's computed requires may change.
        self._swap(old, doc)
        for t_old, t_new in zip(old_templates, new_templates, strict=True):
            if self.path_templates.get(t_old.constant) is t_old:
                self.path_templates[t_old.constant] = t_new
        known = self._autoload_names()  # With the old document's: what the old walks registered.
        new_facts = self._follow(doc)
        new_facts.entries = autoload_entries(doc)
        if any(name not in known for name, _ in new_facts.entries):
            known.update(name for name, _ in new_facts.entries)  # Names the kept candidates left out.
            for facts in self._facts.values():
                facts.candidates = facts.names = None
        same = new_facts.targets == old_facts.targets and new_facts.ahead == old_facts.ahead
        if [(n, r.path, r.relative) for n, r in new_facts.entries] != [(n, r.path, r.relative) for n, r in old_facts.entries]:
            same = False
            self._loads.clear()
        if same and self.autoloads:
            # Only names registered by the walk may be reached (the walk stays the same).
            registered = self.autoloads
            if old_facts.candidates is None:
                old_facts.candidates = self._candidates(old)
            new_facts.candidates = self._candidates(doc)
            reach_old = [k for names, _, _ in old_facts.candidates if (k := tuple(n for n in names if n in registered))]
            reach_new = [k for names, _, _ in new_facts.candidates if (k := tuple(n for n in names if n in registered))]
            same = reach_old == reach_new
        if same:
            for (name, req_old), (_, req_new) in zip(old_facts.entries, new_facts.entries, strict=True):
                if self.autoloads.get(name) is req_old:
                    self.autoloads[name] = req_new
            at = self._at[uri]
            self.ordered[at] = doc
            return Replaced(at, (), (), {}, False)
        if uri != self.walks[uri]:
            moved = self._resume(doc, old_facts)
            if moved is not None:
                return moved
        return self._rewalk(doc, old_facts)

    def _resume(self, doc: FileResult, old_facts: _Facts) -> Replaced | None:
        """``replace``'s walk of ``doc``'s requires alone, from the state the old walk reached
        it in (the documents emitted before it, those on the walk's stack, the autoloads
        registered), when it emits the documents the old one did while it followed them, and
        registers the same autoloads: the rest of every walk is then the old one. None
        otherwise, with only the facts and the walk records of the documents it reached
        written, which ``_rewalk`` writes again (it reaches them in the same state)."""
        uri = doc.uri
        at, registered = self._enter[uri]
        end, left = self._leave[uri]
        seen = _Seen(self._at, at)
        up: str | None = uri
        while up is not None:  # The documents on the stack when the walk reached it.
            seen.add(up)
            up = self._parent.get(up)
        old_autoloads = self.autoloads
        self.autoloads = autoloads = dict(islice(old_autoloads.items(), registered))
        out: list[FileResult] = []
        pulled: dict[str, set[str]] = {}
        triggers: dict[str, tuple[str | None, ...]] = {}
        self._walk(doc, seen, set(), out, pulled, None, triggers, keep=True, base=at)
        old_uris = tuple(d.uri for d in self.ordered[at:end])
        new_uris = tuple(d.uri for d in out)
        old_added = list(islice(old_autoloads.items(), registered, left))
        added = list(islice(autoloads.items(), registered, None))
        if (
            len(new_uris) != len(old_uris)
            or set(new_uris) != set(old_uris)
            or {name: (r.path, r.relative) for name, r in old_added} != {name: (r.path, r.relative) for name, r in added}
        ):
            self.autoloads = old_autoloads  # ``_rewalk`` walks these documents again.
            return None
        autoloads.update(islice(old_autoloads.items(), left, None))
        self.ordered[at:end] = out
        for k, d in enumerate(out):
            self._at[d.uri] = at + k
        self._take(uri, old_facts, old_uris, pulled, triggers)
        return _span(self._at[uri], at, old_uris, new_uris, {})

    def _take(self, uri: str, old_facts: _Facts, old_uris: Sequence[str], pulled: dict[str, set[str]], triggers: dict[str, tuple[str | None, ...]]) -> None:
        """What the walks of documents ``old_uris`` recorded gives way to what they record now
        (``pulled``, ``triggers``); ``uri`` was replaced, its facts were ``old_facts``. Who
        requires what changes only for the document replaced and where references triggered
        other autoloads (the others' requires load the same documents)."""
        edited = [u for u in old_uris if u == uri or self._triggers.get(u, ()) != triggers.get(u, ())]
        for u in edited:
            for t in (*(old_facts if u == uri else self._facts[u]).targets, *self._triggers.get(u, ())):
                if t is not None and (requirers := self.required_by.get(t)) is not None:
                    requirers.discard(u)
                    if not requirers:
                        del self.required_by[t]
        for u in edited:
            for t in (*self._facts[u].targets, *triggers.get(u, ())):
                if t is not None:
                    self.required_by.setdefault(t, set()).add(u)
        for u in old_uris:
            self.pulled.pop(u, None)
            self._triggers.pop(u, None)
        self.pulled.update(pulled)
        self._triggers.update(triggers)

    def _unmoved(self, emitted: list[FileResult], only_new: set[str], only_old: set[str], differ: set[str]) -> bool:
        """Whether a walk that emitted ``emitted`` emits them again, in the same order, when
        the documents ``only_new`` and ``only_old`` are the only ones whose being emitted before
        it differs and the autoloads of the names ``differ`` the only ones registered by one
        side only (or to another file): none of those documents is one of ``emitted``, nor
        loaded by their requires (their own, or those their references triggered), nor the
        file of an autoload (a reference may trigger it); none of ``emitted`` registers or may
        reach (``_candidates``) one of those names."""
        if any(self._autoloaded(u) for u in only_new) or any(self._autoloaded(u) for u in only_old):
            return False
        facts, triggers = self._facts, self._triggers
        for d in emitted:
            u = d.uri
            if u in only_new or u in only_old:
                return False
            if differ:
                f = facts[u]
                if f.names is None:
                    if f.candidates is None:
                        f.candidates = self._candidates(d)
                    f.names = frozenset(name for names, _, _ in f.candidates for name in names).union(name for name, _ in f.entries or ())
                if not f.names.isdisjoint(differ):
                    return False
            for t in facts[u].targets:
                if t is not None and (t in only_new or t in only_old):
                    return False
            for t in triggers.get(u, ()):
                if t is not None and (t in only_new or t in only_old):
                    return False
        return True

    def _autoloaded(self, uri: str) -> bool:
        """Whether some document's ``autoload`` may load document ``uri`` (a path relative to
        the referencing file may, whatever it names)."""
        known = self._loads.get(uri)
        if known is None:
            doc = self.by_uri[uri]
            name = posixpath.basename(posixpath.normpath(doc.path)) if doc.path else None
            known = False
            for requirer in self.requirers.get(name, ()) if name else ():
                for _, req in self._facts[requirer].entries or ():
                    if posixpath.basename(_require_name(req)) != name:
                        continue
                    if req.relative or ((t := self.target(self.by_uri[requirer], req)) is not None and t.uri == uri):
                        known = True
            self._loads[uri] = known
        return known

    def _autoload_names(self) -> set[str]:
        """Every name some document's ``autoload`` registers, or registered once (``replace``
        adds those of the new documents and keeps the others)."""
        if self._names is None:
            self._names = {name for facts in self._facts.values() if facts.entries for name, _ in facts.entries}
        return self._names

    def _candidates(self, doc: FileResult) -> list[_Candidate]:
        """``doc``'s reference candidates (``_iter_candidates``) with only the names some
        document autoloads (``_autoload_names``): the others are never registered, so
        ``_reached`` reads the same."""
        names = self._autoload_names()
        return [(kept, start, end) for candidates, start, end in _iter_candidates(doc) if (kept := tuple(n for n in candidates if n in names))]

    def _swap(self, old: FileResult, doc: FileResult) -> None:
        """Take ``doc`` into the indexes in place of ``old``, a document of the same URI and path."""
        uri = doc.uri
        self.by_uri[uri] = doc
        if doc.path:
            norm = posixpath.normpath(doc.path)
            if self.by_path.get(norm) is old:
                self.by_path[norm] = doc
            same = self.by_basename.get(posixpath.basename(norm), [])
            for k, d in enumerate(same):
                if d is old:
                    same[k] = doc
        names_old, glob_old = self._requirer_names(old)
        names_new, glob_new = self._requirer_names(doc)
        for name in names_old - names_new:
            requirers = self.requirers.get(name)
            if requirers is not None:
                requirers.discard(uri)
                if not requirers:
                    del self.requirers[name]
        for name in names_new - names_old:
            self.requirers.setdefault(name, set()).add(uri)
        if glob_new:
            self.globbing.add(uri)
        elif glob_old:
            self.globbing.discard(uri)

    def _requirer_names(self, d: FileResult) -> tuple[set[str], bool]:
        """The basenames ``d``'s requires name (``requirers``), and whether one is a glob's."""
        names: set[str] = set()
        glob = False
        for req in self._load_requires(d, every=True) + [r for _, r in autoload_entries(d)]:
            names.add(posixpath.basename(_require_name(req)))
            glob = glob or is_glob(req)
        return names, glob

    def _rewalk(self, doc: FileResult, old_facts: _Facts) -> Replaced | None:
        """``replace``'s walks again, from the root whose walk emitted ``doc`` (whose facts
        were ``old_facts``), until they emit what the old walks did."""
        uri = doc.uri
        root_uri = self.walks[uri]
        first = bisect.bisect_left(self.root_order, self.order.key(root_uri))
        start, registered, _ = self._marks[root_uri]
        old_ordered, old_walks, old_roots = self.ordered, self.walks, self.roots
        old_items = list(self.autoloads.items())
        old_index: dict[str, int] = {}
        # The walks from ``first`` on start from the state the old ones started from.
        self.autoloads = autoloads = dict(old_items[:registered])
        seen = _Seen(self._at, start)
        checked: set[str] = set()
        out: list[FileResult] = []
        pulled: dict[str, set[str]] = {}
        triggers: dict[str, tuple[str | None, ...]] = {}
        walks: dict[str, str] = {}
        marks: dict[str, tuple[int, int, int]] = {}
        roots_old: list[str] = []
        roots_new: list[str] = []
        # Documents emitted by one side only so far; autoloads registered by one side only,
        # or by both to different files.
        only_new: set[str] = set()
        only_old: set[str] = set()
        differ: set[str] = set()
        at, old_registered = start, registered  # How far the old walks are consumed.
        q = first
        while q < len(self.root_order):
            if q > first and not only_new and not only_old and not differ:
                break  # Every later walk starts from the old state: it is the old walk.
            r = self.root_order[q][-1]
            if r in old_roots:
                roots_old.append(r)
                end = at
                while end < len(old_ordered) and old_walks[old_ordered[end].uri] == r:
                    end += 1
                emitted = old_ordered[at:end]
                # The old walk, when it reads nothing the two sides differ in (documents emitted
                # by one side only so far, autoloads registered by one side only).
                same = q > first and r not in seen and self._unmoved(emitted, only_new, only_old, differ)
                for d in emitted:
                    if d.uri in only_new:
                        only_new.discard(d.uri)
                    else:
                        only_old.add(d.uri)
                at = end
                _, low, high = self._marks[r]
                for name, req in old_items[low:high]:
                    other = autoloads.get(name)
                    if other is not None and (other.path, other.relative) == (req.path, req.relative):
                        differ.discard(name)
                    else:
                        differ.add(name)
                old_registered = high
                if same:
                    seen.add(r)
                    roots_new.append(r)
                    walked, before = len(out), len(autoloads)
                    out.extend(emitted)
                    s_old, a_old, _ = self._marks[r]
                    shift, more = start + walked - s_old, before - a_old
                    for d in emitted:
                        seen.add(d.uri)
                        if shift or more:  # Where the walk reached and left it moved with it.
                            index, count = self._enter[d.uri]
                            self._enter[d.uri] = (index + shift, count + more)
                            index, count = self._leave[d.uri]
                            self._leave[d.uri] = (index + shift, count + more)
                        only_old.discard(d.uri)
                        if (loaded := self.pulled.get(d.uri)) is not None:
                            pulled[d.uri] = loaded
                        if (loads := self._triggers.get(d.uri)) is not None:
                            triggers[d.uri] = loads
                    for name, req in old_items[low:high]:
                        autoloads[name] = req
                        differ.discard(name)
                    marks[r] = (start + walked, before, len(autoloads))
                    q += 1
                    continue
            if r not in seen:
                seen.add(r)
                roots_new.append(r)
                walked, before = len(out), len(autoloads)
                self._parent.pop(r, None)
                self._walk(self.by_uri[r], seen, checked, out, pulled, None, triggers, keep=True, base=start)
                for d in out[walked:]:
                    walks[d.uri] = r
                    if d.uri in only_old:
                        only_old.discard(d.uri)
                    else:
                        only_new.add(d.uri)
                if len(autoloads) > before:
                    if not old_index:
                        old_index = {name: i for i, (name, _) in enumerate(old_items)}
                    for name, req in islice(autoloads.items(), before, None):
                        i = old_index.get(name)
                        other = old_items[i][1] if i is not None and i < old_registered else None
                        if other is not None and (other.path, other.relative) == (req.path, req.relative):
                            differ.discard(name)
                        else:
                            differ.add(name)
                marks[r] = (start + walked, before, len(autoloads))
            q += 1
        if len(out) != at - start or only_new or only_old:
            self._exact = False  # Not expected: the caller computes the order anew.
            return None
        for name, req in old_items[old_registered:]:
            autoloads.setdefault(name, req)
        old_uris = tuple(d.uri for d in old_ordered[start:at])
        new_uris = tuple(d.uri for d in out)
        self.ordered[start:at] = out
        for k, d in enumerate(out):
            self._at[d.uri] = start + k
        changed = {u: r for u, r in walks.items() if old_walks[u] != r}
        self.walks.update(walks)
        for r in roots_old:
            self.roots.discard(r)
            del self._marks[r]
        self.roots.update(roots_new)
        self._marks.update(marks)
        self._take(uri, old_facts, old_uris, pulled, triggers)
        return _span(self._at[uri], start, old_uris, new_uris, changed)

    @property
    def exact(self) -> bool:
        """Whether ``replace`` can take an edited document in: no ``add`` or ``remove``
        changed the order since it was walked (they keep what placing reads, not every
        field ``replace`` reads; ``DocumentEdits.prepare_updates`` walks it again then)."""
        return self._exact

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

    def reach(self, doc: FileResult) -> tuple[str, ...]:
        """The autoloaded constants ``doc``'s load-time references reach, in the order it
        reaches them: what, besides its requires, decides where it pulls files in. An edit
        that changes it moves other documents (the caller computes the order again)."""
        if not self.autoloads:
            return ()
        return tuple(name for name, _, _, _ in self._reached(doc))

    def _reached(self, doc: FileResult, candidates: Iterable[_Candidate] | None = None) -> Iterator[tuple[str, Require, int, int]]:
        """(name, autoload, start, end of the reference) for each autoloaded constant
        ``doc``'s load-time references reach, first reference first: each name is tried in
        the namespaces around the reference, innermost first, as Ruby's lexical lookup does
        (and every prefix of a path, ``A::B::C`` reaching ``A`` and ``A::B`` first).
        ``candidates``: ``doc``'s (``_candidates``), when known."""
        taken: set[str] = set()
        autoloads = self.autoloads
        for names, start, end in _iter_candidates(doc) if candidates is None else candidates:
            for name in names:
                req = autoloads.get(name)
                if req is None:
                    continue
                if name not in taken:
                    taken.add(name)
                    yield name, req, start, end
                break

    def _triggered(self, doc: FileResult, seen: set[str], candidates: Iterable[_Candidate] | None = None) -> list[str | None]:
        """The autoloaded files, not loaded yet, that ``doc``'s load-time references reach
        (``_reached``): what the requires of their paths at the references load (URIs)."""
        out: list[str | None] = []
        for _, req, start, end in self._reached(doc, candidates):
            target = self.target(doc, req)
            if target is not None and target.uri not in seen and target.uri != doc.uri:
                if req.relative:  # Required as a feature path, as ``autoload`` does.
                    target = self.target(doc, Require(req.path, False, start, end))
                out.append(target.uri if target is not None else None)
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
        self._exact = False  # ``ordered`` no longer holds every document: ``replace`` says no.
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
        self._exact = False  # ``ordered`` still holds the document: ``replace`` says no.
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
