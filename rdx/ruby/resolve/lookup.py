"""Lookups: pure reads over declarations and ancestor chains, shared by resolution and queries."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Iterable
from typing import Protocol

from rdx.model.records import ConstPath
from rdx.model.store import ResolvedState
from rdx.ruby.resolve.order import LoadOrder, first_require_after
from rdx.ruby.resolve.vocabulary import (
    CONSTANT_KINDS,
    MAX_ALIAS_HOPS,
    NAMESPACE_DEF_KINDS,
    Site,
)


class LookupCaches:
    """What lookups remember (owned by this module): per document, each scope definition's
    lexical scopes; alias targets; constant lookups by name and site; the chains returned while
    still in progress (provisional: nothing computed from them is cached; only resolution
    adds to it, see ``Ancestors``); URI -> document key, built on first use."""

    __slots__ = ("alias_cache", "crefs", "lookup_cache", "order_source", "partial_hits", "requires_after", "uri_keys")
    HELD_AS = "caches"

    def __init__(self, documents: Iterable[int]) -> None:
        # Per document key, the scopes found so far (a document appears when one is cached:
        # forgetting them all is one ``clear``, whatever the number of documents).
        self.crefs: dict[int, dict[int, Site]] = {}
        self.alias_cache: dict[int, int | None] = {}
        # name -> site -> what an unqualified lookup of the name there found.
        self.lookup_cache: dict[str, dict[Site, int | None]] = {}
        self.partial_hits: list[int] = []
        self.uri_keys: dict[str, int] | None = None
        # The documents' load order, built on demand (``Lookup.use_load_order``).
        self.order_source: Callable[[], LoadOrder] | None = None
        # Per document key, where its first require read after it is (``first_require_after``;
        # -1 for none), found on first use.
        self.requires_after: dict[int, int] = {}

    def forget_lookups(self) -> None:
        """Drop the cached constant lookups and alias targets (declarations or chains changed)."""
        self.lookup_cache.clear()
        self.alias_cache.clear()

    def forget_alias(self, decl_id: int) -> None:
        """Drop the cached target of constant ``decl_id`` (an assignment was attached to it:
        while phase 1 runs in program order, an alias names what its assignments so far make
        it name, whichever lookup followed it first)."""
        self.alias_cache.pop(decl_id, None)

    def forget_name(self, name: str) -> None:
        """Drop the cached lookups of ``name`` (a constant of that name was declared: as Ruby
        runs the definitions in order, a lookup after it finds it where it is visible)."""
        self.lookup_cache.pop(name, None)

    def forget_constant_lookups(self) -> None:
        """Drop the cached constant lookups (a placeholder was declared)."""
        self.lookup_cache.clear()

    def forget_scopes_in(self, documents: Iterable[int]) -> None:
        """Drop the cached lexical scopes of ``documents`` (a declaration that definitions of
        theirs name is going)."""
        for doc in documents:
            self.crefs.pop(doc, None)

    def open_document(self, key: int, uri: str | None) -> None:
        """Document ``key`` is new or replaced: no scope of it is known yet."""
        self.crefs.pop(key, None)
        self.requires_after.pop(key, None)
        if uri is not None and self.uri_keys is not None:
            self.uri_keys[uri] = key

    def close_document(self, key: int, uri: str) -> None:
        self.crefs.pop(key, None)
        self.requires_after.pop(key, None)
        if self.uri_keys is not None:
            self.uri_keys.pop(uri, None)

    def note_partial(self, decl_id: int) -> None:
        """A chain still being computed was returned (whatever it serves is provisional)."""
        self.partial_hits.append(decl_id)

    def settle_partial(self, since: int, decl_id: int) -> bool:
        """Close the frame of ``decl_id``'s chain, begun when ``since`` partial hits were
        recorded: True when its result is final (only its own chain was seen partial); other
        hits stay provisional for the frames that use this one."""
        hits = self.partial_hits[since:]
        del self.partial_hits[since:]
        others = [h for h in hits if h != decl_id]
        if others:
            self.partial_hits.extend(others)
            return False
        return True


class ChainSource(Protocol):
    """What lookups need from ancestor chains: the linearized ancestors of a declaration
    (itself alone when it has none)."""

    def ancestors(self, decl_id: int) -> tuple[int, ...]: ...


class ChainCache(Protocol):
    """What a pass that changes declarations needs from the chains computed so far: to drop
    them all (with every lookup cached from them), or one."""

    def invalidate(self, keep_concerns: bool = False) -> None: ...

    def drop_chain(self, decl_id: int) -> None: ...


class PublishedChains:
    """The chains of a published state, as they are (queries compute none)."""

    __slots__ = ("published",)

    def __init__(self, state: ResolvedState) -> None:
        self.published = state

    def ancestors(self, decl_id: int) -> tuple[int, ...]:
        return self.published.ancestors.get(decl_id, (decl_id,))


class StateView:
    """The tables of one resolved state, bound as attributes (every lookup and pass reads
    them on hot paths): the state, its documents, declarations, names, definition ->
    declaration rows and Object's id. Bound only here (``read``); written into only by
    ``builder`` (see ``test_resolution_state_has_one_writer``)."""

    VIEW = ("by_name", "decls", "def_decl", "docs", "object_id", "state")

    def read(self, state: ResolvedState) -> None:
        """Read ``state`` from now on."""
        self.state = state
        self.docs = state.documents
        self.decls = state.declarations
        self.by_name = state.by_name
        self.def_decl = state.definition_declarations
        self.object_id = state.object_id


class Binding:
    """The state a resolution builds, and the passes that read it: when an update makes a
    new state, ``read`` binds every pass to it. Passes are held weakly, so that a pass, which
    holds its binding, makes no reference cycle with it (a dropped resolver goes at once,
    even with the collector frozen)."""

    __slots__ = ("readers", "state")

    def __init__(self, state: ResolvedState) -> None:
        self.state = state
        self.readers: list[weakref.ref[StateView]] = []

    def join(self, reader: StateView) -> None:
        """``reader`` reads the state being built, now and after every ``read``."""
        self.readers.append(weakref.ref(reader))
        reader.read(self.state)

    def read(self, state: ResolvedState) -> None:
        """Every pass reads ``state`` from now on."""
        self.state = state
        for ref in self.readers:
            reader = ref()
            if reader is not None:
                reader.read(state)


class Lookup(StateView):
    """Scopes, constant lookup, alias following and member lookup over one resolved state.

    Reads only: a lookup never declares or changes a record, so one built over a published
    state (``Lookup(state)``) answers the same forever, whatever later revisions do. Its
    caches are its own. It reads chains through a ``ChainSource``: by default the published
    state's; a resolver's lookup reads the state being built (it joins the resolver's
    ``Binding``), with a source that computes chains on demand (``ancestors.Linearization``)."""

    def __init__(self, state: ResolvedState, chains: ChainSource | None = None) -> None:
        self.read(state)
        self.caches = LookupCaches(state.documents)
        self.use_chains(chains if chains is not None else PublishedChains(state))

    def use_load_order(self, source: Callable[[], LoadOrder]) -> None:
        """Read the documents' load order from ``source`` (called when first needed, see
        ``defined_after``); without one, the order of documents is not known."""
        self.caches.order_source = source

    def use_chains(self, chains: ChainSource) -> None:
        """Read ancestor chains from ``chains`` from now on."""
        # The source's own bound method: ``ancestors`` is called on every constant lookup.
        self.ancestors: Callable[[int], tuple[int, ...]] = chains.ancestors

    def _scope_decl(self, doc: int, index: int) -> int | None:
        return self.def_decl[doc][index] if index >= 0 else self.object_id

    def cref(self, doc: int, index: int) -> Site | None:
        """Lexical scopes at a scope definition (innermost first); None if not yet declared."""
        crefs = self.caches.crefs.get(doc)
        if crefs is None:
            crefs = self.caches.crefs[doc] = {}
        cached = crefs.get(index)
        if cached is not None:
            return cached
        defs = self.docs[doc].definitions
        out: list[int] = []
        i = index
        while i >= 0:
            d = defs[i]
            if d.kind in NAMESPACE_DEF_KINDS and d.lexical:
                decl = self.def_decl[doc][i]
                if decl is None:
                    return None
                out.append(decl)
            i = d.parent
        site = tuple(out)
        crefs[index] = site
        return site

    def namespace_owner(self, doc: int, index: int) -> int | None:
        """Where methods defined at scope ``index`` go: the nearest namespace, lexical or not."""
        defs = self.docs[doc].definitions
        i = index
        while i >= 0:
            d = defs[i]
            if d.kind in NAMESPACE_DEF_KINDS:
                return self.def_decl[doc][i]
            i = d.parent
        return self.object_id

    def self_class(self, doc: int, index: int) -> int | None:
        """The declaration whose instances ``self`` is at scope ``index`` (where ``foo`` looks);
        None where that is a singleton class that does not exist."""
        if index < 0:
            return self.object_id
        d = self.docs[doc].definitions[index]
        if d.kind == "Method":
            method = self.def_decl[doc][index]
            return self.decls[method].owner if method is not None else None
        decl = self.def_decl[doc][index]
        if decl is None:
            return None
        if d.kind in NAMESPACE_DEF_KINDS:
            return self.decls[decl].singleton
        return self.namespace_owner(doc, d.parent)

    def follow(self, decl_id: int | None) -> int | None:
        """Follow constant aliases to the declaration they name (None on a cycle or miss)."""
        hops = 0
        while decl_id is not None:
            rec = self.decls[decl_id]
            if rec.kind != "ConstantAlias":
                return decl_id
            if hops > MAX_ALIAS_HOPS:
                return None
            decl_id = self.alias_target(decl_id)
            hops += 1
        return None

    def alias_target(self, decl_id: int) -> int | None:
        cache = self.caches.alias_cache
        if decl_id in cache:
            return cache[decl_id]
        cache[decl_id] = None  # Guards cycles while resolving.
        rec = self.decls[decl_id]
        target = None
        # The value a constant holds is its last assignment in load order (Ruby warns "already
        # initialized constant" and reassigns): the definitions are in that order.
        for doc, index in reversed(rec.definitions):
            d = self.docs[doc].definitions[index]
            if d.kind == "Constant":
                break  # Last assigned something else than a namespace.
            if d.kind == "ConstantAlias" and d.target is not None:
                site = self.cref(doc, d.parent)
                if site is not None:
                    # ``X = Y`` runs while the file loads: a Y defined further down is not there.
                    target = self.lookup_path_at(d.target, site, doc, d.target.start)
                    if target == decl_id:
                        target = None
                    break
        cache[decl_id] = target
        return target

    def member_constant(self, ns: int, name: str) -> int | None:
        m = self.decls[ns].members.get(name)
        if m is not None and self.decls[m].kind in CONSTANT_KINDS:
            return m
        return None

    def constant_ancestors(self, ns: int) -> list[int]:
        """Where constants are looked up through ``ns``'s ancestry: the namespace itself first
        (it holds its constant table even when modules are prepended), then the rest in order."""
        chain = self.ancestors(ns)
        if chain and chain[0] == ns:
            return list(chain)
        return [ns] + [a for a in chain if a != ns]

    def lookup_lexical(self, name: str, site: Site, exclude: Collection[int] = ()) -> int | None:
        """Unqualified constant lookup: lexical scopes, ancestors of the innermost, Object;
        the constants in ``exclude`` are passed over (the lookup goes on behind them)."""
        caches = self.caches
        cache = caches.lookup_cache.get(name)
        if not exclude and cache is not None and site in cache:
            return cache[site]
        partial = caches.partial_hits
        hits_before = len(partial)
        result = None
        for ns in site:
            result = self.member_constant(ns, name)
            if result is not None and result not in exclude:
                break
            result = None
        if result is None:
            inner = site[0] if site else self.object_id
            scopes = self.constant_ancestors(inner)
            if self.decls[inner].kind != "Class" and self.decls[inner].kind != "SingletonClass":
                scopes.extend(self.ancestors(self.object_id))
            for anc in scopes:
                result = self.member_constant(anc, name)
                if result is not None and result not in exclude:
                    break
                result = None
        if not exclude and len(partial) == hits_before:
            if cache is None:
                cache = caches.lookup_cache[name] = {}
            cache[site] = result
        return result

    def lookup_scoped(self, ns: int, name: str) -> int | None:
        """``Ns::Name``: Ns and its ancestors, skipping Object unless Ns is Object; private hidden."""
        obj = self.object_id
        for anc in self.constant_ancestors(ns):
            if anc == obj and ns != obj:
                continue
            m = self.member_constant(anc, name)
            if m is not None:
                if self.decls[m].private:
                    return None
                return m
        return None

    def lookup_path(self, path: ConstPath, site: Site, upto: int | None = None) -> int | None:
        """Resolve ``path`` (its first ``upto`` segments) at ``site``; aliases are followed between
        segments, not at the end."""
        segments = path.segments if upto is None else path.segments[:upto]
        if not segments or path.dynamic:
            return None
        if path.absolute:
            current = self.member_constant(self.object_id, segments[0])
            if current is None:
                current = self.lookup_scoped(self.object_id, segments[0])
        else:
            current = self.lookup_lexical(segments[0], site)
        for seg in segments[1:]:
            ns = self.follow(current)
            if ns is None or not self.decls[ns].is_namespace:
                return None
            current = self.lookup_scoped(ns, seg)
        return current

    def lookup_namespace(self, path: ConstPath, site: Site, upto: int | None = None) -> int | None:
        found = self.follow(self.lookup_path(path, site, upto))
        if found is not None and self.decls[found].is_namespace:
            return found
        return None

    def lookup_path_at(self, path: ConstPath, site: Site, doc: int, offset: int, upto: int | None = None, hidden: int | None = None) -> int | None:
        """``lookup_path`` as Ruby runs it while loading document ``doc``, at ``offset``.

        The first segment passes over constants that only this document defines, further
        down (``defined_after``), and ``hidden``: a class whose superclass is being looked up
        (``class Foo < Foo`` evaluates the superclass before Foo exists). The lookup goes on
        behind them, lexical scopes outward, then ancestors. When nothing else is found the
        plain answer stands for a constant defined further down (Ruby would raise NameError;
        the constant is the more useful answer), and None for a hidden one."""
        segments = path.segments if upto is None else path.segments[:upto]
        if not segments or path.dynamic or path.absolute:
            return self.lookup_path(path, site, upto)
        skipped: list[int] = []
        hid = False
        first = self.lookup_lexical(segments[0], site)
        while first is not None:
            if hidden is not None and self.follow(first) == hidden:
                hid = True
            elif not self.defined_after(first, doc, offset):
                break
            skipped.append(first)
            first = self.lookup_lexical(segments[0], site, exclude=skipped)
        if not skipped:
            return self.lookup_path(path, site, upto)
        fallback = None if hid else self.lookup_path(path, site, upto)
        current = first
        for seg in segments[1:]:
            ns = self.follow(current)
            if ns is None or not self.decls[ns].is_namespace:
                return fallback
            current = self.lookup_scoped(ns, seg)
        return current if current is not None else fallback

    def lookup_namespace_at(self, path: ConstPath, site: Site, doc: int, scope: int) -> int | None:
        """``lookup_namespace`` for a path written at scope ``scope`` of ``doc``: as while the
        file loads (``lookup_path_at``), unless the scope lies in a method body."""
        if self.in_method_body(doc, scope):
            return self.lookup_namespace(path, site)
        found = self.follow(self.lookup_path_at(path, site, doc, path.start))
        if found is not None and self.decls[found].is_namespace:
            return found
        return None

    def defined_after(self, decl_id: int, doc: int, offset: int) -> bool:
        """Whether every definition of a constant comes after ``offset`` of ``doc`` in load
        order: further down in ``doc``, or in a document loaded after it (a larger key): while
        ``doc`` loads, up to ``offset``, the constant does not exist yet (pry's ``class
        LastException < BasicObject`` is read before pry/basic_object.rb defines
        ``Pry::BasicObject``: its superclass is ``::BasicObject``). A later document counts as
        earlier when ``doc`` requires, before ``offset``, files that load after it in order
        but run inside its body (``order.first_require_after``), and when the walk from
        another root placed it (``LoadOrder.same_walk``: the order of two roots is a guess);
        an autoloaded file that a load-time reference reaches is placed before the referring
        document (``order``). Without a load order (``use_load_order``) every other
        document counts as earlier."""
        rec = self.decls[decl_id]
        if not rec.definitions:
            return False
        defs = self.docs[doc].definitions
        later: list[int] = []
        for d_doc, index in rec.definitions:
            if d_doc == doc:
                if defs[index].start <= offset:
                    return False
            elif d_doc < doc:
                return False
            else:
                later.append(d_doc)
        if not later:
            return True
        here = self.docs[doc]
        source = self.caches.order_source
        if source is None or self._loads_others_before(doc, offset):
            return False
        order = source()
        return all(order.same_walk(here.uri, self.docs[d].uri) for d in later)

    def first_defined_in(self, decl_id: int) -> int:
        """The smallest document key among a constant's definitions (-1 when it has none):
        ``defined_after`` says False for any document loaded after that one."""
        return min((d_doc for d_doc, _ in self.decls[decl_id].definitions), default=-1)

    def _loads_others_before(self, doc: int, offset: int) -> bool:
        """Whether a require that document ``doc`` reads right after it runs before ``offset``
        (``order.first_require_after``): files that come after it in load order then run
        before that offset."""
        first = self.caches.requires_after.get(doc)
        if first is None:
            found = first_require_after(self.docs[doc])
            first = self.caches.requires_after[doc] = -1 if found is None else found
        return 0 <= first < offset

    def in_method_body(self, doc: int, scope: int) -> bool:
        """Whether scope definition ``scope`` of ``doc`` is or lies in a method body (code
        there runs when called, after every file has loaded)."""
        defs = self.docs[doc].definitions
        while scope >= 0:
            if defs[scope].kind == "Method":
                return True
            scope = defs[scope].parent
        return False

    def find_member(self, decl_id: int, member: str, after: int | None = None) -> int | None:
        """The entry ``member`` finds through ``decl_id``'s ancestors (None past an ``undef``).

        With ``after``, the lookup starts behind that entry of the chain, as ``super`` does:
        behind a class, past the modules prepended to it; behind a prepended module, at the
        next one or the class itself. None when ``after`` is not in the chain."""
        chain = self.ancestors(decl_id)
        start = 0
        if after is not None:
            if after not in chain:
                return None
            start = chain.index(after) + 1
        for i in range(start, len(chain)):
            found = self.decls[chain[i]].members.get(member)
            if found is not None:
                return None if self.decls[found].visibility == "undefined" else found
        return None

    def is_visibility_copy(self, method: int) -> bool:
        """Whether a method entry only changes an inherited method's visibility (``private :m``
        in a subclass: Ruby's ZSUPER entry, whose body and owner are the inherited method's)."""
        rec = self.decls[method]
        if rec.kind != "Method" or not rec.definitions:
            return False
        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            if d.kind != "MethodVisibility" or d.visibility not in ("public", "protected", "private"):
                return False
        return True

    def implementation(self, decl_id: int, member: str, after: int | None = None) -> tuple[int, int | None] | None:
        """The entry ``member`` finds (its visibility is the one callers see) and the method
        that runs: the entry itself, or for a visibility copy the method it copies, found by
        going on up the chain (Ruby's ``instance_method(m).owner``)."""
        entry = self.find_member(decl_id, member, after)
        if entry is None:
            return None
        body: int | None = entry
        hops = 0
        while body is not None and self.is_visibility_copy(body) and hops < MAX_ALIAS_HOPS:
            owner = self.decls[body].owner
            body = self.find_member(decl_id, member, owner) if owner is not None else None
            hops += 1
        return entry, body

    def key_of(self, uri: str) -> int | None:
        """The document key of a URI in the current state."""
        caches = self.caches
        keys = caches.uri_keys
        if keys is None:
            keys = caches.uri_keys = {d.uri: k for k, d in self.docs.items()}
        return keys.get(uri)
