"""Placeholders in incremental updates: created, kept, or removed as a full resolve would.

A superclass, mixin or scope that names nothing (``class Nav < Ba`` while ``Base`` is being
typed, ``class Draft < NotWrittenYet``, ``class Missing::X``) declares a ``Todo`` placeholder
where the lookup failed (``Builder.placeholder``), with Object as its superclass whichever role
it is made for (so a full resolve gives it the same shape whichever lookup meets it first). A
placeholder exists exactly as long as one of those creating lookups finds it, so an edit is
incremental around placeholders by these rules, each checked against the lookups that mention
the placeholder's name (``Mentions``):

- **created**: a placeholder the update declared must not change what any other document's
  lookup finds (that lookup ran before it existed, or would, depending on order);
- **found**: a placeholder that existed before and that an added or changed lookup now finds
  must have the shape that lookup would have given it (``shape_holds``): the same owner as
  the longest prefix of the path that resolves;
- **demoted**: a class or module whose only definition goes while creating lookups still find
  it becomes the placeholder they would declare (same name, same id, superclass Object), and
  the namespaces whose superclass or mixin lookups find it have their chains computed again.
  So does one that the edited document's new creating lookups name (``class B < B`` renamed
  to ``class BR < B``): those are checked once the edit is in (**found**), and it is dropped
  at the end when none of them finds it. Demotion comes before the edit's additions are
  declared, so an added ``class B`` promotes the placeholder again;
- **dropped**: a placeholder that a removed or changed lookup found, or that left a chain
  computed again (an added ``module X`` that ``include X`` now finds instead), goes, with its
  singleton classes, when no creating lookup of any document finds it any more; a kept one loses a
  singleton class that nothing needs any more (also one that a chain computed again left).

Anything else (a placeholder kept only by a lookup that does not create one, or found with
another shape) raises ``ReplayUnsafe``: the one full resolve left for placeholders, named.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath, DefinitionRecord, FileResult
from rdx.ruby.resolve.edits import ANCESTRY_FIELDS, SkeletonDiff, fields_of, outside_definitions, path_names
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.mentions import ANCESTRY, OTHER, SCOPE, Answer
from rdx.ruby.resolve.update import Detour, UpdateContext
from rdx.ruby.resolve.vocabulary import CONCERN_NAMES, ReplayUnsafe

if TYPE_CHECKING:
    from rdx.ruby.resolve.ancestors import Ancestors, Chains
    from rdx.ruby.resolve.builder import Build, Builder
    from rdx.ruby.resolve.concerns import ConcernBook
    from rdx.ruby.resolve.lookup import Binding, LookupCaches
    from rdx.ruby.resolve.members import MemberBook
    from rdx.ruby.resolve.mentions import Mentions
    from rdx.ruby.resolve.skeleton import SkeletonEdits

__all__ = ["Placeholders"]


def ancestry_names(d: DefinitionRecord) -> set[str]:
    """The names in a definition's superclass and mixin paths."""
    names: set[str] = set()
    if d.superclass is not None:
        names.update(d.superclass.segments)
    for m in (*d.mixins, *d.deferred_mixins):
        if m.target is not None:
            names.update(m.target.segments)
    return names


def creating_paths(result: FileResult, only: Iterable[int]) -> list[tuple[str, ...]]:
    """The segments of the lookups of definitions ``only`` of ``result`` that declare a
    placeholder when they find nothing: superclasses, mixins, the scope part of compact names
    (``A`` of ``class A::B``) and ``class << A``."""
    paths: list[tuple[str, ...]] = []
    for i in only:
        d = result.definitions[i]
        if d.superclass is not None:
            paths.append(tuple(d.superclass.segments))
        paths.extend(tuple(m.target.segments) for m in (*d.mixins, *d.deferred_mixins) if m.target is not None)
        if d.path is not None and len(d.path.segments) > 1:
            paths.append(tuple(d.path.segments[:-1]))
        if d.kind == "SingletonClass" and d.target is not None:
            paths.append(tuple(d.target.segments))
    return paths


def creating_names(result: FileResult, only: Iterable[int]) -> set[str]:
    """The names in ``creating_paths``."""
    return {name for path in creating_paths(result, only) for name in path}


class Placeholders(StateView):
    """Placeholders in an update: created, found, promoted, demoted, dropped."""

    def __init__(
        self,
        binding: Binding,
        *,
        build: Build,
        builder: Builder,
        caches: LookupCaches,
        chains: Chains,
        concern_book: ConcernBook,
        linearizer: Ancestors,
        member_book: MemberBook,
        mentions: Mentions,
        skeleton: SkeletonEdits,
    ) -> None:
        self.build = build
        self.builder = builder
        self.caches = caches
        self.chains = chains
        self.concern_book = concern_book
        self.linearizer = linearizer
        self.member_book = member_book
        self.mentions = mentions
        self.skeleton = skeleton
        binding.join(self)

    def found_todos(self, doc: int, only: set[int]) -> set[int]:
        """The placeholders that lookups of definitions ``only`` of ``doc`` find now."""
        decls = self.decls
        return {f for _, _, answers in self.mentions.evaluate(doc, None, only) for f in answers if f is not None and f in decls and decls[f].kind == "Todo"}

    def shape_holds(self, answers: tuple[int | None, ...]) -> bool:
        """Whether the first placeholder a lookup finds (``answers``: hit and followed target
        per prefix) is the one that lookup would declare itself: owned by the prefix before it
        (or top level, for the first segment)."""
        decls = self.decls
        for k in range(0, len(answers), 2):
            hit = answers[k]
            if hit is None or hit not in decls:
                return True
            if decls[hit].kind == "Todo":
                return decls[hit].owner == (self.object_id if k == 0 else answers[k - 1])
        return True

    def _lookups_finding(self, todo: int, skip: int, edited: int | None = None) -> list[Answer]:
        """Every lookup (of any document but ``skip``) that finds placeholder ``todo``, or, for
        one that declares placeholders, fails where it would declare ``todo`` again. The
        mention index lists the ``edited`` document by its previous version: it is looked at
        whatever it mentioned."""
        rec = self.decls[todo]
        name = rec.unqualified
        out: list[Answer] = []
        documents = self.mentions.documents_mentioning_paths({name}, skip)
        if rec.owner == self.object_id:
            # Only a lookup that reaches Object for the name finds a top-level placeholder.
            documents = self.mentions.reaching_object(documents, name)
        if edited is not None and edited != skip:
            documents.add(edited)
        for doc in sorted(documents):
            paths: list[ConstPath | None] = []
            for answer, path in zip(self.mentions.evaluate(doc, {name}, paths=paths), paths, strict=True):
                found = answer[2]
                if todo in found:
                    out.append(answer)
                elif path is not None and (answer[0] == ANCESTRY or answer[0] == SCOPE) and None in found[::2]:
                    k = found[::2].index(None)
                    if k < len(path.segments) and path.segments[k] == name and rec.owner == (self.object_id if k == 0 else found[2 * k - 1]):
                        out.append(answer)
        return out

    def demotable(self, index: int, old: FileResult, new: FileResult, diff: SkeletonDiff) -> dict[int, set[int]]:
        """The namespaces that removing definitions ``diff.removed`` of document ``index``
        leaves as placeholders: each had only that definition, and only creating lookups
        (superclasses, mixins, scopes) find it, with the shape they would give a placeholder:
        lookups of other documents, and of this one's definitions that the edit keeps as they
        were (its added or changed lookups that find it are checked once the edit is in, by
        ``check_found``, as they are for any placeholder that existed). Maps each to the
        namespaces whose superclass or mixin lookups find it: their chains are computed again,
        also those that did not have it as an ancestor (a module named as a superclass, a
        class as a mixin: a diagnostic before, a placeholder after, which is both)."""
        removed = diff.removed
        row = self.def_decl[index]
        # A kept definition whose paths are spelled as before but stand elsewhere among the
        # document's constant definitions (``load_time_order``: one of them went) looks up what
        # it looked up before, unless an added definition now stands before it with one of its
        # names: its lookups are checked as the kept ones are.
        added_names = {p.segments[-1] for i in diff.added if (p := new.definitions[i].path) is not None}
        moved_only: set[int] = set()
        for o, n in diff.changed:
            def this_one(i: int, d: object, n: int = n) -> bool:
                return i == n

            if fields_of(old.definitions[o], ANCESTRY_FIELDS) == fields_of(new.definitions[n], ANCESTRY_FIELDS) and added_names.isdisjoint(
                path_names(new, this_one)
            ):
                moved_only.add(o)
        changed_old = {o for o, _ in diff.changed if o not in moved_only}
        kept = {o for o in diff.remap if o not in changed_old}
        # Names that the new version's added or changed superclass, mixin and scope lookups
        # (``creating_names``) may find once the edit is in: a namespace of such a name stays
        # a placeholder for now, found or not (``class B < B`` renamed to ``class BR < B``).
        edited = {*diff.added, *(n for o, n in diff.changed if o not in moved_only)}
        wanted = creating_names(new, edited)
        # External mixins and load-time calls are looked up apart from the definitions.
        unsure = outside_definitions(new) | outside_definitions(old)
        out: dict[int, set[int]] = {}
        for o in removed:
            d = old.definitions[o]
            decl_id = row[o]
            if d.kind not in ("Class", "Module") or decl_id is None:
                continue
            rec = self.decls[decl_id]
            if rec.kind != d.kind or rec.definitions != [(index, o)] or rec.unqualified in unsure or rec.unqualified in CONCERN_NAMES:
                continue
            other = False
            finders: set[int] = set()
            name = rec.unqualified
            within = self.skeleton.reach({name: {rec.owner}}, new)
            lookups = [(doc, None) for doc in sorted(self.mentions.documents_mentioning_paths({name}, index, None, within))]
            for doc, only in [*lookups, (index, kept)]:
                for role, i, found in self.mentions.evaluate(doc, {name}, only):
                    if decl_id not in found:
                        continue
                    k = found.index(decl_id)
                    looker = self.def_decl[doc][i] if role == ANCESTRY else None
                    shaped = k % 2 == 0 and rec.owner == (self.object_id if k == 0 else found[k - 1])
                    if role == OTHER and shaped:
                        # A lookup that creates nothing (an external mixin's ``::A::B``) finds
                        # the same declaration, as a placeholder, when creating lookups keep it;
                        # without them it is not demoted (``finders`` stays empty).
                        continue
                    if role == OTHER or not shaped:
                        other = True
                    elif role == ANCESTRY:
                        if looker is None:
                            other = True  # A superclass or mixin of nothing declared.
                        else:
                            finders.add(looker)
                    else:
                        finders.add(decl_id)  # A scope: the name stays, as a placeholder.
            if not other and not finders and name in wanted and self._found_misshaped(rec, index, new, edited, diff.remap):
                # Demoted, the edited lookup would find it with the wrong shape; gone, kept
                # lookups of this document may find something else: the document goes out of
                # the way and comes back with its new text (``Incremental._detour``).
                raise Detour(f"{rec.name} goes, and an edited lookup around it names it", {index})
            if not other and (finders or name in wanted):
                # Without finders it was demoted for the edited lookups alone: those are
                # checked once the edit is in (``check_found``), and it goes at the end of the
                # update when none of them finds it (``drop_unused_placeholders``).
                finders.discard(decl_id)
                out[decl_id] = finders
        return out

    def _found_misshaped(self, rec: DeclarationRecord, index: int, new: FileResult, edited: set[int], remap: dict[int, int]) -> bool:
        """Whether an edited creating lookup of document ``index`` names namespace ``rec``
        first in its path while ``rec``'s owner is one of the namespaces written around that
        lookup (its own definition included: ``include X`` in ``C``, where ``C::X`` goes):
        kept as a placeholder, ``rec`` is what that lookup finds, with another shape than it
        would declare (``shape_holds``: a first name's placeholder is top-level), while a full
        resolve finds ``::X`` or declares it."""
        name = rec.unqualified
        if rec.owner == self.object_id:
            return False
        row = self.def_decl[index]
        decl_of = {n: row[o] for o, n in remap.items()}
        defs = new.definitions
        for n in edited:
            d = defs[n]

            def first(path: ConstPath | None) -> bool:
                return path is not None and not path.absolute and path.segments[0] == name

            # A body's mixins are looked up inside it; its superclass, scope and ``class << x``
            # target around it.
            inside = any(first(m.target) for m in (*d.mixins, *d.deferred_mixins))
            around = first(d.superclass) or (d.path is not None and len(d.path.segments) > 1 and first(d.path))
            if not inside and not around and not (d.kind == "SingletonClass" and first(d.target)):
                continue
            scope = n if inside else d.parent
            while scope >= 0:
                if defs[scope].kind in ("Class", "Module", "SingletonClass") and decl_of.get(scope) == rec.owner:
                    return True
                scope = defs[scope].parent
        return False

    def demote(self, u: UpdateContext) -> None:
        """Turn the namespaces ``_demotable`` chose into placeholders (superclass Object, as
        every placeholder's), before the edit's additions are declared (an added ``class B``
        then promotes the placeholder, as it would in a fresh graph)."""
        for decl_id in u.demoted:
            rec = u.own(decl_id)
            rec.kind = "Todo"
            rec.definitions = []
            rec.superclass = self.object_id
            u.placeholders.add(decl_id)

    def demoted_seeds(self, u: UpdateContext) -> set[int]:
        """The namespaces whose chains change with the demotions (computed again by the
        caller): the demoted ones, those whose lookups found them before, and the edited ones
        whose superclass or mixins name them."""
        seeds: set[int] = set()
        row = self.def_decl[u.index]
        edited = [*u.diff.added, *(n for _, n in u.diff.changed)]
        for decl_id, finders in u.demoted.items():
            if decl_id not in self.decls:
                continue
            seeds.add(decl_id)
            seeds |= {f for f in finders if f in self.decls}
            name = self.decls[decl_id].unqualified
            seeds |= {decl for n in edited if (decl := row[n]) is not None and decl in self.decls and name in ancestry_names(u.new.definitions[n])}
        return seeds

    def _chains_only(self, decl_id: int) -> bool:
        """Whether the singleton class of ``decl_id`` is declared only for the chains that pass
        through it: that of a placeholder, or of a singleton class without a ``class << x``
        body (``Object::<Object>::<<Object>>``, in the chain of a placeholder's singleton
        class's singleton class). Those of classes and modules, and of bodies, always exist."""
        rec = self.decls[decl_id]
        return rec.kind == "Todo" or (rec.kind == "SingletonClass" and not rec.definitions)

    def left_chains(self, before: dict[int, tuple[int, ...]], namespaces: Iterable[int]) -> set[int]:
        """The declarations whose singleton classes are there only for chains
        (``_chains_only``), were in the chains ``before`` of ``namespaces`` and are not in their
        chains now (``class A < Missing`` becoming ``class A < Object`` while another file
        still names Missing): the singleton class may not be needed any more
        (``drop_unneeded_singletons``)."""
        decls = self.decls
        out: set[int] = set()
        for ns in namespaces:
            now = self.chains.chain_of.get(ns, ())
            for entry in before.get(ns, ()):
                if entry in now or entry not in decls:
                    continue
                rec = decls[entry]
                if rec.kind == "SingletonClass" and rec.attached in decls and self._chains_only(rec.attached):
                    out.add(rec.attached)
        return out

    def left_placeholders(self, before: dict[int, tuple[int, ...]], namespaces: Iterable[int]) -> set[int]:
        """The placeholders that were in the chains ``before`` of ``namespaces`` and are not
        in their chains now (``include X`` finds the ``M::C::X`` a new file declares, no
        longer the top-level placeholder ``X``): they go when no creating lookup finds them
        any more (``drop_unused_placeholders``). Those still in another chain stay."""
        decls = self.decls
        out: set[int] = set()
        for ns in namespaces:
            now = self.chains.chain_of.get(ns, ())
            out.update(e for e in before.get(ns, ()) if e not in now and e in decls and decls[e].kind == "Todo")
        # One still in another chain (a superclass's ``extend Missing``) is still found.
        return {todo for todo in out if not any(d != todo for d in self.linearizer.current_descendants(todo))}

    def drop_unneeded_singletons(self, u: UpdateContext, todos: Iterable[int]) -> None:
        """Remove the singleton classes of ``todos`` (see ``left_chains``) that nothing needs
        any more."""
        for todo in todos:
            if todo in self.decls and self._chains_only(todo):
                self._drop_unneeded_singleton(u, todo)

    def chain_created(self, created: Iterable[int]) -> None:
        """Compute the chains of the placeholders this update declared that no chain passed
        through (a superclass clause that a mismatch leaves unused): a full resolve gives every
        namespace its chain."""
        missing = [todo for todo in sorted(created) if todo in self.decls and todo not in self.chains.chain_of]
        if not missing:
            return
        self.linearizer.own_chains()
        for todo in missing:
            self.linearizer.chain(todo)
        self.chains.add_descendants(missing)

    def check_created(self, u: UpdateContext, created: Iterable[int]) -> None:
        """Placeholders declared by this update change no other document's lookup."""
        for todo in created:
            if todo in self.decls and self.decls[todo].kind == "Todo" and self._lookups_finding(todo, u.index):
                raise ReplayUnsafe("a new placeholder changes what another file's lookup finds")

    def check_found(self, u: UpdateContext, only: set[int], created: set[int]) -> None:
        """Placeholders that existed before and that the edited lookups now find have the shape
        those lookups would give them."""
        decls = self.decls
        for _, _, answers in self.mentions.evaluate(u.index, None, only):
            if any(f is not None and f not in created and f in decls and decls[f].kind == "Todo" for f in answers) and not self.shape_holds(answers):
                raise ReplayUnsafe("a lookup finds a placeholder whose shape depends on who made it first")

    def drop_unused_placeholders(self, u: UpdateContext, candidates: set[int], deleted: set[int], owners: set[int]) -> set[str]:
        """Remove the ``candidates`` (placeholders that lookups of this document found before
        the edit, or that left a chain: ``left_placeholders``) that no creating lookup finds
        any more, deepest first, adding the ids
        removed to ``deleted`` and their owners to ``owners``; returns the names of those
        removed (references that found one of them are resolved again)."""
        decls = self.decls
        removed: set[str] = set()
        for todo in sorted(candidates, key=lambda t: -decls[t].name.count("::") if t in decls else 0):
            rec = decls.get(todo)
            if rec is None or rec.kind != "Todo":
                continue
            finders = self._lookups_finding(todo, -1, u.index)
            creating = [a for a in finders if a[0] == ANCESTRY or a[0] == SCOPE]
            if creating:
                if not all(self.shape_holds(a[2]) for a in creating):
                    raise ReplayUnsafe("a placeholder is kept by a lookup that would give it another shape")
                self._drop_unneeded_singleton(u, todo)
                continue
            if finders:
                raise ReplayUnsafe("a placeholder is found only by lookups that do not create one")
            if rec.definitions or any(m in decls for m in rec.members.values()):
                raise ReplayUnsafe(f"placeholder {rec.name} holds declarations")
            if any(d not in self.skeleton.holders(todo) for h in self.skeleton.holders(todo) for d in self.linearizer.current_descendants(h)):
                raise ReplayUnsafe(f"placeholder {rec.name} is still in a chain")
            deleted.update(self.skeleton.holders(todo))
            if rec.owner is not None:
                owners.add(rec.owner)
            self._drop_declaration(u, todo)
            removed.add(rec.unqualified)
        return removed

    def drop_lost_bodies(self, u: UpdateContext) -> None:
        """Singleton classes that lost their last ``class << x`` body (``u.lost_bodies``, once
        the member replay is done) lose the singleton class those bodies declared, as in a
        full resolve (``Resolver.run`` declares it for bodies alone); then the singleton
        classes of singleton classes that only its chain, or the chains of those that went
        with their namespaces (``u.left_metas``), passed through go too, nearest first. Raises
        ReplayUnsafe when one that should go is still needed (a member, a descendant)."""
        decls = self.decls
        passed = list(u.left_metas)
        for single in sorted(u.lost_bodies):
            rec = decls.get(single)
            if rec is None or rec.definitions or rec.singleton is None:
                continue
            if rec.attached not in decls or decls[rec.attached].kind not in ("Class", "Module"):
                # A placeholder's (``class << Missing``, or one demoted by this edit): whether
                # it keeps a singleton class, and what ``def Missing.x`` finds, is a full
                # resolve's.
                raise ReplayUnsafe(f"{rec.name} loses its last body")
            meta = rec.singleton
            passed.extend(self.chains.chain_of.get(meta, ())[1:])
            self._drop_unneeded_singleton(u, single)
            if meta in decls and not self._chained_only(meta):
                raise ReplayUnsafe(f"{rec.name} loses its last body, and {decls[meta].name} is still needed")
        for entry in dict.fromkeys(passed):
            erec = decls.get(entry)
            if erec is None or erec.kind != "SingletonClass" or erec.attached not in decls:
                continue
            if decls[erec.attached].kind == "SingletonClass" and self._chains_only(erec.attached):
                self._drop_unneeded_singleton(u, erec.attached)

    def drop_unneeded_metas(self, u: UpdateContext, created: Iterable[int]) -> None:
        """The singleton classes of singleton classes without a ``class << x`` body that this
        update declared (``created``) and that no chain needs at its end go, deepest first: a
        chain computed on the way (a first body's, before the same edit changed a superclass)
        declared them. A full resolve declares only those its chains need."""
        decls = self.decls
        metas = [m for m in created if m in decls and decls[m].kind == "SingletonClass" and decls[m].attached in decls]
        for meta in sorted(metas, key=lambda m: -decls[m].name.count("<")):
            if meta not in decls:
                continue
            attached = decls[meta].attached
            if attached in decls and decls[attached].kind == "SingletonClass" and self._chains_only(attached):
                self._drop_unneeded_singleton(u, attached)

    def _chained_only(self, meta: int) -> bool:
        """Whether singleton class ``meta`` (of a singleton class that lost its last body) stays
        only because chains pass through it (``class Sub < C`` whose ``class << self`` body
        declares ``Sub::<Sub>::<<Sub>>``, whose chain holds ``C::<C>::<<C>>``): a full resolve
        declares it for those chains too, with no definitions or members."""
        mrec = self.decls[meta]
        return not (mrec.definitions or mrec.members or meta in self.build.member_created)

    def _drop_unneeded_singleton(self, u: UpdateContext, todo: int) -> None:
        """A kept placeholder's singleton class goes when nothing needs it any more: no chain
        passes through it, and it has no definitions or members."""
        single = self.decls[todo].singleton
        if single is None:
            return
        srec = self.decls[single]
        if srec.definitions or srec.members or single in self.build.member_created or self.linearizer.current_descendants(single):
            return
        if srec.singleton is not None:
            # Its own singleton class may be there only for a chain that left it too (one an
            # added first ``class << self`` body computed before the superclass changed); one
            # that bodies declared goes with them (``drop_lost_bodies``).
            if single in u.lost_bodies:
                return
            self._drop_unneeded_singleton(u, single)
            if self.decls[single].singleton is not None:
                return
        self._drop_declaration(u, single)
        u.own(todo).singleton = None

    def _drop_declaration(self, u: UpdateContext, decl_id: int) -> None:
        """Delete a placeholder (or a singleton class) with its singleton classes and chains."""
        if self.chains.times_raw is not None:
            self.linearizer.load_times()
        self.linearizer.own_chains()
        rec = self.decls[decl_id]
        holders = self.skeleton.holders(decl_id)
        # A cached lexical scope passes through a namespace only at one of its definitions.
        self.caches.forget_scopes_in({doc for holder in holders for doc, _ in self.decls[holder].definitions})
        for holder in holders:
            self.builder.delete(holder)
            self.chains.forget((holder,))
            self.member_book.forget(holder)
            self.build.forget(holder)
            self.concern_book.forget(holder)
        owner = rec.owner
        if owner is not None and owner in self.decls and rec.kind != "SingletonClass" and self.decls[owner].members.get(rec.unqualified) == decl_id:
            del u.own(owner).members[rec.unqualified]
        self.caches.forget_lookups()
