"""Edits as data: what of a document resolution reads, and how two versions of a document align.

``signature`` and ``skeleton`` say whether an edit can change declarations at all (a body edit)
or only members (a member edit); ``skeleton_diff`` aligns two skeletons that differ by added or
removed namespaces and constants; ``position_map`` moves spans from the old version to the new.
Pure functions over FileResults; nothing here touches a graph."""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence

import msgspec

from rdx.model.records import DEFINITION_FIELD_ROLES, ConstPath, DefinitionRecord, FieldRole, FileResult, LoadCall, Mixin, Operand
from rdx.model.store import ResolutionDiagnostic, ResolvedState
from rdx.model.versions import Journaled, KeyOrdered, fork
from rdx.ruby.resolve.order import split_requires
from rdx.ruby.resolve.vocabulary import (
    CONSTANT_DEF_KINDS,
    MEMBER_DEF_KINDS,
)


def strip_path(path: ConstPath | None) -> tuple | None:
    return None if path is None else (path.segments, path.absolute, path.dynamic)


def strip_mixins(mixins: Sequence) -> tuple:
    return tuple((m.kind, strip_path(m.target), m.call) for m in mixins)


# The fields of a definition by role (``DEFINITION_FIELD_ROLES``); the parent is an identity
# field that skeletons express differently (by the nearest kept item).
IDENTITY_FIELDS = tuple(f for f, role in DEFINITION_FIELD_ROLES.items() if role == FieldRole.IDENTITY and f != "parent")
ANCESTRY_FIELDS = tuple(f for f, role in DEFINITION_FIELD_ROLES.items() if role == FieldRole.ANCESTRY)


def _plain(value: object) -> object:
    """A field value without positions (paths and mixins carry offsets)."""
    if isinstance(value, ConstPath):
        return strip_path(value)
    if isinstance(value, tuple) and value and isinstance(value[0], Mixin):
        return strip_mixins(value)
    return value


def fields_of(d: DefinitionRecord, names: tuple[str, ...]) -> tuple:
    return tuple(_plain(getattr(d, f)) for f in names)


def signature(result: FileResult) -> tuple:
    """Everything in a document that resolution reads (every field but the POSITION ones, and
    no references): two documents with equal signatures declare the same things."""
    defs = tuple((d.parent, fields_of(d, IDENTITY_FIELDS), fields_of(d, ANCESTRY_FIELDS)) for d in result.definitions)
    externals = tuple((strip_path(e.target), e.scope, e.mixin_scope, e.unless_present, e.mixin.kind, strip_path(e.mixin.target), e.mixin.call) for e in result.external_mixins)
    requires = tuple((r.path, r.relative, r.deferred) for r in result.requires)
    order, external_order = load_time_order(result)
    return (result.uri, defs, externals, requires, load_time_facts(result), tuple(order), tuple(external_order))


def load_time_order(result: FileResult) -> tuple[list[tuple], list[tuple]]:
    """Per definition, and per external mixin, where the paths looked up while the file
    loads stand among the document's own constant definitions of the same first name: for
    each superclass, alias target and mixin, how many of those start before it. A constant
    the document defines only further down is not there yet (``Lookup.lookup_path_at``), so
    an edit that moves such a path past a definition can change an answer although no field
    but positions changed. So can one that moves it past a require of a file that runs inside
    the document's body (``order.first_require_after``): with such requires, each path also
    counts those that start before it."""
    starts: dict[str, list[int]] = {}
    for d in result.definitions:
        if d.kind in CONSTANT_DEF_KINDS and d.path is not None:
            starts.setdefault(d.path.segments[-1], []).append(d.start)
    for found in starts.values():
        found.sort()
    inside = sorted(r.start for r in split_requires(result)[1])

    def before(p: ConstPath | None) -> int | tuple[int, int]:
        if p is None or not p.segments:
            return -1
        count = bisect_left(starts.get(p.segments[0], ()), p.start)
        return (count, bisect_left(inside, p.start)) if inside else count

    defs = [(before(d.superclass), before(d.target), tuple(before(m.target) for m in d.mixins)) for d in result.definitions]
    externals = [(before(e.target), before(e.mixin.target)) for e in result.external_mixins]
    return defs, externals


def _operand(op: Operand) -> tuple:
    return (op.kind, strip_path(op.path), op.param)


def load_time_facts(result: FileResult) -> tuple:
    """A document's load-time calls of other files' methods and its methods' mixin effects
    (``rdx.ruby.resolve.loadcalls``), without positions."""
    calls = tuple((_operand(c.receiver), c.name, tuple(map(_operand, c.args)), c.scope) for c in result.load_calls)
    effects = tuple(
        (t.method, t.namespace, t.scope, t.required, tuple(map(_operand, t.defaults)),
         tuple((e.name, _operand(e.receiver), tuple(map(_operand, e.args)), e.mixin, e.guarded) for e in t.effects))
        for t in result.method_effects
    )
    return (calls, effects)


def load_time_paths(result: FileResult, calls: Callable[[LoadCall], bool] | None = None) -> list[tuple[ConstPath, int]]:
    """The constant paths of a document's load-time calls (those ``calls`` accepts, when
    given) and mixin effects, with the scope each is looked up at: lookups that bind them
    (``rdx.ruby.resolve.loadcalls``)."""
    out: list[tuple[ConstPath, int]] = []
    for c in result.load_calls:
        if calls is None or calls(c):
            out += [(op.path, c.scope) for op in (c.receiver, *c.args) if op.path is not None]
    for t in result.method_effects:
        ops = [*t.defaults, *(op for e in t.effects for op in (e.receiver, *e.args))]
        out += [(op.path, t.scope) for op in ops if op.path is not None]
    return out


def moved_diagnostics(
    diagnostics: list[ResolutionDiagnostic], doc: int, moved: dict[tuple[int, int], tuple[int, int]], keep: Callable[[ResolutionDiagnostic], bool]
) -> list[ResolutionDiagnostic] | None:
    """The diagnostics after an edit of document ``doc``: its own that ``keep`` accepts, moved
    to their spans in the new version (``moved``, from ``position_map``), and every other
    document's as they were. None when one of them cannot be moved."""
    out = []
    for diag in diagnostics:
        if diag.doc == doc:
            if not keep(diag):
                continue
            span = moved.get((diag.start, diag.end))
            if span is None:
                return None
            diag = msgspec.structs.replace(diag, start=span[0], end=span[1])
        out.append(diag)
    return out


def position_map(old: FileResult, new: FileResult, pairs: Iterable[tuple[int, int]] | None = None) -> dict[tuple[int, int], tuple[int, int]]:
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
        ma_all, mb_all = a.mixins + a.deferred_mixins, b.mixins + b.deferred_mixins
        if len(ma_all) == len(mb_all):  # Else the mixins changed: their diagnostics are reported anew.
            for ma, mb in zip(ma_all, mb_all, strict=True):
                paths(ma.target, mb.target)
    for ea, eb in zip(old.external_mixins, new.external_mixins, strict=True):
        paths(ea.target, eb.target)
        paths(ea.mixin.target, eb.mixin.target)
    return spans


# The tables a state passes to its successor by ``fork`` (the documents are copied: the
# table of a warm open holds undecoded documents, and it is small).
SHARED_TABLES = ("documents", "declarations", "by_name", "definition_declarations", "constant_targets", "method_receivers", "ancestors")


def shared_kind(name: str) -> type[Journaled]:
    """The kind of shared table a state's table ``name`` (one of ``SHARED_TABLES``) is: the
    documents are read in key order (load order)."""
    return KeyOrdered if name == "documents" else Journaled


def successor(previous: ResolvedState, diagnostics: list[ResolutionDiagnostic], changed: Mapping[int, FileResult] | None = None) -> ResolvedState:
    """A state after an incremental update: ``diagnostics`` as given, every table the
    previous state's, forked (``rdx.model.versions``), the documents (read in key order,
    ``KeyOrdered``) with the ``changed`` ones written: the update writes into the new
    state's tables, and ``previous`` keeps reading them as they were."""
    tables = {}
    for name in SHARED_TABLES:
        table, earlier = fork(getattr(previous, name), shared_kind(name))
        if earlier is not None:
            setattr(previous, name, earlier)
        tables[name] = table
    documents = tables["documents"]
    for key, doc in (changed or {}).items():
        documents[key] = doc
    return ResolvedState(diagnostics=diagnostics, object_id=previous.object_id, **tables)  # type: ignore[arg-type]


def member_keys(d: DefinitionRecord) -> tuple[str, ...]:
    """The member keys a member definition writes (``m()``, ``m=()``, ``@x``)."""
    kind = d.kind
    if kind == "InstanceVariable" or kind == "ClassVariable":
        return (d.name,)
    if kind == "AttrAccessor":
        return (f"{d.name}()", f"{d.name}=()")
    if kind == "AttrWriter":
        return (f"{d.name}=()",)
    return (f"{d.name}()",)


# A skeleton item (see ``skeleton``) is (parent position, inside a method body, identity
# fields, ancestry fields); the ancestry fields may change in place, the rest identifies it.
_PARENT = 0
_ANCESTRY = 3


def _identity(item: tuple) -> tuple:
    return item[1:_ANCESTRY]


class SkeletonDiff(msgspec.Struct, frozen=True):
    """How two skeletons of one document align: old definition index -> new index of every
    kept item, new indices of added items, old indices of removed ones, and the kept items
    whose superclass or mixins changed, as (old index, new index)."""

    remap: dict[int, int]
    added: list[int]
    removed: list[int]
    changed: list[tuple[int, int]]


def skeleton_diff(old: tuple[tuple, list[int]], new: tuple[tuple, list[int]], order_checked: bool = False) -> SkeletonDiff | None:
    """Align two skeletons of one document (``skeleton``), or None when they cannot be:
    other requires (unless ``order_checked``: the load order stays) or external mixins
    (whose scopes the alignment does not follow)."""
    (old_uri, old_items, old_ext, old_req), old_keep = old
    (new_uri, new_items, new_ext, new_req), new_keep = new
    if old_uri != new_uri or (old_req != new_req and not order_checked) or old_ext or new_ext:
        return None
    matcher = difflib.SequenceMatcher(None, [_identity(i) for i in old_items], [_identity(i) for i in new_items], autojunk=False)
    matched: dict[int, int] = {}  # old skeleton position -> new skeleton position
    added: list[int] = []
    removed: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            matched.update(zip(range(i1, i2), range(j1, j2), strict=True))
        else:
            removed.extend(range(i1, i2))
            added.extend(range(j1, j2))
    changed: list[tuple[int, int]] = []
    # Items come after the items they nest in: one pass in order drops every match whose
    # enclosing items do not match each other (the constants of a renamed class go and come
    # back under the new name).
    for o in sorted(matched):
        n = matched[o]
        po, pn = old_items[o][_PARENT], new_items[n][_PARENT]
        if not (po == pn == -1 or (po >= 0 and matched.get(po) == pn)):
            del matched[o]
            removed.append(o)
            added.append(n)
        elif old_items[o][_ANCESTRY] != new_items[n][_ANCESTRY]:
            changed.append((old_keep[o], new_keep[n]))
    removed.sort()
    added.sort()
    return SkeletonDiff(
        remap={old_keep[o]: new_keep[n] for o, n in matched.items()},
        added=[new_keep[j] for j in added],
        removed=[old_keep[i] for i in removed],
        changed=changed,
    )


def named_plainly(d: DefinitionRecord) -> bool:
    """Whether a definition names itself in one plain segment, or not at all (``class << self``)."""
    return d.path is None or (len(d.path.segments) == 1 and not d.path.absolute)


def spans_of(d: DefinitionRecord) -> set[tuple[int, int]]:
    """The spans a definition's resolution diagnostics can have: its own and its paths'."""
    spans = {(d.start, d.end)}
    for path in (d.path, d.superclass, d.receiver, d.target):
        if path is not None:
            spans.add((path.start, path.end))
    for m in (*d.mixins, *d.deferred_mixins):
        if m.target is not None:
            spans.add((m.target.start, m.target.end))
    return spans


def outside_definitions(result: FileResult) -> set[str]:
    """The names a document's lookups mention outside its definitions: its external mixins
    (``Foo.include(M)``) and load-time calls' paths."""
    names: set[str] = set()
    for e in result.external_mixins:
        names.update(e.target.segments)
        if e.mixin.target is not None:
            names.update(e.mixin.target.segments)
    for path, _ in load_time_paths(result):
        names.update(path.segments)
    return names


def path_names(result: FileResult, keep: Callable[[int, DefinitionRecord], bool] | None = None) -> set[str]:
    """Every name that a lookup of the document's definitions (or of those ``keep`` accepts)
    mentions: segments of superclasses, mixins, receivers and alias targets, the scope part of
    compact names (``A`` of ``class A::B``; ``B`` is declared, not looked up), names of
    ``private_constant`` and the like, and the names in its external mixins: where a new or
    removed constant of that name could change an answer."""
    names: set[str] = set()
    for i, d in enumerate(result.definitions):
        if keep is not None and not keep(i, d):
            continue
        if d.kind == "ConstantVisibility":
            names.add(d.name)
        if d.path is not None:
            names.update(d.path.segments[:-1])
        for path in (d.superclass, d.receiver, d.target):
            if path is not None:
                names.update(path.segments)
        for m in (*d.mixins, *d.deferred_mixins):
            if m.target is not None:
                names.update(m.target.segments)
    if keep is None:
        names |= outside_definitions(result)
    return names


def skeleton(result: FileResult) -> tuple[tuple, list[int]] | None:
    """What phases 1 and 3 read from a document: every definition but the members, each with
    its nearest kept ancestor (and whether a method body lies between) instead of raw indices,
    and no positions. Two documents with equal skeletons differ only in their members. Also
    returns the kept definition indices. None when members carry mixins or scope an external
    mixin, which the member replay does not handle."""
    defs = result.definitions
    order, external_order = load_time_order(result)
    position: dict[int, int] = {}
    items: list[tuple] = []
    for i, d in enumerate(defs):
        if d.kind in MEMBER_DEF_KINDS:
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
        # Where an alias target stands identifies the alias (its target is an identity field);
        # where a superclass or mixin stands is part of the ancestry.
        sup, target, mixins = order[i]
        items.append((position[p] if p >= 0 else -1, inside_method, (*fields_of(d, IDENTITY_FIELDS), target), (*fields_of(d, ANCESTRY_FIELDS), sup, mixins)))
    externals = []
    for e, e_order in zip(result.external_mixins, external_order, strict=True):
        if any(s >= 0 and s not in position for s in (e.scope, e.mixin_scope)):
            return None
        site = position[e.mixin_scope] if e.mixin_scope >= 0 else e.mixin_scope
        scope = position[e.scope] if e.scope >= 0 else -1
        externals.append((strip_path(e.target), scope, site, e.unless_present, e.mixin.kind, strip_path(e.mixin.target), e.mixin.call, e_order))
    requires = tuple((r.path, r.relative, r.deferred) for r in result.requires)
    return (result.uri, tuple(items), tuple(externals), requires), list(position)

