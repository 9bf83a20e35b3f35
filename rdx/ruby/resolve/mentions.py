"""Dependents by name: which definitions look a constant name up, and what they find.

A definition's constant paths (the scope part of ``class A::B``, superclasses, mixins,
``def Foo.bar`` receivers, alias targets, ``class << Foo``, ``Foo.include(M)``,
``private_constant :Foo``) are lookups made while resolving namespaces and ancestors. An edit
that adds or removes a constant named ``X`` can change only the lookups that mention ``X``;
the mention index (name -> documents) finds them, and evaluating those lookups before and
after the edit tells whether any answer changed. If none did, the edit stays incremental.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from rdx.model.records import ConstPath, ConstRef, DefinitionRecord, FileResult
from rdx.ruby.resolve.edits import load_time_paths, named_plainly, path_names
from rdx.ruby.resolve.lookup import StateView
from rdx.ruby.resolve.order import MAX_KEY
from rdx.ruby.resolve.update import Detour
from rdx.ruby.resolve.vocabulary import ReplayUnsafe

if TYPE_CHECKING:
    from rdx.ruby.resolve.loadcalls import LoadCalls
    from rdx.ruby.resolve.lookup import Binding, Lookup
    from rdx.ruby.resolve.namespaces import ExternalBook

__all__ = ["ANCESTRY", "OTHER", "SCOPE", "Answer", "Bounds", "LookupSite", "Mentions", "Reach"]

# One lookup's answers: (what it is for: ANCESTRY for a superclass or mixin of definition
# ``index``, SCOPE for the scope of ``class A::B`` or ``class << A``, OTHER otherwise;
# ``index``; the declarations found for each prefix of its path, each followed by where it
# leads). ANCESTRY and SCOPE lookups that find nothing declare placeholders (``Placeholders``).
Answer = tuple[int, int, tuple[int | None, ...]]
# A path a definition looks up: the path, the scope definition it is looked up at (None:
# outside the definitions) and how many of its names are looked up (None: all).
LookupSite = tuple[ConstPath, int | None, int | None]
Evaluation = tuple[Answer, ...]
# Name -> the largest document key whose lookups of it may change (None: any document).
Bounds = dict[str, int | None]
# Name -> the only documents whose lookups may find the declarations of that name an edit
# adds, removes or reopens (``SkeletonEdits.reach``).
Reach = dict[str, set[int]]
ANCESTRY, OTHER, SCOPE = 0, 1, 2


class MentionBook:
    """Who mentions a name (owned by this module): per document, the names its definitions'
    lookups mention, and name -> those documents (for edits that add namespaces and
    constants, built on first use); per document, its FileResult and the names its
    references use, and name -> those documents (``_documents_mentioning``), with the
    documents edited since, whose entries may be stale."""

    __slots__ = (
        "alias_targets",
        "deep_index",
        "inner_index",
        "last_names",
        "loading_index",
        "lookup_sites",
        "mention_index",
        "path_names",
        "receiver_index",
        "reference_index",
        "reference_names",
        "segment_names",
        "touched_docs",
    )
    HELD_AS = "mention_book"

    def __init__(self) -> None:
        self.path_names: dict[int, set[str]] | None = None
        self.mention_index: dict[str, set[int]] | None = None
        self.reference_names: dict[int, tuple[FileResult, set[str]]] = {}
        self.reference_index: dict[str, set[int]] | None = None
        # Name -> the documents that name it after the first name of a constant path
        # (``A::B``'s ``B``: looked up in A's ancestors, wherever the path is written;
        # ``reference_names``): a subset of ``reference_index``'s. (A call receiver is a
        # constant reference too, at the same place.)
        self.deep_index: dict[str, set[int]] = {}
        # Name -> the documents that name it before the last name of a constant path
        # (``A::B``'s ``A``): where the lookup of a name is not the last of its path.
        self.inner_index: dict[str, set[int]] = {}
        # Per document (and the version it was made for): last name -> the indices of the
        # constant references whose path ends with it (``Mentions.seeing_top_level``).
        self.last_names: dict[int, tuple[FileResult, dict[str, list[int]]]] = {}
        # Per document (and the version it was made for): name -> the indices of the constant
        # references whose path names it anywhere (``Mentions.lookups_kept``).
        self.segment_names: dict[int, tuple[FileResult, dict[str, list[int]]]] = {}
        # Name -> the documents with a call receiver that ends with it (``A::B.new``,
        # ``B.new``): looked up as its constant reference is, then following an alias.
        self.receiver_index: dict[str, set[int]] = {}
        # Per document (and the version it was made for): the paths its definitions look up
        # (``Mentions.lookup_sites``).
        self.lookup_sites: dict[int, tuple[FileResult, list[LookupSite]]] = {}
        # Name -> the documents with a reference that runs while the file loads and whose
        # path starts with that name (``reference_names``).
        self.loading_index: dict[str, set[int]] = {}
        # Per document (and the version it was made for): (last name of the target, name) of
        # each constant alias it assigns (``Mentions.aliases_leading_to``).
        self.alias_targets: dict[int, tuple[FileResult, list[tuple[str, str]]]] = {}
        self.touched_docs: set[int] = set()

    def touch(self, doc: int) -> None:
        """Document ``doc`` is being edited: its reference names may be stale."""
        self.touched_docs.add(doc)


class Mentions(StateView):
    """The mention index and lookup re-checks of an update."""

    def __init__(self, binding: Binding, *, externals: ExternalBook, loadcalls: LoadCalls, lookup: Lookup, mention_book: MentionBook) -> None:
        self.externals = externals
        self.loadcalls = loadcalls
        self.lookup = lookup
        self.mention_book = mention_book
        binding.join(self)

    def _mentioned_names(self) -> dict[int, set[str]]:
        """Per document, every name its definitions' lookups mention (see ``path_names``)."""
        if self.mention_book.path_names is None:
            self.mention_book.path_names = {key: path_names(d) for key, d in self.docs.items()}
        return self.mention_book.path_names

    def mention_index(self) -> dict[str, set[int]]:
        """Name -> documents whose definitions' lookups mention it (built on first use, kept current)."""
        if self.mention_book.mention_index is None:
            index: dict[str, set[int]] = {}
            for doc, names in self._mentioned_names().items():
                for name in names:
                    index.setdefault(name, set()).add(doc)
            self.mention_book.mention_index = index
        return self.mention_book.mention_index

    def remention(self, doc: int, names: set[str] | None) -> None:
        """Document ``doc`` now mentions ``names`` (None: it is gone)."""
        per_doc = self._mentioned_names()
        index = self.mention_book.mention_index
        old = per_doc.get(doc, set())
        if index is not None:
            for name in old - (names or set()):
                entry = index.get(name)
                if entry is not None:
                    entry.discard(doc)
            for name in (names or set()) - old:
                index.setdefault(name, set()).add(doc)
        if names is None:
            per_doc.pop(doc, None)
            self.mention_book.lookup_sites.pop(doc, None)
            self.mention_book.last_names.pop(doc, None)
            self.mention_book.segment_names.pop(doc, None)
            self.mention_book.alias_targets.pop(doc, None)
        else:
            per_doc[doc] = names

    def documents_mentioning_paths(self, names: set[str], skip: int, bounds: Bounds | None = None, within: Reach | None = None) -> set[int]:
        """Documents (but ``skip``) whose definitions' lookups mention one of ``names``; with
        ``bounds``, for a name with a bound, only documents whose key is not above it; with
        ``within``, for a name it holds, only the documents it lists (``SkeletonEdits.reach``)."""
        out = _bounded(self.mention_index(), names - within.keys() if within else names, skip, bounds)
        if within:
            for name in names & within.keys():
                out |= _bounded(self.mention_index(), {name}, skip, bounds) & within[name]
        return out

    def evaluate(self, doc: int, names: set[str] | None, only: set[int] | None = None, paths: list[ConstPath | None] | None = None) -> Evaluation:
        """What every lookup of document ``doc`` that mentions one of ``names`` (any, for None)
        finds now, for its definitions (those in ``only``, when given): for each path, the
        declaration found for each of its prefixes (and where it leads). ``paths``, when
        given, receives the path of each answer, in the same order."""
        result = self.docs[doc]
        out: list[Answer] = []

        def path(p: ConstPath | None, scope: int, role: int, index: int, upto: int | None = None, load_time: bool = False, hidden: int | None = None) -> None:
            if p is None or (names is not None and names.isdisjoint(p.segments)):
                return
            site = self.lookup.cref(doc, scope)
            if paths is not None:
                paths.append(p)
            if site is None:
                out.append((role, index, (None,)))
                return
            n = len(p.segments) if upto is None else upto
            found = []
            for k in range(1, n + 1):
                # Superclasses and mixins are looked up as while the file loads (``ancestors``).
                hit = self.lookup.lookup_path_at(p, site, doc, p.start, k, hidden) if load_time else self.lookup.lookup_path(p, site, k)
                found += [hit, self.lookup.follow(hit)]
            out.append((role, index, tuple(found)))

        for i, d in enumerate(result.definitions):
            if only is not None and i not in only:
                continue
            if d.kind == "ConstantVisibility" and (names is None or d.name in names):
                site = self.lookup.cref(doc, d.parent)
                ns = (site[0] if site else self.object_id) if site is not None else None
                if d.receiver is not None and site is not None:
                    ns = self.lookup.lookup_namespace(d.receiver, site)
                out.append((OTHER, i, (None if ns is None else self.lookup.member_constant(ns, d.name),)))
                if paths is not None:
                    paths.append(None)
            if d.path is not None and len(d.path.segments) > 1:
                path(d.path, d.parent, SCOPE, i, len(d.path.segments) - 1)
            # (Most definitions are methods with none of these: no call for them.)
            if d.superclass is not None:
                path(d.superclass, d.parent, ANCESTRY, i, load_time=True, hidden=self.def_decl[doc][i])
            if d.receiver is not None:
                path(d.receiver, d.parent, OTHER, i)
            if d.target is not None:
                path(d.target, d.parent, SCOPE if d.kind == "SingletonClass" else OTHER, i, load_time=d.kind == "ConstantAlias")
            for m in d.mixins:
                path(m.target, i if d.lexical else d.parent, ANCESTRY, i, load_time=True)
            for m in d.deferred_mixins:
                path(m.target, i if d.lexical else d.parent, ANCESTRY, i)
        if only is None:
            for n, e in enumerate(result.external_mixins):
                path(e.target, e.scope, OTHER, n, load_time=not self.lookup.in_method_body(doc, e.scope))
                path(e.mixin.target, e.mixin_site, OTHER, n, load_time=not self.lookup.in_method_body(doc, e.mixin_site))
            for n, (p, scope) in enumerate(self.loadcalls.binding_paths(result)):
                path(p, scope, OTHER, n)
        return tuple(out)

    def _finds_placeholder(self, doc: int, only: set[int]) -> bool:
        """Whether a lookup of those definitions of ``doc`` finds a ``Todo`` placeholder, which
        may have been declared for it alone (and would go with it in a full resolve)."""
        decls = self.decls
        return any(found is not None and decls[found].kind == "Todo" for _, _, answers in self.evaluate(doc, None, only) for found in answers)

    def object_mixin_conflict(
        self, owner: int | None, name: str, reopening: bool = False, at_top: bool = True, at: tuple[int, int] | None = None, edited: Sequence[DefinitionRecord] = ()
    ) -> bool:
        """Whether adding or removing constant ``name`` of ``owner`` (with ``reopening``, one of
        its definitions) can change what a top-level ``class name`` elsewhere reopens: Ruby
        looks such a name up through Object's ancestors, so a constant of a module that Object
        includes, or a top-level one that such a module also has, decides it. Unless the
        definition added or removed is itself such a body (``at_top``: ``written_at_top``),
        only a top-level body of that name somewhere can be decided otherwise; each is a
        definition of a constant of that name in Object or one of its ancestors. ``at``: where
        the definition added or removed is (document, index). ``edited``: the new version of
        the edited document, whose bodies of that name (which may be declared after the
        definition) count as such a definition."""
        if not self.externals.object_mixins or owner is None:
            return False
        own = self.lookup.member_constant(self.object_id, name)
        if owner != self.object_id and own is not None and (own == owner or (at is not None and self.declared_first_round_before(own, at))):
            # Ruby reads Object's own constants before its ancestors': a top-level ``class
            # name`` finds Object's own ``name`` once it is declared. Declared before the
            # definition added or removed here, it is found by every such body this one could
            # decide (those before it are not affected); ``module C; C = 1; end`` with C in
            # Object's ancestors cannot be found before Object's own C exists.
            return False
        chain = self.lookup.ancestors(self.object_id)
        at_top = at_top or any(written_at_top(d) and d.path is not None and d.path.segments[0] == name for d in edited)
        if not at_top and not any((found := self.lookup.member_constant(m, name)) is not None and self._reopened_at_top(found) for m in chain):
            return False
        if owner != self.object_id:
            # Only a top-level ``class name`` decides differently, and each one is a definition
            # of a constant of that name in Object or one of its ancestors: with no other such
            # constant defined anywhere, nothing can reopen this one instead.
            return owner in chain and (
                reopening
                or any((found := self.lookup.member_constant(m, name)) is not None and bool(self.decls[found].definitions) for m in chain if m != owner)
            )
        return any(self.lookup.member_constant(m, name) is not None for m in chain if m != self.object_id)

    def _reopened_at_top(self, decl_id: int) -> bool:
        """Whether a definition of ``decl_id`` is a top-level body (``written_at_top``). (An
        edited document's row holds what its new version declares: the definitions of a
        declaration that goes are its old version's, and go with it.)"""
        for doc, j in self.decls[decl_id].definitions:
            row = self.def_decl[doc]
            if j < len(row) and row[j] == decl_id and written_at_top(self.docs[doc].definitions[j]):
                return True
        return False

    def snapshot_lookups(self, names: set[str], skip: int, bounds: Bounds | None = None, within: Reach | None = None) -> dict[int, Evaluation]:
        """The current answers of every other document's lookups that mention ``names`` (within
        ``bounds`` and ``within``: see ``documents_mentioning_paths``)."""
        return {doc: self.evaluate(doc, names) for doc in sorted(self.documents_mentioning_paths(names, skip, bounds, within))}

    def check_lookups(self, before: dict[int, Evaluation], names: set[str], only: dict[int, set[int]] | None = None) -> set[int]:
        """The namespaces whose superclass or mixin lookups recorded in ``before`` (of the
        definitions ``only`` names for a document, when given) find something else now (their
        chains must be computed again). Raises ReplayUnsafe when any other lookup does: that
        would move a definition or a method elsewhere."""
        rechain: set[int] = set()
        for doc, answers in before.items():
            now = self.evaluate(doc, names, None if only is None else only.get(doc))
            self._check_placed(doc, now)
            if now == answers:
                continue
            if len(now) != len(answers):
                raise ReplayUnsafe(f"a constant path in {self.docs[doc].uri} now finds something else")
            for (role, index, old), (_, _, new) in zip(answers, now, strict=True):
                if old == new:
                    continue
                ns = self.def_decl[doc][index] if role == ANCESTRY else None
                if ns is None:
                    raise ReplayUnsafe(f"a constant path in {self.docs[doc].uri} now finds something else")
                rechain.add(ns)
        return rechain

    def check_nested(self, namespaces: set[int]) -> set[int]:
        """Definitions written directly in a body of one of ``namespaces`` (whose chains
        changed) may look their names up through its ancestors: those whose first name no
        lexical scope there holds. A compact name's scope must still lead where it is
        declared (raises ReplayUnsafe otherwise); the classes whose superclass is looked up
        that way are returned (their chains are computed again). (A definition's own mixins
        are looked up in its own body, through its own ancestors.)"""
        decls, def_decl = self.decls, self.def_decl
        reread: set[int] = set()
        for ns in sorted(namespaces):
            rec = decls.get(ns)
            if rec is None:
                continue
            for doc, i in rec.definitions:
                defs = self.docs[doc].definitions
                compact: set[int] = set()
                for j in range(i + 1, len(defs)):
                    d = defs[j]
                    if d.start >= defs[i].end:
                        break
                    if d.parent != i:
                        continue
                    if d.path is not None and len(d.path.segments) > 1 and not self._lexical(doc, i, d.path):
                        compact.add(j)
                    if d.superclass is not None and (decl := def_decl[doc][j]) is not None and not self._lexical(doc, i, d.superclass):
                        reread.add(decl)
                if compact:
                    self._check_placed(doc, self.evaluate(doc, None, compact))
                    for j in compact:
                        self._check_first_round(doc, j)
        return reread - namespaces

    def declared_first_round_before(self, decl_id: int, position: tuple[int, int], depth: int = 0) -> bool:
        """Whether phase 1 surely declares ``decl_id`` in its first round before the definition
        at ``position`` (document, index): one of its definitions comes earlier in program
        order and is declared in the first round where it stands (``_first_round``). (Read as
        ``_reopened_at_top`` does: an edited document's row holds its new version's.)"""
        for doc, j in self.decls[decl_id].definitions:
            if (doc, j) >= position:
                continue
            row = self.def_decl[doc]
            if j >= len(row) or row[j] != decl_id:
                continue
            if self._first_round(doc, j, depth):
                return True
        return False

    def _first_round(self, doc: int, j: int, depth: int) -> bool:
        """Whether phase 1 surely declares definition ``j`` of ``doc`` in its first round: it
        and every namespace around it in its document are named in one plain segment (each
        is declared as soon as the one around it is; ``::Foo`` is Object's), or compactly
        (``class A::B``) under scopes that a lookup finds now and that are themselves surely
        declared in the first round before it (a few levels deep)."""
        defs = self.docs[doc].definitions
        k = j
        while k >= 0:
            d = defs[k]
            if not named_plainly(d) and not (d.path is not None and d.path.absolute and len(d.path.segments) == 1):
                if depth >= 3 or d.path is None or d.path.absolute or d.path.dynamic:
                    return False
                site = self.lookup.cref(doc, d.parent)
                if site is None:
                    return False
                for n in range(1, len(d.path.segments)):
                    step = self.lookup.lookup_path(d.path, site, n)
                    if step is None or not self.decls[step].definitions or not self.declared_first_round_before(step, (doc, k), depth + 1):
                        return False
            k = d.parent
        return True

    def reaching_object(self, documents: Iterable[int], name: str) -> set[int]:
        """The ``documents`` where a lookup of the definitions (or of the external mixins and
        load-time calls) that mentions ``name`` may reach Object's constants for it. As a
        path's first name: all but those found in a lexical scope's own constants
        (``_first_held``), which find a constant that Object gains or loses in the same place.
        As a later name: only after a name by which a path may lead to Object
        (``names_of_object``), since ``A::Name`` skips Object's constants unless A is
        Object. (Documents share lexical scopes: what each scope holds of ``name`` is read
        once.)"""
        objects = self.names_of_object()
        held: dict[tuple[int, ...], tuple[list[int], int]] = {}
        out: set[int] = set()
        for doc in documents:
            if self._may_reach_object(doc, name, objects, held):
                out.add(doc)
        return out

    def _may_reach_object(self, doc: int, name: str, objects: AbstractSet[str], held: dict[tuple[int, ...], tuple[list[int], int]]) -> bool:
        for path, scope, upto in self.lookup_sites(doc):
            if name not in path.segments:
                continue
            segments = path.segments[:upto]
            if name not in segments:
                continue
            if path.dynamic:
                return True
            for k, segment in enumerate(segments):
                if segment != name:
                    continue
                if k > 0:
                    if segments[k - 1] in objects:
                        return True
                    continue
                if scope is None or path.absolute or name in path.segments[1:]:
                    return True
                if not self._first_held(doc, scope, name, path.start, held=held):
                    return True
        return False

    def names_of_object(self) -> set[str]:
        """The names by which a constant path may lead to Object: ``Object`` and the names of
        constant aliases whose target ends with one of them, whatever they resolve to."""
        return {"Object"} | self.aliases_leading_to({"Object"})

    def prepare_document(self, doc: int) -> None:
        """Build what an update's checks read of ``doc`` (``Documents.prepare_updates``): its
        lookup sites with the lexical scopes they are looked up in, and its table of
        references' last names (``reaching_object``, ``seeing_top_level``)."""
        for _, scope, _ in self.lookup_sites(doc):
            if scope is not None and scope >= 0:
                self.lookup.cref(doc, scope)
        self._ending_with(doc, set())

    def lookup_sites(self, doc: int) -> list[LookupSite]:
        """The constant paths that ``doc``'s definitions look up, each with the scope definition
        where it is looked up (None: outside the definitions, an external mixin or a load-time
        call) and how many of its names are looked up (None: all; the scope part of a compact
        name: all but the last). Kept per document version."""
        result = self.docs[doc]
        cached = self.mention_book.lookup_sites.get(doc)
        if cached is not None and cached[0] is result:
            return cached[1]
        sites: list[LookupSite] = []
        for i, d in enumerate(result.definitions):
            if d.path is not None and len(d.path.segments) > 1:
                sites.append((d.path, d.parent, -1))
            for path in (d.superclass, d.receiver, d.target):
                if path is not None:
                    sites.append((path, d.parent, None))
            for m in (*d.mixins, *d.deferred_mixins):
                if m.target is not None:
                    sites.append((m.target, i if d.lexical else d.parent, None))
        for e in result.external_mixins:
            sites.append((e.target, None, None))
            if e.mixin.target is not None:
                sites.append((e.mixin.target, None, None))
        sites.extend((path, None, None) for path, _ in load_time_paths(result))
        self.mention_book.lookup_sites[doc] = (result, sites)
        return sites

    def _lexical(self, doc: int, scope: int, path: ConstPath) -> bool:
        """Whether the first name of ``path``, written at scope definition ``scope`` of ``doc``,
        is found in a lexical scope's own constants while the file loads (or the path starts at
        Object): the ancestors of the innermost scope are not read."""
        if path.absolute:
            return True
        if path.dynamic or path.segments[0] in path.segments[1:]:
            return False  # (A later name of the same path is looked up elsewhere.)
        return bool(self._first_held(doc, scope, path.segments[0], path.start))

    def _first_held(
        self,
        doc: int,
        scope: int,
        name: str,
        start: int,
        *,
        stop: AbstractSet[int] = frozenset(),
        at_load: bool = True,
        held: dict[tuple[int, ...], tuple[list[int], int]] | None = None,
    ) -> bool | None:
        """Whether a lexical scope's own constants hold ``name``, the first name of a path
        written at ``start`` in scope definition ``scope`` of ``doc``, before a namespace of
        ``stop`` is reached: then neither the innermost scope's ancestors nor Object are
        read. With ``at_load`` (the path runs while the file loads), a constant defined only
        further on does not count (``Lookup.defined_after``). None when the scope is unknown.
        ``held`` (without ``stop``) keeps what each lexical scope holds of ``name``, for many
        documents that share scopes (``reaching_object``)."""
        lookup = self.lookup
        site = lookup.cref(doc, scope)
        if site is None:
            return None
        if held is not None:
            entry = held.get(site)
            if entry is None:
                found = [c for ns in site if (c := lookup.member_constant(ns, name)) is not None]
                entry = held[site] = (found, min((lookup.first_defined_in(c) for c in found), default=MAX_KEY))
            found, earliest = entry
            if not at_load:
                return bool(found)
            # (One found constant defined in an earlier document is there while this one loads.)
            return earliest < doc or any(not lookup.defined_after(c, doc, start) for c in found)
        for ns in site:
            if ns in stop:
                return False
            c = lookup.member_constant(ns, name)
            if c is not None and not (at_load and lookup.defined_after(c, doc, start)):
                return True
        return False

    def _check_first_round(self, doc: int, index: int) -> None:
        """Raises ReplayUnsafe when phase 1 may place the compact name of definition ``index``
        of ``doc`` elsewhere than a lookup now finds: in its first round, a scope is found
        only among what is declared before it in program order (``declared_first_round_before``);
        one that only a later definition or round declares is not, and the name may then
        lead through Object to another namespace."""
        d = self.docs[doc].definitions[index]
        path, site = d.path, self.lookup.cref(doc, d.parent)
        if path is None or site is None:
            return
        for k in range(1, len(path.segments)):
            step = self.lookup.lookup_path(path, site, k)
            if step is not None and self.decls[step].definitions and not self.declared_first_round_before(step, (doc, index)):
                raise ReplayUnsafe(f"the scope of {path.segments[-1]} may be declared after it in phase 1")

    def _check_placed(self, doc: int, answers: Evaluation) -> None:
        """Raises ReplayUnsafe when the scope of a definition of ``doc`` (``class A::B``, ``class
        << A``) now leads elsewhere than where it is declared. Phase 1 placed it with what was
        declared before it in program order, so the two can differ before an edit too (then
        the edit cannot tell whether it moves it): a placeholder declared in a later round
        that an added ``class A`` promotes, and which ``A::B`` would now find in the first."""
        for role, index, found in answers:
            if role != SCOPE or not found or found[-1] is None:
                continue
            decl = self.def_decl[doc][index]
            if decl is None:
                continue
            rec = self.decls[decl]
            if (rec.attached if rec.kind == "SingletonClass" else rec.owner) != found[-1]:
                raise ReplayUnsafe(f"a definition in {self.docs[doc].uri} is declared elsewhere than its scope now leads")

    def check_not_found_through(self, gone: set[int], names: set[str], skip: int, within: Reach | None = None) -> None:
        """Removing ``gone`` changes no other document's lookups when none finds one of them;
        raises ``Detour`` with the documents whose lookups do (those ``within`` lists, for a
        name it holds)."""
        finding = {
            doc
            for doc in sorted(self.documents_mentioning_paths(names, skip, None, within))
            if any(not gone.isdisjoint(answers) for _, _, answers in self.evaluate(doc, names))
        }
        if finding:
            first = self.docs[min(finding)].uri
            raise Detour(f"a constant path in {first} finds a removed declaration", finding)

    def mentioning(self, names: set[str], skip: int) -> dict[int, set[str] | None]:
        """Documents whose references name one of ``names`` -> the names (see ``Refresh``)."""
        return {doc: names for doc in self.documents_mentioning(names, skip)}

    def seeing_top_level(self, names: set[str], skip: int) -> dict[int, set[str] | None]:
        """``mentioning`` for constants newly declared in Object, limited to the documents
        where a reference can find one: those naming one before the last name of a longer
        path where its lookup may reach Object, and those with a reference whose path ends with one and
        whose lookup of it reached Object before it found anything: it found nothing, or a constant of Object or one of its
        ancestors, or it runs while its file loads and passed over what it found (defined only
        further on: ``Lookup.lookup_path_at``). The others found their constant in a lexical
        scope or an ancestor that the lookup reaches before Object, which stays as it was.
        A call receiver is a constant reference too (discovery records both, at the same
        place), and its lookup is the same: its reference decides. A name before the last of
        a longer path decides as ``lookups_kept`` says."""
        found = self.documents_mentioning(names, skip)
        inner: set[int] = set()
        for name in names:
            inner |= self.mention_book.inner_index.get(name, set())
        chain = set(self.lookup.ancestors(self.object_id))
        decls, targets_of = self.decls, self.state.constant_targets
        top = {self.object_id}
        out: dict[int, set[str] | None] = {}
        for doc in found:
            result = self.docs[doc]
            targets = targets_of.get(doc)
            if targets is None or len(targets) != len(result.const_refs) or (doc in inner and not self.lookups_kept(doc, names, top, before_last=True)):
                out[doc] = names
                continue
            refs = result.const_refs
            for i in self._ending_with(doc, names):
                ref, target = refs[i], targets[i]
                segments = ref.path.segments
                # (The last name of a longer path is looked up in one namespace's ancestors,
                # which pass Object's own constants over unless it is Object.)
                if (
                    ref.path.absolute
                    or target is None
                    or target not in decls
                    or decls[target].owner in chain
                    or (len(segments) == 1 and self.lookup.defined_after(target, doc, ref.path.start) and not self.lookup.in_method_body(doc, ref.scope))
                ):
                    out[doc] = names
                    break
        return out

    def lookups_kept(self, doc: int, names: set[str], stop: AbstractSet[int], *, before_last: bool = False, first_names: bool = True) -> bool:
        """Whether no constant reference of ``doc`` (call receivers are references too, at the
        same place) that names one of ``names`` finds, or found, a constant of that name owned
        by a namespace of ``stop`` (one declared there, or deleted from there, by an edit
        elsewhere); ``before_last``: only the names before the last of a longer path are read.
        A later name (``P::N``) is looked up in the namespace P leads to and its ancestors,
        Object's only when P is Object: kept unless those hold a namespace of ``stop``. P is
        looked up as the reference is (``References._constant_reference``); the edit changes
        it only through an earlier name of ``names``, which is checked too. A first name
        (with ``first_names``) is kept when a lexical scope's own constants hold it before a
        namespace of ``stop`` or Object is reached (``_found_before``)."""
        lookup = self.lookup
        first_stop = {self.object_id, *stop}
        refs = self.docs[doc].const_refs
        for i in self._naming(doc, names):
            ref = refs[i]
            segments = ref.path.segments
            ends = len(segments) - 1 if before_last else len(segments)
            if names.isdisjoint(segments[:ends]):
                continue
            if ref.path.dynamic:
                return False
            for k in range(ends):
                if segments[k] not in names:
                    continue
                if k == 0:
                    if first_names and not self._found_before(doc, ref, first_stop):
                        return False
                    continue
                site = lookup.cref(doc, ref.scope)
                if site is None:
                    return False
                if lookup.in_method_body(doc, ref.scope):
                    prefix = lookup.follow(lookup.lookup_path(ref.path, site, k))
                else:
                    prefix = lookup.follow(lookup.lookup_path_at(ref.path, site, doc, ref.path.start, k))
                if prefix is None or not self.decls[prefix].is_namespace:
                    continue  # (The path fails before the name, before and after.)
                held = lookup.constant_ancestors(prefix)
                if any(ns in held and (ns != self.object_id or prefix == self.object_id) for ns in stop):
                    return False
        return True

    def _found_before(self, doc: int, ref: ConstRef, stop: AbstractSet[int]) -> bool:
        """Whether the lookup of the first name of reference ``ref``'s path finds a constant in
        a lexical scope's own constants before it reaches a namespace of ``stop``
        (``_first_held``; while the file loads, not one defined only further on): a constant
        of that name in a namespace of ``stop`` (or beyond) is not seen."""
        path = ref.path
        if path.absolute or path.dynamic or path.segments[0] in path.segments[1:]:
            return False
        at_load = not self.lookup.in_method_body(doc, ref.scope)
        return bool(self._first_held(doc, ref.scope, path.segments[0], path.start, stop=stop, at_load=at_load))

    def _ending_with(self, doc: int, names: set[str]) -> list[int]:
        """The indices of ``doc``'s constant references whose path ends with one of ``names``,
        in order (``_references_by_name``)."""
        return self._references_by_name(doc, names, self.mention_book.last_names, anywhere=False)

    def _naming(self, doc: int, names: set[str]) -> list[int]:
        """The indices of ``doc``'s constant references whose path names one of ``names``
        anywhere, in order (``_references_by_name``)."""
        return self._references_by_name(doc, names, self.mention_book.segment_names, anywhere=True)

    def _references_by_name(self, doc: int, names: set[str], tables: dict[int, tuple[FileResult, dict[str, list[int]]]], *, anywhere: bool) -> list[int]:
        """The indices of ``doc``'s constant references filed under one of ``names`` in its
        table of name -> indices (kept in ``tables`` per document version, made on first
        use): a path is filed under its last name, or with ``anywhere`` under each name."""
        result = self.docs[doc]
        cached = tables.get(doc)
        if cached is None or cached[0] is not result:
            table: dict[str, list[int]] = {}
            for i, ref in enumerate(result.const_refs):
                segments = ref.path.segments
                for name in dict.fromkeys(segments) if anywhere else segments[-1:]:
                    table.setdefault(name, []).append(i)
            cached = tables[doc] = (result, table)
        table = cached[1]
        if len(names) == 1:
            return table.get(next(iter(names)), [])
        return sorted({i for name in names for i in table.get(name, ())})

    def reading_chains(self, names: set[str]) -> dict[int, set[str] | None]:
        """``mentioning`` for the names of namespaces whose chains change: a reference reads a
        chain only when it looks a name up through it (``A::X``: named before the last name of
        a path) or calls a method on it (``A.new``); one whose path ends with the name finds
        the same namespace."""
        names = names | self.aliases_leading_to(names)
        found = self.documents_mentioning(names, -1)
        through: set[int] = set()
        for name in names:
            through |= self.mention_book.inner_index.get(name, set())
            through |= self.mention_book.receiver_index.get(name, set())
        return {doc: names for doc in sorted(found & through)}

    def aliases_leading_to(self, names: set[str]) -> set[str]:
        """The names of the constant aliases whose target path ends with one of ``names``, and
        of those whose target ends with one of theirs (``Y = D``, ``Z = Y``): a reference
        ``Y::X`` looks X up through D's chain. (By name: an alias of another ``D`` only makes
        more references read again.)"""
        out: set[str] = set()
        todo = set(names)
        index = self.mention_index()
        while todo:
            docs: set[int] = set()
            for name in todo:
                docs |= index.get(name, set())
            found = {alias for doc in docs for last, alias in self._alias_targets(doc) if last in todo}
            todo = found - out - names
            out |= todo
        return out

    def _alias_targets(self, doc: int) -> list[tuple[str, str]]:
        """(last name of its target, its name) for each definition of document ``doc`` with both
        (a constant alias), kept per document version."""
        result = self.docs[doc]
        cached = self.mention_book.alias_targets.get(doc)
        if cached is not None and cached[0] is result:
            return cached[1]
        pairs = [
            (d.target.segments[-1], d.path.segments[-1])
            for d in result.definitions
            if d.target is not None and d.path is not None and d.target.segments and d.path.segments
        ]
        self.mention_book.alias_targets[doc] = (result, pairs)
        return pairs

    def unnaming(
        self, names: set[str], owners: AbstractSet[int], skip: int, deleted: AbstractSet[int], targets: Mapping[int, list[int | None]]
    ) -> dict[int, set[str] | None]:
        """``mentioning`` for the names of ``deleted`` declarations (owned by ``owners``),
        limited to the documents where a reference can change
        (``References.store_references``): those naming one of ``names`` before the last name
        of a longer path, unless their lookups provably do not reach a deleted one
        (``lookups_kept``), those with a
        constant reference whose target (``targets``, before the deletion) is deleted, and
        those with a call receiver ending with one of ``names`` whose reference found a
        constant alias (the receiver follows it, perhaps to a deleted declaration). A call
        receiver's lookup is its constant reference's (discovery records both, at the same
        place), so one that found something else keeps it."""
        found = self.documents_mentioning(names, skip)
        inner: set[int] = set()
        receiving: set[int] = set()
        for name in names:
            inner |= self.mention_book.inner_index.get(name, set())
            receiving |= self.mention_book.receiver_index.get(name, set())
        out: dict[int, set[str] | None] = {}
        decls = self.decls
        for doc in found:
            row = targets.get(doc, ())
            if not deleted.isdisjoint(row) or len(row) != len(self.docs[doc].const_refs) or (doc in inner and not self.lookups_kept(doc, names, owners, before_last=True)):
                out[doc] = names
            elif doc in receiving and len(row) == len(self.docs[doc].const_refs):
                for i in self._ending_with(doc, names):
                    target = row[i]
                    if target is not None and (target not in decls or decls[target].kind == "ConstantAlias"):
                        out[doc] = names
                        break
            elif doc in receiving:
                out[doc] = names
        return out

    def loading_documents(self, names: set[str], skip: int, bounds: Bounds | None = None) -> set[int]:
        """Documents (but ``skip``) with a reference that runs while the file loads and whose
        path starts with one of ``names`` (``reference_names``), within ``bounds`` (see
        ``documents_mentioning_paths``)."""
        self.documents_mentioning(set(), skip)  # Brings the indexes up to date.
        return _bounded(self.mention_book.loading_index, names, skip, bounds)

    def documents_mentioning(self, names: set[str], skip: int) -> set[int]:
        """Documents (but ``skip``) with a constant reference or call receiver naming one of
        ``names``, from an index of name -> documents built on first use and kept current."""
        index = self.mention_book.reference_index
        if index is None:
            index = self.mention_book.reference_index = {}
            self.mention_book.deep_index = {}
            self.mention_book.inner_index = {}
            self.mention_book.receiver_index = {}
            self.mention_book.loading_index = {}
            for doc in self.docs:
                self._index_reference_names(doc)
        else:
            for doc in self._stale_reference_docs():
                self._index_reference_names(doc)
        self.mention_book.touched_docs.clear()
        found: set[int] = set()
        for name in names:
            found |= index.get(name, set())
        found.discard(skip)
        return found

    def _stale_reference_docs(self) -> list[int]:
        """Documents replaced since their names were indexed (the index keeps the version)."""
        cache = self.mention_book.reference_names
        return [doc for doc in self.mention_book.touched_docs if doc in self.docs and cache.get(doc, (None,))[0] is not self.docs[doc]]

    def _index_reference_names(self, doc: int) -> None:
        self.forget_reference_names(doc)
        result = self.docs[doc]
        used, deep, loading, inner, receiving = reference_names(result)
        book = self.mention_book
        book.reference_names[doc] = (result, used)
        index = book.reference_index
        assert index is not None
        for names, by_name in (
            (used, index), (deep, book.deep_index), (loading, book.loading_index), (inner, book.inner_index), (receiving, book.receiver_index)
        ):
            for name in names:
                by_name.setdefault(name, set()).add(doc)

    def forget_reference_names(self, doc: int) -> None:
        self.mention_book.last_names.pop(doc, None)
        entry = self.mention_book.reference_names.pop(doc, None)
        index = self.mention_book.reference_index
        if entry is not None and index is not None:
            for name in entry[1]:
                docs = index.get(name)
                if docs is not None:
                    docs.discard(doc)
            _, deep, loading, inner, receiving = reference_names(entry[0])
            book = self.mention_book
            for names, by_name in ((deep, book.deep_index), (loading, book.loading_index), (inner, book.inner_index), (receiving, book.receiver_index)):
                for name in names:
                    docs = by_name.get(name)
                    if docs is not None:
                        docs.discard(doc)


def written_at_top(d: DefinitionRecord) -> bool:
    """Whether ``d`` is a ``class``/``module`` body whose namespace Ruby finds through Object's
    ancestors (``Mentions.object_mixin_conflict``): one written at the top level under a
    one-segment name (``class Foo``), or anywhere as ``class ::Foo``."""
    return d.kind in ("Class", "Module") and d.path is not None and len(d.path.segments) == 1 and (d.parent < 0 or d.path.absolute)


def _bounded(index: dict[str, set[int]], names: set[str], skip: int, bounds: Bounds | None) -> set[int]:
    """The documents ``index`` lists for ``names`` (but ``skip``), those of a name with a bound
    in ``bounds`` only up to that key."""
    out: set[int] = set()
    for name in names:
        docs = index.get(name)
        if not docs:
            continue
        bound = bounds.get(name) if bounds is not None else None
        if bound is None:
            out |= docs
        else:
            out.update(doc for doc in docs if doc <= bound)
    out.discard(skip)
    return out


def reference_names(result: FileResult) -> tuple[set[str], set[str], set[str], set[str], set[str]]:
    """The names a document's references use, in one pass over them: every name of their
    paths (constant references and call receivers); the names after the first of a path
    (a call receiver's are its constant reference's, recorded at the same place); the first names of the paths of references that run
    while the file loads (outside method bodies), whose answer depends on whether that
    constant is defined yet (``Lookup.lookup_path_at``); the names where deleting a
    declaration of that name can change what they find even when they did not find it: not
    the last of a longer path (``A::B`` finds ``B`` in another ``A``); and the last names of
    call receivers, kept apart: a receiver's lookup is its constant reference's (discovery
    records both, at the same place), but it follows a constant alias at its end. The last
    name of a constant path is looked up in one namespace's ancestors, where deleting
    another constant changes nothing."""
    defs = result.definitions
    in_body: dict[int, bool] = {}

    def at_load(scope: int) -> bool:
        if scope not in in_body:
            s = scope
            while s >= 0 and defs[s].kind != "Method":
                s = defs[s].parent
            in_body[scope] = s >= 0
        return not in_body[scope]

    used: set[str] = set()
    deep: set[str] = set()
    inner: set[str] = set()
    receiving: set[str] = set()
    loading: set[str] = set()
    for ref in result.const_refs:
        segments = ref.path.segments
        if not segments:
            continue
        used.update(segments)
        if len(segments) > 1:
            deep.update(segments[1:])
            inner.update(segments[:-1])
        if at_load(ref.scope):
            loading.add(segments[0])
    for call in result.method_refs:
        receiver = call.receiver
        if receiver is None or not receiver.segments:
            continue
        used.update(receiver.segments)
        inner.update(receiver.segments[:-1])
        receiving.add(receiver.segments[-1])
        if at_load(call.scope):
            loading.add(receiver.segments[0])
    return used, deep, loading, inner, receiving
