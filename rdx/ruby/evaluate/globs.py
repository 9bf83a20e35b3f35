"""Requires of every file a directory glob lists: ActiveSupport's core_ext.rb loads its
extensions with ``Dir.glob(File.expand_path("core_ext/*.rb", __dir__)).sort.each do |path|
require path end``. Discovery records such a require with the pattern as its path, relative to
the file's directory (``core_ext/*.rb``); the load order (``rdx.ruby.resolve.order``) requires
there, in name order (as ``sort`` and Ruby 3's ``Dir.glob`` give), each indexed file the pattern
matches.

Read: ``Dir.glob(P)`` or ``Dir[P]``, optionally ``.sort``, ``.each`` with a block whose first
parameter is the required name; ``P`` one of ``File.expand_path("lit", __dir__)``,
``File.join(__dir__, "lit")``, ``"#{__dir__}/lit"`` and ``File.expand_path("../lit", __FILE__)``.
Wildcards (``*``, ``?``, ``[...]``) only in the last segment; anything else is not read.
"""

from __future__ import annotations

import posixpath
from typing import Any

from rdx.ruby.syntax import node_text, symbol_name

__all__ = ["GLOB_CHARS", "glob_required"]

GLOB_CHARS = frozenset("*?[")
_BLOCKS = frozenset({"do_block", "block"})


def _call(node: Any) -> tuple[str | None, Any | None, list[Any]]:
    if node is None or node.type != "call":
        return None, None, []
    method, receiver, args = (node.child_by_field_name(f) for f in ("method", "receiver", "arguments"))
    return (node_text(method) if method is not None else None), receiver, (args.named_children if args is not None else [])


def _is(node: Any, text: str) -> bool:
    return node is not None and node.type in ("constant", "scope_resolution", "identifier") and node_text(node).removeprefix("::") == text


def _pattern(node: Any) -> str | None:
    """The pattern relative to the file's directory, or None."""
    name, receiver, args = _call(node)
    if name in ("expand_path", "join") and _is(receiver, "File") and len(args) == 2:
        first, second = args
        if name == "join":
            first, second = second, first
        text = symbol_name(first) if first.type == "string" else None
        if text is None:
            return None
        if _is(second, "__dir__"):
            return text
        if name == "expand_path" and _is(second, "__FILE__") and text.startswith("../"):
            return text[3:]
        return None
    if node is not None and node.type == "string":
        parts = node.named_children
        if len(parts) == 2 and parts[0].type == "interpolation" and parts[1].type == "string_content":
            inner = [c for c in parts[0].named_children if c.type != "comment"]
            if len(inner) == 1 and _is(inner[0], "__dir__") and node_text(parts[1]).startswith("/"):
                return node_text(parts[1])[1:]
    return None


def glob_required(call: Any) -> str | None:
    """For ``require name`` inside a block over a directory glob (see the module doc): the
    pattern, relative to the file's directory; else None."""
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 1 or args.named_children[0].type != "identifier":
        return None
    name = node_text(args.named_children[0])
    block = call.parent
    while block is not None and block.type not in _BLOCKS:
        block = block.parent
    if block is None:
        return None
    params = next((c for c in block.named_children if c.type == "block_parameters"), None)
    first = params.named_children[0] if params is not None and params.named_child_count else None
    if first is None or first.type != "identifier" or node_text(first) != name:
        return None
    method, source, _ = _call(block.parent)
    if method != "each" or source is None:
        return None
    method, receiver, given = _call(source)
    if method == "sort" and not given and receiver is not None:
        source = receiver
        method, receiver, given = _call(source)
    if method == "glob" and _is(receiver, "Dir") and len(given) == 1:
        pattern = _pattern(given[0])
    elif source.type == "element_reference" and _is(source.child_by_field_name("object"), "Dir") and source.named_child_count == 2:
        pattern = _pattern(source.named_children[1])
    else:
        return None
    if pattern is None or "**" in pattern or not GLOB_CHARS & set(posixpath.basename(pattern)) or GLOB_CHARS & set(posixpath.dirname(pattern)):
        return None
    return pattern
