"""PHP: namespaces, classes, interfaces, traits, enums, functions, methods, class constants
(``App\\Models\\User::save``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

QUERY = """
(namespace_definition name: (namespace_name) @name body: (_)) @namespace
(class_declaration name: (name) @name) @class
(interface_declaration name: (name) @name) @interface
(trait_declaration name: (name) @name) @trait
(enum_declaration name: (name) @name) @enum
(function_definition name: (name) @name) @function
(method_declaration name: (name) @name) @method
(const_element (name) @name) @constant
(enum_case name: (name) @name) @constant
"""


def _namespace(root: ts.Node, source: bytes) -> str | None:
    """``namespace App\\Models;`` (no braces) names everything after it in the file."""
    for child in root.named_children:
        if child.type == "namespace_definition" and child.child_by_field_name("body") is None:
            name = child.child_by_field_name("name")
            if name is not None:
                return source[name.start_byte : name.end_byte].decode("utf-8", "replace")
    return None


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


SPEC = Spec(
    module=_namespace,
    language="php",
    grammar="php",
    query=QUERY,
    separator="\\",
    member_separator="::",
    references=REFERENCES,
    imports=_imports,
)
