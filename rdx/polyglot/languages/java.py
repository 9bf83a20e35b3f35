"""Java: classes, records, interfaces, annotation types, enums (and their constants),
methods, constructors, fields; qualified from the package (``a.b.Class.method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

QUERY = """
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(annotation_type_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @field
(enum_constant name: (identifier) @name) @constant
"""


def _package(root: ts.Node, source: bytes) -> str | None:
    for child in root.named_children:
        if child.type == "package_declaration":
            for part in child.named_children:
                if part.type in ("scoped_identifier", "identifier"):
                    return source[part.start_byte : part.end_byte].decode("utf-8", "replace")
    return None


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


SPEC = Spec(language="java", grammar="java", query=QUERY, module=_package, references=REFERENCES, imports=_imports)
