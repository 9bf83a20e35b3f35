"""``textDocument/documentLink``: the path of each ``require``, ``require_relative`` and
``load`` in a Ruby buffer links to the file rdx resolved it to (the project's files and the
indexed gems'; the same answer as go-to-definition on the call). A path rdx cannot place (a
gem that is not indexed, a computed path) gets no link. The calls are found in the buffer's
syntax tree with a cursor walk."""

from __future__ import annotations

from lsprotocol import types as lsp

import rdx
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["register", "require_paths"]

_REQUIRES = frozenset({b"require", b"require_relative", b"load"})


def require_paths(tree) -> list[tuple[int, int, int, int, int]]:  # type: ignore[no-untyped-def]
    """(row, start column, end column) of the literal path of each require-like call without a
    receiver, then the (row, column) of the method's name; columns in bytes."""
    out = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None  # A cursor always stands on a node.
        if node.type == "call" and node.child_by_field_name("receiver") is None:
            method = node.child_by_field_name("method")
            args = node.child_by_field_name("arguments")
            if method is not None and method.text in _REQUIRES and args is not None and args.named_child_count >= 1:
                first = args.named_children[0]
                content = [c for c in first.named_children] if first.type == "string" else []
                if len(content) == 1 and content[0].type == "string_content" and content[0].start_point.row == content[0].end_point.row:
                    c = content[0]
                    out.append((c.start_point.row, c.start_point.column, c.end_point.column, method.start_point.row, method.start_point.column))
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def register(server: RdxLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK, lsp.DocumentLinkOptions(resolve_provider=False))
    async def document_links(ls: RdxLanguageServer, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink] | None:
        graph = await ls.ready()
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is None or ls.language(uri) != "ruby":
            return None
        lines = ls.lines()
        out = []
        for row, start, end, method_row, method_column in require_paths(parse_ruby(uri, ls.source(uri))):
            try:
                target = graph.definition_at(path, method_row + 1, method_column)
            except rdx.InvalidArgumentError:
                continue  # The buffer changed since it was indexed.
            if target is None or target.kind != "Document" or not target.locations:
                continue
            found = target.locations[0].uri
            span = lsp.Range(lines.position(uri, path, row + 1, start), lines.position(uri, path, row + 1, end))
            out.append(lsp.DocumentLink(range=span, target=found, tooltip=target.locations[0].path))
        return out
