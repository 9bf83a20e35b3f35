"""Iteration over literal lists, unrolled: ``[Enumerable, Object].each { |k| k.prepend(M) }``,
``%i[a b].each { |m| define_method(m) { } }``, ``%w[x y].each { |n| attr_reader "#{n}?" }``,
``%w[As Join].each { |n| const_set n, Class.new(Binary) }``, ``{a: 1}.each { |k, v| define_method(k) { } }``
and ``attr_reader(*%i[x y])`` define what the loop would, once per element.

Discovery registers each ``each``/``each_with_index`` block over a literal array, ``%w`` or
``%i`` list, and each ``each``/``each_pair``/``each_key`` block over a literal hash (its byte
range, the parameter naming the element or key, the elements or keys). Inside it, the
parameter stands for each element where a name is expected: as the receiver of
``include``/``prepend``/``extend``, as a symbol or string argument of a directive
(``define_method``, ``attr_*``, ``alias_method``, ``const_set``...), or interpolated in a string
(``"#{m}?"``). Anything else the body does with it (and a hash's values) stays dynamic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Loop", "expand_names", "loop_at", "register_loop"]

_LIST_TYPES = frozenset({"array", "symbol_array", "string_array"})
# Iterator -> how many block parameters it yields (the first one names the element).
_ITERATORS = {"each": 1, "reverse_each": 1, "each_with_index": 2}
_HASH_ITERATORS = {"each": 2, "each_pair": 2, "each_key": 1}


@dataclass(frozen=True)
class Loop:
    start: int
    end: int
    parameter: str
    # Each element (a hash's keys): its name when it is a symbol, a string or a word of %w/%i; its node when
    # it is a constant (the walker makes a constant path of it).
    names: tuple[str | None, ...]
    nodes: tuple[Any, ...]


def _element_name(node: Any) -> str | None:
    t = node.type
    if t in ("bare_symbol", "bare_string"):
        return node.text.decode("utf-8", "replace")
    if t == "simple_symbol":
        return node.text.decode("utf-8", "replace")[1:]
    if t == "string" and node.named_child_count == 1 and node.named_children[0].type == "string_content":
        return node.named_children[0].text.decode("utf-8", "replace")
    if t == "hash_key_symbol":
        return node.text.decode("utf-8", "replace")
    return None


def _elements(receiver: Any, name: str) -> tuple[list[Any], int] | None:
    """The elements a literal receiver yields to ``name`` (a hash's keys) and how many block
    parameters the block may take for the first one to be the element; None otherwise."""
    if receiver is None:
        return None
    if receiver.type in _LIST_TYPES and name in _ITERATORS:
        return receiver.named_children, _ITERATORS[name]
    if receiver.type == "hash" and name in _HASH_ITERATORS:
        pairs = receiver.named_children
        keys = [p.child_by_field_name("key") for p in pairs if p.type == "pair"]
        if len(keys) != len(pairs) or any(k is None for k in keys):
            return None  # A ``**splat``: not a literal list of keys.
        return keys, _HASH_ITERATORS[name]
    return None


def register_loop(loops: list[Loop], node: Any, receiver: Any, name: str) -> None:
    """Remember ``LITERAL.each { |p| ... }`` (every element a constant or a literal name)."""
    found = _elements(receiver, name)
    if found is None:
        return
    elements, arity = found
    block = node.child_by_field_name("block")
    params = block.child_by_field_name("parameters") if block is not None else None
    if params is None or not 1 <= params.named_child_count <= arity or params.named_children[0].type != "identifier":
        return
    if arity == 2 and name != "each_with_index" and params.named_child_count == 1:
        return  # ``{a: 1}.each { |pair| }`` yields [key, value] pairs, not keys.
    names = tuple(_element_name(e) for e in elements)
    if not elements or not all(n is not None or e.type in ("constant", "scope_resolution") for n, e in zip(names, elements, strict=True)):
        return
    loops.append(Loop(block.start_byte, block.end_byte, params.named_children[0].text.decode(), names, tuple(elements)))


def loop_at(loops: list[Loop], node: Any, parameter: str) -> Loop | None:
    """The innermost registered loop around ``node`` whose parameter is ``parameter``."""
    found = None
    for loop in loops:
        if loop.start <= node.start_byte < loop.end and loop.parameter == parameter:
            if found is None or loop.start >= found.start:
                found = loop
    return found


def expand_names(loops: list[Loop], arg: Any) -> list[tuple[str, Any]] | None:
    """The names an argument stands for inside loops (None: not a loop-dependent argument):
    the loop parameter itself, a string interpolating only it, or a splatted literal list."""
    t = arg.type
    if t == "splat_argument" and arg.named_child_count == 1 and arg.named_children[0].type in _LIST_TYPES:
        items = arg.named_children[0].named_children
        names = [(n, item) for item in items if (n := _element_name(item)) is not None]
        return names if len(names) == len(items) else None
    if not loops:
        return None
    if t == "identifier":
        loop = loop_at(loops, arg, arg.text.decode())
        if loop is None or any(n is None for n in loop.names):
            return None
        return [(n, arg) for n in loop.names if n is not None]
    if t in ("string", "simple_symbol", "delimited_symbol"):
        parts = arg.named_children
        inserts = [p for p in parts if p.type == "interpolation"]
        if len(inserts) != 1 or inserts[0].named_child_count != 1 or inserts[0].named_children[0].type != "identifier":
            return None
        loop = loop_at(loops, arg, inserts[0].named_children[0].text.decode())
        if loop is None or any(n is None for n in loop.names) or any(p.type not in ("interpolation", "string_content") for p in parts):
            return None
        out = []
        for name in loop.names:
            assert name is not None
            out.append(("".join(name if p.type == "interpolation" else p.text.decode("utf-8", "replace") for p in parts), arg))
        return out
    return None
