"""C#: namespaces, classes, records, structs, interfaces, enums, delegates, methods,
constructors, properties (``N.M.Class.Method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.languages.engine import Spec, word_spans
from rdx.languages.symbols import Import

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


# References (see Spec.references). Calls: ``M()``, ``M<T>()``, ``a.b.M()`` (qualifier
# ``a.b``; ``this`` and ``base`` are keywords, hence ``_`` rather than ``(_)``), ``a?.M()`` and
# ``new Foo()``, ``new N.Foo<T>()`` as calls of the type. Bases: the base list of classes,
# structs, interfaces and records (``record R(int X) : Base(X)`` too). A type is an
# identifier, a generic name (``List<T>``: its identifier) or a qualified name (``N.M.Foo``:
# its last name, qualified by the rest). Identifiers are every name in C#, so types are only
# taken where a type goes: ``type:`` and ``returns:`` fields (tree-sitter matches
# ``(_ type: ...)`` from the child, as cheaply as a named parent), type argument lists and
# ``as``; the outermost qualified name only (the inner ``N.M`` is a namespace). ``x is Foo``
# is left out: the grammar reads it as a constant pattern, a value as often as a type. Calls
# and bases come first: the engine keeps the first match of a name, and a match that starts
# at an enclosing node comes out first.
REFERENCES = """
(invocation_expression function: (identifier) @call)
(invocation_expression function: (generic_name . (identifier) @call))
(invocation_expression function: (member_access_expression expression: _ @qualifier name: (identifier) @call))
(invocation_expression function: (member_access_expression expression: _ @qualifier name: (generic_name . (identifier) @call)))
(invocation_expression function: (conditional_access_expression condition: (_) @qualifier (member_binding_expression name: (identifier) @call)))
(invocation_expression function: (conditional_access_expression condition: (_) @qualifier (member_binding_expression name: (generic_name . (identifier) @call))))
(object_creation_expression type: (identifier) @call)
(object_creation_expression type: (generic_name . (identifier) @call))
(object_creation_expression type: (qualified_name qualifier: (_) @qualifier name: (identifier) @call))
(object_creation_expression type: (qualified_name qualifier: (_) @qualifier name: (generic_name . (identifier) @call)))
(base_list (identifier) @base)
(base_list (generic_name . (identifier) @base))
(base_list (qualified_name qualifier: (_) @qualifier name: (identifier) @base))
(base_list (qualified_name qualifier: (_) @qualifier name: (generic_name . (identifier) @base)))
(primary_constructor_base_type type: (identifier) @base)
(primary_constructor_base_type type: (generic_name . (identifier) @base))
(primary_constructor_base_type type: (qualified_name qualifier: (_) @qualifier name: (identifier) @base))
(_ type: (identifier) @type)
(_ type: (generic_name . (identifier) @type))
(_ type: (qualified_name qualifier: (_) @qualifier name: (identifier) @type))
(_ type: (qualified_name qualifier: (_) @qualifier name: (generic_name . (identifier) @type)))
(_ returns: (identifier) @type)
(_ returns: (generic_name . (identifier) @type))
(_ returns: (qualified_name qualifier: (_) @qualifier name: (identifier) @type))
(_ returns: (qualified_name qualifier: (_) @qualifier name: (generic_name . (identifier) @type)))
(as_expression right: (identifier) @type)
(as_expression right: (generic_name . (identifier) @type))
(type_argument_list (identifier) @type)
(type_argument_list (generic_name . (identifier) @type))
(type_argument_list (qualified_name qualifier: (_) @qualifier name: (identifier) @type))
(type_argument_list (qualified_name qualifier: (_) @qualifier name: (generic_name . (identifier) @type)))
"""


_USING = (b"using",)


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """Using directives, at the top or inside a namespace (``global`` ones too):
    ``using A.B;`` -> module ``A.B``; ``using X = A.B;`` -> module ``A.B``, alias ``X``;
    ``using static A.C;`` (the type's static members) -> module ``A.C``, names
    ``[("*", "*")]``. ``using`` statements and declarations in code are not imports. Each
    spans its directive."""
    # The keyword is found in the text and its directive through the tree: this visits only
    # the directives, where a walk of every node would build a Python object per node.
    result: list[Import] = []
    for start, end in word_spans(source, _USING):
        keyword = root.descendant_for_byte_range(start, end)
        directive = keyword.parent if keyword is not None and keyword.type == "using" else None
        if directive is None or directive.type != "using_directive":
            continue
        alias_node = directive.child_by_field_name("name")
        target = None
        static = False
        for child in directive.children:
            if child.type == "static":
                static = True
            elif (
                child.is_named
                and child != alias_node
                and child.type in ("identifier", "qualified_name", "alias_qualified_name", "generic_name")
            ):
                target = child
        if target is None:
            continue
        module = "".join(source[target.start_byte : target.end_byte].decode("utf-8", "replace").split())
        alias = source[alias_node.start_byte : alias_node.end_byte].decode("utf-8", "replace") if alias_node is not None else None
        names = [("*", "*")] if static else []
        result.append(
            Import(module, directive.start_point[0] + 1, directive.start_point[1], directive.start_byte, directive.end_byte, names, alias)
        )
    return result


SPEC = Spec(language="csharp", grammar="csharp", query=QUERY, references=REFERENCES, imports=_imports)
