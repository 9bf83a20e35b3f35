"""Edits as data: what of a document resolution reads, and how two versions of a document align.

``signature`` and ``skeleton`` say whether an edit can change declarations at all (a body edit)
or only members (a member edit); ``skeleton_diff`` aligns two skeletons that differ by added or
removed namespaces and constants; ``position_map`` moves spans from the old version to the new.
Pure functions over FileResults; nothing here touches a graph."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rdx.model.declarations import DeclarationRecord
from rdx.model.records import ConstPath, DefinitionRecord, FileResult
from rdx.model.store import ResolutionDiagnostic, ResolvedState
from rdx.resolution.vocabulary import (
    MEMBER_DEF_KINDS,
)


def strip_path(path: ConstPath | None) -> tuple | None:
    return None if path is None else (path.segments, path.absolute, path.dynamic)


def strip_mixins(mixins: Sequence) -> tuple:
    return tuple((m.kind, strip_path(m.target), m.call) for m in mixins)


def signature(result: FileResult) -> tuple:
    """Everything in a document that resolution reads, except positions, comments, method
    signatures and references: two documents with equal signatures declare the same things."""
    defs = tuple(
        (
            d.kind, d.name, d.parent, strip_path(d.path), strip_path(d.superclass), d.superclass_self, strip_mixins(d.mixins),
            strip_mixins(d.deferred_mixins), strip_path(d.receiver), d.self_receiver, d.visibility, d.module_function,
            strip_path(d.target), d.old_name, d.lexical,
        )
        for d in result.definitions
    )
    externals = tuple((strip_path(e.target), e.scope, e.mixin.kind, strip_path(e.mixin.target), e.mixin.call) for e in result.external_mixins)
    requires = tuple((r.path, r.relative) for r in result.requires)
    return (result.uri, defs, externals, requires)


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
        for ma, mb in zip(a.mixins + a.deferred_mixins, b.mixins + b.deferred_mixins, strict=True):
            paths(ma.target, mb.target)
    for ea, eb in zip(old.external_mixins, new.external_mixins, strict=True):
        paths(ea.target, eb.target)
        paths(ea.mixin.target, eb.mixin.target)
    return spans


def successor(
    previous: ResolvedState,
    documents: dict[int, FileResult],
    declarations: dict[int, DeclarationRecord],
    by_name: dict[str, int],
    definition_declarations: dict[int, list[int | None]],
    diagnostics: list[ResolutionDiagnostic],
) -> ResolvedState:
    """A state after an incremental update: reference lists copied (the caller replaces the
    refreshed documents' entries), ancestors shared (updates never change them)."""
    return ResolvedState(
        documents=documents,
        declarations=declarations,
        by_name=by_name,
        definition_declarations=definition_declarations,
        constant_targets=dict(previous.constant_targets),
        method_receivers=dict(previous.method_receivers),
        ancestors=previous.ancestors,
        diagnostics=diagnostics,
        object_id=previous.object_id,
    )


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


def skeleton_diff(old: tuple[tuple, list[int]], new: tuple[tuple, list[int]]) -> tuple[dict[int, int], list[int], list[int]] | None:
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


def path_names(result: FileResult, keep: Callable[[int, DefinitionRecord], bool] | None = None) -> set[str]:
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


def skeleton(result: FileResult) -> tuple[tuple, list[int]] | None:
    """What phases 1 and 3 read from a document: every definition but the members, each with
    its nearest kept ancestor (and whether a method body lies between) instead of raw indices,
    and no positions. Two documents with equal skeletons differ only in their members. Also
    returns the kept definition indices. None when members carry mixins or scope an external
    mixin, which the member replay does not handle."""
    defs = result.definitions
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
        items.append(
            (
                d.kind, d.name, position[p] if p >= 0 else -1, inside_method, strip_path(d.path), strip_path(d.superclass),
                d.superclass_self, strip_mixins(d.mixins), strip_mixins(d.deferred_mixins), strip_path(d.receiver), d.self_receiver,
                d.visibility, d.module_function, strip_path(d.target), d.old_name, d.lexical,
            )
        )
    externals = []
    for e in result.external_mixins:
        if e.scope >= 0 and e.scope not in position:
            return None
        externals.append((strip_path(e.target), position[e.scope] if e.scope >= 0 else -1, e.mixin.kind, strip_path(e.mixin.target), e.mixin.call))
    requires = tuple((r.path, r.relative) for r in result.requires)
    return (result.uri, tuple(items), tuple(externals), requires), list(position)

