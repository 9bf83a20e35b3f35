"""JavaScript, TypeScript and TSX: classes, functions (declared, bound to a name, or named
function expressions), methods (in classes, on prototypes: ``Foo.prototype.bar = function``,
and object-literal members that are functions), interfaces, type aliases, enums, namespaces."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

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


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES_JS = ""
REFERENCES_TS = ""
REFERENCES_TSX = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


JAVASCRIPT = Spec(
    language="javascript", grammar="javascript", query=_COMMON, owner=_prototype_owner, references=REFERENCES_JS, imports=_imports
)
TYPESCRIPT = Spec(
    language="typescript",
    grammar="typescript",
    query=_COMMON + _TYPESCRIPT,
    owner=_prototype_owner,
    references=REFERENCES_TS,
    imports=_imports,
)
TSX = Spec(
    language="typescript", grammar="tsx", query=_COMMON + _TYPESCRIPT, owner=_prototype_owner, references=REFERENCES_TSX, imports=_imports
)
