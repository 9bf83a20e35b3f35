"""Python: classes, functions (methods inside classes), module-level constants; docstrings."""

from __future__ import annotations

import ast

import tree_sitter as ts

from rdx.languages.engine import Spec, word_spans
from rdx.languages.symbols import Import

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
    # (``named_child(0)``, not ``named_children[0]``: the latter builds every statement's node.)
    body = node.child_by_field_name("body")
    if body is None or body.named_child_count == 0:  # (``class A:`` at the end of a file)
        return None
    first = body.named_child(0)
    if first.type == "expression_statement" and first.named_child_count == 1:
        first = first.named_child(0)  # Older grammars wrap the string in a statement.
    if first is None or first.type != "string":
        return None
    try:
        value = ast.literal_eval(source[first.start_byte : first.end_byte].decode("utf-8", "replace"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value.strip() if isinstance(value, str) and value.strip() else None


_IMPORT_KEYWORD = (b"import",)


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """The file's imports, wherever they are (a function body, ``try``, ``if TYPE_CHECKING``).

    ``import a.b`` -> module ``a.b`` (no alias: it binds ``a``, not the module);
    ``import a.b as c`` -> alias ``c``; ``from ..pkg.mod import a as b, c`` -> module
    ``..pkg.mod`` (the leading dots kept), names ``[("a", "b"), ("c", "c")]``;
    ``from m import *`` -> names ``[("*", "*")]``. An ``import`` statement gives one import
    per module, each spanning its own clause (``a.b as c``); a ``from`` import spans its
    statement."""
    # The keyword is found in the text and its statement through the tree: this visits only
    # the imports, where a walk of the whole tree would build a Python object per node.
    result: list[Import] = []
    for start, end in word_spans(source, _IMPORT_KEYWORD):
        keyword = root.descendant_for_byte_range(start, end)
        statement = keyword.parent if keyword is not None and keyword.type == "import" else None
        if statement is None:
            continue
        if statement.type == "import_statement":
            for clause in statement.children_by_field_name("name"):
                if clause.type == "aliased_import":
                    dotted, alias = clause.child_by_field_name("name"), clause.child_by_field_name("alias")
                    if dotted is not None and alias is not None:
                        result.append(_import(clause, _py_text(dotted, source), alias=_py_text(alias, source)))
                elif clause.type == "dotted_name":
                    result.append(_import(clause, _py_text(clause, source)))
        elif statement.type in ("import_from_statement", "future_import_statement"):
            module_node = statement.child_by_field_name("module_name")
            module = _py_text(module_node, source) if module_node is not None else "__future__"
            names: list[tuple[str, str]] = []
            for child in statement.named_children:
                if child.type == "wildcard_import":
                    names.append(("*", "*"))
            for clause in statement.children_by_field_name("name"):
                if clause.type == "aliased_import":
                    name, alias = clause.child_by_field_name("name"), clause.child_by_field_name("alias")
                    if name is not None and alias is not None:
                        names.append((_py_text(name, source), _py_text(alias, source)))
                elif clause.type == "dotted_name":
                    text = _py_text(clause, source)
                    names.append((text, text))
            result.append(_import(statement, module, names))
    return result


def _py_text(node: ts.Node, source: bytes) -> str:
    """A dotted name as Python reads it (``a . b`` is legal and means ``a.b``)."""
    return "".join(source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _import(node: ts.Node, module: str, names: list[tuple[str, str]] | None = None, alias: str | None = None) -> Import:
    return Import(module, node.start_point[0] + 1, node.start_point[1], node.start_byte, node.end_byte, names or [], alias)


SPEC = Spec(
    language="python",
    grammar="python",
    query=QUERY,
    doc=_docstring,
    references=REFERENCES,
    imports=_imports,
    native_doc="python-docstring",
    native_imports="python",
)
