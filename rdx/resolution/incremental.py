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
empty one at its new key; a removed document is the edit to an empty one, then its key goes."""

from __future__ import annotations

import msgspec

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import FileResult
from rdx.model.store import ResolvedState
from rdx.resolution.edits import (
    SkeletonDiff,
    member_keys,
    path_names,
    position_map,
    signature,
    skeleton,
    skeleton_diff,
    spans_of,
    successor,
)
from rdx.resolution.skeleton import SkeletonEdits
from rdx.resolution.vocabulary import (
    MAX_REPLAY_DEFINITIONS,
    MAX_REPLAY_NAMESPACES,
    MEMBER_CODES,
    MEMBER_DECL_KINDS,
    MEMBER_DEF_KINDS,
    Phase,
    ReplayUnsafe,
)


def merge_refresh(into: dict[int, set[str] | None], more: dict[int, set[str] | None]) -> None:
    """Documents to refresh: a set of names refreshes only the references naming them, None
    every reference of the document; None wins."""
    for doc, names in more.items():
        if doc in into:
            have = into[doc]
            into[doc] = None if have is None or names is None else have | names
        else:
            into[doc] = names

class Incremental(SkeletonEdits):
    """Refresh paths; mixed into the Resolver."""

    def refresh_document(self, new: FileResult) -> ResolvedState | None:
        """A new state for an edit of one document that leaves its definitions as they were
        (same kinds, names, nesting, mixins, visibility; only positions, comments, signatures
        and the code inside method bodies changed), or None when a full resolve is needed.

        Everything but the document's own references is then provably unchanged, so the new
        state shares the declarations and ancestors and only re-resolves that document's
        references and moves its diagnostics. The previous state is left intact."""
        index = self.key_of(new.uri)
        if index is None:
            return None
        self._touched_docs.add(index)
        old = self.docs[index]
        if signature(old) != signature(new):
            return None
        moved = position_map(old, new)
        diagnostics = []
        for diag in self.state.diagnostics:
            if diag.doc == index:
                span = moved.get((diag.start, diag.end))
                if span is None:
                    return None
                diag = msgspec.structs.replace(diag, start=span[0], end=span[1])
            diagnostics.append(diag)
        docs = self.docs.copy()
        docs[index] = new
        self.docs = docs
        previous = self.state
        state = successor(previous, docs, previous.declarations, previous.by_name, previous.definition_declarations, diagnostics)
        self.state = state
        state.constant_targets[index], state.method_receivers[index] = self._document_references(index)
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
        descendants = self._descendants()
        lookups = self._lookup_keys
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
                    for doc, i in self._member_index.get(ns, ()):
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
        """A new state for an edit of one document that changes only its members (methods,
        attributes, aliases, variables, method visibility): same namespaces, constants,
        mixins, superclasses and requires. None when a full resolve is needed.

        Namespaces, constants and ancestors are then unchanged. The members of the namespaces
        the edit writes into, their singleton classes and their descendants are dropped and
        the member definitions writing into them, from every document, are replayed in program
        order. The new state shares everything else with the previous one, which is left
        intact (records are copied before they change). ``order_checked``: the caller made sure
        that a change of requires leaves the load order as it was."""
        index = self.key_of(new.uri)
        if index is None:
            return None
        self._touched_docs.add(index)
        self._load_members()
        old = self.docs[index]
        old_skeleton, new_skeleton = skeleton(old), skeleton(new)
        if old_skeleton is None or new_skeleton is None:
            self.fallback = "a member definition carries mixins or scopes an external mixin"
            return None
        if old_skeleton[0] == new_skeleton[0]:
            diff = SkeletonDiff(dict(zip(old_skeleton[1], new_skeleton[1], strict=True)), [], [], [])
        else:
            aligned = skeleton_diff(old_skeleton, new_skeleton, order_checked)
            if aligned is None:
                self.fallback = "the namespaces of the two versions do not align (or external mixins changed)"
                return None
            diff = aligned
        try:
            return self._replay_members(index, old, new, diff)
        except ReplayUnsafe as exc:
            self.fallback = str(exc)
            return None  # The published states are intact; the caller drops this resolver.
        finally:
            self.phase = Phase.SETTLED

    def _replay_members(self, index: int, old: FileResult, new: FileResult, diff: SkeletonDiff) -> ResolvedState:
        prev = self.state
        remap, added, removed = diff.remap, diff.added, diff.removed
        if (removed or diff.changed) and self._finds_placeholder(index, {*removed, *(o for o, _ in diff.changed)}):
            raise ReplayUnsafe("a removed or changed lookup found a placeholder, which may have to go")
        gone, bodies = self._removable(index, old, new, removed) if removed else ([], [])
        dropped: set[tuple[int, int]] = set()
        for o in removed:
            dropped |= spans_of(old.definitions[o])
        # Diagnostics: this document's skeleton ones move with their definitions (those of
        # removed definitions go); member ones are reported again by the replay.
        moved = position_map(old, new, remap.items())
        diagnostics = []
        for diag in prev.diagnostics:
            if diag.doc == index:
                if diag.code in MEMBER_CODES or (diag.start, diag.end) in dropped:
                    continue
                span = moved.get((diag.start, diag.end))
                if span is None:
                    raise ReplayUnsafe("a diagnostic cannot be moved")
                diag = msgspec.structs.replace(diag, start=span[0], end=span[1])
            diagnostics.append(diag)
        docs = self.docs.copy()
        docs[index] = new
        decls = prev.declarations.copy()
        by_name = prev.by_name.copy()
        def_decl = prev.definition_declarations.copy()
        copied: set[int] = set()

        def own(decl_id: int) -> DeclarationRecord:
            if decl_id not in copied:
                decls[decl_id] = decls[decl_id].copy()
                copied.add(decl_id)
            return decls[decl_id]

        for body_decl, pair in bodies:
            body = own(body_decl)
            body.definitions = [p for p in body.definitions if p != pair]
        old_row = prev.definition_declarations[index]
        row: list[int | None] = [None] * len(new.definitions)
        for o, n in remap.items():
            row[n] = old_row[o]
        # Namespaces and constants defined here keep their declarations; their definition
        # indices move.
        for decl_id in {old_row[o] for o in remap if old_row[o] is not None}:
            assert decl_id is not None
            rec = own(decl_id)
            moved_defs = []
            for doc, i in rec.definitions:
                if doc == index:
                    if i not in remap:
                        raise ReplayUnsafe(f"{rec.name} has a member definition attached")
                    i = remap[i]
                moved_defs.append((doc, i))
            rec.definitions = moved_defs
        def_decl[index] = row
        self.docs, self.decls, self.by_name, self.def_decl = docs, decls, by_name, def_decl
        state = successor(prev, docs, decls, by_name, def_decl, diagnostics)
        self.state = state
        self._crefs[index] = {}
        if old.external_mixins:
            renamed = {id(a.mixin): (index, b.scope, b.mixin) for a, b in zip(old.external_mixins, new.external_mixins, strict=True)}
            self._external = {
                ns: [renamed.get(id(e[2]), e) if e[0] == index else e for e in entries] for ns, entries in self._external.items()
            }
        also_refresh, chain_seeds = self._declare_added(index, new, added, own) if added else ({}, set())
        if (added or diff.changed) and self._finds_placeholder(index, {*added, *(n for _, n in diff.changed)}):
            raise ReplayUnsafe("an added or changed lookup finds a placeholder, whose shape depends on who made it first")
        # Superclasses and mixins changed in place: those chains, their descendants' and their
        # singleton classes' are computed again; lookups through changed chains are redone.
        rechained: set[int] = set()
        chain_seeds |= {decl for _, n in diff.changed if (decl := row[n]) is not None}
        if chain_seeds:
            rechained = self._rechain(chain_seeds, own)
            merge_refresh(also_refresh, self._documents_reading(rechained))

        # Owners of the new member definitions, computed as the member phase would.
        new_members: list[tuple[int, int | None]] = []
        method_owners: dict[int, int | None] = {}
        for i, d in enumerate(new.definitions):
            if d.kind in MEMBER_DEF_KINDS:
                owner = self._member_owner(index, i, d, method_owners, False)
                if d.kind == "Method":
                    method_owners[i] = owner
                new_members.append((i, owner))
        old_owners = self._doc_owners[index]
        new_owners = {o for _, o in new_members}
        keys: set[str] = set()
        for d in old.definitions:
            if d.kind in MEMBER_DEF_KINDS:
                keys.update(member_keys(d))
        for i, new_owner in new_members:
            keys.update(member_keys(new.definitions[i]))
            if new_owner is not None and (new.definitions[i].kind == "MethodAlias" or new.definitions[i].kind == "MethodVisibility"):
                self._note_lookup(new_owner, new.definitions[i])
        seeds = {o for o in old_owners | new_owners if o is not None}
        for ns in rechained:
            # A changed chain changes what this namespace's aliases and visibility changes find.
            wanted = self._lookup_keys.get(ns)
            if wanted:
                seeds.add(ns)
                keys |= wanted
        scope = self._replay_scope(seeds, keys, index)
        if not scope.isdisjoint(self._member_created):
            raise ReplayUnsafe("the edit touches a namespace the member phase created")
        owner_of: dict[tuple[int, int], int | None] = {}
        for ns in scope:
            for key in self._member_index.get(ns, ()):
                if key[0] != index:
                    owner_of[key] = ns
        for i, new_owner in new_members:
            owner_of[(index, i)] = new_owner
        if len(owner_of) > MAX_REPLAY_DEFINITIONS:
            raise ReplayUnsafe("the edit reaches too many member definitions")
        order = sorted(owner_of)
        rows_copied = {index}
        for doc, _ in order:
            if doc not in rows_copied:
                def_decl[doc] = list(def_decl[doc])
                rows_copied.add(doc)
        # Other documents' member diagnostics are reported again by the replay.
        replayed_spans = {(doc, docs[doc].definitions[i].start, docs[doc].definitions[i].end) for doc, i in order if doc != index}
        if replayed_spans:
            state.diagnostics = [x for x in state.diagnostics if not (x.code in MEMBER_CODES and (x.doc, x.start, x.end) in replayed_spans)]

        # Drop the members of the scope, keeping the namespaces and constants it holds. (The
        # order of a members table is never observable: every answer sorts or looks up by key.)
        for ns in scope:
            rec = own(ns)
            kept: dict[str, int] = {}
            for name, member in rec.members.items():
                mrec = decls.get(member)
                if mrec is not None and mrec.kind in MEMBER_DECL_KINDS and mrec.owner == ns:
                    del decls[member]
                    by_name.pop(mrec.name, None)
                    for doc, i in mrec.definitions:
                        if doc != index and def_decl[doc][i] == member:
                            if doc not in rows_copied:
                                def_decl[doc] = list(def_decl[doc])
                                rows_copied.add(doc)
                            def_decl[doc][i] = None
                else:
                    kept[name] = member
            rec.members = kept

        for key in order:
            doc, i = key
            self.phase = Phase.REPLAY
            self._replay_at = (scope, key)
            self._apply_member(doc, i, docs[doc].definitions[i], owner_of[key])
        self.phase = Phase.SETTLED
        if gone:
            merge_refresh(also_refresh, self._remove_declarations(index, gone, own))

        # References: this document's, and those of documents whose methods changed declaration
        # (calls inside a removed method have no known receiver).
        refresh = also_refresh
        refresh[index] = None
        for doc, i in order:
            if doc != index and def_decl[doc][i] != prev.definition_declarations[doc][i] and docs[doc].definitions[i].kind == "Method":
                refresh[doc] = None
        for doc in sorted(refresh):
            names = refresh[doc]
            if names is None:
                state.constant_targets[doc], state.method_receivers[doc] = self._document_references(doc)
            else:
                state.constant_targets[doc], state.method_receivers[doc] = self._references_naming(doc, names)

        # Keep the member index current.
        for old_owner in old_owners:
            if old_owner is not None and old_owner in self._member_index:
                self._member_index[old_owner] = [k for k in self._member_index[old_owner] if k[0] != index]
        for i, new_owner in new_members:
            if new_owner is not None:
                self._member_index.setdefault(new_owner, []).append((index, i))
        for touched in new_owners:
            if touched is not None:
                self._member_index[touched].sort()
        self._doc_owners[index] = new_owners
        self._remention(index, path_names(new))
        state.diagnostics = list(dict.fromkeys(state.diagnostics))
        return state
