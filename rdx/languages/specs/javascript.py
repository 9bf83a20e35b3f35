"""JavaScript, TypeScript and TSX: classes, functions (declared, bound to a name, or named
function expressions), methods (in classes, on prototypes: ``Foo.prototype.bar = function``,
and object-literal members that are functions), interfaces, type aliases, enums, namespaces."""

from __future__ import annotations

from typing import Any

import tree_sitter as ts

from rdx.languages.engine import Spec, word_spans
from rdx.languages.symbols import Import

_COMMON = """
(class_declaration name: (_) @name) @class
(class name: (_) @name) @class
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(method_definition name: (_) @name) @method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @function
(variable_declarator name: (identifier) @name value: (parenthesized_expression [(arrow_function) (function_expression !name)])) @function
(assignment_expression left: (identifier) @name right: (parenthesized_expression [(call_expression function: (parenthesized_expression (function_expression))) (call_expression function: (function_expression))])) @function
(assignment_expression
  left: (member_expression object: (member_expression property: (property_identifier) @_prototype) property: (property_identifier) @name)
  right: [(function_expression !name) (arrow_function) (generator_function !name) (identifier) (member_expression)]
  (#eq? @_prototype "prototype")) @method
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(function_expression !name) (arrow_function) (generator_function !name)]) @function
(variable_declarator name: (identifier) @name value: (call_expression function: (parenthesized_expression (function_expression)))) @function
(variable_declarator name: (identifier) @name value: (parenthesized_expression (call_expression function: (function_expression)))) @function
(assignment_expression left: (identifier) @name right: [(function_expression !name) (arrow_function) (generator_function !name)]) @function
(pair key: (string (string_fragment) @name) value: [(function_expression) (arrow_function)]) @method
(function_expression name: (identifier) @name) @function
(generator_function name: (identifier) @name) @function
(pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @method
"""

_TYPESCRIPT = """
(abstract_class_declaration name: (type_identifier) @name) @class
(interface_declaration name: (type_identifier) @name) @interface
(type_alias_declaration name: (type_identifier) @name) @type
(enum_declaration name: (identifier) @name) @enum
(internal_module name: (_) @name) @namespace
(module name: (_) @name) @namespace
(method_signature name: (_) @name) @method
(abstract_method_signature name: (_) @name) @method
(function_signature name: (identifier) @name) @function
"""


def _prototype_owner(node: ts.Node, source: bytes) -> str | None:
    """For ``Foo.prototype.bar = function``: ``Foo``."""
    if node.type != "assignment_expression":
        return None
    left = node.child_by_field_name("left")
    target = left.child_by_field_name("object") if left is not None else None
    if target is None or target.type != "member_expression":
        return None
    prop = target.child_by_field_name("property")
    owner = target.child_by_field_name("object")
    if prop is None or owner is None or source[prop.start_byte : prop.end_byte] != b"prototype":
        return None
    return source[owner.start_byte : owner.end_byte].decode("utf-8", "replace")


# References (see Spec.references): ``f()``, ``a.b.f()`` (qualifier ``a.b``) and ``new
# Foo()``/``new ns.Foo`` are calls. A JSX element named with a capital (``<Row/>``,
# ``<ui.Card>``) is a call of that component; lower-case names are HTML tags, not references.
_CALLS = """
(call_expression function: (identifier) @call)
(call_expression function: (member_expression object: (_) @qualifier property: [(property_identifier) (private_property_identifier)] @call))
(new_expression constructor: (identifier) @call)
(new_expression constructor: (member_expression object: (_) @qualifier property: (property_identifier) @call))
"""

_JSX = """
(jsx_opening_element name: (identifier) @call (#match? @call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @call (#match? @call "^[A-Z]"))
(jsx_opening_element name: (member_expression object: (_) @qualifier property: (property_identifier) @call))
(jsx_self_closing_element name: (member_expression object: (_) @qualifier property: (property_identifier) @call))
"""

# JavaScript's ``extends`` takes any expression: a name or a member (``ns.B``) is the base;
# anything else (``mixin(B)``) is a call, found as one.
REFERENCES_JS = (
    _CALLS
    + """
(class_heritage (identifier) @base)
(class_heritage (member_expression object: (_) @qualifier property: (property_identifier) @base))
"""
    + _JSX
)

# TypeScript's bases: ``extends`` of a class (an expression), ``implements`` and an
# interface's ``extends`` (types: ``I``, ``ns.I``, ``I<T>``, ``ns.I<T>``). They come before the
# type patterns below: the engine keeps the first match of a name, and a match that starts
# at an enclosing node (the clause) comes out before one that starts at the name.
#
# Types: a definition's own name is a type_identifier too (``interface I``, ``type T``,
# ``<T>``, ``infer U``, ``[K in ...]``) and a query cannot say "not in a name field", so the
# places a type is *used* are listed: a field of that name on any node (``(_ type: ...)``,
# which tree-sitter matches from the child, as cheap as a named parent) or a named parent.
# Measured on npm's TypeScript, the list leaves out only definitions and parse errors.
REFERENCES_TS = (
    _CALLS
    + """
(extends_clause value: (identifier) @base)
(extends_clause value: (member_expression object: (_) @qualifier property: (property_identifier) @base))
(implements_clause (type_identifier) @base)
(implements_clause (nested_type_identifier module: (_) @qualifier name: (type_identifier) @base))
(implements_clause (generic_type name: (type_identifier) @base))
(implements_clause (generic_type name: (nested_type_identifier module: (_) @qualifier name: (type_identifier) @base)))
(extends_type_clause type: (type_identifier) @base)
(extends_type_clause type: (nested_type_identifier module: (_) @qualifier name: (type_identifier) @base))
(extends_type_clause type: (generic_type name: (type_identifier) @base))
(extends_type_clause type: (generic_type name: (nested_type_identifier module: (_) @qualifier name: (type_identifier) @base)))
(nested_type_identifier module: (_) @qualifier name: (type_identifier) @type)
(generic_type name: (type_identifier) @type)
(type_alias_declaration value: (type_identifier) @type)
(_ type: (type_identifier) @type)
(_ return_type: (type_identifier) @type)
(conditional_type left: (type_identifier) @type)
(conditional_type right: (type_identifier) @type)
(conditional_type consequence: (type_identifier) @type)
(conditional_type alternative: (type_identifier) @type)
(type_annotation (type_identifier) @type)
(type_arguments (type_identifier) @type)
(union_type (type_identifier) @type)
(intersection_type (type_identifier) @type)
(array_type (type_identifier) @type)
(tuple_type (type_identifier) @type)
(lookup_type (type_identifier) @type)
(index_type_query (type_identifier) @type)
(constraint (type_identifier) @type)
(default_type (type_identifier) @type)
(as_expression (type_identifier) @type)
(satisfies_expression (type_identifier) @type)
(template_type (type_identifier) @type)
(rest_type (type_identifier) @type)
(optional_type (type_identifier) @type)
(readonly_type (type_identifier) @type)
(parenthesized_type (type_identifier) @type)
(opting_type_annotation (type_identifier) @type)
(omitting_type_annotation (type_identifier) @type)
(adding_type_annotation (type_identifier) @type)
"""
)

REFERENCES_TSX = REFERENCES_TS + _JSX


_IMPORT_KEYWORDS = (b"import", b"export", b"require")


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """ES imports, re-exports, ``require`` calls and dynamic ``import()`` of a string literal.

    ``import d, { a as b, c } from "./x"`` -> names ``[("default", "d"), ("a", "b"), ("c", "c")]``;
    ``import * as ns from "y"`` and ``import k = require("k")`` (TypeScript) -> alias;
    ``import "side"`` and ``import("./dyn")`` bind nothing; ``export { e as f } from "./z"``
    -> names ``[("e", "f")]`` (the name it is exported as), ``export * from "w"`` -> names
    ``[("*", "*")]``, ``export * as q from "v"`` -> alias ``q``. ``const r = require("./r")``
    -> alias ``r``, ``const { h, i: j } = require("t")`` -> names ``[("h", "h"), ("i", "j")]``.
    Statements span the statement, ``require`` and ``import()`` their call."""
    # The keywords are found in the text and their statements through the tree: this visits
    # only the imports, where a walk of every node would build a Python object per node.
    result: list[Import] = []
    for start, end in word_spans(source, _IMPORT_KEYWORDS):
        keyword = root.descendant_for_byte_range(start, end)
        parent = keyword.parent if keyword is not None else None
        if keyword is None or parent is None:
            continue
        if keyword.type == "import" and parent.type == "import_statement":
            found = _import_statement(parent, source)
        elif keyword.type == "export" and parent.type == "export_statement":
            found = _reexport(parent, source)
        elif keyword.type == "import" and parent.type == "import" and parent.parent is not None:
            found = _call(parent.parent, parent, source)
        elif keyword.type == "identifier" and parent.type == "call_expression" and source[start:end] == b"require":
            found = _call(parent, keyword, source)
        else:
            found = None
        if found is not None:
            result.append(found)
    return result


def _js_string(node: ts.Node | None, source: bytes) -> str | None:
    """The value of a string literal (escapes left as written), or None for anything else."""
    if node is None or node.type != "string" or node.end_byte - node.start_byte < 2:
        return None
    return source[node.start_byte + 1 : node.end_byte - 1].decode("utf-8", "replace")


def _js_name(node: ts.Node | None, source: bytes) -> str:
    """An imported or exported name: an identifier, or a string (``import { "a-b" as c }``)."""
    if node is None:
        return ""
    text = _js_string(node, source)
    return text if text is not None else source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _js_import(node: ts.Node, module: str, names: list[tuple[str, str]], alias: str | None) -> Import:
    return Import(module, node.start_point[0] + 1, node.start_point[1], node.start_byte, node.end_byte, names, alias)


def _import_statement(statement: ts.Node, source: bytes) -> Import | None:
    module = _js_string(statement.child_by_field_name("source"), source)
    names: list[tuple[str, str]] = []
    alias: str | None = None
    for child in statement.named_children:
        if child.type == "import_require_clause":
            module = _js_string(child.child_by_field_name("source"), source)
            for part in child.named_children:
                if part.type == "identifier":
                    alias = _js_name(part, source)
        elif child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    names.append(("default", _js_name(part, source)))
                elif part.type == "namespace_import":
                    for inner in part.named_children:
                        alias = _js_name(inner, source)
                elif part.type == "named_imports":
                    names.extend(_specifiers(part, "import_specifier", source))
    return _js_import(statement, module, names, alias) if module is not None else None


def _reexport(statement: ts.Node, source: bytes) -> Import | None:
    module = _js_string(statement.child_by_field_name("source"), source)
    if module is None:
        return None  # An export of the file's own names.
    names: list[tuple[str, str]] = []
    alias: str | None = None
    for child in statement.children:
        if child.type == "*":
            names.append(("*", "*"))
        elif child.type == "namespace_export":
            for inner in child.named_children:
                alias = _js_name(inner, source)
        elif child.type == "export_clause":
            names.extend(_specifiers(child, "export_specifier", source))
    return _js_import(statement, module, names, alias)


def _specifiers(clause: ts.Node, kind: str, source: bytes) -> list[tuple[str, str]]:
    pairs = []
    for specifier in clause.named_children:
        if specifier.type == kind:
            name = _js_name(specifier.child_by_field_name("name"), source)
            alias = specifier.child_by_field_name("alias")
            pairs.append((name, _js_name(alias, source) if alias is not None else name))
    return pairs


def _call(call: ts.Node, function: ts.Node, source: bytes) -> Import | None:
    """``require("x")`` or ``import("x")``, with what a declaration binds from a ``require``."""
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if call.type != "call_expression" or callee is None or callee.start_byte != function.start_byte or arguments is None:
        return None
    if arguments.named_child_count != 1:
        return None
    module = _js_string(arguments.named_children[0], source)
    if module is None:
        return None  # A computed path: nothing to resolve.
    names: list[tuple[str, str]] = []
    alias: str | None = None
    holder = call.parent
    if function.type == "identifier" and holder is not None:
        target = None
        if holder.type == "variable_declarator" and holder.child_by_field_name("value") == call:
            target = holder.child_by_field_name("name")
        elif holder.type == "assignment_expression" and holder.child_by_field_name("right") == call:
            target = holder.child_by_field_name("left")
        if target is not None and target.type == "identifier":
            alias = _js_name(target, source)
        elif target is not None and target.type == "object_pattern":
            for part in target.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    name = _js_name(part, source)
                    names.append((name, name))
                elif part.type == "pair_pattern":
                    key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                    if key is not None and value is not None and value.type == "identifier":
                        names.append((_js_name(key, source), _js_name(value, source)))
    return _js_import(call, module, names, alias)


# The hooks the three grammars share (query.c reads the owner and imports hooks' rules itself:
# see Spec.native_owner).
_HOOKS: dict[str, Any] = {"owner": _prototype_owner, "imports": _imports, "native_owner": "js-prototype", "native_imports": "javascript"}

JAVASCRIPT = Spec(
    language="javascript",
    grammar="javascript",
    query=_COMMON,
    references=REFERENCES_JS,
    **_HOOKS,
)
TYPESCRIPT = Spec(
    language="typescript",
    grammar="typescript",
    query=_COMMON + _TYPESCRIPT,
    references=REFERENCES_TS,
    **_HOOKS,
)
TSX = Spec(
    language="typescript",
    grammar="tsx",
    query=_COMMON + _TYPESCRIPT,
    references=REFERENCES_TSX,
    **_HOOKS,
)
