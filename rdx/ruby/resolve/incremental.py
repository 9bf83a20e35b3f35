"""Incremental updates: one document replaced, added or removed.

Each returns a new ResolvedState and leaves the previous one intact (records and tables are
copied before they change), or None when only a full resolve can be trusted. After a None the
resolver is spent: the caller resolves from scratch with a new one, so nothing is rolled back.

The mechanism is the same for every edit: the old and new versions of the document are
aligned (``edits.skeleton_diff``: kept, added and removed namespaces and constants, and
superclasses or mixins changed in place); removals and additions are applied where nothing
else can notice them (``skeleton``), changed chains are computed again with everything that
depends on them (``invalidation``), the member definitions writing into the touched namespaces
are replayed in program order (``_replay_members``), and the documents whose lookups read
anything that changed resolve their references again. An added document is the edit of an
empty one at its new key; a removed document is the edit to an empty one, then its key goes.

An edit that other documents' definitions depend on (a removed declaration their lookups find,
an alias that a namespace body elsewhere is written under) goes around them (``_detour``): they
are emptied, the edit is applied, and they get their text back, each step the same one-document
update. The checks that call for it (``Detour``) run before an update writes anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdx.model.records import FileResult
from rdx.model.store import ResolutionDiagnostic, ResolvedState
from rdx.ruby.resolve.edits import (
    SkeletonDiff,
    member_keys,
    moved_diagnostics,
    path_names,
    position_map,
    signature,
    skeleton,
    skeleton_diff,
    spans_of,
    successor,
)
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.update import MAX_DETOUR_DOCUMENTS, Detour, UpdateContext, merge_refresh
from rdx.ruby.resolve.vocabulary import (
    MAX_REPLAY_DEFINITIONS,
    MAX_REPLAY_NAMESPACES,
    MEMBER_CODES,
    MEMBER_DECL_KINDS,
    MEMBER_DEF_KINDS,
    Phase,
    ReplayUnsafe,
)

if TYPE_CHECKING:
    from rdx.ruby.resolve.ancestors import Ancestors
    from rdx.ruby.resolve.builder import Build, Builder
    from rdx.ruby.resolve.invalidation import Invalidation
    from rdx.ruby.resolve.loadcalls import LoadCalls
    from rdx.ruby.resolve.lookup import Binding, Lookup, LookupCaches
    from rdx.ruby.resolve.members import MemberBook, Members
    from rdx.ruby.resolve.mentions import Bounds, MentionBook, Mentions
    from rdx.ruby.resolve.namespaces import ExternalBook
    from rdx.ruby.resolve.placeholders import Placeholders
    from rdx.ruby.resolve.references import References
    from rdx.ruby.resolve.skeleton import SkeletonEdits


class UpdateBook:
    """What the updates report (owned by this module): why the last one gave up (for the
    benchmark and ``Graph.last_resolve``)."""

    __slots__ = ("fallback",)
    HELD_AS = "updates"

    def __init__(self) -> None:
        self.fallback: str | None = None


class Incremental(StateView):
    """The incremental updater: one document replaced, composed from the same passes as a full run."""

    def __init__(
        self,
        binding: Binding,
        *,
        build: Build,
        builder: Builder,
        caches: LookupCaches,
        externals: ExternalBook,
        invalidation: Invalidation,
        linearizer: Ancestors,
        loadcalls: LoadCalls,
        lookup: Lookup,
        member_book: MemberBook,
        member_pass: Members,
        mention_book: MentionBook,
        mentions: Mentions,
        placeholders: Placeholders,
        references: References,
        skeleton: SkeletonEdits,
        updates: UpdateBook,
    ) -> None:
        self.binding = binding
        self.build = build
        self.builder = builder
        self.caches = caches
        self.externals = externals
        self.invalidation = invalidation
        self.linearizer = linearizer
        self.loadcalls = loadcalls
        self.lookup = lookup
        self.member_book = member_book
        self.member_pass = member_pass
        self.mention_book = mention_book
        self.mentions = mentions
        self.placeholders = placeholders
        self.references = references
        self.skeleton = skeleton
        self.updates = updates
        binding.join(self)

    @property
    def fallback(self) -> str | None:
        """Why the last incremental update gave up, if it did."""
        return self.updates.fallback

    def refresh_document(self, new: FileResult) -> ResolvedState | None:
        """A new state for an edit of one document that leaves its definitions as they were
        (same kinds, names, nesting, mixins, visibility; only positions, comments, signatures
        and the code inside method bodies changed), or None when a full resolve is needed.

        Everything but the document's own references is then provably unchanged, so the new
        state shares the declarations and ancestors and only re-resolves that document's
        references and moves its diagnostics. The previous state is left intact."""
        index = self.lookup.key_of(new.uri)
        if index is None:
            return None
        self.mention_book.touch(index)
        old = self.docs[index]
        if signature(old) != signature(new):
            return None
        diagnostics = moved_diagnostics(self.state.diagnostics, index, position_map(old, new), lambda _: True)
        if diagnostics is None:
            return None
        state = successor(self.state, diagnostics, {index: new})
        self.binding.read(state)
        self.references.store_references(state, index, None)
        return state

    def _replay_scope(self, seeds: set[int], keys: set[str], edited: int) -> set[int]:
        """The namespaces whose members a member edit can change.

        ``keys`` are the member keys (``m()``) whose state the edit can change: at first those
        the edited document's old and new member definitions write. The scope is the seeds
        (where the edit writes), their singleton classes and attached namespaces
        (``module_function`` writes into both) and, to a fixed point, descendants that look up
        an inherited member (alias, visibility change) named by a key. Keys grow by the aliases
        in the scope whose original is a key (``alias y x`` changes with ``x``); a visibility
        change copies under the same key. Every other member of a namespace reads nothing that
        changed, so the replay gives it back as it was. The member index entries of the
        ``edited`` document are stale; the caller put its keys in."""
        descendants = self.linearizer.descendants()
        lookups = self.member_book.lookup_keys
        scope: set[int] = set()
        stack = list(seeds)
        while True:
            while stack:
                ns = stack.pop()
                if ns in scope or ns not in self.decls:
                    continue
                scope.add(ns)
                if len(scope) > MAX_REPLAY_NAMESPACES:
                    raise ReplayUnsafe("the edit reaches too many namespaces")
                rec = self.decls[ns]
                if rec.singleton is not None:
                    stack.append(rec.singleton)
                if rec.attached is not None:
                    stack.append(rec.attached)
            grew = True
            while grew:
                grew = False
                for ns in scope:
                    for doc, i in self.member_book.member_index.get(ns, ()):
                        if doc == edited:
                            continue
                        d = self.docs[doc].definitions[i]
                        if d.kind == "MethodAlias" and f"{d.old_name}()" in keys and f"{d.name}()" not in keys:
                            keys.add(f"{d.name}()")
                            grew = True
            for ns in list(scope):
                for desc in descendants.get(ns, ()):
                    if desc not in scope:
                        wanted = lookups.get(desc)
                        if wanted is not None and not wanted.isdisjoint(keys):
                            stack.append(desc)
            if not stack:
                return scope

    def refresh_members(self, new: FileResult, order_checked: bool = False) -> ResolvedState | None:
        """A new state for an edit of one document that changes only its members (see
        ``refresh_step``), going around the documents it depends on when it must (``_detour``).
        None when a full resolve is needed."""
        try:
            return self.refresh_step(new, order_checked)
        except Detour as around:
            if len(around.documents) > MAX_DETOUR_DOCUMENTS:
                self.updates.fallback = str(around)
                return None
            return self._detour(new, order_checked, around)

    def refresh_step(self, new: FileResult, order_checked: bool) -> ResolvedState | None:
        """A new state for an edit of one document that changes only its members (methods,
        attributes, aliases, variables, method visibility): same namespaces, constants,
        mixins, superclasses and requires. None when a full resolve is needed.

        Namespaces, constants and ancestors are then unchanged. The members of the namespaces
        the edit writes into, their singleton classes and their descendants are dropped and
        the member definitions writing into them, from every document, are replayed in program
        order. The new state shares everything else with the previous one, which is left
        intact (records are copied before they change). ``order_checked``: the caller made sure
        that a change of requires leaves the load order as it was. An edit that other documents'
        definitions depend on raises ``Detour`` (before anything is written) for the caller to
        move them out of the way."""
        index = self.lookup.key_of(new.uri)
        if index is None:
            return None
        self.mention_book.touch(index)
        self.member_book.load()
        old = self.docs[index]
        conflict = self.loadcalls.load_call_conflict(index, old, new)
        if conflict is not None:
            self.updates.fallback = conflict
            return None
        self.loadcalls.keep_current(new)
        old_skeleton, new_skeleton = skeleton(old), skeleton(new)
        if (self.loadcalls.runs_calls(old) or self.loadcalls.runs_calls(new)) and (old_skeleton is None or new_skeleton is None or old_skeleton[0] != new_skeleton[0]):
            self.updates.fallback = "a document with load-time calls of other files' methods changes its namespaces"
            return None
        if old_skeleton is None or new_skeleton is None:
            self.updates.fallback = "a member definition carries mixins or scopes an external mixin"
            return None
        if old_skeleton[0] == new_skeleton[0]:
            diff = SkeletonDiff(dict(zip(old_skeleton[1], new_skeleton[1], strict=True)), [], [], [])
        else:
            aligned = skeleton_diff(old_skeleton, new_skeleton, order_checked)
            if aligned is None:
                self.updates.fallback = "the namespaces of the two versions do not align (or external mixins changed)"
                return None
            diff = aligned
        try:
            return self._replay_members(index, old, new, diff)
        except ReplayUnsafe as exc:
            if isinstance(exc, Detour):
                raise  # Nothing was written yet: the caller can go around ``exc.documents``.
            self.updates.fallback = str(exc)
            return None  # The published states are intact; the caller drops this resolver.
        finally:
            self.build.end_update()

    def _detour(self, new: FileResult, order_checked: bool, around: Detour) -> ResolvedState | None:
        """Apply an edit that other documents' definitions depend on (``around.documents``):
        empty each of them, apply the edit, then give each its text back, every step a
        one-document update of its own from the state the one before left. Each step equals a
        full resolve of its documents (in the same load order: the keys stay), so the last one
        does. The edited document may be one of them (``module Y`` below the ``Y = Target``
        that goes): it is emptied first, then given its new text.

        A step may itself depend on other documents (emptying one removes a declaration that a
        third one's lookups find): those go out of the way before it, the same way, and come
        back after the edit. Documents are emptied ``MAX_DETOUR_DOCUMENTS`` times at most, in
        all. None when a step needs a full resolve (its reason is the fallback)."""
        run = _Around(self, new)
        if all(run.empty_out(doc) for doc in sorted(around.documents, key=lambda doc: (doc == run.edited, doc))) and run.apply(new, order_checked) and run.give_back():
            return run.last
        self.updates.fallback = f"{self.updates.fallback} (after {around})"
        return None

    def _replay_members(self, index: int, old: FileResult, new: FileResult, diff: SkeletonDiff) -> ResolvedState:
        """Apply an aligned edit of document ``index``: the steps of the module docstring, each
        below. Raises ReplayUnsafe when a step cannot prove it equals a full resolve, and
        ``Detour`` (before anything is written) when it must go around other documents."""
        u = self._begin_update(index, old, new, diff)  # Raises ``Detour`` before it writes, if at all.
        try:
            return self._apply(u)
        except Detour as exc:
            raise ReplayUnsafe(str(exc)) from exc  # Too late to go around: things were written.

    def _apply(self, u: UpdateContext) -> ResolvedState:
        """The steps of ``_replay_members`` after ``_begin_update``."""
        index = u.index
        rechained = self._update_skeleton(u)
        new_members, scope, order, owner_of = self._member_scope(u, rechained)
        self._replay(u, scope, order, owner_of)
        if u.gone:
            merge_refresh(u.unnamed, self.skeleton.remove_declarations(index, u.gone, u.own, u.deleted))
        if u.revisible:
            # ``private_constant`` calls added or removed: references elsewhere (``Foo::X``)
            # find what a constant whose visibility changed hides or shows now.
            merge_refresh(u.refresh, self.mentions.mentioning(self.member_pass.settle_constant_visibility(u.revisible, u.own), index))
        if u.placeholders:
            # As for any deleted declaration, only references that found one, or whose path
            # is longer, can change (``References.store_references``).
            dropped: set[int] = set()
            owners: set[int] = set()
            names = self.placeholders.drop_unused_placeholders(u, u.placeholders, dropped, owners)
            if dropped:
                u.deleted |= dropped
                merge_refresh(u.unnamed, self.mentions.unnaming(names, owners, index, dropped, self.state.constant_targets))
        if u.left_chains:
            self.placeholders.drop_unneeded_singletons(u, u.left_chains)
        if u.lost_bodies or u.left_metas:
            self.placeholders.drop_lost_bodies(u)
        assert self.build.created is not None
        if self.build.created:
            self.placeholders.drop_unneeded_metas(u, self.build.created)
        self._refresh_references(u, order)
        self._note_members(u, new_members)
        u.state.diagnostics = list(dict.fromkeys(u.state.diagnostics))
        return u.state

    def _begin_update(self, index: int, old: FileResult, new: FileResult, diff: SkeletonDiff) -> UpdateContext:
        """Check what goes, then publish nothing yet: a new state whose tables are copies,
        with the document installed, its kept definitions on their declarations at their new
        indices and its diagnostics moved with their spans."""
        prev = self.state
        remap, removed = diff.remap, diff.removed
        if diff.added:
            self.skeleton.check_additions(index, new, diff.added, remap)
        # Placeholders the old lookups found may have to go (``Placeholders``).
        placeholders = self.placeholders.found_todos(index, {*removed, *(o for o, _ in diff.changed)}) if removed or diff.changed else set()
        demoted = self.placeholders.demotable(index, old, new, diff) if removed else {}
        gone, bodies = self.skeleton.removable(index, old, new, removed, demoted) if removed else ([], [])
        if gone and diff.added:
            self.skeleton.check_redeclared(index, new, diff.added, gone)
        # A ``private_constant`` that goes changes only what its constant shows (settled once
        # the edit is in); the constant itself is not reopened.
        revisible = {b for b, pair in bodies if old.definitions[pair[1]].kind == "ConstantVisibility"}
        bodies, visibility_pairs = (
            [(b, pair) for b, pair in bodies if old.definitions[pair[1]].kind != "ConstantVisibility"],
            [(b, pair) for b, pair in bodies if old.definitions[pair[1]].kind == "ConstantVisibility"],
        )
        bounds = self._reopened_bounds(bodies)
        reopened = set(bounds)
        reopened_constants = {self.decls[b].unqualified for b, _ in bodies if self.decls[b].kind in ("Constant", "ConstantAlias")}
        lookups_before = {}
        if reopened:
            owners: dict[str, set[int | str | None]] = {}
            for b, _ in bodies:
                owners.setdefault(self.decls[b].unqualified, set()).add(self.decls[b].owner)
            lookups_before = self.mentions.snapshot_lookups(reopened, index, bounds, self.skeleton.reach(owners, new))
        old_row = prev.definition_declarations[index]
        state = successor(prev, self._moved_diagnostics(index, old, new, diff), {index: new})
        u = UpdateContext(index, old, new, diff, prev, state, gone)
        u.reopened, u.lookups_before, u.placeholders, u.demoted = reopened, lookups_before, placeholders, demoted
        u.realiased = {b for b, _ in bodies if self.decls[b].kind == "ConstantAlias"}
        u.revisible = revisible
        for gone_id in gone:
            holders = self.skeleton.holders(gone_id)
            if len(holders) == 3:
                u.left_metas.extend(prev.ancestors.get(holders[2], ())[1:])
        u.reopened_constants, u.bounds = reopened_constants, bounds
        self.build.begin_update(u.own, set(gone))
        for body_decl, pair in visibility_pairs:
            u.own(body_decl).definitions = [p for p in self.decls[body_decl].definitions if p != pair]
        for body_decl, pair in bodies:
            body = u.own(body_decl)
            body.definitions = [p for p in body.definitions if p != pair]
            if body.kind == "SingletonClass" and not body.definitions and body.singleton is not None:
                u.lost_bodies.add(body_decl)
            gone_def = old.definitions[pair[1]]
            if gone_def.superclass is not None or gone_def.superclass_self or gone_def.mixins or gone_def.deferred_mixins:
                u.rechain.add(body_decl)
        row: list[int | None] = [None] * len(new.definitions)
        for o, n in remap.items():
            row[n] = old_row[o]
        # Namespaces and constants defined here keep their declarations; their definition
        # indices move.
        for decl_id in {old_row[o] for o in remap if old_row[o] is not None}:
            assert decl_id is not None
            rec = u.own(decl_id)
            moved_defs = []
            for doc, i in rec.definitions:
                if doc == index:
                    if i not in remap:
                        raise ReplayUnsafe(f"{rec.name} has a member definition attached")
                    i = remap[i]
                moved_defs.append((doc, i))
            rec.definitions = moved_defs
        state.definition_declarations[index] = row
        self.binding.read(state)
        self.caches.open_document(index, None)
        if old.external_mixins:
            self.externals.renumber(index, old.external_mixins, new.external_mixins)
        return u

    def _reopened_bounds(self, bodies: list[tuple[int, tuple[int, int]]]) -> Bounds:
        """The names of the namespaces and constants that lose a body (``bodies``), each with
        the largest document key whose lookups of it may now find something else. A namespace
        keeps its declaration and members: only lookups made while a file loads can change
        (``Lookup.defined_after``: whether it is defined yet), and a document loaded after one
        of its remaining definitions sees it defined before and after (the first one's key is
        the bound). A constant's value may change anywhere (None)."""
        removed = {pair for _, pair in bodies}
        bounds: Bounds = {}
        for decl_id, _ in bodies:
            rec = self.decls[decl_id]
            if rec.kind not in ("Class", "Module", "Constant", "ConstantAlias"):
                continue
            name = rec.unqualified
            keys = [doc for doc, i in rec.definitions if (doc, i) not in removed]
            bound = min(keys) if keys and rec.kind in ("Class", "Module") else None
            if name not in bounds:
                bounds[name] = bound
            else:
                before = bounds[name]
                bounds[name] = None if before is None or bound is None else max(before, bound)
        return bounds

    def _moved_diagnostics(self, index: int, old: FileResult, new: FileResult, diff: SkeletonDiff) -> list[ResolutionDiagnostic]:
        """The diagnostics, with this document's skeleton ones moved with their definitions
        (those of removed definitions go); its member ones are reported again by the replay."""
        dropped: set[tuple[int, int]] = set()
        for o in diff.removed:
            dropped |= spans_of(old.definitions[o])
        moved = position_map(old, new, diff.remap.items())
        diagnostics = moved_diagnostics(
            self.state.diagnostics, index, moved, lambda d: d.code not in MEMBER_CODES and (d.start, d.end) not in dropped
        )
        if diagnostics is None:
            raise ReplayUnsafe("a diagnostic cannot be moved")
        return diagnostics

    def _update_skeleton(self, u: UpdateContext) -> set[int]:
        """Declare what the edit adds, then compute again the chains whose superclass or mixins
        changed in place or now find an added declaration; returns the namespaces whose chain
        changed (documents reading them are queued for reference refresh). Placeholders the
        chains declare are checked (``Placeholders``) and references naming them refreshed."""
        diff = u.diff
        if u.demoted:
            self.placeholders.demote(u)
        refresh, chain_seeds, revisible, loading = self.skeleton.declare_added(u.index, u.new, diff.added, u.own) if diff.added else ({}, set(), set(), {})
        for doc, reopened in loading.items():
            u.loading.setdefault(doc, set()).update(reopened)
        # (A constant or namespace declared again by an addition stays:
        # ``SkeletonEdits._declare_one_added``. A namespace's singleton class may have lost
        # its last ``class << self`` body then, as any reopened one's can.)
        for kept in [g for g in u.gone if g not in self.build.going]:
            single = self.decls[kept].singleton
            if single is not None and self.decls[single].singleton is not None:
                u.lost_bodies.add(single)
        u.gone = [g for g in u.gone if g in self.build.going]
        merge_refresh(u.refresh, refresh)
        u.revisible |= revisible
        if u.reopened:
            if u.realiased:
                # An alias that lost an assignment may name something else now.
                self.caches.forget_lookups()
                for decl_id in u.realiased:
                    u.own(decl_id).target = self.lookup.alias_target(decl_id)
            chain_seeds |= self.mentions.check_lookups(u.lookups_before, u.reopened)
            # A namespace that loses one of its bodies keeps its declaration: references
            # find it as before, but for those that run while their file loads, where it
            # may now be defined only after them. A constant's value may change (an alias).
            if u.reopened_constants:
                merge_refresh(u.refresh, self.mentions.mentioning(u.reopened_constants, u.index))
            namespaces = u.reopened - u.reopened_constants
            if namespaces:
                for doc in self.mentions.loading_documents(namespaces, u.index, u.bounds):
                    u.loading.setdefault(doc, set()).update(namespaces)
        chain_seeds |= u.rechain
        if u.demoted:
            chain_seeds |= self.placeholders.demoted_seeds(u)
            merge_refresh(u.refresh, self.mentions.mentioning({self.decls[d].unqualified for d in u.demoted}, u.index))
        row = self.def_decl[u.index]
        chain_seeds |= {decl for _, n in diff.changed if (decl := row[n]) is not None}
        going = {h for g in u.gone for h in self.skeleton.holders(g)}
        rechained = self.invalidation.rechain(chain_seeds, u.own, going) if chain_seeds else set()
        changed = rechained
        while changed:
            # Superclasses and mixins written inside a namespace whose chain changed may find
            # something else through its new ancestors.
            nested = self.mentions.check_nested(changed) - rechained
            changed = self.invalidation.rechain(nested, u.own, going) - rechained if nested else set()
            rechained |= changed
        if rechained:
            merge_refresh(u.refresh, self.invalidation.documents_reading(rechained, u.prev))
            # A placeholder's singleton class that left a chain may not be needed any more.
            u.left_chains = self.placeholders.left_chains(u.prev.ancestors, rechained)
            u.placeholders |= self.placeholders.left_placeholders(u.prev.ancestors, rechained)
        assert self.build.created is not None
        created = {d for d in self.build.created if d in self.decls and self.decls[d].kind == "Todo"}
        if diff.added or diff.changed:
            self.placeholders.check_found(u, {*diff.added, *(n for _, n in diff.changed)}, created)
        if created:
            self.placeholders.chain_created(created)
            self.placeholders.check_created(u, created)
            merge_refresh(u.refresh, self.skeleton.documents_seeing(created, u.index))
        return rechained

    def _member_scope(
        self, u: UpdateContext, rechained: set[int]
    ) -> tuple[list[tuple[int, int | None]], set[int], list[tuple[int, int]], dict[tuple[int, int], int | None]]:
        """Which member definitions to replay: the new ones (with their owners, computed as the
        member phase would), and every one writing into the scope (``_replay_scope``) of the
        namespaces the edit writes into or whose chain changed; in program order."""
        index, old, new = u.index, u.old, u.new
        new_members: list[tuple[int, int | None]] = []
        method_owners: dict[int, int | None] = {}
        for i, d in enumerate(new.definitions):
            if d.kind in MEMBER_DEF_KINDS:
                owner = self.member_pass.member_owner(index, i, d, method_owners, False)
                if d.kind == "Method":
                    method_owners[i] = owner
                new_members.append((i, owner))
        keys: set[str] = set()
        for d in old.definitions:
            if d.kind in MEMBER_DEF_KINDS:
                keys.update(member_keys(d))
        for i, new_owner in new_members:
            keys.update(member_keys(new.definitions[i]))
            if new_owner is not None and (new.definitions[i].kind == "MethodAlias" or new.definitions[i].kind == "MethodVisibility"):
                self.member_pass.note_lookup(new_owner, new.definitions[i])
        seeds = {o for o in self.member_book.doc_owners[index] | {o for _, o in new_members} if o is not None}
        for ns in rechained:
            # A changed chain changes what this namespace's aliases and visibility changes find.
            wanted = self.member_book.lookup_keys.get(ns)
            if wanted:
                seeds.add(ns)
                keys |= wanted
        scope = self._replay_scope(seeds, keys, index)
        if not scope.isdisjoint(self.build.member_created):
            raise ReplayUnsafe("the edit touches a namespace the member phase created")
        owner_of: dict[tuple[int, int], int | None] = {}
        for ns in scope:
            for key in self.member_book.member_index.get(ns, ()):
                if key[0] != index:
                    owner_of[key] = ns
        for i, new_owner in new_members:
            owner_of[(index, i)] = new_owner
        if len(owner_of) > MAX_REPLAY_DEFINITIONS:
            raise ReplayUnsafe("the edit reaches too many member definitions")
        return new_members, scope, sorted(owner_of), owner_of

    def _replay(self, u: UpdateContext, scope: set[int], order: list[tuple[int, int]], owner_of: dict[tuple[int, int], int | None]) -> None:
        """Drop the members of the scope (keeping the namespaces and constants it holds) and
        apply the member definitions of ``order`` again, each seeing the program as it is at
        its position (``Phase.REPLAY``)."""
        docs, decls = self.docs, self.decls
        for doc, _ in order:
            u.own_row(doc)
        # Other documents' member diagnostics are reported again by the replay.
        replayed = {(doc, docs[doc].definitions[i].start, docs[doc].definitions[i].end) for doc, i in order if doc != u.index}
        if replayed:
            u.state.diagnostics = [x for x in u.state.diagnostics if not (x.code in MEMBER_CODES and (x.doc, x.start, x.end) in replayed)]
        # (The order of a members table is never observable: every answer sorts or looks up.)
        for ns in scope:
            rec = u.own(ns)
            kept: dict[str, int] = {}
            for name, member in rec.members.items():
                mrec = decls.get(member)
                if mrec is not None and mrec.kind in MEMBER_DECL_KINDS and mrec.owner == ns:
                    self.builder.delete(member)
                    for doc, i in mrec.definitions:
                        if doc != u.index and self.def_decl[doc][i] == member:
                            u.own_row(doc)[i] = None
                else:
                    kept[name] = member
            rec.members = kept
        for key in order:
            doc, i = key
            self.build.enter(Phase.REPLAY, (scope, key))
            self.member_pass.apply_member(doc, i, docs[doc].definitions[i], owner_of[key])
        self.build.enter(Phase.SETTLED)

    def _refresh_references(self, u: UpdateContext, order: list[tuple[int, int]]) -> None:
        """References again: all of this document's and of documents whose methods changed
        declaration (calls inside a removed method have no known receiver), and those naming
        what changed in the documents queued by the earlier steps."""
        refresh = u.refresh
        refresh[u.index] = None
        previous = u.prev.definition_declarations
        for doc, i in order:
            if doc != u.index and self.def_decl[doc][i] != previous[doc][i] and self.docs[doc].definitions[i].kind == "Method":
                refresh[doc] = None
        state = u.state
        unnamed, loading = u.unnamed, u.loading
        for doc in sorted(refresh.keys() | unnamed.keys() | loading.keys()):
            names = refresh.get(doc, set())
            if names is None or (doc in unnamed and unnamed[doc] is None):
                self.references.store_references(state, doc, None)
            else:
                self.references.store_references(state, doc, names, unnamed.get(doc), u.deleted, loading.get(doc))

    def _note_members(self, u: UpdateContext, new_members: list[tuple[int, int | None]]) -> None:
        """Keep the member index and the mention index current for the document."""
        index = u.index
        self.member_book.note_document(index, new_members)
        self.mentions.remention(index, path_names(u.new))


class _Around:
    """One ``Incremental._detour``: which documents are emptied now, what they get back once
    the edit is in (in the order they went), and the state the last step left."""

    __slots__ = ("back", "edited", "empty", "emptied", "last", "new", "placed", "updater")

    def __init__(self, updater: Incremental, new: FileResult) -> None:
        self.updater, self.new = updater, new
        self.edited = updater.lookup.key_of(new.uri)
        self.empty: set[int] = set()
        self.back: list[tuple[int, FileResult]] = []
        self.emptied = 0  # How many times a document was emptied (bounded, so that this ends).
        self.placed = False  # Whether the edit is in.
        self.last: ResolvedState | None = None

    def empty_out(self, doc: int) -> bool:
        """Empty ``doc`` (one step of its own), unless a step before emptied it already; before
        the edit is in, the edited document gets no old text back."""
        if doc in self.empty:
            return True
        self.emptied += 1
        self.empty.add(doc)
        text = self.updater.docs[doc]
        if doc != self.edited or self.placed:
            self.back.append((doc, text))
        return self.apply(FileResult(uri=text.uri, path=text.path), True)

    def apply(self, step: FileResult, checked: bool) -> bool:
        """Apply one step, first emptying the documents it depends on (each the same way)."""
        updater = self.updater
        key = updater.lookup.key_of(step.uri)
        while True:
            try:
                self.last = updater.refresh_step(step, checked)
                return self.last is not None
            except Detour as exc:
                others = sorted(doc for doc in exc.documents if doc not in self.empty and doc != key)
                # The edited document itself goes out of the way last (its own checks see the
                # others gone), then takes its new text.
                own = step is self.new and key is not None and key in exc.documents and key not in self.empty
                if not others and not own or self.emptied + len(others) + own > MAX_DETOUR_DOCUMENTS:
                    updater.updates.fallback = str(exc)
                    return False
                if not all(self.empty_out(doc) for doc in others):
                    return False
                if own and key is not None and not self.empty_out(key):
                    return False

    def give_back(self) -> bool:
        """The emptied documents' text back, in the order they went (a step that goes around
        others again appends them)."""
        self.placed = True
        for doc, text in self.back:
            if not self.apply(text, True):
                return False
            self.empty.discard(doc)
        return True
