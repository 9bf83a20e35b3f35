"""What an edit invalidates beyond its own document: ancestor chains and the lookups that read them.

When a namespace's superclass or mixins change, its chain changes, and with it the chains of
every namespace that has it as an ancestor (the descendant index says which) and of their
singleton classes (whose superclass chains follow their attached namespaces'). Those chains
are dropped and computed again by the same code as a full resolve (``Ancestors``); the chains
that really changed then say which documents' lookups must be redone: documents with a
lexical scope in such a namespace, and documents that name it in a constant path.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.edits import spans_of
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.vocabulary import CHAIN_CODES, ReplayUnsafe

if TYPE_CHECKING:
    from rdx.ruby.resolve.ancestors import Ancestors, Chains
    from rdx.ruby.resolve.concerns import ConcernBook
    from rdx.ruby.resolve.lookup import Binding, Lookup, LookupCaches
    from rdx.ruby.resolve.mentions import Mentions
    from rdx.ruby.resolve.namespaces import ExternalBook

__all__ = ["CHAIN_CODES", "Invalidation"]

# Diagnostics reported while computing chains; they go and come back with the chains.
# Beyond this many chains, an edit resolves from scratch.
MAX_RECHAINED = 20000


class Invalidation(StateView):
    """Chain invalidation of an update: which chains change, computed again with what reads them."""

    def __init__(
        self,
        binding: Binding,
        *,
        caches: LookupCaches,
        chains: Chains,
        concern_book: ConcernBook,
        externals: ExternalBook,
        linearizer: Ancestors,
        lookup: Lookup,
        mentions: Mentions,
    ) -> None:
        self.caches = caches
        self.chains = chains
        self.concern_book = concern_book
        self.externals = externals
        self.linearizer = linearizer
        self.lookup = lookup
        self.mentions = mentions
        binding.join(self)

    def _chain_closure(self, seeds: set[int], exclude: Collection[int] = ()) -> set[int]:
        """The seeds, every namespace that has one of them as an ancestor, and the singleton
        classes of all of those (with, again, what has those as ancestors); not ``exclude``
        (declarations about to go, whose definitions are gone already)."""
        descendants = self.linearizer.descendants()
        closure: set[int] = set()
        stack = list(seeds)
        while stack:
            ns = stack.pop()
            if ns in closure or ns not in self.decls or ns in exclude:
                continue
            closure.add(ns)
            if len(closure) > MAX_RECHAINED:
                raise ReplayUnsafe("the edit changes too many ancestor chains")
            stack.extend(descendants.get(ns, ()))
            single = self.decls[ns].singleton
            if single is not None:
                stack.append(single)
        return closure

    def rechain(self, seeds: set[int], own: Callable[[int], DeclarationRecord], exclude: Collection[int] = ()) -> set[int]:
        """Compute the chains of ``seeds`` (namespaces whose superclass or mixins changed) and of
        everything whose chain depends on theirs again; returns the namespaces whose chain
        changed. Their records are copied first (``own``): computing a superclass writes it."""
        if self.chains.times_raw is not None:
            self.linearizer.load_times()
        cuts = self.linearizer.cycle_cuts()
        if cuts:
            # A class cut from a superclass cycle (``Ancestors._break_cycle``) depends on the
            # superclasses of the other members, which have it among their ancestors: when
            # one of those changes, the cycle may be gone, or cut elsewhere.
            seeds = seeds | {c for c in cuts if any(c in self.chains.chain_of.get(s, ()) for s in seeds)}
        closure = self._chain_closure(seeds, exclude)
        if self.object_id in closure:
            raise ReplayUnsafe("Object's ancestors change: every lookup may change")
        old = {ns: self.chains.chain_of.get(ns) for ns in closure}
        # The previous state keeps its own tables.
        self.linearizer.own_chains()
        for ns in closure:
            own(ns)
        self.chains.forget(closure)
        for ns in seeds:
            self.concern_book.forget_answer(ns)
        self.caches.forget_lookups()
        self._drop_chain_diagnostics(closure)
        for ns in sorted(closure, key=lambda n: self.decls[n].name):
            self.lookup.ancestors(ns)
        changed = {ns for ns in closure if self.chains.chain_of.get(ns) != old[ns]}
        if any(self.concern_book.concern_cache.get(ns) for ns in changed):
            # What an ActiveSupport concern includes is deferred to the classes that include
            # it, with what its ``included`` blocks extend: recomputed here, ActiveModel::Model
            # lost its ``extend``s when AttributeAssignment went (a known gap).
            raise ReplayUnsafe("the chain of an ActiveSupport concern changes")
        self.chains.note_descendants(changed, old)
        return changed

    def _drop_chain_diagnostics(self, namespaces: set[int]) -> None:
        """Remove the chain diagnostics that computing ``namespaces`` again reports anew."""
        spans: set[tuple[int, int, int]] = set()
        for ns in namespaces:
            for doc, i in self.decls[ns].definitions:
                d = self.docs[doc].definitions[i]
                spans.update((doc, s, e) for s, e in spans_of(d))
            for doc, _scope, mixin in self.externals.external_of.get(ns, ()):
                if isinstance(mixin.target, ConstPath):  # Not a load-time call's (``loadcalls``).
                    spans.add((doc, mixin.target.start, mixin.target.end))
        self.state.diagnostics = [
            x for x in self.state.diagnostics if not (x.code in CHAIN_CODES and (x.doc, x.start, x.end) in spans)
        ]

    def documents_reading(self, namespaces: set[int], previous: ResolvedState | None = None) -> dict[int, set[str] | None]:
        """Documents whose constant lookups may read the chain of one of ``namespaces``: those
        with a lexical scope in one (a definition of it) and those naming one in a path through
        it or as a call receiver (``Mentions.reading_chains``). In a lexical scope, only the names of constants that the
        chain gained or lost can be found elsewhere (``_chain_names``, against ``previous``);
        all the references are read again when that is not known."""
        names: set[str] = set()
        for ns in namespaces:
            rec = self.decls[ns]
            if rec.kind != "SingletonClass":
                names.add(rec.unqualified)
        every: set[int] = set()
        some: dict[int, set[str]] = {}
        for ns in namespaces:
            read = self._chain_names(ns, previous)
            for doc, _ in self.decls[ns].definitions:
                if read is None:
                    every.add(doc)
                else:
                    some.setdefault(doc, set()).update(read)
        out: dict[int, set[str] | None] = self.mentions.reading_chains(names)
        for doc, read in some.items():
            named = out.get(doc, set())
            if read and named is not None:
                out[doc] = named | read
        out.update(dict.fromkeys(every))
        return out

    def _chain_names(self, ns: int, previous: ResolvedState | None) -> set[str] | None:
        """The names a lookup through the chain of ``ns`` may now find elsewhere: those of the
        constants of the namespaces that joined or left it (before and after the edit), when
        the rest kept its order; None when that is not known."""
        if previous is None:
            return None
        old, new = previous.ancestors.get(ns), self.chains.chain_of.get(ns)
        if old is None or new is None:
            return None
        old_set, new_set = set(old), set(new)
        if [a for a in old if a in new_set] != [a for a in new if a in old_set]:
            return None
        names: set[str] = set()
        for m in old_set ^ new_set:
            found = False
            for decls in (self.decls, previous.declarations):
                rec = decls.get(m)
                if rec is not None:
                    found = True
                    names.update(name for name in rec.members if name[:1].isupper())
            if not found:
                return None
        return names
