"""Navigation questions over a resolved graph: references, definition, hover, completion, dead code.

Reads a resolved state and never changes it. Positions come in as (path, 1-based line, 0-based
byte column) and are turned into byte offsets through ``rdx.model.text``; everything found at a
position is the smallest definition name, constant reference or call that contains it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import msgspec

from rdx.model.kinds import ReceiverKind
from rdx.model.public import Location
from rdx.model.records import BUNDLER_REQUIRE, FileResult
from rdx.model.store import CORE_URI
from rdx.model.text import position_to_offset
from rdx.ruby.query.handles import Declaration, Definition, View

__all__ = [
    "Completion",
    "Hover",
    "Reference",
    "Target",
    "completions_at",
    "declaration_at",
    "dead_code_candidates",
    "definition_at",
    "hover_at",
    "references_to",
]

_COMPLETABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[?!=]?$")
_IDENT_TAIL = re.compile(rb"[A-Za-z0-9_?!]*$")
_CONST_PATH_TAIL = re.compile(rb"(?:::)?(?:[A-Z][A-Za-z0-9_]*::)*[A-Z][A-Za-z0-9_]*$")
_RECEIVER_TAIL = re.compile(rb"(self|@{0,2}[A-Za-z_][A-Za-z0-9_]*|(?:::)?(?:[A-Z][A-Za-z0-9_]*::)*[A-Z][A-Za-z0-9_]*(?:\.new)?)$")
# Methods Ruby calls by itself; never reported as dead.
_IMPLICIT_METHODS = frozenset({
    "initialize", "initialize_copy", "method_missing", "respond_to_missing?", "included", "extended",
    "prepended", "inherited", "append_features", "method_added", "const_missing", "to_s", "inspect",
    "to_str", "to_ary", "to_proc", "to_h", "to_hash", "each", "<=>", "==", "hash", "eql?", "call",
    "coerce", "marshal_dump", "marshal_load", "_dump", "_load",
})


class Reference(msgspec.Struct, frozen=True):
    """One use of a declaration. ``certain`` is False for name-only matches of a method whose
    receiver could not be resolved (the call may or may not reach it)."""

    kind: str  # "constant" or "method"
    name: str
    location: Location
    certain: bool
    receiver: str | None = None
    # The graph revision the answer comes from (larger later: this one may be stale).
    revision: int = -1


class Target(msgspec.Struct, frozen=True):
    """Where something at a position is defined: a declaration, or a required document.
    ``certain`` is False for a guess by name: a call whose receiver is unknown goes to every
    method of that name (``candidates``, their qualified names, one per location)."""

    name: str
    kind: str
    locations: list[Location]
    revision: int = -1
    certain: bool = True
    candidates: list[str] = []


class Hover(msgspec.Struct, frozen=True):
    """What is at a position. ``certain`` is False for the same guess ``definition_at`` makes
    (a call whose receiver is unknown): one method of that name is described as such; several
    give the method's name and their qualified names (``candidates``)."""

    name: str
    kind: str
    location: Location | None = None
    signature: str | None = None
    owner: str | None = None
    visibility: str | None = None
    ancestors: list[str] = []
    comments: list[str] = []
    revision: int = -1
    certain: bool = True
    candidates: list[str] = []


class Completion(msgspec.Struct, frozen=True):
    label: str
    kind: str
    detail: str  # the fully qualified name
    revision: int = -1


def _doc_index(view: View, path_or_uri: str) -> int | None:
    for i, d in view.state.documents.items():
        if d.uri == path_or_uri or d.path == path_or_uri:
            return i
    return None


def _offset(doc: FileResult, line: int, column: int) -> int:
    return position_to_offset(doc.line_starts, line, column)


# -- references ------------------------------------------------------------------------------


def references_to(view: View, decl: Declaration) -> list[Reference]:
    """Every reference to ``decl``: constants through aliases, methods through receivers."""
    if decl.kind == "Method":
        return list(_method_references(view, decl))
    return list(_constant_references(view, decl))


def _constant_references(view: View, decl: Declaration) -> Iterator[Reference]:
    resolver = view.lookup
    # The declaration itself and every constant alias that leads to it.
    wanted = {decl.id}
    for decl_id in view.constant_aliases():
        if resolver.follow(decl_id) == decl.id:
            wanted.add(decl_id)
    found_refs: list[tuple[int, int, int]] = []  # (doc, reference index, segments kept)
    for doc, result in view.state.documents.items():
        targets = view.state.constant_targets[doc]
        if wanted.isdisjoint(targets):
            continue
        for i, found in enumerate(targets):
            if found in wanted:
                found_refs.append((doc, i, len(result.const_refs[i].path.segments)))
    # ``M::Thing::CONST`` uses ``M::Thing`` (and ``M``) too: the prefixes of longer paths.
    found_refs += [(doc, i, kept) for owner, doc, i, kept in _prefix_references(view) if owner in wanted]
    for doc, i, kept in sorted(found_refs):
        path = view.state.documents[doc].const_refs[i].path
        end = path.end if kept == len(path.segments) else path.start + (2 if path.absolute else 0) + len("::".join(path.segments[:kept]).encode())
        yield Reference("constant", "::".join(path.segments[:kept]), view.location(doc, path.start, end), True, revision=view.revision)


def _prefix_references(view: View) -> list[tuple[int, int, int, int]]:
    """(namespace, document, reference index, segments) for every prefix of a resolved constant
    path that names the namespace its resolved target sits in (``A::B::C`` -> ``A::B``, ``A``),
    checked segment by segment against the owners' names. Built once per view."""
    cached = view.prefix_refs
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    state = view.state
    out: list[tuple[int, int, int, int]] = []
    for doc, result in state.documents.items():
        for i, target in enumerate(state.constant_targets.get(doc, ())):
            if target is None:
                continue
            path = result.const_refs[i].path
            segments = path.segments
            if len(segments) < 2 or path.dynamic:
                continue
            rec = state.declarations.get(target)
            for kept in range(len(segments) - 1, 0, -1):
                owner = state.declarations.get(rec.owner) if rec is not None and rec.owner is not None else None
                if owner is None or owner.unqualified != segments[kept - 1]:
                    break
                out.append((owner.id, doc, i, kept))
                rec = owner
    view.prefix_refs = out
    return out


def _method_references(view: View, decl: Declaration) -> Iterator[Reference]:
    state = view.state
    rec = state.declarations[decl.id]
    owner = rec.owner
    name = rec.unqualified.removesuffix("()")
    descendants = set(view.descendants().get(owner, ())) | {owner} if owner is not None else set()
    for doc, i in view.call_sites(name):
        ref = state.documents[doc].method_refs[i]
        recv = state.method_receivers[doc][i]
        if recv is None:
            yield Reference("method", name, view.location(doc, ref.start, ref.end), False, _receiver_text(ref), revision=view.revision)
        elif recv in descendants and decl.id in (view.lookup.implementation(recv, rec.unqualified) or ()):
            yield Reference("method", name, view.location(doc, ref.start, ref.end), True, _receiver_text(ref), revision=view.revision)


def _receiver_text(ref) -> str | None:  # type: ignore[no-untyped-def]
    if ref.receiver is not None:
        return ref.receiver.text + (".new" if ref.receiver_kind == ReceiverKind.CONSTANT_INSTANCE else "")
    if ref.receiver_kind == ReceiverKind.SELF:
        return "self"
    return ref.receiver_text


# -- what is at a position -------------------------------------------------------------------


def _thing_at(view: View, doc: int, offset: int):  # type: ignore[no-untyped-def]
    """The smallest definition name, constant reference, call or require containing ``offset``."""
    result = view.state.documents[doc]
    best = None
    best_size = None

    def consider(start: int, end: int, item) -> None:  # type: ignore[no-untyped-def]
        nonlocal best, best_size
        if start <= offset <= end and (best_size is None or end - start < best_size):
            best, best_size = item, end - start

    for i, d in enumerate(result.definitions):
        consider(d.name_start, d.name_end, ("definition", i))
    for i, c in enumerate(result.const_refs):
        consider(c.path.start, c.path.end, ("constant", i))
    for i, m in enumerate(result.method_refs):
        consider(m.start, m.end, ("method", i))
    for i, r in enumerate(result.requires):
        if r.start <= offset <= r.end and not r.path.startswith(BUNDLER_REQUIRE):
            return ("require", i)  # The whole require call, name included, goes to the file.
    return best


def _declaration_at(view: View, doc: int, offset: int) -> int | None:
    found = _thing_at(view, doc, offset)
    if found is None:
        return None
    kind, i = found
    state = view.state
    if kind == "definition":
        return state.definition_declarations[doc][i]
    if kind == "constant":
        return state.constant_targets[doc][i]
    if kind == "method":
        recv = state.method_receivers[doc][i]
        if recv is None:
            return None
        # A visibility copy (``private :m`` in a subclass) runs the method it copies.
        found = view.lookup.implementation(recv, state.documents[doc].method_refs[i].name + "()")
        return found[1] if found is not None else None
    return None


def declaration_at(view: View, path: str, line: int, column: int) -> Declaration | None:
    """The declaration named at a position (a definition's name, a constant, a call whose
    receiver resolves), or None."""
    doc = _doc_index(view, path)
    if doc is None:
        return None
    return view.declaration(_declaration_at(view, doc, _offset(view.state.documents[doc], line, column)))


def _position(view: View, path: str, line: int, column: int) -> tuple[int, FileResult, int, tuple | None] | None:
    """The document at ``path``, its record, the byte offset and what sits there
    (``_thing_at``); None for a document the graph does not hold."""
    doc = _doc_index(view, path)
    if doc is None:
        return None
    result = view.state.documents[doc]
    offset = _offset(result, line, column)
    return doc, result, offset, _thing_at(view, doc, offset)


def definition_at(view: View, path: str, line: int, column: int) -> Target | None:
    at = _position(view, path, line, column)
    if at is None:
        return None
    doc, result, offset, found = at
    if found is None:
        return None
    if found[0] == "require":
        req = result.requires[found[1]]
        target = _require_target(view, result, req)
        if target is None:
            return None
        return Target(req.path, "Document", [Location(target.path or target.uri, 1, 0, 1, 0, target.uri)], revision=view.revision)
    if found[0] == "method" and view.state.method_receivers[doc][found[1]] is None:
        guesses = _guesses(view, result.method_refs[found[1]].name + "()")
        if not guesses:
            return None
        return Target(
            result.method_refs[found[1]].name + "()", "Method", [loc for _, loc in guesses], revision=view.revision, certain=False,
            candidates=[view.state.declarations[d].name for d, _ in guesses],
        )
    decl_id = _declaration_at(view, doc, offset)
    if decl_id is None:
        return None
    decl = Declaration(view, decl_id)
    target_decl = decl.target if decl.kind == "ConstantAlias" and decl.target is not None else decl
    return Target(target_decl.name, target_decl.kind, [d.location for d in target_decl.definitions], revision=view.revision)


def _require_target(view: View, doc: FileResult, req) -> FileResult | None:  # type: ignore[no-untyped-def]
    import posixpath

    name = req.path if req.path.endswith(".rb") else req.path + ".rb"
    if req.relative and doc.path:
        wanted = posixpath.normpath(posixpath.join(posixpath.dirname(doc.path), name))
        return next((d for d in view.state.documents.values() if d.path and posixpath.normpath(d.path) == wanted), None)
    return next((d for d in view.state.documents.values() if d.path and d.path.endswith("/" + name)), None)


MAX_GUESSES = 50  # Methods a guess by name lists at most.


def _guesses(view: View, name: str) -> list[tuple[int, Location]]:
    """What a call of ``name`` (``label()``) whose receiver is unknown may run: every method of
    that name, with its first definition's location; the project's and gems' first (the core
    stub's only when nothing else matches), at most ``MAX_GUESSES``."""
    found = [
        (rec.id, Definition(view, d, i).location)
        for rec in view.state.declarations.values()
        if rec.kind == "Method" and rec.unqualified == name
        for d, i in rec.definitions[:1]
    ]
    own = [(d, loc) for d, loc in found if loc.uri != CORE_URI]
    return (own or found)[:MAX_GUESSES]


def hover_at(view: View, path: str, line: int, column: int) -> Hover | None:
    at = _position(view, path, line, column)
    if at is None:
        return None
    doc, result, offset, found = at
    if found is not None and found[0] == "method" and view.state.method_receivers[doc][found[1]] is None:
        # The guess ``definition_at`` makes, marked as one.
        name = result.method_refs[found[1]].name + "()"
        guesses = _guesses(view, name)
        if not guesses:
            return None
        if len(guesses) > 1:
            names = [view.state.declarations[d].name for d, _ in guesses]
            return Hover(name=name, kind="Method", revision=view.revision, certain=False, candidates=names)
        return _hover(view, guesses[0][0], certain=False)
    decl_id = _declaration_at(view, doc, offset)
    if decl_id is None:
        return None
    return _hover(view, decl_id)


def _hover(view: View, decl_id: int, certain: bool = True) -> Hover:
    d = Declaration(view, decl_id)
    defs = d.definitions
    signature = next((x.signature for x in defs if x.signature), None)
    owner = d.owner
    return Hover(
        name=d.name,
        kind=d.kind,
        location=d.location,
        signature=signature,
        owner=owner.name if owner is not None and owner.id != d.id else None,
        visibility=d.visibility if d.kind == "Method" else None,
        ancestors=[a.name for a in d.ancestors] if d.kind in ("Class", "Module", "SingletonClass", "Todo") else [],
        comments=d.comments,
        revision=view.revision,
        certain=certain,
        candidates=[] if certain else [d.name],
    )


# -- completion ------------------------------------------------------------------------------


def completions_at(view: View, path: str, line: int, column: int, source: bytes | None) -> list[Completion]:
    """Candidates at a position; ``source`` is the document's current text (needed to see what
    was typed before the cursor)."""
    doc = _doc_index(view, path)
    if doc is None or source is None:
        return []
    result = view.state.documents[doc]
    offset = min(_offset(result, line, column), len(source))
    before = source[:offset]
    prefix = _IDENT_TAIL.search(before).group().decode("utf-8", "replace")  # type: ignore[union-attr]
    head = before[: len(before) - len(prefix.encode())]
    state = view.state
    resolver = view.lookup
    scope = _scope_at(result, offset)
    site = resolver.cref(doc, scope) or ()
    candidates: dict[str, tuple[str, str]] = {}
    hidden: set[str] = set()

    def add_members(ns: int, constants: bool, methods: bool, public: bool = False) -> None:
        """``public``: after an explicit receiver, where Ruby refuses private and protected
        methods (``Util.puts`` is a NoMethodError); a method found first in the chain hides
        those of its ancestors either way."""
        for anc in view.chain(ns):
            for key, member in view.record(anc).members.items():
                mrec = state.declarations[member]
                if constants and mrec.kind in ("Class", "Module", "Constant", "ConstantAlias", "Todo"):
                    candidates.setdefault(key, (mrec.kind, mrec.name))
                elif methods and mrec.kind == "Method" and key.endswith("()"):
                    label = key[:-2]
                    if label in candidates or label in hidden:
                        continue
                    if mrec.visibility == "undefined" or (public and mrec.visibility != "public"):
                        hidden.add(label)
                    else:
                        candidates[label] = ("Method", mrec.name)

    if head.endswith(b"::"):
        m = _CONST_PATH_TAIL.search(head[:-2])
        ns = _lookup_text(view, m.group().decode() if m else "", site)
        if ns is not None:
            add_members(ns, constants=True, methods=False)
            single = view.singleton_of(ns)
            if single is not None:
                add_members(single, constants=False, methods=True, public=True)
    elif head.endswith(b".") or head.endswith(b"&."):
        m = _RECEIVER_TAIL.search(head[:-2] if head.endswith(b"&.") else head[:-1])
        recv = m.group().decode() if m else ""
        ns = None
        if recv == "self":
            ns = resolver.self_class(doc, scope)
        elif recv.endswith(".new"):
            ns = _lookup_text(view, recv[:-4], site)
        elif recv[:1].isupper() or recv.startswith("::"):
            found = _lookup_text(view, recv, site)
            ns = view.singleton_of(found) if found is not None else None
        if ns is not None:
            add_members(ns, constants=False, methods=True, public=recv != "self")
    else:
        for lexical in site:
            for key, member in state.declarations[lexical].members.items():
                mrec = state.declarations[member]
                if mrec.kind in ("Class", "Module", "Constant", "ConstantAlias", "Todo"):
                    candidates.setdefault(key, (mrec.kind, mrec.name))
        add_members(site[0] if site else state.object_id, constants=True, methods=False)
        add_members(state.object_id, constants=True, methods=False)
        me = resolver.self_class(doc, scope)
        if me is not None:
            add_members(me, constants=False, methods=True)
    items = [
        Completion(label, kind, detail, revision=view.revision)
        for label, (kind, detail) in candidates.items()
        if label.startswith(prefix) and _COMPLETABLE.match(label)
    ]
    # An exact match first, then constants (after ``::`` they are what is usually wanted), then
    # shorter labels, then alphabetical.
    items.sort(key=lambda c: (c.label != prefix, c.kind == "Method", len(c.label), c.label))
    return items


def _scope_at(result: FileResult, offset: int) -> int:
    """Index of the innermost scope definition (namespace or method) containing ``offset``."""
    best = -1
    size = None
    for i, d in enumerate(result.definitions):
        if d.kind in ("Class", "Module", "SingletonClass", "Method") and d.start <= offset <= d.end and d.end > d.start:
            if size is None or d.end - d.start < size:
                best, size = i, d.end - d.start
    return best


def _lookup_text(view: View, text: str, site: tuple[int, ...]) -> int | None:
    from rdx.model.records import ConstPath

    if not text:
        return None
    absolute = text.startswith("::")
    segments = tuple((text[2:] if absolute else text).split("::"))
    return view.lookup.lookup_namespace(ConstPath(segments, absolute, 0, 0), site)


# -- dead code -------------------------------------------------------------------------------


def _is_project_declaration(view: View, decl_id: int) -> bool:
    """Whether a declaration is the project's own: every definition in a project file, none in
    the core stub or a dependency's (library) files. A core or gem class the project reopens,
    or a core method it redefines, stays theirs: code outside the index may use it."""
    documents = view.state.documents
    for doc, _ in view.state.declarations[decl_id].definitions:
        result = documents[doc]
        if result.uri == CORE_URI or result.library is not None:
            return False
    return True


def dead_code_candidates(view: View) -> list[Declaration]:
    """Methods never called by name anywhere and constants never referenced (through aliases).

    Name-based for methods (any call of that name counts as a use), so a candidate really has no
    caller in the indexed code; it may still be called dynamically or from outside."""
    state = view.state
    called: set[str] = set()
    for result in state.documents.values():
        for ref in result.method_refs:
            called.add(ref.name)
        for d in result.definitions:
            if d.kind == "MethodAlias" and d.old_name:
                called.add(d.old_name)
            elif d.kind == "MethodVisibility":
                pass
    used_constants: set[int] = set()
    for targets in state.constant_targets.values():
        for t in targets:
            if t is not None:
                used_constants.add(t)
                followed = view.lookup.follow(t)
                if followed is not None:
                    used_constants.add(followed)
    out = []
    for decl_id, rec in state.declarations.items():
        if not rec.definitions or not _is_project_declaration(view, decl_id):
            continue
        if rec.kind == "Method":
            name = rec.unqualified[:-2]
            if name in called or name in _IMPLICIT_METHODS or name.endswith("=") and name[:-1] in called:
                continue
            if all(state.documents[doc].definitions[index].generated for doc, index in rec.definitions):
                continue  # what has_many or a schema column defines: the macro is the use
            out.append(decl_id)
        elif rec.kind in ("Constant", "ConstantAlias", "Class", "Module") and decl_id not in used_constants:
            out.append(decl_id)
    out.sort(key=lambda d: state.declarations[d].name)
    return [Declaration(view, d) for d in out]
