"""Documents coming and going: their keys, and adding or removing one as an edit.

A document's key is its place in load order (``order``). An added document takes a key
between its neighbours (``place_documents``, with ``order.LoadOrder`` when nothing else moves)
and is then the edit of an empty document at that key; a removed one is the edit of it to an
empty document, after which its key and its rows go. The edits themselves are ``Incremental``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from rdx.model.records import FileResult
from rdx.model.store import ResolvedState
from rdx.model.versions import fork
from rdx.ruby.resolve.edits import SHARED_TABLES, shared_kind, successor
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.order import DOC_GAP, MAX_KEY, BundledGem, LoadOrder, RootOrder

if TYPE_CHECKING:
    from rdx.ruby.resolve.ancestors import Ancestors, Chains
    from rdx.ruby.resolve.incremental import Incremental
    from rdx.ruby.resolve.lookup import Binding, Lookup, LookupCaches
    from rdx.ruby.resolve.members import MemberBook
    from rdx.ruby.resolve.mentions import Mentions
    from rdx.ruby.resolve.references import References


class DocumentBook:
    """The load order with what places added and removed files cheaply (owned by this
    module; built on first use, dropped when it cannot place an edit), and the order of its
    roots (entry points first, specs last), which outlives it."""

    __slots__ = ("load_order", "root_rules")
    HELD_AS = "document_book"

    def __init__(self) -> None:
        self.load_order: LoadOrder | None = None
        self.root_rules = RootOrder()

    def use(self, order: LoadOrder | None) -> None:
        self.load_order = order
        if order is not None:
            self.root_rules = order.order

    def use_roots(self, rules: RootOrder) -> None:
        """Walk roots by ``rules`` from now on (a resolver restored from a snapshot knows
        the documents' keys, not the entry points, specs and Gemfile that ordered them)."""
        if (rules.entries, rules.late, rules.bundle) != (self.root_rules.entries, self.root_rules.late, self.root_rules.bundle):
            self.load_order = None
        self.root_rules = rules

    def rebuild(self, documents: Iterable[FileResult]) -> LoadOrder:
        """The load order of ``documents`` walked from scratch, roots in the same order."""
        rules = self.root_rules
        self.load_order = LoadOrder(documents, rules.entries, rules.late, rules.bundle)
        return self.load_order


def spread_keys(uris: list[str], low: int, high: int, out: dict[str, int]) -> bool:
    """Keys for ``uris``, in order, evenly spread strictly between ``low`` and ``high``, into
    ``out``; False when there is no room."""
    step = (high - low) // (len(uris) + 1)
    if step == 0:
        return False
    for i, uri in enumerate(uris):
        out[uri] = low + step * (i + 1)
    return True


def moving_keys(
    uris: Sequence[str], key_of: Callable[[str], int | None], walked: set[str], low: int = -1, high: int | None = None
) -> tuple[dict[str, int], set[str]] | None:
    """Keys for documents ``uris``, in their new load order (all of them, or a stretch
    between keys ``low`` and ``high`` that the others keep), and which of them move. A
    document without a key (``key_of``: its key now, None for a new one) gets one between its
    new neighbours. Of those with a key, the longest run whose keys increase stays; every
    other one moves (it goes, then comes back at a key between its new neighbours), as does
    one whose walk changed (``walked``: ``LoadOrder.same_walk``, which
    ``Lookup.defined_after`` reads; it comes back at its own key when it stays in place), and
    a kept one where those before it find no free key. None when no key is free (the keys
    reach ``MAX_KEY``, or ``high``)."""
    top = MAX_KEY + 1 if high is None else high
    keys = {uri: k for uri in uris if (k := key_of(uri)) is not None}
    kept = _increasing([(k, uri) for uri in uris if (k := keys.get(uri)) is not None and low < k < top])
    moved = {uri for uri in keys if uri not in kept} | (walked & kept)
    placed: dict[str, int] = {}
    pending: list[str] = []
    last = low
    for uri in uris:
        if uri in kept:
            key = keys[uri]
            if pending and not spread_keys(pending, last, key, placed):
                # No room before it (a document moved ahead of the first one, at key 0):
                # it moves too, to make room.
                moved.add(uri)
                pending.append(uri)
                continue
            pending = []
            last = key
            if uri in moved:
                placed[uri] = key
        else:
            pending.append(uri)
    end = min(last + DOC_GAP * (len(pending) + 1), MAX_KEY) if high is None else high
    if pending and not spread_keys(pending, last, end, placed):
        return None
    return placed, moved


def _increasing(seq: list[tuple[int, str]]) -> set[str]:
    """The URIs of a longest run of ``seq`` (key, URI) whose keys increase (the documents
    that keep their keys). Linear when the keys already increase."""
    if all(a[0] < b[0] for a, b in zip(seq, seq[1:], strict=False)):
        return {uri for _, uri in seq}
    tails: list[int] = []  # Key of the smallest tail of an increasing run of each length.
    ends: list[int] = []  # Index in seq of that tail.
    back = [-1] * len(seq)
    for i, (key, _) in enumerate(seq):
        j = bisect.bisect_left(tails, key)
        back[i] = ends[j - 1] if j else -1
        if j == len(tails):
            tails.append(key)
            ends.append(i)
        else:
            tails[j], ends[j] = key, i
    out: set[str] = set()
    i = ends[-1] if ends else -1
    while i >= 0:
        out.add(seq[i][1])
        i = back[i]
    return out


class DocumentEdits(StateView):
    """Keys, additions and removals of documents, as edits run by ``Incremental``."""

    def __init__(
        self,
        binding: Binding,
        *,
        caches: LookupCaches,
        chains: Chains,
        document_book: DocumentBook,
        linearizer: Ancestors,
        lookup: Lookup,
        member_book: MemberBook,
        mentions: Mentions,
        references: References,
        updater: Incremental,
    ) -> None:
        self.binding = binding
        self.caches = caches
        self.chains = chains
        self.document_book = document_book
        self.linearizer = linearizer
        self.lookup = lookup
        self.member_book = member_book
        self.mentions = mentions
        self.references = references
        self.updater = updater
        binding.join(self)

    def use_order(self, order: LoadOrder | None) -> None:
        """The load order of the documents, as the caller computed it (None: unknown)."""
        self.document_book.use(order)

    def use_roots(self, entries: Sequence[str], late: Sequence[str], bundle: Sequence[BundledGem]) -> None:
        """The order of the roots the load order walks (``order.RootOrder``), when no load
        order was given (``use_order``): a resolver restored from a snapshot."""
        self.document_book.use_roots(RootOrder(entries, late, bundle))

    def prepare_updates(self) -> None:
        """Build every index an incremental update reads, so that the first edit does not pay
        for them: descendants, mentions, reference names (and each document's lookup sites,
        their lexical scopes and its references' last names), member bookkeeping, load order."""
        if self.chains.times_raw is not None:
            self.linearizer.load_times()
        self.member_book.load()
        self.lookup.key_of("")
        self.linearizer.descendants()
        self.mentions.mention_index()
        self.mentions.documents_mentioning(set(), -1)
        for doc in self.docs:
            self.mentions.prepare_document(doc)
        order = self.document_book.load_order
        if order is None or not order.exact:
            self.document_book.rebuild(self.docs.values())
        self.share_tables()

    def share_tables(self) -> None:
        """Make the current state's big tables the kind that updates share instead of copying
        (``rdx.model.versions``), so that the first edit after a full resolve or a warm open
        does not pay for the one copy (a second and more on a large project). The tables are
        replaced by equal ones: the state answers as before, and every pass reads the new ones."""
        state = self.binding.state
        for name in SHARED_TABLES:
            table, kind = getattr(state, name), shared_kind(name)
            if type(table) is not kind:
                setattr(state, name, fork(table, kind)[0])
        self.binding.read(state)
        self.linearizer.share_chains()

    def reorder(self, current: dict[int, FileResult], order: LoadOrder) -> tuple[dict[str, int], set[str]] | None:
        """Use load order ``order`` (walked anew after requires changed) from now on, and
        give keys for the documents ``current`` lacks and for those of ``current`` that move
        (``moving_keys``): the caller removes the moved ones and adds them back at their new
        keys. None when no key is free between two neighbours."""
        book = self.document_book
        # The order the current state was resolved in (walked again when an add or remove
        # that it could not place dropped it).
        previous = book.load_order if book.load_order is not None else book.rebuild(self.docs.values())
        book.use(order)
        key_of = {d.uri: k for k, d in current.items()}
        walked = {uri for uri in key_of if previous.walks.get(uri) != order.walks.get(uri)}
        return moving_keys([d.uri for d in order.ordered], key_of.get, walked)

    def replace_in_order(self, doc: FileResult) -> tuple[dict[str, int], set[str]] | None:
        """Take the new version ``doc`` of a document into the load order
        (``LoadOrder.replace``: nothing to do unless what it requires or may autoload
        changed) and give new keys for the documents that move, and which move, as
        ``reorder`` does, from the stretch of the order that changed. None when the order must
        be walked anew (``reorder``)."""
        book = self.document_book
        order = book.load_order if book.load_order is not None else book.rebuild(self.docs.values())
        change = order.replace(doc)
        if change is None:
            book.load_order = None  # The caller walks it anew, from the documents resolved now.
            return None
        key_of = self.lookup.key_of
        # A document whose walk changed comes back at its own key when it stays in place.
        placed = {uri: key for uri in change.walks if (key := key_of(uri)) is not None}
        moved = set(placed)
        if change.new:
            start, end = change.start, change.start + len(change.new)
            ordered = order.ordered
            low = key_of(ordered[start - 1].uri) if start > 0 else -1
            high = key_of(ordered[end].uri) if end < len(ordered) else None
            span = moving_keys(change.new, key_of, set(change.walks), -1 if low is None else low, high)
            if low is None or (end < len(ordered) and high is None) or span is None:
                book.load_order = None
                return None
            placed.update(span[0])
            moved = (moved - set(change.new)) | span[1]
            for uri in set(change.new) - span[1]:
                placed.pop(uri, None)
        return placed, moved

    def place_documents(self, added: list[FileResult], removed: list[str]) -> dict[str, int] | None:
        """Keys for ``added`` documents, once ``removed`` ones are gone, when that moves no
        other document in load order (``order.LoadOrder``); None when the order must be
        computed anew (the caller then tries ``order.place`` over all documents)."""
        order = self.document_book.load_order
        if order is None:
            order = self.document_book.rebuild(self.docs.values())
        for uri in removed:
            if not order.remove(uri):
                self.document_book.load_order = None
                return None
        keys = list(self.docs)  # In key order (every table is).
        placed: dict[str, int] = {}

        def key_of(uri: str) -> int | None:
            key = placed.get(uri)
            return key if key is not None else self.lookup.key_of(uri)

        for doc in added:
            key = order.add(doc, key_of, keys)
            if key is None:
                self.document_book.load_order = None
                return None
            placed[doc.uri] = key
            bisect.insort(keys, key)
        return placed

    def add_document(self, key: int, new: FileResult) -> ResolvedState | None:
        """A new state with document ``new`` added at ``key`` (a free key between its
        neighbours in load order, see ``order.place``)."""
        empty = FileResult(uri=new.uri, path=new.path)
        prev = self.state
        state = successor(prev, prev.diagnostics, {key: empty})
        state.definition_declarations[key] = []
        self.references.open_rows(state, key)
        self.binding.read(state)
        self.caches.open_document(key, new.uri)
        self.member_book.load()
        self.member_book.open_document(key)
        self.mentions.remention(key, set())
        return self.updater.refresh_members(new, order_checked=True)

    def remove_document(self, uri: str) -> ResolvedState | None:
        """A new state without the document of ``uri``."""
        key = self.lookup.key_of(uri)
        if key is None:
            return None
        old = self.docs[key]
        state = self.updater.refresh_members(FileResult(uri=old.uri, path=old.path), order_checked=True)
        if state is None:
            return None
        del state.documents[key]
        del state.definition_declarations[key]
        self.references.drop_rows(state, key)
        state.diagnostics = [x for x in state.diagnostics if x.doc != key]
        self.caches.close_document(key, uri)
        self.mentions.forget_reference_names(key)
        self.member_book.close_document(key)
        self.mentions.remention(key, None)
        return state
