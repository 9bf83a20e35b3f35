"""Persistence of the resolved graph: export to and restore from a ResolvedImage."""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

import msgspec

from rdx.model.store import ResolvedImage
from rdx.ruby.resolve.loadcalls import AppliedMixin
from rdx.ruby.resolve.lookup import StateView

if TYPE_CHECKING:
    from rdx.ruby.resolve.ancestors import Ancestors, Chains
    from rdx.ruby.resolve.builder import Build
    from rdx.ruby.resolve.concerns import ConcernBook
    from rdx.ruby.resolve.loadcalls import LoadCallBook, LoadCalls
    from rdx.ruby.resolve.lookup import Binding
    from rdx.ruby.resolve.members import MemberBook
    from rdx.ruby.resolve.namespaces import ExternalBook
    from rdx.ruby.resolve.references import References

_NAME = attrgetter("name")


class Image(StateView):
    """Export and restore of a resolver's parts, together: what one writes the other reads."""

    def __init__(
        self,
        binding: Binding,
        *,
        build: Build,
        chains: Chains,
        concern_book: ConcernBook,
        externals: ExternalBook,
        linearizer: Ancestors,
        load_book: LoadCallBook,
        loadcalls: LoadCalls,
        member_book: MemberBook,
        references: References,
    ) -> None:
        self.binding = binding
        self.build = build
        self.chains = chains
        self.concern_book = concern_book
        self.externals = externals
        self.linearizer = linearizer
        self.load_book = load_book
        self.loadcalls = loadcalls
        self.member_book = member_book
        self.references = references
        binding.join(self)

    def restore(self, image: ResolvedImage) -> None:
        """Put the resolver in the state ``export`` saved (the documents it was built over are
        the image's, in its order; see ``Resolver.restore``)."""
        documents = self.docs
        state = self.state
        decls = image.declarations
        state.declarations = decls
        # Built in C (zip of the names with the ids): a dict comprehension takes twice as long.
        state.by_name = dict(zip(map(_NAME, decls.values()), decls, strict=True))
        state.definition_declarations = image.definition_declarations
        self.references.install_rows(state, image.constant_targets, image.method_receivers)
        state.diagnostics = image.diagnostics
        state.ancestors = self.chains.restore(image.ancestor_ids, image.ancestors, image.times, decls)
        state.object_id = image.object_id
        self.binding.read(state)
        by_name = state.by_name
        self.build.well_known(by_name["BasicObject"], by_name["Kernel"], by_name["Module"], by_name["Class"])
        self.externals.restore(image.object_mixins)
        if any(r.load_calls for r in documents.values()):
            # Mixins of load-time calls across files: bound again, in the same order (the
            # image numbers them after each document's own external mixins).
            index = self.loadcalls.callee_index()
            for doc, r in documents.items():
                if r.load_calls and (a := self.loadcalls.applied_mixins(index, doc, r)):
                    self.load_book.set_applied(doc, a)
        for ns, doc, position in image.externals:
            own = documents[doc].external_mixins
            if position >= len(own):
                applied = self.load_book.applied.get(doc, [])
                if position - len(own) < len(applied):
                    self.externals.attach(ns, doc, -1, applied[position - len(own)].mixin)
                continue
            ext = own[position]
            self.externals.attach(ns, doc, ext.mixin_site, ext.mixin)
        self.concern_book.restore(image.concern_deps, image.concern_cache)
        self.build.restore(image.member_created)
        self.member_book.restore(image.members, image.removed_keys)

    def export(self, fingerprint: str) -> ResolvedImage:
        """The resolved state and the bookkeeping later queries and edits need, as plain data."""
        if self.chains.times_raw is not None:
            self.linearizer.load_times()
        state = self.state
        externals = []
        for ns, entries in self.externals.external_of.items():
            for doc, _scope, mixin in entries:
                own = self.docs[doc].external_mixins
                if isinstance(mixin, AppliedMixin):
                    # A load-time call's (``loadcalls``): numbered after the document's own.
                    position = len(own) + next(i for i, a in enumerate(self.load_book.applied[doc]) if a.mixin is mixin)
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
            ancestor_ids=list(self.chains.chain_of),
            ancestors=list(self.chains.chain_of.values()),
            diagnostics=state.diagnostics,
            object_id=self.object_id,
            object_mixins=self.externals.object_mixins,
            externals=externals,
            concern_deps=self.concern_book.concern_deps,
            concern_cache=self.concern_book.concern_cache,
            member_created=sorted(self.build.member_created),
            removed_keys={k: sorted(v) for k, v in self.member_book.removed_keys.items()},
            members=self.member_book.encoded(),
            times=msgspec.Raw(msgspec.msgpack.encode([self.chains.times_of[d] for d in self.chains.chain_of])),
        )
