"""Java: classes, records, interfaces, annotation types, enums (and their constants),
methods, constructors, fields; qualified from the package (``a.b.Class.method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.languages.engine import Spec
from rdx.languages.symbols import Import

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


# References (see Spec.references). Calls: ``m()``, ``a.b.m()`` (qualifier ``a.b``) and
# ``new Foo()``, ``new a.Foo<T>()`` as calls of the type. Bases: ``extends`` and
# ``implements`` of classes, records and enums, an interface's ``extends``. A type is a
# type_identifier, a scoped one (``Map.Entry``, ``java.io.File``: its last name, qualified by
# its first child, which holds the rest) or either with type arguments. The patterns start
# at the slot a type fills (a ``type:`` field, a type list, ``throws``...), not at every
# scoped_type_identifier: those nest (``java.io`` inside ``java.io.File``) and the inner ones
# name packages, not types; a type parameter's own name (``<T>``) fills no slot. ``var`` is
# a keyword the grammar reads as a type name. Calls and bases come first: the engine keeps
# the first match of a name, and a match that starts at an enclosing node comes out first.
# Not captured: method references (``Foo::bar``) and annotations.
REFERENCES = """
(method_invocation object: (_)? @qualifier name: (identifier) @call)
(object_creation_expression type: (type_identifier) @call)
(object_creation_expression type: (scoped_type_identifier . (_) @qualifier (type_identifier) @call .))
(object_creation_expression type: (generic_type . (type_identifier) @call))
(object_creation_expression type: (generic_type . (scoped_type_identifier . (_) @qualifier (type_identifier) @call .)))
(superclass (type_identifier) @base)
(superclass (scoped_type_identifier . (_) @qualifier (type_identifier) @base .))
(superclass (generic_type . (type_identifier) @base))
(superclass (generic_type . (scoped_type_identifier . (_) @qualifier (type_identifier) @base .)))
(super_interfaces (type_list (type_identifier) @base))
(super_interfaces (type_list (scoped_type_identifier . (_) @qualifier (type_identifier) @base .)))
(super_interfaces (type_list (generic_type . (type_identifier) @base)))
(super_interfaces (type_list (generic_type . (scoped_type_identifier . (_) @qualifier (type_identifier) @base .))))
(extends_interfaces (type_list (type_identifier) @base))
(extends_interfaces (type_list (scoped_type_identifier . (_) @qualifier (type_identifier) @base .)))
(extends_interfaces (type_list (generic_type . (type_identifier) @base)))
(extends_interfaces (type_list (generic_type . (scoped_type_identifier . (_) @qualifier (type_identifier) @base .))))
(generic_type . (type_identifier) @type)
(generic_type . (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(_ type: (type_identifier) @type (#not-eq? @type "var"))
(_ type: (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(_ element: (type_identifier) @type)
(_ element: (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(instanceof_expression right: (type_identifier) @type)
(instanceof_expression right: (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(type_arguments (type_identifier) @type)
(type_arguments (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(type_list (type_identifier) @type)
(type_list (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(throws (type_identifier) @type)
(throws (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(type_bound (type_identifier) @type)
(type_bound (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(wildcard (type_identifier) @type)
(wildcard (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(catch_type (type_identifier) @type)
(catch_type (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(spread_parameter (type_identifier) @type)
(spread_parameter (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(class_literal (type_identifier) @type)
(class_literal (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
(annotated_type (type_identifier) @type)
(annotated_type (scoped_type_identifier . (_) @qualifier (type_identifier) @type .))
"""


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """Import declarations (top level only, where Java allows them). The last segment is the
    name imported from the rest: ``import a.b.C;`` -> module ``a.b``, names ``[("C", "C")]``;
    ``import static a.b.C.m;`` -> module ``a.b.C``, names ``[("m", "m")]``; a wildcard keeps
    the whole path: ``import a.b.*;`` -> module ``a.b``, names ``[("*", "*")]`` (a static one
    too: ``a.b.C``). Each spans its declaration."""
    result: list[Import] = []
    for declaration in root.named_children:
        if declaration.type != "import_declaration":
            continue
        path: str | None = None
        wildcard = False
        for part in declaration.named_children:
            if part.type in ("scoped_identifier", "identifier"):
                path = "".join(source[part.start_byte : part.end_byte].decode("utf-8", "replace").split())
            elif part.type == "asterisk":
                wildcard = True
        if not path:
            continue
        if wildcard:
            module, names = path, [("*", "*")]
        else:
            module, _, name = path.rpartition(".")
            names = [(name, name)]
        result.append(
            Import(module, declaration.start_point[0] + 1, declaration.start_point[1], declaration.start_byte, declaration.end_byte, names)
        )
    return result


SPEC = Spec(language="java", grammar="java", query=QUERY, module=_package, references=REFERENCES, imports=_imports)
