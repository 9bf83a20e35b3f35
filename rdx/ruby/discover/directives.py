"""Calls on ``self`` that mean something for the graph: mixins (``include``/``prepend``/
``extend``, also as ``Foo.include M``, ``send(:include, M)`` and in ``def self.included(base)``),
``attr_*``, ``alias_method`` and ``alias``, visibility (``private``, ``module_function``,
``private_class_method``, ``private_constant``...), ``define_method``, ``undef``/
``undef_method``/``remove_method`` and ``require``.

Each handler takes the discovery walker (``rdx.ruby.discover.parse``), the call node, the method
name and the scope around the call, and appends records through the walker's small API
(``_directive_scope``, ``_add``, ``_const_path``, ``_comments_above``, ``_symbol_args``). Only
literal arguments count, names a loop over a literal list stands for or computes, and the
literal list a splatted constant holds (``rdx.ruby.evaluate.loops``). A mixin in a block acts
on the block's self (``mixin_self``): the namespace around it only where rdx knows the block
keeps self (loops, ``class_eval`` on self), and nothing where it does not (``let``,
``describe``, ``on_load``). This module never imports the walker's module at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rdx.model.kinds import MixinKind
from rdx.model.records import ConstPath, ExternalMixin, Mixin, Require
from rdx.rails.macros import RAILS_DIRECTIVES
from rdx.ruby.discover.definitions import anonymous_namespace, constant
from rdx.ruby.discover.scope import BlockSelf, Scope
from rdx.ruby.evaluate.globs import glob_required
from rdx.ruby.evaluate.loops import expand_names, iteration_values, loop_at
from rdx.ruby.evaluate.unroll import Const, NewModule, Str, Value
from rdx.ruby.syntax import node_text, symbol_name

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = ["ATTR_KINDS", "DIRECTIVES", "alias_pairs", "autoload", "MIXIN_CALLS", "SEND", "define_constants", "external_mixin", "hook_directive", "hook_mixin", "mixin_self", "on_alias", "on_undef", "send_mixin"]

ATTR_KINDS = {
    "attr_reader": "AttrReader",
    "attr_writer": "AttrWriter",
    "attr_accessor": "AttrAccessor",
    "attr": "AttrReader",
}
_REQUIRE_CALLS = {"require": False, "require_relative": True, "load": False}
MIXIN_CALLS = frozenset({"include", "prepend", "extend"})
SEND = frozenset({"send", "__send__", "public_send"})


# -- mixins ------------------------------------------------------------------------------------


def _mixin(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    args = node.child_by_field_name("arguments")
    if args is None:
        return
    ns = mixin_self(w, node, name, scope)
    if isinstance(ns, ConstPath):
        external_mixin(w, node, name, ns, scope)  # In ``Foo.class_eval do ... end``.
        return
    if ns is None:
        return
    ns.calls += 1
    into = (w.deferred_mixins if ns.deferred else w.mixins).setdefault(ns.index, [])
    for arg in args.named_children:
        if arg.type == "self":
            if not ns.deferred:
                into.append(Mixin(cast(MixinKind, name), None, ns.calls, node.start_byte))
            continue
        targets = _mixin_targets(w, arg)
        for i, path in enumerate(targets):
            if path is None or path.dynamic:
                w._diag("dynamic-mixin", f"cannot resolve '{name} {node_text(arg)[:80]}' statically", arg, "warning")
                continue
            if i and arg.type == "identifier":
                ns.calls += 1  # ``MODULES.each { |m| include m }``: one call per iteration, in order.
            into.append(Mixin(cast(MixinKind, name), path, ns.calls, node.start_byte))


def mixin_self(w: Walker, node: Any, verb: str, scope: Scope | None) -> Scope | ConstPath | None:
    """What a ``self``-call of ``include``/``prepend``/``extend`` (``verb``) mixes into: the
    namespace body around it (Object's at top level), or the constant a ``Foo.class_eval do``
    block around it runs on. None when it is no mixin of the graph's: a call in another call's
    arguments (RSpec's ``expect(x).to include(:a)``), in a method body, a top-level ``extend``
    (the main object's), in a ``Class.new do`` block (an anonymous class: kept only for a
    class a constant names, rdx.ruby.evaluate.shared), or in the block of a method whose self
    rdx does not know (``let``, ``describe``, ``on_load``), which gets an informative
    "mixin-in-block" diagnostic: its self is never guessed to be the namespace around it, or in
    a branch Ruby does not run at load time (``Walker.untaken_at``). In a hook's ``base.class_eval
    do ... end`` block the mixin is the hook's (``_hook_mixins``), recorded here."""
    if scope is not None and scope.is_method and scope.hook_param is not None and not w.in_arguments():
        block = w.self_block(node.start_byte, scope.body_start)
        if block is not None and block.self_kind == BlockSelf.HOOK_BASE:
            args = node.child_by_field_name("arguments")
            _hook_mixins(w, node, verb, args.named_children if args is not None else [], scope)
        return None
    if (scope is not None and scope.is_method) or w.in_arguments() or w.untaken_at(node.start_byte):
        return None  # ``untaken_at``: ``include X if __FILE__ == $0`` and the like never run on require.
    block = w.self_block(node.start_byte, scope.body_start if scope is not None else -1)
    if block is not None:
        kind = block.self_kind
        if kind == BlockSelf.RECEIVER:
            return block.receiver
        if kind == BlockSelf.UNKNOWN:
            where = f"the block of '{block.callee}'" if block.callee else "a lambda"
            around = w.definitions[scope.index].name if scope is not None else "Object"
            w._diag(
                "mixin-in-block",
                f"'{verb}' in {where} mixes into no namespace here: self in a block is whatever the method given it makes it,"
                f" which rdx does not know (not necessarily {around})",
                node,
                "info",
            )
            return None
        if scope is None:
            return None  # Top-level ``Class.new do include M end``.
        w.anonymous_bodies.add((block.start, block.end))
    if scope is None:
        return None if verb == "extend" else w._top_object(node)  # Top-level ``extend`` extends the main object only.
    return scope


def _mixin_targets(w: Walker, arg: Any) -> list[ConstPath | None]:
    """The module an argument names, or each constant of a literal list a loop parameter
    stands for (``[A, B].each { |m| include m }``)."""
    if arg.type == "identifier":
        loop = loop_at(w.loops, arg, arg.text.decode())
        if loop is not None and all(n is None for n in loop.names):
            return [w._const_path(element) for element in loop.nodes]
    return [w._const_path(arg)]


def hook_mixin(w: Walker, node: Any, name: str, scope: Scope) -> None:
    """``base.extend(ClassMethods)`` (or ``base.send(:include, X)``) in ``def self.included(base)``."""
    args = node.child_by_field_name("arguments")
    if args is None:
        return
    children = args.named_children
    if name in SEND and children:
        name = symbol_name(children[0]) or ""
        children = children[1:]
    _hook_mixins(w, node, name, children, scope)


def _hook_owner(w: Walker, scope: Scope) -> int | None:
    """The index of the module whose hook method ``scope`` is: the namespace of ``def
    self.included``, or the one around the ``class << self`` holding ``def included``."""
    method = w.definitions[scope.index]
    owner = method.parent
    if owner >= 0 and w.definitions[owner].kind == "SingletonClass" and w.definitions[owner].self_receiver:
        owner = w.definitions[owner].parent
    return owner if owner >= 0 and w.definitions[owner].kind in ("Module", "Class") else None


def _hook_mixins(w: Walker, node: Any, name: str, children: list[Any], scope: Scope) -> None:
    """Mixins a hook applies to its parameter (``base.include X``, or ``include X`` in a
    ``base.class_eval do ... end`` block): deferred mixins of the hook's module."""
    if name not in MIXIN_CALLS:
        return
    owner = _hook_owner(w, scope)
    if owner is None:
        return
    scope.calls += 1
    for arg in children:
        path = w._const_path(arg)
        if path is not None and not path.dynamic:
            w.deferred_mixins.setdefault(owner, []).append(Mixin(cast(MixinKind, name), path, scope.calls, node.start_byte))


# Hooks whose ``base`` gets the module's instance methods as its own: a macro called on it
# defines methods that instances of ``base`` answer (``extended`` and ``inherited`` hooks put
# them elsewhere: on an extended object's singleton, on a subclass only).
_INSTANCE_HOOKS = frozenset({"included", "prepended", "append_features", "prepend_features"})
# What a hook may call on ``base`` that defines methods: accessors and Rails macros.
_HOOK_DIRECTIVES = frozenset({"attr_reader", "attr_writer", "attr_accessor", *RAILS_DIRECTIVES})


def hook_directive(w: Walker, node: Any, name: str, scope: Scope) -> None:
    """``base.has_many :comments`` (or ``base.attr_accessor :x``) in ``def self.included(base)``
    or ``def self.prepended(base)``: the methods are defined as the same macro in an
    ``included do`` block defines them, on the module, which every includer has among its
    ancestors."""
    if name not in _HOOK_DIRECTIVES:
        return
    owner = _hook_owner(w, scope)
    if w.definitions[scope.index].name not in _INSTANCE_HOOKS or owner is None:
        return
    on_base = Scope(node.end_byte, node.start_byte, owner, False)
    on_base.deferred = True
    DIRECTIVES[name](w, node, name, on_base)


def external_mixin(w: Walker, node: Any, name: str, receiver: ConstPath, scope: Scope | None) -> None:
    """``Foo.include(A, B)``: recorded against ``Foo``, resolved later."""
    args = node.child_by_field_name("arguments")
    if args is None or w.untaken_at(node.start_byte):
        return  # ``untaken_at``: in a branch Ruby does not run at load time.
    w.external_calls += 1
    for arg in args.named_children:
        if arg.type == "self":
            # ``Foo.include self``: the namespace around the call.
            w.external_mixins.append(ExternalMixin(receiver, scope.index if scope else -1, Mixin(cast(MixinKind, name), None, w.external_calls, node.start_byte)))
            continue
        path = w._const_path(arg)
        if path is None or path.dynamic:
            w._diag("dynamic-mixin", f"cannot resolve '{receiver.text}.{name}({node_text(arg)[:80]})' statically", arg, "warning")
            continue
        w.external_mixins.append(ExternalMixin(receiver, scope.index if scope else -1, Mixin(cast(MixinKind, name), path, w.external_calls, node.start_byte)))


def send_mixin(w: Walker, node: Any, receiver: ConstPath | None, scope: Scope | None) -> None:
    """``Foo.send(:include, M)`` and ``send(:include, M)`` in a namespace body."""
    args = node.child_by_field_name("arguments")
    if args is None or args.named_child_count < 2:
        return
    first = args.named_children[0]
    verb = symbol_name(first) if first.type != "string" else None
    if verb not in MIXIN_CALLS:
        return
    paths = [p for a in args.named_children[1:] if (p := w._const_path(a)) is not None and not p.dynamic]
    if receiver is None:
        target = mixin_self(w, node, verb, scope)
        if target is None:
            return
        if isinstance(target, ConstPath):
            receiver = target  # ``send(:include, M)`` in ``Foo.class_eval do ... end``.
    if receiver is not None:
        w.external_calls += 1
        for path in paths:
            w.external_mixins.append(ExternalMixin(receiver, scope.index if scope else -1, Mixin(cast(MixinKind, verb), path, w.external_calls, node.start_byte)))
        return
    assert isinstance(target, Scope)
    target.calls += 1
    into = (w.deferred_mixins if target.deferred else w.mixins).setdefault(target.index, [])
    for path in paths:
        into.append(Mixin(cast(MixinKind, verb), path, target.calls, node.start_byte))


# -- attributes, aliases, define_method --------------------------------------------------------


def _attr(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    ns = w._directive_scope(node, scope)
    in_singleton = ns is None and (ns := _singleton_method_owner(w, scope)) is not None
    if ns is None:
        return
    visibility = w.pending_visibility.pop(node.start_byte, None) or ("public" if in_singleton else ns.visibility_at(node.start_byte))
    comments: tuple[str, ...] | None = None  # Those above the call, read once for all its attributes.
    for attr, arg in w._symbol_args(node) or _string_args(w, node):
        if comments is None:
            comments = w._comments_above(node)
        w._add(ATTR_KINDS[name], attr, arg, arg, ns, visibility=visibility, comments=comments)


def _singleton_method_owner(w: Walker, scope: Scope | None) -> Scope | None:
    """For a call in the body of ``def self.m`` (self is the class there): the class body's
    scope, else None. ``attr_*`` there defines on the class once ``m`` runs."""
    if scope is None or not scope.is_method:
        return None
    method = w.definitions[scope.index]
    if not method.self_receiver or method.receiver is not None:
        return None
    return next((s for s in reversed(w.scopes) if s.index == method.parent and not s.is_method), None)


def _string_args(w: Walker, node: Any) -> list[tuple[str, Any]]:
    args = node.child_by_field_name("arguments")
    if args is None:
        return []
    out = []
    for arg in args.named_children:
        name = symbol_name(arg)
        if name is not None:
            out.append((name, arg))
        elif (unrolled := expand_names(w.loops, arg, w.root)) is not None:
            out.extend(unrolled)
    return out


def _alias_method(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    ns = w._directive_scope(node, scope)
    given = node.child_by_field_name("arguments")
    if ns is None or given is None:
        return
    for new, new_node, old in alias_pairs(w, given.named_children):
        w._add("MethodAlias", new, node, new_node, ns, old_name=old, comments=w._comments_above(node))


def alias_pairs(w: Walker, args: list[Any]) -> list[tuple[str, Any, str]]:
    """(new name, its node, old name) for the arguments of ``alias_method``: one pair, or one
    per element of a loop over a literal list (``alias_method "#{n}_x", :y``)."""
    if len(args) != 2:
        return []
    sides = []
    for arg in args:
        literal = symbol_name(arg)
        sides.append([(literal, arg)] if literal is not None else (expand_names(w.loops, arg, w.root) or []))
    news, olds = sides
    if len(olds) == 1:
        olds = olds * len(news)
    return [(new, new_node, old) for (new, new_node), (old, _) in zip(news, olds, strict=False)]


def on_alias(w: Walker, node: Any) -> None:
    """The ``alias new old`` keyword (methods and global variables)."""
    new = node.child_by_field_name("name")
    old = node.child_by_field_name("alias")
    if new is None or old is None:
        return
    scope = w._scope(node.start_byte)
    if new.type == "global_variable":
        w._add("GlobalVariableAlias", node_text(new), node, new, scope, old_name=node_text(old))
        return
    ns = w._namespace_scope(scope)
    new_name = symbol_name(new) if new.type != "identifier" else None
    old_name = symbol_name(old) if old.type != "identifier" else None
    w._add(
        "MethodAlias",
        new_name if new_name is not None else node_text(new),
        node,
        new,
        ns,
        old_name=old_name if old_name is not None else node_text(old),
        comments=w._comments_above(node),
    )


def _define_method(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    ns = w._directive_scope(node, scope)
    if ns is None:
        return
    given = node.child_by_field_name("arguments")
    first = given.named_children[0] if given is not None and given.named_child_count else None
    if first is None:
        return
    # One method, or one per element when the name comes from a loop over a literal list.
    literal = symbol_name(first)
    names = [(literal, first)] if literal is not None else (expand_names(w.loops, first, w.root) or [])
    for method, arg in names:
        w._add("Method", method, node, arg, ns, visibility=ns.visibility_at(node.start_byte), params="(...)", comments=w._comments_above(node))


def _const_set(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    """``const_set :X, value`` in a namespace body (self is the namespace; main has none)."""
    ns = w._directive_scope(node, scope) if scope is not None else None
    if ns is not None:
        define_constants(w, node, None, ns)


def define_constants(w: Walker, node: Any, receiver: ConstPath | None, scope: Scope | None) -> None:
    """``const_set(name, value)`` on self or on a constant ``Foo``: like ``X = value`` (or
    ``Foo::X = value``), once per name a loop over a literal list gives it."""
    args = node.child_by_field_name("arguments")
    if args is None or args.named_child_count != 2:
        return
    first, value = args.named_children
    literal = symbol_name(first)
    computed = iteration_values(w.loops, first, value) if literal is None else None
    names: list[tuple[str, Any, Value | None]]
    if computed is not None:
        # Per iteration of a loop over a literal list or hash (rdx.ruby.evaluate.unroll); a name
        # set twice keeps its last value, as Ruby does.
        last = {v.text: given for v, given in computed if isinstance(v, Str)}
        names = [(const, first, given) for const, given in last.items()]
    else:
        names = [(literal, first, None)] if literal is not None else [(n, a, None) for n, a in expand_names(w.loops, first, w.root) or []]
    for const, arg, given in names:
        if not const[:1].isupper() or not const.isidentifier():
            continue  # Ruby raises NameError: not a constant name.
        segments = (*receiver.segments, const) if receiver is not None else (const,)
        path = ConstPath(segments, receiver.absolute if receiver is not None else False, arg.start_byte, arg.end_byte)
        made = len(w.definitions)
        block = given.block if isinstance(given, NewModule) else None
        if isinstance(given, NewModule) and not _literal_factory(value):
            anonymous_namespace(w, path, arg, given.kind, given.superclass, node, scope)
        else:
            constant(w, path, arg, given.node if isinstance(given, Const) else value, node, scope)
            block = value.child_by_field_name("block") if value.type == "call" else None
        if block is not None and made < len(w.definitions) and w.definitions[made].kind in ("Class", "Module"):
            # One body for the classes of every iteration (rdx.ruby.evaluate.shared).
            w.shared_bodies.setdefault((block.start_byte, block.end_byte), []).append(made)


def _literal_factory(value: Any) -> bool:
    """``Class.new(Base) do ... end`` written as the value itself, its arguments constants:
    ``constant`` makes the namespace and its block's body (``Class.new(local)`` is not)."""
    args = value.child_by_field_name("arguments") if value.type == "call" else None
    return value.type == "call" and all(a.type in ("constant", "scope_resolution") for a in (args.named_children if args is not None else []))


# -- visibility, undef, require ----------------------------------------------------------------


def _visibility(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    ns = w._directive_scope(node, scope)
    if ns is None:
        return
    args = node.child_by_field_name("arguments")
    if args is None or not args.named_child_count:
        ns.advance(node.start_byte)
        ns.set_visibility(name)
        return
    for arg in args.named_children:
        sym = symbol_name(arg)
        if sym is not None:
            w._add("MethodVisibility", sym, arg, arg, ns, visibility=name)
        elif arg.type in ("method", "singleton_method", "call"):
            w.pending_visibility[arg.start_byte] = "private" if name == "module_function" else name
            if name == "module_function":
                w.pending_module_function.add(arg.start_byte)  # ``module_function def m``
        elif arg.type == "array":
            for item in arg.named_children:
                sym = symbol_name(item)
                if sym is not None:
                    w._add("MethodVisibility", sym, item, item, ns, visibility=name)
        elif (unrolled := expand_names(w.loops, arg, w.root)) is not None:
            # ``private(*NAMES)`` with a literal list constant, ``%i[a b].each { |m| private m }``.
            for sym, at in unrolled:
                w._add("MethodVisibility", sym, at, at, ns, visibility=name)


def _class_method_visibility(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    ns = w._directive_scope(node, scope)
    if ns is None:
        return
    visibility = "private" if name == "private_class_method" else "public"
    named = list(_string_args(w, node))
    given = node.child_by_field_name("arguments")
    for arg in given.named_children if given is not None else ():
        if arg.type == "array":  # ``private_class_method [:a, "b"]``
            named += [(n, item) for item in arg.named_children if (n := symbol_name(item)) is not None]
    for sym, arg in named:
        w._add("MethodVisibility", sym, arg, arg, ns, visibility=visibility, self_receiver=True)
    for arg in given.named_children if given is not None else ():
        if arg.type == "singleton_method":
            w.pending_visibility[arg.start_byte] = visibility


def _constant_visibility(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    ns = w._directive_scope(node, scope)
    if ns is None:
        return
    visibility = "private" if name == "private_constant" else "public"
    for sym, arg in _string_args(w, node):
        w._add("ConstantVisibility", sym, arg, arg, ns, visibility=visibility)


def on_undef(w: Walker, node: Any) -> bool:
    """``undef a, :b``: recorded like ``undef_method`` (a MethodVisibility of "undefined")."""
    scope = w._scope(node.start_byte)
    ns = w._namespace_scope(scope)
    if ns is None and scope is None:
        ns = w._top_object(node)
    if ns is None:
        return False
    for child in node.named_children:
        name = symbol_name(child) if child.type != "identifier" and child.type != "operator" else node_text(child)
        if name:
            w._add("MethodVisibility", name, child, child, ns, visibility="undefined")
    return False  # The names are not calls.


def _undef_method(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    """``undef_method :m`` hides ``m`` (inherited too); ``remove_method :m`` drops this
    namespace's own ``m`` so the inherited one shows again."""
    ns = w._directive_scope(node, scope)
    if ns is None:
        return
    visibility = "undefined" if name == "undef_method" else "removed"
    for sym, arg in _string_args(w, node):
        w._add("MethodVisibility", sym, arg, arg, ns, visibility=visibility)


def _require(w: Walker, node: Any, name: str, scope: Scope | None) -> None:
    args = node.child_by_field_name("arguments")
    if args is None or args.named_child_count != 1:
        return
    arg = args.named_children[0]
    # ``Dir.glob(File.expand_path("core_ext/*.rb", __dir__)).sort.each { |path| require path }``:
    # the pattern, relative to this file (the load order requires every file it matches).
    pattern = glob_required(node) if arg.type == "identifier" and name != "load" else None
    value = symbol_name(arg) if arg.type == "string" else pattern
    if value is not None:
        # Runs when the method is called, or never at load time (a branch Ruby does not run).
        deferred = (scope is not None and scope.is_method) or w.untaken_at(node.start_byte)
        w.requires.append(Require(value, _REQUIRE_CALLS[name] or pattern is not None, node.start_byte, node.end_byte, deferred))


def autoload(w: Walker, node: Any, name: str, scope: Scope | None, receiver: ConstPath | None = None) -> None:
    """``autoload :Name, "path"`` (``receiver``: ``Foo.autoload``): a Require whose
    ``constant`` is the name; the load order loads the file at the first load-time reference
    of that constant rather than here. ActiveSupport::Autoload's ``autoload :Name`` has no
    path (``""``): the load order derives it from the qualified name, as ActiveSupport does."""
    args = node.child_by_field_name("arguments")
    if args is None or args.named_child_count not in (1, 2):
        return
    constant = symbol_name(args.named_children[0])
    path = ""  # ActiveSupport::Autoload's ``autoload :Name``: the path follows from the name.
    if args.named_child_count == 1 and receiver is None:
        path = _autoload_block_path(w)
    if args.named_child_count == 2:
        path = symbol_name(args.named_children[1]) or ""
        if not path or args.named_children[1].type != "string":
            return
    if not constant:
        return
    if receiver is not None:
        if receiver.dynamic:
            return
        constant = receiver.text + "::" + constant
    deferred = (scope is not None and scope.is_method) or w.untaken_at(node.start_byte)
    w.requires.append(Require(path, False, node.start_byte, node.end_byte, deferred, constant, scope.index if scope is not None else -1))


_AUTOLOAD_BLOCKS = frozenset({"autoload_under", "autoload_at"})


def _autoload_block_path(w: Walker) -> str:
    """The path of a path-less ``autoload :Name`` in ActiveSupport::Autoload's blocks, read
    from the innermost ``autoload_under "dir" do ... end`` (``"::dir"``: the load order
    derives ``namespace/dir/name``, see ``order.autoload_entries``) or ``autoload_at "path"
    do ... end`` (that path); "" (the path follows from the name) outside them."""
    block = False
    for node in w.ancestors():
        t = node.type
        if t in ("do_block", "block"):
            block = True
        elif t in ("class", "module", "singleton_class", "method", "singleton_method", "program"):
            return ""
        elif t == "call" and block:
            block = False
            meth = node.child_by_field_name("method")
            name = meth.text.decode() if meth is not None else ""
            if name not in _AUTOLOAD_BLOCKS or node.child_by_field_name("receiver") is not None:
                continue
            args = node.child_by_field_name("arguments")
            value = symbol_name(args.named_children[0]) if args is not None and args.named_child_count == 1 else None
            if not value or args.named_children[0].type != "string":
                return ""
            return "::" + value if name == "autoload_under" else value
    return ""


DIRECTIVES: dict[str, Callable[[Walker, Any, str, Scope | None], None]] = {
    "include": _mixin,
    "prepend": _mixin,
    "extend": _mixin,
    "attr_reader": _attr,
    "attr_writer": _attr,
    "attr_accessor": _attr,
    "attr": _attr,
    "alias_method": _alias_method,
    "private": _visibility,
    "public": _visibility,
    "protected": _visibility,
    "module_function": _visibility,
    "private_class_method": _class_method_visibility,
    "public_class_method": _class_method_visibility,
    "private_constant": _constant_visibility,
    "public_constant": _constant_visibility,
    "define_method": _define_method,
    "const_set": _const_set,
    "undef_method": _undef_method,
    "remove_method": _undef_method,
    "require": _require,
    "require_relative": _require,
    "load": _require,
    "autoload": autoload,
    # Rails and ActiveSupport macros: the methods they define (rdx.rails.macros).
    **RAILS_DIRECTIVES,
}
