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
(``"#{m}?"``). A constant of the same file holding such a literal counts as the literal
(``MODULES.each { |m| include m }``, ``NAMES.each``), and ``*NAMES`` in a directive's
arguments stands for its names (``attr_accessor(*FLAGS)``, ``private(*HIDDEN)``).

Beyond the parameter itself, each loop over a literal list or hash (integer, string, symbol
or constant elements and values) gets one frame of block-local values per iteration,
computed on first use (``rdx.ruby.evaluate.frames``, ``rdx.ruby.evaluate.unroll``): a name or value
computed from them (``err_name = message.gsub(/ /, '')``, ``Class.new(parent)``) counts in
each iteration where it is known; where it is not, that iteration defines nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdx.ruby.evaluate.frames import run_frames
from rdx.ruby.evaluate.literals import constant_names, literal_collection, splatted_names
from rdx.ruby.evaluate.unroll import Env, Frame, Str, Value, env_at, evaluate, literal_value
from rdx.ruby.syntax import node_text

__all__ = ["Loop", "computed_names", "expand_names", "iteration_values", "loop_at", "register_loop"]

_LIST_TYPES = frozenset({"array", "symbol_array", "string_array"})
# Iterator -> how many block parameters it yields (the first one names the element).
_ITERATORS = {"each": 1, "reverse_each": 1, "each_with_index": 2}
# Longest literal list whose iterations are run for block-local values.
_MAX_ITERATIONS = 4096
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
    # False for a loop only ``frames`` describe (``{100 => 'Continue'}.each { |code, message| }``):
    # its elements are no names or constants, and ``loop_at`` never returns it.
    literal: bool = True
    # Block-local values of each iteration (rdx.ruby.evaluate.unroll), computed when first asked.
    frames: LazyFrames | None = None


class LazyFrames:
    """The frames of one loop, run on first use: most loops never need them."""

    __slots__ = ("_body", "_bindings", "_frames")

    def __init__(self, body: Any, bindings: list[Env]) -> None:
        self._body = body
        self._bindings = bindings
        self._frames: tuple[Frame, ...] | None = None

    def get(self) -> tuple[Frame, ...]:
        if self._frames is None:
            self._frames = tuple(run_frames(self._body, self._bindings))
        return self._frames


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


def _elements(receiver: Any, name: str, root: Any) -> tuple[list[Any], int] | None:
    """The elements a literal receiver yields to ``name`` (a hash's keys) and how many block
    parameters the block may take for the first one to be the element; None otherwise."""
    if receiver is None:
        return None
    if receiver.type in _LIST_TYPES and name in _ITERATORS:
        return receiver.named_children, _ITERATORS[name]
    if receiver.type == "constant" and name in _ITERATORS:
        # ``NAMES.each`` over ``NAMES = %i[a b]`` (or ``A + B`` of such lists), ``MODULES.each``
        # over ``MODULES = [Foo, Bar]``.
        if (listed := constant_names(receiver, root)) is not None:
            return [element for _, element in listed], _ITERATORS[name]
        collection = literal_collection(receiver, root)
        if collection is not None and collection.type in _LIST_TYPES:
            return [e for e in collection.named_children if e.type != "comment"], _ITERATORS[name]
    if receiver.type == "hash" and name in _HASH_ITERATORS:
        pairs = receiver.named_children
        keys = [p.child_by_field_name("key") for p in pairs if p.type == "pair"]
        if len(keys) != len(pairs) or any(k is None for k in keys):
            return None  # A ``**splat``: not a literal list of keys.
        return keys, _HASH_ITERATORS[name]
    return None


def register_loop(loops: list[Loop], node: Any, receiver: Any, name: str, root: Any, block: Any) -> None:
    """Remember ``LITERAL.each { |p| ... }`` (every element a constant or a literal name), and
    the block-local values of each iteration over a literal list or hash (``frames``); ``block``
    is the call's block."""
    params = block.child_by_field_name("parameters")
    if params is None or not params.named_child_count or any(p.type != "identifier" for p in params.named_children):
        return  # No parameter (``do ||``, sequel/model/plugins.rb) or one that is no plain name.
    bindings = _bindings(receiver, name, [node_text(p) for p in params.named_children], root)
    frames = LazyFrames(block.child_by_field_name("body"), bindings) if bindings and len(bindings) <= _MAX_ITERATIONS else None
    found = _elements(receiver, name, root)
    parameter = node_text(params.named_children[0])
    if found is not None:
        elements, arity = found
        names = tuple(_element_name(e) for e in elements)
        literal = (
            1 <= params.named_child_count <= arity
            and not (arity == 2 and name != "each_with_index" and params.named_child_count == 1)  # ``{a: 1}.each { |pair| }``
            and bool(elements)
            and all(n is not None or e.type in ("constant", "scope_resolution") for n, e in zip(names, elements, strict=True))
        )
        if literal:
            loops.append(Loop(block.start_byte, block.end_byte, parameter, names, tuple(elements), True, frames))
            return
    if frames is not None:
        loops.append(Loop(block.start_byte, block.end_byte, parameter, (), (), False, frames))


def _bindings(receiver: Any, name: str, params: list[str], root: Any) -> list[Env] | None:
    """Each iteration's block parameters bound to the element's literal values (an element
    that is no literal leaves its parameter unknown); None when the receiver is not a literal
    list or hash (or a constant holding one) or the parameters do not take its elements."""
    if receiver is not None and receiver.type == "constant":
        receiver = literal_collection(receiver, root)
    if receiver is None or not params:
        return None
    rows: list[list[Value | None]]
    if receiver.type in _LIST_TYPES and name in _ITERATORS and len(params) <= _ITERATORS[name]:
        items = [item for item in receiver.named_children if item.type != "comment"]
        items = items[::-1] if name == "reverse_each" else items
        rows = [[literal_value(item), i] for i, item in enumerate(items)]
    elif receiver.type == "hash" and (name in ("each", "each_pair") and len(params) == 2 or name in ("each_key", "each_value") and len(params) == 1):
        pairs = [p for p in receiver.named_children if p.type != "comment"]
        if any(p.type != "pair" or p.child_by_field_name("key") is None or p.child_by_field_name("value") is None for p in pairs):
            return None
        rows = [[literal_value(p.child_by_field_name("key")), literal_value(p.child_by_field_name("value"))] for p in pairs]
        rows = [row[1:] for row in rows] if name == "each_value" else rows
    else:
        return None
    return [{p: v for p, v in zip(params, row, strict=False) if v is not None} for row in rows]


def iteration_values(loops: list[Loop], node: Any, also: Any = None) -> list[tuple[Value | None, Value | None]] | None:
    """What ``node`` (and ``also``) evaluate to in each iteration of the innermost loop with
    frames around it (None: no such loop); an iteration that does not run the code there, or
    where a value is unknown, gives None for it."""
    found = None
    for loop in loops:
        if loop.frames is not None and loop.start <= node.start_byte < loop.end and (found is None or loop.start >= found.start):
            found = loop
    if found is None:
        return None
    out: list[tuple[Value | None, Value | None]] = []
    assert found.frames is not None
    for frame in found.frames.get():
        env = env_at(frame, node.start_byte)
        if env is None:
            out.append((None, None))
        else:
            out.append((evaluate(node, env), evaluate(also, env) if also is not None else None))
    return out


def loop_at(loops: list[Loop], node: Any, parameter: str) -> Loop | None:
    """The innermost registered loop around ``node`` whose parameter is ``parameter``."""
    found = None
    for loop in loops:
        if loop.literal and loop.start <= node.start_byte < loop.end and loop.parameter == parameter:
            if found is None or loop.start >= found.start:
                found = loop
    return found


def expand_names(loops: list[Loop], arg: Any, root: Any) -> list[tuple[str, Any]] | None:
    """The names an argument stands for inside loops (None: not a loop-dependent argument):
    the loop parameter itself, a string interpolating only it, a name computed from it
    (``computed_names``), or a splatted literal list or constant holding one."""
    t = arg.type
    if t == "splat_argument" and arg.named_child_count == 1 and arg.named_children[0].type in _LIST_TYPES:
        items = arg.named_children[0].named_children
        listed = [(n, item) for item in items if (n := _element_name(item)) is not None]
        return listed if len(listed) == len(items) else None
    if t == "splat_argument":
        # ``attr_reader(*FLAGS)`` after ``FLAGS = %i[a b]``: located at the splat, so that two
        # calls splatting one constant define distinct records.
        spread = splatted_names(arg, root)
        return [(n, arg) for n, _ in spread] if spread is not None else None
    if not loops:
        return None
    names = _literal_names(loops, arg)
    return names if names is not None else computed_names(loops, arg)


def computed_names(loops: list[Loop], arg: Any) -> list[tuple[str, Any]] | None:
    """The names an argument computes from block-local values in each iteration
    (``err_name = message.gsub(/ /, '')``; rdx.ruby.evaluate.unroll), each once; None outside loops."""
    if arg.type not in ("identifier", "string", "simple_symbol", "delimited_symbol", "call"):
        return None
    values = iteration_values(loops, arg)
    if values is None:
        return None
    names = dict.fromkeys(v.text for v, _ in values if isinstance(v, Str) and v.text)
    return [(name, arg) for name in names]


def _literal_names(loops: list[Loop], arg: Any) -> list[tuple[str, Any]] | None:
    """The loop parameter of a literal loop itself, or a string interpolating only it."""
    t = arg.type
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
