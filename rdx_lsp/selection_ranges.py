"""``textDocument/selectionRange``: for each position, the syntax nodes around it from the
innermost out (a name, its call, the statement, the method body, the method, the class...),
read from the buffer's tree-sitter tree in any language rdx parses. Nodes with the same span
as their child are skipped, so each step grows the selection."""

from __future__ import annotations

from lsprotocol import types as lsp

from rdx_lsp.positions import Lines
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse

__all__ = ["register"]

# Levels kept per position, innermost first: the encoder recurses once per level, as for
# documentSymbol (features.MAX_SYMBOL_DEPTH), and real code nests far less.
MAX_LEVELS = 64


def register(server: RdxLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_SELECTION_RANGE)
    async def selection_range(ls: RdxLanguageServer, params: lsp.SelectionRangeParams) -> list[lsp.SelectionRange] | None:
        await ls.ready()
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is None:
            return None
        tree = parse(uri, ls.source(uri), ls.language(uri))
        if tree is None:
            return None
        lines = ls.lines()
        out = []
        for position in params.positions:
            line, column = lines.to_rdx(uri, path, position)
            out.append(_ranges(lines, uri, path, tree.root_node.descendant_for_point_range((line - 1, column), (line - 1, column))))
        return out


def _ranges(lines: Lines, uri: str, path: str, node) -> lsp.SelectionRange:  # type: ignore[no-untyped-def]
    spans: list[lsp.Range] = []
    levels = 0
    while node is not None and levels < MAX_LEVELS:
        start, end = node.start_point, node.end_point
        found = lsp.Range(lines.position(uri, path, start.row + 1, start.column), lines.position(uri, path, end.row + 1, end.column))
        if not spans or spans[-1] != found:
            spans.append(found)
        node = node.parent
        levels += 1
    result: lsp.SelectionRange | None = None
    for found in reversed(spans):
        result = lsp.SelectionRange(range=found, parent=result)
    return result or lsp.SelectionRange(range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)))
