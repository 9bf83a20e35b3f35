"""The resolver: the passes of resolution composed over their parts, and the run that puts
them in order.

Every pass is an object that holds the parts it writes and the passes it calls (always ones
built before it: the wiring below is the dependency graph, with no cycle); all of them read
the tables of the state being built through one ``Binding``. The incremental updates
(``Incremental``, ``DocumentEdits``) are built from the same passes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rdx.model.records import FileResult
from rdx.model.store import ResolvedImage, ResolvedState
from rdx.ruby.resolve.ancestors import Ancestors, Chains, Linearization
from rdx.ruby.resolve.builder import Build, Builder
from rdx.ruby.resolve.concerns import ConcernBook, Concerns
from rdx.ruby.resolve.documents import DocumentBook, DocumentEdits
from rdx.ruby.resolve.image import Image
from rdx.ruby.resolve.incremental import Incremental, UpdateBook
from rdx.ruby.resolve.invalidation import Invalidation
from rdx.ruby.resolve.loadcalls import LoadCallBook, LoadCalls
from rdx.ruby.resolve.lookup import Binding, Lookup, StateView
from rdx.ruby.resolve.members import MemberBook, Members
from rdx.ruby.resolve.mentions import MentionBook, Mentions
from rdx.ruby.resolve.namespaces import ExternalBook, Namespaces
from rdx.ruby.resolve.order import BundledGem, LoadOrder, keyed, load_order
from rdx.ruby.resolve.placeholders import Placeholders
from rdx.ruby.resolve.references import References
from rdx.ruby.resolve.skeleton import SkeletonEdits
from rdx.ruby.resolve.vocabulary import Phase

__all__ = ["Resolver", "resolve_documents"]


def resolve_documents(documents: Iterable[FileResult]) -> ResolvedState:
    """Resolve ``documents`` from scratch into a new ResolvedState."""
    return Resolver(keyed(load_order(documents))).run()


class Resolver(StateView):
    """One resolution run over documents in load order: the passes, in order, writing one new
    ResolvedState (see ``run``). After the run it stays the writer of later revisions
    (``refresh_document``, ``refresh_members``, ``add_document``, ``remove_document``), each a
    new state; queries never use it, they read a ``Lookup`` over a published state.

    ``lookup`` answers constant and member lookups over the state being built (callers that
    need one during an update use it)."""

    def __init__(self, documents: dict[int, FileResult], restoring: bool = False) -> None:
        state = ResolvedState(documents=documents)
        if not restoring:
            state.definition_declarations = {key: [None] * len(d.definitions) for key, d in documents.items()}
        binding = self.binding = Binding(state)
        # Parts: each written by the module that defines it (``test_resolution_state_has_one_writer``).
        lookup = self.lookup = Lookup(state)
        binding.join(lookup)
        caches = lookup.caches
        build = self.build = Build()
        load_book = LoadCallBook()
        externals = ExternalBook()
        concern_book = ConcernBook()
        chains = self.chains = Chains(state)
        member_book = MemberBook(documents)
        mention_book = MentionBook()
        updates = UpdateBook()
        document_book = DocumentBook()
        lookup.use_load_order(lambda: document_book.load_order or document_book.rebuild(binding.state.documents.values()))
        # Passes, each after those it calls.
        builder = self.builder = Builder(binding, build=build, caches=caches, lookup=lookup)
        loadcalls = LoadCalls(binding, load_book=load_book, lookup=lookup)
        concerns = self.concerns = Concerns(binding, concern_book=concern_book, lookup=lookup)
        linearizer = self.linearizer = Ancestors(
            binding, build=build, builder=builder, caches=caches, chains=chains, concern_book=concern_book, concerns=concerns, externals=externals, lookup=lookup
        )
        lookup.use_chains(Linearization(linearizer))
        self.namespaces = Namespaces(binding, builder=builder, externals=externals, linearizer=linearizer, load_book=load_book, loadcalls=loadcalls, lookup=lookup)
        self.members = Members(binding, build=build, builder=builder, lookup=lookup, member_book=member_book)
        references = self.references = References(binding, lookup=lookup)
        self.image = Image(
            binding,
            build=build,
            chains=chains,
            concern_book=concern_book,
            externals=externals,
            linearizer=linearizer,
            load_book=load_book,
            loadcalls=loadcalls,
            member_book=member_book,
            references=references,
        )
        mentions = Mentions(binding, externals=externals, loadcalls=loadcalls, lookup=lookup, mention_book=mention_book)
        invalidation = Invalidation(
            binding, caches=caches, chains=chains, concern_book=concern_book, externals=externals, linearizer=linearizer, lookup=lookup, mentions=mentions
        )
        skeleton = SkeletonEdits(
            binding,
            build=build,
            builder=builder,
            caches=caches,
            chains=chains,
            linearizer=linearizer,
            lookup=lookup,
            member_book=member_book,
            members=self.members,
            mentions=mentions,
            namespaces=self.namespaces,
        )
        placeholders = Placeholders(
            binding,
            build=build,
            builder=builder,
            caches=caches,
            chains=chains,
            concern_book=concern_book,
            linearizer=linearizer,
            member_book=member_book,
            mentions=mentions,
            skeleton=skeleton,
        )
        updater = self.updater = Incremental(
            binding,
            build=build,
            builder=builder,
            caches=caches,
            externals=externals,
            invalidation=invalidation,
            linearizer=linearizer,
            loadcalls=loadcalls,
            lookup=lookup,
            member_book=member_book,
            member_pass=self.members,
            mention_book=mention_book,
            mentions=mentions,
            placeholders=placeholders,
            references=references,
            skeleton=skeleton,
            updates=updates,
        )
        self.documents = DocumentEdits(
            binding,
            caches=caches,
            chains=chains,
            document_book=document_book,
            linearizer=linearizer,
            lookup=lookup,
            member_book=member_book,
            mentions=mentions,
            references=references,
            updater=updater,
        )
        binding.join(self)

    @classmethod
    def restore(cls, documents: dict[int, FileResult], image: ResolvedImage) -> Resolver:
        """A resolver in the state ``export`` saved; ``documents`` are the image's, in its order."""
        resolver = cls(documents, restoring=True)
        resolver.image.restore(image)
        return resolver

    def export(self, fingerprint: str) -> ResolvedImage:
        """The resolved state and the bookkeeping later queries and edits need, as plain data."""
        return self.image.export(fingerprint)

    def run(self) -> ResolvedState:
        """Resolve from scratch: namespaces, concerns, members, ancestors, references."""
        builder, linearizer = self.builder, self.linearizer
        builder.bootstrap()
        self.namespaces.phase_namespaces()
        linearizer.invalidate()
        self.namespaces.collect_external_mixins()
        # Decide which modules are concerns before any ancestors are kept: deciding needs
        # constant lookups, and lookups compute ancestors, which depend on the answer.
        for decl_id in [d for d, r in self.decls.items() if r.kind == "Module"]:
            self.concerns.is_concern(decl_id)
        self.build.enter(Phase.SETTLED)
        linearizer.invalidate(keep_concerns=True)
        # ``self`` in a ``class << x`` body is the singleton class's singleton class: declared
        # here, from the definitions alone, so that no reference or member creates it (which
        # would make the set of declarations depend on code inside bodies).
        for decl_id in [d for d, r in self.decls.items() if r.kind == "SingletonClass" and r.definitions]:
            builder.singleton(decl_id)
        self.members.phase_members()
        # Every class and module gets its singleton class, so ``Foo::<Foo>`` always exists.
        for decl_id in [d for d, r in self.decls.items() if r.kind in ("Class", "Module")]:
            builder.singleton(decl_id)
        ancestors = self.lookup.ancestors
        namespaces = [d for d, r in self.decls.items() if r.is_namespace]
        for decl_id in namespaces:
            ancestors(decl_id)
        # Placeholders those chains declared and no chain passes through (a superclass clause
        # that a mismatch leaves unused) get theirs too: every namespace has its chain, as
        # after an update, whichever chain made it.
        chain_of = self.chains.chain_of
        tried: set[int] = set()
        late = [d for d, r in self.decls.items() if r.is_namespace and d not in chain_of]
        while late:
            tried.update(late)
            for decl_id in late:
                ancestors(decl_id)
            late = [d for d, r in self.decls.items() if r.is_namespace and d not in chain_of and d not in tried]
        for decl_id in [d for d, r in self.decls.items() if r.kind == "SingletonClass"]:
            ancestors(decl_id)
        for decl_id, rec in self.decls.items():
            if rec.kind == "ConstantAlias":
                rec.target = self.lookup.alias_target(decl_id)
        self.references.phase_references()
        self.state.ancestors = self.chains.chain_of
        # Chains computed more than once while phase 1 ran report their problems each time.
        self.state.diagnostics = list(dict.fromkeys(self.state.diagnostics))
        return self.state

    # Updates: see ``Incremental`` and ``DocumentEdits``.

    @property
    def fallback(self) -> str | None:
        """Why the last incremental update gave up, if it did."""
        return self.updater.fallback

    def refresh_document(self, new: FileResult) -> ResolvedState | None:
        return self.updater.refresh_document(new)

    def refresh_members(self, new: FileResult, order_checked: bool = False) -> ResolvedState | None:
        return self.updater.refresh_members(new, order_checked)

    def use_order(self, order: LoadOrder | None) -> None:
        self.documents.use_order(order)

    def use_roots(self, entries: Sequence[str], late: Sequence[str], bundle: Sequence[BundledGem]) -> None:
        """How the roots of the load order are walked (entry points, specs, the Gemfile's gems:
        ``order.RootOrder``), for a restored resolver that builds its load order when an edit
        needs it; the same as ``Graph`` gives a full resolve."""
        self.documents.use_roots(entries, late, bundle)

    def autoload_reach(self, doc: FileResult) -> tuple[str, ...]:
        """The autoloaded constants ``doc``'s load-time references reach, by the load order
        in use (``LoadOrder.reach``; nothing when none is built): an edit that changes it
        moves other documents, as a changed require does. Builds the load order if the
        resolver has none yet (``prepare_updates`` builds it ahead)."""
        book = self.documents.document_book
        order = book.load_order if book.load_order is not None else book.rebuild(self.docs.values())
        return order.reach(doc)

    def prepare_updates(self) -> None:
        self.documents.prepare_updates()

    def reorder(self, current: dict[int, FileResult], order: LoadOrder) -> tuple[dict[str, int], set[str]] | None:
        return self.documents.reorder(current, order)

    def replace_in_order(self, doc: FileResult) -> tuple[dict[str, int], set[str]] | None:
        return self.documents.replace_in_order(doc)

    def place_documents(self, added: list[FileResult], removed: list[str]) -> dict[str, int] | None:
        return self.documents.place_documents(added, removed)

    def add_document(self, key: int, new: FileResult) -> ResolvedState | None:
        return self.documents.add_document(key, new)

    def remove_document(self, uri: str) -> ResolvedState | None:
        return self.documents.remove_document(uri)

    def key_of(self, uri: str) -> int | None:
        """The document key of a URI in the current state."""
        return self.lookup.key_of(uri)
