"""Parse one Ruby source into a FileResult: definitions, references, requires, diagnostics.

This module owns the tree-sitter side of discovery. It walks each tree once with a cursor (no
recursion: real code nests deeply) and turns the interesting nodes into plain records. Fully
qualified names are not computed here; every record keeps the index of its enclosing scope
definition so that resolution can rebuild the lexical nesting. It must not import resolution.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import tree_sitter
import tree_sitter_ruby

from rdx.discovery.loops import Loop, expand_names, loop_at, register_loop
from rdx.discovery.rails import RAILS_DIRECTIVES
from rdx.ids import definition_id
from rdx.model.kinds import DefinitionKind, MixinKind, ReceiverKind
from rdx.model.records import (
    ConstPath,
    ConstRef,
    DefinitionRecord,
    Diagnostic,
    ExternalMixin,
    FileResult,
    MethodRef,
    Mixin,
    Require,
)
from rdx.text import line_starts

__all__ = ["RubyParser", "discover_source"]

_LANGUAGE = tree_sitter.Language(tree_sitter_ruby.language())

_VISIBILITY_WORDS = {b"private", b"public", b"protected", b"module_function"}
_ATTR_KINDS = {
    "attr_reader": "AttrReader",
    "attr_writer": "AttrWriter",
    "attr_accessor": "AttrAccessor",
    "attr": "AttrReader",
}
_REQUIRE_CALLS = {"require": False, "require_relative": True, "load": False}
_WHITESPACE = re.compile(r"\s+")
_MAX_PARAMS = 400

# Receivers of ``X = Receiver.method(...)`` that create a namespace, with the kind created and
# the accessor kind given to symbol arguments (None: arguments are not members).
_NAMESPACE_FACTORIES = {
    ("Class", "new"): ("Class", None),
    ("Module", "new"): ("Module", None),
    ("Struct", "new"): ("Class", "AttrAccessor"),
    ("Data", "define"): ("Class", "AttrReader"),
}


class _Scope:
    """An open scope during the walk: a namespace body or a method body."""

    __slots__ = ("_module_function", "_visibility", "body_start", "calls", "deferred", "end", "hook_param", "index", "is_method", "locals", "marks")

    def __init__(self, end: int, body_start: int, index: int, is_method: bool) -> None:
        self.end = end
        self.body_start = body_start
        self.index = index
        self.is_method = is_method
        self._visibility = "public"
        self._module_function = False
        self.calls = 0
        # Bare ``private``/``public``/``protected``/``module_function`` words in this body, as
        # (offset, word) in source order; applied lazily as the walk passes them.
        self.marks: list[tuple[int, str]] = []
        # True for the block of ActiveSupport::Concern's ``included do ... end``, which runs in
        # the including class: its mixins apply there, after the concern itself.
        self.deferred = False
        # Local variable names seen so far in this scope (parameters, assignments), so that a
        # bare identifier can be told apart from a call of a method without arguments.
        self.locals: set[bytes] = set()
        # In ``def self.included(base)`` (and ``extended``/``prepended``/``append_features``):
        # the parameter naming the including class, whose mixins apply like the module's own.
        self.hook_param: bytes | None = None

    def advance(self, offset: int) -> None:
        marks = self.marks
        while marks and marks[0][0] < offset:
            _, word = marks.pop(0)
            self.set_visibility(word)

    def set_visibility(self, word: str) -> None:
        if word == "module_function":
            self._module_function = True
            self._visibility = "private"
        else:
            self._visibility = word
            self._module_function = False

    def visibility_at(self, offset: int) -> str:
        if self.marks:
            self.advance(offset)
        return self._visibility

    def module_function_at(self, offset: int) -> bool:
        if self.marks:
            self.advance(offset)
        return self._module_function


class RubyParser:
    """A reusable tree-sitter parser for Ruby; one per worker process."""

    def __init__(self) -> None:
        self._parser = tree_sitter.Parser(_LANGUAGE)

    def discover(self, uri: str, source: bytes, path: str | None = None) -> FileResult:
        tree = self._parser.parse(source)
        walker = _Walker(uri, source)
        walker.walk(tree.root_node)
        for index, mixins in walker.mixins.items():
            walker.definitions[index].mixins = tuple(mixins)
        for index, mixins in walker.deferred_mixins.items():
            walker.definitions[index].deferred_mixins = tuple(mixins)
        return FileResult(
            uri=uri,
            path=path,
            size=len(source),
            line_starts=walker.line_starts,
            definitions=walker.definitions,
            const_refs=walker.const_refs,
            method_refs=walker.method_refs,
            requires=walker.requires,
            external_mixins=walker.external_mixins,
            diagnostics=walker.diagnostics,
        )


def discover_source(uri: str, source: bytes, path: str | None = None) -> FileResult:
    """Convenience for one-off parsing (tests, ``Graph.index_source``)."""
    return RubyParser().discover(uri, source, path)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


# ``# frozen_string_literal: true``, ``# rubocop:disable X``, ``# typed: strict``, ``# -*- coding: x -*-``:
# instructions to Ruby and tools, never documentation.
_DIRECTIVE_COMMENT = re.compile(
    rb"#\s*(?:(?:frozen_string_literal|encoding|coding|warn_indent|warn_past_scope|shareable_constant_value|typed)\s*:"
    rb"|rubocop\s*:\s*(?:disable|enable|todo)|-\*-|:nocov:|standard\s*:\s*(?:disable|enable))"
)


def _symbol_name(node: Any) -> str | None:
    """The name of a literal symbol or plain string argument, else None."""
    t = node.type
    if t == "simple_symbol":
        return _text(node)[1:]
    if t in ("string", "delimited_symbol"):
        if node.named_child_count == 1 and node.named_children[0].type == "string_content":
            return _text(node.named_children[0])
        if node.named_child_count == 0:
            return ""
    return None


class _Walker:
    """One walk over one tree; see the module docstring."""

    def __init__(self, uri: str, source: bytes) -> None:
        self.uri = uri
        self.source = source
        self.line_starts = line_starts(source)
        self.line_table = memoryview(self.line_starts).cast("I")
        self.definitions: list[DefinitionRecord] = []
        self.const_refs: list[ConstRef] = []
        self.method_refs: list[MethodRef] = []
        self.requires: list[Require] = []
        self.external_mixins: list[ExternalMixin] = []
        # Definition index -> mixins (and deferred ``included do`` mixins) found in its body,
        # moved onto the definitions as tuples when the walk ends.
        self.mixins: dict[int, list[Mixin]] = {}
        self.deferred_mixins: dict[int, list[Mixin]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.scopes: list[_Scope] = []
        self.skip_const_until = -1
        # Inline visibility (``private def x``, ``private attr_reader :y``) keyed by node start.
        self.pending_visibility: dict[int, str] = {}
        # Method definitions written as ``module_function def m`` (keyed by node start).
        self.pending_module_function: set[int] = set()
        # Call nodes that are assignment targets (``self.x = 1`` calls ``x=``).
        self.setter_calls: set[int] = set()
        # ``LITERAL.each { |p| ... }`` blocks seen so far (rdx.discovery.loops).
        self.loops: list[Loop] = []
        self.top_object: int = -1
        self.external_calls = 0
        self.top_locals: set[bytes] = set()
        self._error_until = -1
        self._cursor: Any = None
        self.check_missing = False

    # -- walking -------------------------------------------------------------------------

    def walk(self, root: Any) -> None:
        self.check_missing = root.has_error
        handlers = _HANDLERS_BY_ID
        cursor = root.walk()
        self._cursor = cursor
        check_missing = self.check_missing
        while True:
            node = cursor.node
            handler = handlers.get(node.kind_id)
            descend = True
            if handler is not None:
                descend = handler(self, node) is not False
            elif check_missing and node.is_missing:
                self._diag("syntax-error", f"missing {node.type}", node)
            if descend and cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return

    def _scope(self, start: int) -> _Scope | None:
        """The innermost scope containing byte ``start`` (closing scopes that ended)."""
        scopes = self.scopes
        while scopes and scopes[-1].end <= start:
            scopes.pop()
        if not scopes:
            return None
        top = scopes[-1]
        if top.body_start > start:
            # Name and superclass of a class are evaluated in the enclosing scope.
            return scopes[-2] if len(scopes) > 1 else None
        return top

    def _namespace_scope(self, scope: _Scope | None) -> _Scope | None:
        """The innermost namespace scope at or outside ``scope`` (methods skipped)."""
        if scope is None or not scope.is_method:
            return scope
        for s in reversed(self.scopes):
            if not s.is_method and s.body_start <= scope.body_start:
                return s
        return None

    def _diag(self, code: str, message: str, node: Any, severity: str = "error") -> None:
        self.diagnostics.append(Diagnostic(code, message, node.start_byte, node.end_byte, severity))

    # -- records -------------------------------------------------------------------------

    def _comments_above(self, node: Any) -> tuple[str, ...]:
        """Full-line ``#`` comments directly above ``node``'s line (found in the text, so the
        walk never has to visit comment nodes)."""
        starts = self.line_table
        row = node.start_point[0]
        source = self.source
        lines: list[str] = []
        while row > 0:
            line = source[starts[row - 1] : starts[row]].strip()
            if not line.startswith(b"#"):
                break
            if not _DIRECTIVE_COMMENT.match(line):  # Magic comments and tool directives are no doc.
                lines.append(line.decode("utf-8", "replace"))
            row -= 1
        if not lines:
            return ()
        lines.reverse()
        return tuple(lines)

    def _scan_marks(self, body: Any, scope: _Scope) -> None:
        """Record bare visibility words among a body's statements (see ``_Scope.marks``)."""
        if body is None:
            return
        for child in body.named_children:
            if child.type == "identifier":
                word = child.text
                if word in _VISIBILITY_WORDS:
                    scope.marks.append((child.start_byte, word.decode()))

    def _add(self, kind: str, name: str, node: Any, name_node: Any, parent: _Scope | None, **fields: Any) -> int:
        start = node.start_byte
        index = len(self.definitions)
        self.definitions.append(
            DefinitionRecord(
                id=definition_id(self.uri, start, name),
                kind=cast(DefinitionKind, kind),
                name=name,
                start=start,
                end=node.end_byte,
                name_start=name_node.start_byte,
                name_end=name_node.end_byte,
                parent=parent.index if parent is not None else -1,
                **fields,
            )
        )
        return index

    def _const_path(self, node: Any) -> ConstPath | None:
        """The ConstPath of a ``constant``/``scope_resolution`` node, iteratively."""
        t = node.type
        if t == "constant":
            return ConstPath((_text(node),), False, node.start_byte, node.end_byte)
        if t != "scope_resolution":
            return None
        segments: list[str] = []
        absolute = False
        dynamic = False
        cur = node
        while True:
            name = cur.child_by_field_name("name")
            segments.append(_text(name) if name is not None else "")
            scope = cur.child_by_field_name("scope")
            if scope is None:
                absolute = True
                break
            if scope.type == "scope_resolution":
                cur = scope
                continue
            if scope.type == "constant":
                segments.append(_text(scope))
            else:
                dynamic = True
            break
        segments.reverse()
        return ConstPath(tuple(segments), absolute, node.start_byte, node.end_byte, dynamic)

    def _prefix_ref(self, path: ConstPath, scope: _Scope | None) -> None:
        """Record the scope part of a compact definition name (``A`` of ``class A::B``)."""
        if len(path.segments) > 1 and not path.dynamic:
            prefix_end = path.end - len(path.segments[-1]) - 2
            prefix = ConstPath(path.segments[:-1], path.absolute, path.start, prefix_end)
            self.const_refs.append(ConstRef(prefix, scope.index if scope else -1))

    def _top_object(self, node: Any) -> _Scope:
        """A synthetic reopening of ``Object`` for top-level ``include``/``private``."""
        if self.top_object < 0:
            self.top_object = len(self.definitions)
            self.definitions.append(
                DefinitionRecord(
                    id=definition_id(self.uri, 0, "Object"),
                    kind=DefinitionKind.CLASS,
                    name="Object",
                    start=0,
                    end=0,
                    name_start=0,
                    name_end=0,
                    path=ConstPath(("Object",), True, 0, 0),
                )
            )
            self._top_scope = _Scope(len(self.source) + 1, 0, self.top_object, False)
            self._top_scope.set_visibility("private")
        return self._top_scope

    # -- handlers ------------------------------------------------------------------------

    def on_namespace(self, node: Any) -> None:
        kind = "Class" if node.type == "class" else "Module"
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        scope = self._scope(node.start_byte)
        path = self._const_path(name_node)
        if path is None or path.dynamic:
            self._diag("dynamic-namespace", f"cannot resolve the name {_text(name_node)!r} statically", name_node, "warning")
            return
        self.skip_const_until = name_node.end_byte
        self._prefix_ref(path, scope)
        superclass = None
        superclass_self = False
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
                superclass = self._const_path(expr)
                if superclass is None and expr.type == "call":
                    superclass, struct_kind, struct_members = self._factory(expr)
                    if superclass is None and expr.child_by_field_name("receiver") is None:
                        meth = expr.child_by_field_name("method")
                        if meth is not None and meth.text == b"DelegateClass":
                            # ``DelegateClass(X)`` builds an anonymous subclass of Delegator.
                            superclass = ConstPath(("Delegator",), True, expr.start_byte, expr.end_byte)
                if superclass is None or superclass.dynamic:
                    superclass = None
                    self._diag("dynamic-superclass", f"cannot resolve the superclass {_text(expr)!r} statically", expr, "warning")
        index = self._add(
            kind,
            path.text,
            node,
            name_node,
            scope,
            path=path,
            superclass=superclass,
            superclass_self=superclass_self,
            comments=self._comments_above(node),
        )
        new_scope = _Scope(node.end_byte, body_start, index, False)
        self._scan_marks(node.child_by_field_name("body"), new_scope)
        self.scopes.append(new_scope)
        if struct_kind:
            self._members(struct_kind, struct_members, self.scopes[-1])

    def _factory(self, call: Any) -> tuple[ConstPath | None, str | None, list[tuple[str, Any]]]:
        """``Struct.new(:a)`` / ``Data.define(:a)`` used as a superclass or value."""
        recv = call.child_by_field_name("receiver")
        meth = call.child_by_field_name("method")
        if recv is None or meth is None or recv.type != "constant":
            return None, None, []
        key = (_text(recv), _text(meth))
        if key not in _NAMESPACE_FACTORIES or key[0] not in ("Struct", "Data"):
            return None, None, []
        members = self._symbol_args(call)
        return self._const_path(recv), _NAMESPACE_FACTORIES[key][1], members

    def _symbol_args(self, call: Any) -> list[tuple[str, Any]]:
        args = call.child_by_field_name("arguments")
        if args is None:
            return []
        out = []
        for arg in args.named_children:
            name = _symbol_name(arg)
            if name is not None and arg.type != "string":
                out.append((name, arg))
            elif (unrolled := expand_names(self.loops, arg)) is not None:
                out.extend(unrolled)
        return out

    def _members(self, kind: str | None, members: list[tuple[str, Any]], scope: _Scope) -> None:
        if kind is None:
            return
        for name, node in members:
            self._add(kind, name, node, node, scope)

    def on_singleton_class(self, node: Any) -> None:
        value = node.child_by_field_name("value")
        scope = self._scope(node.start_byte)
        target = None
        if value is None:
            return
        if value.type != "self":
            target = self._const_path(value)
            if target is None or target.dynamic:
                self._diag("dynamic-singleton-class", f"cannot resolve 'class << {_text(value)}' statically", value, "warning")
                return
        index = self._add(
            "SingletonClass",
            target.text if target else "self",
            node,
            value,
            scope,
            target=target,
            self_receiver=target is None,
            comments=self._comments_above(node),
        )
        new_scope = _Scope(node.end_byte, value.end_byte, index, False)
        self._scan_marks(node.child_by_field_name("body"), new_scope)
        self.scopes.append(new_scope)

    def _params(self, node: Any) -> str:
        params = node.child_by_field_name("parameters")
        if params is None:
            return "()"
        text = _WHITESPACE.sub(" ", _text(params)).strip()
        if not text.startswith("("):
            text = f"({text})"
        if len(text) > _MAX_PARAMS:
            text = text[: _MAX_PARAMS - 4] + "...)"
        return text

    def on_method(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        scope = self._scope(node.start_byte)
        ns = self._namespace_scope(scope)
        fields: dict[str, Any] = {}
        if node.type == "singleton_method":
            obj = node.child_by_field_name("object")
            if obj is None:
                return
            if obj.type == "self":
                fields["self_receiver"] = True
            else:
                recv = self._const_path(obj)
                if recv is None or recv.dynamic:
                    self._diag("dynamic-method-receiver", f"cannot resolve the receiver of 'def {_text(obj)}.{_text(name_node)}'", obj, "warning")
                    self.scopes.append(_Scope(node.end_byte, name_node.end_byte, scope.index if scope else -1, True))
                    return
                fields["receiver"] = recv
        visibility = self.pending_visibility.pop(node.start_byte, None)
        parent = scope
        nested = scope is not None and scope.is_method
        if fields or nested:
            # ``def self.x``/``def Foo.x`` and defs run inside another method ignore the body's
            # default visibility: they are public unless made otherwise explicitly.
            visibility = visibility or "public"
        elif ns is None:
            visibility = visibility or "private"  # top-level methods are private on Object
        else:
            if visibility is None:
                visibility = ns.visibility_at(node.start_byte)
            if ns.module_function_at(node.start_byte) or node.start_byte in self.pending_module_function:
                fields["module_function"] = True
        index = self._add(
            "Method",
            _text(name_node),
            node,
            name_node,
            parent,
            visibility=visibility or "public",
            params=self._params(node),
            comments=self._comments_above(node),
            **fields,
        )
        method_scope = _Scope(node.end_byte, name_node.end_byte, index, True)
        if fields.get("self_receiver") and name_node.text in _HOOKS:
            params = node.child_by_field_name("parameters")
            if params is not None and params.named_child_count and params.named_children[0].type == "identifier":
                method_scope.hook_param = params.named_children[0].text
        self.scopes.append(method_scope)

    def on_assignment(self, node: Any) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None:
            return
        scope = self._scope(node.start_byte)
        t = left.type
        if t == "left_assignment_list":
            for target in left.named_children:
                if target.type == "rest_assignment" and target.named_child_count:
                    target = target.named_children[0]
                self._assign_target(target, None, node, scope)
            return
        self._assign_target(left, right, node, scope)

    def _assign_target(self, left: Any, right: Any, node: Any, scope: _Scope | None) -> None:
        t = left.type
        if t == "instance_variable":
            self._add("InstanceVariable", _text(left), left, left, scope)
        elif t == "class_variable":
            self._add("ClassVariable", _text(left), left, left, scope)
        elif t == "global_variable":
            self._add("GlobalVariable", _text(left), left, left, scope)
        elif t == "call":
            self.setter_calls.add(left.start_byte)
        elif t == "identifier":
            self._locals(left.start_byte).add(left.text)
        elif t in ("constant", "scope_resolution"):
            path = self._const_path(left)
            if path is None or path.dynamic:
                self._diag("dynamic-constant", f"cannot resolve the constant {_text(left)!r} statically", left, "warning")
                return
            self.skip_const_until = left.end_byte
            self._prefix_ref(path, scope)
            self._constant(path, left, right, node, scope)

    def _constant(self, path: ConstPath, left: Any, right: Any, node: Any, scope: _Scope | None) -> None:
        comments = self._comments_above(node)
        value = right
        # ``A = B = C``: A names the same object as B.
        if value is not None and value.type in ("assignment", "operator_assignment"):
            inner = value.child_by_field_name("left")
            if inner is not None and inner.type in ("constant", "scope_resolution"):
                value = inner
        if value is not None and value.type in ("constant", "scope_resolution"):
            target = self._const_path(value)
            if target is not None and not target.dynamic:
                self._add("ConstantAlias", path.text, node, left, scope, path=path, target=target, comments=comments)
                return
        if value is not None and value.type == "call":
            recv = value.child_by_field_name("receiver")
            meth = value.child_by_field_name("method")
            if recv is not None and meth is not None and recv.type == "constant":
                factory = _NAMESPACE_FACTORIES.get((_text(recv), _text(meth)))
                if factory is not None:
                    self._namespace_factory(factory, path, left, value, node, scope, comments)
                    return
        self._add("Constant", path.text, node, left, scope, path=path, comments=comments)

    def _namespace_factory(
        self, factory: tuple[str, str | None], path: ConstPath, left: Any, call: Any, node: Any, scope: _Scope | None, comments: tuple[str, ...]
    ) -> None:
        kind, member_kind = factory
        recv = call.child_by_field_name("receiver")
        superclass = None
        members: list[tuple[str, Any]] = []
        if member_kind is not None:
            superclass = self._const_path(recv)
            members = self._symbol_args(call)
        elif kind == "Class":
            args = call.child_by_field_name("arguments")
            if args is not None and args.named_child_count:
                superclass = self._const_path(args.named_children[0])
                if superclass is not None and superclass.dynamic:
                    superclass = None
        index = self._add(kind, path.text, node, left, scope, path=path, superclass=superclass, comments=comments, lexical=False)
        block = call.child_by_field_name("block")
        new_scope = _Scope(node.end_byte, block.start_byte if block is not None else node.end_byte, index, False)
        if block is not None:
            for child in block.named_children:
                if child.type in ("body_statement", "block_body"):
                    self._scan_marks(child, new_scope)
        self.scopes.append(new_scope)
        self._members(member_kind, members, new_scope)

    def on_constant(self, node: Any) -> bool | None:
        start = node.start_byte
        if start < self.skip_const_until:
            return None
        path = self._const_path(node)
        if path is None:
            return None
        if path.dynamic:
            return None  # The scope expression is walked; its own constants are recorded.
        self.skip_const_until = node.end_byte
        scope = self._scope(start)
        self.const_refs.append(ConstRef(path, scope.index if scope else -1))
        return None

    def on_identifier(self, node: Any) -> None:
        """A bare identifier: a local variable read or a call of a method without arguments.

        Binding sites (parameters, assignment targets, rescue variables, patterns) are handled
        by their parents, which are visited first and add the names to the scope's locals."""
        field = self._cursor.field_id
        if field and field in _NOT_A_CALL_FIELD_IDS:
            if field == _PATTERN_FIELD_ID:
                self._locals(node.start_byte).add(node.text)
            return
        start = node.start_byte
        scope = self._scope(start)
        word = node.text
        if word in (scope.locals if scope is not None else self.top_locals):
            return
        if word == b"end":
            # tree-sitter-ruby reads a stray ``end`` as an identifier; report it unless it is
            # part of a syntax error already reported.
            if start >= self._error_until:
                self._diag("syntax-error", "unexpected 'end'", node)
            return
        self.method_refs.append(MethodRef(word.decode("utf-8", "replace"), start, node.end_byte, scope.index if scope else -1, ReceiverKind.IMPLICIT_SELF))

    def on_binding(self, node: Any) -> None:
        """Parameter lists, multiple-assignment targets, rescue variables and patterns."""
        names = self._locals(node.start_byte)
        for child in node.named_children:
            t = child.type
            if t == "identifier":
                names.add(child.text)
            elif t.endswith("parameter") or t == "rest_assignment":
                name = child.child_by_field_name("name")
                if name is None and child.named_child_count:
                    name = child.named_children[0]
                if name is not None and name.type == "identifier":
                    names.add(name.text)

    def _locals(self, start: int) -> set[bytes]:
        scope = self._scope(start)
        return scope.locals if scope is not None else self.top_locals

    def on_call(self, node: Any) -> None:
        meth = node.child_by_field_name("method")
        if meth is None:
            return
        name = _text(meth)
        start = node.start_byte
        scope = self._scope(start)
        recv = node.child_by_field_name("receiver")
        register_loop(self.loops, node, recv, name)
        receiver_kind = ReceiverKind.IMPLICIT_SELF
        receiver = None
        receiver_text = None
        if recv is not None:
            rt = recv.type
            if rt == "self":
                receiver_kind = ReceiverKind.SELF
            elif rt in ("constant", "scope_resolution"):
                receiver = self._const_path(recv)
                receiver_kind = ReceiverKind.CONSTANT if receiver is not None and not receiver.dynamic else ReceiverKind.OTHER
            elif rt == "call":
                inner = recv.child_by_field_name("receiver")
                inner_m = recv.child_by_field_name("method")
                if inner is not None and inner_m is not None and inner.type in ("constant", "scope_resolution") and inner_m.text == b"new":
                    receiver = self._const_path(inner)
                    receiver_kind = ReceiverKind.CONSTANT_INSTANCE if receiver is not None and not receiver.dynamic else ReceiverKind.OTHER
                else:
                    receiver_kind = ReceiverKind.OTHER
            else:
                receiver_kind = ReceiverKind.OTHER
            if receiver_kind == ReceiverKind.OTHER:
                receiver = None
                receiver_text = _text(recv)[:200]
        if start in self.setter_calls:
            name += "="
        self.method_refs.append(
            MethodRef(name, meth.start_byte, meth.end_byte, scope.index if scope else -1, receiver_kind, receiver, receiver_text)
        )
        if receiver_kind == ReceiverKind.OTHER and scope is not None and scope.hook_param is not None and recv is not None and recv.text == scope.hook_param:
            self._hook_mixin(node, name, scope)
        if name in _MIXIN_CALLS and recv is not None and recv.type == "identifier" and not (scope is not None and scope.is_method):
            # ``[A, B].each { |k| k.prepend(M) }``: once per constant of the list.
            loop = loop_at(self.loops, recv, recv.text.decode())
            for element in loop.nodes if loop is not None else ():
                path = self._const_path(element)
                if path is not None and not path.dynamic:
                    self._external_mixin(node, name, path, scope)
        if receiver_kind == ReceiverKind.IMPLICIT_SELF and name == "included" and scope is not None and not scope.is_method:
            block = node.child_by_field_name("block")
            if block is not None:
                deferred = _Scope(node.end_byte, block.start_byte, scope.index, False)
                deferred.deferred = True
                self.scopes.append(deferred)
        if receiver_kind <= ReceiverKind.SELF:
            handler = _DIRECTIVES.get(name)
            if handler is not None:
                handler(self, node, name, scope)
            elif name in _SEND:
                self._send_mixin(node, None, scope)
        elif receiver_kind == ReceiverKind.CONSTANT and receiver is not None and not (scope is not None and scope.is_method):
            # Inside a method body the call runs only if the method does: not part of the graph.
            if name in _MIXIN_CALLS:
                self._external_mixin(node, name, receiver, scope)
            elif name in _SEND:
                self._send_mixin(node, receiver, scope)

    def _hook_mixin(self, node: Any, name: str, scope: _Scope) -> None:
        """``base.extend(ClassMethods)`` (or ``base.send(:include, X)``) in ``def self.included(base)``."""
        args = node.child_by_field_name("arguments")
        if args is None:
            return
        children = args.named_children
        if name in _SEND and children:
            name = _symbol_name(children[0]) or ""
            children = children[1:]
        if name not in _MIXIN_CALLS:
            return
        method = self.definitions[scope.index]
        if method.parent < 0:
            return
        owner = self.definitions[method.parent]
        if owner.kind not in ("Module", "Class"):
            return
        scope.calls += 1
        for arg in children:
            path = self._const_path(arg)
            if path is not None and not path.dynamic:
                self.deferred_mixins.setdefault(method.parent, []).append(Mixin(cast(MixinKind, name), path, scope.calls, node.start_byte))

    def _external_mixin(self, node: Any, name: str, receiver: ConstPath, scope: _Scope | None) -> None:
        """``Foo.include(A, B)``: recorded against ``Foo``, resolved later."""
        args = node.child_by_field_name("arguments")
        if args is None:
            return
        self.external_calls += 1
        for arg in args.named_children:
            if arg.type == "self":
                # ``Foo.include self``: the namespace around the call.
                self.external_mixins.append(ExternalMixin(receiver, scope.index if scope else -1, Mixin(cast(MixinKind, name), None, self.external_calls, node.start_byte)))
                continue
            path = self._const_path(arg)
            if path is None or path.dynamic:
                self._diag("dynamic-mixin", f"cannot resolve '{receiver.text}.{name}({_text(arg)[:80]})' statically", arg, "warning")
                continue
            self.external_mixins.append(ExternalMixin(receiver, scope.index if scope else -1, Mixin(cast(MixinKind, name), path, self.external_calls, node.start_byte)))

    def _send_mixin(self, node: Any, receiver: ConstPath | None, scope: _Scope | None) -> None:
        """``Foo.send(:include, M)`` and ``send(:include, M)`` in a namespace body."""
        args = node.child_by_field_name("arguments")
        if args is None or args.named_child_count < 2:
            return
        first = args.named_children[0]
        verb = _symbol_name(first) if first.type != "string" else None
        if verb not in _MIXIN_CALLS:
            return
        paths = [p for a in args.named_children[1:] if (p := self._const_path(a)) is not None and not p.dynamic]
        if receiver is not None:
            self.external_calls += 1
            for path in paths:
                self.external_mixins.append(ExternalMixin(receiver, scope.index if scope else -1, Mixin(cast(MixinKind, verb), path, self.external_calls, node.start_byte)))
            return
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        ns.calls += 1
        for path in paths:
            self.mixins.setdefault(ns.index, []).append(Mixin(cast(MixinKind, verb), path, ns.calls, node.start_byte))

    # -- directives: calls on self with a meaning for the graph ----------------------------

    def _directive_scope(self, node: Any, scope: _Scope | None) -> _Scope | None:
        """The namespace body a directive applies to, or None inside a method body.

        At top level, directives apply to Object unless they sit in a block, whose ``self`` is
        unknown statically (``ActiveSupport.on_load(:x) { include M }``)."""
        if scope is None:
            parent = node.parent
            while parent is not None and parent.type != "program":
                if parent.type in _BLOCK_TYPES:
                    return None
                parent = parent.parent
            return self._top_object(node)
        if scope.is_method:
            return None
        return scope

    def _mixin(self, node: Any, name: str, scope: _Scope | None) -> None:
        if scope is None and name == "extend":
            return  # Top-level ``extend`` extends the main object only, not Object.
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        args = node.child_by_field_name("arguments")
        if args is None:
            return
        ns.calls += 1
        into = (self.deferred_mixins if ns.deferred else self.mixins).setdefault(ns.index, [])
        for arg in args.named_children:
            if arg.type == "self":
                if not ns.deferred:
                    into.append(Mixin(cast(MixinKind, name), None, ns.calls, node.start_byte))
                continue
            path = self._const_path(arg)
            if path is None or path.dynamic:
                self._diag("dynamic-mixin", f"cannot resolve '{name} {_text(arg)[:80]}' statically", arg, "warning")
                continue
            into.append(Mixin(cast(MixinKind, name), path, ns.calls, node.start_byte))

    def _attr(self, node: Any, name: str, scope: _Scope | None) -> None:
        ns = self._directive_scope(node, scope)
        in_singleton = ns is None and (ns := self._singleton_method_owner(scope)) is not None
        if ns is None:
            return
        visibility = self.pending_visibility.pop(node.start_byte, None) or ("public" if in_singleton else ns.visibility_at(node.start_byte))
        for attr, arg in self._symbol_args(node) or self._string_args(node):
            self._add(_ATTR_KINDS[name], attr, arg, arg, ns, visibility=visibility, comments=self._comments_above(node))

    def _singleton_method_owner(self, scope: _Scope | None) -> _Scope | None:
        """For a call in the body of ``def self.m`` (self is the class there): the class body's
        scope, else None. ``attr_*`` there defines on the class once ``m`` runs."""
        if scope is None or not scope.is_method:
            return None
        method = self.definitions[scope.index]
        if not method.self_receiver or method.receiver is not None:
            return None
        return next((s for s in reversed(self.scopes) if s.index == method.parent and not s.is_method), None)

    def _string_args(self, node: Any) -> list[tuple[str, Any]]:
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        out = []
        for arg in args.named_children:
            name = _symbol_name(arg)
            if name is not None:
                out.append((name, arg))
            elif (unrolled := expand_names(self.loops, arg)) is not None:
                out.extend(unrolled)
        return out

    def _alias_method(self, node: Any, name: str, scope: _Scope | None) -> None:
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        given = node.child_by_field_name("arguments")
        if given is None or given.named_child_count != 2:
            return
        sides = []
        for arg in given.named_children:
            literal = _symbol_name(arg)
            sides.append([(literal, arg)] if literal is not None else (expand_names(self.loops, arg) or []))
        news, olds = sides
        if len(olds) == 1:
            olds = olds * len(news)  # ``alias_method "#{n}_x", :y`` in a loop: one alias per element.
        for (new, new_node), (old, _) in zip(news, olds, strict=False):
            self._add("MethodAlias", new, node, new_node, ns, old_name=old, comments=self._comments_above(node))

    def _visibility(self, node: Any, name: str, scope: _Scope | None) -> None:
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        args = node.child_by_field_name("arguments")
        if args is None or not args.named_child_count:
            ns.advance(node.start_byte)
            ns.set_visibility(name)
            return
        for arg in args.named_children:
            sym = _symbol_name(arg)
            if sym is not None:
                self._add("MethodVisibility", sym, arg, arg, ns, visibility=name)
            elif arg.type in ("method", "singleton_method", "call"):
                self.pending_visibility[arg.start_byte] = "private" if name == "module_function" else name
                if name == "module_function":
                    self.pending_module_function.add(arg.start_byte)  # ``module_function def m``
            elif arg.type == "array":
                for item in arg.named_children:
                    sym = _symbol_name(item)
                    if sym is not None:
                        self._add("MethodVisibility", sym, item, item, ns, visibility=name)

    def _class_method_visibility(self, node: Any, name: str, scope: _Scope | None) -> None:
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        visibility = "private" if name == "private_class_method" else "public"
        named = list(self._string_args(node))
        given = node.child_by_field_name("arguments")
        for arg in given.named_children if given is not None else ():
            if arg.type == "array":  # ``private_class_method [:a, "b"]``
                named += [(n, item) for item in arg.named_children if (n := _symbol_name(item)) is not None]
        for sym, arg in named:
            self._add("MethodVisibility", sym, arg, arg, ns, visibility=visibility, self_receiver=True)
        args = node.child_by_field_name("arguments")
        for arg in args.named_children if args is not None else ():
            if arg.type == "singleton_method":
                self.pending_visibility[arg.start_byte] = visibility

    def _constant_visibility(self, node: Any, name: str, scope: _Scope | None) -> None:
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        visibility = "private" if name == "private_constant" else "public"
        for sym, arg in self._string_args(node):
            self._add("ConstantVisibility", sym, arg, arg, ns, visibility=visibility)

    def _define_method(self, node: Any, name: str, scope: _Scope | None) -> None:
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        given = node.child_by_field_name("arguments")
        first = given.named_children[0] if given is not None and given.named_child_count else None
        if first is None:
            return
        # One method, or one per element when the name comes from a loop over a literal list.
        literal = _symbol_name(first)
        names = [(literal, first)] if literal is not None else (expand_names(self.loops, first) or [])
        for method, arg in names:
            self._add("Method", method, node, arg, ns, visibility=ns.visibility_at(node.start_byte), params="(...)", comments=self._comments_above(node))

    def _require(self, node: Any, name: str, scope: _Scope | None) -> None:
        args = node.child_by_field_name("arguments")
        if args is None or args.named_child_count != 1:
            return
        arg = args.named_children[0]
        if arg.type == "string":
            value = _symbol_name(arg)
            if value is not None:
                self.requires.append(Require(value, _REQUIRE_CALLS[name], node.start_byte, node.end_byte))

    def on_alias(self, node: Any) -> None:
        new = node.child_by_field_name("name")
        old = node.child_by_field_name("alias")
        if new is None or old is None:
            return
        scope = self._scope(node.start_byte)
        if new.type == "global_variable":
            self._add("GlobalVariableAlias", _text(new), node, new, scope, old_name=_text(old))
            return
        ns = self._namespace_scope(scope)
        new_name = _symbol_name(new) if new.type != "identifier" else None
        old_name = _symbol_name(old) if old.type != "identifier" else None
        self._add(
            "MethodAlias",
            new_name if new_name is not None else _text(new),
            node,
            new,
            ns,
            old_name=old_name if old_name is not None else _text(old),
            comments=self._comments_above(node),
        )

    def on_undef(self, node: Any) -> bool:
        """``undef a, :b``: recorded like ``undef_method`` (a MethodVisibility of "undefined")."""
        scope = self._scope(node.start_byte)
        ns = self._namespace_scope(scope)
        if ns is None and scope is None:
            ns = self._top_object(node)
        if ns is None:
            return False
        for child in node.named_children:
            name = _symbol_name(child) if child.type != "identifier" and child.type != "operator" else _text(child)
            if name:
                self._add("MethodVisibility", name, child, child, ns, visibility="undefined")
        return False  # The names are not calls.

    def _undef_method(self, node: Any, name: str, scope: _Scope | None) -> None:
        """``undef_method :m`` hides ``m`` (inherited too); ``remove_method :m`` drops this
        namespace's own ``m`` so the inherited one shows again."""
        ns = self._directive_scope(node, scope)
        if ns is None:
            return
        visibility = "undefined" if name == "undef_method" else "removed"
        for sym, arg in self._string_args(node):
            self._add("MethodVisibility", sym, arg, arg, ns, visibility=visibility)

    def on_error(self, node: Any) -> None:
        text = _text(node)[:40].splitlines()[0] if node.end_byte > node.start_byte else ""
        self._diag("syntax-error", f"syntax error near {text!r}", node)
        self._error_until = max(self._error_until, node.end_byte)
        self._recover_namespace(node)

    def _recover_namespace(self, node: Any) -> None:
        """Keep what parses: when tree-sitter wraps a broken ``class X``/``module X`` in an
        ERROR node, its keyword and name survive as children. The first such pair opens a
        namespace scope up to the end of the ERROR node, so the methods inside keep their owner."""
        children = node.children
        for i, child in enumerate(children[:-1]):
            if child.is_named or child.type not in ("class", "module"):
                continue
            name_node = children[i + 1]
            path = self._const_path(name_node)
            if path is None or path.dynamic:
                return
            scope = self._scope(child.start_byte)
            self.skip_const_until = name_node.end_byte
            self._prefix_ref(path, scope)
            kind = "Class" if child.type == "class" else "Module"
            index = self._add(kind, path.text, node, name_node, scope, path=path, comments=self._comments_above(child))
            self.definitions[index].start = child.start_byte
            self.scopes.append(_Scope(node.end_byte, name_node.end_byte, index, False))
            return


_HANDLERS: dict[str, Callable[[_Walker, Any], Any]] = {
    "class": _Walker.on_namespace,
    "module": _Walker.on_namespace,
    "singleton_class": _Walker.on_singleton_class,
    "method": _Walker.on_method,
    "singleton_method": _Walker.on_method,
    "assignment": _Walker.on_assignment,
    "operator_assignment": _Walker.on_assignment,
    "constant": _Walker.on_constant,
    "scope_resolution": _Walker.on_constant,
    "call": _Walker.on_call,
    "alias": _Walker.on_alias,
    "undef": _Walker.on_undef,
    "identifier": _Walker.on_identifier,
    "ERROR": _Walker.on_error,
}

# Dispatch on numeric kind ids of named nodes: cheaper than type strings, and keywords such
# as the ``class`` token (an anonymous node with the same type string) never match.
# Nodes whose identifier children (or parameters' names) bind local variables.
_BINDING_NODES = (
    "method_parameters", "lambda_parameters", "block_parameters", "left_assignment_list", "exception_variable",
    "destructured_parameter", "destructured_left_assignment", "array_pattern", "find_pattern", "alternative_pattern",
)

for _name in _BINDING_NODES:
    _HANDLERS[_name] = _Walker.on_binding

_HANDLERS_BY_ID: dict[int, Callable[[_Walker, Any], Any]] = {
    (65535 if name == "ERROR" else int(_LANGUAGE.id_for_node_kind(name, True) or 0)): handler for name, handler in _HANDLERS.items()
}

# Fields in which an identifier is never a call: names of methods, parameters and aliases.
_NOT_A_CALL_FIELDS = frozenset({"name", "method", "alias", "pattern", "key"})
_NOT_A_CALL_FIELD_IDS = frozenset(i for f in _NOT_A_CALL_FIELDS if (i := _LANGUAGE.field_id_for_name(f)))
_PATTERN_FIELD_ID = _LANGUAGE.field_id_for_name("pattern")
_BLOCK_TYPES = frozenset({"block", "do_block", "lambda"})
_HOOKS = frozenset({b"included", b"extended", b"prepended", b"append_features", b"inherited"})
_MIXIN_CALLS = frozenset({"include", "prepend", "extend"})
_SEND = frozenset({"send", "__send__", "public_send"})

_DIRECTIVES: dict[str, Callable[[_Walker, Any, str, _Scope | None], None]] = {
    "include": _Walker._mixin,
    "prepend": _Walker._mixin,
    "extend": _Walker._mixin,
    "attr_reader": _Walker._attr,
    "attr_writer": _Walker._attr,
    "attr_accessor": _Walker._attr,
    "attr": _Walker._attr,
    "alias_method": _Walker._alias_method,
    "private": _Walker._visibility,
    "public": _Walker._visibility,
    "protected": _Walker._visibility,
    "module_function": _Walker._visibility,
    "private_class_method": _Walker._class_method_visibility,
    "public_class_method": _Walker._class_method_visibility,
    "private_constant": _Walker._constant_visibility,
    "public_constant": _Walker._constant_visibility,
    "define_method": _Walker._define_method,
    "undef_method": _Walker._undef_method,
    "remove_method": _Walker._undef_method,
    "require": _Walker._require,
    "require_relative": _Walker._require,
    "load": _Walker._require,
    # Rails and ActiveSupport macros: the methods they define (rdx.discovery.rails).
    **RAILS_DIRECTIVES,
}
