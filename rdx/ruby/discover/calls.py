"""Method calls that are not written as calls: operators, element access, op-assignments,
``&:sym`` block-passes and ``m(k:)`` keyword shorthand, as Ruby dispatches them.

``a + b`` calls ``+`` on ``a`` (every binary operator but ``&&``, ``||``, ``and``, ``or``;
``a != b`` calls ``!=``), ``!a`` and ``not a`` call ``!``, ``-a``/``+a`` call ``-@``/``+@``
(not on a numeric literal, which Ruby folds), ``~a`` calls ``~``, ``a[i]`` calls ``[]`` and
``a[i] = v`` calls ``[]=``. ``x.y += 1`` calls ``y``, ``+`` and ``y=``; ``C ||= 1`` reads
``C``. ``list.map(&:name)`` calls ``name`` and ``m(k:)`` calls ``k`` unless ``k`` is a local
variable. ``tests/test_ruby_references.py`` asks Ruby (methods that log their call sites)
which methods each line calls.

Each reference is a ``MethodRef`` (or a ``ConstRef``) located at the operator, the brackets,
the symbol or the key, so that references, hover and definition work on it. Handlers take the
discovery walker (``rdx.ruby.discover.parse``) and never import its module at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdx.model.kinds import ReceiverKind
from rdx.model.records import ConstPath, ConstRef, MethodRef
from rdx.ruby.syntax import node_text, symbol_name

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = ["READ_AND_WRITE", "WRITE", "on_binary", "on_block_argument", "on_element_reference", "on_pair", "on_unary", "op_assignment", "receiver_of"]

# What an assignment does to its target call or element reference (``Walker.setter_calls``).
WRITE = 1
READ_AND_WRITE = 2

_NOT_CALLS = frozenset({"&&", "||", "and", "or"})
_UNARY = {"!": "!", "not": "!", "-": "-@", "+": "+@", "~": "~"}
_NUMERIC = frozenset({"integer", "float", "rational", "complex"})
# ``x ||= v`` and ``x &&= v`` test the value; the others call the operator before ``=``.
_TESTS = frozenset({"||=", "&&="})


def receiver_of(w: Walker, recv: Any) -> tuple[ReceiverKind, ConstPath | None, str | None]:
    """How a call's receiver node is recorded: its kind, its constant path (``Foo.bar`` and
    ``Foo.new.bar``) or, for any other receiver, its text."""
    if recv is None:
        return ReceiverKind.IMPLICIT_SELF, None, None
    rt = recv.type
    if rt == "self":
        return ReceiverKind.SELF, None, None
    if rt in ("constant", "scope_resolution"):
        path = w._const_path(recv)
        if path is not None and not path.dynamic:
            return ReceiverKind.CONSTANT, path, None
    elif rt == "call":
        inner = recv.child_by_field_name("receiver")
        inner_m = recv.child_by_field_name("method")
        if inner is not None and inner_m is not None and inner.type in ("constant", "scope_resolution") and inner_m.text == b"new":
            path = w._const_path(inner)
            if path is not None and not path.dynamic:
                return ReceiverKind.CONSTANT_INSTANCE, path, None
    return ReceiverKind.OTHER, None, node_text(recv)[:200]


def _call(w: Walker, name: str, start: int, end: int, recv: Any) -> None:
    scope = w._scope(start)
    kind, path, text = receiver_of(w, recv)
    w.method_refs.append(MethodRef(name, start, end, scope.index if scope else -1, kind, path, text))


def on_binary(w: Walker, node: Any) -> None:
    op = node.child_by_field_name("operator")
    if op is None or op.type in _NOT_CALLS:
        return
    _call(w, op.type, op.start_byte, op.end_byte, node.child_by_field_name("left"))


def on_unary(w: Walker, node: Any) -> None:
    op = node.child_by_field_name("operator")
    operand = node.child_by_field_name("operand")
    name = _UNARY.get(op.type) if op is not None else None
    if name is None or operand is None or (name in ("-@", "+@") and operand.type in _NUMERIC):
        return
    _call(w, name, op.start_byte, op.end_byte, operand)


def on_element_reference(w: Walker, node: Any) -> None:
    """``a[i]`` calls ``[]``; as an assignment target ``[]=`` (an op-assignment both)."""
    obj = node.child_by_field_name("object")
    bracket = next((c for c in node.children if c.type == "[" and not c.is_named), None)
    if obj is None or bracket is None:
        return
    role = w.setter_calls.get((node.start_byte, node.end_byte))
    if role != WRITE:
        _call(w, "[]", bracket.start_byte, node.end_byte, obj)
    if role is not None:
        _call(w, "[]=", bracket.start_byte, node.end_byte, obj)


def op_assignment(w: Walker, node: Any, left: Any) -> None:
    """``x.y += 1``: the reader and writer of the target (marked for its own handler), the
    operator's method, and a read of a constant target (``C ||= 1`` reads ``C``)."""
    op = node.child_by_field_name("operator")
    if op is None:
        return
    t = left.type
    if t in ("call", "element_reference"):
        w.setter_calls[(left.start_byte, left.end_byte)] = READ_AND_WRITE
    elif t in ("constant", "scope_resolution"):
        path = w._const_path(left)
        if path is not None and not path.dynamic:
            scope = w._scope(node.start_byte)
            w.const_refs.append(ConstRef(path, scope.index if scope else -1))
    if op.type not in _TESTS:
        # The operator's method is called on the target's value.
        _call(w, op.type[:-1], op.start_byte, op.end_byte - 1, left)


def on_block_argument(w: Walker, node: Any) -> None:
    """``list.map(&:name)`` calls ``name`` on each element (receiver unknown)."""
    if node.named_child_count != 1:
        return
    sym = node.named_children[0]
    name = symbol_name(sym) if sym.type in ("simple_symbol", "delimited_symbol") else None
    if not name:
        return
    start = sym.start_byte + 1 if sym.type == "simple_symbol" else sym.start_byte
    scope = w._scope(start)
    w.method_refs.append(MethodRef(name, start, sym.end_byte, scope.index if scope else -1, ReceiverKind.OTHER))


def on_pair(w: Walker, node: Any) -> None:
    """``m(k:)`` and ``{k:}`` pass the local variable ``k`` or, without one, call ``k``
    (``{K:}`` reads the constant ``K``)."""
    if node.named_child_count != 1:
        return
    key = node.named_children[0]
    if key.type != "hash_key_symbol" or key.text in w._locals(key.start_byte):
        return
    scope = w._scope(key.start_byte)
    if key.text[:1].isupper():  # ``{K:}`` reads the constant K.
        w.const_refs.append(ConstRef(ConstPath((node_text(key),), False, key.start_byte, key.end_byte), scope.index if scope else -1))
        return
    w.method_refs.append(MethodRef(node_text(key), key.start_byte, key.end_byte, scope.index if scope else -1, ReceiverKind.IMPLICIT_SELF))
