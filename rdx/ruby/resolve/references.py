"""Phase 4: constant references and method-call receivers of each document."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from rdx.model.kinds import ReceiverKind
from rdx.model.records import ConstRef, MethodRef
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.lookup import StateView

if TYPE_CHECKING:
    from rdx.ruby.resolve.lookup import Binding, Lookup

# The rows of the resolved state that only this module writes (``tests/test_architecture.py``).
OWNED_STATE_FIELDS = ("constant_targets", "method_receivers")

Rows = tuple[list[int | None], list[int | None]]


class References(StateView):
    """The references pass: constant references and call receivers, per document."""

    def __init__(self, binding: Binding, *, lookup: Lookup) -> None:
        self.lookup = lookup
        binding.join(self)

    def store_references(
        self,
        state: ResolvedState,
        doc: int,
        names: set[str] | None,
        unnamed: set[str] | None = None,
        deleted: AbstractSet[int] = frozenset(),
        loading: set[str] | None = None,
    ) -> None:
        """Resolve document ``doc``'s references again into ``state``: all of them (``names``
        None), or those naming one of ``names``, and those naming one of ``unnamed`` (names
        of ``deleted`` declarations) that found a deleted declaration or whose path has more
        than one segment (call receivers naming one: all of them). Deleting a declaration changes no other
        lookup of one name: a lookup that found something else did not reach it (chains that
        change are refreshed by name), and one that found nothing still finds nothing.
        ``loading``: names of namespaces that gained or lost a body elsewhere; of the references
        starting with one, those that run while the file loads (whether the namespace is
        defined before them may have changed: ``Lookup.lookup_path_at``, which decides that
        for a path's first segment only)."""
        if names is None:
            rows = self._document_references(doc)
        else:
            rows = self._references_naming(doc, names, unnamed, deleted, loading)
        state.constant_targets[doc], state.method_receivers[doc] = rows

    def open_rows(self, state: ResolvedState, doc: int) -> None:
        """A new document has no references resolved yet."""
        state.constant_targets[doc] = []
        state.method_receivers[doc] = []

    def drop_rows(self, state: ResolvedState, doc: int) -> None:
        del state.constant_targets[doc]
        del state.method_receivers[doc]

    def install_rows(self, state: ResolvedState, constant_targets: dict[int, list[int | None]], method_receivers: dict[int, list[int | None]]) -> None:
        """The rows of a restored image."""
        state.constant_targets = constant_targets
        state.method_receivers = method_receivers

    def phase_references(self) -> None:
        const_targets: dict[int, list[int | None]] = {}
        receivers: dict[int, list[int | None]] = {}
        for doc in self.docs:
            const_targets[doc], receivers[doc] = self._document_references(doc)
        self.state.constant_targets = const_targets
        self.state.method_receivers = receivers

    def _document_references(self, doc: int) -> Rows:
        """Resolved constant references and method-call receivers of one document."""
        result = self.docs[doc]
        targets: list[int | None] = []
        for ref in result.const_refs:
            targets.append(self._constant_reference(doc, ref))
        recv: list[int | None] = []
        self_cache: dict[int, int | None] = {}
        for mref in result.method_refs:
            rk = mref.receiver_kind
            if rk == ReceiverKind.IMPLICIT_SELF or rk == ReceiverKind.SELF:
                if mref.scope not in self_cache:
                    self_cache[mref.scope] = self.lookup.self_class(doc, mref.scope)
                recv.append(self_cache[mref.scope])
            else:
                recv.append(self._constant_receiver(doc, mref))
        return targets, recv

    def _constant_reference(self, doc: int, ref: ConstRef) -> int | None:
        """What a constant reference names where it is written.

        A reference that runs while its file loads (outside method bodies) cannot see a
        constant that the same file assigns only further down, when no other file defines
        it: Ruby's lookup goes on past it (``X`` ahead of ``X = ...`` in a class body finds an
        outer ``X``; see ``lookup_path_at``, which superclasses and mixins share)."""
        site = self.lookup.cref(doc, ref.scope)
        if site is None:
            return None
        if self.lookup.in_method_body(doc, ref.scope):
            return self.lookup.lookup_path(ref.path, site)
        return self.lookup.lookup_path_at(ref.path, site, doc, ref.path.start)

    def _constant_receiver(self, doc: int, mref: MethodRef) -> int | None:
        """Where ``Foo.bar`` (the singleton class) or ``Foo.new.bar`` (Foo) looks ``bar`` up."""
        rk = mref.receiver_kind
        if rk != ReceiverKind.CONSTANT and rk != ReceiverKind.CONSTANT_INSTANCE:
            return None
        site = self.lookup.cref(doc, mref.scope)
        path = mref.receiver
        if site is None or path is None:
            return None
        ns = self.lookup.lookup_namespace_at(path, site, doc, mref.scope)
        if ns is not None and rk == ReceiverKind.CONSTANT:
            ns = self.decls[ns].singleton  # None for a placeholder: nothing to look up there.
        return ns

    def _references_naming(
        self, doc: int, names: set[str], unnamed: set[str] | None = None, deleted: AbstractSet[int] = frozenset(), loading: set[str] | None = None
    ) -> Rows:
        """The document's references again, where only those whose constant path (or call
        receiver) names one of ``names``, or names one of ``unnamed`` and found a ``deleted``
        declaration or has more than one segment (a receiver: any), or starts with one of
        ``loading`` and runs while the file loads, can have changed: the others keep their
        answers (see ``store_references``)."""
        state = self.state
        result = self.docs[doc]
        gone = unnamed or set()
        loads = loading or set()
        in_body: dict[int, bool] = {}

        def at_load(scope: int) -> bool:
            if scope not in in_body:
                in_body[scope] = self.lookup.in_method_body(doc, scope)
            return not in_body[scope]

        targets = list(state.constant_targets[doc])
        for i, ref in enumerate(result.const_refs):
            segments = ref.path.segments
            if (
                not names.isdisjoint(segments)
                or (not gone.isdisjoint(segments) and (len(segments) > 1 or targets[i] in deleted))
                or (segments and segments[0] in loads and at_load(ref.scope))
            ):
                targets[i] = self._constant_reference(doc, ref)
        # A receiver's lookup follows a constant alias at its end (``Y = X; Y.new``): it may
        # have found something else through a deleted one, so every one naming it is redone.
        names = names | gone
        recv = list(state.method_receivers[doc])
        for i, mref in enumerate(result.method_refs):
            receiver = mref.receiver
            if receiver is not None and (
                not names.isdisjoint(receiver.segments) or (receiver.segments and receiver.segments[0] in loads and at_load(mref.scope))
            ):
                recv[i] = self._constant_receiver(doc, mref)
        return targets, recv
