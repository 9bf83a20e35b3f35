"""The graph the repository map ranks: files and declarations, joined by resolved references.

Nodes are the project's files and its declarations (Ruby's and every other language's; Ruby
core and placeholders left out). Edges:

- file -> declaration for every use in that file: Ruby constant references (through aliases),
  method calls whose receiver resolves (the method found through the receiver's ancestors),
  superclasses and mixins of the namespaces the file defines, and the resolved calls, types
  and bases of other languages. A call whose receiver is unknown (a name-only guess) adds no
  rank at all: it is kept for the annotations only (at a fifth of the weight), and only when one
  method of the project has that name, stubs not counted (``line.strip`` was credited to a
  Sorbet stub's ``Spoom::...#strip``, the one ``strip`` in ruby-lsp's files), for a call
  outside stubs whose receiver is not a constant (one that does not resolve is not the
  project's).
- file -> file for the imports of other languages (half weight).
- file -> declaration it defines (a quarter), declaration -> the file defining it, and member
  -> owner (half): rank flows from what is used to where it lives and what holds it.

Many uses of one target from one file count as their square root (one file calling ``save``
forty times is not forty votes); uses from test files count a tenth, uses of private methods
half.

Stub files (``is_stub_path``: RBI and RBS signatures, ``.pyi`` and ``.d.ts`` stubs, anything
under ``sorbet/rbi/``, ``vendor/``, ``third_party/``) describe code the project does not own.
Tapioca writes megabytes of them, with thousands of declarations each, and they would take the
map (on Shopify's ruby-lsp, the first 80 lines were ``sorbet/rbi/gems``). So: a use from a stub
file or of a declaration only stubs define counts a tenth; the global ranking teleports only to
the project's own nodes (PageRank personalized toward every node that is not a stub); stub
nodes are dead ends (their edges are left out of the ranking: rank that reaches a stub goes back
to the project instead of circulating among the stubs); a declaration's home is its first
definition outside stubs (and tests) when it has one; and ``rdx.map.repomap`` lists stub
declarations only after the project's (``stub_mask``). All of this is off when the focus itself
is in stubs (``about_stubs``).

Ranked with networkx's PageRank, globally (cached per graph revision) or personalized toward
focus nodes. Also kept for the map's annotations: per declaration, the files that use it
(``←``) and, per declaration, the declarations its body calls (``→``).
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
# networkx and numpy (half a second to import) load with the first map, not with ``import rdx``:
# every CLI command and server start pays for the import of rdx.

from rdx.model.kinds import ReceiverKind
from rdx.model.store import CORE_URI
from rdx.ruby.query.handles import View

__all__ = ["MapGraph", "is_stub_path", "is_test_path"]

_TEST_PATH = re.compile(r"(^|/)(test|tests|spec|specs|__tests__|testdata)/|_(test|spec)\.(rb|py|go|js|ts)$|(^|/)test_[^/]*\.py$|\.(test|spec)\.[jt]sx?$")
# Signatures of code the project does not own, and vendored copies of it (matched on the path
# below the directory all the project's files share, so a project kept under ``~/vendor/`` is
# not all stubs).
_STUB_PATH = re.compile(r"\.(rbi|rbs|pyi)$|\.d\.[cm]?ts$|(^|/)(sorbet/rbi|vendor|vendored|third_party)/")
_SKIPPED_KINDS = frozenset({"Todo", "SingletonClass", "InstanceVariable", "ClassVariable", "GlobalVariable"})
_GUESS = 0.2
_TEST_SOURCE = 0.1
_STUB = 0.1
_PRIVATE_TARGET = 0.5
_IMPORT = 0.5
_DEFINES = 0.25
_OWNER = 0.5
_CONSTANT_RECEIVERS = frozenset({ReceiverKind.CONSTANT, ReceiverKind.CONSTANT_INSTANCE})
# Ancestors every Ruby class has: edges to them say nothing about a file.
_UBIQUITOUS = frozenset({"Object", "Kernel", "BasicObject", "Comparable", "Enumerable"})


def is_test_path(path: str) -> bool:
    return _TEST_PATH.search(path) is not None


def is_stub_path(path: str) -> bool:
    """Whether ``path`` (relative to the project) is a stub or vendored file (see the module
    docstring): ``sorbet/rbi/gems/prism@1.9.0.rbi``, ``vendor/x/lib/x.rb``, ``types/x.d.ts``."""
    return _STUB_PATH.search(path) is not None


class MapGraph:
    """The files and declarations of one view, their weighted edges and the global ranking."""

    def __init__(self, view: View) -> None:
        self.view = view
        # Node numbering: files first (by URI order), then declarations.
        self.files: list[str] = []
        self.file_index: dict[str, int] = {}
        self.decl_index: dict[int, int] = {}
        self.decls: list[int] = []
        self.paths: dict[str, str] = {}
        # URIs of the stub files (``is_stub_path``), and each kept declaration's home definition.
        self.stub_files: set[str] = set()
        self._homes: dict[int, str] = {}
        # Declaration id -> Counter of file URIs that use it (weighted).
        self.used_by: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        # Declaration id -> declaration ids its body uses (weighted).
        self.calls: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
        self._edges: dict[tuple[int, int], float] = defaultdict(float)
        self._uses: dict[tuple[int, int], float] = defaultdict(float)
        self._build()
        import networkx as nx  # type: ignore[import-untyped]

        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(range(len(self.files) + len(self.decls)))
        self.graph.add_weighted_edges_from((a, b, w) for (a, b), w in self._edges.items())
        for (a, b), w in self._uses.items():
            weight = math.sqrt(w)
            if self.graph.has_edge(a, b):
                self.graph[a][b]["weight"] += weight
            else:
                self.graph.add_edge(a, b, weight=weight)
        self._global: np.ndarray | None = None
        # Transition matrices, with and without the stubs' edges (see ``rank``).
        self._transitions: dict[bool, tuple[Any, np.ndarray]] = {}
        self._file_users: dict[str, int] | None = None
        self._bare: dict[str, list[int]] | None = None
        self._shown: np.ndarray | None = None
        self._stubs: np.ndarray | None = None

    # -- building --------------------------------------------------------------------------

    def _file(self, uri: str, path: str | None) -> int:
        node = self.file_index.get(uri)
        if node is None:
            node = self.file_index[uri] = len(self.files)
            self.files.append(uri)
            self.paths[uri] = path or uri
        return node

    def _decl(self, decl_id: int) -> int:
        node = self.decl_index.get(decl_id)
        if node is None:
            node = self.decl_index[decl_id] = -1 - len(self.decls)
            self.decls.append(decl_id)
        return node

    def _use(self, uri: str, test: bool, source: int | None, target: int, weight: float, ranked: bool = True) -> None:
        """Record a use of ``target`` from the file at ``uri`` (inside the declaration
        ``source``): for the annotations always, for the ranking when ``ranked``."""
        if test:
            weight *= _TEST_SOURCE
        if uri in self.stub_files or self.is_stub(target):
            weight *= _STUB
        if ranked:
            self._uses[(self.file_index[uri], self._decl(target))] += weight
        self.used_by[target][uri] += weight
        if source is not None and source != target:
            self.calls[source][target] += weight

    def _build(self) -> None:
        state = self.view.state
        for doc in state.documents.values():
            if doc.uri != CORE_URI and doc.library is None:
                self._file(doc.uri, doc.path)
        self.stub_files = self._find_stubs()
        self._ruby()
        self._foreign()
        # Declaration nodes were numbered negative while files were still being added.
        offset = len(self.files)
        self._edges = defaultdict(float, {(self._fix(a, offset), self._fix(b, offset)): w for (a, b), w in self._edges.items()})
        self._uses = defaultdict(float, {(self._fix(a, offset), self._fix(b, offset)): w for (a, b), w in self._uses.items()})
        self.decl_index = {d: offset + i for i, d in enumerate(self.decls)}

    def _find_stubs(self) -> set[str]:
        """The stub files, their paths matched below the directory every file shares."""
        paths = self.paths.values()
        directories = {os.path.dirname(p) for p in paths if os.path.isabs(p)}
        try:
            base = os.path.commonpath(directories) if directories else ""
        except ValueError:  # Paths of different drives.
            base = ""
        prefix = base.rstrip("/") + "/" if base else ""
        return {uri for uri, path in self.paths.items() if is_stub_path(path.removeprefix(prefix) if prefix else path)}

    def _home_of(self, uris: list[str]) -> str:
        """Of the files defining a declaration (in definition order), the one it is listed in:
        the first that is neither a stub nor a test, else the first that is not a stub."""
        def order(uri: str) -> tuple[bool, bool]:
            return uri in self.stub_files, is_test_path(self.paths.get(uri, uri))

        return min(uris, key=order)

    def is_stub(self, decl_id: int) -> bool:
        """Whether every definition of the declaration is in a stub file."""
        home = self.home(decl_id)
        return home is not None and home in self.stub_files

    @staticmethod
    def _fix(node: int, offset: int) -> int:
        return node if node >= 0 else offset + (-1 - node)

    def _keep(self, decl_id: int | None) -> bool:
        if decl_id is None:
            return False
        rec = self.view.state.declarations.get(decl_id)
        if rec is None or rec.kind in _SKIPPED_KINDS or not rec.definitions:
            return False
        # Ruby core's classes reopened by the project (``class String``) stay out: every
        # project would rank them first, which tells an agent nothing. So do its gems'.
        documents = self.view.state.documents
        return all(documents[k].uri != CORE_URI and documents[k].library is None for k, _ in rec.definitions)

    def _ruby(self) -> None:
        view = self.view
        state = view.state
        lookup = view.lookup
        # The project's methods by name, stubs' left out: a guess names the only one.
        by_name: dict[str, list[int]] = defaultdict(list)
        for rec in state.declarations.values():
            if rec.kind == "Method" and self._keep(rec.id) and not self.is_stub(rec.id):
                by_name[rec.unqualified].append(rec.id)
        found: dict[tuple[int, str], int | None] = {}
        for key, doc in state.documents.items():
            if doc.uri == CORE_URI or doc.language != "ruby" or doc.library is not None:
                continue
            test = is_test_path(doc.path or doc.uri)
            stub = doc.uri in self.stub_files
            owners = state.definition_declarations.get(key, [])
            count = len(owners)
            for cref, target in zip(doc.const_refs, state.constant_targets.get(key, ()), strict=False):
                target = lookup.follow(target) if target is not None else None
                if self._keep(target):
                    assert target is not None
                    self._use(doc.uri, test, owners[cref.scope] if 0 <= cref.scope < count else None, target, 1.0)
            for ref, receiver in zip(doc.method_refs, state.method_receivers.get(key, ()), strict=False):
                name = ref.name + "()"
                if receiver is not None:
                    cached = (receiver, name)
                    if cached not in found:
                        found[cached] = lookup.find_member(receiver, name)
                    method = found[cached]
                    if self._keep(method):
                        assert method is not None
                        rec = state.declarations[method]
                        weight = _PRIVATE_TARGET if rec.visibility == "private" else 1.0
                        self._use(doc.uri, test, owners[ref.scope] if 0 <= ref.scope < count else None, method, weight)
                elif not stub and ref.receiver_kind not in _CONSTANT_RECEIVERS:
                    # Not guessed: calls in stubs (``T::Array[...]`` in every ``sig``) and calls on a
                    # constant that does not resolve (not the project's, so neither is the method).
                    candidates = by_name.get(name, ())
                    if len(candidates) == 1:
                        # The call may run something else altogether: annotated, not ranked.
                        self._use(doc.uri, test, owners[ref.scope] if 0 <= ref.scope < count else None, candidates[0], _GUESS, ranked=False)
            for decl_id in owners:
                if decl_id is None or not self._keep(decl_id):
                    continue
                self._edges[(self.file_index[doc.uri], self._decl(decl_id))] += _DEFINES
                rec = state.declarations[decl_id]
                if rec.is_namespace:
                    for ancestor in self.direct_ancestors(decl_id):
                        self._use(doc.uri, test, decl_id, ancestor, 1.0)
        for rec in state.declarations.values():
            if not self._keep(rec.id):
                continue
            node = self._decl(rec.id)
            home = self.home(rec.id)
            assert home is not None
            self._edges[(node, self.file_index[home])] += 1.0
            if rec.owner is not None and rec.owner != rec.id:
                owner = state.declarations.get(rec.owner)
                if owner is not None and owner.kind == "SingletonClass":
                    owner = state.declarations.get(owner.attached) if owner.attached is not None else None
                if owner is not None and self._keep(owner.id):
                    self._edges[(node, self._decl(owner.id))] += _OWNER

    def direct_ancestors(self, decl_id: int) -> list[int]:
        """The superclass and the modules a namespace itself includes, prepends or extends,
        not what those bring (Object's mixins would make every class point at them)."""
        state = self.view.state
        chain = self.view.chain(decl_id)
        superclass = state.declarations[decl_id].superclass
        direct = []
        for ancestor in chain:
            if ancestor == decl_id:
                continue  # Prepended modules come before the namespace itself.
            rec = state.declarations.get(ancestor)
            if rec is not None and rec.name not in _UBIQUITOUS and self._keep(ancestor):
                direct.append(ancestor)
            if ancestor == superclass:
                break
        return direct

    def _foreign(self) -> None:
        foreign = self.view.foreign
        state = foreign.state
        for uri, doc in state.files.items():
            test = is_test_path(doc.path or uri)
            ids = state.symbol_declarations.get(uri, ())
            for ref, target in zip(doc.references, state.reference_targets.get(uri, ()), strict=False):
                if target is not None:
                    self._use(uri, test, ids[ref.scope] if ref.scope >= 0 else None, target, 1.0)
            for files in state.import_targets.get(uri, ()):
                for other in files:
                    if other != uri and other in self.file_index:
                        self._edges[(self.file_index[uri], self.file_index[other])] += _IMPORT * (_TEST_SOURCE if test else 1.0)
            for decl_id in set(ids):
                self._edges[(self.file_index[uri], self._decl(decl_id))] += _DEFINES
        for decl in state.declarations.values():
            node = self._decl(decl.id)
            home = self.home(decl.id)
            assert home is not None
            self._edges[(node, self.file_index[home])] += 1.0
            owner = foreign.owner_of(decl)
            if owner is not None:
                self._edges[(node, self._decl(owner))] += _OWNER

    # -- what the map's annotations read ------------------------------------------------

    def home(self, decl_id: int) -> str | None:
        """The URI of the file a declaration is listed in: its first definition outside stubs
        and tests, else outside stubs, else its first (``definition``'s file)."""
        home = self._homes.get(decl_id)
        if home is None:
            rec = self.view.state.declarations.get(decl_id)
            if rec is not None:
                documents = self.view.state.documents
                uris = [documents[k].uri for k, _ in rec.definitions]
            else:
                decl = self.view.foreign.state.declarations.get(decl_id)
                uris = [uri for uri, _ in decl.definitions] if decl is not None else []
            if not uris:
                return None
            home = self._homes[decl_id] = self._home_of(uris)
        return home

    def definition(self, decl_id: int) -> int:
        """The index (in the declaration's definitions) of the one in its ``home`` file."""
        home = self.home(decl_id)
        rec = self.view.state.declarations.get(decl_id)
        if rec is not None:
            documents = self.view.state.documents
            return next((i for i, (k, _) in enumerate(rec.definitions) if documents[k].uri == home), 0)
        decl = self.view.foreign.state.declarations.get(decl_id)
        return next((i for i, (uri, _) in enumerate(decl.definitions) if uri == home), 0) if decl is not None else 0

    def short_name(self, decl_id: int) -> str:
        rec = self.view.state.declarations.get(decl_id)
        if rec is not None:
            return rec.unqualified.removesuffix("()")
        decl = self.view.foreign.state.declarations.get(decl_id)
        return decl.unqualified if decl is not None else "?"

    def shown_mask(self) -> np.ndarray:
        """Per declaration (in node order): whether a map may list it: not in a test file, and
        not a method only a macro or a schema column defines that nothing uses (a model with
        ten columns has two hundred of those; the ones the code calls are shown)."""
        import numpy as np
        if self._shown is None:
            self._shown = np.array(
                [not is_test_path(self.paths.get(h, h)) and not self._idle_generated(d) if (h := self.home(d)) is not None else False for d in self.decls],
                dtype=bool,
            )
        return self._shown

    def stub_mask(self) -> np.ndarray:
        """Per node (files, then declarations): whether it is a stub file or a declaration only
        stubs define."""
        import numpy as np
        if self._stubs is None:
            self._stubs = np.array([u in self.stub_files for u in self.files] + [self.is_stub(d) for d in self.decls], dtype=bool)
        return self._stubs

    def _idle_generated(self, decl_id: int) -> bool:
        rec = self.view.state.declarations.get(decl_id)
        if rec is None or rec.kind != "Method" or decl_id in self.used_by:
            return False
        documents = self.view.state.documents
        return all(documents[doc].definitions[index].generated for doc, index in rec.definitions)

    def named(self, name: str) -> list[int]:
        """Declarations whose bare name is ``name`` (``Product``, ``save``, ``format_cents``)."""
        if self._bare is None:
            table: dict[str, list[int]] = defaultdict(list)
            for decl_id in self.decls:
                table[self.short_name(decl_id)].append(decl_id)
            self._bare = table
        return list(self._bare.get(name.removesuffix("()"), ()))

    def file_users(self, uri: str) -> int:
        """How many other files use something defined in the file at ``uri``."""
        if self._file_users is None:
            table: dict[str, set[str]] = defaultdict(set)
            for decl_id, users in self.used_by.items():
                home = self.home(decl_id)
                if home is not None:
                    table[home].update(u for u in users if u != home)
            self._file_users = {u: len(s) for u, s in table.items()}
        return self._file_users.get(uri, 0)

    # -- ranking ---------------------------------------------------------------------------

    def about_stubs(self, focus: Iterable[int]) -> bool:
        """Whether a focus names a stub (file or declaration): then stubs are ranked and listed
        as the project's own code is, since the agent asked about them."""
        mask = self.stub_mask()
        return any(mask[n] for n in focus)

    def rank(self, focus: Iterable[int] = ()) -> np.ndarray:
        """PageRank of every node (an array indexed by node): global (cached) without focus,
        else personalized toward the focus nodes (teleports and dangling rank go to them).

        Unless the focus is in stubs (``about_stubs``), stub nodes are dead ends: their edges
        are left out, so a visit to a stub goes back to the project as from a node with no
        edges, and stubs hold only the rank the project's uses give them instead of passing
        it around thousands of their own declarations. And the global ranking teleports only
        to nodes that are not stubs (to all if all are)."""
        nodes = sorted(set(focus))
        if not nodes:
            if self._global is None:
                self._global = self._pagerank(None, True)
            return self._global
        return self._pagerank(nodes, not self.about_stubs(nodes))

    def _matrix(self, sink_stubs: bool) -> tuple[Any, np.ndarray]:
        """The row-normalized transition matrix (without the stubs' edges with
        ``sink_stubs``), built once per graph with networkx (its PageRank would convert the
        graph again on every call: most of a focused map's time)."""
        import networkx as nx  # type: ignore[import-untyped]
        import numpy as np
        cached = self._transitions.get(sink_stubs)
        if cached is None:
            import scipy as sp  # type: ignore[import-untyped]

            matrix = nx.to_scipy_sparse_array(self.graph, nodelist=range(len(self.graph)), weight="weight", dtype=float)
            sums = np.asarray(matrix.sum(axis=1)).ravel()
            if sink_stubs:
                sums[self.stub_mask()] = 0.0
            dangling = np.where(sums == 0)[0]
            sums[sums != 0] = 1.0 / sums[sums != 0]
            matrix = sp.sparse.dia_array((sums, 0), shape=matrix.shape).tocsr() @ matrix
            matrix.eliminate_zeros()
            cached = self._transitions[sink_stubs] = (matrix.tocsr(), dangling)
        return cached

    def _pagerank(self, focus: list[int] | None, sink_stubs: bool, alpha: float = 0.85, tol: float = 1e-8, max_iter: int = 100) -> np.ndarray:
        """networkx's PageRank (``_pagerank_scipy``: the same power iteration, personalization
        and dangling weights; ``tests/test_repomap.py`` and ``tests/test_repomap_stubs.py``
        check the two agree) over the matrix built once."""
        import networkx as nx  # type: ignore[import-untyped]
        import numpy as np
        n = len(self.graph)
        if n == 0:
            return np.zeros(0)
        matrix, dangling = self._matrix(sink_stubs)
        if focus is None:
            own = ~self.stub_mask()
            p = own / own.sum() if own.any() else np.full(n, 1.0 / n)
        else:
            p = np.zeros(n)
            p[focus] = 1.0 / len(focus)
        x = np.full(n, 1.0 / n)
        for _ in range(max_iter):
            last = x
            x = alpha * (x @ matrix + x[dangling].sum() * p) + (1 - alpha) * p
            if np.absolute(x - last).sum() < n * tol:
                return x
        raise nx.PowerIterationFailedConvergence(max_iter)
