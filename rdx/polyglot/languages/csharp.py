"""C#: namespaces, classes, records, structs, interfaces, enums, delegates, methods,
constructors, properties (``N.M.Class.Method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

QUERY = """
(namespace_declaration name: (_) @name) @namespace
(file_scoped_namespace_declaration name: (_) @name) @namespace
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(struct_declaration name: (identifier) @name) @struct
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(delegate_declaration name: (identifier) @name) @type
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @method
(property_declaration name: (identifier) @name) @field
(enum_member_declaration name: (identifier) @name) @constant
"""


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


SPEC = Spec(language="csharp", grammar="csharp", query=QUERY, references=REFERENCES, imports=_imports)
