"""Small readers of tree-sitter Ruby nodes shared by the walker (``rdx.ruby.discover``) and the
evaluator (``rdx.ruby.evaluate``): a node's text, a literal symbol or string's name, the node
types that open a block.

Pure functions of one node; no walk state, no records.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BLOCK_TYPES", "node_text", "symbol_name"]

BLOCK_TYPES = frozenset({"block", "do_block", "lambda"})


def node_text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")  # type: ignore[no-any-return]


def symbol_name(node: Any) -> str | None:
    """The name of a literal symbol or plain string argument, else None."""
    t = node.type
    if t == "simple_symbol":
        return node_text(node)[1:]
    if t in ("string", "delimited_symbol"):
        if node.named_child_count == 1 and node.named_children[0].type == "string_content":
            return node_text(node.named_children[0])
        if node.named_child_count == 0:
            return ""
    return None
