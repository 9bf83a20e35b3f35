"""Resolution: from per-file definitions to declarations, ancestors and resolved references.

This module owns Ruby's naming and lookup rules. It reads FileResults and writes a fresh
ResolvedState; it does no I/O and never imports discovery. The phases:

1. Namespaces and constants: a worklist assigns fully qualified names. A definition waits
   until its lexical parent is declared and the scope part of a compact name (``A`` of
   ``class A::B``) resolves; when no progress is possible, unknown scopes become ``Todo``
   placeholders, which a real definition later promotes.
2. Members: methods, attributes, aliases, variables and visibility changes.
3. Ancestors: Ruby's own insertion algorithm for include/prepend, run per namespace with
   memoization; singleton classes get Ruby's chain.
4. References: constant references through the lexical scope, ancestors and Object; method
   call receivers.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Sequence

import msgspec

from rdx.ids import declaration_id
from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath, DefinitionRecord, FileResult
from rdx.model.store import CORE_URI, MemberBookkeeping, ResolvedImage, ResolvedState

__all__ = ["CONSTANT_KINDS", "Resolver", "load_order", "resolve_documents"]

CONSTANT_KINDS = frozenset({"Class", "Module", "Constant", "ConstantAlias", "Todo"})
_NAMESPACE_DEF_KINDS = frozenset({"Class", "Module", "SingletonClass"})
_CONSTANT_DEF_KINDS = frozenset({"Class", "Module", "Constant", "ConstantAlias"})
_KIND_RANK = {"Todo": 0, "Constant": 1, "ConstantAlias": 2, "Module": 3, "Class": 3}
# Definitions the member phase handles; an edit that changes only these is replayed for the
# namespaces it touches (``Resolver.refresh_members``).
_MEMBER_DEF_KINDS = frozenset(
    {"Method", "AttrReader", "AttrWriter", "AttrAccessor", "MethodAlias", "InstanceVariable", "ClassVariable", "MethodVisibility"}
)
_MEMBER_DECL_KINDS = frozenset({"Method", "InstanceVariable", "ClassVariable"})
# Resolution diagnostics the member phase reports (replayed with it).
_MEMBER_CODES = frozenset({"unresolved-method-receiver", "unknown-method"})
# Beyond these, a member edit resolves from scratch (about as fast, and simpler to trust).
_MAX_REPLAY_NAMESPACES = 5000
_MAX_REPLAY_DEFINITIONS = 20000
_HEAD = -1  # Sentinel for the class itself ahead of its prepended modules.
_MAX_ALIAS_HOPS = 64

Site = tuple[int, ...]  # A cref: declaration ids of the lexical scopes, innermost first.


class _ReplayUnsafe(Exception):
    """A member replay cannot prove it matches a full resolve; the caller resolves fully."""


def resolve_documents(documents: Iterable[FileResult]) -> ResolvedState:
    """Resolve ``documents`` from scratch into a new ResolvedState."""
    return Resolver(load_order(documents)).run()


def _strip(path: ConstPath | None) -> tuple | None:
    return None if path is None else (path.segments, path.absolute, path.dynamic)


def _mixins(mixins: Sequence) -> tuple:
    return tuple((m.kind, _strip(m.target), m.call) for m in mixins)


def _signature(result: FileResult) -> tuple:
    """Everything in a document that resolution reads, except positions, comments, method
    signatures and references: two documents with equal signatures declare the same things."""
    defs = tuple(
        (
            d.kind, d.name, d.parent, _strip(d.path), _strip(d.superclass), d.superclass_self, _mixins(d.mixins),
            _mixins(d.deferred_mixins), _strip(d.receiver), d.self_receiver, d.visibility, d.module_function,
            _strip(d.target), d.old_name, d.lexical,
        )
        for d in result.definitions
    )
    externals = tuple((_strip(e.target), e.scope, e.mixin.kind, _strip(e.mixin.target), e.mixin.call) for e in result.external_mixins)
    requires = tuple((r.path, r.relative) for r in result.requires)
    return (result.uri, defs, externals, requires)


def _position_map(old: FileResult, new: FileResult, pairs: Iterable[tuple[int, int]] | None = None) -> dict[tuple[int, int], tuple[int, int]]:
    """Old (start, end) spans of definitions and constant paths -> their spans in ``new``.

    ``pairs`` are corresponding (old, new) definition indices; by default all of them (the two
    documents have equal signatures, so their records correspond one to one)."""
    spans: dict[tuple[int, int], tuple[int, int]] = {}

    def paths(a: ConstPath | None, b: ConstPath | None) -> None:
        if a is not None and b is not None:
            spans.setdefault((a.start, a.end), (b.start, b.end))

    if pairs is None:
        if len(old.definitions) != len(new.definitions):
            raise ValueError("documents with different definitions need explicit pairs")
        pairs = ((i, i) for i in range(len(old.definitions)))
    for i, j in pairs:
        a, b = old.definitions[i], new.definitions[j]
        spans.setdefault((a.start, a.end), (b.start, b.end))
        for x, y in ((a.path, b.path), (a.superclass, b.superclass), (a.receiver, b.receiver), (a.target, b.target)):
            paths(x, y)
        for ma, mb in zip(a.mixins + a.deferred_mixins, b.mixins + b.deferred_mixins, strict=True):
            paths(ma.target, mb.target)
    for ea, eb in zip(old.external_mixins, new.external_mixins, strict=True):
        paths(ea.target, eb.target)
        paths(ea.mixin.target, eb.mixin.target)
    return spans


def _successor(
    previous: ResolvedState,
    documents: list[FileResult],
    declarations: dict[int, DeclarationRecord],
    by_name: dict[str, int],
    definition_declarations: list[list[int | None]],
    diagnostics: list[tuple[int, str, str, int, int, str]],
) -> ResolvedState:
    """A state after an incremental update: reference lists copied (the caller replaces the
    refreshed documents' entries), ancestors shared (updates never change them)."""
    return ResolvedState(
        documents=documents,
        declarations=declarations,
        by_name=by_name,
        definition_declarations=definition_declarations,
        constant_targets=list(previous.constant_targets),
        method_receivers=list(previous.method_receivers),
        ancestors=previous.ancestors,
        diagnostics=diagnostics,
        object_id=previous.object_id,
    )


def _member_keys(d: DefinitionRecord) -> tuple[str, ...]:
    """The member keys a member definition writes (``m()``, ``m=()``, ``@x``)."""
    kind = d.kind
    if kind == "InstanceVariable" or kind == "ClassVariable":
        return (d.name,)
    if kind == "AttrAccessor":
        return (f"{d.name}()", f"{d.name}=()")
    if kind == "AttrWriter":
        return (f"{d.name}=()",)
    return (f"{d.name}()",)


def _skeleton_diff(old: tuple[tuple, list[int]], new: tuple[tuple, list[int]]) -> tuple[dict[int, int], list[int], list[int]] | None:
    """Align two skeletons of one document where one only adds to the other: the old
    definition index -> new index of every kept item, the new indices of added items and the
    old indices of removed ones (never both). None when anything else changed (or the
    document has external mixins, whose scopes the alignment does not follow)."""
    (old_uri, old_items, old_ext, old_req), old_keep = old
    (new_uri, new_items, new_ext, new_req), new_keep = new
    if old_uri != new_uri or old_req != new_req or old_ext or new_ext:
        return None
    growing = len(new_items) >= len(old_items)
    # Walk the longer list; items of the shorter one must all match, in order.
    longer, shorter = (new_items, old_items) if growing else (old_items, new_items)
    matched: dict[int, int] = {}  # shorter position -> longer position
    extra: list[int] = []
    i = 0
    for j, item in enumerate(longer):
        if i < len(shorter):
            o = shorter[i]
            parent_ok = o[2] == item[2] == -1 or (o[2] >= 0 and matched.get(o[2]) == item[2])
            if parent_ok and o[:2] == item[:2] and o[3:] == item[3:]:
                matched[i] = j
                i += 1
                continue
        extra.append(j)
    if i != len(shorter):
        return None
    if growing:
        return {old_keep[o]: new_keep[n] for o, n in matched.items()}, [new_keep[j] for j in extra], []
    return {old_keep[n]: new_keep[o] for o, n in matched.items()}, [], [old_keep[j] for j in extra]


def _spans(d: DefinitionRecord) -> set[tuple[int, int]]:
    """The spans a definition's resolution diagnostics can have: its own and its paths'."""
    spans = {(d.start, d.end)}
    for path in (d.path, d.superclass, d.receiver, d.target):
        if path is not None:
            spans.add((path.start, path.end))
    for m in (*d.mixins, *d.deferred_mixins):
        if m.target is not None:
            spans.add((m.target.start, m.target.end))
    return spans


_CONCERN_NAMES = frozenset({"ClassMethods", "Concern"})  # Looked up by name by the concern rules.


def _path_names(result: FileResult, keep: Callable[[int, DefinitionRecord], bool] | None = None) -> set[str]:
    """Every name that a constant path of the document's definitions (or of those ``keep``
    accepts) mentions, as a segment, plus names of ``private_constant`` and the like, and the
    names in its external mixins: where a new constant of that name could change an answer."""
    names: set[str] = set()
    for i, d in enumerate(result.definitions):
        if keep is not None and not keep(i, d):
            continue
        if d.kind == "ConstantVisibility":
            names.add(d.name)
        for path in (d.path, d.superclass, d.receiver, d.target):
            if path is not None:
                names.update(path.segments)
        for m in (*d.mixins, *d.deferred_mixins):
            if m.target is not None:
                names.update(m.target.segments)
    if keep is None:
        for e in result.external_mixins:
            names.update(e.target.segments)
            if e.mixin.target is not None:
                names.update(e.mixin.target.segments)
    return names


def _dynamic_constant(doc: int, d: DefinitionRecord) -> tuple[int, str, str, int, int, str]:
    return (doc, "dynamic-constant", f"{d.kind.lower()} {d.name!r} is defined inside a method body", d.start, d.end, "warning")


def _skeleton(result: FileResult) -> tuple[tuple, list[int]] | None:
    """What phases 1 and 3 read from a document: every definition but the members, each with
    its nearest kept ancestor (and whether a method body lies between) instead of raw indices,
    and no positions. Two documents with equal skeletons differ only in their members. Also
    returns the kept definition indices. None when members carry mixins or scope an external
    mixin, which the member replay does not handle."""
    defs = result.definitions
    position: dict[int, int] = {}
    items: list[tuple] = []
    for i, d in enumerate(defs):
        if d.kind in _MEMBER_DEF_KINDS:
            if d.mixins or d.deferred_mixins:
                return None
            continue
        p = d.parent
        inside_method = False
        while p >= 0 and p not in position:
            if defs[p].kind == "Method":
                inside_method = True
            p = defs[p].parent
        position[i] = len(items)
        items.append(
            (
                d.kind, d.name, position[p] if p >= 0 else -1, inside_method, _strip(d.path), _strip(d.superclass),
                d.superclass_self, _mixins(d.mixins), _mixins(d.deferred_mixins), _strip(d.receiver), d.self_receiver,
                d.visibility, d.module_function, _strip(d.target), d.old_name, d.lexical,
            )
        )
    externals = []
    for e in result.external_mixins:
        if e.scope >= 0 and e.scope not in position:
            return None
        externals.append((_strip(e.target), position[e.scope] if e.scope >= 0 else -1, e.mixin.kind, _strip(e.mixin.target), e.mixin.call))
    requires = tuple((r.path, r.relative) for r in result.requires)
    return (result.uri, tuple(items), tuple(externals), requires), list(position)


def load_order(documents: Iterable[FileResult]) -> list[FileResult]:
    """Documents in an approximation of Ruby's load order.

    Where definitions of one namespace are spread over files, Ruby's answers depend on the
    order the files were loaded (which superclass is seen first, which mixin lands last). rdx
    follows ``require``/``require_relative`` edges: starting from each document in URI order,
    a file's requirements come before it (requires sit at the top of files). The core stub is
    always first. Deterministic for the same set of documents.
    """
    docs = sorted(documents, key=lambda d: (d.uri != CORE_URI, d.uri))
    by_path: dict[str, FileResult] = {}
    by_basename: dict[str, list[FileResult]] = {}
    for d in docs:
        if d.path:
            norm = posixpath.normpath(d.path)
            by_path[norm] = d
            by_basename.setdefault(posixpath.basename(norm), []).append(d)

    def target(doc: FileResult, req) -> FileResult | None:  # type: ignore[no-untyped-def]
        name = req.path if req.path.endswith(".rb") else req.path + ".rb"
        if req.relative:
            if not doc.path:
                return None
            return by_path.get(posixpath.normpath(posixpath.join(posixpath.dirname(doc.path), name)))
        candidates = by_basename.get(posixpath.basename(name), ())
        suffix = "/" + name
        for cand in candidates:
            if cand.path and cand.path.endswith(suffix):
                return cand
        return None

    ordered: list[FileResult] = []
    seen: set[str] = set()
    for root in docs:
        if root.uri in seen:
            continue
        seen.add(root.uri)
        # Iterative depth-first walk: (document, index of its next require to follow).
        stack: list[tuple[FileResult, int]] = [(root, 0)]
        while stack:
            doc, i = stack[-1]
            if i < len(doc.requires):
                stack[-1] = (doc, i + 1)
                nxt = target(doc, doc.requires[i])
                if nxt is not None and nxt.uri not in seen:
                    seen.add(nxt.uri)
                    stack.append((nxt, 0))
                continue
            stack.pop()
            ordered.append(doc)
    return ordered


class Resolver:
    """One resolution run; see the module docstring."""

    def __init__(self, documents: list[FileResult], restoring: bool = False) -> None:
        self.state = ResolvedState(documents=documents)
        self.docs = documents
        self.decls = self.state.declarations
        self.by_name = self.state.by_name
        self.def_decl: list[list[int | None]] = [] if restoring else [[None] * len(d.definitions) for d in documents]
        self.state.definition_declarations = self.def_decl
        # Per document: scope definition index -> its cref.
        self._crefs: list[dict[int, Site]] = [{} for _ in documents]
        self._ancestors: dict[int, tuple[int, ...]] = {}
        self._in_progress: dict[int, tuple[list[int], list[int]]] = {}
        self._times: dict[int, tuple[int, ...]] = {}
        # Restored from a snapshot: the encoded times and member bookkeeping, until needed.
        self._times_raw: msgspec.Raw | None = None
        self._members_raw: msgspec.Raw | None = None
        # Length of the superclass part of each chain being built (a stack, one per frame).
        self._super_len: list[int] = []
        self._superclass_done: set[int] = set()
        self._alias_cache: dict[int, int | None] = {}
        self._lookup_cache: dict[tuple[str, Site], int | None] = {}
        # Unresolved superclasses and mixins become placeholders only once every namespace is
        # declared; earlier, a miss may just mean the real definition was not reached yet.
        self._allow_placeholders = False
        # Namespace id -> mixins applied from outside its body: (doc, scope index, Mixin).
        self._external: dict[int, list] = {}
        # ActiveSupport::Concern: concern module id -> concerns it includes, applied on inclusion.
        self._concern_deps: dict[int, list[int]] = {}
        self._concern_cache: dict[int, bool] = {}
        self._concerns_known = False
        # Chains returned while still in progress, in order; a result computed from one is
        # provisional until that chain is finished.
        self._partial_hits: list[int] = []
        # What member edits need (see ``refresh_members``): member definitions by the namespace
        # they write into, in program order; per document, the namespaces its members write into;
        # namespaces the member phase itself created (singletons of singletons and of
        # placeholders); the methods ``remove_method`` removed, by namespace.
        self._member_index: dict[int, list[tuple[int, int]]] = {}
        self._doc_owners: list[set[int | None]] = [set() for _ in documents]
        # Per document: definition index -> the phase-1 round that declared it. A declaration's
        # definitions are in (round, document, index) order, which reopenings added later keep.
        self._rounds: list[dict[int, int]] = [{} for _ in documents]
        self._member_created: set[int] = set()
        self._removed_keys: dict[int, set[str]] = {}
        self._in_members = False
        # During a member replay: (namespaces being replayed, position being replayed).
        self._replay: tuple[set[int], tuple[int, int]] | None = None
        self._descendant_index: dict[int, list[int]] | None = None
        # Namespace -> member keys (``m()``) its aliases and visibility changes look up.
        self._lookup_keys: dict[int, set[str]] = {}
        # For edits that add namespaces and constants (``_declare_added``), built on first use.
        self._constant_name_set: set[str] | None = None
        self._path_names: list[set[str]] | None = None
        # Document -> (its FileResult, names its references use); rebuilt when the document changes.
        self._reference_names: dict[int, tuple[FileResult, set[str]]] = {}

    # -- declarations --------------------------------------------------------------------

    def _declare(self, name: str, unqualified: str, kind: str, owner: int | None) -> DeclarationRecord:
        decl_id = self.by_name.get(name)
        if decl_id is not None:
            rec = self.decls[decl_id]
            if _KIND_RANK.get(kind, -1) > _KIND_RANK.get(rec.kind, 99):
                rec.kind = kind  # A placeholder or plain constant becomes a namespace.
            return rec
        if self._replay is not None and kind not in _MEMBER_DECL_KINDS:
            raise _ReplayUnsafe(f"replaying members would declare {name}")
        decl_id = declaration_id(name)
        rec = DeclarationRecord(decl_id, name, unqualified, kind, owner)
        self.decls[decl_id] = rec
        self.by_name[name] = decl_id
        if owner is not None and kind != "SingletonClass" and kind != "GlobalVariable":
            self.decls[owner].members.setdefault(unqualified, decl_id)
        return rec

    def _qualify(self, owner: int, name: str) -> str:
        if owner == self.object_id:
            return name
        return f"{self.decls[owner].name}::{name}"

    def _bootstrap(self) -> None:
        """Declare the classes every chain needs even when the core stub is not indexed."""
        basic = DeclarationRecord(declaration_id("BasicObject"), "BasicObject", "BasicObject", "Class", None)
        self.decls[basic.id] = basic
        self.by_name["BasicObject"] = basic.id
        obj = DeclarationRecord(declaration_id("Object"), "Object", "Object", "Class", None)
        self.decls[obj.id] = obj
        self.by_name["Object"] = obj.id
        self.object_id = obj.id
        self.state.object_id = obj.id
        basic.owner = obj.id
        obj.owner = obj.id
        obj.members["Object"] = obj.id
        obj.members["BasicObject"] = basic.id
        obj.superclass = basic.id
        self.basic_object_id = basic.id
        self.kernel_id = self._declare("Kernel", "Kernel", "Module", obj.id).id
        self.module_id = self._declare("Module", "Module", "Class", obj.id).id
        self.class_id = self._declare("Class", "Class", "Class", obj.id).id

    def singleton(self, decl_id: int) -> int:
        rec = self.decls[decl_id]
        if rec.singleton is not None:
            return rec.singleton
        name = f"{rec.name}::<{rec.unqualified}>"
        single = self._declare(name, f"<{rec.unqualified}>", "SingletonClass", decl_id)
        single.attached = decl_id
        rec.singleton = single.id
        if self._in_members and rec.kind != "Class" and rec.kind != "Module":
            self._member_created.add(single.id)
        return single.id

    # -- sites ---------------------------------------------------------------------------

    def _scope_decl(self, doc: int, index: int) -> int | None:
        return self.def_decl[doc][index] if index >= 0 else self.object_id

    def cref(self, doc: int, index: int) -> Site | None:
        """Lexical scopes at a scope definition (innermost first); None if not yet declared."""
        crefs = self._crefs[doc]
        cached = crefs.get(index)
        if cached is not None:
            return cached
        defs = self.docs[doc].definitions
        out: list[int] = []
        i = index
        while i >= 0:
            d = defs[i]
            if d.kind in _NAMESPACE_DEF_KINDS and d.lexical:
                decl = self.def_decl[doc][i]
                if decl is None:
                    return None
                out.append(decl)
            i = d.parent
        site = tuple(out)
        crefs[index] = site
        return site

    def _namespace_owner(self, doc: int, index: int) -> int | None:
        """Where methods defined at scope ``index`` go: the nearest namespace, lexical or not."""
        defs = self.docs[doc].definitions
        i = index
        while i >= 0:
            d = defs[i]
            if d.kind in _NAMESPACE_DEF_KINDS:
                return self.def_decl[doc][i]
            i = d.parent
        return self.object_id

    def self_class(self, doc: int, index: int, create: bool = True) -> int | None:
        """The declaration whose instances ``self`` is at scope ``index`` (where ``foo`` looks).

        With ``create=False`` (references), a singleton class that does not exist yet is not
        created: the answer is None, so references never add declarations."""
        if index < 0:
            return self.object_id
        d = self.docs[doc].definitions[index]
        if d.kind == "Method":
            method = self.def_decl[doc][index]
            return self.decls[method].owner if method is not None else None
        decl = self.def_decl[doc][index]
        if decl is None:
            return None
        if d.kind in _NAMESPACE_DEF_KINDS:
            return self.singleton(decl) if create else self.decls[decl].singleton
        return self._namespace_owner(doc, d.parent)

    # -- constant lookup -----------------------------------------------------------------

    def follow(self, decl_id: int | None) -> int | None:
        """Follow constant aliases to the declaration they name (None on a cycle or miss)."""
        hops = 0
        while decl_id is not None:
            rec = self.decls[decl_id]
            if rec.kind != "ConstantAlias":
                return decl_id
            if hops > _MAX_ALIAS_HOPS:
                return None
            decl_id = self._alias_target(decl_id)
            hops += 1
        return None

    def _alias_target(self, decl_id: int) -> int | None:
        if decl_id in self._alias_cache:
            return self._alias_cache[decl_id]
        self._alias_cache[decl_id] = None  # Guards cycles while resolving.
        rec = self.decls[decl_id]
        target = None
        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            if d.kind == "ConstantAlias" and d.target is not None:
                site = self.cref(doc, d.parent)
                if site is not None:
                    target = self.lookup_path(d.target, site)
                    if target == decl_id:
                        target = None
                    break
        self._alias_cache[decl_id] = target
        rec.target = target
        return target

    def _member_constant(self, ns: int, name: str) -> int | None:
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

    def lookup_lexical(self, name: str, site: Site, exclude: int | None = None) -> int | None:
        """Unqualified constant lookup: lexical scopes, ancestors of the innermost, Object."""
        key = (name, site)
        if exclude is None and key in self._lookup_cache:
            return self._lookup_cache[key]
        hits_before = len(self._partial_hits)
        result = None
        for ns in site:
            result = self._member_constant(ns, name)
            if result is not None and result != exclude:
                break
            result = None
        if result is None:
            inner = site[0] if site else self.object_id
            scopes = self.constant_ancestors(inner)
            if self.decls[inner].kind != "Class" and self.decls[inner].kind != "SingletonClass":
                scopes.extend(self.ancestors(self.object_id))
            for anc in scopes:
                result = self._member_constant(anc, name)
                if result is not None and result != exclude:
                    break
                result = None
        if exclude is None and len(self._partial_hits) == hits_before:
            self._lookup_cache[key] = result
        return result

    def lookup_scoped(self, ns: int, name: str) -> int | None:
        """``Ns::Name``: Ns and its ancestors, skipping Object unless Ns is Object; private hidden."""
        obj = self.object_id
        for anc in self.constant_ancestors(ns):
            if anc == obj and ns != obj:
                continue
            m = self._member_constant(anc, name)
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
            current = self._member_constant(self.object_id, segments[0])
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

    # -- phase 1: namespaces and constants -----------------------------------------------

    def _declare_definition(self, doc: int, index: int, d: DefinitionRecord, placeholders: bool) -> bool:
        """Try to declare one namespace/constant definition; True when done."""
        parent_site = self.cref(doc, d.parent)
        if parent_site is None:
            return False
        if d.kind == "SingletonClass":
            if d.target is None:
                attached = self._namespace_owner(doc, d.parent)
            else:
                attached = self.lookup_namespace(d.target, parent_site)
                if attached is None:
                    if not placeholders:
                        return False
                    attached = self._placeholder(d.target, parent_site, len(d.target.segments))
            if attached is None:
                return False
            self._attach(doc, index, self.singleton(attached))
            return True
        path = d.path
        assert path is not None
        if len(path.segments) == 1 and not path.absolute:
            owner = parent_site[0] if parent_site else self.object_id
        elif len(path.segments) == 1:
            owner = self.object_id
        else:
            found_owner = self.lookup_namespace(path, parent_site, len(path.segments) - 1)
            if found_owner is not None:
                owner = found_owner
            else:
                if not placeholders:
                    return False
                owner = self._placeholder(path, parent_site, len(path.segments) - 1)
        name = path.segments[-1]
        kind = d.kind
        if kind in ("Class", "Module"):
            existing = self._member_constant(owner, name)
            if existing is None and owner == self.object_id and self._object_mixins:
                # At top level, ``class Foo`` also reopens a Foo that Object gets from a module
                # it includes (Ruby checks Object's ancestors for the constant). Object's chain
                # may have grown since it was cached in this round: recompute it.
                self._ancestors.pop(self.object_id, None)
                inherited = self.lookup_scoped(self.object_id, name)
                if inherited is not None and self.decls[inherited].owner != self.object_id:
                    existing = inherited
            if existing is not None and self.decls[existing].kind == "ConstantAlias":
                # ``AL = Real; module AL`` reopens Real.
                target = self.follow(existing)
                if target is not None and self.decls[target].kind in (kind, "Todo"):
                    existing = target
                elif target is None and not placeholders:
                    return False  # The alias may resolve once more is declared.
                else:
                    existing = None
            if existing is not None and self.decls[existing].kind in (kind, "Todo") and existing != owner:
                rec = self.decls[existing]
                if rec.kind == "Todo":
                    rec.kind = kind
                self._attach(doc, index, existing)
                return True
        rec = self._declare(self._qualify(owner, name), name, kind, owner)
        if rec.kind == "ConstantAlias" and kind in ("Class", "Module"):
            rec.kind = kind
        self._attach(doc, index, rec.id)
        return True

    def _attach(self, doc: int, index: int, decl_id: int) -> None:
        self.def_decl[doc][index] = decl_id
        self.decls[decl_id].definitions.append((doc, index))

    def _placeholder(self, path: ConstPath, site: Site, upto: int) -> int:
        """Declare ``Todo`` namespaces for the unresolved part of ``path[:upto]``."""
        segments = path.segments[:upto]
        # Find the longest prefix that resolves; everything after becomes placeholders.
        current = self.object_id
        start = 0
        for n in range(len(segments), 0, -1):
            found = self.lookup_namespace(path, site, n)
            if found is not None:
                current, start = found, n
                break
        for seg in segments[start:]:
            existing = self._member_constant(current, seg)
            if existing is not None:
                followed = self.follow(existing)
                if followed is not None and self.decls[followed].is_namespace:
                    current = followed
                    continue
            current = self._declare(self._qualify(current, seg), seg, "Todo", current).id
        self._lookup_cache.clear()
        return current

    def _phase_namespaces(self) -> None:
        # Whether any file includes modules into Object (top-level ``include M``).
        self._object_mixins = any(
            d.kind == "Class" and d.name == "Object" and d.mixins for result in self.docs[1:] for d in result.definitions
        )
        pending: list[tuple[int, int, DefinitionRecord]] = []
        for doc, result in enumerate(self.docs):
            for index, d in enumerate(result.definitions):
                if d.kind in _NAMESPACE_DEF_KINDS or d.kind in _CONSTANT_DEF_KINDS:
                    if self._inside_method(result.definitions, d):
                        self.state.diagnostics.append(_dynamic_constant(doc, d))
                        continue
                    pending.append((doc, index, d))
        # Rounds run in program order until nothing more can be declared; then one round may
        # create placeholders for unknown scopes, after which ordinary rounds resume.
        placeholders = False
        round_no = 0
        rounds = self._rounds
        while pending:
            progress = False
            rest = []
            for item in pending:
                doc, index, d = item
                if self._declare_definition(doc, index, d, placeholders):
                    progress = True
                    rounds[doc][index] = round_no
                else:
                    rest.append(item)
            round_no += 1
            pending = rest
            self._invalidate()
            if progress:
                placeholders = False
            elif not placeholders:
                placeholders = True
            else:
                break
        for doc, _index, d in pending:
            self.state.diagnostics.append(
                (doc, "unresolved-definition", f"cannot place {d.kind.lower()} {d.name!r}: its enclosing scope is not declared", d.start, d.end, "warning")
            )

    @staticmethod
    def _inside_method(defs: list[DefinitionRecord], d: DefinitionRecord) -> bool:
        i = d.parent
        while i >= 0:
            p = defs[i]
            if p.kind == "Method":
                return True
            if p.kind in _NAMESPACE_DEF_KINDS:
                return False
            i = p.parent
        return False

    def _invalidate(self, keep_concerns: bool = False) -> None:
        self._times.clear()
        if not keep_concerns:
            self._concern_cache.clear()
        self._concern_deps.clear()
        self._ancestors.clear()
        self._superclass_done.clear()
        self._lookup_cache.clear()
        self._alias_cache.clear()

    def _collect_external_mixins(self) -> None:
        """Attach ``Foo.include(M)`` calls to ``Foo``'s declaration (or its singleton for extend)."""
        for doc, result in enumerate(self.docs):
            for ext in result.external_mixins:
                site = self.cref(doc, ext.scope)
                if site is None:
                    continue
                target = self.lookup_namespace(ext.target, site)
                if target is None:
                    self.state.diagnostics.append(
                        (doc, "unresolved-mixin-target", f"cannot resolve {ext.target.text!r} in '{ext.target.text}.{ext.mixin.kind}'",
                         ext.target.start, ext.target.end, "warning")
                    )
                    continue
                self._external.setdefault(target, []).append((doc, ext.scope, ext.mixin))

    # -- phase 2: members ----------------------------------------------------------------

    def _phase_members(self) -> None:
        """Methods, attributes, aliases, variables and visibility changes, in program order:
        ``private :m`` affects the ``m`` defined so far, and a later ``def m`` is public again,
        as in Ruby; an alias copies the visibility its original has at that point.

        Each member definition writes into one namespace (its owner; ``module_function`` also
        into the owner's singleton class), computed from the skeleton alone. The phase records
        which definitions write where, so a later edit can replay just those namespaces."""
        self._in_members = True
        index_map = self._member_index
        for doc, result in enumerate(self.docs):
            defs = result.definitions
            method_owners: dict[int, int | None] = {}
            owners_here = self._doc_owners[doc]
            for index, d in enumerate(defs):
                kind = d.kind
                if kind in _MEMBER_DEF_KINDS:
                    owner = self._member_owner(doc, index, d, method_owners, True)
                    if kind == "Method":
                        method_owners[index] = owner
                    owners_here.add(owner)
                    if owner is not None:
                        index_map.setdefault(owner, []).append((doc, index))
                        if kind == "MethodAlias" or kind == "MethodVisibility":
                            self._note_lookup(owner, d)
                    self._apply_member(doc, index, d, owner)
                elif kind in ("GlobalVariable", "GlobalVariableAlias"):
                    rec = self._declare(d.name, d.name, "GlobalVariable", self.object_id)
                    self._attach(doc, index, rec.id)
                elif kind == "ConstantVisibility":
                    self._apply_constant_visibility(doc, index, d)
        self._in_members = False

    def _note_lookup(self, owner: int, d: DefinitionRecord) -> None:
        """Record the inherited member an alias or visibility change may read."""
        name = d.old_name if d.kind == "MethodAlias" else d.name
        self._lookup_keys.setdefault(owner, set()).add(f"{name}()")

    def _singleton_of(self, decl_id: int, create: bool) -> int:
        if create:
            return self.singleton(decl_id)
        single = self.decls[decl_id].singleton
        if single is None:
            raise _ReplayUnsafe(f"{self.decls[decl_id].name} has no singleton class yet")
        return single

    def _member_owner(self, doc: int, index: int, d: DefinitionRecord, method_owners: dict[int, int | None], create: bool) -> int | None:
        """The namespace a member definition writes into (None when it cannot be placed).

        Depends only on the skeleton (namespaces, constants, mixins) and, for an instance
        variable in a method body, on that method's owner, which ``method_owners`` holds."""
        kind = d.kind
        if kind == "InstanceVariable":
            parent = d.parent
            if parent >= 0 and self.docs[doc].definitions[parent].kind == "Method":
                return method_owners.get(parent)
            return self.self_class(doc, parent) if create else self._self_class_existing(doc, parent)
        if kind == "ClassVariable":
            return self._class_variable_owner(doc, d.parent)
        owner = self._namespace_owner(doc, d.parent)
        if owner is None:
            return None
        if kind == "Method":
            if d.receiver is not None:
                site = self.cref(doc, d.parent)
                target = self.lookup_namespace(d.receiver, site) if site is not None else None
                return None if target is None else self._singleton_of(target, create)
            return self._singleton_of(owner, create) if d.self_receiver else owner
        if kind == "MethodVisibility" and d.self_receiver:
            return self._singleton_of(owner, create)
        return owner

    def _self_class_existing(self, doc: int, index: int) -> int | None:
        """``self_class`` outside a method body, without creating a singleton class."""
        if index < 0:
            return self.object_id
        decl = self.def_decl[doc][index]
        if decl is None:
            return None
        if self.docs[doc].definitions[index].kind in _NAMESPACE_DEF_KINDS:
            return self._singleton_of(decl, False)
        return self._namespace_owner(doc, self.docs[doc].definitions[index].parent)

    def _apply_member(self, doc: int, index: int, d: DefinitionRecord, owner: int | None) -> None:
        kind = d.kind
        if owner is None:
            if kind == "Method" and d.receiver is not None and self._namespace_owner(doc, d.parent) is not None:
                self.state.diagnostics.append(
                    (doc, "unresolved-method-receiver", f"cannot resolve {d.receiver.text!r} in 'def {d.receiver.text}.{d.name}'", d.start, d.end, "warning")
                )
            return
        if kind == "Method":
            if d.module_function:
                self._method(owner, d.name, doc, index, "private")
                single = self._method(self.singleton(owner), d.name, doc, index, "public", attach=False)
                self.decls[single].definitions.append((doc, index))
            else:
                self._method(owner, d.name, doc, index, d.visibility)
        elif kind == "MethodAlias":
            alias = self._method(owner, d.name, doc, index, d.visibility)
            original = self._member_lookup(owner, f"{d.old_name}()")
            if original is not None and original[0] != alias:
                self.decls[alias].visibility = original[1]
        elif kind == "AttrReader" or kind == "AttrWriter" or kind == "AttrAccessor":
            if kind != "AttrWriter":
                self._method(owner, d.name, doc, index, d.visibility)
            if kind != "AttrReader":
                self._method(owner, d.name + "=", doc, index, d.visibility)
        elif kind == "InstanceVariable" or kind == "ClassVariable":
            self._variable(owner, d.name, kind, doc, index)
        else:
            self._apply_method_visibility(doc, index, d, owner)

    def _method(self, owner: int, name: str, doc: int, index: int, visibility: str, attach: bool = True) -> int:
        key = f"{name}()"
        rec = self._declare(f"{self.decls[owner].name}#{key}", key, "Method", owner)
        rec.visibility = visibility
        if attach:
            self._attach(doc, index, rec.id)
        return rec.id

    def _variable(self, owner: int, name: str, kind: str, doc: int, index: int) -> None:
        rec = self._declare(f"{self.decls[owner].name}#{name}", name, kind, owner)
        self._attach(doc, index, rec.id)

    def _class_variable_owner(self, doc: int, index: int) -> int | None:
        """Class variables follow the lexical scope and skip singleton classes."""
        defs = self.docs[doc].definitions
        i = index
        while i >= 0:
            d = defs[i]
            if d.kind in ("Class", "Module"):
                return self.def_decl[doc][i]
            i = d.parent
        return self.object_id

    def _forget(self, decl_id: int) -> None:
        """Remove a member declaration (``remove_method``) and unlink its definitions."""
        rec = self.decls.pop(decl_id)
        self.by_name.pop(rec.name, None)
        if rec.owner is not None and self.decls[rec.owner].members.get(rec.unqualified) == decl_id:
            del self.decls[rec.owner].members[rec.unqualified]
        for doc, index in rec.definitions:
            if self.def_decl[doc][index] == decl_id:
                self.def_decl[doc][index] = None

    def _apply_constant_visibility(self, doc: int, index: int, d: DefinitionRecord) -> None:
        if self._namespace_owner(doc, d.parent) is None:
            return
        site = self.cref(doc, d.parent)
        ns = site[0] if site else self.object_id
        member = self._member_constant(ns, d.name)
        if member is None:
            self.state.diagnostics.append(
                (doc, "unknown-constant", f"{d.visibility}_constant names {d.name!r}, which is not defined here", d.start, d.end, "warning")
            )
            return
        self.decls[member].private = d.visibility == "private"
        self._attach(doc, index, member)

    def _apply_method_visibility(self, doc: int, index: int, d: DefinitionRecord, owner: int) -> None:
        key = f"{d.name}()"
        method = self.decls[owner].members.get(key)
        if d.visibility == "removed":
            # ``remove_method``: this namespace's own method goes; an inherited one shows again.
            if method is None:
                self.state.diagnostics.append((doc, "unknown-method", f"remove_method names {d.name!r}, which is not defined here", d.start, d.end, "warning"))
                return
            self._removed_keys.setdefault(owner, set()).add(key)
            self._forget(method)
            return
        if d.visibility == "undefined":
            # ``undef``/``undef_method``: lookups stop here, inherited definitions included.
            rec = self._declare(f"{self.decls[owner].name}#{key}", key, "Method", owner)
            rec.visibility = "undefined"
            self._attach(doc, index, rec.id)
            return
        if d.visibility == "module_function":
            if method is None:
                return
            self.decls[method].visibility = "private"
            single = self._declare(f"{self.decls[self.singleton(owner)].name}#{key}", key, "Method", self.singleton(owner))
            single.definitions.extend(self.decls[method].definitions)
            self._attach(doc, index, method)
            return
        if method is None:
            # Ruby copies an inherited method into the class with the new visibility.
            found = self._member_lookup(owner, key)
            if found is None:
                self.state.diagnostics.append(
                    (doc, "unknown-method", f"{d.visibility} names {d.name!r}, which is not defined here", d.start, d.end, "warning")
                )
                return
            method = self._declare(f"{self.decls[owner].name}#{key}", key, "Method", owner).id
        self.decls[method].visibility = d.visibility
        self._attach(doc, index, method)

    # -- phase 3: ancestors --------------------------------------------------------------

    def superclass(self, decl_id: int) -> int | None:
        rec = self.decls[decl_id]
        if decl_id in self._superclass_done:
            return rec.superclass
        self._superclass_done.add(decl_id)
        hits_before = len(self._partial_hits)
        result = self._compute_superclass(decl_id, rec)
        if len(self._partial_hits) != hits_before:
            self._superclass_done.discard(decl_id)  # Provisional: resolved from a partial chain.
        return result

    def _compute_superclass(self, decl_id: int, rec: DeclarationRecord) -> int | None:
        if rec.kind == "SingletonClass":
            rec.superclass = self._singleton_superclass(rec)
            return rec.superclass
        if rec.kind != "Class" or decl_id == self.basic_object_id:
            rec.superclass = None if rec.kind != "Todo" else rec.superclass
            return rec.superclass
        chosen = None
        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            if d.superclass_self:
                outer = self.cref(doc, d.parent)
                if outer is not None and (outer[0] if outer else self.object_id) != decl_id:
                    chosen = chosen or (outer[0] if outer else self.object_id)
                continue
            if d.superclass is None:
                continue
            site = self.cref(doc, d.parent)
            if site is None:
                continue
            target = self.lookup_namespace(d.superclass, site)
            if not d.superclass.absolute and self.follow(self.lookup_lexical(d.superclass.segments[0], site)) == decl_id:
                # ``class SchemaDumper < SchemaDumper`` or ``class A < A::D`` inside ``module A``:
                # Ruby evaluates the superclass before the new constant exists, so the lookup of
                # its first segment continues past the class itself.
                target = self.follow(self.lookup_lexical(d.superclass.segments[0], site, exclude=decl_id))
                for seg in d.superclass.segments[1:]:
                    if target is None or not self.decls[target].is_namespace:
                        target = None
                        break
                    target = self.follow(self.lookup_scoped(target, seg))
                if target is not None and not self.decls[target].is_namespace:
                    target = None
            if target is None:
                if not self._allow_placeholders:
                    continue
                target = self._placeholder(d.superclass, site, len(d.superclass.segments))
                self.decls[target].superclass = self.object_id
            trec = self.decls[target]
            if trec.kind not in ("Class", "Todo") or target == decl_id:
                self.state.diagnostics.append(
                    (doc, "invalid-superclass", f"superclass {d.superclass.text!r} of {rec.name} is a {trec.kind}, not a class", d.start, d.end, "warning")
                )
                continue
            if chosen is None:
                chosen = target
            elif chosen != target:
                self.state.diagnostics.append(
                    (doc, "superclass-mismatch", f"superclass mismatch for class {rec.name}: {d.superclass.text} vs {self.decls[chosen].name}", d.start, d.end, "warning")
                )
        rec.superclass = chosen if chosen is not None else self.object_id
        return rec.superclass

    def _singleton_superclass(self, rec: DeclarationRecord) -> int | None:
        attached = rec.attached
        if attached is None:
            return self.class_id
        arec = self.decls[attached]
        if arec.kind in ("Module", "Todo") and arec.superclass is None:
            return self.module_id
        if attached == self.basic_object_id:
            return self.class_id
        sup = self.superclass(attached)
        if sup is None:
            return self.module_id if arec.kind != "Class" else self.class_id
        return self.singleton(sup)

    def _hook_extends(self, module: int) -> list[int]:
        """Modules that ``def self.included(base); base.extend(X)`` adds to the includer's singleton."""
        out: list[int] = []
        for doc, index in self.decls[module].definitions:
            d = self.docs[doc].definitions[index]
            for m in d.deferred_mixins:
                if m.kind == "extend" and m.target is not None:
                    site = self.cref(doc, index)
                    found = self.lookup_namespace(m.target, site) if site is not None else None
                    if found is not None and self.decls[found].kind == "Module":
                        out.append(found)
        return out

    def _concern_class_methods(self, module: int, seen: set[int]) -> list[int]:
        if module in seen:
            return []
        seen.add(module)
        self.ancestors(module)  # Records the concern's own concern dependencies.
        out: list[int] = []
        for dep in self._concern_deps.get(module, ()):
            out.extend(self._concern_class_methods(dep, seen))
        cm = self.follow(self._member_constant(module, "ClassMethods"))
        if cm is not None and self.decls[cm].kind == "Module":
            out.append(cm)
        return out

    def _mixin_ops(self, decl_id: int, keyed: bool = False) -> list:
        """(kind, doc, scope index, target, scope_is_site) in program order for a namespace.

        ``scope_is_site`` is False for mixins written in a namespace body, whose lookup site is
        that body, and True for ``Foo.include(M)`` calls, whose site is the call's scope."""
        rec = self.decls[decl_id]
        ops: list[tuple] = []

        def add(doc: int, index: int, pos: int, mixins: Sequence, kinds: tuple[str, ...], external: bool) -> None:
            by_call: dict[int, list] = {}
            for m in mixins:
                if m.kind in kinds:
                    by_call.setdefault(m.call, []).append(m)
            for group in by_call.values():
                first = group[0].start
                # ``include A, B`` inserts B first, then A, so A ends up first in the chain.
                for order, m in enumerate(reversed(group)):
                    ops.append(((doc, first, order), "include" if m.kind == "extend" else m.kind, doc, index, m.target, external))

        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            if d.kind in _NAMESPACE_DEF_KINDS:
                add(doc, index, d.start, d.mixins, ("include", "prepend"), False)
        for doc, scope, m in self._external.get(decl_id, ()):
            if m.kind != "extend":
                add(doc, scope, m.start, [m], ("include", "prepend"), True)
        if rec.kind == "SingletonClass" and rec.attached is not None:
            for doc, index in self.decls[rec.attached].definitions:
                d = self.docs[doc].definitions[index]
                if d.kind in _NAMESPACE_DEF_KINDS and d.kind != "SingletonClass":
                    add(doc, index, d.start, d.mixins, ("extend",), False)
            for doc, scope, m in self._external.get(rec.attached, ()):
                if m.kind == "extend":
                    add(doc, scope, m.start, [m], ("extend",), True)
            if self._concerns_known and not self.is_concern(rec.attached):
                # Including a concern extends the class with the concern's ClassMethods (and
                # those of the concerns it depends on, first); ``def self.included(base)``
                # hooks that call ``base.extend(X)`` do the same for any module.
                for key, kind, doc, index, target, external in self._mixin_ops(rec.attached, keyed=True):
                    if kind != "include":
                        continue
                    module = self._mixin_target(rec.attached, doc, index, target, external)
                    if module is None:
                        continue
                    extensions = self._concern_class_methods(module, set()) if self.is_concern(module) else []
                    extensions += self._hook_extends(module)
                    for n, cm in enumerate(extensions):
                        ops.append(((key[0], key[1], key[2] * 1000 + n), "include", doc, index, cm, external))
        ops.sort(key=lambda op: op[0])
        if keyed:
            return ops
        return [(kind, doc, index, target, external) for _, kind, doc, index, target, external in ops]

    def is_concern(self, decl_id: int) -> bool:
        """Whether a module extends ActiveSupport::Concern (Rails defers its concern includes)."""
        cached = self._concern_cache.get(decl_id)
        if cached is not None:
            return cached
        self._concern_cache[decl_id] = False
        result = False
        rec = self.decls[decl_id]
        if rec.kind == "Module":
            for doc, index in rec.definitions:
                d = self.docs[doc].definitions[index]
                for m in d.mixins:
                    if m.kind == "extend" and m.target is not None and m.target.segments[-1] == "Concern":
                        site = self.cref(doc, index)
                        found = self.lookup_namespace(m.target, site) if site is not None else None
                        if found is not None and self.decls[found].name == "ActiveSupport::Concern":
                            result = True
        self._concern_cache[decl_id] = result
        return result

    def ancestors(self, decl_id: int) -> tuple[int, ...]:
        return self._chain(decl_id)[0]

    def _chain(self, decl_id: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Linearized ancestors and, parallel to them, when each entry joined this chain.

        Times are ``doc << 32 | offset`` of the mixin call that inserted the entry (-1 for the
        classes themselves). Ruby skips a module "already in the chain" by looking at the
        superclasses as they are at that moment, so a superclass's include made later (in load
        order) does not stop an earlier include in the subclass."""
        if self._times_raw is not None:
            self._load_times()
        cached = self._ancestors.get(decl_id)
        if cached is not None:
            return cached, self._times[decl_id]
        partial = self._in_progress.get(decl_id)
        if partial is not None:
            # A lookup made while computing this chain sees it as far as it got, as in Ruby,
            # where each include runs after the previous ones. Whatever is computed from a
            # partial chain is provisional and is not cached (see ``_partial_hits``).
            self._partial_hits.append(decl_id)
            return tuple(partial[0][1:]), tuple(partial[1][1:])
        rec = self.decls[decl_id]
        if not rec.is_namespace:
            return (decl_id,), (-1,)
        chain: list[int] = [_HEAD, decl_id]
        times: list[int] = [-1, -1]
        self._in_progress[decl_id] = (chain, times)
        depth = len(self._super_len)
        hits_before = len(self._partial_hits)
        self._concern_deps[decl_id] = []
        try:
            sup = self.superclass(decl_id)
            if sup is not None:
                sup_chain, sup_times = self._chain(sup)
                chain.extend(sup_chain)
                times.extend(sup_times)
            self._super_len.append(len(chain) - 2)
            origin = 1
            concern = self._concerns_known and rec.kind == "Module" and self.is_concern(decl_id)
            for key, kind, doc, index, target, external in self._mixin_ops(decl_id, keyed=True):
                module = self._mixin_target(decl_id, doc, index, target, external)
                if module is None:
                    continue
                when = (key[0] << 32) | key[1]
                if kind == "include":
                    if concern and self.is_concern(module):
                        # A concern including a concern only records it as a dependency.
                        self._concern_deps.setdefault(decl_id, []).append(module)
                        continue
                    self._include_with_dependencies(chain, times, module, origin, set(), when)
                else:
                    origin = self._prepend(chain, times, self.ancestors(module), origin, when)
        finally:
            del self._in_progress[decl_id]
            if len(self._super_len) > depth:
                self._super_len.pop()
        result = tuple(chain[1:])
        result_times = tuple(times[1:])
        hits = self._partial_hits[hits_before:]
        del self._partial_hits[hits_before:]
        others = [h for h in hits if h != decl_id]
        if others:
            self._partial_hits.extend(others)  # Still provisional for the frames that use us.
        else:
            self._ancestors[decl_id] = result
            self._times[decl_id] = result_times
        return result, result_times

    def _include_with_dependencies(self, chain: list[int], times: list[int], module: int, origin: int, seen: set[int], when: int) -> None:
        """Include ``module``, after the concerns it depends on (ActiveSupport::Concern)."""
        modules = self.ancestors(module)
        if module not in seen:
            seen.add(module)
            for dep in self._concern_deps.get(module, ()):
                self._include_with_dependencies(chain, times, dep, origin, seen, when)
        self._include(chain, times, modules, origin, when, self._super_len[-1])
        rec = self.decls[module]
        for doc, index in rec.definitions:
            d = self.docs[doc].definitions[index]
            for m in d.deferred_mixins:
                if m.kind != "include":
                    continue
                dep_id = self._mixin_target(module, doc, index, m.target)
                if dep_id is not None and dep_id not in seen:
                    self._include_with_dependencies(chain, times, dep_id, origin, seen, when)

    def _mixin_target(self, decl_id: int, doc: int, index: int, target: ConstPath | int | None, external: bool = False) -> int | None:
        if isinstance(target, int):
            return target  # Already resolved (a concern's ClassMethods).
        if target is None and external:
            site = self.cref(doc, index)
            return (site[0] if site else self.object_id) if site is not None else None
        if target is None:
            rec = self.decls[decl_id]
            return rec.attached if rec.kind == "SingletonClass" else decl_id
        if external:
            site = self.cref(doc, index)
        else:
            d = self.docs[doc].definitions[index]
            site = self.cref(doc, index) if d.lexical else self.cref(doc, d.parent)
        if site is None:
            return None
        module = self.lookup_namespace(target, site)
        if module is None:
            if not self._allow_placeholders:
                return None
            module = self._placeholder(target, site, len(target.segments))
        if self.decls[module].kind not in ("Module", "Todo"):
            self.state.diagnostics.append(
                (doc, "invalid-mixin", f"{target.text} is a {self.decls[module].kind}, not a module", target.start, target.end, "warning")
            )
            return None
        return module

    def _is_class_entry(self, decl_id: int) -> bool:
        kind = self.decls[decl_id].kind
        return kind == "Class" or kind == "SingletonClass"

    def _include(self, chain: list[int], times: list[int], modules: tuple[int, ...], origin: int, when: int, super_len: int) -> None:
        """Ruby's include: skip modules already in the chain, keep relative order.

        The last ``super_len`` entries are the superclass's chain; reaching them is reaching the
        superclass (Ruby's ``superclass_seen``), whatever the superclass has prepended."""
        c = origin
        for m in modules:
            c_seen = False
            found = False
            boundary = len(chain) - super_len
            for p in range(1, len(chain)):
                if p == c:
                    c_seen = True
                if p == origin:
                    continue
                if chain[p] == m and not self._is_class_entry(m):
                    if p >= boundary:
                        if times[p] > when:
                            continue  # Mixed into a superclass later: not there yet.
                    elif c_seen:
                        c = p
                    found = True
                    break
            if found:
                continue
            chain.insert(c + 1, m)
            times.insert(c + 1, when)
            c += 1

    def _prepend(self, chain: list[int], times: list[int], modules: tuple[int, ...], origin: int, when: int) -> int:
        """Ruby's prepend: insert ahead of the class, skipping modules already prepended."""
        c = 0
        for m in modules:
            found = False
            for p in range(1, origin):
                if chain[p] == m:
                    c = p
                    found = True
                    break
            if found:
                continue
            chain.insert(c + 1, m)
            times.insert(c + 1, when)
            c += 1
            origin += 1
        return origin

    def _member_lookup(self, decl_id: int, member: str) -> tuple[int, str] | None:
        """``find_member`` for the member phase: the method found and its visibility at this
        point of the program.

        A replay sees the namespaces it does not replay in their final state. For a method
        defined or changed later in program order than the replayed position, its state at
        that position is worked out from its definitions before it (absent when there are
        none); when that needs more than the last one (an alias, ``module_function``) or a
        method was removed on the way, the replay is abandoned for a full resolve."""
        replay = self._replay
        if replay is None:
            found = self.find_member(decl_id, member)
            return None if found is None else (found, self.decls[found].visibility)
        scope, at = replay
        for anc in self.ancestors(decl_id):
            outside = anc not in scope
            if outside and member in self._removed_keys.get(anc, ()):
                raise _ReplayUnsafe(f"{self.decls[anc].name} had {member} removed")
            found = self.decls[anc].members.get(member)
            if found is None:
                continue
            rec = self.decls[found]
            visibility = rec.visibility
            if outside and rec.definitions and max(rec.definitions) >= at:
                before = [p for p in rec.definitions if p < at]
                if not before:
                    continue  # Not defined yet at this point: the lookup goes on.
                visibility = self._visibility_at(rec, max(before))
            return None if visibility == "undefined" else (found, visibility)
        return None

    def _visibility_at(self, rec: DeclarationRecord, last: tuple[int, int]) -> str:
        """A method's visibility right after its definition ``last`` (see ``_member_lookup``)."""
        d = self.docs[last[0]].definitions[last[1]]
        if d.kind in ("Method", "AttrReader", "AttrWriter", "AttrAccessor") and not d.module_function:
            return d.visibility
        if d.kind == "MethodVisibility" and d.visibility in ("public", "protected", "private", "undefined"):
            return d.visibility
        raise _ReplayUnsafe(f"{rec.name} changes later in a way the replay does not follow")

    def find_member(self, decl_id: int, member: str) -> int | None:
        for anc in self.ancestors(decl_id):
            found = self.decls[anc].members.get(member)
            if found is not None:
                return None if self.decls[found].visibility == "undefined" else found
        return None

    # -- phase 4: references -------------------------------------------------------------

    def _phase_references(self) -> None:
        const_targets: list[list[int | None]] = []
        receivers: list[list[int | None]] = []
        for doc in range(len(self.docs)):
            targets, recv = self._document_references(doc)
            const_targets.append(targets)
            receivers.append(recv)
        self.state.constant_targets = const_targets
        self.state.method_receivers = receivers

    def _document_references(self, doc: int) -> tuple[list[int | None], list[int | None]]:
        """Resolved constant references and method-call receivers of one document."""
        result = self.docs[doc]
        targets: list[int | None] = []
        for ref in result.const_refs:
            site = self.cref(doc, ref.scope)
            targets.append(self.lookup_path(ref.path, site) if site is not None else None)
        recv: list[int | None] = []
        self_cache: dict[int, int | None] = {}
        for mref in result.method_refs:
            rk = mref.receiver_kind
            if rk <= 1:
                if mref.scope not in self_cache:
                    self_cache[mref.scope] = self.self_class(doc, mref.scope, False)
                recv.append(self_cache[mref.scope])
            elif rk == 2 or rk == 3:
                site = self.cref(doc, mref.scope)
                ns = self.lookup_namespace(mref.receiver, site) if site is not None and mref.receiver else None
                if ns is not None and rk == 2:
                    ns = self.decls[ns].singleton  # None for a placeholder: nothing to look up there.
                recv.append(ns)
            else:
                recv.append(None)
        return targets, recv

    # -- incremental ---------------------------------------------------------------------

    def refresh_document(self, new: FileResult) -> ResolvedState | None:
        """A new state for an edit of one document that leaves its definitions as they were
        (same kinds, names, nesting, mixins, visibility; only positions, comments, signatures
        and the code inside method bodies changed), or None when a full resolve is needed.

        Everything but the document's own references is then provably unchanged, so the new
        state shares the declarations and ancestors and only re-resolves that document's
        references and moves its diagnostics. The previous state is left intact."""
        index = next((i for i, d in enumerate(self.docs) if d.uri == new.uri), None)
        if index is None:
            return None
        old = self.docs[index]
        if _signature(old) != _signature(new):
            return None
        moved = _position_map(old, new)
        diagnostics = []
        for diag in self.state.diagnostics:
            if diag[0] == index:
                span = moved.get((diag[3], diag[4]))
                if span is None:
                    return None
                diag = (diag[0], diag[1], diag[2], span[0], span[1], diag[5])
            diagnostics.append(diag)
        docs = list(self.docs)
        docs[index] = new
        self.docs = docs
        previous = self.state
        state = _successor(previous, docs, previous.declarations, previous.by_name, previous.definition_declarations, diagnostics)
        self.state = state
        state.constant_targets[index], state.method_receivers[index] = self._document_references(index)
        return state

    def _descendants(self) -> dict[int, list[int]]:
        """Namespace -> the namespaces that have it among their ancestors (built on first use)."""
        if self._descendant_index is None:
            index: dict[int, list[int]] = {}
            for decl_id, chain in self._ancestors.items():
                for anc in chain:
                    if anc != decl_id:
                        index.setdefault(anc, []).append(decl_id)
            self._descendant_index = index
        return self._descendant_index

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
                if ns in scope:
                    continue
                scope.add(ns)
                if len(scope) > _MAX_REPLAY_NAMESPACES:
                    raise _ReplayUnsafe("the edit reaches too many namespaces")
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

    def refresh_members(self, new: FileResult) -> ResolvedState | None:
        """A new state for an edit of one document that changes only its members (methods,
        attributes, aliases, variables, method visibility): same namespaces, constants,
        mixins, superclasses and requires. None when a full resolve is needed.

        Namespaces, constants and ancestors are then unchanged. The members of the namespaces
        the edit writes into, their singleton classes and their descendants are dropped and
        the member definitions writing into them, from every document, are replayed in program
        order. The new state shares everything else with the previous one, which is left
        intact (records are copied before they change)."""
        index = next((i for i, d in enumerate(self.docs) if d.uri == new.uri), None)
        if index is None:
            return None
        self._load_members()
        old = self.docs[index]
        old_skeleton, new_skeleton = _skeleton(old), _skeleton(new)
        if old_skeleton is None or new_skeleton is None:
            return None
        added: list[int] = []
        removed: list[int] = []
        if old_skeleton[0] == new_skeleton[0]:
            remap = dict(zip(old_skeleton[1], new_skeleton[1], strict=True))
        else:
            aligned = _skeleton_diff(old_skeleton, new_skeleton)
            if aligned is None:
                return None
            remap, added, removed = aligned
        prev = self.state
        saved = (self._external, self._ancestors, self._times, self._descendant_index)
        saved_rounds: dict[int, int] | None = self._rounds[index]
        try:
            state = self._replay_members(index, old, new, remap, added, removed)
        except _ReplayUnsafe:
            self.docs, self.decls, self.by_name = prev.documents, prev.declarations, prev.by_name
            self.def_decl, self.state = prev.definition_declarations, prev
            self._external, self._ancestors, self._times, self._descendant_index = saved
            if saved_rounds is not None:
                self._rounds[index] = saved_rounds
            self._crefs[index] = {}
            self._lookup_cache.clear()
            return None
        finally:
            self._replay = None
        return state

    def _replay_members(
        self, index: int, old: FileResult, new: FileResult, remap: dict[int, int], added: list[int], removed: list[int]
    ) -> ResolvedState:
        prev = self.state
        gone, bodies = self._removable(index, old, new, removed) if removed else ([], [])
        dropped: set[tuple[int, int]] = set()
        for o in removed:
            dropped |= _spans(old.definitions[o])
        # Diagnostics: this document's skeleton ones move with their definitions (those of
        # removed definitions go); member ones are reported again by the replay.
        moved = _position_map(old, new, remap.items())
        diagnostics = []
        for diag in prev.diagnostics:
            if diag[0] == index:
                if diag[1] in _MEMBER_CODES or (diag[3], diag[4]) in dropped:
                    continue
                span = moved.get((diag[3], diag[4]))
                if span is None:
                    raise _ReplayUnsafe("a diagnostic cannot be moved")
                diag = (diag[0], diag[1], diag[2], span[0], span[1], diag[5])
            diagnostics.append(diag)
        docs = list(self.docs)
        docs[index] = new
        decls = dict(prev.declarations)
        by_name = dict(prev.by_name)
        def_decl = list(prev.definition_declarations)
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
                        raise _ReplayUnsafe(f"{rec.name} has a member definition attached")
                    i = remap[i]
                moved_defs.append((doc, i))
            rec.definitions = moved_defs
        def_decl[index] = row
        old_rounds = self._rounds[index]
        self._rounds[index] = {remap[o]: r for o, r in old_rounds.items() if o in remap}
        self.docs, self.decls, self.by_name, self.def_decl = docs, decls, by_name, def_decl
        state = _successor(prev, docs, decls, by_name, def_decl, diagnostics)
        self.state = state
        self._crefs[index] = {}
        if old.external_mixins:
            renamed = {id(a.mixin): (index, b.scope, b.mixin) for a, b in zip(old.external_mixins, new.external_mixins, strict=True)}
            self._external = {
                ns: [renamed.get(id(e[2]), e) if e[0] == index else e for e in entries] for ns, entries in self._external.items()
            }
        also_refresh = self._declare_added(index, new, added, own) if added else set()

        # Owners of the new member definitions, computed as the member phase would.
        new_members: list[tuple[int, int | None]] = []
        method_owners: dict[int, int | None] = {}
        for i, d in enumerate(new.definitions):
            if d.kind in _MEMBER_DEF_KINDS:
                owner = self._member_owner(index, i, d, method_owners, False)
                if d.kind == "Method":
                    method_owners[i] = owner
                new_members.append((i, owner))
        old_owners = self._doc_owners[index]
        new_owners = {o for _, o in new_members}
        keys: set[str] = set()
        for d in old.definitions:
            if d.kind in _MEMBER_DEF_KINDS:
                keys.update(_member_keys(d))
        for i, new_owner in new_members:
            keys.update(_member_keys(new.definitions[i]))
            if new_owner is not None and (new.definitions[i].kind == "MethodAlias" or new.definitions[i].kind == "MethodVisibility"):
                self._note_lookup(new_owner, new.definitions[i])
        scope = self._replay_scope({o for o in old_owners | new_owners if o is not None}, keys, index)
        if not scope.isdisjoint(self._member_created):
            raise _ReplayUnsafe("the edit touches a namespace the member phase created")
        owner_of: dict[tuple[int, int], int | None] = {}
        for ns in scope:
            for key in self._member_index.get(ns, ()):
                if key[0] != index:
                    owner_of[key] = ns
        for i, new_owner in new_members:
            owner_of[(index, i)] = new_owner
        if len(owner_of) > _MAX_REPLAY_DEFINITIONS:
            raise _ReplayUnsafe("the edit reaches too many member definitions")
        order = sorted(owner_of)
        rows_copied = {index}
        for doc, _ in order:
            if doc not in rows_copied:
                def_decl[doc] = list(def_decl[doc])
                rows_copied.add(doc)
        # Other documents' member diagnostics are reported again by the replay.
        replayed_spans = {(doc, docs[doc].definitions[i].start, docs[doc].definitions[i].end) for doc, i in order if doc != index}
        if replayed_spans:
            state.diagnostics = diagnostics = [
                x for x in diagnostics if not (x[1] in _MEMBER_CODES and (x[0], x[3], x[4]) in replayed_spans)
            ]

        # Drop the members of the scope, keeping the namespaces and constants it holds. (The
        # order of a members table is never observable: every answer sorts or looks up by key.)
        for ns in scope:
            rec = own(ns)
            kept: dict[str, int] = {}
            for name, member in rec.members.items():
                mrec = decls.get(member)
                if mrec is not None and mrec.kind in _MEMBER_DECL_KINDS and mrec.owner == ns:
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
            self._replay = (scope, key)
            self._apply_member(doc, i, docs[doc].definitions[i], owner_of[key])
        self._replay = None
        if gone:
            also_refresh |= self._remove_declarations(index, gone, own)

        # References: this document's, and those of documents whose methods changed declaration
        # (calls inside a removed method have no known receiver).
        refresh = {index} | also_refresh
        for doc, i in order:
            if doc != index and def_decl[doc][i] != prev.definition_declarations[doc][i] and docs[doc].definitions[i].kind == "Method":
                refresh.add(doc)
        for doc in sorted(refresh):
            state.constant_targets[doc], state.method_receivers[doc] = self._document_references(doc)

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
        if self._path_names is not None:
            self._path_names[index] = _path_names(new)
        return state

    def _removable(
        self, index: int, old: FileResult, new: FileResult, removed: list[int]
    ) -> tuple[list[int], list[tuple[int, tuple[int, int]]]]:
        """What removing definitions ``removed`` of document ``index`` does, when nothing else
        can notice: the declarations it deletes (each had only that definition, nothing
        inherits from it, its name is mentioned by no constant path elsewhere, and it holds
        nothing but members and other removed declarations), and the ``class << self`` bodies
        (without mixins) that their singleton classes, which stay, lose: (declaration,
        definition). Raises _ReplayUnsafe otherwise."""
        row = self.def_decl[index]
        gone: list[int] = []
        bodies: list[tuple[int, tuple[int, int]]] = []
        for o in removed:
            d = old.definitions[o]
            if d.kind not in ("Class", "Module", "Constant", "SingletonClass"):
                raise _ReplayUnsafe(f"removing a {d.kind} needs a full resolve")
            decl_id = row[o]
            if decl_id is None:
                continue  # It declared nothing (a dynamic or unplaceable constant).
            rec = self.decls[decl_id]
            if d.kind == "SingletonClass":
                if d.mixins or d.deferred_mixins:
                    raise _ReplayUnsafe("a removed ``class << self`` body had mixins")
                bodies.append((decl_id, (index, o)))
                continue
            if len(rec.definitions) > 1 and d.kind in ("Class", "Module") and rec.kind == d.kind:
                # A reopening goes; the namespace stays with its other definitions.
                if d.superclass is not None or d.superclass_self or d.mixins or d.deferred_mixins:
                    raise _ReplayUnsafe(f"a removed reopening of {rec.name} had a superclass or mixins")
                bodies.append((decl_id, (index, o)))
                continue
            if rec.definitions != [(index, o)]:
                raise _ReplayUnsafe(f"{rec.name} has other definitions")
            # A placeholder it caused (``< Missing``, ``include Missing``, ``class Missing::X``)
            # would go with it in a full resolve.
            site = self.cref(index, d.parent)
            paths = [(p, len(p.segments)) for p in (d.superclass,) if p is not None]
            paths += [(m.target, len(m.target.segments)) for m in (*d.mixins, *d.deferred_mixins) if m.target is not None]
            if d.path is not None and len(d.path.segments) > 1:
                paths.append((d.path, len(d.path.segments) - 1))
            for path, upto in paths:
                target = self.lookup_namespace(path, site, upto) if site is not None else None
                if target is None or self.decls[target].kind == "Todo":
                    raise _ReplayUnsafe(f"{rec.name} refers to a placeholder")
            gone.append(decl_id)
        mentioned = self._mentioned_names()
        own_mentions = _path_names(new, lambda i, d: d.kind not in _MEMBER_DEF_KINDS)
        descendants = self._descendants()
        gone_set = set(gone)
        for decl_id in gone:
            rec = self.decls[decl_id]
            name = rec.unqualified
            if name in _CONCERN_NAMES or name in own_mentions or any(name in mentioned[doc] for doc in range(len(mentioned)) if doc != index):
                raise _ReplayUnsafe(f"{name} is mentioned elsewhere")
            holders = self._holders(decl_id)
            for holder in holders:
                if descendants.get(holder) and set(descendants[holder]) - set(holders):
                    raise _ReplayUnsafe(f"{self.decls[holder].name} has descendants")
                hrec = self.decls[holder]
                if holder == holders[-1] and hrec.singleton is not None and holder != decl_id:
                    raise _ReplayUnsafe(f"{hrec.name} has a singleton class")
                if len(holders) == 3:
                    # Its chain declared singleton classes of the superclasses' singleton
                    # classes, which a full resolve might not declare any more.
                    raise _ReplayUnsafe(f"{hrec.name} had ``class << self`` bodies")
                for member in hrec.members.values():
                    if member not in gone_set and self.decls[member].kind not in _MEMBER_DECL_KINDS:
                        raise _ReplayUnsafe(f"{self.decls[member].name} would be left without its namespace")
        # Bodies of singleton classes that go anyway need no separate removal. A singleton
        # class left with no body loses the singleton class its bodies declared (see ``run``).
        kept_bodies = [(decl_id, pair) for decl_id, pair in bodies if self.decls[decl_id].attached not in gone_set]
        for decl_id in {decl_id for decl_id, _ in kept_bodies}:
            rec = self.decls[decl_id]
            removed_pairs = {pair for d, pair in kept_bodies if d == decl_id}
            if rec.singleton is not None and all(p in removed_pairs for p in rec.definitions):
                raise _ReplayUnsafe(f"{rec.name} loses its last body")
        return gone, kept_bodies

    def _holders(self, decl_id: int) -> list[int]:
        """A namespace, its singleton class and that one's singleton class (the ones that exist)."""
        out = [decl_id]
        while len(out) < 3:
            single = self.decls[out[-1]].singleton
            if single is None:
                break
            out.append(single)
        return out

    def _remove_declarations(self, index: int, gone: list[int], own: Callable[[int], DeclarationRecord]) -> set[int]:
        """Delete ``gone`` (checked by ``_removable``) with their singleton classes and member
        declarations; returns the documents whose references mention their names."""
        if self._times_raw is not None:
            self._load_times()
        self._ancestors = dict(self._ancestors)
        self._times = dict(self._times)
        self.state.ancestors = self._ancestors
        names: set[str] = set()
        doomed_all: list[int] = []
        chains: dict[int, tuple[int, ...]] = {}
        for decl_id in gone:
            rec = self.decls.get(decl_id)
            if rec is None:
                continue
            names.add(rec.unqualified)
            doomed = self._holders(decl_id)
            doomed_all += doomed
            for holder in doomed:
                chains[holder] = self._ancestors.get(holder, ())
            for holder in doomed:
                hrec = self.decls.pop(holder)
                self.by_name.pop(hrec.name, None)
                for member in hrec.members.values():
                    mrec = self.decls.get(member)
                    if mrec is not None and mrec.kind in _MEMBER_DECL_KINDS:
                        self.decls.pop(member)
                        self.by_name.pop(mrec.name, None)
                self._ancestors.pop(holder, None)
                self._times.pop(holder, None)
                self._superclass_done.discard(holder)
                self._member_index.pop(holder, None)
                self._lookup_keys.pop(holder, None)
            owner = rec.owner
            if owner is not None and owner in self.decls and self.decls[owner].members.get(rec.unqualified) == decl_id:
                del own(owner).members[rec.unqualified]
        self._lookup_cache.clear()
        self._alias_cache.clear()
        if self._descendant_index is not None:
            for holder in doomed_all:
                for anc in chains.get(holder, ()):
                    entries = self._descendant_index.get(anc)
                    if entries is not None and holder in entries:
                        entries.remove(holder)
        self._constant_name_set = None
        return self._documents_mentioning(names, index)

    def _documents_mentioning(self, names: set[str], skip: int) -> set[int]:
        """Documents (but ``skip``) with a constant reference or call receiver naming one of ``names``."""
        cache = self._reference_names
        found: set[int] = set()
        for doc, result in enumerate(self.docs):
            if doc == skip:
                continue
            entry = cache.get(doc)
            if entry is None or entry[0] is not result:
                used: set[str] = set()
                for ref in result.const_refs:
                    used.update(ref.path.segments)
                for call in result.method_refs:
                    if call.receiver is not None:
                        used.update(call.receiver.segments)
                entry = cache[doc] = (result, used)
            if not names.isdisjoint(entry[1]):
                found.add(doc)
        return found

    def _constant_names(self) -> set[str]:
        """Unqualified names of every constant declaration (built once, kept current)."""
        if self._constant_name_set is None:
            self._constant_name_set = {rec.unqualified for rec in self.decls.values() if rec.kind in CONSTANT_KINDS}
        return self._constant_name_set

    def _mentioned_names(self) -> list[set[str]]:
        """Per document, every name its definitions' constant paths mention (see ``_path_names``)."""
        if self._path_names is None:
            self._path_names = [_path_names(d) for d in self.docs]
        return self._path_names

    def _declare_added(self, index: int, new: FileResult, added: list[int], own: Callable[[int], DeclarationRecord]) -> set[int]:
        """Declare namespaces and constants that an edit added to document ``index`` (already
        installed), when nothing else can notice them: each has a name no constant anywhere
        has and no constant path anywhere else mentions (so no lookup result, placeholder or
        receiver elsewhere changes), a plain name, and a superclass and mixins that resolve.
        Declares them as phase 1 would, with their singleton classes and ancestors; returns
        the documents whose references mention the new names (resolved again by the caller)."""
        if self._times_raw is not None:
            self._load_times()
        # Chains are added for the new namespaces: the previous state keeps its own tables.
        self._ancestors = dict(self._ancestors)
        self._times = dict(self._times)
        self.state.ancestors = self._ancestors
        taken = self._constant_names()
        mentioned = self._mentioned_names()
        # This document's own mentions, outside what is being added or replayed anyway.
        skip = set(added)
        own_mentions = _path_names(new, lambda i, d: i not in skip and d.kind not in _MEMBER_DEF_KINDS)
        before = len(self.decls)
        names: set[str] = set()
        created: list[int] = []
        rounds = self._rounds[index]
        defs = new.definitions
        for i in added:
            d = defs[i]
            if d.kind not in ("Class", "Module", "Constant", "SingletonClass"):
                raise _ReplayUnsafe(f"an added {d.kind} needs a full resolve")
            if self._inside_method(defs, d):
                self.state.diagnostics.append(_dynamic_constant(index, d))
                continue
            site = self.cref(index, d.parent)
            if site is None:
                raise _ReplayUnsafe("an added definition sits in an undeclared scope")
            # Phase 1 would declare it in the round of its enclosing definition (the first for
            # top-level ones): where it goes among a reopened declaration's definitions.
            parent = d.parent
            while parent >= 0 and defs[parent].kind in _MEMBER_DEF_KINDS:
                parent = defs[parent].parent
            round_no = rounds.get(parent) if parent >= 0 else 0
            if round_no is None:
                raise _ReplayUnsafe("an added definition's enclosing definition was never declared")
            reopened: int | None = None
            if d.kind == "SingletonClass":
                attached = self._namespace_owner(index, d.parent)
                if d.target is not None or attached is None:
                    raise _ReplayUnsafe("only ``class << self`` bodies are declared incrementally")
                if attached not in created:
                    # Another body of an existing singleton class: it must have had one already
                    # (a first body would declare that singleton class's own singleton class).
                    single = self.decls[attached].singleton
                    if single is None or self.decls[single].singleton is None or d.mixins or d.deferred_mixins:
                        raise _ReplayUnsafe("a first or mixing ``class << self`` body needs a full resolve")
                    reopened = single
            else:
                path = d.path
                assert path is not None
                name = path.segments[-1]
                owner = site[0] if site else self.object_id
                existing = self._member_constant(owner, name) if len(path.segments) == 1 and not path.absolute else None
                if existing is not None and d.kind in ("Class", "Module") and self.decls[existing].kind == d.kind:
                    # A reopening: it adds a definition and nothing else, if it brings no
                    # superclass or mixins.
                    if d.superclass is not None or d.superclass_self or d.mixins or d.deferred_mixins or existing == owner:
                        raise _ReplayUnsafe(f"reopening {name} with a superclass or mixins needs a full resolve")
                    reopened = existing
                else:
                    if len(path.segments) != 1 or path.absolute or name in taken or name in names or name in _CONCERN_NAMES:
                        raise _ReplayUnsafe(f"{name} is not a fresh plain name")
                    if name in own_mentions or any(name in mentioned[doc] for doc in range(len(mentioned)) if doc != index):
                        raise _ReplayUnsafe(f"{name} is mentioned elsewhere")
                    names.add(name)
                    own(owner)
            if reopened is not None:
                own(reopened)
            if not self._declare_definition(index, i, d, False):
                raise _ReplayUnsafe("an added definition cannot be declared")
            rounds[i] = round_no
            decl_id = self.def_decl[index][i]
            if reopened is not None:
                if decl_id != reopened:
                    raise _ReplayUnsafe("a reopening declared something else")
                rec = self.decls[reopened]
                order = [(self._rounds[doc].get(j), doc, j) for doc, j in rec.definitions]
                if any(r is None for r, _, _ in order):
                    raise _ReplayUnsafe(f"{rec.name} has definitions of unknown rounds")
                rec.definitions = [(doc, j) for _, doc, j in sorted(order)]  # type: ignore[type-var]
                continue
            if decl_id is not None and decl_id not in created and d.kind != "SingletonClass":
                created.append(decl_id)
        # Lookups cached before may have missed the new names.
        self._lookup_cache.clear()
        # Superclasses and mixins must resolve (else a full resolve would create placeholders).
        for i in added:
            d = defs[i]
            if d.superclass is not None and not d.superclass_self:
                site = self.cref(index, d.parent)
                target = self.lookup_namespace(d.superclass, site) if site is not None else None
                if target is None or self.decls[target].kind != "Class":
                    raise _ReplayUnsafe("an added superclass does not resolve to a class")
            for m in (*d.mixins, *d.deferred_mixins):
                if m.target is not None:
                    site = self.cref(index, i) if d.lexical else self.cref(index, d.parent)
                    target = self.lookup_namespace(m.target, site) if site is not None else None
                    if target is None or self.decls[target].kind != "Module":
                        raise _ReplayUnsafe("an added mixin does not resolve to a module")
        for decl_id in created:
            if self.decls[decl_id].kind in ("Class", "Module"):
                self.singleton(decl_id)
        namespaces = [d for d in created if self.decls[d].is_namespace]
        # ``class << self`` bodies declare their singleton class's singleton class (see ``run``).
        created_set = set(created)
        bodies = {
            b for i in added if defs[i].kind == "SingletonClass" and (b := self.def_decl[index][i]) is not None and self.decls[b].attached in created_set
        }
        for decl_id in namespaces:
            self.ancestors(decl_id)
            self.ancestors(self.singleton(decl_id))
        for body in bodies:
            assert body is not None
            self.ancestors(self.singleton(body))
        if len(self.decls) != before + len(created) + len(namespaces) + len(bodies):
            raise _ReplayUnsafe("declaring the additions created placeholders")
        fresh_ids: set[int] = set(created)
        for holder in (*namespaces, *(b for b in bodies if b is not None)):
            single = self.decls[holder].singleton
            if single is not None:
                fresh_ids.add(single)
        if self._descendant_index is not None:
            for new_id in fresh_ids:
                if self.decls[new_id].is_namespace:
                    for anc in self._ancestors.get(new_id, ()):
                        if anc != new_id:
                            self._descendant_index.setdefault(anc, []).append(new_id)
        taken.update(names)
        return self._documents_mentioning(names, index)


    # -- persistence ---------------------------------------------------------------------

    def _load_times(self) -> None:
        assert self._times_raw is not None
        times = msgspec.msgpack.decode(self._times_raw, type=list[tuple[int, ...]])
        self._times_raw = None
        self._times = dict(zip(self._ancestors, times, strict=True))

    def _load_members(self) -> None:
        if self._members_raw is None:
            return
        book = msgspec.msgpack.decode(self._members_raw, type=MemberBookkeeping)
        self._members_raw = None
        self._member_index = book.member_index
        self._doc_owners = [set(o) for o in book.doc_owners]
        self._rounds = book.rounds
        self._lookup_keys = {k: set(v) for k, v in book.lookup_keys.items()}

    def export(self, fingerprint: str) -> ResolvedImage:
        """The resolved state and the bookkeeping later queries and edits need, as plain data."""
        if self._times_raw is not None:
            self._load_times()
        self._load_members()
        state = self.state
        externals = []
        for ns, entries in self._external.items():
            for doc, _scope, mixin in entries:
                position = next(i for i, e in enumerate(self.docs[doc].external_mixins) if e.mixin is mixin)
                externals.append((ns, doc, position))
        return ResolvedImage(
            fingerprint=fingerprint,
            uris=[d.uri for d in self.docs],
            declarations=list(self.decls.values()),
            definition_declarations=self.def_decl,
            constant_targets=state.constant_targets,
            method_receivers=state.method_receivers,
            ancestor_ids=list(self._ancestors),
            ancestors=list(self._ancestors.values()),
            diagnostics=state.diagnostics,
            object_id=self.object_id,
            object_mixins=self._object_mixins,
            externals=externals,
            concern_deps=self._concern_deps,
            concern_cache=self._concern_cache,
            member_created=sorted(self._member_created),
            removed_keys={k: sorted(v) for k, v in self._removed_keys.items()},
            members=msgspec.Raw(
                msgspec.msgpack.encode(
                    MemberBookkeeping(
                        member_index=self._member_index,
                        doc_owners=[sorted(o, key=lambda x: -1 if x is None else x) for o in self._doc_owners],
                        lookup_keys={k: sorted(v) for k, v in self._lookup_keys.items()},
                        rounds=self._rounds,
                    )
                )
            ),
            times=msgspec.Raw(msgspec.msgpack.encode([self._times[d] for d in self._ancestors])),
        )

    @classmethod
    def restore(cls, documents: list[FileResult], image: ResolvedImage) -> Resolver:
        """A resolver in the state ``export`` saved; ``documents`` are the image's, in its order."""
        self = cls(documents, restoring=True)
        decls = {rec.id: rec for rec in image.declarations}
        self.decls = self.state.declarations = decls
        self.by_name = self.state.by_name = {rec.name: rec.id for rec in image.declarations}
        self.def_decl = self.state.definition_declarations = image.definition_declarations
        self.state.constant_targets = image.constant_targets
        self.state.method_receivers = image.method_receivers
        self.state.diagnostics = image.diagnostics
        self._ancestors = self.state.ancestors = dict(zip(image.ancestor_ids, image.ancestors, strict=True))
        self._times_raw = image.times.copy()  # A copy: the Raw would keep the whole file alive.
        self.object_id = self.state.object_id = image.object_id
        self.basic_object_id = self.by_name["BasicObject"]
        self.kernel_id = self.by_name["Kernel"]
        self.module_id = self.by_name["Module"]
        self.class_id = self.by_name["Class"]
        self._object_mixins = image.object_mixins
        self._superclass_done = set(decls)
        for ns, doc, position in image.externals:
            ext = documents[doc].external_mixins[position]
            self._external.setdefault(ns, []).append((doc, ext.scope, ext.mixin))
        self._concern_deps = image.concern_deps
        self._concern_cache = image.concern_cache
        self._concerns_known = True
        self._allow_placeholders = True
        self._members_raw = image.members.copy()
        self._member_created = set(image.member_created)
        self._removed_keys = {k: set(v) for k, v in image.removed_keys.items()}
        return self

    # -- driver --------------------------------------------------------------------------

    def run(self) -> ResolvedState:
        self._bootstrap()
        self._phase_namespaces()
        self._invalidate()
        self._collect_external_mixins()
        # Decide which modules are concerns before any ancestors are kept: deciding needs
        # constant lookups, and lookups compute ancestors, which depend on the answer.
        self._concerns_known = False
        for decl_id in [d for d, r in self.decls.items() if r.kind == "Module"]:
            self.is_concern(decl_id)
        self._concerns_known = True
        self._invalidate(keep_concerns=True)
        self._allow_placeholders = True
        # ``self`` in a ``class << x`` body is the singleton class's singleton class: declared
        # here, from the definitions alone, so that no reference or member creates it (which
        # would make the set of declarations depend on code inside bodies).
        for decl_id in [d for d, r in self.decls.items() if r.kind == "SingletonClass" and r.definitions]:
            self.singleton(decl_id)
        self._phase_members()
        # Every class and module gets its singleton class, so ``Foo::<Foo>`` always exists.
        for decl_id in [d for d, r in self.decls.items() if r.kind in ("Class", "Module")]:
            self.singleton(decl_id)
        namespaces = [d for d, r in self.decls.items() if r.is_namespace]
        for decl_id in namespaces:
            self.ancestors(decl_id)
        for decl_id in [d for d, r in self.decls.items() if r.kind == "SingletonClass"]:
            self.ancestors(decl_id)
        for decl_id, rec in self.decls.items():
            if rec.kind == "ConstantAlias":
                self.follow(decl_id)
        self._phase_references()
        self.state.ancestors = self._ancestors
        return self.state
