"""Navigation in files of other languages: references to a declaration, and what is at a
position (a definition's name, a reference, an import), for definition and hover.

The same answer types as Ruby's navigation (``Reference``, ``Target``, ``Hover``); only the
resolved foreign state is read (``rdx.languages.view``).
"""

from __future__ import annotations

from rdx.languages.view import ForeignDeclarationHandle, ForeignView, foreign_location
from rdx.model.text import position_to_offset
from rdx.ruby.query.navigation import Hover, Reference, Target

__all__ = ["foreign_declaration_at", "foreign_definition_at", "foreign_hover_at", "foreign_references_to"]


def foreign_references_to(foreign: ForeignView, decl: ForeignDeclarationHandle) -> list[Reference]:
    """Every reference resolved to ``decl`` (calls, types, bases), in file order. All certain:
    a reference that could name several declarations is left unresolved, never counted."""
    state = foreign.state
    out = []
    for uri, index in foreign.referrers(decl.id):
        doc = state.files[uri]
        ref = doc.references[index]
        out.append(Reference(ref.kind, ref.name, foreign_location(doc, ref.start, ref.end), True, ref.qualifier, foreign.view.revision))
    return out


def _declaration_at(foreign: ForeignView, uri: str, line: int, column: int) -> int | None | tuple[str, ...]:
    """The declaration at a position: a reference's target, or the definition whose name is
    there; for an import, the files it names."""
    doc = foreign.state.files.get(uri)
    if doc is None:
        return None
    offset = position_to_offset(doc.line_starts, line, column)
    ref = foreign.reference_at(uri, offset)
    if ref is not None:
        return foreign.state.reference_targets[uri][ref]
    for i, imp in enumerate(doc.imports):
        if imp.start <= offset <= imp.end:
            targets = foreign.state.import_targets.get(uri, ())
            return targets[i] if i < len(targets) else ()
    symbol = foreign.symbol_at(uri, offset)
    if symbol is not None:
        s = doc.symbols[symbol]
        if s.name_start <= offset <= s.name_end:
            return foreign.state.symbol_declarations[uri][symbol]
    return None


def foreign_declaration_at(foreign: ForeignView, uri: str, line: int, column: int) -> ForeignDeclarationHandle | None:
    found = _declaration_at(foreign, uri, line, column)
    return None if isinstance(found, tuple) else foreign.declaration(found)


def foreign_definition_at(foreign: ForeignView, uri: str, line: int, column: int) -> Target | None:
    found = _declaration_at(foreign, uri, line, column)
    revision = foreign.view.revision
    if isinstance(found, tuple):
        if not found:
            return None
        files = [foreign.state.files[u] for u in found]
        return Target(files[0].path or files[0].uri, "file", [foreign_location(f, 0, 0) for f in files], revision)
    decl = foreign.declaration(found)
    if decl is None:
        return None
    return Target(decl.name, decl.kind, [d.name_location for d in decl.definitions], revision)


def foreign_hover_at(foreign: ForeignView, uri: str, line: int, column: int) -> Hover | None:
    found = _declaration_at(foreign, uri, line, column)
    if isinstance(found, tuple):
        return None
    decl = foreign.declaration(found)
    if decl is None:
        return None
    definitions = decl.definitions
    signature = next((d.signature for d in definitions if d.signature), None)
    owner = decl.owner
    return Hover(
        name=decl.name,
        kind=decl.kind,
        location=decl.location,
        signature=signature,
        owner=owner.name if owner is not None else None,
        ancestors=[a.name for a in decl.ancestors[1:]],
        comments=decl.comments,
        revision=foreign.view.revision,
    )
