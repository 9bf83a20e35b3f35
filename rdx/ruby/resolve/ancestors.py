"""Phase 3: superclasses and linearized ancestors, with Ruby's own include/prepend insertion.

Chains are computed on demand and memoized; a chain computed while another was still in
progress is provisional and not kept (``_partial_hits``)."""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import msgspec

from rdx.model.declarations import DeclarationRecord
from rdx.model.kinds import MixinKind
from rdx.model.records import ConstPath, Mixin
from rdx.model.store import ResolutionDiagnostic, ResolvedState
from rdx.model.versions import Journaled, fork
from rdx.ruby.resolve import insertion
from rdx.ruby.resolve.insertion import Building
from rdx.ruby.resolve.loadcalls import hook_run
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.vocabulary import (
    CHAIN_CODES,
    HEAD,
    NAMESPACE_DEF_KINDS,
    Phase,
)

if TYPE_CHECKING:
    from rdx.ruby.resolve.builder import Build, Builder
    from rdx.ruby.resolve.concerns import ConcernBook, Concerns
    from rdx.ruby.resolve.lookup import Binding, Lookup, LookupCaches
    from rdx.ruby.resolve.namespaces import ExternalBook


class MixinOp(msgspec.Struct, frozen=True):
    """One step of building a chain: include or prepend ``target`` (a path to look up, an
    already resolved declaration id for a concern's ``ClassMethods``, or None for ``self``).

    ``key`` orders the steps: (document key, offset of the call, position within it), where
    ``include A, B`` inserts B first so that A ends up first. ``scope`` is the definition
    whose body holds the call (``external`` False) or the scope of a ``Foo.include(M)`` call
    (``external`` True), where the target is looked up. Extends of a singleton class's attached
    namespace are includes into the singleton class."""

    key: tuple[int, int, int]
    kind: MixinKind
    doc: int
    scope: int
    target: ConstPath | int | None
    external: bool
    # An extend (of the singleton class's attached namespace, or a concern's ClassMethods):
    # the module's ``included`` hook does not run.
    extending: bool = False

class Chains:
    """The ancestor chains (owned by this module): per namespace its linearized ancestors
    (``chain_of``, the table the state publishes) and when each entry joined (``times_of``;
    restored from an image still encoded in ``times_raw`` until needed); the chains being
    built (``in_progress``) with the length of the superclass part of each (a stack, one per
    frame); the namespaces whose superclass is computed; the state whose chain tables are its
    own (see ``Ancestors._own_chains``); and the descendant index (namespace -> namespaces
    with it among their ancestors, built on first use, with stale entries); and the classes
    whose superclass clause was cut from a superclass cycle (``Ancestors.superclass``; None
    after a restore: found again from their ``superclass-cycle`` diagnostics on first use).
    """

    __slots__ = (
        "chain_of", "cycle_cuts", "descendant_index", "in_progress", "owner_state", "super_lengths", "superclass_done", "times_of", "times_raw",
    )
    HELD_AS = "chains"

    def __init__(self, state: ResolvedState) -> None:
        self.chain_of: dict[int, tuple[int, ...]] = {}
        self.times_of: dict[int, tuple[int, ...]] = {}
        self.times_raw: msgspec.Raw | None = None
        self.in_progress: dict[int, tuple[list[int], list[int]]] = {}
        self.super_lengths: list[int] = []
        self.superclass_done: set[int] = set()
        self.owner_state: ResolvedState | None = state
        self.descendant_index: dict[int, list[int]] | None = None
        self.cycle_cuts: set[int] | None = set()

    def forget(self, namespaces: Iterable[int]) -> None:
        """Forget the chains and superclasses of ``namespaces`` (computed again on demand)."""
        for ns in namespaces:
            self.chain_of.pop(ns, None)
            self.times_of.pop(ns, None)
            self.superclass_done.discard(ns)
            if self.cycle_cuts is not None:
                self.cycle_cuts.discard(ns)

    def drop_chain(self, decl_id: int) -> None:
        """Forget one chain, keeping its superclass (Object's, while phase 1 runs)."""
        self.chain_of.pop(decl_id, None)

    def note_descendants(self, changed: Iterable[int], old: dict[int, tuple[int, ...] | None]) -> None:
        """Add the descendant index entries of chains that changed (lost ancestors stay, stale)."""
        index = self.descendant_index
        if index is None:
            return
        for ns in changed:
            before = set(old[ns] or ())
            for anc in self.chain_of.get(ns, ()):
                if anc != ns and anc not in before:
                    index.setdefault(anc, []).append(ns)  # Lost ancestors are filtered on read.

    def add_descendants(self, namespaces: Iterable[int]) -> None:
        """Index the chains of new ``namespaces`` (when the index is built)."""
        index = self.descendant_index
        if index is None:
            return
        for new_id in namespaces:
            for anc in self.chain_of.get(new_id, ()):
                if anc != new_id:
                    index.setdefault(anc, []).append(new_id)

    def restore(self, ids: list[int], chains: list[tuple[int, ...]], times: msgspec.Raw, declared: Iterable[int]) -> dict[int, tuple[int, ...]]:
        """The chains of a saved image (their times decoded on first use); every superclass
        is known. Returns the chain table, for the state to publish."""
        self.chain_of = dict(zip(ids, chains, strict=True))
        self.times_raw = times.copy()  # A copy: the Raw would keep the whole file alive.
        self.superclass_done = set(declared)
        self.cycle_cuts = None  # Known from the diagnostics (``Ancestors.cycle_cuts``).
        return self.chain_of


class Linearization:
    """The ``ChainSource`` of a resolver's lookup: chains computed on demand
    (``Ancestors.chain``). It refers to the pass weakly: the pass reads constants through the
    lookup, which reads chains through this, and no reference cycle forms (a dropped resolver
    goes at once, even with the collector frozen)."""

    __slots__ = ("known", "linearizer")

    def __init__(self, linearizer: Ancestors) -> None:
        self.linearizer = weakref.ref(linearizer)
        self.known = linearizer.chains

    def ancestors(self, decl_id: int) -> tuple[int, ...]:
        # A chain already computed is answered here, in one call: every constant lookup asks.
        cached = self.known.chain_of.get(decl_id)
        if cached is not None:
            return cached
        linearizer = self.linearizer()
        assert linearizer is not None
        return linearizer.chain(decl_id)[0]


class Ancestors(StateView):
    """The linearization pass: superclasses and ancestor chains, computed on demand (the
    resolver's lookup reads them through ``Linearization``) and kept in ``Chains``."""

    def __init__(
        self,
        binding: Binding,
        *,
        build: Build,
        builder: Builder,
        caches: LookupCaches,
        chains: Chains,
        concern_book: ConcernBook,
        concerns: Concerns,
        externals: ExternalBook,
        lookup: Lookup,
    ) -> None:
        self.build = build
        self.builder = builder
        self.caches = caches
        self.chains = chains
        self.concern_book = concern_book
        self.concerns = concerns
        self.externals = externals
        self.lookup = lookup
        binding.join(self)

    def invalidate(self, keep_concerns: bool = False) -> None:
        """Drop every chain and cache computed so far (concern answers too, unless kept)."""
        self.chains.times_of.clear()
        self.concern_book.reset(keep_concerns)
        self.chains.chain_of.clear()
        self.chains.superclass_done.clear()
        # The chains computed next report their problems again: those of the dropped chains
        # (phase 1's, computed from the namespaces declared so far) may not hold any more.
        if any(x.code in CHAIN_CODES for x in self.state.diagnostics):
            self.state.diagnostics = [x for x in self.state.diagnostics if x.code not in CHAIN_CODES]
        self.chains.cycle_cuts = set()
        self.caches.forget_lookups()

    def drop_chain(self, decl_id: int) -> None:
        self.chains.drop_chain(decl_id)

    def descendants(self) -> dict[int, list[int]]:
        """Namespace -> the namespaces that have it among their ancestors, built on first use.

        Edits that change chains append new entries and leave stale ones (a namespace that
        lost that ancestor, or is gone): readers that must be exact filter through
        ``_current_descendants``; the others use it as an over-approximation."""
        chains = self.chains
        if chains.descendant_index is None:
            index: dict[int, list[int]] = {}
            for decl_id, chain in chains.chain_of.items():
                for anc in chain:
                    if anc != decl_id:
                        index.setdefault(anc, []).append(decl_id)
            chains.descendant_index = index
        return chains.descendant_index

    def current_descendants(self, ns: int) -> list[int]:
        """The namespaces that have ``ns`` among their ancestors now (stale entries dropped)."""
        return [d for d in self.descendants().get(ns, ()) if d in self.decls and ns in self.chains.chain_of.get(d, ())]

    def superclass(self, decl_id: int) -> int | None:
        rec = self.decls[decl_id]
        if decl_id in self.chains.superclass_done:
            return rec.superclass
        self.chains.superclass_done.add(decl_id)
        hits_before = len(self.caches.partial_hits)
        result = self._compute_superclass(decl_id, rec)
        if result is not None and rec.kind == "Class":
            self._break_cycle(decl_id, result)
            result = self.decls[decl_id].superclass
        if len(self.caches.partial_hits) != hits_before:
            self.chains.superclass_done.discard(decl_id)  # Provisional: resolved from a partial chain.
        return result

    def _break_cycle(self, decl_id: int, sup: int) -> None:
        """Cut a superclass cycle through ``decl_id`` (``class A < B`` and ``class B < A``),
        the same way whichever member's superclass is asked first.

        Ruby raises before a cycle can form: with every member defined (as resolution
        assumes), the clause that runs last finds its class there already, as another
        member's superclass, with Object as its superclass, and raises "superclass mismatch".
        So the member whose first superclass clause comes last in program order keeps Object
        as its superclass, with a ``superclass-cycle`` diagnostic there; the other members
        keep theirs, and every chain ends in Object's."""
        members = [decl_id]
        cur: int | None = sup
        chain_of = self.chains.chain_of
        while cur is not None and cur not in members and self.decls[cur].kind == "Class":
            known = chain_of.get(cur)
            if known is not None and decl_id not in known:
                return  # A computed chain ends in a root; this class is not on it.
            members.append(cur)
            cur = self.superclass(cur)
        if cur != decl_id or len(members) < 2:
            return
        # A member's own walk may have cut the cycle already (its superclass changed since).
        if any(self.decls[m].superclass != members[(n + 1) % len(members)] for n, m in enumerate(members)):
            return
        cut = max(members, key=self._superclass_clause)
        doc, index = self._superclass_clause(cut)
        rec = self.builder.writable(cut)
        target = self.decls[rec.superclass].name if rec.superclass is not None else "?"
        rec.superclass = self.object_id
        if self.chains.cycle_cuts is not None:
            self.chains.cycle_cuts.add(cut)
        if doc >= 0:
            d = self.docs[doc].definitions[index]
            self.state.diagnostics.append(
                ResolutionDiagnostic(
                    doc, "superclass-cycle", f"superclass cycle: {rec.name} < {target} leads back to {rec.name}; {rec.name} stays a subclass of Object",
                    d.start, d.end, "warning",
                )
            )

    def _superclass_clause(self, decl_id: int) -> tuple[int, int]:
        """Where a class's first superclass clause is written: (document key, definition index)."""
        for doc, index in self.decls[decl_id].definitions:
            if self.docs[doc].definitions[index].superclass is not None:
                return doc, index
        return -1, -1

    def cycle_cuts(self) -> set[int]:
        """The classes whose superclass clause a superclass cycle cut (``_break_cycle``); after
        a restore, found from their ``superclass-cycle`` diagnostics."""
        cuts = self.chains.cycle_cuts
        if cuts is None:
            cuts = set()
            for x in self.state.diagnostics:
                if x.code != "superclass-cycle" or x.doc not in self.docs:
                    continue
                for i, d in enumerate(self.docs[x.doc].definitions):
                    if d.start == x.start and d.end == x.end and d.superclass is not None:
                        decl = self.def_decl[x.doc][i]
                        if decl is not None:
                            cuts.add(decl)
            self.chains.cycle_cuts = cuts
        return cuts

    def _compute_superclass(self, decl_id: int, rec: DeclarationRecord) -> int | None:
        if rec.kind == "SingletonClass":
            rec.superclass = self._singleton_superclass(rec)
            return rec.superclass
        if rec.kind != "Class" or decl_id == self.build.basic_object_id:
            rec.superclass = None if rec.kind != "Todo" else rec.superclass
            return rec.superclass
        chosen = None
        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            if d.superclass_self:
                outer = self.lookup.cref(doc, d.parent)
                if outer is not None and (outer[0] if outer else self.object_id) != decl_id:
                    chosen = chosen or (outer[0] if outer else self.object_id)
                continue
            if d.superclass is None:
                continue
            site = self.lookup.cref(doc, d.parent)
            if site is None:
                continue
            target = self.superclass_target(decl_id, doc, d.superclass, site)
            if target is None:
                if self.build.phase == Phase.NAMESPACES:
                    continue
                # Its superclass is Object, as every placeholder's (``Builder.placeholder``).
                target = self.builder.placeholder(d.superclass, site, len(d.superclass.segments))
            trec = self.decls[target]
            if d.superclass_new and trec.kind != "Class" and target != decl_id:
                # ``class X < K.new(...)``: only a class's ``new`` is known to make a subclass of it.
                message = f"cannot resolve the superclass '{d.superclass.text}.new(...)' of {rec.name} statically: {trec.kind} {trec.name}'s new"
                self.state.diagnostics.append(ResolutionDiagnostic(doc, "dynamic-superclass", message, d.start, d.end, "warning"))
                continue
            if trec.kind not in ("Class", "Todo") or target == decl_id:
                self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "invalid-superclass", f"superclass {d.superclass.text!r} of {rec.name} is a {trec.kind}, not a class", d.start, d.end, "warning")
                )
                continue
            if chosen is None:
                chosen = target
            elif chosen != target:
                self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "superclass-mismatch", f"superclass mismatch for class {rec.name}: {d.superclass.text} vs {self.decls[chosen].name}", d.start, d.end, "warning")
                )
        if chosen is None:
            # Without a superclass clause: Object, and for Object itself (a ``class Object``
            # body with core not loaded) BasicObject.
            chosen = self.object_id if decl_id != self.object_id else self.build.basic_object_id
        rec.superclass = chosen
        return rec.superclass

    def superclass_target(self, decl_id: int, doc: int, path: ConstPath, site: tuple[int, ...]) -> int | None:
        """The namespace a superclass expression names, evaluated where it is written: Ruby
        evaluates it before the new constant exists (``class SchemaDumper < SchemaDumper``
        or ``class A < A::D`` inside ``module A`` look past the class itself) and while the
        file loads (a class the same file defines further down is not there yet)."""
        found = self.lookup.follow(self.lookup.lookup_path_at(path, site, doc, path.start, hidden=decl_id))
        if found is not None and self.decls[found].is_namespace:
            return found
        return None

    def _singleton_superclass(self, rec: DeclarationRecord) -> int | None:
        attached = rec.attached
        if attached is None:
            return self.build.class_id
        arec = self.decls[attached]
        if arec.kind in ("Module", "Todo") and arec.superclass is None:
            return self.build.module_id
        if attached == self.build.basic_object_id:
            return self.build.class_id
        sup = self.superclass(attached)
        if sup is None:
            return self.build.module_id if arec.kind != "Class" else self.build.class_id
        return self.builder.singleton(sup)

    def _mixin_ops(self, decl_id: int) -> list[MixinOp]:
        """The mixin operations that build a namespace's chain, in program order."""
        rec = self.decls[decl_id]
        ops: list[MixinOp] = []

        def add(doc: int, index: int, pos: int, mixins: Sequence, kinds: tuple[str, ...], external: bool) -> None:
            by_call: dict[int, list] = {}
            for m in mixins:
                if m.kind in kinds:
                    by_call.setdefault(m.call, []).append(m)
            for group in by_call.values():
                first = group[0].start
                # ``include A, B`` inserts B first, then A, so A ends up first in the chain.
                for order, m in enumerate(reversed(group)):
                    kind = MixinKind.INCLUDE if m.kind == MixinKind.EXTEND else MixinKind(m.kind)
                    ops.append(MixinOp((doc, first, order), kind, doc, index, m.target, external, m.kind == MixinKind.EXTEND))

        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            if d.kind in NAMESPACE_DEF_KINDS:
                add(doc, index, d.start, d.mixins, ("include", "prepend"), False)
        for doc, scope, m in self.externals.external_of.get(decl_id, ()):
            if m.kind != "extend":
                add(doc, scope, m.start, [m], ("include", "prepend"), True)
        if rec.kind == "SingletonClass" and rec.attached is not None:
            for doc, index in self.decls[rec.attached].definitions:
                d = self.docs[doc].definitions[index]
                if d.kind in NAMESPACE_DEF_KINDS and d.kind != "SingletonClass":
                    add(doc, index, d.start, d.mixins, ("extend",), False)
            for doc, scope, m in self.externals.external_of.get(rec.attached, ()):
                if m.kind == "extend":
                    add(doc, scope, m.start, [m], ("extend",), True)
            if self.build.phase != Phase.NAMESPACES and not self.concerns.is_concern(rec.attached):
                # Including a concern extends the class with the concern's ClassMethods (and
                # those of the concerns it depends on, first); ``def self.included(base)``
                # hooks that call ``base.extend(X)`` do the same for any module.
                for op in self._mixin_ops(rec.attached):
                    if op.kind not in (MixinKind.INCLUDE, MixinKind.PREPEND):
                        continue
                    module = self._mixin_target(rec.attached, op.doc, op.scope, op.target, op.external)
                    if module is None:
                        continue
                    extensions = self.concerns.included_extensions(module, "include" if op.kind == MixinKind.INCLUDE else "prepend")
                    doc, start, order = op.key
                    for n, cm in enumerate(extensions):
                        ops.append(MixinOp((doc, start, order * 1000 + n), MixinKind.INCLUDE, op.doc, op.scope, cm, op.external, True))
        ops.sort(key=lambda op: op.key)
        return ops

    def load_times(self) -> None:
        """Decode the saved join times. A subclass's chain repeats its superclass's times, so
        equal values become one int object again, as they were when the chains were computed
        (decoding makes each occurrence an int of its own: 32 bytes, millions of them in a
        large project)."""
        assert self.chains.times_raw is not None
        times = msgspec.msgpack.decode(self.chains.times_raw, type=list[tuple[int, ...]])
        self.chains.times_raw = None
        memo: dict[int, int] = {}
        share = memo.setdefault
        self.chains.times_of = dict(zip(self.chains.chain_of, (tuple([share(t, t) for t in ts]) for ts in times), strict=True))

    def own_chains(self) -> None:
        """Give the state being built its own chain tables before an update changes them
        (once per update: ``_chains_owned`` names the state that owns them)."""
        if self.chains.owner_state is self.state:
            return
        if self.chains.times_raw is not None:
            self.load_times()
        if self.chains.chain_of is not self.state.ancestors:
            # The first update after a full resolve or a warm open: the state's successor got
            # a copy of the published table (``edits.successor``); the resolver's own table is
            # the one that counts, copied once into a shared one (``rdx.model.versions``).
            self.state.ancestors = fork(self.chains.chain_of)[0]
            self.chains.chain_of = self.state.ancestors
        # ``times_of`` is the resolver's own (no state publishes it): written in place.
        self.chains.owner_state = self.state

    def share_chains(self) -> None:
        """Make the chain table the state's ``ancestors``, of the kind updates share instead of
        copying (see ``DocumentEdits.share_tables``); the resolver's own chains are the ones
        that count (see ``own_chains``)."""
        chains = self.chains
        if chains.chain_of is not self.state.ancestors or type(chains.chain_of) is not Journaled:
            self.state.ancestors = chains.chain_of if type(chains.chain_of) is Journaled else fork(chains.chain_of)[0]
            chains.chain_of = self.state.ancestors

    def chain(self, decl_id: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Linearized ancestors and, parallel to them, when each entry joined this chain.

        Times are ``doc << 32 | offset`` of the mixin call that inserted the entry (-1 for the
        classes themselves). Ruby skips a module "already in the chain" by looking at the
        superclasses as they are at that moment, so a superclass's include made later (in load
        order) does not stop an earlier include in the subclass."""
        chains = self.chains
        if chains.times_raw is not None:
            self.load_times()
        cached = chains.chain_of.get(decl_id)
        if cached is not None:
            return cached, chains.times_of[decl_id]
        partial = chains.in_progress.get(decl_id)
        if partial is not None:
            # A lookup made while computing this chain sees it as far as it got, as in Ruby,
            # where each include runs after the previous ones. Whatever is computed from a
            # partial chain is provisional and is not cached (see ``LookupCaches.partial_hits``).
            self.caches.note_partial(decl_id)
            return tuple(partial[0][1:]), tuple(partial[1][1:])
        rec = self.decls[decl_id]
        if not rec.is_namespace:
            return (decl_id,), (-1,)
        b = Building([HEAD, decl_id], [-1, -1], [0, 0])
        chains.in_progress[decl_id] = (b.chain, b.times)
        super_lengths = chains.super_lengths
        depth = len(super_lengths)
        hits_before = len(self.caches.partial_hits)
        self.concern_book.start(decl_id)
        try:
            sup = self.superclass(decl_id)
            if sup is not None:
                sup_chain, sup_times = self.chain(sup)
                b.chain.extend(sup_chain)
                b.times.extend(sup_times)
                b.tokens.extend([0] * len(sup_chain))
            b.super_len = len(b.chain) - 2
            super_lengths.append(b.super_len)
            self._apply_mixins(decl_id, rec, b)
        finally:
            del chains.in_progress[decl_id]
            if len(super_lengths) > depth:
                super_lengths.pop()
        chain, times = b.chain, b.times
        if chain.count(decl_id) > 1:
            # A module mixed in through one that (provisionally) had this one among its
            # ancestors: a namespace is never its own ancestor twice (Ruby's cyclic error).
            keep = [i for i, d in enumerate(chain) if d != decl_id or i == 1]
            chain[:] = [chain[i] for i in keep]
            times[:] = [times[i] for i in keep]
        result = tuple(chain[1:])
        result_times = tuple(times[1:])
        if self.caches.settle_partial(hits_before, decl_id):
            chains.chain_of[decl_id] = result
            chains.times_of[decl_id] = result_times
        return result, result_times

    def _apply_mixins(self, decl_id: int, rec: DeclarationRecord, b: Building) -> None:
        """Run the chain's own mixin calls in program order, and between them the mixins that
        modules already in the chain make later (Ruby 3 propagates those into includers)."""
        origin = 1
        concern = self.build.phase != Phase.NAMESPACES and rec.kind == "Module" and self.concerns.is_concern(decl_id)
        late: list[tuple[int, tuple[int, int, int], int, MixinKind, int]] = []
        for op in self._mixin_ops(decl_id):
            key, kind = op.key, op.kind
            when = (key[0] << 32) | key[1]
            if late and late[0][0] < when:
                origin = self._run_late(decl_id, b, late, when)
            module = self._mixin_target(decl_id, op.doc, op.scope, op.target, op.external)
            if module is None:
                continue
            if module == decl_id or self._cyclic(module, decl_id, when):
                # ``module A; include A; end``, or a module mixing in one that already mixed
                # it in: Ruby raises ArgumentError (cyclic include detected), changing nothing.
                continue
            if kind == "include":
                if concern and self.concerns.is_concern(module):
                    # A concern including a concern only records it as a dependency.
                    self.concern_book.note_dependency(decl_id, module)
                    continue
                run = "extend" if op.extending else "include"
                added = self._include_with_dependencies(b, module, origin, set(), when, run)
            else:
                run = "prepend"
                origin, added = insertion.prepend(b, self._present(module, when), origin, when)
                for hooked in self._deferred_of(module, "include", when, run):
                    # ``base.include X`` in the module's ``prepended`` hook.
                    added += self._include_with_dependencies(b, hooked, origin, set(), when)
            for hooked in self._deferred_of(module, "prepend", when, run) if run != "extend" else ():
                # ``prepend X`` in the module's hook (or ``included do`` block) runs on the
                # includer right after the include (the prepend).
                origin, more = insertion.prepend(b, self._present(hooked, when), origin, when)
                added += more
            self._schedule_late(b, added, late)
        if late:
            self._run_late(decl_id, b, late, None)

    def _present(self, module: int, when: int) -> tuple[int, ...]:
        """``module``'s chain as it was at ``when``; a concern's whole chain. Concerns are
        loaded through ``autoload`` (which the load order does not follow) and are complete
        by the time anything includes them, so none of their mixins is late."""
        chain, times = self.chain(module)
        rec = self.decls[module]
        if rec.kind == "Todo" and rec.superclass is not None and rec.superclass in chain:
            # A placeholder stands for a module here: its own part, without the superclass's
            # chain behind it (``Builder.placeholder``), the modules prepended to the
            # superclass included (Object's, say, come before Object in its chain).
            behind = self.chain(rec.superclass)[0]
            if len(behind) < len(chain) and chain[len(chain) - len(behind) :] == behind:
                cut = len(chain) - len(behind)
            else:
                cut = chain.index(rec.superclass)
            chain, times = chain[:cut], times[:cut]
        if self.build.phase != Phase.NAMESPACES and self.concerns.is_concern(module):
            return chain
        return insertion.present_at(chain, times, when)

    def _schedule_late(self, b: Building, added: list[int], late: list) -> None:
        """For entries just inserted, queue the mixins their modules make after that moment."""
        for token in added:
            pos = b.position(token)
            module, joined = b.chain[pos], b.times[pos]
            times = self.chain(module)[1]
            if not times or max(times) <= joined or (self.build.phase != Phase.NAMESPACES and self.concerns.is_concern(module)):
                continue
            for op in self._mixin_ops(module):
                when = (op.key[0] << 32) | op.key[1]
                if when <= joined:
                    continue
                target = self._mixin_target(module, op.doc, op.scope, op.target, op.external)
                if target is not None and target != module:
                    heapq.heappush(late, (when, op.key, token, op.kind, target))

    def _run_late(self, decl_id: int, b: Building, late: list, until: int | None) -> int:
        """Apply queued late mixins made before ``until`` (all when None); returns the class's
        position in the chain, which moves when a prepended module gains entries."""
        while late and (until is None or late[0][0] < until):
            when, _, anchor, kind, module = heapq.heappop(late)
            modules = self._present(module, when)
            if kind == "include":
                added = insertion.propagate_include(b, anchor, module, modules, when, self._is_class_entry)
                for hooked in self._deferred_of(module, "include", when):
                    # The included module's hook includes more into the anchor's module, which
                    # Ruby 3 propagates too (representable's Hash.included includes Representable).
                    added += insertion.propagate_include(b, anchor, hooked, self._present(hooked, when), when, self._is_class_entry)
            else:
                # What the anchor's module had prepended before stays behind the new module.
                owner = b.chain[b.position(anchor)]
                own_chain = self.chain(owner)[0]
                prepended = own_chain[: own_chain.index(owner)] if owner in own_chain else ()
                added = insertion.propagate_prepend(b, anchor, modules, when, prepended)
            self._schedule_late(b, added, late)
        return b.chain.index(decl_id, 1)

    def _cyclic(self, module: int, decl_id: int, when: int) -> bool:
        """Whether ``module`` already has ``decl_id`` among its ancestors at ``when``: the
        mixin that came first in load order stands, the later one is Ruby's cyclic error."""
        chain, times = self.chain(module)
        if decl_id not in chain:
            return False
        joined = times[chain.index(decl_id)]
        return joined < when

    def _deferred_of(self, module: int, kind: str, when: int, run: str = "include") -> list[int]:
        """The modules ``module``'s hooks run by ``run`` (``hook_run``: "include" for
        ``included``, "prepend" for ``prepended``...), of those defined before ``when``,
        include or prepend (``kind``) to their ``base``, in program order."""
        out = []
        for doc, index in self.decls[module].definitions:
            defs = self.docs[doc].definitions
            for m in defs[index].deferred_mixins:
                if m.kind == kind and self._hook_defined(module, doc, m, when) and hook_run(defs, index, m.start) == run:
                    found = self._mixin_target(module, doc, index, m.target, load_time=False)
                    if found is not None and found != module:
                        out.append(found)
        return out

    def _hook_defined(self, module: int, doc: int, m: Mixin, when: int) -> bool:
        """Whether the hook (or ``included do`` block) holding deferred mixin ``m`` of
        ``module`` was defined before an include at ``when``: Ruby runs only the hooks defined
        then (representable's json/collection.rb includes JSON before json.rb gives JSON its
        ``included`` hook). A module first defined after the include was loaded by it
        (``autoload``, an order rdx does not know): its hooks count as defined, as a concern's
        do (concerns are autoloaded, complete before anything includes them: ``_present``)."""
        if ((doc << 32) | m.start) < when:
            return True
        first_doc, first = self.decls[module].definitions[0]
        if ((first_doc << 32) | self.docs[first_doc].definitions[first].start) > when:
            return True
        return self.build.phase != Phase.NAMESPACES and self.concerns.is_concern(module)

    def _include_with_dependencies(self, b: Building, module: int, origin: int, seen: set[int], when: int, run: str = "include") -> list[int]:
        """Include ``module``, after the concerns it depends on (ActiveSupport::Concern), and
        what its hooks run by ``run`` include (``hook_run``; an extend runs no ``included``)."""
        modules = self._present(module, when)
        added: list[int] = []
        if module not in seen:
            seen.add(module)
            for dep in self.concern_book.concern_deps.get(module, ()):
                added += self._include_with_dependencies(b, dep, origin, seen, when)
        added += insertion.include(b, modules, origin, when, self._is_class_entry)
        for dep_id in self._deferred_of(module, "include", when, run) if run != "extend" else ():
            if dep_id not in seen:
                added += self._include_with_dependencies(b, dep_id, origin, seen, when)
        return added

    def _mixin_target(
        self, decl_id: int, doc: int, index: int, target: ConstPath | int | None, external: bool = False, load_time: bool = True
    ) -> int | None:
        """The module a mixin names. One written in a namespace body, or ``Foo.include(M)``
        outside method bodies, is evaluated while its file loads (``lookup_namespace_at``); a
        deferred one (``included do ... end``) runs later."""
        if isinstance(target, int):
            return target  # Already resolved (a concern's ClassMethods).
        if target is None and external:
            site = self.lookup.cref(doc, index)
            return (site[0] if site else self.object_id) if site is not None else None
        if target is None:
            rec = self.decls[decl_id]
            return rec.attached if rec.kind == "SingletonClass" else decl_id
        if external:
            site = self.lookup.cref(doc, index)
        else:
            d = self.docs[doc].definitions[index]
            site = self.lookup.cref(doc, index) if d.lexical else self.lookup.cref(doc, d.parent)
        if site is None:
            return None
        module = self.lookup.lookup_namespace_at(target, site, doc, index) if load_time else self.lookup.lookup_namespace(target, site)
        if module is None:
            if self.build.phase == Phase.NAMESPACES:
                return None
            module = self.builder.placeholder(target, site, len(target.segments))
        if self.decls[module].kind not in ("Module", "Todo"):
            self.state.diagnostics.append(
                    ResolutionDiagnostic(doc, "invalid-mixin", f"{target.text} is a {self.decls[module].kind}, not a module", target.start, target.end, "warning")
            )
            return None
        return module

    def _is_class_entry(self, decl_id: int) -> bool:
        kind = self.decls[decl_id].kind
        return kind == "Class" or kind == "SingletonClass"
