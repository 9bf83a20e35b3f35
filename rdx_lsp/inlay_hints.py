"""``textDocument/inlayHint``: what rdx resolved that the text does not say, in two kinds.

- ``implicitSelf``: before a call written without a receiver, the namespace whose method it
  runs when that is not the class or module around the call (``Kernel#puts``,
  ``Shop::Pricing#price_with`` reached through ``include``); ``Foo.`` for a singleton method.
- ``constants``: after a constant, its fully qualified name when that is not what is written
  (``Bar`` inside ``module Foo`` that resolves to ``Foo::Bar``, a name found through a parent
  namespace or an ancestor), and the target of a constant alias.

Both are off until the client turns them on, per kind, in ``initializationOptions`` or in
``workspace/didChangeConfiguration`` settings: ``{"inlayHints": {"implicitSelf": true,
"constants": true}}`` (also accepted under an ``"rdx"`` key). Hints come from
``Graph.uses_in``, the same resolved uses as semantic tokens.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

import rdx
from rdx_lsp.positions import Lines
from rdx_lsp.server import RdxLanguageServer, uri_path

__all__ = ["HintSettings", "inlay_hints", "register"]

_NAMESPACES = frozenset({"Class", "Module", "SingletonClass"})


class HintSettings:
    """Which kinds of hints the client asked for (all off by default)."""

    def __init__(self) -> None:
        self.implicit_self = False
        self.constants = False
        self.initialized = False

    def update(self, options: Any) -> None:
        if not isinstance(options, dict):
            return
        if isinstance(options.get("rdx"), dict):
            options = options["rdx"]
        hints = options.get("inlayHints")
        if isinstance(hints, dict):
            self.implicit_self = bool(hints.get("implicitSelf", self.implicit_self))
            self.constants = bool(hints.get("constants", self.constants))


def _singleton(name: str) -> bool:
    return name.endswith(">")


def _attached(name: str) -> str:
    """``Foo::<Foo>`` -> ``Foo`` (the namespace a singleton class belongs to)."""
    return name.rsplit("::<", 1)[0] if _singleton(name) else name


def inlay_hints(
    graph: rdx.Graph, lines: Lines, uri: str, wanted: lsp.Range, settings: HintSettings, uses: list[rdx.Use] | None = None
) -> list[lsp.InlayHint]:
    if not (settings.implicit_self or settings.constants):
        return []
    path = uri_path(uri)
    doc = graph.document(uri)
    # The namespaces of this file, innermost last when sorted by span: a call's own class.
    spans: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    if doc is not None and settings.implicit_self:
        for d in doc.definitions:
            if d.kind in _NAMESPACES and (decl := d.declaration) is not None:
                loc = d.location
                spans.append(((loc.start_line, loc.start_column), (loc.end_line, loc.end_column), decl.name))
    spans.sort()
    out = []
    first, last = (wanted.start.line, wanted.start.character), (wanted.end.line, wanted.end.character)

    def inside(position: lsp.Position) -> bool:
        return first <= (position.line, position.character) <= last

    for use in graph.uses_in(uri) if uses is None else uses:
        loc = use.location
        if not first[0] <= loc.start_line - 1 <= last[0] or use.declaration is None:
            continue
        if use.role == "method" and settings.implicit_self and use.implicit_self and use.certain and use.owner is not None:
            at = (loc.start_line, loc.start_column)
            around = [name for start, end, name in spans if start <= at <= end]
            # Sorted by start, the last namespace that holds the call is the innermost.
            own = around[-1] if around else None
            if own is not None and _attached(use.owner) == _attached(own):
                continue
            label = _attached(use.owner) + ("." if _singleton(use.owner) else "#")
            position = lines.position(uri, path, loc.start_line, loc.start_column)
            if inside(position):
                out.append(lsp.InlayHint(position=position, label=label, tooltip=use.declaration))
        elif use.role == "constant" and settings.constants and use.complete:
            written = use.name.removeprefix("::")
            if use.declaration == written:
                continue
            position = lines.position(uri, path, loc.end_line, loc.end_column)
            if inside(position):
                out.append(lsp.InlayHint(position=position, label=f"→ {use.declaration}", padding_left=True, tooltip=f"{written} resolves to {use.declaration}"))
    return out


def register(server: RdxLanguageServer) -> None:
    settings = HintSettings()

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    async def hints(ls: RdxLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        if not settings.initialized:
            settings.initialized = True
            settings.update(ls.initialization_options)
        graph = await ls.ready()
        uri = params.text_document.uri
        return inlay_hints(graph, ls.lines(), uri, params.range, settings, ls.uses(uri))

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration(ls: RdxLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
        if not settings.initialized:
            settings.initialized = True
            settings.update(ls.initialization_options)
        settings.update(params.settings)
        workspace = ls.client_capabilities.workspace
        if workspace is not None and workspace.inlay_hint is not None and workspace.inlay_hint.refresh_support:
            ls.workspace_inlay_hint_refresh(None)
