"""What an editor colours and annotates in one document: every name rdx resolved there, as
``Use`` records (``Graph.uses_in``). A use is a definition's name, one segment of a constant
path (``Foo`` and ``Foo::Bar`` in ``Foo::Bar``, each with what it resolves to), a method call's
name, or in other languages a symbol's name and a resolved reference. It reads one published
view and writes nothing; the language server's semantic tokens, inlay hints and signature help
are built from it, so none of them reaches into the store."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from rdx.languages.view import foreign_location
from rdx.model.kinds import ReceiverKind
from rdx.model.public import Location
from rdx.model.records import FileResult
from rdx.model.text import offset_to_position
from rdx.ruby.query.handles import View

__all__ = ["Use", "uses_in"]


class Use(msgspec.Struct, frozen=True):
    """One resolved (or unresolved) name in a document.

    ``role`` is ``"definition"``, ``"constant"`` or ``"method"`` (a call). ``location`` spans
    the name as written (one segment, for constant paths). ``name`` is the text written up to
    and including that segment (``Models::Order``), or the definition's or method's name.
    ``declaration`` is the qualified name it resolves to and ``kind`` that declaration's kind
    (for definitions, the definition's kind: ``AttrReader``, ``Method``...; for a constant
    alias, the kind of what it aliases, when known), ``origin`` whether
    it is the project's, a dependency's or core's, and ``owner`` the namespace that owns it.
    ``complete`` is False for the leading segments of a constant path. ``implicit_self`` marks
    a call written without a receiver; ``certain`` is False when a call's receiver is unknown
    (nothing is resolved then)."""

    role: str
    location: Location
    name: str
    declaration: str | None = None
    kind: str | None = None
    origin: str | None = None
    owner: str | None = None
    complete: bool = True
    implicit_self: bool = False
    certain: bool = True


def uses_in(view: View, uri: str) -> list[Use]:
    """Every use in the document ``uri`` (Ruby or another language), in source order; an empty
    list for a document the view does not hold."""
    foreign = view.foreign.state.files.get(uri)
    if foreign is not None and foreign.language != "ruby":
        return _foreign_uses(view, uri, foreign)
    doc = view.lookup.key_of(uri)
    if doc is None:
        return []
    out = _definitions(view, doc) + _constants(view, doc) + _calls(view, doc)
    out.sort(key=lambda u: (u.location.start_line, u.location.start_column))
    return out


def _locator(result: FileResult) -> Callable[[int, int], Location]:
    """Locations in one document from byte offsets, its line table unpacked once (the table is
    ``rdx.model.text``'s packed format; ``offset_to_position`` takes it unpacked too), so a
    thousand uses cost a thousand bisects."""
    starts = result.line_starts
    table: Sequence[int] = memoryview(starts).cast("I") if starts else (0,)
    where = result.path or result.uri
    uri = result.uri

    def locate(start: int, end: int) -> Location:
        sl, sc = offset_to_position(table, start)
        el, ec = offset_to_position(table, end)
        return Location(where, sl, sc, el, ec, uri)

    return locate


def _named(view: View, decl_id: int | None) -> tuple[str | None, str | None, str | None, str | None]:
    """(name, kind, origin, owner's name) of a declaration, or four Nones."""
    if decl_id is None:
        return None, None, None, None
    rec = view.state.declarations.get(decl_id)
    if rec is None:
        return None, None, None, None
    owner = view.state.declarations.get(rec.owner) if rec.owner is not None and rec.owner != decl_id else None
    kind = rec.kind
    if kind == "ConstantAlias":
        # What the alias stands for decides how it reads: ``Alias = Foo::Bar`` is a class.
        followed = view.state.declarations.get(view.lookup.follow(decl_id))  # type: ignore[arg-type]
        kind = followed.kind if followed is not None else kind
    return rec.name, kind, view.origin(decl_id), owner.name if owner is not None else None


def _definitions(view: View, doc: int) -> list[Use]:
    result = view.state.documents[doc]
    locate = _locator(result)
    targets = view.state.definition_declarations.get(doc, ())
    out = []
    for i, d in enumerate(result.definitions):
        if d.name_end <= d.name_start or d.generated:
            continue  # Nothing written to mark (a macro's methods are the macro's call).
        name, _, origin, owner = _named(view, targets[i] if i < len(targets) else None)
        out.append(Use("definition", locate(d.name_start, d.name_end), d.name, name, str(d.kind), origin, owner))
    return out


def _constants(view: View, doc: int) -> list[Use]:
    """One use per segment: the last segment names the target, each one before it the owner
    it names (checked against the owners' names, as references do), or nothing."""
    state = view.state
    result = state.documents[doc]
    locate = _locator(result)
    targets = state.constant_targets.get(doc, ())
    out = []
    for i, ref in enumerate(result.const_refs):
        path = ref.path
        target = targets[i] if i < len(targets) else None
        if path.dynamic or not path.segments:
            continue
        # Segment spans, assuming the path is written without spaces around ``::`` (what the
        # byte length of the whole path confirms).
        text = ("::" if path.absolute else "") + "::".join(path.segments)
        if len(text.encode()) != path.end - path.start:
            name, kind, origin, owner = _named(view, target)
            out.append(Use("constant", locate(path.start, path.end), text, name, kind, origin, owner))
            continue
        decl = target
        end = path.end
        for kept in range(len(path.segments), 0, -1):
            segment = path.segments[kept - 1]
            start = end - len(segment.encode())
            rec = state.declarations.get(decl) if decl is not None else None
            if rec is not None and rec.unqualified != segment and kept < len(path.segments):
                decl = rec = None  # The owner is not what this segment names (a reopened alias, say).
            name, kind, origin, owner = _named(view, decl)
            written = ("::" if path.absolute else "") + "::".join(path.segments[:kept])
            out.append(Use("constant", locate(start, end), written, name, kind, origin, owner, complete=kept == len(path.segments)))
            decl = rec.owner if rec is not None else None
            end = start - 2
    return out


def _calls(view: View, doc: int) -> list[Use]:
    state = view.state
    result = state.documents[doc]
    locate = _locator(result)
    receivers = state.method_receivers.get(doc, ())
    lookup = view.lookup
    out = []
    for i, ref in enumerate(result.method_refs):
        if ref.end <= ref.start:
            continue
        recv = receivers[i] if i < len(receivers) else None
        found = lookup.implementation(recv, ref.name + "()") if recv is not None else None
        name, kind, origin, owner = _named(view, found[1] if found is not None else None)
        out.append(
            Use(
                "method", locate(ref.start, ref.end), ref.name, name, kind, origin, owner,
                implicit_self=ref.receiver_kind == ReceiverKind.IMPLICIT_SELF, certain=recv is not None,
            )
        )
    return out


def _foreign_uses(view: View, uri: str, result: FileResult) -> list[Use]:
    state = view.foreign.state
    decls = state.symbol_declarations.get(uri, ())
    out = []

    def at(start: int, end: int) -> Location:
        return foreign_location(result, start, end)

    for i, s in enumerate(result.symbols):
        decl = state.declarations.get(decls[i]) if i < len(decls) else None
        out.append(Use("definition", at(s.name_start, s.name_end), s.name, decl.name if decl else s.qualified, s.kind, "project"))
    targets = state.reference_targets.get(uri, ())
    for i, r in enumerate(result.references):
        decl = state.declarations.get(targets[i]) if i < len(targets) and targets[i] is not None else None  # type: ignore[arg-type]
        role = "method" if r.kind == "call" else "constant"
        out.append(Use(role, at(r.start, r.end), r.name, decl.name if decl else None, decl.kind if decl else None, "project" if decl else None))
    out.sort(key=lambda u: (u.location.start_line, u.location.start_column))
    return out
