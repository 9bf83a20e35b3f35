"""Rust: structs, unions, enums, traits, functions (methods inside ``impl`` and ``trait``),
modules, constants, statics, type aliases, macros; ``impl Type`` qualifies its methods
(``mod::Type::method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.polyglot.engine import Spec
from rdx.polyglot.symbols import Import

QUERY = """
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(impl_item type: (type_identifier) @name) @scope
(impl_item type: (generic_type type: (type_identifier) @name)) @scope
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @scope
(impl_item type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name))) @scope
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(mod_item name: (identifier) @name) @module
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @constant
(type_item name: (type_identifier) @name) @type
(associated_type name: (type_identifier) @name) @type
(macro_definition name: (identifier) @name) @function
(enum_variant name: (identifier) @name) @constant
(field_declaration name: (field_identifier) @name) @field
"""


# References: calls, types in signatures, bases (see Spec.references). FIXME(issue 11): to be written.
REFERENCES = ""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports. FIXME(issue 11): to be written."""
    return []


SPEC = Spec(language="rust", grammar="rust", query=QUERY, separator="::", references=REFERENCES, imports=_imports)
