"""C#: namespaces, classes, records, structs, interfaces, enums, delegates, methods,
constructors, properties (``N.M.Class.Method``)."""

from __future__ import annotations

from rdx.polyglot.engine import Spec

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

SPEC = Spec(language="csharp", grammar="csharp", query=QUERY)
