"""Requires of computed paths: a method that requires a path built from its parameter, called
while a file loads with literal names.

Sequel's ``Sequel.extension :symbol_as`` runs ``def extension(*extensions)
extensions.each { |e| orig_require("sequel/extensions/#{e}") } end`` (``orig_require`` is
``alias orig_require require``): Ruby requires ``sequel/extensions/symbol_as`` right there. The
rule is about Ruby, not Sequel: a load-time call whose arguments are all literal symbols or
strings, of a method whose body requires ``"prefix#{p}suffix"`` where ``p`` is a parameter (or
the block parameter of ``param.each``, a splat parameter's included), requires
``prefix + argument + suffix`` for each argument the parameter takes, where the call is.

Discovery records both halves as ``Require`` records whose ``constant`` is ``Receiver.method``
(a ``.`` never appears in an autoload's constant): the method's *template*, ``deferred``
(written in a method body) with ``#{}`` where the parameter goes and ``scope`` the parameter's
position (``-2`` for a splat: every argument); and each load-time *call*, one record per
literal argument, not deferred, ``scope`` the scope it is written in. The load order
(``rdx.ruby.resolve.order``) binds a call to the template of the method its receiver names
(looked up through the namespaces around the call, as a constant is) and requires the path
there. The method is the one callable on the receiver's namespace (``def self.m``, ``class
<< self``, ``module_function``, ``extend self``), as for load-time calls
(``rdx.ruby.evaluate.loadfacts``), or an instance method of a module that the namespace
``extend``s in the same file (Sequel's ``extend SequelMethods``). Calls on ``self`` or on
nothing, and methods found through inheritance or through a module of another file, are out of
reach: which method runs is not known from one file's syntax.
Pure functions of tree-sitter nodes and the walker's records.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rdx.model.records import COMPUTED_PLACEHOLDER, COMPUTED_SPLAT, MixinKind, Require
from rdx.ruby.evaluate.core_methods import core_constant
from rdx.ruby.evaluate.loadtime import Bound, FileIndex, file_index
from rdx.ruby.syntax import symbol_name

if TYPE_CHECKING:
    from rdx.model.records import ConstPath
    from rdx.ruby.discover.parse import Walker
    from rdx.ruby.discover.scope import Scope

__all__ = ["PLACEHOLDER", "SPLAT", "TEMPLATE_WORDS", "computed_templates", "literal_call"]

PLACEHOLDER = COMPUTED_PLACEHOLDER  # Where a template's parameter goes (``records``).
SPLAT = COMPUTED_SPLAT  # A template's ``scope`` when every argument of a splat parameter is required.

# The words a source must hold for a template: a ``require`` and an interpolation.
TEMPLATE_WORDS = (b"require", b"#{")
_ALIAS = re.compile(rb"\balias\s+:?([a-z_]\w*[?!]?)\s+:?require\b|\balias_method\s*\(?\s*:([a-z_]\w*)\s*,\s*:require\b")
_NESTED = frozenset({"method", "singleton_method", "class", "module", "singleton_class", "lambda"})
_BLOCKS = frozenset({"do_block", "block"})


def literal_call(w: Walker, node: Any, name: str, receiver: ConstPath, scope: Scope | None) -> None:
    """``Receiver.name(:a, "b")`` outside method bodies, every argument a literal symbol or
    string and no block: one call record per argument (the load order keeps those that a
    template binds). Not ``new``, nor a call on a class or module of Ruby's core."""
    if receiver.dynamic or name == "new" or node.child_by_field_name("block") is not None:
        return  # ``Struct.new(:a, :b)`` makes an object; a block's body is not read.
    if len(receiver.segments) == 1 and core_constant(receiver.segments[0]):
        return  # ``Regexp.escape("x")``: a method of Ruby's core, which requires nothing.
    args = node.child_by_field_name("arguments")
    if args is None or args.named_child_count == 0:
        return
    values = [symbol_name(a) for a in args.named_children]
    if any(not v for v in values) or w.untaken_at(node.start_byte):
        return
    constant = receiver.text + "." + name
    at = scope.index if scope is not None else -1
    w.requires.extend(Require(v, False, node.start_byte, node.end_byte, False, constant, at) for v in values if v)


def computed_templates(w: Walker, root: Any, has_words: bool | None = None, has_alias: bool | None = None) -> list[Require]:
    """The template of each method callable on a namespace of the file whose body requires a
    path built from one of its parameters (see the module docstring). ``has_words``: whether
    the tree's source holds both ``TEMPLATE_WORDS``, ``has_alias`` whether it holds ``alias``,
    when the caller knows (else they are searched)."""
    if has_words is False:
        return []
    source = root.text
    if has_words is None and any(word not in source for word in TEMPLATE_WORDS):
        return []
    index = file_index(w)
    if not index.methods:
        return []
    verbs = {b"require"} | (_aliases_of_require(source) if has_alias is not False else set())
    base = root.start_byte
    extenders: dict[tuple[str, ...], list[tuple[str, ...]]] | None = None
    out: list[Require] = []
    for (qual, name), callees in index.methods.items():
        for c in callees:
            d = index.defs[c.method]
            # A method's text is ``source[d.start - base:d.end - base]`` (its record's range
            # is its node's, in the file; ``root.text`` starts at the root's first byte).
            lo, hi = d.start - base, d.end - base
            if source.find(b"#{", lo, hi) < 0 or not any(source.find(verb, lo, hi) >= 0 for verb in verbs):
                continue  # No ``verb("...#{p}...")`` in it.
            if extenders is None:
                extenders = _extenders(index)
            # Where the method is callable: on its own namespace, or on those that extend it.
            receivers = [qual] if not c.needs_extend_self or qual in index.extend_self else []
            receivers += extenders.get(qual, []) if c.needs_extend_self else []
            if not receivers:
                continue
            node = root.descendant_for_byte_range(d.start, d.end)
            if node is None or node.type not in ("method", "singleton_method"):
                continue
            for path, param, start, end in _required_paths(node, verbs):
                out.extend(Require(path, False, start, end, True, "::".join(r) + "." + name, param) for r in receivers)
    return out


def _aliases_of_require(source: bytes) -> set[bytes]:
    """The names ``alias x require`` and ``alias_method :x, :require`` give ``require``: the
    matches of ``_ALIAS`` in ``source``, tried only where ``alias`` is written (a scan of the
    whole source with the pattern costs more than the rest of this pass)."""
    out: set[bytes] = set()
    at = source.find(b"alias")
    while at >= 0:
        m = _ALIAS.match(source, at)
        if m is not None:
            out.add(m.group(1) or m.group(2))
            at = m.end()
        else:
            at += 1
        at = source.find(b"alias", at)
    return out


def _extenders(index: FileIndex) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Module -> the namespaces of the file that ``extend`` it (Sequel's ``module Sequel;
    module SequelMethods; def extension...; end; extend SequelMethods``): the module's
    instance methods are callable on them. Only modules of the same file are known."""
    out: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for i, qual in index.qual.items():
        for m in index.defs[i].mixins:
            if m.kind == MixinKind.EXTEND and m.target is not None and not m.target.dynamic:
                target = index.namespace_of(Bound(m.target, i))
                if target is not None and qual not in out.get(target, []):
                    out.setdefault(target, []).append(qual)
    return out


def _parameters(node: Any) -> dict[bytes, int]:
    """Parameter name -> its position (``SPLAT`` for ``*rest``); positions past a splat or an
    optional parameter are not kept (which argument binds them depends on the count)."""
    out: dict[bytes, int] = {}
    params = node.child_by_field_name("parameters")
    for i, p in enumerate(params.named_children if params is not None else ()):
        if p.type == "identifier":
            out[p.text] = i
        elif p.type == "splat_parameter" and (n := p.child_by_field_name("name")) is not None:
            out[n.text] = SPLAT
            break
        else:
            break
    return out


def _required_paths(method: Any, verbs: set[bytes]) -> list[tuple[str, int, int, int]]:
    """(template, parameter position, start, end) of each ``verb("...#{p}...")`` in the body of
    ``method`` (not in nested definitions or lambdas), ``p`` a parameter or the block parameter
    of ``param.each``."""
    params = _parameters(method)
    body = method.child_by_field_name("body")
    if not params or body is None:
        return []
    out = []
    stack: list[tuple[Any, dict[bytes, int]]] = [(body, params)]
    while stack:
        node, bound = stack.pop()
        if node.type in _NESTED:
            continue
        if node.type == "call":
            found = _required(node, verbs, bound)
            if found is not None:
                out.append((found[0], found[1], node.start_byte, node.end_byte))
            inner = _each_binding(node, bound)
            if inner is not None:
                block, names = inner
                stack.append((block, {**bound, **names}))
                stack.extend((c, bound) for c in node.named_children if c is not block)
                continue
        stack.extend((c, bound) for c in node.named_children)
    out.sort(key=lambda t: t[2])
    return out


def _each_binding(call: Any, bound: dict[bytes, int]) -> tuple[Any, dict[bytes, int]] | None:
    """``p.each { |e| ... }`` over a parameter: the block, with ``e`` standing for each of
    ``p``'s arguments (a splat's, or the one argument an array parameter would hold is not
    known: only a splat parameter is iterated)."""
    meth = call.child_by_field_name("method")
    recv = call.child_by_field_name("receiver")
    block = call.child_by_field_name("block")
    if meth is None or meth.text != b"each" or recv is None or recv.type != "identifier" or block is None or block.type not in _BLOCKS:
        return None
    if bound.get(recv.text) != SPLAT:
        return None
    params = block.child_by_field_name("parameters")
    names = [p for p in params.named_children] if params is not None else []
    if len(names) != 1 or names[0].type != "identifier":
        return None
    return block, {names[0].text: SPLAT}


def _required(call: Any, verbs: set[bytes], bound: dict[bytes, int]) -> tuple[str, int] | None:
    """``verb("prefix#{p}suffix")`` (or without parentheses), ``p`` bound: the template and
    ``p``'s position."""
    meth = call.child_by_field_name("method")
    if meth is None or meth.text not in verbs or call.child_by_field_name("receiver") is not None:
        return None
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 1 or args.named_children[0].type != "string":
        return None
    parts: list[str] = []
    param: int | None = None
    for piece in args.named_children[0].named_children:
        if piece.type == "string_content":
            parts.append(piece.text.decode("utf-8", "replace"))
        elif piece.type == "interpolation" and param is None and piece.named_child_count == 1 and piece.named_children[0].type == "identifier":
            param = bound.get(piece.named_children[0].text)
            if param is None:
                return None
            parts.append(PLACEHOLDER)
        else:
            return None
    if param is None:
        return None
    return "".join(parts), param
