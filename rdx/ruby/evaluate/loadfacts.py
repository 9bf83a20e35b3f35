"""Load-time calls of another file's methods, as facts for resolution.

Discovery sees one file at a time, so a call of another
file's method (``DidYouMean.correct_error(self, Correction)`` in a Rails error class) becomes
a ``LoadCall`` record (receiver constant, arguments as constants, ``self`` or unknown), and each
method the file makes callable on a namespace gets ``MethodEffects``: the same reading of its
body as above, kept as a template over its parameters (``LoadEffect``: a mixin or a call of
another method of the file that has effects). ``rdx.ruby.resolve.loadcalls`` binds them once
every namespace is declared. Ruby's hooks (``included``, ``inherited``...) get no template.
The reading of bodies is ``rdx.ruby.evaluate.loadtime``'s (same rules, same limits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdx.model.kinds import MixinKind, ReceiverKind
from rdx.model.records import DefinitionRecord, LoadCall, LoadEffect, MethodEffects, Operand, OperandKind
from rdx.ruby.evaluate.core_methods import core_method_any
from rdx.ruby.evaluate.loadtime import (
    MIXING_CALLS,
    NOT_RUN,
    SEPARATE_ARGS,
    Bound,
    Callee,
    FileIndex,
    call_parts,
    file_index,
    guarded_mixin,
    load_events,
)

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = ["MIXIN_WORDS", "cross_file_facts"]

# -- calls across files ------------------------------------------------------------------
# Ruby runs these when a module is included and calls them itself: never a load-time call.
_HOOK_NAMES = frozenset({"included", "extended", "prepended", "inherited", "append_features", "prepend_features", "extend_object", "method_added"})
_NAMESPACE_NODES = frozenset({"class", "module", "singleton_class"})
# The words of the calls that mix in: a file holding none has no template (``_templates``).
MIXIN_WORDS = (b"include", b"prepend", b"extend")
# Where a statement-level call may sit (expressions and literals are not read: a call that
# mixes in stands as a statement, ``if``/``unless`` bodies and ``&&`` chains included).
_STATEMENT_CONTAINERS = frozenset({
    "program", "body_statement", "then", "if", "unless", "if_modifier", "unless_modifier", "begin",
    "parenthesized_statements", "rescue_modifier", "binary", "ensure",
})
# The statements ``_foreign_calls`` reads (none is in ``NOT_RUN`` but namespaces, whose bodies it reads); others do nothing there.
_READ = (_NAMESPACE_NODES | _STATEMENT_CONTAINERS | {"call", "identifier"}) - (NOT_RUN - _NAMESPACE_NODES)


# The statement-level calls ``_foreign_calls`` reads, found in C (``rdx.native.statement_calls``):
# given the indices of the class scopes, only those that may give a ``LoadCall``.
StatementCalls = Callable[[Any, dict[int, int], set[int]], list[tuple[int, int, int]]]


def cross_file_facts(
    w: Walker, root: Any, statement_calls: StatementCalls | None = None, mixes: bool | None = None
) -> tuple[list[LoadCall], list[MethodEffects]]:
    """What resolution needs to inline load-time calls across files: the calls ``Const.m(args)``
    outside method bodies whose method the file does not define before them (with at least one
    argument that is a constant or ``self``), and the mixin effects of the methods the file
    makes callable on its namespaces (``MethodEffects``, templates over the parameters).
    ``statement_calls``, when given, reads the statements in C; ``mixes``, when given, says
    whether the tree's source holds one of ``MIXIN_WORDS`` (else it is searched)."""
    scopes = {d.start: i for i, d in enumerate(w.definitions) if d.kind in ("Class", "Module", "SingletonClass")}
    defs = w.definitions
    # A call on nothing or on ``self``, or a bare word, gives a LoadCall only in a class's body.
    classes = {i for i in scopes.values() if defs[i].kind == "Class"}
    ranges = statement_calls(root.walk(), scopes, classes) if statement_calls is not None else None
    # Only a method that mixes in starts the templates kept (``_templates``), and only where
    # the file holds a mixing word.
    text = root.text if mixes is not False else b""
    if mixes is None:
        mixes = any(word in text for word in MIXIN_WORDS)
    # The file index is built only when a call or a template asks (``file_index``).
    calls = _foreign_calls(w, root, scopes, ranges) if ranges is None or ranges else []
    return calls, _templates(w, file_index(w), root, text) if mixes else []


def _foreign_calls(w: Walker, root: Any, scopes: dict[int, int], ranges: list[tuple[int, int, int]] | None) -> list[LoadCall]:
    """The load-time calls of other files' methods, in source order: statements of class and
    module bodies and of the top level are read; method bodies, blocks, expressions and
    branches not known taken are not. ``ranges``: the same reading in C (rdx.native), less the
    calls on a receiver that is no constant (``_foreign_call`` drops them), each call's range
    and scope; None to read in Python."""
    bare_calls = _BareCalls(w)
    if ranges is not None:
        found = [_statement_at(root, start, end) for start, end, _ in ranges]
        if all(node is not None for node in found):
            out = []
            for node, (_, _, scope) in zip(found, ranges, strict=True):
                if (call := _read_statement(w, node, scope, bare_calls)) is not None:
                    out.append(call)
            return out
    return _statement_calls(w, root, scopes, bare_calls)


def _statement_at(root: Any, start: int, end: int) -> Any | None:
    """The ``call`` or ``identifier`` node from byte ``start`` to ``end`` (None if the smallest
    node there is neither)."""
    node = root.descendant_for_byte_range(start, end)
    if node is not None and node.type not in ("call", "identifier"):
        node = node.parent  # ``reset!``: a call that is its method's name alone, of the same range.
    return node if node is not None and node.type in ("call", "identifier") and node.start_byte == start and node.end_byte == end else None


class _BareCalls:
    """Where the walk read a bare identifier as a call (``acts_as_list`` in a class body), not a
    local: found on the first question, since most files have no such statement."""

    __slots__ = ("starts", "walker")

    def __init__(self, walker: Walker) -> None:
        self.walker = walker
        self.starts: set[int] | None = None

    def __contains__(self, start: int) -> bool:
        if self.starts is None:
            self.starts = {r.start for r in self.walker.method_refs if r.receiver_kind == ReceiverKind.IMPLICIT_SELF}
        return start in self.starts


def _read_statement(w: Walker, node: Any, scope: int, bare_calls: _BareCalls) -> LoadCall | None:
    """A statement-level call as a ``LoadCall``, or None; a bare identifier counts when the walk
    read it as a call (``bare_calls``)."""
    if node.type == "call":
        return _foreign_call(w, node, scope)
    if scope >= 0 and w.definitions[scope].kind == "Class" and node.start_byte in bare_calls:
        return _inherited_call(w, node, node.text.decode("utf-8", "replace"), [], scope)
    return None


def _statement_calls(w: Walker, root: Any, scopes: dict[int, int], bare_calls: _BareCalls) -> list[LoadCall]:
    """``_foreign_calls``' reading of the tree, in Python."""
    out: list[LoadCall] = []
    stack: list[tuple[Any, str, int]] = [(root, root.type, -1)]
    read = _READ
    while stack:
        node, t, scope = stack.pop()
        if t in _NAMESPACE_NODES:
            body, i = node.child_by_field_name("body"), scopes.get(node.start_byte)
            if body is not None and i is not None:
                stack.append((body, body.type, i))
            continue
        if t == "call" or t == "identifier":
            if (call := _read_statement(w, node, scope, bare_calls)) is not None:
                out.append(call)
        elif t in _STATEMENT_CONTAINERS:
            stack.extend((child, ct, scope) for child in reversed(node.named_children) if (ct := child.type) in read)
    return out


def _foreign_call(w: Walker, node: Any, scope: int) -> LoadCall | None:
    # The receiver first (``call_parts`` returns the call's own): most calls are none of these.
    recv = node.child_by_field_name("receiver")
    if recv is None:
        if scope < 0 or w.definitions[scope].kind != "Class":
            return None  # ``_inherited_call`` would return None.
    elif recv.type not in ("constant", "scope_resolution", "self"):
        return None
    name, recv, args = call_parts(node)
    if name is None or name in MIXING_CALLS or name == "new":
        return None
    if (recv is None or recv.type == "self") and node.type == "call":
        # ``disable_tags "x"`` or ``self.disable_tags "x"``: the class's own singleton method.
        return _inherited_call(w, node, name, args, scope)
    if recv is None or recv.type not in ("constant", "scope_resolution"):
        return None
    path = w._const_path(recv)
    if path is None or path.dynamic or file_index(w).callee(Bound(path, scope), name, node.start_byte) is not None:
        return None  # Not a constant, or a method of this file (inlined by discovery already).
    given = [a for a in args if a.type not in SEPARATE_ARGS]
    if any(a.type in ("splat_argument", "hash_splat_argument") for a in given):
        return None
    operands = tuple(_operand(w, a, {}, scope >= 0) for a in given)
    if all(o.kind == OperandKind.UNKNOWN for o in operands):
        return None
    return LoadCall(Operand(OperandKind.CONSTANT, path), name, operands, scope, node.start_byte)


def _inherited_call(w: Walker, node: Any, name: str, args: list[Any], scope: int) -> LoadCall | None:
    """``disable_tags "include"`` in ``class Render < Tag``: a call on nothing (or on ``self``;
    ``acts_as_tree`` too, a bare word the walk reads as a call) in a class body
    runs a singleton method of the class, found in another file when the file does not define
    it (one its superclass defines, in ``class << self``, say). Not for a method of Ruby's
    ``Class`` (``attr_reader``, ``private``...), which runs core behaviour, nor for a call with
    a block, whose body rdx does not bind."""
    if scope < 0 or w.definitions[scope].kind != "Class" or node.child_by_field_name("block") is not None:
        return None
    if core_method_any("Class", name) or file_index(w).callee(Bound(None, scope), name, node.start_byte) is not None:
        return None
    given = [a for a in args if a.type not in SEPARATE_ARGS]
    if any(a.type in ("splat_argument", "hash_splat_argument", "block_argument") for a in given):
        return None
    operands = tuple(_operand(w, a, {}, True) for a in given)
    return LoadCall(Operand(OperandKind.SELF), name, operands, scope, node.start_byte)


def _operand(w: Walker, node: Any, params: dict[bytes, int], self_known: bool) -> Operand:
    """An argument or receiver as an ``Operand``: a constant, ``self`` (where it is known), a
    parameter of the method being read, or unknown."""
    t = node.type
    if t in ("constant", "scope_resolution"):
        path = w._const_path(node)
        if path is not None and not path.dynamic:
            return Operand(OperandKind.CONSTANT, path)
    elif t == "self" and self_known:
        return Operand(OperandKind.SELF)
    elif t == "identifier" and node.text in params:
        return Operand(OperandKind.PARAM, None, params[node.text])
    return Operand(OperandKind.UNKNOWN)


def _templates(w: Walker, index: FileIndex, root: Any, text: bytes) -> list[MethodEffects]:
    """``MethodEffects`` of every method callable on a namespace of the file that mixes in
    (or calls such a method of the file, to a fixed point), in definition order. ``text``:
    the tree's source (``root.text``)."""
    if not index.methods:
        return []
    # Only a method that mixes in starts the set kept below, and only a body holding a mixing
    # word can: the bodies without one are read only once such a method is found. A method's
    # text is ``text[d.start - base:d.end - base]`` (its record's range is its node's, in the
    # source; ``root.text`` starts at the root's first byte, past leading blank lines),
    # searched in place.
    base = root.start_byte
    mixing: list[tuple[Callee, DefinitionRecord]] = []
    later: list[tuple[Callee, DefinitionRecord]] = []
    for (qual, name), callees in index.methods.items():
        if name in _HOOK_NAMES:
            continue
        for c in callees:
            if c.needs_extend_self and qual not in index.extend_self:
                continue  # Not callable on the module from another file.
            d = index.defs[c.method]
            start, end = d.start - base, d.end - base
            if any(text.find(word, start, end) >= 0 for word in MIXIN_WORDS):
                mixing.append((c, d))
            else:
                later.append((c, d))
    if not mixing:
        return []
    raw: dict[int, MethodEffects] = {}
    # The words a body must hold to have an effect: a mixing call, or a method of the file.
    words = (*MIXIN_WORDS, *{name.encode() for _, name in index.methods})
    for c, d in mixing:
        if (node := _method_node(root, d)) is not None and (t := _template(w, index, node, c, words)) is not None:
            raw[c.method] = t
    if not any(e.mixin for t in raw.values() for e in t.effects):
        return []
    for c, d in later:
        if (node := _method_node(root, d)) is not None and (t := _template(w, index, node, c, words)) is not None:
            raw[c.method] = t
    kept: set[str] = set()
    grew = True
    while grew:  # Methods that mix in, then those calling them, and so on.
        grew = False
        for i, t in raw.items():
            name = index.defs[i].name
            if name not in kept and any(e.mixin or e.name in kept for e in t.effects):
                kept.add(name)
                grew = True
    out = []
    for i in sorted(raw):
        t = raw[i]
        if index.defs[i].name in kept:
            effects = tuple(e for e in t.effects if e.mixin or e.name in kept)
            out.append(MethodEffects(t.method, t.namespace, t.scope, t.required, t.defaults, effects, t.rest))
    return out


def _method_node(root: Any, d: DefinitionRecord) -> Any | None:
    """The ``def`` node of method record ``d``, or None (``define_method``'s call)."""
    node = root.descendant_for_byte_range(d.start, d.end)
    return node if node is not None and node.type in ("method", "singleton_method") else None


def _template(w: Walker, index: FileIndex, node: Any, callee: Callee, words: tuple[bytes, ...]) -> MethodEffects | None:
    """The effects of one method body over its parameters (see ``_enter`` for what is read);
    None at once when the body holds none of ``words`` (``_templates``)."""
    body = node.child_by_field_name("body")
    if body is None:
        return None
    text = body.text
    if not any(word in text for word in words):
        return None
    names: dict[bytes, int] = {}
    defaults_nodes: list[Any] = []
    rest = False
    params = node.child_by_field_name("parameters")
    for p in params.named_children if params is not None else ():
        if rest and p.type not in ("keyword_parameter", "block_parameter", "hash_splat_parameter"):
            return None  # A parameter after the splat: which argument binds it depends on the count.
        if p.type == "identifier" and not defaults_nodes:
            names[p.text] = len(names)
        elif p.type == "optional_parameter" and (pname := p.child_by_field_name("name")) is not None:
            names[pname.text] = len(names)
            defaults_nodes.append(p.child_by_field_name("value"))
        elif p.type == "splat_parameter":
            rest = True  # Takes the arguments past the others; the effects do not read it.
        elif p.type not in ("keyword_parameter", "block_parameter", "hash_splat_parameter"):
            return None
    effects = []
    for event, in_block in load_events(body, index):
        effect = _effect(w, event, in_block, names)
        if effect is not None:
            effects.append(effect)
    if not effects:
        return None
    defaults = tuple(_operand(w, n, {}, True) if n is not None else Operand(OperandKind.UNKNOWN) for n in defaults_nodes)
    d = index.defs[callee.method]
    return MethodEffects(callee.method, callee.namespace, d.parent, len(names) - len(defaults), defaults, tuple(effects), rest)


def _effect(w: Walker, node: Any, in_block: bool, params: dict[bytes, int]) -> LoadEffect | None:
    name, recv, args = call_parts(node)
    if name is None:
        return None
    given = [a for a in args if a.type not in SEPARATE_ARGS]
    if any(a.type in ("splat_argument", "hash_splat_argument") for a in given):
        return None
    receiver = Operand(OperandKind.SELF) if recv is None and not in_block else _operand(w, recv, params, not in_block) if recv is not None else None
    if receiver is None or receiver.kind == OperandKind.UNKNOWN:
        return None
    operands = tuple(_operand(w, a, params, not in_block) for a in given)
    if name not in MIXING_CALLS:
        return LoadEffect(name, receiver, operands)
    if not operands or any(o.kind == OperandKind.UNKNOWN for o in operands):
        return None  # Ruby would include something rdx cannot name.
    guarded = name != MixinKind.EXTEND and recv is not None and len(given) == 1 and guarded_mixin(node, recv.text, given[0].text)
    return LoadEffect(name, receiver, operands, True, guarded)
