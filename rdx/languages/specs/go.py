"""Go: types (structs, interfaces, other named types, aliases), functions, methods (qualified
by their receiver type: ``pkg.Type.Method``), interface methods, struct fields, constants."""

from __future__ import annotations

import tree_sitter as ts

from rdx.languages.engine import Spec
from rdx.languages.symbols import Import

QUERY = """
(type_spec name: (type_identifier) @name type: (struct_type)) @struct
(type_spec name: (type_identifier) @name type: (interface_type)) @interface
(type_spec name: (type_identifier) @name) @type
(type_alias name: (type_identifier) @name) @type
(function_declaration name: (identifier) @name) @function
(method_declaration name: (field_identifier) @name) @method
(method_elem name: (field_identifier) @name) @method
(field_declaration name: (field_identifier) @name) @field
(const_spec name: (identifier) @name) @constant
"""


def _package(root: ts.Node, source: bytes) -> str | None:
    # Child by child: ``root.named_children`` would build a node for every declaration.
    for index in range(root.named_child_count):
        child = root.named_child(index)
        if child is not None and child.type == "package_clause":
            part = child.named_child(0)
            if part is not None:
                return source[part.start_byte : part.end_byte].decode("utf-8", "replace")
    return None


def _receiver(node: ts.Node, source: bytes) -> str | None:
    """The receiver's type name of a method declaration (``*T``, ``T[K]`` -> ``T``)."""
    if node.type != "method_declaration":
        return None
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return None
    stack = list(receiver.named_children)
    while stack:
        current = stack.pop(0)
        if current.type == "type_identifier":
            return source[current.start_byte : current.end_byte].decode("utf-8", "replace")
        stack = list(current.named_children) + stack
    return None


# References (see Spec.references). Calls: ``f()``, ``pkg.F()`` and ``a.b.M()`` (qualifier
# ``pkg``, ``a.b``: the grammar cannot tell a package from a value), and ``F[T](x)``, which
# the grammar reads as a conversion to a generic type but is far more often a call of a
# generic function (a conversion ``T(x)`` is a call too, as Go's grammar writes it).
# Bases: embedded struct fields (a field without a name) and embedded interfaces (an
# interface element that is one type, not a union). They come before the type patterns: the
# engine keeps the first match of a name, and matches that start at an enclosing node come
# out first.
# Types: a type's name at its definition is a type_identifier too, and a query cannot say
# "not in a name field", so the places a type is used are listed: fields of those names on
# any node (tree-sitter matches ``(_ type: ...)`` from the child, as cheaply as a named
# parent) and the unnamed slots. On Go's standard library this leaves out only definitions
# and parse errors. Predeclared types (``int``, ``error``) are references like any other:
# Go lets a package shadow them, so only resolution can say which is meant.
REFERENCES = """
(call_expression function: (identifier) @call)
(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @call))
(call_expression function: (index_expression operand: (identifier) @call))
(call_expression function: (index_expression operand: (selector_expression operand: (_) @qualifier field: (field_identifier) @call)))
(type_conversion_expression type: (generic_type type: (type_identifier) @call))
(type_conversion_expression type: (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @call)))
(field_declaration !name type: (type_identifier) @base)
(field_declaration !name type: (qualified_type package: (_) @qualifier name: (type_identifier) @base))
(field_declaration !name type: (generic_type type: (type_identifier) @base))
(field_declaration !name type: (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @base)))
(interface_type (type_elem . (type_identifier) @base .))
(interface_type (type_elem . (qualified_type package: (_) @qualifier name: (type_identifier) @base) .))
(interface_type (type_elem . (generic_type type: (type_identifier) @base) .))
(interface_type (type_elem . (generic_type type: (qualified_type package: (_) @qualifier name: (type_identifier) @base)) .))
(qualified_type package: (_) @qualifier name: (type_identifier) @type)
(_ type: (type_identifier) @type)
(_ element: (type_identifier) @type)
(_ key: (type_identifier) @type)
(_ value: (type_identifier) @type)
(_ result: (type_identifier) @type)
(pointer_type (type_identifier) @type)
(type_elem (type_identifier) @type)
(negated_type (type_identifier) @type)
(type_constraint (type_identifier) @type)
(parenthesized_type (type_identifier) @type)
(argument_list (type_identifier) @type)
(type_instantiation_expression (type_identifier) @type)
"""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """One import per spec: module is the import path (``net/http``); alias is the name
    written before it (``f``, ``.`` or ``_``), else None (the package clause of the imported
    package names it, which only resolution can read). Each spans its spec."""
    result: list[Import] = []
    # Imports come first in a Go file, right after the package clause: the walk stops at the
    # first other declaration instead of visiting the whole file.
    for index in range(root.named_child_count):
        declaration = root.named_child(index)
        if declaration is None:
            break
        if declaration.type in ("package_clause", "comment"):
            continue
        if declaration.type != "import_declaration":
            break
        specs = [declaration]
        while specs:
            node = specs.pop()
            if node.type in ("import_declaration", "import_spec_list"):
                specs.extend(reversed(node.named_children))
            elif node.type == "import_spec":
                path = node.child_by_field_name("path")
                name = node.child_by_field_name("name")
                if path is None or path.end_byte - path.start_byte < 2:
                    continue
                module = source[path.start_byte + 1 : path.end_byte - 1].decode("utf-8", "replace")
                alias = source[name.start_byte : name.end_byte].decode("utf-8", "replace") if name is not None else None
                result.append(Import(module, node.start_point[0] + 1, node.start_point[1], node.start_byte, node.end_byte, [], alias))
    return result


SPEC = Spec(
    language="go",
    grammar="go",
    query=QUERY,
    module=_package,
    owner=_receiver,
    references=REFERENCES,
    imports=_imports,
    native_owner="go-receiver",
    native_imports="go",
)
