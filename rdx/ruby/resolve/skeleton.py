"""Incremental additions and removals of namespaces and constants.

Removals apply when no other document's lookup finds what goes; additions when the lookups
that mention the new names find the same before and after (``mentions``). References that
name them are resolved again by the caller. When other documents' definitions depend on the
edit (a lookup finds what goes, or may find what comes; a body is written under an alias
that goes, comes or loses an assignment), the checks raise ``Detour`` before anything is
written, and the updater goes around those documents (``Incremental._detour``)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath, DefinitionRecord, FileResult
from rdx.ruby.resolve.edits import path_names, skeleton
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.mentions import OTHER, Bounds, Reach, written_at_top
from rdx.ruby.resolve.update import MAX_DETOUR_DOCUMENTS, Detour, merge_refresh
from rdx.ruby.resolve.vocabulary import (
    CONCERN_NAMES,
    MEMBER_DECL_KINDS,
    MEMBER_DEF_KINDS,
    ReplayUnsafe,
    Site,
    dynamic_constant,
    inside_method,
)

if TYPE_CHECKING:
    from rdx.ruby.resolve.ancestors import Ancestors, Chains
    from rdx.ruby.resolve.builder import Build, Builder
    from rdx.ruby.resolve.lookup import Binding, Lookup, LookupCaches
    from rdx.ruby.resolve.members import MemberBook, Members
    from rdx.ruby.resolve.mentions import Mentions
    from rdx.ruby.resolve.namespaces import Namespaces


class SkeletonEdits(StateView):
    """Skeleton edits of an update: namespaces and constants added and removed."""

    def __init__(
        self,
        binding: Binding,
        *,
        build: Build,
        builder: Builder,
        caches: LookupCaches,
        chains: Chains,
        linearizer: Ancestors,
        lookup: Lookup,
        member_book: MemberBook,
        members: Members,
        mentions: Mentions,
        namespaces: Namespaces,
    ) -> None:
        self.build = build
        self.builder = builder
        self.caches = caches
        self.chains = chains
        self.linearizer = linearizer
        self.lookup = lookup
        self.member_book = member_book
        self.members = members
        self.mentions = mentions
        self.namespaces = namespaces
        binding.join(self)

    def removable(
        self, index: int, old: FileResult, new: FileResult, removed: list[int], demoted: Collection[int] = ()
    ) -> tuple[list[int], list[tuple[int, tuple[int, int]]]]:
        """What removing definitions ``removed`` of document ``index`` does, when nothing else
        can notice: the declarations it deletes (each had only that definition, nothing
        inherits from it, no lookup of another document's definitions finds it, and it holds
        nothing but members and other removed declarations), and the ``class << self`` bodies
        (without mixins) that their singleton classes, which stay, lose: (declaration,
        definition). Raises ReplayUnsafe otherwise."""
        row = self.def_decl[index]
        gone: list[int] = []
        bodies: list[tuple[int, tuple[int, int]]] = []
        going = {(index, r) for r in removed}
        for o in removed:
            d = old.definitions[o]
            if d.kind not in ("Class", "Module", "Constant", "ConstantAlias", "SingletonClass", "ConstantVisibility"):
                raise ReplayUnsafe(f"removing a {d.kind} needs a full resolve")
            decl_id = row[o]
            if decl_id is None:
                continue  # It declared nothing (a dynamic or unplaceable constant, a visibility naming none).
            if d.kind == "ConstantVisibility":
                # ``private_constant :X`` goes: X loses the definition and may be visible again
                # (``Members.settle_constant_visibility``, once the edit is in).
                bodies.append((decl_id, (index, o)))
                continue
            rec = self.decls[decl_id]
            if d.kind == "SingletonClass":
                # (With mixins, the singleton class's chain is computed again: ``rechain``.)
                bodies.append((decl_id, (index, o)))
                continue
            if d.kind == "ConstantAlias" and rec.kind == d.kind and self._assigned_elsewhere(rec, index, removed, old):
                # One assignment of an alias assigned more than once goes (``Y = Target`` in
                # one file, ``Y = Other`` in another). Phase 1 runs in program order: a body
                # written under its name, a compact name or a superclass through it finds what
                # the assignments before it make it name, and a body before all of them
                # declares a namespace. So every document whose definitions name it (this one
                # too, when its new version does) goes out of the way, and comes back after.
                around = self._reopened_through(decl_id, {(index, r) for r in removed})
                around |= self.mentions.documents_mentioning_paths({rec.unqualified}, index)
                if rec.unqualified in path_names(new) or any(
                    x.path is not None and x.path.segments[-1] == rec.unqualified and x.kind in ("Class", "Module") for x in new.definitions
                ):
                    around.add(index)
                if around:
                    raise Detour(f"definitions name the alias {rec.name}, which loses an assignment", around)
                bodies.append((decl_id, (index, o)))
                continue
            if d.kind in ("Class", "Module", "Constant") and (rec.kind == d.kind or _mismatched_reopening(d, rec)) and self._defined_elsewhere(rec, index, going, old):
                # A reopening (or one assignment of a constant assigned twice) goes; the
                # declaration stays with its other definitions (and a namespace's chain is
                # computed again when the reopening had a superclass or mixins). A top-level
                # ``class Foo`` elsewhere may have reopened it through Object's mixins only
                # because this body came first: without it, that one declares ``::Foo``.
                if rec.owner != self.object_id and self.mentions.object_mixin_conflict(rec.owner, rec.unqualified, reopening=True, at_top=written_at_top(d), at=(index, o), edited=new.definitions):
                    raise ReplayUnsafe("a top-level class may reopen another through Object's mixins")
                bodies.append((decl_id, (index, o)))
                continue
            if decl_id in demoted:
                continue  # It stays, as a placeholder (``Placeholders._demotable``).
            if not going.issuperset(rec.definitions):
                raise ReplayUnsafe(f"{rec.name} has other definitions")
            # A placeholder it caused (``< Missing``, ``include Missing``, ``class Missing::X``)
            # goes with it when nothing else finds it (``Placeholders``); a lookup that found
            # nothing at all is another matter.
            if self._refers_to_nothing(index, o, d, decl_id):
                raise ReplayUnsafe(f"{rec.name} refers to an undeclared scope")
            if decl_id not in gone:  # (All its definitions go: one entry.)
                gone.append(decl_id)
        own_mentions = path_names(new, lambda i, d: d.kind not in MEMBER_DEF_KINDS)
        gone_set = set(gone)
        for decl_id in gone:
            rec = self.decls[decl_id]
            here = [j for doc, j in rec.definitions if doc == index]
            at_top = any(written_at_top(old.definitions[j]) for j in here)
            if self.mentions.object_mixin_conflict(rec.owner, rec.unqualified, at_top=at_top, at=(index, min(here)) if here else None, edited=new.definitions):
                raise ReplayUnsafe("a top-level class may reopen another through Object's mixins")
        gone_owners: dict[str, set[int | str | None]] = {}
        for gone_id in gone:
            gone_owners.setdefault(self.decls[gone_id].unqualified, set()).add(self.decls[gone_id].owner)
        self.mentions.check_not_found_through(gone_set, set(gone_owners), index, self.reach(gone_owners, new))
        # (A descendant that goes too leaves no chain behind: a file emptied at once.)
        gone_holders = {h for g in gone for h in self.holders(g)}
        for decl_id in gone:
            rec = self.decls[decl_id]
            name = rec.unqualified
            if name in CONCERN_NAMES:
                raise ReplayUnsafe(f"{name} is mentioned in its own document")
            if name in own_mentions:
                # ``class ParseError < Error`` below a renamed ``class Error``: the kept
                # definitions' lookups find something else (a placeholder). The document goes
                # out of the way and comes back with its new text, all of it added. (Added
                # back, a compact name whose scope a full resolve declares only in a later
                # round of phase 1 is a named fallback: ``_declare_one_added``.)
                raise Detour(f"{name} is mentioned in its own document", {index})
            if rec.kind == "ConstantAlias":
                through = self._reopened_through(decl_id, {(index, o) for o in removed})
                if through:
                    raise Detour(f"a namespace is reopened through the alias {rec.name}", through)
            holders = self.holders(decl_id)
            for holder in holders:
                if set(self.linearizer.current_descendants(holder)) - gone_holders:
                    raise ReplayUnsafe(f"{self.decls[holder].name} has descendants")
                hrec = self.decls[holder]
                if holder == holders[-1] and hrec.singleton is not None and holder != decl_id:
                    raise ReplayUnsafe(f"{hrec.name} has a singleton class")
                # (With ``class << self`` bodies, the chain of its singleton class's singleton
                # class declared those of its superclasses' singleton classes, which may not be
                # needed any more: ``Placeholders.drop_lost_bodies``.)
                for member in hrec.members.values():
                    if member not in gone_set and self.decls[member].kind not in MEMBER_DECL_KINDS:
                        raise ReplayUnsafe(f"{self.decls[member].name} would be left without its namespace")
        # Bodies of singleton classes that go anyway need no separate removal. A singleton
        # class left with no body loses the singleton class its bodies declared (see ``run``).
        # A singleton class that loses its last body keeps its members' declarations until the
        # member replay; the singleton class those bodies declared goes after it
        # (``Placeholders.drop_lost_bodies``).
        kept_bodies = [(decl_id, pair) for decl_id, pair in bodies if self.decls[decl_id].attached not in gone_set]
        return gone, kept_bodies

    def check_additions(self, index: int, new: FileResult, added: list[int], remap: dict[int, int]) -> None:
        """Raises ``Detour`` when what definitions ``added`` of document ``index`` declare
        changes what other documents' definitions declare (``_check_added_aliases``) or may
        change what they find (``_check_found_after``): those documents go out of the way and
        come back once the additions are in. Called before the update writes anything."""
        self._check_added_aliases(index, new, added, remap)
        old_row = self.def_decl[index]
        kept = {n: old_row[o] for o, n in remap.items()}
        self._check_found_after(index, new, added, self._reopening_bounds(index, new, added, kept.get), self.reach(self._added_owners(new, added, kept.get), new))

    def check_redeclared(self, index: int, new: FileResult, added: list[int], gone: list[int]) -> None:
        """Raises ``Detour`` with the edited document alone when an added definition may
        take the name of a declaration that goes with another kind (``class Broken`` becoming
        ``module Broken``; ``MSG2 = MSG = 'x'`` read as an alias, then as a constant once a
        quote is typed). A declaration's id is its name's, so the old one must be gone before
        the new one is declared: the document is emptied first, then given its new text.
        Called before the update writes anything."""
        going: dict[str, set[str]] = {}
        for decl_id in gone:
            rec = self.decls[decl_id]
            if rec.kind in ("Class", "Module", "Constant", "ConstantAlias"):
                going.setdefault(rec.unqualified, set()).add(rec.kind)
        for i in added:
            d = new.definitions[i]
            if d.kind in ("Class", "Module", "Constant", "ConstantAlias") and d.path is not None:
                kinds = going.get(d.path.segments[-1])
                if kinds and kinds != {d.kind}:
                    raise Detour(f"{d.path.segments[-1]} is declared again by an addition", {index})

    def reach(self, owners: dict[str, set[int | str | None]], edited: FileResult) -> Reach:
        """For each name whose declarations an edit adds, removes or reopens in the namespaces
        ``owners`` lists (None: unknown; a name: a class the edit declares), the only documents whose lookups may find them, when
        every one of those namespaces confines them (``_confined``); names it leaves out may be
        found anywhere. ``edited``: the edited document's new version."""
        out: Reach = {}
        for name, namespaces in owners.items():
            docs: set[int] = set()
            for ns in namespaces:
                if isinstance(ns, str):
                    allowed = self._confined_to(ns, set(), edited)  # A class the edit declares.
                else:
                    allowed = self._confined(ns, edited) if ns is not None else None
                if allowed is None:
                    break
                docs |= allowed
            else:
                out[name] = docs
        return out

    def _confined(self, ns: int, edited: FileResult) -> set[int] | None:
        """The documents whose lookups may find a constant of class ``ns``: those with a body of
        it (its lexical scope) and those naming it or an alias of it (``A::Name`` finds Name in
        A's ancestors), when no other namespace has it as an ancestor, Object's ancestors do
        not hold it, and no superclass or mixin of the edited document names it (which could
        make it an ancestor of another). None when any document may."""
        rec = self.decls.get(ns)
        if rec is None or rec.kind != "Class" or ns == self.object_id or ns in self.lookup.ancestors(self.object_id):
            return None
        if any(d != ns for d in self.linearizer.current_descendants(ns)):
            return None
        return self._confined_to(rec.unqualified, {doc for doc, _ in rec.definitions}, edited)

    def _confined_to(self, name: str, docs: set[int], edited: FileResult) -> set[int] | None:
        """``_confined`` for a class named ``name`` with bodies in ``docs`` (none for one the
        edit declares: no other document has a body of it, and none has it as an ancestor)."""
        index = self.mentions.mention_index()
        names, todo = {name}, [name]
        docs = set(docs)
        while todo:
            name = todo.pop()
            for doc in index.get(name, ()):
                docs.add(doc)
                for d in self.docs[doc].definitions:
                    if d.kind == "ConstantAlias" and d.target is not None and d.target.segments[-1] == name and d.path is not None and d.path.segments[-1] not in names:
                        names.add(d.path.segments[-1])
                        todo.append(d.path.segments[-1])
        for d in edited.definitions:
            for path in (d.superclass, *(m.target for m in (*d.mixins, *d.deferred_mixins))):
                if path is not None and not names.isdisjoint(path.segments):
                    return None
        return docs

    def _reopened_by(self, new: FileResult, added: list[int], decl_of: Callable[[int], int | None]) -> list[int | None]:
        """Up to the last of ``added``, the namespace each definition of ``new`` stands for
        (None: one it declares, or not followed): a kept one's declaration (``decl_of``, by
        its index in ``new``); an added plainly named one nested in plainly named ones, the
        namespace of that name and kind it reopens, followed from Object as phase 1 declares
        them."""
        defs = new.definitions
        added_set = set(added)
        # In definition order: a parent comes before what it holds.
        found: list[int | None] = [None] * (max(added) + 1 if added else 0)
        for i in range(len(found)):
            d = defs[i]
            if i not in added_set:
                found[i] = decl_of(i)
            elif d.kind in ("Class", "Module") and d.path is not None and len(d.path.segments) == 1 and not d.path.dynamic:
                ns = self.object_id if d.parent < 0 or d.path.absolute else found[d.parent]
                c = self.lookup.member_constant(ns, d.path.segments[0]) if ns is not None and ns in self.decls else None
                found[i] = c if c is not None and self.decls[c].kind == d.kind else None
        return found

    def _added_owners(self, new: FileResult, added: list[int], decl_of: Callable[[int], int | None]) -> dict[str, set[int | str | None]]:
        """The namespace each added constant or namespace goes into, by name (for ``reach``):
        a declared one, the name of a plainly named class the edit declares, or None (a
        compact name, or one nested in another new namespace). ``decl_of`` gives the
        declaration of a kept definition (by its index in ``new``)."""
        defs = new.definitions
        found = self._reopened_by(new, added, decl_of)
        out: dict[str, set[int | str | None]] = {}
        for i in added:
            d = defs[i]
            if d.kind not in ("Class", "Module", "Constant", "ConstantAlias") or d.path is None:
                continue
            owner: int | str | None = None
            if len(d.path.segments) == 1 and not d.path.dynamic:
                if d.parent < 0 or d.path.absolute:
                    owner = self.object_id
                elif defs[d.parent].kind in ("Class", "Module"):
                    owner = found[d.parent]
                    parent = defs[d.parent]
                    if owner is None and parent.kind == "Class" and parent.path is not None and len(parent.path.segments) == 1 and not parent.path.dynamic:
                        # A new class, where its scope holds nothing of that name yet.
                        scope = self.object_id if parent.parent < 0 or parent.path.absolute else found[parent.parent]
                        if scope is not None and scope in self.decls and self.decls[scope].members.get(parent.path.segments[0]) is None:
                            owner = parent.path.segments[0]
            out.setdefault(d.path.segments[-1], set()).add(owner)
        return out

    def _check_found_after(self, index: int, new: FileResult, added: list[int], bounds: Bounds, within: Reach) -> None:
        """Raises ``Detour`` with the documents whose lookups that declare no placeholder (a
        ``def Foo.x`` receiver, an alias target...) find nothing at a segment named like an
        added namespace or constant (``Foo``, typed back after a typo): they may find the new
        one. Only when they are few (``MAX_DETOUR_DOCUMENTS``): else the update goes on, and
        checks them once the additions are in (``Mentions.check_lookups``), as it does those
        that find something (which may find the new one too). A name whose added definitions
        all reopen a namespace declared elsewhere is read only in documents loaded before it
        (``bounds``: ``_reopening_bounds``): a lookup elsewhere that found nothing finds
        nothing still. Only the documents ``within`` lists are read for a name it holds
        (``reach``)."""
        names = {
            d.path.segments[-1]
            for i in added
            if (d := new.definitions[i]).kind in ("Class", "Module", "Constant", "ConstantAlias") and d.path is not None
        }
        if not names:
            return
        finding: set[int] = set()
        for doc in sorted(self.mentions.documents_mentioning_paths(names, index, bounds, within)):
            paths: list[ConstPath | None] = []
            for (role, _, found), path in zip(self.mentions.evaluate(doc, names, paths=paths), paths, strict=True):
                if role != OTHER or path is None:
                    continue
                hits = found[::2]
                missing = hits.index(None) if None in hits else None
                if missing is not None and missing < len(path.segments) and path.segments[missing] in names:
                    finding.add(doc)
                    break
        # A document that the updates cannot empty (external mixins, load-time calls, mixins in
        # member definitions: ``Incremental.refresh_members``) is not worth the detour.
        if finding and len(finding) <= MAX_DETOUR_DOCUMENTS and all(self._movable(doc) for doc in finding):
            first = self.docs[min(finding)].uri
            raise Detour(f"a constant path in {first} may find an added declaration", finding)

    def _assigned_again(self, alias: int, index: int, i: int, d: DefinitionRecord) -> bool:
        """Whether added definition ``i`` of document ``index`` (``Y = Target``) assigns
        constant alias ``alias`` again to what it names now, after its first assignment in
        program order (a line duplicated): the alias then names the same namespace wherever
        phase 1 or a lookup follows it, and the definition joins its declaration."""
        rec = self.decls[alias]
        if rec.kind != "ConstantAlias" or alias in self.build.going or d.target is None or not rec.definitions:
            return False
        if min(rec.definitions) >= (index, i):
            return False
        site = self.lookup.cref(index, d.parent)
        if site is None:
            return False
        target = self.lookup.follow(alias)
        return target is not None and self.lookup.follow(self.lookup.lookup_path_at(d.target, site, index, d.target.start)) == target

    def _named_before(self, alias: int, at: tuple[int, int], kind: str) -> int:
        """The ``kind`` namespace constant alias ``alias`` names, when phase 1 finds it so at
        program position ``at`` (see ``_declare_one_added``); raises ReplayUnsafe otherwise.
        Only an alias assigned once qualifies: phase 1 follows an alias assigned more than once
        to what it named where it was first followed (``LookupCaches.alias_cache``)."""
        target = self.lookup.alias_target(alias)
        rec = self.decls[alias]
        assigned = [pair for pair in rec.definitions if self.docs[pair[0]].definitions[pair[1]].kind == "ConstantAlias"]
        if (
            target is None
            or self.decls[target].kind != kind
            or len(assigned) != 1
            or assigned[0] > at
            or not any(pair < at for pair in self.decls[target].definitions)
        ):
            raise ReplayUnsafe(f"{rec.name} may name another namespace where a body is written under its name")
        return target

    def _movable(self, doc: int) -> bool:
        """Whether document ``doc`` can be emptied and given its text back by member updates."""
        result = self.docs[doc]
        return not (result.external_mixins or result.load_calls or result.method_effects) and skeleton(result) is not None

    def _check_added_aliases(self, index: int, new: FileResult, added: list[int], remap: dict[int, int]) -> None:
        """Raises ``Detour`` when an added constant alias (``Y = Target``) takes the name of a
        class or module declared in its scope (``module Y``): Ruby then reopens Target in the
        bodies written under that name, so the documents holding them go out of the way and
        come back once the alias is in."""
        kept = {n: o for o, n in remap.items()}
        row = self.def_decl[index]
        for i in added:
            d = new.definitions[i]
            if d.kind != "ConstantAlias" or d.path is None or len(d.path.segments) != 1 or d.path.absolute:
                continue
            if d.parent < 0:
                owner: int | None = self.object_id
            else:
                o = kept.get(d.parent)
                owner = row[o] if o is not None else None
            if owner is None or owner not in self.decls or self.decls[owner].kind not in ("Class", "Module"):
                continue
            existing = self.lookup.member_constant(owner, d.path.segments[-1])
            if existing is not None and self.decls[existing].kind in ("Class", "Module"):
                rec = self.decls[existing]
                raise Detour(f"an added alias takes the name of {rec.name}", {doc for doc, _ in rec.definitions})

    def _reopened_through(self, alias: int, removed: set[tuple[int, int]]) -> set[int]:
        """The documents with a namespace body written under another name than its
        declaration's (but the ``removed`` ones), when constant alias ``alias`` leads to that
        declaration (``Y = Target`` then ``module Y``: Ruby reopens Target); without the alias
        such a body may declare a namespace of its own."""
        target = self.lookup.follow(alias)
        if target is None:
            return set()
        rec = self.decls[target]
        return {doc for doc, i in rec.definitions if (doc, i) not in removed and self.docs[doc].definitions[i].name != rec.unqualified}

    def _definition(self, pair: tuple[int, int], index: int, old: FileResult) -> DefinitionRecord:
        """The definition ``pair`` names, before the edit of document ``index`` (``old``)."""
        doc, i = pair
        return old.definitions[i] if doc == index else self.docs[doc].definitions[i]

    def _assigned_elsewhere(self, rec: DeclarationRecord, index: int, removed: list[int], old: FileResult) -> bool:
        """Whether constant alias ``rec`` keeps an assignment once definitions ``removed`` of
        document ``index`` go, and every definition it keeps is an alias assignment (or a
        ``private_constant`` naming it): it stays an alias."""
        going = {(index, r) for r in removed}
        kept = [self._definition(pair, index, old) for pair in rec.definitions if pair not in going]
        return any(d.kind == "ConstantAlias" for d in kept) and all(d.kind in ("ConstantAlias", "ConstantVisibility") for d in kept)

    def _declared_before(self, decl_id: int, pair: tuple[int, int]) -> bool:
        """Whether a definition of ``decl_id``'s own kind comes before definition ``pair`` in
        program order: phase 1 then declares it with that kind before it meets ``pair``."""
        rec = self.decls[decl_id]
        return any(p < pair and self.docs[p[0]].definitions[p[1]].kind == rec.kind for p in rec.definitions)

    def _defined_elsewhere(self, rec: DeclarationRecord, index: int, going: set[tuple[int, int]], old: FileResult) -> bool:
        """Whether declaration ``rec`` keeps a definition of its own kind once the definitions
        ``going`` of document ``index`` (``old`` before its edit) are removed (a
        ``private_constant`` naming it is attached to it but does not define it)."""
        for doc, i in rec.definitions:
            if (doc, i) in going:
                continue
            other = old.definitions[i] if doc == index else self.docs[doc].definitions[i]
            if other.kind == rec.kind:
                return True
        return False

    def _refers_to_nothing(self, index: int, o: int, d: DefinitionRecord, decl_id: int) -> bool:
        """Whether a lookup of definition ``o`` finds nothing, as phase 1 and the chains look it
        up (superclasses and mixins as while the file loads)."""
        site = self.lookup.cref(index, d.parent)
        if site is None:
            return True
        mixin_site = self.lookup.cref(index, o) if d.lexical else site
        found: list[int | None] = []
        # A superclass or mixin that finds nothing while its file loads is given what the plain
        # lookup finds, if anything, before a placeholder (``Builder.placeholder``): ``class B < B``
        # names the class itself (a diagnostic), not nothing.
        if d.superclass is not None:
            found.append(self.linearizer.superclass_target(decl_id, index, d.superclass, site) or self.lookup.lookup_namespace(d.superclass, site))
        for m in d.mixins:
            if m.target is not None and mixin_site is not None:
                at = self.lookup.lookup_namespace_at(m.target, mixin_site, index, o if d.lexical else d.parent)
                found.append(at if at is not None else self.lookup.lookup_namespace(m.target, mixin_site))
            elif m.target is not None:
                found.append(None)
        for m in d.deferred_mixins:
            if m.target is not None:
                found.append(self.lookup.lookup_namespace(m.target, mixin_site) if mixin_site is not None else None)
        if d.path is not None and len(d.path.segments) > 1:
            found.append(self.lookup.lookup_namespace(d.path, site, len(d.path.segments) - 1))
        return any(target is None for target in found)

    def _check_declared(self, created: set[int], holders: set[int], metas: set[int]) -> None:
        """Everything this update declared so far is what a full resolve declares for the
        additions: the ``created`` declarations, the singleton classes of ``holders``,
        placeholders (``Todo``) and their singleton classes (the chains of subclasses'
        singleton classes need them), and the singleton classes of singleton classes in the
        chains of ``class << x`` bodies' (``metas``: every chain a full resolve computes
        too). Raises ReplayUnsafe for anything else."""
        decls = self.decls
        for d in self.build.created or ():
            rec = decls.get(d)
            if rec is None or d in created or rec.kind == "Todo":
                continue
            if d in metas and rec.kind == "SingletonClass" and rec.attached is not None and decls[rec.attached].kind == "SingletonClass":
                continue
            if rec.kind == "SingletonClass" and rec.attached is not None and (rec.attached in holders or decls[rec.attached].kind == "Todo"):
                continue
            raise ReplayUnsafe(f"declaring the additions declared {rec.name}, which a full resolve may not")

    def holders(self, decl_id: int) -> list[int]:
        """A namespace, its singleton class and that one's singleton class (the ones that exist)."""
        out = [decl_id]
        while len(out) < 3:
            single = self.decls[out[-1]].singleton
            if single is None:
                break
            out.append(single)
        return out

    def remove_declarations(
        self, index: int, gone: list[int], own: Callable[[int], DeclarationRecord], deleted: set[int]
    ) -> dict[int, set[str] | None]:
        """Delete ``gone`` (checked by ``_removable``) with their singleton classes and member
        declarations, adding every id deleted to ``deleted``; returns the documents whose
        references mention their names."""
        if self.chains.times_raw is not None:
            self.linearizer.load_times()
        self.linearizer.own_chains()
        names: set[str] = set()
        owners: set[int] = set()
        for decl_id in gone:
            rec = self.decls.get(decl_id)
            if rec is None:
                continue
            names.add(rec.unqualified)
            if rec.owner is not None:
                owners.add(rec.owner)
            doomed = self.holders(decl_id)
            for holder in doomed:
                hrec = self.builder.delete(holder)
                deleted.add(holder)
                for member in hrec.members.values():
                    mrec = self.decls.get(member)
                    if mrec is not None and mrec.kind in MEMBER_DECL_KINDS:
                        self.builder.delete(member)
                        deleted.add(member)
                self.chains.forget((holder,))
                self.member_book.forget(holder)
            owner = rec.owner
            if owner is not None and owner in self.decls and self.decls[owner].members.get(rec.unqualified) == decl_id:
                del own(owner).members[rec.unqualified]
        self.caches.forget_lookups()
        return self.mentions.unnaming(names, owners, index, deleted, self.state.constant_targets)

    def declare_added(
        self, index: int, new: FileResult, added: list[int], own: Callable[[int], DeclarationRecord]
    ) -> tuple[dict[int, set[str] | None], set[int], set[int], dict[int, set[str]]]:
        """Declare namespaces and constants that an edit added to document ``index`` (already
        installed), when no other document's definitions notice them: the lookups that mention
        the new names find the same before and after (``Mentions``), the names are plain, and
        their superclasses and mixins resolve. Declares them as phase 1 would, with their
        singleton classes and ancestors; returns the documents whose references name the new
        names, with those names (their references are resolved again by the caller), the
        namespaces elsewhere whose superclass or mixins now find a new declaration (their
        chains are computed again by the caller), and the constants that added
        ``private_constant``/``public_constant`` calls name (their visibility is settled by
        the caller), and the documents with references that run while their file loads and
        start with the name of a reopened namespace, with those names (for those references,
        the namespace may now be defined before them: ``Lookup.lookup_path_at``)."""
        # Chains are added for the new namespaces: the previous state keeps its own tables.
        self.linearizer.own_chains()
        # Other documents' lookups of the added names, and this document's lookups outside
        # what is being added, as they answer before the addition: those that find something
        # else after it are chains computed again, or a full resolve.
        skip = set(added)
        own_lookups = {i for i in range(len(new.definitions)) if i not in skip}
        candidates = {p.segments[-1] for i in added if (p := new.definitions[i].path) is not None}
        row = self.def_decl[index]
        within = self.reach(self._added_owners(new, added, row.__getitem__), new)
        lookups_before = self.mentions.snapshot_lookups(candidates, index, self._reopening_bounds(index, new, added, row.__getitem__), within)
        own_before = self.mentions.evaluate(index, candidates, own_lookups)
        names: set[str] = set()
        created: list[int] = []
        rechained: set[int] = set()
        visibilities = [i for i in added if new.definitions[i].kind == "ConstantVisibility"]
        for i in added:
            if new.definitions[i].kind != "ConstantVisibility":
                self._declare_one_added(index, new.definitions, i, own, names, created, rechained)
        # Lookups cached before may have missed the new names.
        self.caches.forget_lookups()
        revisible = self._hide_added(index, new.definitions, visibilities) if visibilities else set()
        for decl_id in {*created, *(row[i] for i in added if new.definitions[i].kind == "ConstantAlias")}:
            if decl_id is not None and self.decls[decl_id].kind == "ConstantAlias":
                # What it names, as the end of a full resolve records it (``Resolver.run``).
                self.builder.writable(decl_id).target = self.lookup.alias_target(decl_id)
        rechain = self.mentions.check_lookups(lookups_before, candidates) | rechained
        rechain |= self.mentions.check_lookups({index: own_before}, candidates, {index: own_lookups})
        self._check_added_ancestry(index, new.definitions, added)
        self._complete_added(index, new.definitions, added, created, rechained)
        # A reopening can make a namespace visible to references of a document that defines
        # it only further down (see ``lookup_path_at``): those that run while their file
        # loads and start with its name are resolved again too. (Its chain, if it changed,
        # is the caller's; its new constants are new names.)
        # A document loaded after another definition of it saw it defined already, and still
        # does (``Lookup.defined_after``): the first such key bounds the documents to read.
        bounds: Bounds = {}
        for i in added:
            decl = row[i]
            if decl is None or decl in created or self.decls[decl].kind not in ("Class", "Module"):
                continue
            rec = self.decls[decl]
            keys = [doc for doc, _ in rec.definitions if doc != index]
            bound = min(keys) if keys else None
            before = bounds.get(rec.unqualified, bound)
            bounds[rec.unqualified] = None if before is None or bound is None else max(before, bound)
        new_names = {self.decls[d].unqualified for d in created}
        refresh = self.mentions.mentioning(names - new_names, index)
        merge_refresh(refresh, self.documents_seeing(created, index))
        reopened = set(bounds)
        loading = {doc: reopened for doc in self.mentions.loading_documents(reopened, index, bounds)} if reopened else {}
        return refresh, rechain, revisible, loading

    def _reopening_bounds(self, index: int, new: FileResult, added: list[int], decl_of: Callable[[int], int | None]) -> Bounds:
        """For the names of added definitions that all reopen a namespace declared elsewhere
        (``module RuboCop`` in a file moved in load order), the largest document key whose
        lookups of the name may find something else: a document loaded after another
        definition of that namespace saw it defined already, and the namespace's constants
        and chain are the same (``_reopened_bounds`` bounds a body that goes the same way).
        A name with any other added definition (a new declaration, a compact name, a
        constant) has no bound. Only plainly named definitions nested in plainly named ones
        are followed, from Object, as phase 1 declares them; ``decl_of`` gives the
        declaration of a kept definition (by its index in ``new``)."""
        defs = new.definitions
        found = self._reopened_by(new, added, decl_of)
        bounds: Bounds = {}
        unbounded: set[str] = set()
        for i in added:
            d = defs[i]
            if d.path is None:
                continue
            name = d.path.segments[-1]
            decl = found[i]
            keys = [doc for doc, _ in self.decls[decl].definitions if doc != index] if decl is not None else []
            if not keys:
                unbounded.add(name)
            else:
                prev = bounds.get(name)
                bounds[name] = min(keys) if prev is None else max(prev, min(keys))
        for name in unbounded:
            bounds.pop(name, None)
        return bounds

    def documents_seeing(self, new: Iterable[int], skip: int) -> dict[int, set[str] | None]:
        """``Mentions.mentioning`` for declarations that are new (not promoted or reopened),
        limited to the documents whose references can find one: a constant of a namespace
        O is found by a path's first name (call receivers' too) only where O is a lexical
        scope (a document with a body of O) or an ancestor of the innermost one (a body of a
        namespace with O in its chain), and by a later name of a longer path (``A::N``)
        anywhere (``MentionBook.deep_index``): ``Mentions.lookups_kept`` reads them. One of
        Object's is found
        wherever a lookup reaches Object (``Mentions.seeing_top_level``); one of a module
        Object includes, or of a namespace whose descendants Object is among, anywhere."""
        decls = self.decls
        by_owner: dict[int, set[str]] = {}
        for decl_id in new:
            rec = decls.get(decl_id)
            if rec is not None and rec.owner is not None:
                by_owner.setdefault(rec.owner, set()).add(rec.unqualified)
        out: dict[int, set[str] | None] = {}
        if not by_owner:
            return out
        object_chain = set(self.lookup.ancestors(self.object_id))
        descendants = self.linearizer.descendants()
        deep_index = self.mentions.mention_book.deep_index
        for owner, owned in sorted(by_owner.items()):
            if owner == self.object_id:
                merge_refresh(out, self.mentions.seeing_top_level(owned, skip))
                continue
            found = self.mentions.documents_mentioning(owned, skip)
            if owner in object_chain or not found:
                merge_refresh(out, dict.fromkeys(found, owned))
                continue
            deep: set[int] = set()
            for name in owned:
                deep |= deep_index.get(name, set())
            seeing: set[int] = set()
            for ns in (owner, *descendants.get(owner, ())):
                if ns in decls:
                    seeing.update(doc for doc, _ in decls[ns].definitions)
            # (A body's references that find the name in a nearer lexical scope keep it, and so
            # do later names whose path leads where the owner is not an ancestor.)
            merge_refresh(
                out, {doc: owned for doc in found & (deep | seeing) if not self.mentions.lookups_kept(doc, owned, {owner}, first_names=doc in seeing)}
            )
        return out

    def _placeholder_scope(self, defs: list[DefinitionRecord], path: ConstPath, site: Site, upto: int) -> int:
        """The placeholders a full resolve makes for the scope of the compact name ``path``
        (of a definition ``defs`` add), whose first ``upto`` segments name nothing: ``Todo``s after
        the longest prefix that resolves (``Builder.placeholder``), made in the round of phase
        1 where nothing else can be declared (``Namespaces.phase_namespaces``). Everything but
        the addition is declared already, so that round comes for this definition too, unless
        the addition itself declares one of the missing names (a later round might find it)
        or a prefix names a value (Ruby raises there and nothing is declared): those are a
        full resolve's. Returns the innermost placeholder."""
        name = path.segments[-1]
        if path.dynamic or self.namespaces.names_a_value(path, site, upto):
            raise ReplayUnsafe(f"the scope of {name} names a value")
        resolved = next((n for n in range(upto, 0, -1) if self.lookup.lookup_namespace(path, site, n) is not None), 0)
        missing = set(path.segments[resolved:upto])
        for d in defs:
            if d.path is not None and d.kind in ("Class", "Module", "Constant", "ConstantAlias") and d.path.segments[-1] in missing:
                raise ReplayUnsafe(f"the addition declares {d.path.segments[-1]}, which the scope of {name} names")
        return self.builder.placeholder(path, site, upto)

    def _hide_added(self, index: int, defs: list[DefinitionRecord], visibilities: list[int]) -> set[int]:
        """``private_constant`` (``public_constant``) definitions of the addition, attached as
        a full resolve attaches them, after every namespace and constant is declared
        (``Members.phase_members``), with a diagnostic for one that names no constant.
        Returns the constants they name: what each one's visibility is, the last of its
        definitions in program order decides (``Members.settle_constant_visibility``)."""
        touched: set[int] = set()
        for i in visibilities:
            member = self.members.attach_constant_visibility(index, i, defs[i])
            if member is not None:
                touched.add(member)
        return touched

    def _declare_one_added(
        self,
        index: int,
        defs: list[DefinitionRecord],
        i: int,
        own: Callable[[int], DeclarationRecord],
        names: set[str],
        created: list[int],
        rechained: set[int],
    ) -> None:
        """Declare added definition ``i``: a new plain name (added to ``names``, its
        declaration to ``created``), a reopening without superclass or mixins, or another
        ``class << self`` body of an existing singleton class."""
        d = defs[i]
        if d.kind not in ("Class", "Module", "Constant", "ConstantAlias", "SingletonClass"):
            raise ReplayUnsafe(f"an added {d.kind} needs a full resolve")
        if inside_method(defs, d):
            self.state.diagnostics.append(dynamic_constant(index, d))
            return
        site = self.lookup.cref(index, d.parent)
        if site is None:
            raise ReplayUnsafe("an added definition sits in an undeclared scope")
        reopened: int | None = None
        if d.kind == "SingletonClass":
            if d.target is None:
                attached = self.lookup.namespace_owner(index, d.parent)
            else:
                # ``class << Foo``: phase 1 attaches it, in program order, as soon as Foo
                # names a namespace; everything else is declared already, so that is now.
                # Through a constant alias, what it names depends on the assignments before
                # the body (phase 1's program order): a full resolve's.
                for k in range(1, len(d.target.segments) + 1):
                    step = self.lookup.lookup_path(d.target, site, k)
                    if step is not None and self.decls[step].kind == "ConstantAlias":
                        raise ReplayUnsafe("a ``class << X`` body names X through a constant alias")
                attached = self.lookup.lookup_namespace(d.target, site)
                if attached is None and self.namespaces.names_a_value(d.target, site, len(d.target.segments)):
                    return  # ``class << MSG`` (a value): Ruby raises TypeError, nothing is declared.
            if attached is None:
                raise ReplayUnsafe("a ``class << X`` body of an undeclared X needs a full resolve")
            if attached not in created:
                # Another body of an existing singleton class, or its first one (which declares
                # that singleton class's own singleton class: ``_complete_added``).
                single = self.decls[attached].singleton
                if single is None:
                    raise ReplayUnsafe("a ``class << self`` body inside a first one needs a full resolve")
                if d.mixins or d.deferred_mixins:
                    rechained.add(single)  # Its chain (and its descendants') is computed again.
                reopened = single
        else:
            path = d.path
            assert path is not None
            name = path.segments[-1]
            if len(path.segments) == 1 and not path.absolute:
                owner = site[0] if site else self.object_id
            elif len(path.segments) == 1:
                owner = self.object_id  # ``class ::Foo``
            else:
                # ``class A::B``: in the namespace its scope names where the file is loaded
                # (as ``Namespaces.declare_definition`` finds it), or in placeholders made
                # for the part of the scope that names nothing (``_placeholder_scope``).
                # Phase 1 looks it up in program order, among what is declared before it: the
                # answer must be the same as a lookup while the file loads, and the scope
                # declared before the definition.
                upto = len(path.segments) - 1
                scope = self.lookup.lookup_namespace(path, site, upto)
                if scope is None:
                    own(self._placeholder_scope(defs, path, site, upto))
                    scope = self.lookup.lookup_namespace(path, site, upto)
                if scope is None or self.decls[scope].kind not in ("Class", "Module", "Todo"):
                    raise ReplayUnsafe(f"the scope of {name} is not a declared class or module")
                for k in range(1, upto + 1):
                    # Through a constant alias, what the scope is depends on the assignments
                    # before the definition (phase 1's program order): a full resolve's.
                    step = self.lookup.lookup_path(path, site, k)
                    if step is None or self.decls[step].kind not in ("Class", "Module", "Todo"):
                        raise ReplayUnsafe(f"the scope of {name} is named through a constant alias")
                    if self.decls[step].definitions and not self.mentions.declared_first_round_before(step, (index, i)):
                        # Phase 1 declares ``class A::B`` in the first round where A names a
                        # namespace, among what is declared before it in program order: a
                        # namespace declared only further on (or in a later round) is not
                        # seen there, whatever the load order says.
                        raise ReplayUnsafe(f"the scope of {name} may be declared after it in phase 1")
                if self.lookup.follow(self.lookup.lookup_path_at(path, site, index, path.start, upto)) != scope or self.lookup.defined_after(scope, index, path.start):
                    raise ReplayUnsafe(f"the scope of {name} is declared after it is written")
                owner = scope
            existing = self.lookup.member_constant(owner, name)
            realiased = existing is not None and d.kind == "ConstantAlias" and self._assigned_again(existing, index, i, d)
            moved_alias = existing is not None and d.kind == "ConstantAlias" and self.decls[existing].kind == d.kind and existing in self.build.going
            if existing is not None and d.kind == "ConstantAlias" and not realiased and not moved_alias:
                # Assigned again, or a namespace (or a placeholder) of that name: what it holds
                # then, and what bodies written under its name reopen, may change.
                raise ReplayUnsafe(f"an added constant alias {name} names a declared constant")
            if existing is not None and d.kind in ("Class", "Module") and self.decls[existing].kind == "ConstantAlias":
                # ``Y = Target; module Y`` reopens Target (``Namespaces.declare_definition``).
                # Phase 1 runs in program order, so the body finds what the alias names at its
                # own position: taken here only when that is what it names in the end (every
                # assignment and a definition of the target come first, no alias in between).
                existing = self._named_before(existing, (index, i), d.kind)
            if realiased or moved_alias or (
                existing is not None
                and d.kind in ("Class", "Module", "Constant")
                and (self.decls[existing].kind == d.kind or (_mismatched_reopening(d, self.decls[existing]) and self._declared_before(existing, (index, i))))
            ):
                # A reopening (or a constant or alias assigned again) adds a definition; with a
                # superclass or mixins, its chain is computed again (with its descendants') by
                # the caller.
                assert existing is not None
                if existing == owner and (existing != self.object_id or d.superclass is not None or d.superclass_self or d.mixins or d.deferred_mixins):
                    # (A top-level ``class Object`` that only adds members is a reopening like
                    # any other; one that changes Object's chain changes every chain.)
                    raise ReplayUnsafe(f"{name} reopens its own scope")
                if existing in self.build.going and d.kind in ("Constant", "ConstantAlias", "Class", "Module") and self.decls[existing].kind == d.kind:
                    # A constant whose every assignment goes is assigned again in the same
                    # namespace (the edit moved it): it stays, with the new assignment only,
                    # and the visibility that the added ``private_constant`` calls give it
                    # (each of its definitions was in this document, and they all go).
                    row = self.def_decl[index]
                    for holder in self.holders(existing):
                        kept = own(holder)
                        kept.definitions = [(doc, j) for doc, j in kept.definitions if doc != index or row[j] == holder]
                    own(existing).private = False
                    self.build.keep(existing)
                    if d.kind in ("Class", "Module"):
                        rechained.add(existing)
                elif existing in self.build.going:
                    raise ReplayUnsafe(f"{name} is declared again by an addition")
                if d.superclass is not None or d.superclass_self or d.mixins or d.deferred_mixins:
                    rechained.add(existing)
                reopened = existing
            else:
                if existing is not None and self.decls[existing].kind == "Todo" and d.kind in ("Class", "Module"):
                    rechained.add(existing)  # A placeholder becomes the namespace it stood for.
                if name in CONCERN_NAMES:
                    raise ReplayUnsafe(f"{name} is not a plain new name")
                if self.mentions.object_mixin_conflict(owner, name, at_top=written_at_top(d), at=(index, i), edited=defs):
                    raise ReplayUnsafe("a top-level class may reopen another through Object's mixins")
                names.add(name)
                own(owner)
        if reopened is not None:
            own(reopened)
        if not self.namespaces.declare_definition(index, i, d, False):
            raise ReplayUnsafe("an added definition cannot be declared")
        decl_id = self.def_decl[index][i]
        if decl_id is not None and len(self.decls[decl_id].definitions) > 1:
            # Program order, as phase 1 leaves it, then the ``private_constant`` calls naming
            # it, which a later pass attaches.
            defs_of = self.builder.writable(decl_id).definitions
            if defs_of[-1] == (index, i):
                # ``attach`` appended it to a list in that order: it goes where it belongs among
                # the others (a namespace reopened in thousands of files is not sorted again).
                defs_of.pop()
                end = len(defs_of)
                while end and self.docs[defs_of[end - 1][0]].definitions[defs_of[end - 1][1]].kind == "ConstantVisibility":
                    end -= 1
                bisect.insort(defs_of, (index, i), 0, end)
            else:
                defs_of.sort()
                defs_of.sort(key=lambda pair: self.docs[pair[0]].definitions[pair[1]].kind == "ConstantVisibility")
        if reopened is not None:
            if decl_id != reopened:
                raise ReplayUnsafe("a reopening declared something else")
        elif decl_id is not None and decl_id not in created and d.kind != "SingletonClass":
            if decl_id not in (self.build.created or ()) and decl_id not in rechained:
                # It was there already (``class Broken`` becoming ``module Broken``: the old
                # declaration goes with its definition, the new one takes the same name).
                raise ReplayUnsafe(f"{name} is declared again by an addition")
            created.append(decl_id)

    def _check_added_ancestry(self, index: int, defs: list[DefinitionRecord], added: list[int]) -> None:
        """Added superclasses and mixins are looked up in declared scopes. What they find is
        the chains' business: a class, a module, nothing yet (a placeholder, checked by
        ``Placeholders``) or a namespace of the wrong kind (a diagnostic, as in a full
        resolve)."""
        for i in added:
            d = defs[i]
            if d.superclass is not None and not d.superclass_self:
                if self.lookup.cref(index, d.parent) is None or self.def_decl[index][i] is None:
                    raise ReplayUnsafe("an added superclass sits in an undeclared scope")
            if any(m.target is not None for m in (*d.mixins, *d.deferred_mixins)):
                if (self.lookup.cref(index, i) if d.lexical else self.lookup.cref(index, d.parent)) is None:
                    raise ReplayUnsafe("an added mixin sits in an undeclared scope")

    def _complete_added(self, index: int, defs: list[DefinitionRecord], added: list[int], created: list[int], rechained: set[int]) -> None:
        """Singleton classes and chains of the new namespaces, as a full resolve makes them,
        and their entries in the descendant index (``rechained`` ones, promoted placeholders
        and reopenings with a superclass or mixins, have theirs; the caller computes their
        chains again). Raises ReplayUnsafe if that declared
        anything a full resolve may not (``_check_declared``)."""
        assert self.build.created is not None
        made_before = len(self.build.created)
        for decl_id in created:
            if self.decls[decl_id].kind in ("Class", "Module"):
                self.builder.singleton(decl_id)
        namespaces = [d for d in created if self.decls[d].is_namespace]
        # ``class << self`` bodies declare their singleton class's singleton class (see ``run``):
        # those of new namespaces, and the first body of an existing one.
        created_set = set(created)
        bodies = {
            b
            for i in added
            if defs[i].kind == "SingletonClass"
            and (b := self.def_decl[index][i]) is not None
            and (self.decls[b].attached in created_set or self.decls[b].singleton is None)
        }
        for decl_id in namespaces:
            self.lookup.ancestors(decl_id)
            self.lookup.ancestors(self.builder.singleton(decl_id))
        # The chain of such a singleton class's singleton class declares those of its
        # superclasses' singleton classes that do not exist yet, as a full resolve's chains do.
        metas: set[int] = set()
        for body in bodies:
            metas.update(self.lookup.ancestors(self.builder.singleton(body)))
        self._check_declared(created_set, {*namespaces, *bodies}, metas)
        created_set -= rechained  # They were in the index already.
        fresh_ids: set[int] = set(created_set)
        for holder in (*namespaces, *bodies):
            single = self.decls[holder].singleton
            if single is not None:
                fresh_ids.add(single)
        # And the singleton classes those chains declared (a superclass's singleton class's
        # singleton class): a later step of the update may change a chain that theirs holds.
        fresh_ids.update(d for d in self.build.created[made_before:] if d in self.decls)
        if self.chains.descendant_index is not None:
            self.chains.add_descendants([n for n in fresh_ids if self.decls[n].is_namespace])


def _mismatched_reopening(d: DefinitionRecord, rec: DeclarationRecord) -> bool:
    """``class X`` written where X is a module, or ``module X`` where it is a class (Ruby raises
    TypeError; phase 1 attaches the body to X as it is), without a superclass or mixins: a
    reopening that changes nothing but X's definitions (a name typed on its way to a compact
    one, ``class RuboCop`` before ``class RuboCop::Cop::Draft``)."""
    return (
        d.kind in ("Class", "Module")
        and rec.kind in ("Class", "Module")
        and d.kind != rec.kind
        and d.superclass is None
        and not d.superclass_self
        and not d.mixins
        and not d.deferred_mixins
    )
