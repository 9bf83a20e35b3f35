"""The ``rdx.showSyntaxTree`` command: the buffer's syntax tree as text, for a client to show
in a scratch buffer (ruby-lsp's "show syntax tree"). One line per named node, indented by
depth, with its field name and its 0-based ``[line:column-line:column]`` span (columns in
bytes, as tree-sitter counts them), and the text of leaves. Its argument is the document's
URI (a string or ``{"uri": ..., "range": ...}``); with a range, only the nodes that overlap
it. Any language rdx parses; the nodes are tree-sitter's. The walk uses a cursor (no
recursion) and stops after ``MAX_NODES`` nodes."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse

__all__ = ["MAX_NODES", "register", "syntax_tree_text"]

MAX_NODES = 50_000


def syntax_tree_text(tree, rows: tuple[int, int] | None = None) -> str:  # type: ignore[no-untyped-def]
    """The text of a tree (see the module docstring); ``rows``: a 0-based inclusive range."""
    out: list[str] = []
    cursor = tree.walk()
    depth = 0
    count = 0
    while True:
        node = cursor.node
        assert node is not None  # A cursor always stands on a node.
        inside = rows is None or (node.start_point.row <= rows[1] and node.end_point.row >= rows[0])
        if node.is_named and inside:
            count += 1
            field = cursor.field_name
            span = f"[{node.start_point.row}:{node.start_point.column}-{node.end_point.row}:{node.end_point.column}]"
            leaf = node.named_child_count == 0 and node.text is not None and len(node.text) <= 80
            text = f" {node.text.decode('utf-8', 'replace')!r}" if leaf and node.text is not None else ""
            out.append(f"{'  ' * depth}{field + ': ' if field else ''}{node.type} {span}{text}")
            if count >= MAX_NODES:
                out.append(f"... (stopped after {MAX_NODES} nodes)")
                return "\n".join(out)
        if inside and cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return "\n".join(out)
            depth -= 1


def register(server: RdxLanguageServer) -> None:
    @server.command("rdx.showSyntaxTree")
    async def show_syntax_tree(ls: RdxLanguageServer, *args: Any) -> str:
        argument = args[0] if args else None
        uri = argument.get("uri") if isinstance(argument, dict) else argument
        if not isinstance(uri, str) or uri_path(uri) is None:
            raise JsonRpcInvalidParams(f"rdx.showSyntaxTree takes a document URI (file://...), got {argument!r}")
        await ls.ready()
        tree = parse(uri, ls.source(uri), ls.language(uri))
        if tree is None:
            raise JsonRpcInvalidParams(f"rdx has no grammar for {uri}")
        rows = None
        wanted = argument.get("range") if isinstance(argument, dict) else None
        if isinstance(wanted, dict):
            try:
                rows = (int(wanted["start"]["line"]), int(wanted["end"]["line"]))
            except (KeyError, TypeError, ValueError) as exc:
                raise JsonRpcInvalidParams(f"rdx.showSyntaxTree: the range must be an LSP Range, got {wanted!r}") from exc
        return syntax_tree_text(tree, rows)
