"""Phase 4: constant references and method-call receivers of each document."""

from __future__ import annotations

from rdx.model.kinds import ReceiverKind


class References:
    """The reference phase; mixed into the Resolver."""

    def _phase_references(self) -> None:
        const_targets: dict[int, list[int | None]] = {}
        receivers: dict[int, list[int | None]] = {}
        for doc in self.docs:
            const_targets[doc], receivers[doc] = self._document_references(doc)
        self.state.constant_targets = const_targets
        self.state.method_receivers = receivers

    def _document_references(self, doc: int) -> tuple[list[int | None], list[int | None]]:
        """Resolved constant references and method-call receivers of one document."""
        result = self.docs[doc]
        targets: list[int | None] = []
        for ref in result.const_refs:
            site = self.cref(doc, ref.scope)
            targets.append(self.lookup_path(ref.path, site) if site is not None else None)
        recv: list[int | None] = []
        self_cache: dict[int, int | None] = {}
        for mref in result.method_refs:
            rk = mref.receiver_kind
            if rk == ReceiverKind.IMPLICIT_SELF or rk == ReceiverKind.SELF:
                if mref.scope not in self_cache:
                    self_cache[mref.scope] = self.self_class(doc, mref.scope)
                recv.append(self_cache[mref.scope])
            elif rk == ReceiverKind.CONSTANT or rk == ReceiverKind.CONSTANT_INSTANCE:
                site = self.cref(doc, mref.scope)
                ns = self.lookup_namespace(mref.receiver, site) if site is not None and mref.receiver else None
                if ns is not None and rk == ReceiverKind.CONSTANT:
                    ns = self.decls[ns].singleton  # None for a placeholder: nothing to look up there.
                recv.append(ns)
            else:
                recv.append(None)
        return targets, recv
