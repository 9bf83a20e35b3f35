"""The resolver: one resolution run over documents, assembled from the role modules."""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

from rdx.model.records import FileResult
from rdx.model.store import ResolvedImage, ResolvedState
from rdx.ruby.resolve.documents import DocumentEdits
from rdx.ruby.resolve.order import keyed, load_order
from rdx.ruby.resolve.vocabulary import Phase

__all__ = ["Resolver", "resolve_documents"]

_NAME = attrgetter("name")


def resolve_documents(documents: Iterable[FileResult]) -> ResolvedState:
    """Resolve ``documents`` from scratch into a new ResolvedState."""
    return Resolver(keyed(load_order(documents))).run()


class Resolver(DocumentEdits):
    """One resolution run over documents in load order: the phases of the role modules, in
    order, writing one new ResolvedState (see ``run``). After the run it stays the writer of
    later revisions (``refresh_document``, ``refresh_members``), each a new state; queries
    never use it, they read a ``Lookup`` over a published state."""

    @classmethod
    def restore(cls, documents: dict[int, FileResult], image: ResolvedImage) -> Resolver:
        """A resolver in the state ``export`` saved; ``documents`` are the image's, in its order."""
        self = cls(documents, restoring=True)
        decls = image.declarations
        self.decls = self.state.declarations = decls
        # Built in C (zip of the names with the ids): a dict comprehension takes twice as long.
        self.by_name = self.state.by_name = dict(zip(map(_NAME, decls.values()), decls, strict=True))
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
        if any(r.load_calls for r in documents.values()):
            # Mixins of load-time calls across files: bound again, in the same order (the
            # image numbers them after each document's own external mixins).
            index = self._callee_index()
            self._applied = {doc: a for doc, r in documents.items() if r.load_calls and (a := self._applied_mixins(index, doc, r))}
        for ns, doc, position in image.externals:
            own = documents[doc].external_mixins
            if position >= len(own):
                applied = self._applied.get(doc, [])
                if position - len(own) < len(applied):
                    self._external.setdefault(ns, []).append((doc, -1, applied[position - len(own)].mixin))
                continue
            ext = own[position]
            self._external.setdefault(ns, []).append((doc, ext.mixin_site, ext.mixin))
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
