"""A resolved Ruby core that full resolves of small projects start from.

Every graph holds Ruby core's description (``rdx/data/core.rb``, 3,400 declarations), and a
full resolve of a project of a few files spends nearly all its time resolving core again (30
to 50 ms). ``CoreBase`` resolves core alone once, keeps that resolver's image (``Image``: the
state and the bookkeeping edits read, as plain data) and its tables decoded, and ``fork``
gives a new resolver in that state at once (the tables are copied shallowly: records are
shared, and every update copies a record before it changes it, as it must for the states an
update leaves intact). ``resolve_on`` then adds the project's documents one at a time, in load
order, with the incremental updater's ``add_document``: the same mechanism as a person adding
files to a resolved graph, whose result is a fresh graph's (the incremental tests compare
every update with a resolve from scratch). An addition the updater cannot make returns None,
and the caller resolves from scratch.

Used for projects of at most ``MAX_BASE_DOCUMENTS`` documents besides core: beyond that,
adding documents one at a time costs more than the core it saves."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rdx.model.records import FileResult
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.documents import moving_keys
from rdx.ruby.resolve.driver import Resolver
from rdx.ruby.resolve.image import published_state
from rdx.ruby.resolve.order import BundledGem, LoadOrder, keyed

__all__ = ["MAX_BASE_DOCUMENTS", "CoreBase"]

# The per-document rows of a state (a list per document key).
ROW_TABLES = ("definition_declarations", "constant_targets", "method_receivers")

# Documents besides core that a resolve on the base adds one at a time (about 1 to 5 ms each,
# against 30 to 50 ms for core resolved again).
MAX_BASE_DOCUMENTS = 12


class CoreBase:
    """Ruby core resolved alone, ready to be forked (see the module docstring). Written only
    here, when built: every fork copies from it."""

    __slots__ = ("core", "core_documents", "core_image", "tables")

    def __init__(self, core: FileResult) -> None:
        self.core = core
        self.core_documents = keyed([core])
        resolver = Resolver(dict(self.core_documents))
        resolver.run()
        self.core_image = resolver.export("core")
        published = published_state(self.core_image, self.core_documents)
        # Every table decoded once, here: a fork copies dicts and lists, never decodes.
        self.tables: dict[str, dict[Any, Any]] = {
            "declarations": dict(published.declarations.items()),
            "by_name": dict(published.by_name.items()),
            "ancestors": dict(published.ancestors.items()),
        }
        for name in ROW_TABLES:
            self.tables[name] = {k: list(v) for k, v in getattr(published, name).items()}

    def fork(self) -> Resolver:
        """A new resolver in the state of core resolved alone; nothing of this base changes
        whatever it is asked to do."""
        tables = self.tables
        rows = {name: {k: list(v) for k, v in tables[name].items()} for name in ROW_TABLES}
        state = ResolvedState(
            documents=dict(self.core_documents),
            declarations=dict(tables["declarations"]),
            by_name=dict(tables["by_name"]),
            ancestors=dict(tables["ancestors"]),
            diagnostics=list(self.core_image.diagnostics),
            object_id=self.core_image.object_id,
            **rows,
        )
        resolver = Resolver(dict(self.core_documents), restoring=True)
        resolver.image.restore(self.core_image, state)
        return resolver

    def resolve_on(
        self, documents: Iterable[FileResult], entries: Sequence[str] = (), late: Sequence[str] = (), bundle: Sequence[BundledGem] = ()
    ) -> tuple[Resolver, ResolvedState] | str:
        """A resolver and the state of ``documents`` (core among them, with the base's
        content) resolved, starting from the base; or why not (the load order does not start
        with core, or an addition needs a full resolve: then nothing is left half done, the
        resolver is dropped). ``entries``, ``late`` and ``bundle``: the project's root order,
        as a full resolve's ``LoadOrder`` takes it."""
        documents = list(documents)
        if any(d.kind == "Class" and d.name == "Object" and d.mixins for r in documents if r.uri != self.core.uri for d in r.definitions):
            # Object's chain changes, and every chain with it (``Namespaces.phase_namespaces``'
            # ``object_mixins``): an addition the updater leaves to a full resolve.
            return "a class Object with mixins changes every chain"
        resolver = self.fork()
        resolver.use_roots(entries, late, bundle)
        order = LoadOrder(documents, entries, late, bundle)
        placed = moving_keys([d.uri for d in order.ordered], {d.uri: k for k, d in resolver.docs.items()}.get, set())  # Only core is there: nothing moves.
        first = order.ordered[0] if order.ordered else None
        if placed is None or first is None or first.uri != self.core.uri or first.content_hash != self.core.content_hash:
            return "core does not load first"
        resolver.use_order(order)
        state = resolver.state
        keys = placed[0]
        for doc in order.ordered:
            key = keys.get(doc.uri)
            if key is None:
                continue
            added = resolver.add_document(key, doc)
            if added is None:
                return f"adding {doc.uri}: {resolver.fallback or 'not incremental'}"
            state = added
        return resolver, state
