"""Definitions written as syntax: ``class``/``module`` (and the pieces of one that a syntax
error leaves), ``class << X``, ``def``/``def self.x``, and assignments (constants, including
``X = Class.new(B)``/``Struct.new``/``Data.define`` namespaces and constant aliases, instance,
class and global variables, locals, and the targets of attribute and element assignment).

Functions taking the discovery walker (``rdx.ruby.discover.parse``): they append definition
records and open scopes through its small API, and never import its module at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdx.model.records import ConstPath
from rdx.ruby.discover.calls import WRITE, op_assignment
from rdx.ruby.discover.scope import Scope
from rdx.ruby.evaluate.branches import chosen_constant
from rdx.ruby.syntax import node_text

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = [
    "HOOKS", "NAMESPACE_FACTORY_RECEIVERS", "anonymous_namespace", "class_methods_block", "constant", "method_definition", "namespace_definition", "on_assignment", "on_method", "on_namespace",
    "on_singleton_class", "recover_namespace",
]

_MAX_PARAMS = 400
_CONDITIONAL_VALUES = frozenset({"if", "unless", "case", "conditional", "parenthesized_statements"})
# Ruby's hooks whose parameter names the class mixing in (``Scope.hook_param``).
HOOKS = frozenset({b"included", b"extended", b"prepended", b"append_features", b"inherited"})

# Receivers of ``X = Receiver.method(...)`` that create a namespace, with the kind created and
# the accessor kind given to symbol arguments (None: arguments are not members).
_NAMESPACE_FACTORIES = {
    ("Class", "new"): ("Class", None),
    ("Module", "new"): ("Module", None),
    ("Struct", "new"): ("Class", "AttrAccessor"),
    ("Data", "define"): ("Class", "AttrReader"),
}
# The constants whose calls may make a namespace (``_factory_key``): the native step leaves a
# constant's assignment of a call on one of them to ``constant`` (rdx.native).
NAMESPACE_FACTORY_RECEIVERS = frozenset(receiver for receiver, _ in _NAMESPACE_FACTORIES)


def on_namespace(w: Walker, node: Any) -> None:
    kind = "Class" if node.type == "class" else "Module"
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return
    scope = w._scope(node.start_byte)
    path = w._const_path(name_node)
    if path is None or path.dynamic:
        w._diag("dynamic-namespace", f"cannot resolve the name {node_text(name_node)!r} statically", name_node, "warning")
        return
    if w.too_deep(node, len(path.segments)):
        return
    w.skip_const_until = name_node.end_byte
    w._prefix_ref(path, scope.index if scope is not None else -1)
    superclass = None
    superclass_self = False
    superclass_new = False
    struct_members: list[tuple[str, Any]] = []
    struct_kind = None
    body_start = name_node.end_byte
    sup = node.child_by_field_name("superclass")
    if sup is not None:
        body_start = sup.end_byte
        expr = sup.named_children[-1] if sup.named_child_count else None
        if expr is not None and expr.type == "self":
            superclass_self = True
        elif expr is not None:
            superclass = w._const_path(expr)
            if superclass is None and expr.type == "call":
                superclass, struct_kind, struct_members = _factory(w, expr)
                if superclass is None:
                    superclass = _new_of(w, expr)
                    superclass_new = superclass is not None
                if superclass is None and expr.child_by_field_name("receiver") is None:
                    meth = expr.child_by_field_name("method")
                    if meth is not None and meth.text == b"DelegateClass":
                        # ``DelegateClass(X)`` builds an anonymous subclass of Delegator.
                        superclass = ConstPath(("Delegator",), True, expr.start_byte, expr.end_byte)
            if superclass is None or superclass.dynamic:
                superclass = None
                w._diag("dynamic-superclass", f"cannot resolve the superclass {node_text(expr)!r} statically", expr, "warning")
        if w.untaken_at(node.start_byte):
            # ``if Sass::Util.rbx? then class X < DelegateClass(S) else class X < S end``: the
            # class stays indexed, its superclass is the branch Ruby runs (Walker.untaken).
            superclass, superclass_self = None, False
    if superclass is None:
        superclass_new = False
    new_scope = namespace_definition(
        w, scope.index if scope is not None else -1, kind, path, node.start_byte, node.end_byte, name_node.start_byte, name_node.end_byte, node.start_point[0], body_start,
        superclass, superclass_self, superclass_new,
    )
    w._scan_marks(node.child_by_field_name("body"), new_scope)
    w.push_scope(new_scope, len(path.segments))
    if struct_kind:
        _members(w, struct_kind, struct_members, new_scope)


def namespace_definition(
    w: Walker, parent: int, kind: str, path: ConstPath, start: int, end: int, name_start: int, name_end: int, row: int, body_start: int,
    superclass: ConstPath | None, superclass_self: bool, superclass_new: bool, ident: int | None = None, comments: tuple[str, ...] | None = None,
) -> Scope:
    """The record of a class or module (``on_namespace``'s, from the parts it read) in the
    scope of definition ``parent`` (-1: the top level), and the scope of its body from ``body_start``, to be pushed once its marks are
    known (``Walker._scan_marks``). Also the native walk's for the plain ones it passes over,
    which gives the id and the comments above (else made from ``row``, the row it starts on)."""
    index = w._add_at(
        kind,
        path.text,
        start,
        end,
        name_start,
        name_end,
        parent,
        ident,
        path=path,
        superclass=superclass,
        superclass_self=superclass_self,
        superclass_new=superclass_new,
        comments=w._comments_at_row(row) if comments is None else comments,
    )
    return Scope(end, body_start, index, False)


def _factory(w: Walker, call: Any) -> tuple[ConstPath | None, str | None, list[tuple[str, Any]]]:
    """``Struct.new(:a)`` / ``Data.define(:a)`` used as a superclass or value."""
    recv = call.child_by_field_name("receiver")
    meth = call.child_by_field_name("method")
    if recv is None or meth is None:
        return None, None, []
    key = _factory_key(call)
    if key not in _NAMESPACE_FACTORIES or key[0] not in ("Struct", "Data"):
        return None, None, []
    members = w._symbol_args(call)
    return w._const_path(recv), _NAMESPACE_FACTORIES[key][1], members


def _new_of(w: Walker, call: Any) -> ConstPath | None:
    """K of a superclass written ``K.new(...)`` (``class ProxyOptions < Options.new(:uri)``,
    Options a Struct subclass), K a constant other than the factories ``_factory`` reads:
    resolution decides what K.new returns (``superclass_new``)."""
    recv = call.child_by_field_name("receiver")
    meth = call.child_by_field_name("method")
    if recv is None or meth is None or meth.text != b"new" or recv.type not in ("constant", "scope_resolution"):
        return None
    if _factory_key(call) in _NAMESPACE_FACTORIES:
        return None  # ``Class.new(B)``, ``Module.new``: not a subclass of their receiver.
    path = w._const_path(recv)
    return path if path is not None and not path.dynamic else None


def _members(w: Walker, kind: str | None, members: list[tuple[str, Any]], scope: Scope) -> None:
    if kind is None:
        return
    for name, node in members:
        w._add(kind, name, node, node, scope)


def on_singleton_class(w: Walker, node: Any) -> None:
    value = node.child_by_field_name("value")
    scope = w._scope(node.start_byte)
    target = None
    if value is None:
        return
    if value.type != "self":
        target = w._const_path(value)
        if target is None or target.dynamic:
            w._diag("dynamic-singleton-class", f"cannot resolve 'class << {node_text(value)}' statically", value, "warning")
            return
    if w.too_deep(node):
        return
    index = w._add(
        "SingletonClass",
        target.text if target else "self",
        node,
        value,
        scope,
        target=target,
        self_receiver=target is None,
        comments=w._comments_above(node),
    )
    new_scope = Scope(node.end_byte, value.end_byte, index, False)
    w._scan_marks(node.child_by_field_name("body"), new_scope)
    w.push_scope(new_scope)


def _params(text: str | None) -> str:
    """A method's parameter list as recorded, from its text (None: it has none)."""
    if text is None:
        return "()"
    text = " ".join(text.split())  # Runs of whitespace as one space (``str.isspace``, the same set as ``re``'s ``\s``), trimmed.
    if not text.startswith("("):
        text = f"({text})"
    if len(text) > _MAX_PARAMS:
        text = text[: _MAX_PARAMS - 4] + "...)"
    return text


def on_method(w: Walker, node: Any) -> None:
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return
    start = node.start_byte
    scope = w._scope(start)
    if w.too_deep(node):
        return
    fields: dict[str, Any] = {}
    if node.type == "singleton_method":
        obj = node.child_by_field_name("object")
        if obj is None:
            return
        if obj.type == "self":
            fields["self_receiver"] = True
        else:
            recv = w._const_path(obj)
            if recv is None or recv.dynamic:
                w._diag("dynamic-method-receiver", f"cannot resolve the receiver of 'def {node_text(obj)}.{node_text(name_node)}'", obj, "warning")
                w.push_scope(Scope(node.end_byte, name_node.end_byte, scope.index if scope else -1, True))
                return
            fields["receiver"] = recv
    params = node.child_by_field_name("parameters")
    method_scope = method_definition(
        w, scope, node_text(name_node), start, node.end_byte, name_node.start_byte, name_node.end_byte,
        node_text(params) if params is not None else None, node.start_point[0], fields,
    )
    parent = scope
    # ``def self.included(base)``, or ``def included(base)`` in a ``class << self`` body (Thor::Base).
    in_singleton = parent is not None and not parent.is_method and w.definitions[parent.index].kind == "SingletonClass" and w.definitions[parent.index].self_receiver
    if (fields.get("self_receiver") or (in_singleton and not fields)) and name_node.text in HOOKS:
        if params is not None and params.named_child_count and params.named_children[0].type == "identifier":
            method_scope.hook_param = params.named_children[0].text
    w.push_scope(method_scope)


def method_definition(
    w: Walker, scope: Scope | None, name: str, start: int, end: int, name_start: int, name_end: int, params: str | None, row: int, fields: dict[str, Any],
    ident: int | None = None, comments: tuple[str, ...] | None = None, params_ready: bool = False,
) -> Scope:
    """The record of a method definition (``on_method``'s, from the parts it read: the name,
    the byte ranges of the definition and of its name, the text of its parameter list, the row
    it starts on, the fields of a ``def x.y``) in ``scope``, and the scope of its body, to be
    pushed. Also the native walk's for the plain ``def`` it passes over (rdx.native), which
    may give the id, the comments above and the parameters as recorded (``params_ready``)."""
    ns = w._namespace_scope(scope)
    visibility = w.pending_visibility.pop(start, None)
    w.method_names.add(name)  # For load-time calls (rdx.ruby.evaluate.loadtime).
    nested = scope is not None and scope.is_method
    if fields or nested:
        # ``def w.x``/``def Foo.x`` and defs run inside another method ignore the body's
        # default visibility: they are public unless made otherwise explicitly.
        visibility = visibility or "public"
    elif ns is None:
        visibility = visibility or "private"  # top-level methods are private on Object
    else:
        if visibility is None:
            visibility = ns.visibility_at(start)
        if ns.module_function_at(start) or start in w.pending_module_function:
            fields["module_function"] = True
    index = w._add_at(
        "Method",
        name,
        start,
        end,
        name_start,
        name_end,
        scope.index if scope is not None else -1,
        ident,
        visibility=visibility or "public",
        params=params if params_ready and params is not None else _params(params),
        comments=w._comments_at_row(row) if comments is None else comments,
        **fields,
    )
    return Scope(end, name_end, index, True)


def on_assignment(w: Walker, node: Any) -> None:
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    if left is None:
        return
    scope = w._scope(node.start_byte)
    t = left.type
    if t == "left_assignment_list":
        for target in left.named_children:
            if target.type == "rest_assignment" and target.named_child_count:
                target = target.named_children[0]
            _assign_target(w, target, None, node, scope)
        return
    _assign_target(w, left, right, node, scope)
    if node.type == "operator_assignment":
        op_assignment(w, node, left)


def _assign_target(w: Walker, left: Any, right: Any, node: Any, scope: Scope | None) -> None:
    t = left.type
    if t == "instance_variable":
        w._add("InstanceVariable", node_text(left), left, left, scope)
    elif t == "class_variable":
        w._add("ClassVariable", node_text(left), left, left, scope)
    elif t == "global_variable":
        w._add("GlobalVariable", node_text(left), left, left, scope)
    elif t == "call" or t == "element_reference":
        w.setter_calls[(left.start_byte, left.end_byte)] = WRITE
    elif t == "identifier":
        w._locals(left.start_byte).add(left.text)
    elif t in ("constant", "scope_resolution"):
        path = w._const_path(left)
        if path is None or path.dynamic:
            w._diag("dynamic-constant", f"cannot resolve the constant {node_text(left)!r} statically", left, "warning")
            return
        w.skip_const_until = left.end_byte
        w._prefix_ref(path, scope.index if scope is not None else -1)
        constant(w, path, left, right, node, scope)


def constant(w: Walker, path: ConstPath, left: Any, right: Any, node: Any, scope: Scope | None) -> None:
    comments = w._comments_above(node)
    value = right
    # ``A = B = C``: A names the same object as B.
    if value is not None and value.type in ("assignment", "operator_assignment"):
        inner = value.child_by_field_name("left")
        if inner is not None and inner.type in ("constant", "scope_resolution"):
            value = inner
    if value is not None and value.type in _CONDITIONAL_VALUES:
        # ``X = case when on_cruby? then MriX else MutexX end``: the branch CRuby takes.
        value = chosen_constant(value)
    if value is not None and value.type in ("constant", "scope_resolution"):
        target = w._const_path(value)
        if target is not None and not target.dynamic:
            w._add("ConstantAlias", path.text, node, left, scope, path=path, target=target, comments=comments)
            return
    if value is not None and value.type == "call" and node_text(value.child_by_field_name("method") or value) == "freeze":
        inner = value.child_by_field_name("receiver")  # ``M = Module.new.freeze``: the same module.
        if inner is not None and inner.type == "call" and value.child_by_field_name("arguments") is None:
            value = inner
    if value is not None and value.type == "call":
        factory = _NAMESPACE_FACTORIES.get(_factory_key(value))
        if factory is not None:
            _namespace_factory(w, factory, path, left, value, node, scope, comments)
            return
    w._add("Constant", path.text, node, left, scope, path=path, comments=comments)


def _factory_key(call: Any) -> tuple[str, str]:
    """(receiver, method) of ``Class.new``-like calls, the receiver written ``Class`` or
    ``::Class``; ("", "") for any other call."""
    recv = call.child_by_field_name("receiver")
    meth = call.child_by_field_name("method")
    if recv is None or meth is None:
        return ("", "")
    if recv.type == "scope_resolution" and recv.child_by_field_name("scope") is None:
        recv = recv.child_by_field_name("name")  # ``::Class``: the top-level constant.
    if recv is None or recv.type != "constant":
        return ("", "")
    return (node_text(recv), node_text(meth))


def anonymous_namespace(w: Walker, path: ConstPath, left: Any, kind: str, superclass_node: Any, node: Any, scope: Scope | None) -> None:
    """``const_set(name, Class.new(parent))`` where ``parent`` holds a constant in this
    iteration of a loop (rdx.ruby.evaluate.unroll): a class (or module) without a body."""
    is_self = superclass_node is not None and superclass_node.type == "self"
    superclass = w._const_path(superclass_node) if superclass_node is not None and not is_self else None
    if superclass is not None and superclass.dynamic:
        superclass = None
    w._add(
        kind, path.text, node, left, scope, path=path, superclass=superclass, superclass_self=is_self, comments=w._comments_above(node), lexical=False
    )


def _namespace_factory(
    w: Walker, factory: tuple[str, str | None], path: ConstPath, left: Any, call: Any, node: Any, scope: Scope | None, comments: tuple[str, ...]
) -> None:
    kind, member_kind = factory
    if w.too_deep(node, len(path.segments)):
        return
    recv = call.child_by_field_name("receiver")
    superclass = None
    members: list[tuple[str, Any]] = []
    if member_kind is not None:
        superclass = w._const_path(recv)
        members = w._symbol_args(call)
    elif kind == "Class":
        args = call.child_by_field_name("arguments")
        if args is not None and args.named_child_count:
            superclass = w._const_path(args.named_children[0])
            if superclass is not None and superclass.dynamic:
                superclass = None
    index = w._add(kind, path.text, node, left, scope, path=path, superclass=superclass, comments=comments, lexical=False)
    block = call.child_by_field_name("block")
    new_scope = Scope(node.end_byte, block.start_byte if block is not None else node.end_byte, index, False)
    if block is not None:
        for child in block.named_children:
            if child.type in ("body_statement", "block_body"):
                w._scan_marks(child, new_scope)
    w.push_scope(new_scope, len(path.segments))
    _members(w, member_kind, members, new_scope)


def recover_namespace(w: Walker, node: Any) -> None:
    """Keep what parses: when tree-sitter wraps a broken ``class X``/``module X`` in an
    ERROR node, its keyword and name survive as children. The first such pair opens a
    namespace scope up to the end of the ERROR node, so the methods inside keep their owner."""
    children = node.children
    for i, child in enumerate(children[:-1]):
        if child.is_named or child.type not in ("class", "module"):
            continue
        name_node = children[i + 1]
        path = w._const_path(name_node)
        if path is None or path.dynamic:
            return
        scope = w._scope(child.start_byte)
        if w.too_deep(node, len(path.segments)):
            return
        w.skip_const_until = name_node.end_byte
        w._prefix_ref(path, scope.index if scope is not None else -1)
        kind = "Class" if child.type == "class" else "Module"
        index = w._add(kind, path.text, node, name_node, scope, path=path, comments=w._comments_above(child))
        w.definitions[index].start = child.start_byte
        w.push_scope(Scope(node.end_byte, name_node.end_byte, index, False), len(path.segments))
        return


def class_methods_block(w: Walker, node: Any, name_node: Any, scope: Scope) -> None:
    """ActiveSupport::Concern's ``class_methods do ... end`` in a module body: the block is
    ``module_eval``'d in the concern's ``ClassMethods`` (created when absent), so it reads as
    ``module ClassMethods`` reopened there. Its constants are looked up in the module around
    (``lexical=False``), as ``module_eval`` with a block does; bare visibility words apply."""
    block = node.child_by_field_name("block")
    if block is None or scope.is_method or scope.deferred or w.definitions[scope.index].kind != "Module" or w.too_deep(node):
        return
    path = ConstPath(("ClassMethods",), False, name_node.start_byte, name_node.end_byte)
    index = w._add("Module", "ClassMethods", node, name_node, scope, path=path, comments=w._comments_above(node), lexical=False)
    new_scope = Scope(node.end_byte, block.start_byte, index, False)
    for child in block.named_children:
        if child.type in ("body_statement", "block_body"):
            w._scan_marks(child, new_scope)
    w.push_scope(new_scope)
