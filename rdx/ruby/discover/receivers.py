"""Directives called on a constant from outside its body: ``Foo.include M``,
``Foo.const_set :X, v``, ``Bar.alias_method :new, :old``, ``Foo.private_constant :X``,
``Foo.private_class_method :m``, ``Foo.undef_method :m``, ``Foo.define_method(:m) { }``,
``Foo.attr_accessor :a`` (and ``attr_reader``/``attr_writer``/``attr``), ``Bundler.require`` (a
``Require`` marker, ``BUNDLER_REQUIRE``), and the same through
``Foo.send(:verb, ...)`` (which also reaches the private ``private``/``public``/``protected``/
``module_function``). They act on Foo, not on the scope around the call.

Mixins become ``ExternalMixin`` records and ``const_set`` a constant named ``Foo::X``
(``rdx.ruby.discover.directives``). The others are the usual ``MethodAlias``/``MethodVisibility``/
``ConstantVisibility`` records, placed in the scope around the call (where Foo is looked up)
with ``receiver`` set to Foo; ``self_receiver`` marks the ``*_class_method`` forms, which act on
Foo's singleton class. ``define_method`` and ``attr_*`` give public ``Method`` and ``Attr*``
records with ``receiver`` Foo: on a Method, ``instance_receiver`` tells an instance method of Foo
from the singleton method ``def Foo.m``. Only calls outside method bodies count (inside, they run only if the
method does). Handlers take the discovery walker (``rdx.ruby.discover.parse``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdx.model.records import BUNDLER_REQUIRE, ConstPath, Require
from rdx.ruby.discover.directives import MIXIN_CALLS, SEND, alias_pairs, autoload, define_constants, external_mixin, send_mixin
from rdx.ruby.discover.scope import Scope
from rdx.ruby.evaluate.loops import expand_names
from rdx.ruby.syntax import symbol_name

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = ["RECEIVER_DIRECTIVES"]

# Verb -> (record kind, visibility, on the singleton class).
_VISIBILITIES = {
    "private_constant": ("ConstantVisibility", "private", False),
    "public_constant": ("ConstantVisibility", "public", False),
    "private_class_method": ("MethodVisibility", "private", True),
    "public_class_method": ("MethodVisibility", "public", True),
    "undef_method": ("MethodVisibility", "undefined", False),
    "remove_method": ("MethodVisibility", "removed", False),
}
# Public in Module since Ruby 2.5: they define instance methods of the receiver.
_DEFINERS = {"define_method": "Method", "attr_reader": "AttrReader", "attr_writer": "AttrWriter", "attr_accessor": "AttrAccessor", "attr": "AttrReader"}
# Private in Module, so reachable on an explicit receiver through ``send`` only.
_SEND_ONLY = {word: ("MethodVisibility", word, False) for word in ("private", "public", "protected", "module_function")}


def _names(w: Walker, args: list[Any]) -> list[tuple[str, Any]]:
    """Literal names among the arguments (symbols, strings, arrays of them, loop elements)."""
    out: list[tuple[str, Any]] = []
    for arg in args:
        if arg.type == "array":
            out += [(n, item) for item in arg.named_children if (n := symbol_name(item)) is not None]
        elif (name := symbol_name(arg)) is not None:
            out.append((name, arg))
        elif (unrolled := expand_names(w.loops, arg, w.root)) is not None:
            out.extend(unrolled)
    return out


def _act(w: Walker, node: Any, verb: str, args: list[Any], receiver: ConstPath, scope: Scope | None, via_send: bool) -> None:
    """The records of ``receiver.verb(*args)``."""
    if verb == "alias_method":
        for new, new_node, old in alias_pairs(w, args):
            w._add("MethodAlias", new, node, new_node, scope, old_name=old, receiver=receiver, comments=w._comments_above(node))
        return
    if verb in _DEFINERS:
        _define(w, node, verb, args, receiver, scope)
        return
    action = _VISIBILITIES.get(verb) or (_SEND_ONLY.get(verb) if via_send else None)
    if action is None:
        return
    kind, visibility, singleton = action
    for name, arg in _names(w, args):
        w._add(kind, name, arg, arg, scope, visibility=visibility, receiver=receiver, self_receiver=singleton)


def _define(w: Walker, node: Any, verb: str, args: list[Any], receiver: ConstPath, scope: Scope | None) -> None:
    """``Foo.define_method(:m) { }`` and ``Foo.attr_accessor :a``: public instance methods of
    Foo. A Method records it with ``instance_receiver`` (``receiver`` alone means ``def Foo.m``)."""
    if verb == "define_method":
        for name, arg in _names(w, args[:1]):
            w._add("Method", name, node, arg, scope, visibility="public", params="(...)", receiver=receiver, instance_receiver=True, comments=w._comments_above(node))
        return
    for name, arg in _names(w, args):
        w._add(_DEFINERS[verb], name, arg, arg, scope, visibility="public", receiver=receiver, comments=w._comments_above(node))


def _direct(w: Walker, node: Any, name: str, receiver: ConstPath, scope: Scope | None) -> None:
    given = node.child_by_field_name("arguments")
    if given is not None:
        _act(w, node, name, given.named_children, receiver, scope, False)


def _send(w: Walker, node: Any, name: str, receiver: ConstPath, scope: Scope | None) -> None:
    """``Foo.send(:include, M)``, ``Foo.send(:alias_method, :a, :b)``, ``Foo.send(:private, :m)``."""
    given = node.child_by_field_name("arguments")
    args = given.named_children if given is not None else []
    verb = symbol_name(args[0]) if args and args[0].type != "string" else None
    if verb in MIXIN_CALLS:
        send_mixin(w, node, receiver, scope)
    elif verb is not None:
        _act(w, node, verb, args[1:], receiver, scope, True)


def _const_set(w: Walker, node: Any, name: str, receiver: ConstPath, scope: Scope | None) -> None:
    define_constants(w, node, receiver, scope)


def _bundler_require(w: Walker, node: Any, name: str, receiver: ConstPath, scope: Scope | None) -> None:
    """``Bundler.require`` / ``Bundler.require(:default, :test)`` / ``Bundler.require(*Rails.groups)``
    at load time: the Gemfile's gems of those groups are required here (``BUNDLER_REQUIRE``)."""
    if receiver.segments != ("Bundler",) or w.untaken_at(node.start_byte):
        return
    given = node.child_by_field_name("arguments")
    groups: list[str] = []
    for arg in given.named_children if given is not None else ():
        group = symbol_name(arg)
        groups.append(group if group else "*")
    path = BUNDLER_REQUIRE + ("(" + ",".join(dict.fromkeys(groups)) + ")" if groups else "")
    w.requires.append(Require(path, False, node.start_byte, node.end_byte))


# Calls on a constant outside method bodies (``Foo.include M``): they act on Foo.
RECEIVER_DIRECTIVES: dict[str, Callable[[Walker, Any, str, ConstPath, Scope | None], None]] = {
    **dict.fromkeys(MIXIN_CALLS, external_mixin),
    **dict.fromkeys(SEND, _send),
    **dict.fromkeys(("alias_method", *_VISIBILITIES, *_DEFINERS), _direct),
    "const_set": _const_set,
    "require": _bundler_require,
    "autoload": lambda w, node, name, receiver, scope: autoload(w, node, name, scope, receiver),
}
