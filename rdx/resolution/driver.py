"""The resolver: one resolution run over documents, assembled from the role modules."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from rdx.model.records import FileResult
from rdx.model.store import ResolvedImage, ResolvedState
from rdx.resolution.ancestors import Ancestors
from rdx.resolution.builder import Builder
from rdx.resolution.concerns import Concerns
from rdx.resolution.documents import DocumentEdits
from rdx.resolution.image import Image
from rdx.resolution.incremental import Incremental
from rdx.resolution.invalidation import Invalidation
from rdx.resolution.lookup import Lookup
from rdx.resolution.members import Members
from rdx.resolution.mentions import Mentions
from rdx.resolution.namespaces import Namespaces
from rdx.resolution.order import LoadOrder, keyed, load_order
from rdx.resolution.references import References
from rdx.resolution.skeleton import SkeletonEdits
from rdx.resolution.vocabulary import Phase

__all__ = ["Resolver", "resolve_documents"]


def resolve_documents(documents: Iterable[FileResult]) -> ResolvedState:
    """Resolve ``documents`` from scratch into a new ResolvedState."""
    return Resolver(keyed(load_order(documents))).run()


class Resolver(DocumentEdits, Incremental, SkeletonEdits, Mentions, Invalidation, Image, References, Members, Ancestors, Concerns, Namespaces, Builder, Lookup):
    """One resolution run over documents in load order: the phases of the role modules, in
    order, writing one new ResolvedState (see ``run``). After the run it stays the writer of
    later revisions (``refresh_document``, ``refresh_members``), each a new state; queries
    never use it, they read a ``Lookup`` over a published state."""

    def __init__(self, documents: dict[int, FileResult], restoring: bool = False) -> None:
        state = ResolvedState(documents=documents)
        if not restoring:
            state.definition_declarations = {key: [None] * len(d.definitions) for key, d in documents.items()}
        Lookup.__init__(self, state)
        self._ancestors: dict[int, tuple[int, ...]] = {}
        self._in_progress: dict[int, tuple[list[int], list[int]]] = {}
        self._times: dict[int, tuple[int, ...]] = {}
        # Restored from a snapshot: the encoded times and member bookkeeping, until needed.
        self._times_raw: msgspec.Raw | None = None
        self._members_raw: msgspec.Raw | None = None
        # Length of the superclass part of each chain being built (a stack, one per frame).
        self._super_len: list[int] = []
        self._superclass_done: set[int] = set()
        # Namespace id -> mixins applied from outside its body: (doc, scope index, Mixin).
        self._external: dict[int, list] = {}
        # ActiveSupport::Concern: concern module id -> concerns it includes, applied on inclusion.
        self._concern_deps: dict[int, list[int]] = {}
        self._concern_cache: dict[int, bool] = {}
        # What member edits need (see ``refresh_members``): member definitions by the namespace
        # they write into, in program order; per document, the namespaces its members write into;
        # namespaces the member phase itself created (singletons of singletons and of
        # placeholders); the methods ``remove_method`` removed, by namespace.
        self._member_index: dict[int, list[tuple[int, int]]] = {}
        self._doc_owners: dict[int, set[int | None]] = {key: set() for key in documents}
        self._member_created: set[int] = set()
        self._removed_keys: dict[int, set[str]] = {}
        # See ``Phase``; during a member replay: (namespaces being replayed, position replayed).
        self.phase = Phase.NAMESPACES
        self._replay_at: tuple[set[int], tuple[int, int]] = (set(), (0, 0))
        self._descendant_index: dict[int, list[int]] | None = None
        # Namespace -> member keys (``m()``) its aliases and visibility changes look up.
        self._lookup_keys: dict[int, set[str]] = {}
        # For edits that add namespaces and constants (``_declare_added``), built on first use.
        self._path_names: dict[int, set[str]] | None = None
        self._mentions: dict[str, set[int]] | None = None
        # Document -> (its FileResult, names its references use); rebuilt when the document changes.
        self._reference_names: dict[int, tuple[FileResult, set[str]]] = {}
        # Name -> documents whose references use it (``_documents_mentioning``), and the
        # documents edited since, whose entries may be stale.
        self._reference_index: dict[str, set[int]] | None = None
        self._touched_docs: set[int] = set()
        # Why the last incremental update gave up (for the benchmark and ``Graph.last_resolve``).
        self.fallback: str | None = None
        # The load order with what places added and removed files cheaply (built on first use).
        self._order: LoadOrder | None = None
        # URI -> document key (``key_of``), built on first use.
        self._keys: dict[str, int] | None = None

    @classmethod
    def restore(cls, documents: dict[int, FileResult], image: ResolvedImage) -> Resolver:
        """A resolver in the state ``export`` saved; ``documents`` are the image's, in its order."""
        self = cls(documents, restoring=True)
        decls = image.declarations
        self.decls = self.state.declarations = decls
        self.by_name = self.state.by_name = {rec.name: decl_id for decl_id, rec in decls.items()}
        self.def_decl = self.state.definition_declarations = image.definition_declarations
        self.state.constant_targets = image.constant_targets
        self.state.method_receivers = image.method_receivers
        self.state.diagnostics = image.diagnostics
        self._ancestors = self.state.ancestors = dict(zip(image.ancestor_ids, image.ancestors, strict=True))
        self._times_raw = image.times.copy()  # A copy: the Raw would keep the whole file alive.
        self.object_id = self.state.object_id = image.object_id
        self.basic_object_id = self.by_name["BasicObject"]
        self.kernel_id = self.by_name["Kernel"]
        self.module_id = self.by_name["Module"]
        self.class_id = self.by_name["Class"]
        self._object_mixins = image.object_mixins
        self._superclass_done = set(decls)
        for ns, doc, position in image.externals:
            ext = documents[doc].external_mixins[position]
            self._external.setdefault(ns, []).append((doc, ext.scope, ext.mixin))
        self._concern_deps = image.concern_deps
        self._concern_cache = image.concern_cache
        self.phase = Phase.SETTLED
        self._members_raw = image.members.copy()
        self._member_created = set(image.member_created)
        self._removed_keys = {k: set(v) for k, v in image.removed_keys.items()}
        return self

    def run(self) -> ResolvedState:
        """Resolve from scratch: namespaces, concerns, members, ancestors, references."""
        self._bootstrap()
        self._phase_namespaces()
        self._invalidate()
        self._collect_external_mixins()
        # Decide which modules are concerns before any ancestors are kept: deciding needs
        # constant lookups, and lookups compute ancestors, which depend on the answer.
        for decl_id in [d for d, r in self.decls.items() if r.kind == "Module"]:
            self.is_concern(decl_id)
        self.phase = Phase.SETTLED
        self._invalidate(keep_concerns=True)
        # ``self`` in a ``class << x`` body is the singleton class's singleton class: declared
        # here, from the definitions alone, so that no reference or member creates it (which
        # would make the set of declarations depend on code inside bodies).
        for decl_id in [d for d, r in self.decls.items() if r.kind == "SingletonClass" and r.definitions]:
            self.singleton(decl_id)
        self._phase_members()
        # Every class and module gets its singleton class, so ``Foo::<Foo>`` always exists.
        for decl_id in [d for d, r in self.decls.items() if r.kind in ("Class", "Module")]:
            self.singleton(decl_id)
        namespaces = [d for d, r in self.decls.items() if r.is_namespace]
        for decl_id in namespaces:
            self.ancestors(decl_id)
        for decl_id in [d for d, r in self.decls.items() if r.kind == "SingletonClass"]:
            self.ancestors(decl_id)
        for decl_id, rec in self.decls.items():
            if rec.kind == "ConstantAlias":
                rec.target = self._alias_target(decl_id)
        self._phase_references()
        self.state.ancestors = self._ancestors
        # Chains computed more than once while phase 1 ran report their problems each time.
        self.state.diagnostics = list(dict.fromkeys(self.state.diagnostics))
        return self.state
