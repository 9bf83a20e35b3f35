"""``textDocument/codeAction``: the actions of every provider (RuboCop's quick fixes, in
``rubocop.py``) and rdx's own, "Add require_relative" for the constant under the cursor.

rdx resolves a constant wherever it is defined, loaded or not, so a constant can resolve to a
file the buffer never requires (fine under Zeitwerk or an autoloader, a NameError otherwise).
The action is offered, never diagnosed: on a constant of the project defined only in other
files, none of which the buffer already requires (``require_relative`` or ``require`` of a
path rdx resolves to it). It inserts ``require_relative "PATH"`` (relative to the buffer's
directory, without ``.rb``) after the buffer's last top-level require, else after its leading
comments.
"""

from __future__ import annotations

import os

from lsprotocol import types as lsp

import rdx
from rdx_lsp.document_links import require_paths
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["register", "require_action"]



def _required(graph: rdx.Graph, path: str, source: bytes) -> tuple[set[str], int]:
    """The URIs the buffer's requires resolve to, and the 0-based line after its last require
    (0 when it has none)."""
    found: set[str] = set()
    after = 0
    for row, _, _, method_row, method_column in require_paths(parse_ruby("file://" + path, source)):
        after = max(after, row + 1)
        try:
            target = graph.definition_at(path, method_row + 1, method_column)
        except rdx.InvalidArgumentError:
            continue
        if target is not None and target.kind == "Document" and target.locations:
            found.add(target.locations[0].uri)
    return found, after


def require_action(ls: RdxLanguageServer, uri: str, position: lsp.Position) -> lsp.CodeAction | None:
    graph = ls.graph
    path = uri_path(uri)
    if graph is None or path is None or ls.language(uri) != "ruby":
        return None
    lines = ls.lines()
    line, column = lines.to_rdx(uri, path, position)
    at = (line, column)
    use = next(
        (
            u for u in ls.uses(uri)
            if u.role == "constant" and u.declaration is not None and u.complete and u.origin == "project"
            and (u.location.start_line, u.location.start_column) <= at <= (u.location.end_line, u.location.end_column)
        ),
        None,
    )
    decl = graph.get(use.declaration) if use is not None and use.declaration is not None else None
    if decl is None:
        return None
    homes = [d.location.path for d in decl.definitions if d.uri.startswith("file://")]
    if not homes or path in homes:
        return None
    source = ls.source(uri)
    required, after = _required(graph, path, source)
    if any(d.uri in required for d in decl.definitions):
        return None
    relative = os.path.relpath(homes[0], os.path.dirname(path)).removesuffix(".rb")
    text = source.decode("utf-8", "replace").split("\n")
    new_text = f'require_relative "{relative}"\n'
    if after == 0:
        # No require yet: after the leading comments and the blank line that follows them.
        while after < len(text) - 1 and text[after].strip().startswith("#"):
            after += 1
        if 0 < after < len(text) - 1 and not text[after].strip():
            after += 1
        new_text += "\n"
    start = lsp.Position(after, 0)
    return lsp.CodeAction(
        title=f'Add require_relative "{relative}" (defines {decl.name})', kind=lsp.CodeActionKind.QuickFix,
        edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=lsp.Range(start, start), new_text=new_text)]}),
    )


def register(server: RdxLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    async def code_action(ls: RdxLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        await ls.ready()
        out: list[lsp.CodeAction] = []
        for provider in ls.code_action_providers:
            out += await provider(ls, params)
        found = require_action(ls, params.text_document.uri, params.range.start)
        if found is not None:
            out.append(found)
        return out
