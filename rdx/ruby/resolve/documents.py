"""Documents coming and going: their keys, and adding or removing one as an edit.

A document's key is its place in load order (``order``). An added document takes a key
between its neighbours (``place_documents``, with ``order.LoadOrder`` when nothing else moves)
and is then the edit of an empty document at that key; a removed one is the edit of it to an
empty document, after which its key and its rows go. The edits themselves are ``Incremental``.
"""

from __future__ import annotations

import bisect

from rdx.model.records import FileResult
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.edits import successor
from rdx.ruby.resolve.incremental import Incremental
from rdx.ruby.resolve.order import LoadOrder


class DocumentBook:
    """The load order with what places added and removed files cheaply (owned by this
    module; built on first use, dropped when it cannot place an edit)."""

    __slots__ = ("load_order",)
    HELD_AS = "document_book"

    def __init__(self) -> None:
        self.load_order: LoadOrder | None = None


class DocumentEdits(Incremental):
    """Keys, additions and removals of documents; mixed into the Resolver."""

    def __init__(self, documents: dict[int, FileResult], restoring: bool = False) -> None:
        super().__init__(documents, restoring)
        self.document_book = DocumentBook()

    def use_order(self, order: LoadOrder | None) -> None:
        """The load order of the documents, as the caller computed it (None: unknown)."""
        self.document_book.load_order = order

    def prepare_updates(self) -> None:
        """Build every index an incremental update reads, so that the first edit does not pay
        for them: descendants, mentions, reference names, member bookkeeping, load order."""
        if self.chains.times_raw is not None:
            self._load_times()
        self.member_book.load()
        self.key_of("")
        self._descendants()
        self._mention_index()
        self._documents_mentioning(set(), -1)
        if self.document_book.load_order is None:
            self.document_book.load_order = LoadOrder(self.docs.values())

    def place_documents(self, added: list[FileResult], removed: list[str]) -> dict[str, int] | None:
        """Keys for ``added`` documents, once ``removed`` ones are gone, when that moves no
        other document in load order (``order.LoadOrder``); None when the order must be
        computed anew (the caller then tries ``order.place`` over all documents)."""
        order = self.document_book.load_order
        if order is None:
            order = self.document_book.load_order = LoadOrder(self.docs.values())
        for uri in removed:
            if not order.remove(uri):
                self.document_book.load_order = None
                return None
        keys = list(self.docs)  # In key order (every table is).
        placed: dict[str, int] = {}

        def key_of(uri: str) -> int | None:
            key = placed.get(uri)
            return key if key is not None else self.key_of(uri)

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
        docs = prev.documents.copy()
        docs[key] = empty
        docs = dict(sorted(docs.items()))  # Keys in load order, as every table is iterated.
        def_decl = prev.definition_declarations.copy()
        def_decl[key] = []
        state = successor(prev, docs, prev.declarations, prev.by_name, def_decl, prev.diagnostics)
        self._open_rows(state, key)
        self.read(state)
        self.caches.open_document(key, new.uri)
        self.member_book.load()
        self.member_book.open_document(key)
        self._remention(key, set())
        return self.refresh_members(new, order_checked=True)

    def remove_document(self, uri: str) -> ResolvedState | None:
        """A new state without the document of ``uri``."""
        key = self.key_of(uri)
        if key is None:
            return None
        old = self.docs[key]
        state = self.refresh_members(FileResult(uri=old.uri, path=old.path), order_checked=True)
        if state is None:
            return None
        del state.documents[key]
        del state.definition_declarations[key]
        self._drop_rows(state, key)
        state.diagnostics = [x for x in state.diagnostics if x.doc != key]
        self.caches.close_document(key, uri)
        self._forget_reference_names(key)
        self.member_book.close_document(key)
        self._remention(key, None)
        return state
