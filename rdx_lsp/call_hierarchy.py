"""Call hierarchy (``textDocument/prepareCallHierarchy``, ``callHierarchy/incomingCalls``,
``callHierarchy/outgoingCalls``) from rdx's resolved call sites.

- Incoming: every call of the method (``Graph.references_to``), grouped by the method whose
  body holds it (or by the class or module body, or the file, for calls outside methods).
- Outgoing: the calls written in the method's bodies (``Graph.uses_in``), grouped by the
  method each resolves to.

A call whose receiver's type is unknown matches by name only: incoming, it is listed with
"uncertain" in its caller's ``detail``; outgoing, it goes to each method of that name rdx
knows (at most ``MAX_GUESSES``), each marked the same way. Items carry the declaration's name
in ``data``, so the follow-up requests do not depend on positions that may have moved.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

import rdx
from rdx_lsp.positions import Lines
from rdx_lsp.server import RdxLanguageServer, uri_path

__all__ = ["register"]

MAX_GUESSES = 5
_CALLERS = ("Method", "Class", "Module", "SingletonClass")
_KINDS = {"Method": lsp.SymbolKind.Method, "Class": lsp.SymbolKind.Class, "Module": lsp.SymbolKind.Module, "SingletonClass": lsp.SymbolKind.Class}


def _contains(outer: rdx.Location, inner: rdx.Location) -> bool:
    return (outer.start_line, outer.start_column) <= (inner.start_line, inner.start_column) and (inner.end_line, inner.end_column) <= (
        outer.end_line,
        outer.end_column,
    )


def _item(lines: Lines, decl: rdx.Declaration, definition: rdx.Definition | None = None, uncertain: bool = False) -> lsp.CallHierarchyItem | None:
    definition = definition or next((d for d in decl.definitions if d.uri.startswith("file://")), None)
    if definition is None:
        return None
    owner = decl.owner
    detail = owner.name if owner is not None else None
    if uncertain:
        detail = f"{detail or ''} (uncertain: matched by name only)".strip()
    return lsp.CallHierarchyItem(
        name=decl.unqualified_name.removesuffix("()"), kind=_KINDS.get(decl.kind, lsp.SymbolKind.Method), uri=definition.uri,
        range=lines.range(definition.location), selection_range=lines.range(definition.name_location), detail=detail,
        data={"name": decl.name},
    )


def _file_item(lines: Lines, uri: str, path: str) -> lsp.CallHierarchyItem:
    start = lsp.Position(0, 0)
    return lsp.CallHierarchyItem(
        name=path.rsplit("/", 1)[-1], kind=lsp.SymbolKind.File, uri=uri, range=lsp.Range(start, start), selection_range=lsp.Range(start, start),
        detail="top level",
    )


def register(server: RdxLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    async def prepare(ls: RdxLanguageServer, params: lsp.CallHierarchyPrepareParams) -> list[lsp.CallHierarchyItem] | None:
        graph = await ls.ready()
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is None:
            return None
        lines = ls.lines()
        line, column = lines.to_rdx(uri, path, params.position)
        try:
            decl = graph.declaration_at(path, line, column)
        except rdx.InvalidArgumentError:
            return None
        if decl is None or decl.kind not in ("Method", "method", "function"):
            return None
        found = _item(lines, decl)
        return [found] if found is not None else None

    def named(graph: rdx.Graph, item: lsp.CallHierarchyItem) -> rdx.Declaration | None:
        data: Any = item.data
        name = data.get("name") if isinstance(data, dict) else None
        return graph.get(name) if isinstance(name, str) else None

    @server.feature(lsp.CALL_HIERARCHY_INCOMING_CALLS)
    async def incoming(ls: RdxLanguageServer, params: lsp.CallHierarchyIncomingCallsParams) -> list[lsp.CallHierarchyIncomingCall] | None:
        graph = await ls.ready()
        decl = named(graph, params.item)
        if decl is None:
            return None
        lines = ls.lines()
        # (caller's name or the file's URI, uncertain) -> (item, call ranges)
        groups: dict[tuple[str, bool], tuple[lsp.CallHierarchyItem, list[lsp.Range]]] = {}
        callers: dict[str, list[rdx.Definition]] = {}
        for ref in graph.references_to(decl):
            loc = ref.location
            if not loc.uri.startswith("file://"):
                continue
            if loc.uri not in callers:
                doc = graph.document(loc.uri)
                callers[loc.uri] = [d for d in (doc.definitions if doc is not None else []) if d.kind in _CALLERS]
            around = [d for d in callers[loc.uri] if _contains(d.location, loc)]
            # The innermost definition holding the call: the one that starts last.
            caller = max(around, key=lambda d: (d.location.start_line, d.location.start_column), default=None)
            caller_decl = caller.declaration if caller is not None else None
            key = (caller_decl.name if caller_decl is not None else loc.uri, not ref.certain)
            if key not in groups:
                made = _item(lines, caller_decl, caller, not ref.certain) if caller_decl is not None else None
                if made is None:
                    made = _file_item(lines, loc.uri, loc.path)
                    if not ref.certain:
                        made.detail = "top level (uncertain: matched by name only)"
                groups[key] = (made, [])
            groups[key][1].append(lines.range(loc))
        return [lsp.CallHierarchyIncomingCall(from_=item, from_ranges=ranges) for item, ranges in groups.values()]

    @server.feature(lsp.CALL_HIERARCHY_OUTGOING_CALLS)
    async def outgoing(ls: RdxLanguageServer, params: lsp.CallHierarchyOutgoingCallsParams) -> list[lsp.CallHierarchyOutgoingCall] | None:
        graph = await ls.ready()
        decl = named(graph, params.item)
        if decl is None:
            return None
        lines = ls.lines()
        groups: dict[tuple[str, bool], tuple[lsp.CallHierarchyItem, list[lsp.Range]]] = {}
        for definition in decl.definitions:
            if not definition.uri.startswith("file://"):
                continue
            body = definition.location
            for use in ls.uses(definition.uri):
                if use.role != "method" or not _contains(body, use.location):
                    continue
                if use.declaration is not None:
                    targets = [(use.declaration, False)]
                elif not use.certain:
                    try:
                        target = graph.definition_at(use.location.path, use.location.start_line, use.location.start_column)
                    except rdx.InvalidArgumentError:
                        target = None
                    names = target.candidates[:MAX_GUESSES] if target is not None and target.kind == "Method" else []
                    targets = [(n, True) for n in names]
                else:
                    continue
                for name, uncertain in targets:
                    key = (name, uncertain)
                    if key not in groups:
                        callee = graph.get(name)
                        made = _item(lines, callee, uncertain=uncertain) if callee is not None else None
                        if made is None:
                            continue  # Ruby's core: nowhere to go.
                        groups[key] = (made, [])
                    groups[key][1].append(lines.range(use.location))
        return [lsp.CallHierarchyOutgoingCall(to=item, from_ranges=ranges) for item, ranges in groups.values()]
