"""Python: classes, functions (methods inside classes), module-level constants; docstrings."""

from __future__ import annotations

import ast

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

QUERY = """
(class_definition name: (identifier) @name) @class
(function_definition name: (identifier) @name) @function
(assignment left: (identifier) @name right: (lambda)) @function
(module (assignment left: (identifier) @name) @constant (#match? @name "^[A-Z][A-Z0-9_]*$"))
(module (expression_statement (assignment left: (identifier) @name) @constant) (#match? @name "^[A-Z][A-Z0-9_]*$"))
"""

REFERENCES = """
(call function: (identifier) @call)
(call function: (attribute object: (_) @qualifier attribute: (identifier) @call))
(class_definition superclasses: (argument_list (identifier) @base))
(class_definition superclasses: (argument_list (attribute object: (_) @qualifier attribute: (identifier) @base)))
(type (identifier) @type)
(type (attribute object: (_) @qualifier attribute: (identifier) @type))
(type (generic_type (identifier) @type))
(type (subscript value: (identifier) @type))
"""


def _docstring(node: ts.Node, source: bytes) -> str | None:
    body = node.child_by_field_name("body")
    if body is None or body.named_child_count == 0:
        return None
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_child_count == 1:
        first = first.named_children[0]  # Older grammars wrap the string in a statement.
    if first.type != "string":
        return None
    try:
        value = ast.literal_eval(source[first.start_byte : first.end_byte].decode("utf-8", "replace"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value.strip() if isinstance(value, str) and value.strip() else None


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


SPEC = Spec(language="python", grammar="python", query=QUERY, doc=_docstring, references=REFERENCES, imports=_imports)
