"""PHP: namespaces, classes, interfaces, traits, enums, functions, methods, class constants
(``App\\Models\\User::save``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.languages.engine import Spec, word_spans
from rdx.languages.symbols import Import

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


# References (see Spec.references). Calls: ``f()``, ``A\f()`` (qualifier ``A``),
# ``$a->m()``, ``$a?->m()`` (qualifier ``$a``), ``Foo::m()``, ``self::m()`` (qualifier ``Foo``,
# ``self``) and ``new Foo``, ``new \A\Foo()`` as calls of the class (``new static`` and its
# kin name no class). A qualified name's qualifier is its namespace part without the
# leading ``\`` (the grammar keeps that separator outside the namespace node); a scope
# (``\A\Foo::m()``) is kept as written. Bases: ``extends``, ``implements`` and traits a
# class ``use``s. Types: named types in parameters, returns, properties and ``catch``, and
# the class ``instanceof`` tests. The calls and bases come before the types: the engine keeps
# the first match of a name, and a match that starts at an enclosing node comes out first.
REFERENCES = """
(function_call_expression function: (name) @call)
(function_call_expression function: (qualified_name prefix: (_)? @qualifier (name) @call))
(member_call_expression object: (_) @qualifier name: (name) @call)
(nullsafe_member_call_expression object: (_) @qualifier name: (name) @call)
(scoped_call_expression scope: (_) @qualifier name: (name) @call)
(object_creation_expression (name) @call (#not-match? @call "^(static|self|parent)$"))
(object_creation_expression (qualified_name prefix: (_)? @qualifier (name) @call))
(base_clause (name) @base)
(base_clause (qualified_name prefix: (_)? @qualifier (name) @base))
(class_interface_clause (name) @base)
(class_interface_clause (qualified_name prefix: (_)? @qualifier (name) @base))
(use_declaration (name) @base)
(use_declaration (qualified_name prefix: (_)? @qualifier (name) @base))
(binary_expression operator: "instanceof" right: (name) @type)
(binary_expression operator: "instanceof" right: (qualified_name prefix: (_)? @qualifier (name) @type))
(named_type (name) @type)
(named_type (qualified_name prefix: (_)? @qualifier (name) @type))
"""


_PHP_IMPORTS = (b"use", b"require", b"require_once", b"include", b"include_once")
_PHP_FILE_EXPRESSIONS = frozenset({"require_expression", "require_once_expression", "include_expression", "include_once_expression"})


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """Namespace ``use`` clauses and ``require``/``include`` of a literal path.

    A ``use`` module is the fully qualified namespace, always with its leading backslash,
    and names the last segment: ``use App\\Models\\User as U;`` -> module ``\\App\\Models``,
    names ``[("User", "U")]`` (``use function``/``use const`` alike; a group gives one import
    per clause). A ``require``/``include`` module is the file path as written, never starting
    with a backslash; ``__DIR__ . "/x.php"`` and ``dirname(__FILE__) . "/x.php"`` are written
    ``__DIR__/x.php``; any other computed path is left out. A trait ``use`` inside a class is
    no import. Each spans its clause or its expression."""
    # The keywords are found in the text and their statements through the tree: this visits
    # only the imports, where a walk of every node would build a Python object per node.
    result: list[Import] = []
    for start, end in word_spans(source, _PHP_IMPORTS):
        keyword = root.descendant_for_byte_range(start, end)
        parent = keyword.parent if keyword is not None else None
        if keyword is None or parent is None or keyword.is_named:
            continue
        if parent.type == "namespace_use_declaration":
            result.extend(_use_clauses(parent, source))
        elif parent.type in _PHP_FILE_EXPRESSIONS and parent.named_child_count:
            path = _php_path(parent.named_children[0], source)
            if path is not None:
                result.append(_php_import(parent, path, []))
    return result


def _php_text(node: ts.Node, source: bytes) -> str:
    return "".join(source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _php_import(node: ts.Node, module: str, names: list[tuple[str, str]]) -> Import:
    return Import(module, node.start_point[0] + 1, node.start_point[1], node.start_byte, node.end_byte, names)


def _use_clauses(declaration: ts.Node, source: bytes) -> list[Import]:
    prefix = ""
    clauses: list[ts.Node] = []
    for child in declaration.named_children:
        if child.type == "namespace_name":
            prefix = _php_text(child, source).strip("\\")  # A group's common namespace.
        elif child.type == "namespace_use_clause":
            clauses.append(child)
        elif child.type == "namespace_use_group":
            clauses.extend(c for c in child.named_children if c.type == "namespace_use_clause")
    result = []
    for clause in clauses:
        alias = clause.child_by_field_name("alias")
        path = next((c for c in clause.named_children if c.type in ("qualified_name", "name") and c != alias), None)
        if path is None:
            continue
        parts = [p for p in (prefix + "\\" + _php_text(path, source)).split("\\") if p]
        if not parts:
            continue
        local = _php_text(alias, source) if alias is not None else parts[-1]
        result.append(_php_import(clause, "\\" + "\\".join(parts[:-1]), [(parts[-1], local)]))
    return result


def _php_literal(node: ts.Node, source: bytes) -> str | None:
    """A string without interpolation, or None."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type not in ("string", "encapsed_string"):
        return None
    if any(c.type not in ("string_content", "escape_sequence") for c in node.named_children):
        return None
    return "".join(source[c.start_byte : c.end_byte].decode("utf-8", "replace") for c in node.named_children)


def _php_path(node: ts.Node, source: bytes) -> str | None:
    """The path a ``require`` names: a literal, or the file's directory joined to one."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type != "binary_expression":
        return _php_literal(node, source)
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return None
    left_text = _php_text(left, source)
    if left_text not in ("__DIR__", "dirname(__FILE__)"):
        return None
    rest = _php_literal(right, source)
    return None if rest is None else "__DIR__/" + rest.lstrip("/")


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
