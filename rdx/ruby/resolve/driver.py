"""The resolver: one resolution run over documents, assembled from the role modules."""

from __future__ import annotations

from collections.abc import Iterable

from rdx.model.records import FileResult
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.documents import DocumentEdits
from rdx.ruby.resolve.order import keyed, load_order
from rdx.ruby.resolve.vocabulary import Phase

__all__ = ["Resolver", "resolve_documents"]


def resolve_documents(documents: Iterable[FileResult]) -> ResolvedState:
    """Resolve ``documents`` from scratch into a new ResolvedState."""
    return Resolver(keyed(load_order(documents))).run()


class Resolver(DocumentEdits):
    """One resolution run over documents in load order: the phases of the role modules, in
    order, writing one new ResolvedState (see ``run``). After the run it stays the writer of
    later revisions (``refresh_document``, ``refresh_members``), each a new state; queries
    never use it, they read a ``Lookup`` over a published state."""

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
        self.build.enter(Phase.SETTLED)
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
        self.state.ancestors = self.chains.chain_of
        # Chains computed more than once while phase 1 ran report their problems each time.
        self.state.diagnostics = list(dict.fromkeys(self.state.diagnostics))
        return self.state
