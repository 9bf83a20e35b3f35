"""Public read-only views over a resolved graph: Declaration, Definition, Location, references.

These are the project's own records returned by the API. They hold a reference to the
resolved state they came from and ids into it, never tree-sitter objects or mutable store
internals. A view stays valid (describing the graph as it was) after later changes; callers
compare ``revision`` to tell whether an answer is stale.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdx.model.declarations import DeclarationRecord
from rdx.model.foreign import ForeignState
from rdx.model.ids import declaration_id
from rdx.model.kinds import DeclarationKind
from rdx.model.public import DeclarationSummary, DefinitionSummary, Diagnostic, Location, MemberSummary, Mixin
from rdx.model.records import DefinitionRecord
from rdx.model.store import CORE_URI, ResolvedState
from rdx.model.text import offset_to_position
from rdx.ruby.resolve.lookup import Lookup

if TYPE_CHECKING:
    from rdx.languages.view import ForeignView

__all__ = [
    "Declaration",
    "DeclarationSummary",
    "Definition",
    "DefinitionSummary",
    "Diagnostic",
    "Location",
    "MemberSummary",
    "Mixin",
    "View",
]


class View:
    """Read access to one published resolved state; every public record of a graph holds one.

    A state never changes once published, so every answer a view gives stays true of its
    revision. What a view builds for its questions (indexes, a ``Lookup`` with its caches,
    singleton classes that no code opens) is its own and never written into the state."""

    __slots__ = (
        "_aliases", "_call_sites", "_descendants", "_document_keys", "_foreign", "_lookup", "_site_names", "_virtual", "_virtual_of", "foreign_source", "foreign_view", "map_graph", "prefix_refs", "revision",
        "search_index", "state", "symbol_index",
    )

    def __init__(self, state: ResolvedState, revision: int) -> None:
        self.state = state
        self.revision = revision
        self._lookup: Lookup | None = None
        # Singleton classes that no code opens (``Foo::<Foo>::<<Foo>>``): Ruby has one for every
        # namespace, so a question about one gets a record built here, with its chain.
        self._virtual: dict[int, tuple[DeclarationRecord, tuple[int, ...]]] = {}
        self._virtual_of: dict[int, int] = {}
        self._descendants: dict[int, list[int]] | None = None
        # Built by the first search of this state (see rdx.search.names.SearchIndex).
        self.search_index: Any = None
        # Built by the first ranked search of this state (see rdx.search.ranked.SymbolIndex).
        self.symbol_index: Any = None
        self._call_sites: dict[str, array[int]] | None = None
        self._aliases: list[int] | None = None
        self._document_keys: dict[str, int] | None = None
        # The other languages' resolved side (``rdx.languages.resolve``), computed on the first
        # question about them by ``foreign_source`` (set by the graph that publishes the view).
        self.foreign_source: Callable[[], ForeignState] | None = None
        # What wraps that state for questions (``rdx.languages.view.ForeignView``, set by the
        # same graph: that module builds on this one, so this one does not import it).
        self.foreign_view: Callable[[ForeignState, View], ForeignView] | None = None
        self._foreign: Any = None
        # Built by the first repository map of this state (see rdx.map.mapgraph.MapGraph).
        self.map_graph: Any = None
        # Prefixes of resolved constant paths, by the namespace they name (rdx.ruby.query.navigation).
        self.prefix_refs: Any = None

    def document_key(self, uri: str) -> int | None:
        """The key of the document of ``uri`` in this state (an index built on first use)."""
        if self._document_keys is None:
            self._document_keys = {result.uri: key for key, result in self.state.documents.items()}
        return self._document_keys.get(uri)

    @property
    def foreign(self) -> ForeignView:
        """The declarations of languages other than Ruby in this revision (see ``rdx.languages.view``)."""
        if self._foreign is None:
            if self.foreign_view is None:
                raise RuntimeError("a View's foreign_view is set by the graph that publishes it")
            state = self.foreign_source() if self.foreign_source is not None else ForeignState()
            self._foreign = self.foreign_view(state, self)
        return self._foreign  # type: ignore[no-any-return]

    def retire(self) -> None:
        """Called by the graph when a newer revision replaces this one: drop the foreign view,
        which points back at this view. With the collector frozen (``Graph.open(freeze_gc=
        True)``) that cycle would never be collected, and every edit would leak a revision.
        A holder of this view that asks again gets the foreign view computed anew."""
        self._foreign = None

    def adopt(self, state: ResolvedState) -> None:
        """Answer from ``state`` from now on: a state equal to this view's, declaration for
        declaration and row for row (the resolver's own copy of a restored image), so every
        answer stays what it was."""
        self.state = state
        self._lookup = None

    def unbind(self) -> None:
        """Called by the graph when an update made a successor of this view's state: the
        state's tables became ``Earlier`` views of the shared ones (``rdx.model.versions``),
        and the lookup built over the tables themselves is built again when next asked."""
        self._lookup = None

    @property
    def foreign_ready(self) -> ForeignState | None:
        """The foreign state if a question already computed it (else None, nothing computed)."""
        return self._foreign.state if self._foreign is not None else None

    def origin(self, decl_id: int) -> str:
        """Where a declaration comes from: ``"project"`` when any of its definitions is in the
        project's files, else ``"dependency"`` (a gem's files, see rdx.workspace.dependencies) when any
        is there, else ``"core"`` (rdx's stub of Ruby's core; also for a declaration without
        definitions)."""
        rec = self.state.declarations.get(decl_id)
        if rec is None:
            return "project"  # another language's declaration: dependencies are Ruby's only
        documents = self.state.documents
        origin = "core"
        for doc, _ in rec.definitions:
            result = documents[doc]
            if result.library is not None:
                origin = "dependency"
            elif result.uri != CORE_URI:
                return "project"
        return origin

    def location(self, doc: int, start: int, end: int) -> Location:
        result = self.state.documents[doc]
        starts = result.line_starts
        sl, sc = offset_to_position(starts, start)
        el, ec = offset_to_position(starts, end)
        return Location(result.path or result.uri, sl, sc, el, ec, result.uri)

    @property
    def has_own_indexes(self) -> bool:
        """Whether a question built big indexes that stay with this view (search, call sites,
        descendants, the map's graph); the ranked-search symbol index is not one of them: an
        incremental resolve moves it on to the next revision."""
        return self.search_index is not None or self._call_sites is not None or self._descendants is not None or self.map_graph is not None

    @property
    def lookup(self) -> Lookup:
        """Constant and member lookup over this state (pure reads, caches of its own)."""
        if self._lookup is None:
            self._lookup = Lookup(self.state)
        return self._lookup

    def declaration(self, decl_id: int | None) -> Declaration | None:
        if decl_id is None or (decl_id not in self.state.declarations and decl_id not in self._virtual):
            return None
        return Declaration(self, decl_id)

    def record(self, decl_id: int) -> DeclarationRecord:
        rec = self.state.declarations.get(decl_id)
        return rec if rec is not None else self._virtual[decl_id][0]

    def chain(self, decl_id: int) -> tuple[int, ...]:
        """Linearized ancestors of a declaration of this state (or of a virtual singleton)."""
        chain = self.state.ancestors.get(decl_id)
        if chain is not None:
            return chain
        virtual = self._virtual.get(decl_id)
        return virtual[1] if virtual is not None else (decl_id,)

    def singleton_of(self, decl_id: int) -> int | None:
        """The singleton class of a namespace. One that the graph does not hold (no code opens
        it) is built for this view alone, with Ruby's chain: itself, then the singleton class
        of the attached namespace's superclass (``Class`` above ``BasicObject``'s, ``Module``
        for modules)."""
        rec = self.record(decl_id)
        if rec.singleton is not None:
            return rec.singleton
        if not rec.is_namespace:
            return None
        known = self._virtual_of.get(decl_id)
        if known is not None:
            return known
        by_name = self.state.by_name
        if rec.kind == DeclarationKind.SINGLETON_CLASS:
            sup = self.singleton_of(rec.superclass) if rec.superclass is not None else by_name.get("Class")
        elif rec.kind == DeclarationKind.CLASS and rec.superclass is not None:
            sup = self.singleton_of(rec.superclass)
        elif rec.kind == DeclarationKind.CLASS:  # BasicObject: its singleton class is a Class
            sup = by_name.get("Class")
        else:
            sup = by_name.get("Module")
        name = f"{rec.name}::<{rec.unqualified}>"
        single = DeclarationRecord(declaration_id(name), name, f"<{rec.unqualified}>", DeclarationKind.SINGLETON_CLASS, decl_id, superclass=sup, attached=decl_id)
        chain = (single.id, *(self.chain(sup) if sup is not None else ()))
        self._virtual[single.id] = (single, chain)
        self._virtual_of[decl_id] = single.id
        return single.id

    def descendants(self) -> dict[int, list[int]]:
        if self._descendants is None:
            out: dict[int, list[int]] = {}
            for decl_id, chain in self.state.ancestors.items():
                for anc in chain:
                    if anc != decl_id:
                        out.setdefault(anc, []).append(decl_id)
            self._descendants = out
        return self._descendants

    def constant_aliases(self) -> list[int]:
        """Ids of every constant alias declaration (``AL = Foo``) of this state."""
        if self._aliases is None:
            self._aliases = [d for d, rec in self.state.declarations.items() if rec.kind == "ConstantAlias"]
        return self._aliases

    def call_sites(self, name: str) -> list[tuple[int, int]]:
        """(document, method reference index) of every call of a method named ``name``, in
        document order; the index is built by the first question of this state. It holds one
        machine integer per call, ``document << 32 | index`` (document keys are below 2**32,
        ``rdx.ruby.resolve.order``): a pair of Python ints per call would cost a large
        project a few hundred megabytes (issue 21)."""
        if self._call_sites is None:
            sites: dict[str, array[int]] = {}
            for doc, result in self.state.documents.items():
                base = doc << 32
                for i, ref in enumerate(result.method_refs):
                    found = sites.get(ref.name)
                    if found is None:
                        sites[ref.name] = array("Q", (base | i,))
                    else:
                        found.append(base | i)
            self._call_sites = sites
        packed = self._call_sites.get(name)
        return [(site >> 32, site & 0xFFFFFFFF) for site in packed] if packed is not None else []

    def nesting_text(self, doc: int, index: int, inclusive: bool = False) -> list[str]:
        """Lexical scopes around definition ``index`` as written, outermost first (``index``
        itself included when ``inclusive``, as for the scope of a reference)."""
        defs = self.state.documents[doc].definitions
        out: list[str] = []
        if index < 0:
            return out
        i = index if inclusive else defs[index].parent
        while i >= 0:
            d = defs[i]
            if d.kind in ("Class", "Module") and d.lexical and d.path is not None:
                out.append(d.path.text)
            elif d.kind == "SingletonClass":
                out.append(f"<<{d.name}>>")
            i = d.parent
        out.reverse()
        return out


class Indexed:
    """A view of the ``index``-th record of one kind in document ``doc`` (definitions here,
    references in ``rdx.ruby.query.documents``)."""

    __slots__ = ("_doc", "_index", "_view")

    def __init__(self, view: View, doc: int, index: int) -> None:
        self._view = view
        self._doc = doc
        self._index = index

    @property
    def revision(self) -> int:
        """The graph revision this answer describes; compare with ``Graph.revision``."""
        return self._view.revision


class Definition(Indexed):
    """One definition at one place, with what discovery saw there."""

    __slots__ = ()

    @property
    def _record(self) -> DefinitionRecord:
        return self._view.state.documents[self._doc].definitions[self._index]

    @property
    def id(self) -> int:
        return self._record.id

    @property
    def kind(self) -> str:
        return self._record.kind

    @property
    def name(self) -> str:
        return self._record.name

    @property
    def location(self) -> Location:
        r = self._record
        return self._view.location(self._doc, r.start, r.end)

    @property
    def name_location(self) -> Location:
        r = self._record
        return self._view.location(self._doc, r.name_start, r.name_end)

    @property
    def uri(self) -> str:
        return self._view.state.documents[self._doc].uri

    @property
    def comments(self) -> list[str]:
        return list(self._record.comments)

    @property
    def lexical_nesting(self) -> list[str]:
        return self._view.nesting_text(self._doc, self._index)

    @property
    def superclass(self) -> str | None:
        sup = self._record.superclass
        return sup.text if sup is not None else None

    @property
    def mixins(self) -> list[Mixin]:
        return [Mixin(m.kind, m.target.text if m.target is not None else "self") for m in self._record.mixins]

    @property
    def visibility(self) -> str:
        return self._record.visibility

    @property
    def signature(self) -> str | None:
        return self._record.params

    @property
    def target(self) -> str | None:
        """For ConstantAlias: the aliased constant as written; for aliases of methods and globals: the old name."""
        r = self._record
        if r.target is not None:
            return r.target.text
        return r.old_name

    @property
    def declaration(self) -> Declaration | None:
        return self._view.declaration(self._view.state.definition_declarations[self._doc][self._index])

    def __repr__(self) -> str:
        return f"<Definition {self.kind} {self.name} at {self.location}>"


NAMESPACE_KINDS = ("Class", "Module", "SingletonClass", "Todo")


class Declaration:
    """A fully qualified entity with all its definitions (Rubydex's naming)."""

    __slots__ = ("_seen_visibility", "_view", "id")

    def __init__(self, view: View, decl_id: int, seen_visibility: str | None = None) -> None:
        self._view = view
        self.id = decl_id
        # The visibility of the entry a lookup found, when it differs from this method's own
        # (``private :m`` in a subclass; see ``find_member``).
        self._seen_visibility = seen_visibility

    @property
    def revision(self) -> int:
        """The graph revision this answer describes; compare with ``Graph.revision``."""
        return self._view.revision

    @property
    def _rec(self) -> DeclarationRecord:
        return self._view.record(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Declaration) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<Declaration {self.kind} {self.name}>"

    @property
    def name(self) -> str:
        return self._rec.name

    @property
    def unqualified_name(self) -> str:
        return self._rec.unqualified

    @property
    def kind(self) -> str:
        return self._rec.kind

    @property
    def visibility(self) -> str:
        rec = self._rec
        if rec.kind == "Method":
            return self._seen_visibility or rec.visibility
        return "private" if rec.private else "public"

    @property
    def definitions(self) -> list[Definition]:
        return [Definition(self._view, doc, index) for doc, index in self._rec.definitions]

    @property
    def origin(self) -> str:
        """``"project"``, ``"dependency"`` (defined only in gems' files) or ``"core"``."""
        return self._view.origin(self.id)

    @property
    def location(self) -> Location | None:
        defs = self._rec.definitions
        if not defs:
            return None
        return Definition(self._view, *defs[0]).location

    @property
    def comments(self) -> list[str]:
        out: list[str] = []
        for d in self.definitions:
            out.extend(d.comments)
        return out

    @property
    def owner(self) -> Declaration | None:
        return self._view.declaration(self._rec.owner)

    @property
    def members(self) -> list[Declaration]:
        decls = self._view.state.declarations
        return [Declaration(self._view, m) for _, m in sorted(self._rec.members.items()) if m in decls and m != self.id]

    def member(self, name: str) -> Declaration | None:
        return self._view.declaration(self._rec.members.get(name))

    def find_member(self, name: str, only_inherited: bool = False) -> Declaration | None:
        """Look ``name`` (``bar()``, ``Baz``, ``@x``) up through the ancestors, as Ruby would.

        ``only_inherited`` starts behind this namespace in its own chain (``super`` from one of
        its methods: past the modules prepended to it). A method entry that only changes
        visibility (``private :m`` for an inherited ``m``) answers with the method it copies,
        seen with the entry's visibility, as ``instance_method`` does."""
        return self._find_member(name, self.id if only_inherited else None)

    def find_member_after(self, name: str, after: Declaration) -> Declaration | None:
        """``find_member`` starting behind ``after`` in this namespace's chain (``super`` from a
        method of a prepended or included module); None when ``after`` is not in the chain."""
        return self._find_member(name, after.id)

    def _find_member(self, name: str, start_after: int | None) -> Declaration | None:
        view = self._view
        chain = view.chain(self.id)
        if name[:1] not in ("@", "$") and not name.endswith(")") and chain and chain[0] != self.id:
            # Constants live in the namespace's own table, ahead of its prepended modules.
            chain = (self.id, *(a for a in chain if a != self.id))
        start = 0
        if start_after is not None:
            if start_after not in chain:
                return None
            start = chain.index(start_after) + 1
        entry: int | None = None
        for anc in chain[start:]:
            found = view.record(anc).members.get(name)
            if found is None:
                continue
            if view.record(found).visibility == "undefined":
                return None  # ``undef``: the lookup stops here.
            if entry is None:
                entry = found
            if not name.endswith(")") or not view.lookup.is_visibility_copy(found):
                return Declaration(view, found, view.record(entry).visibility if entry != found else None)
        return None

    @property
    def ancestors(self) -> list[Declaration]:
        return [Declaration(self._view, a) for a in self._view.chain(self.id)]

    @property
    def descendants(self) -> list[Declaration]:
        decls = self._view.state.declarations
        ids = self._view.descendants().get(self.id, [])
        return sorted((Declaration(self._view, d) for d in ids), key=lambda d: decls[d.id].name)

    @property
    def superclass(self) -> Declaration | None:
        return self._view.declaration(self._rec.superclass)

    @property
    def singleton_class(self) -> Declaration | None:
        """The singleton class; Ruby has one for every namespace, singleton classes included.
        One that no code opens is built for the view that asks (see ``View.singleton_of``);
        the graph itself never changes for a question."""
        return self._view.declaration(self._view.singleton_of(self.id))

    def summary(self, members: bool = True) -> DeclarationSummary:
        """This declaration as plain data (see ``DeclarationSummary``)."""
        kind = self.kind
        owner = self.owner
        target = self.target if kind == "ConstantAlias" else None
        return DeclarationSummary(
            name=self.name,
            kind=kind,
            revision=self.revision,
            owner=owner.name if owner is not None and owner.id != self.id else None,
            visibility=self.visibility if kind == "Method" else None,
            target=target.name if target is not None else None,
            definitions=[DefinitionSummary(d.kind, d.location, d.comments, d.signature) for d in self.definitions],
            ancestors=[a.name for a in self.ancestors] if kind in NAMESPACE_KINDS else [],
            members=[MemberSummary(m.name, m.unqualified_name, m.kind, m.location) for m in self.members] if members else [],
            origin=self.origin,
        )

    @property
    def attached_object(self) -> Declaration | None:
        return self._view.declaration(self._rec.attached)

    @property
    def target(self) -> Declaration | None:
        """For a ConstantAlias: the declaration it names (after following chains)."""
        if self._rec.kind != "ConstantAlias":
            return None
        return self._view.declaration(self._view.lookup.follow(self.id))
