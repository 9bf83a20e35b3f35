"""Load-time calls of methods the same file defines, inlined for their mixins.

``ActiveSupport::Dependencies.hook!`` at the end of dependencies.rb runs
``Loadable.include_into(Object)``, whose body is ``base.include(self)``; did_you_mean.rb's module
body runs ``correct_error NameError, NameErrorCheckers``, whose body prepends ``Correctable`` to
its parameter. Ruby runs those at load time, so the mixins are part of the graph.

The walker (``rdx.ruby.discover.parse``) notes each call outside method bodies whose name is that of
a method defined earlier in the file (``Const.m(args)``, ``self.m(args)``, bare ``m(args)`` and
``Const.send(:m, args)``). After the walk, this module finds the callee: a method callable on a
namespace the file defines (``def self.m``, ``def m`` in ``class << self``, ``def m`` in a module
that does ``extend self`` or marks it ``module_function``), the receiver's written path matched
against the file's namespaces through the lexical nesting of the call, the last definition that
precedes the call. It then reads the callee's body: ``X.include(Y)``/``prepend``/``extend`` and
``X.send(:include, Y)`` where X and Y are each a constant, ``self`` or a parameter bound at the
call to a constant or ``self``, become ``ExternalMixin`` records (the target looked up where
it was written, the module where it was written: ``mixin_scope``), ordered at the load-time
call. Calls to other methods of the file inside the body are followed the same way, four deep,
never into a method already being inlined.

Conservative by design: ``if``/``unless`` (modifiers too) count as taken, which is what Ruby
does in the real cases (``if defined?(...)``, ``if error_class.is_a?(Class)``), but ``else``,
``elsif``, ``when``/``in`` and ``rescue`` branches are skipped; ``self`` inside a block is
unknown (``class_eval``, ``instance_eval``); nested ``def``, lambdas and class bodies do not run.
Out of reach: methods called before they are defined, calls with splats that hide which
argument goes where, and any argument that is not a constant, ``self`` or such a parameter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

from rdx.model.kinds import MixinKind
from rdx.model.records import (
    ConstPath,
    DefinitionRecord,
    ExternalMixin,
    Mixin,
)
from rdx.ruby.syntax import BLOCK_TYPES, symbol_name

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker
    from rdx.ruby.discover.scope import Scope

__all__ = ["call_parts", "Callee", "FileIndex", "file_index", "guarded_mixin", "inline_load_time_calls", "load_events", "MIXING_CALLS", "NOT_RUN", "note_call", "SEPARATE_ARGS"]

MAX_DEPTH = 4
MIXING_CALLS = frozenset({"include", "prepend", "extend"})
_SEND = frozenset({"send", "__send__", "public_send"})
# Code that does not run when the method body does, or runs only in a branch not known taken.
NOT_RUN = frozenset({"method", "singleton_method", "class", "module", "singleton_class", "lambda", "else", "elsif", "when", "in_clause", "rescue"})
# Parents under which a bare identifier is a statement (a call of a method without arguments).
_STATEMENT_PARENTS = frozenset({"body_statement", "then", "begin", "block_body"})
SEPARATE_ARGS = frozenset({"pair", "block_argument"})


class Bound(NamedTuple):
    """What an expression stands for: the constant ``path`` looked up at scope ``scope`` (a
    definition index, -1 at top level), or, when ``path`` is None, the namespace defined by
    definition ``scope`` itself (``self`` in its body)."""

    path: ConstPath | None
    scope: int


class _Frame(NamedTuple):
    """One body being read: its calls still to read (last first), what its parameters are bound
    to, the namespace ``self`` is (None: unknown), where its constants are looked up, and the
    methods being inlined around it (the cycle guard)."""

    events: list[tuple[Any, bool]]
    params: dict[bytes, Bound | None]
    self_ns: int | None
    lexical: int
    chain: frozenset[int]


class Callee(NamedTuple):
    method: int
    namespace: int  # The definition index of the namespace ``self`` is in its body.
    needs_extend_self: bool


class FileIndex:
    """The file's namespaces by file-local qualified name and the methods callable on them."""

    def __init__(self, defs: list[DefinitionRecord]) -> None:
        self.defs = defs
        self.qual: dict[int, tuple[str, ...]] = {}
        self.known: set[tuple[str, ...]] = set()
        self.methods: dict[tuple[tuple[str, ...], str], list[Callee]] = {}
        self.extend_self: dict[tuple[str, ...], list[int]] = {}
        qual = self.qual
        methods = self.methods
        for i, d in enumerate(defs):
            kind = d.kind
            if kind == "Method":
                # A method callable on a namespace of the file: ``def self.m`` in it, ``def m`` in
                # its ``class << self`` or in a module (``extend self``, ``module_function``).
                at = d.parent
                if d.receiver is not None or at < 0:
                    continue
                if d.self_receiver:
                    if at not in qual:
                        continue
                    callee = Callee(i, at, False)
                else:
                    parent = defs[at]
                    outer = parent.kind
                    if outer == "Module" and at in qual:
                        callee = Callee(i, at, not d.module_function)
                    elif outer == "SingletonClass" and parent.target is None and parent.parent in qual:
                        callee = Callee(i, parent.parent, False)
                    else:
                        continue
                methods.setdefault((qual[callee.namespace], d.name), []).append(callee)
            elif kind == "Class" or kind == "Module":
                self._namespace(i, d)

    def _namespace(self, i: int, d: DefinitionRecord) -> None:
        if d.path is None or d.path.dynamic:
            return
        if d.path.absolute or d.parent < 0:
            base: tuple[str, ...] = ()
        elif d.parent in self.qual:
            base = self.qual[d.parent]
        else:
            return  # Inside a singleton class or a method body: not a constant of the file.
        qual = base + d.path.segments
        self.qual[i] = qual
        self.known.add(qual)
        for m in d.mixins:
            if m.kind == MixinKind.EXTEND and m.target is None:
                self.extend_self.setdefault(qual, []).append(m.start)

    def namespace_of(self, value: Bound) -> tuple[str, ...] | None:
        """The file-local qualified name of the namespace ``value`` names, if the file defines
        it: a constant is tried in each lexical scope around where it was written, innermost
        first, then at top level."""
        if value.path is None:
            return self.qual.get(value.scope)
        segments = value.path.segments
        if not value.path.absolute:
            i = value.scope
            while i >= 0:
                d = self.defs[i]
                if i in self.qual and d.lexical and (self.qual[i] + segments) in self.known:
                    return self.qual[i] + segments
                i = d.parent
        return segments if segments in self.known else None

    def callee(self, receiver: Bound, name: str, before: int) -> Callee | None:
        """The method ``name`` called on ``receiver`` at offset ``before``: the last definition
        that precedes the call (Ruby raises NoMethodError on one defined later)."""
        qual = self.namespace_of(receiver)
        if qual is None:
            return None
        found = None
        for c in self.methods.get((qual, name), ()):
            if self.defs[c.method].end > before:
                break
            if c.needs_extend_self and not any(s < before for s in self.extend_self.get(qual, ())):
                continue
            found = c
        return found

    def target_site(self, value: Bound) -> tuple[ConstPath, int] | None:
        """``value`` as the receiver of a mixin call: a constant path and its lookup scope
        (``self`` becomes the namespace's own name, looked up where the namespace is written)."""
        if value.path is not None:
            return value.path, value.scope
        if value.scope not in self.qual:
            return None
        d = self.defs[value.scope]
        assert d.path is not None
        return d.path, d.parent


def file_index(w: Walker) -> FileIndex:
    """The ``FileIndex`` of the walker's definitions, built once (on the first question) for
    the passes that read it once the walk is done and its mixins are on the definitions
    (``inline_load_time_calls``, ``rdx.ruby.evaluate.loadfacts``, ``rdx.ruby.evaluate.computed``):
    none of them changes a definition."""
    index = w.file_index
    if index is None or index.defs is not w.definitions:
        index = w.file_index = FileIndex(w.definitions)
    return index


def inline_load_time_calls(w: Walker, root: Any) -> None:
    """Turn the mixins of the load-time calls the walker noted into ``ExternalMixin`` records."""
    index = file_index(w)
    if not index.methods:
        return
    for node, scope, self_known in w.load_calls:
        lexical = scope
        self_ns = scope if self_known and scope in index.qual else None
        top = _Frame([(node, False)], {}, self_ns, lexical, frozenset())
        _run(w, index, root, top, node.start_byte)


def _run(w: Walker, index: FileIndex, root: Any, top: _Frame, start: int) -> None:
    """Read the frames depth first with an explicit stack, so that mixins come out in the
    order Ruby would apply them."""
    stack = [top]
    while stack:
        frame = stack[-1]
        if not frame.events:
            stack.pop()
            continue
        node, in_block = frame.events.pop()
        name, recv, args = call_parts(node)
        if name is None:
            continue
        if name in MIXING_CALLS:
            if len(stack) > 1:  # Top-level mixin calls are the walker's.
                _mixins(w, index, frame, node, cast(MixinKind, name), (recv, args), in_block, start)
            continue
        receiver = _self(frame, in_block) if recv is None or recv.type == "self" else _value(w, frame, recv, in_block)
        if receiver is None or len(stack) > MAX_DEPTH:
            continue
        callee = index.callee(receiver, name, start)
        if callee is None or callee.method in frame.chain:
            continue
        pushed = _enter(w, index, root, frame, callee, args, in_block)
        if pushed is not None:
            stack.append(pushed)


def call_parts(node: Any) -> tuple[str | None, Any, list[Any]]:
    """(method name, receiver node, argument nodes) of a call, ``send(:name, ...)`` unwrapped."""
    if node.type == "identifier":
        return node.text.decode("utf-8", "replace"), None, []
    meth = node.child_by_field_name("method")
    if meth is None:
        return None, None, []
    name = meth.text.decode("utf-8", "replace")
    given = node.child_by_field_name("arguments")
    args = list(given.named_children) if given is not None else []
    if name in _SEND:
        verb = symbol_name(args[0]) if args and args[0].type != "string" else None
        if verb is None:
            return None, None, []
        name, args = verb, args[1:]
    return name, node.child_by_field_name("receiver"), args


def _self(frame: _Frame, in_block: bool) -> Bound | None:
    return Bound(None, frame.self_ns) if frame.self_ns is not None and not in_block else None


def _value(w: Walker, frame: _Frame, node: Any, in_block: bool) -> Bound | None:
    """What an argument or receiver stands for in ``frame``, if it is statically known."""
    t = node.type
    if t in ("constant", "scope_resolution"):
        path = w._const_path(node)
        return Bound(path, frame.lexical) if path is not None and not path.dynamic else None
    if t == "self":
        return _self(frame, in_block)
    if t == "identifier":
        return frame.params.get(node.text)
    return None


def _mixins(w: Walker, index: FileIndex, frame: _Frame, node: Any, kind: MixinKind, call: tuple[Any, list[Any]], in_block: bool, start: int) -> None:
    """``X.include(Y, Z)`` in a callee's body: one record per module, at the load-time call."""
    recv, args = call
    target = _self(frame, in_block) if recv is None or recv.type == "self" else _value(w, frame, recv, in_block)
    site = index.target_site(target) if target is not None else None
    if site is None:
        return
    path, scope = site
    modules = [_value(w, frame, arg, in_block) for arg in args]
    if not modules or any(m is None or (m.path is None and m.scope not in index.qual) for m in modules):
        return  # Ruby would include something rdx cannot name: leave the whole call out.
    w.external_calls += 1
    guarded = kind != MixinKind.EXTEND and recv is not None and len(args) == 1 and guarded_mixin(node, recv.text, args[0].text)
    for m in modules:
        assert m is not None
        mixin = Mixin(kind, m.path, w.external_calls, start)
        w.external_mixins.append(ExternalMixin(path, scope, mixin, m.scope if m.scope != scope else -2, guarded))


def guarded_mixin(node: Any, recv: bytes, module: bytes) -> bool:
    """Whether the call runs only while ``recv < module`` is false: ``X.prepend(M) if !(X < M)``
    (also as one operand of ``&&``), ``unless X < M`` (or of ``||``), ``X.include?(M)`` and
    ``X.ancestors.include?(M)`` alike. Ruby evaluates it; resolution decides it the same way."""
    parent = node.parent
    if parent is not None and parent.type == "then":
        parent = parent.parent
    if parent is None or parent.type not in ("if_modifier", "unless_modifier", "if", "unless"):
        return False
    wanted_negations = 1 if parent.type.startswith("if") else 0
    joiners = (b"&&", b"and") if wanted_negations else (b"||", b"or")
    stack = [(parent.child_by_field_name("condition"), 0)]
    while stack:
        cond, negations = stack.pop()
        if cond is None or negations > 1:
            continue
        t = cond.type
        if t == "parenthesized_statements" and cond.named_child_count == 1:
            stack.append((cond.named_children[0], negations))
        elif t in ("unary", "not") and (op := cond.child_by_field_name("operator")) is not None and op.text in (b"!", b"not"):
            stack.append((cond.child_by_field_name("operand"), negations + 1))
        elif t == "binary" and (op := cond.child_by_field_name("operator")) is not None:
            left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
            if op.text in joiners:
                stack += [(left, negations), (right, negations)]
            elif op.text in (b"<", b"<=") and negations == wanted_negations and left is not None and right is not None:
                if left.text == recv and right.text == module:
                    return True
        elif t == "call" and negations == wanted_negations and _includes(cond, recv, module):
            return True
    return False


def _includes(call: Any, recv: bytes, module: bytes) -> bool:
    """``X.include?(M)`` or ``X.ancestors.include?(M)``."""
    meth, on, given = call.child_by_field_name("method"), call.child_by_field_name("receiver"), call.child_by_field_name("arguments")
    if meth is None or meth.text != b"include?" or on is None or given is None or given.named_child_count != 1:
        return False
    return given.named_children[0].text == module and on.text in (recv, recv + b".ancestors")


def _enter(w: Walker, index: FileIndex, root: Any, caller: _Frame, callee: Callee, args: list[Any], in_block: bool) -> _Frame | None:
    """The frame of a call of ``callee``: its parameters bound to the caller's arguments."""
    d = index.defs[callee.method]
    node = root.descendant_for_byte_range(d.start, d.end)
    if node is None or node.type not in ("method", "singleton_method"):
        return None
    lexical = d.parent
    frame = _Frame([], {}, callee.namespace, lexical, caller.chain | {callee.method})
    given = [a for a in args if a.type not in SEPARATE_ARGS]
    if any(a.type in ("splat_argument", "hash_splat_argument") for a in given):
        return None  # Which argument goes where is not known.
    params = node.child_by_field_name("parameters")
    required: list[bytes] = []
    optional: list[tuple[bytes, Any]] = []
    for p in params.named_children if params is not None else ():
        if p.type == "identifier" and not optional:
            required.append(p.text)
        elif p.type == "optional_parameter" and (pname := p.child_by_field_name("name")) is not None:
            optional.append((pname.text, p.child_by_field_name("value")))
        elif p.type not in ("keyword_parameter", "block_parameter", "hash_splat_parameter"):
            return None  # A splat or a required parameter after optional ones: not modelled.
    if not len(required) <= len(given) <= len(required) + len(optional):
        return None  # Ruby raises ArgumentError: the body never runs.
    for pname, arg in zip(required + [o[0] for o in optional], given, strict=False):
        frame.params[pname] = _value(w, caller, arg, in_block)
    for pname, default in optional[len(given) - len(required):]:
        frame.params[pname] = _value(w, frame, default, False) if default is not None else None
    body = node.child_by_field_name("body")
    if body is not None:
        frame.events.extend(reversed(load_events(body, index)))
    return frame


def load_events(body: Any, index: FileIndex) -> list[tuple[Any, bool]]:
    """The calls in a method body that may matter, in source order, each with whether it sits
    in a block (where ``self`` may be anything)."""
    names = {name for _, name in index.methods} | MIXING_CALLS | _SEND
    out: list[tuple[Any, bool]] = []
    # Each entry carries its parent's type: ``node.parent`` costs O(depth) in tree-sitter. The
    # body's own parent is the method, which is no statement parent.
    stack = [(body, False, "")]
    while stack:
        node, in_block, parent_type = stack.pop()
        t = node.type
        if t == "call":
            meth = node.child_by_field_name("method")
            if meth is not None and meth.text.decode("utf-8", "replace") in names:
                out.append((node, in_block))
        elif t == "identifier":
            if parent_type in _STATEMENT_PARENTS and node.text.decode("utf-8", "replace") in names:
                out.append((node, in_block))
            continue
        for child in reversed(node.named_children):
            if child.type not in NOT_RUN:
                stack.append((child, in_block or child.type in BLOCK_TYPES, t))
    return out


def note_call(w: Walker, node: Any, scope: Scope | None) -> None:
    """Called by the walker for a call outside method bodies named like a method defined
    earlier in the file (or a ``send``): kept for ``inline_load_time_calls``, with whether
    ``self`` there is the namespace around (not in a block, nor in ``included do``)."""
    # A block between the call and the namespace around it leaves ``self`` unknown; the walker
    # knows its open blocks, so no walk up the parents is needed.
    self_known = scope is not None and not scope.deferred and not w.in_block(node.start_byte, w.definitions[scope.index].start)
    w.load_calls.append((node, scope.index if scope is not None else -1, self_known))
