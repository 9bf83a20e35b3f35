"""Go: types (structs, interfaces, other named types, aliases), functions, methods (qualified
by their receiver type: ``pkg.Type.Method``), interface methods, struct fields, constants."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

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
    for child in root.named_children:
        if child.type == "package_clause":
            for part in child.named_children:
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


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


SPEC = Spec(language="go", grammar="go", query=QUERY, module=_package, owner=_receiver, references=REFERENCES, imports=_imports)
