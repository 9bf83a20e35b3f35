"""Persistence of the resolved graph: export to and restore from a ResolvedImage."""

from __future__ import annotations

import msgspec

from rdx.model.store import MemberBookkeeping, ResolvedImage
from rdx.ruby.resolve.loadcalls import AppliedMixin
from rdx.ruby.resolve.references import References


class Image(References):
    """Export and restore; mixed into the Resolver."""


    def _load_members(self) -> None:
        if self._members_raw is None:
            return
        book = msgspec.msgpack.decode(self._members_raw, type=MemberBookkeeping)
        self._members_raw = None
        self._member_index = book.member_index
        self._doc_owners = {k: set(o) for k, o in book.doc_owners.items()}
        self._lookup_keys = {k: set(v) for k, v in book.lookup_keys.items()}

    def export(self, fingerprint: str) -> ResolvedImage:
        """The resolved state and the bookkeeping later queries and edits need, as plain data."""
        if self._times_raw is not None:
            self._load_times()
        self._load_members()
        state = self.state
        externals = []
        for ns, entries in self._external.items():
            for doc, _scope, mixin in entries:
                own = self.docs[doc].external_mixins
                if isinstance(mixin, AppliedMixin):
                    # A load-time call's (``loadcalls``): numbered after the document's own.
                    position = len(own) + next(i for i, a in enumerate(self._applied[doc]) if a.mixin is mixin)
                else:
                    position = next(i for i, e in enumerate(own) if e.mixin is mixin)
                externals.append((ns, doc, position))
        return ResolvedImage(
            fingerprint=fingerprint,
            uris={k: d.uri for k, d in self.docs.items()},
            declarations=self.decls,
            definition_declarations=self.def_decl,
            constant_targets=state.constant_targets,
            method_receivers=state.method_receivers,
            ancestor_ids=list(self._ancestors),
            ancestors=list(self._ancestors.values()),
            diagnostics=state.diagnostics,
            object_id=self.object_id,
            object_mixins=self._object_mixins,
            externals=externals,
            concern_deps=self._concern_deps,
            concern_cache=self._concern_cache,
            member_created=sorted(self._member_created),
            removed_keys={k: sorted(v) for k, v in self._removed_keys.items()},
            members=msgspec.Raw(
                msgspec.msgpack.encode(
                    MemberBookkeeping(
                        member_index=self._member_index,
                        doc_owners={k: sorted(o, key=lambda x: -1 if x is None else x) for k, o in self._doc_owners.items()},
                        lookup_keys={k: sorted(v) for k, v in self._lookup_keys.items()},
                    )
                )
            ),
            times=msgspec.Raw(msgspec.msgpack.encode([self._times[d] for d in self._ancestors])),
        )
