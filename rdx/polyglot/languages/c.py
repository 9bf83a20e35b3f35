"""C and C++: functions (through pointer declarators), structs, unions, enums, typedefs,
macros; in C++ also classes, namespaces, methods defined in or out of their class
(``ns::Class::method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

_FUNCTIONS = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @function
(function_definition declarator: (parenthesized_declarator (function_declarator declarator: (identifier) @name))) @function
(struct_specifier name: (type_identifier) @name body: (_)) @struct
(union_specifier name: (type_identifier) @name body: (_)) @struct
(enum_specifier name: (type_identifier) @name body: (_)) @enum
(type_definition declarator: (type_identifier) @name) @type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @type
(type_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))) @type
(type_definition declarator: (function_declarator declarator: (type_identifier) @name)) @type
(type_definition declarator: (array_declarator declarator: (type_identifier) @name)) @type
(preproc_def name: (identifier) @name) @constant
(preproc_function_def name: (identifier) @name) @function
(enumerator name: (identifier) @name) @constant
"""

_CPP = """
(class_specifier name: (type_identifier) @name body: (_)) @class
(namespace_definition name: (namespace_identifier) @name) @namespace
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @function
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @function
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (identifier) @name)))) @function
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (destructor_name) @name))) @function
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)) @function
(function_definition declarator: (function_declarator declarator: (operator_name) @name)) @function
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @method
(alias_declaration name: (type_identifier) @name) @type
"""


def _scope(node: ts.Node, source: bytes) -> str | None:
    """For ``void ns::Class::m() {}``: ``ns::Class``."""
    if node.type != "function_definition":
        return None
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    target = declarator.child_by_field_name("declarator") if declarator is not None else None
    if target is None or target.type != "qualified_identifier":
        return None
    scopes = []
    while target is not None and target.type == "qualified_identifier":
        scope = target.child_by_field_name("scope")
        if scope is not None:
            scopes.append(source[scope.start_byte : scope.end_byte].decode("utf-8", "replace"))
        target = target.child_by_field_name("name")
    return "::".join(scopes) or None


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES_C = ""
REFERENCES_CPP = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


C = Spec(language="c", grammar="c", query=_FUNCTIONS, separator="::", references=REFERENCES_C, imports=_imports)
CPP = Spec(
    language="cpp", grammar="cpp", query=_FUNCTIONS + _CPP, separator="::", owner=_scope, references=REFERENCES_CPP, imports=_imports
)
