"""C and C++: functions (through pointer declarators), structs, unions, enums, typedefs,
macros; in C++ also classes, namespaces, methods defined in or out of their class
(``ns::Class::method``)."""

from __future__ import annotations

import re

import tree_sitter as ts

from rdx.languages.engine import Spec
from rdx.languages.symbols import Import

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


# References (see Spec.references). Calls: ``f()`` and, through a field, ``s.f()`` or
# ``ops->f()`` (qualifier ``s``, ``ops``). Types: every ``type:`` field holding a
# type_identifier (declarations, parameters, fields, casts, ``sizeof``, return types); the
# names a typedef or a struct defines sit in other fields, so the field alone tells a use
# from a definition. ``struct s *p`` names a struct without defining it: the specifier with
# no body is a use.
_C_CALLS = """
(call_expression function: (identifier) @call)
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @call))
"""

_C_TYPES = """
(struct_specifier !body name: (type_identifier) @type)
(union_specifier !body name: (type_identifier) @type)
(enum_specifier !body name: (type_identifier) @type)
(_ type: (type_identifier) @type)
"""

REFERENCES_C = _C_CALLS + _C_TYPES

# C++ adds scoped calls (``ns::f()``, ``Foo::bar()``), template calls (``f<T>()``,
# ``obj.get<T>()``; the four ``*_cast`` keywords, which the grammar reads as template calls,
# are left out), constructions (``new Foo``, ``new ns::Foo<T>(...)``) as calls of the type,
# bases (``class A : public B, ns::C<T>``), qualified and template types. The grammar nests
# ``a::b::f`` from the right (``a`` then ``b::f``): no node spans ``a::b``, so the qualifier is
# the scope nearest the name (``b``). The call and base patterns come first: the engine keeps
# the first match of a name, and a match that starts at an enclosing node comes out first.
# (``#not-match?`` rather than ``#not-any-of?``: py-tree-sitter 0.26 ignores the latter.)
REFERENCES_CPP = (
    _C_CALLS
    + """
(call_expression function: (qualified_identifier scope: (_)? @qualifier name: (identifier) @call))
(call_expression function: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @call)))
(call_expression function: (template_function name: (identifier) @call) (#not-match? @call "^(static|dynamic|const|reinterpret)_cast$"))
(call_expression function: (qualified_identifier scope: (_)? @qualifier name: (template_function name: (identifier) @call)))
(call_expression function: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: (template_function name: (identifier) @call))))
(call_expression function: (field_expression argument: (_) @qualifier field: (template_method name: (field_identifier) @call)))
(new_expression type: (type_identifier) @call)
(new_expression type: (qualified_identifier scope: (_)? @qualifier name: (type_identifier) @call))
(new_expression type: (template_type name: (type_identifier) @call))
(new_expression type: (qualified_identifier scope: (_)? @qualifier name: (template_type name: (type_identifier) @call)))
(base_class_clause (type_identifier) @base)
(base_class_clause (qualified_identifier scope: (_)? @qualifier name: (type_identifier) @base))
(base_class_clause (template_type name: (type_identifier) @base))
(base_class_clause (qualified_identifier scope: (_)? @qualifier name: (template_type name: (type_identifier) @base)))
(qualified_identifier scope: (_)? @qualifier name: (type_identifier) @type)
(qualified_identifier scope: (_)? @qualifier name: (template_type name: (type_identifier) @type))
(template_type name: (type_identifier) @type)
(class_specifier !body name: (type_identifier) @type)
(_ default_type: (type_identifier) @type)
(dependent_type (type_identifier) @type)
(placeholder_type_specifier constraint: (type_identifier) @type)
(friend_declaration (type_identifier) @type)
"""
    + _C_TYPES
)


_INCLUDE = re.compile(rb"#[ \t]*include\b")


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """``#include "x"`` (module ``x``) and ``#include <x>`` (module ``x``, system), wherever
    they are (inside ``#ifdef`` blocks too); an include of a macro names no file and is left
    out. Each spans its directive."""
    # The directives are found in the text and their nodes through the tree: this visits
    # only the includes, where a walk of every node would build a Python object per node.
    result: list[Import] = []
    for match in _INCLUDE.finditer(source):
        token = root.descendant_for_byte_range(match.start(), match.end())
        directive = token.parent if token is not None else None
        if directive is None or directive.type != "preproc_include":
            continue
        path = directive.child_by_field_name("path")
        if path is None or path.type not in ("string_literal", "system_lib_string") or path.end_byte - path.start_byte < 2:
            continue
        module = source[path.start_byte + 1 : path.end_byte - 1].decode("utf-8", "replace")
        # The directive's node ends after its newline: the import ends with its path.
        result.append(
            Import(
                module,
                directive.start_point[0] + 1,
                directive.start_point[1],
                directive.start_byte,
                path.end_byte,
                [],
                None,
                path.type == "system_lib_string",
            )
        )
    return result


# (The native query runner reads ``_imports``'s rule itself for C files: see Spec.native_imports.)
C = Spec(language="c", grammar="c", query=_FUNCTIONS, separator="::", references=REFERENCES_C, imports=_imports, native_imports="c")
CPP = Spec(
    language="cpp", grammar="cpp", query=_FUNCTIONS + _CPP, separator="::", owner=_scope, references=REFERENCES_CPP, imports=_imports
)
