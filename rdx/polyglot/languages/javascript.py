"""JavaScript, TypeScript and TSX: classes, functions (declared, or a const bound to an arrow
function or function expression), methods, interfaces, type aliases, enums, namespaces."""

from __future__ import annotations

from rdx.polyglot.engine import Spec

_COMMON = """
(class_declaration name: (_) @name) @class
(class name: (_) @name) @class
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(method_definition name: (_) @name) @method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @function
"""

_TYPESCRIPT = """
(abstract_class_declaration name: (type_identifier) @name) @class
(interface_declaration name: (type_identifier) @name) @interface
(type_alias_declaration name: (type_identifier) @name) @type
(enum_declaration name: (identifier) @name) @enum
(internal_module name: (_) @name) @namespace
(module name: (_) @name) @namespace
(method_signature name: (_) @name) @method
(abstract_method_signature name: (_) @name) @method
(function_signature name: (identifier) @name) @function
"""

JAVASCRIPT = Spec(language="javascript", grammar="javascript", query=_COMMON)
TYPESCRIPT = Spec(language="typescript", grammar="typescript", query=_COMMON + _TYPESCRIPT)
TSX = Spec(language="typescript", grammar="tsx", query=_COMMON + _TYPESCRIPT)
