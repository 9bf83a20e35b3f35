"""Persistence of the resolved graph: export to and restore from a ResolvedImage, and the
state a saved image publishes before (or without) a resolver (``published_state``)."""

from __future__ import annotations

import mmap
from collections.abc import Callable
from itertools import repeat
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec.structs import replace

from rdx.model.packed import (
    BisectedChains,
    LazyNames,
    PackedDeclarations,
    PackedIds,
    PackedNames,
    PackedRecords,
    PackedRows,
    pack_rows,
)
from rdx.model.records import FileResult
from rdx.model.store import ResolvedImage, ResolvedState, stored_entries
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

_encoder = msgspec.msgpack.Encoder()


def published_state(image: ResolvedImage, documents: dict[int, FileResult]) -> ResolvedState:
    """The resolved state ``image`` holds, over ``documents`` (the image's, in its order), for
    queries: what ``Image.restore`` puts in a resolver's state, without the bookkeeping only
    edits read (restored later, sharing these tables: see ``Image.restore``). Declarations are
    decoded when first read (``Declarations``)."""
    ids = PackedIds(image.declaration_ids, image.declaration_id_order)
    names = PackedNames(image.declaration_names, image.declaration_name_ends, image.declaration_name_order, ids)
    return ResolvedState(
        documents=documents,
        declarations=PackedDeclarations(ids, names, PackedRecords(image.declaration_records, image.declaration_ends)),
        # Names found by bisection until the table is needed whole (``LazyNames``); then
        # built with the strings the records decoded from then on get too.
        by_name=LazyNames(names),
        # Each document's rows decoded when read.
        definition_declarations=PackedRows(image.definition_declarations),
        constant_targets=PackedRows(image.constant_targets),
        method_receivers=PackedRows(image.method_receivers),
        # Each chain decoded when read; keyed by ids as decoded: ``share_ids`` makes them the
        # declarations' own later.
        ancestors=BisectedChains(PackedIds(image.ancestor_ids, image.ancestor_id_order), PackedRecords(image.ancestors, image.ancestor_ends)),
        diagnostics=image.diagnostics,
        object_id=image.object_id,
    )


_concern_deps_decoder = msgspec.msgpack.Decoder(dict[int, list[int]])
_concern_cache_decoder = msgspec.msgpack.Decoder(dict[int, bool])


class _Ids(dict[int | None, int | None]):
    """Declaration id -> the one int object that stands for it; any other value (None, an id
    no declaration has) stands for itself."""

    def __missing__(self, key: int | None) -> int | None:
        return key


def share_ids(state: ResolvedState) -> None:
    """Make the ids of a restored state's ancestor chains and references' rows the same int
    objects as the declarations' keys. Decoding gives every occurrence an int of its own (36
    bytes): ten million in the chains of a million declarations, five million in the rows,
    400 MB that a graph resolved in this process does not spend, since it builds its tables
    from the ids it holds (issue 21). The lookups run in C (``map``). The definitions' rows
    too: their ids are distinct from each other, but each is a declaration's id (a million
    ints on 10 copies of the Debian corpus, issue 23).

    ``Graph.open`` calls it when it restores the resolver (the first edit or
    ``prepare_queries``), not at open: a warm start to a first answer need not pay for it
    (0.1 s on the Debian corpus). Values are replaced by equal ones (the chains' table by an
    equal table, in the same order), so a reader of the published state sees the same
    answers throughout."""
    ids = _Ids(zip(state.declarations, state.declarations, strict=True))
    ids[None] = None  # Unresolved references: no call of ``__missing__`` for each.
    get: Callable[[Any], Any] = ids.__getitem__
    chains = state.ancestors
    # A new table of equal keys and chains, in the same order (a key object cannot be
    # replaced in place): a reader of the old one sees the same answers.
    state.ancestors = dict(zip(map(get, list(chains)), map(tuple, map(map, repeat(get), list(chains.values()))), strict=True))
    for table in (state.constant_targets, state.method_receivers, state.definition_declarations):
        for key, row in table.items():
            table[key] = list(map(get, row))


def _let_go_of_pages(image: ResolvedImage) -> None:
    """Let go of the pages of the mapped file ``image`` was read from that reading it put in
    the process (``MADV_DONTNEED``; the file is mapped read-only, so nothing is lost): they
    stay in the OS's page cache, and the tables that still read values there map the few they
    read again. Restoring a resolver reads the whole image (300 MB on 10 copies of the Debian
    corpus), which would otherwise stay resident on top of everything decoded from it until
    the tables let go of the file: the peak of ``Graph.prepare_queries`` (issue 21). A no-op
    for an image held in memory (``export``'s)."""
    mapped = image.declaration_records.obj if isinstance(image.declaration_records, memoryview) else None
    if isinstance(mapped, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED") and not mapped.closed:
        try:
            mapped.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):
            pass  # The system would not: the pages stay until the file is let go of.


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

    def restore(self, image: ResolvedImage, published: ResolvedState | None = None) -> None:
        """Put the resolver in the state ``export`` saved (the documents it was built over are
        the image's, in its order; see ``Resolver.restore``). ``published``: the state already
        published from this image (``published_state``), whose tables the resolver's state
        shares, as a resolver's state and its published view always do."""
        documents = self.docs
        state = self.state
        if published is None:
            published = published_state(image, documents)
        if isinstance(published.by_name, LazyNames):
            # The resolver reads and writes the whole table; the records decoded from now
            # on get its strings.
            published.by_name.build()
        decls = state.declarations = published.declarations
        state.by_name = published.by_name
        state.definition_declarations = published.definition_declarations
        self.references.install_rows(state, published.constant_targets, published.method_receivers)
        state.diagnostics = image.diagnostics
        # Its chains (whose ids ``share_ids`` may have made the declarations' own), in a
        # table of the resolver's own.
        chains = published.ancestors
        state.ancestors = self.chains.restore(list(chains), list(chains.values()), image.times, decls)
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
        self.concern_book.restore(_concern_deps_decoder.decode(image.concern_deps), _concern_cache_decoder.decode(image.concern_cache))
        self.build.restore(image.member_created)
        self.member_book.restore(image.members, image.removed_keys)
        _let_go_of_pages(image)

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
        records = list(self.decls.values())  # Every record decoded (see ``Declarations``).
        encode = _encoder.encode
        # Each record on its own, its name in ``declaration_names`` only.
        packed, ends = PackedRecords.pack([encode(replace(r, name="")) for r in records])
        names, name_ends, name_order = PackedNames.pack([r.name for r in records])
        ids, id_order = PackedIds.pack(list(self.decls))
        chain_ids, chain_id_order = PackedIds.pack(list(self.chains.chain_of))
        chains, chain_ends = PackedRecords.pack(list(map(encode, self.chains.chain_of.values())))
        return ResolvedImage(
            fingerprint=fingerprint,
            uris={k: d.uri for k, d in zip(self.docs, stored_entries(self.docs), strict=True)},
            declaration_ids=ids,
            declaration_id_order=id_order,
            declaration_names=names,
            declaration_name_ends=name_ends,
            declaration_name_order=name_order,
            declaration_records=memoryview(packed),
            declaration_ends=ends,
            definition_declarations=pack_rows(self.def_decl),
            constant_targets=pack_rows(state.constant_targets),
            method_receivers=pack_rows(state.method_receivers),
            ancestor_ids=chain_ids,
            ancestor_id_order=chain_id_order,
            ancestors=memoryview(chains),
            ancestor_ends=chain_ends,
            diagnostics=state.diagnostics,
            object_id=self.object_id,
            object_mixins=self.externals.object_mixins,
            externals=externals,
            concern_deps=msgspec.Raw(encode(self.concern_book.concern_deps)),
            concern_cache=msgspec.Raw(encode(self.concern_book.concern_cache)),
            member_created=sorted(self.build.member_created),
            removed_keys={k: sorted(v) for k, v in self.member_book.removed_keys.items()},
            members=self.member_book.encoded(),
            times=msgspec.Raw(msgspec.msgpack.encode([self.chains.times_of[d] for d in self.chains.chain_of])),
        )
