"""Rust: structs, unions, enums, traits, functions (methods inside ``impl`` and ``trait``),
modules, constants, statics, type aliases, macros; ``impl Type`` qualifies its methods
(``mod::Type::method``)."""

from __future__ import annotations

import tree_sitter as ts

from rdx.languages.engine import Spec, word_spans
from rdx.languages.symbols import Import

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


# References (see Spec.references). Calls: ``f()``, ``a::b::f()`` (qualifier ``a::b``),
# ``x.f()`` (qualifier ``x``) and the same with turbofish (``f::<T>()``); a path may start
# with ``::`` and then has no qualifier. Macro invocations are not calls (their arguments
# are token trees the grammar does not parse). Bases: the trait of ``impl Trait for Type``
# and a trait's supertraits (``trait A: B + c::D``); they come before the type patterns, as
# the engine keeps the first match of a name and matches that start at an enclosing node
# come out first.
# Types: a definition's name is a type_identifier too and a query cannot say "not in a name
# field", so the places a type is used are listed: fields of those names on any node
# (tree-sitter matches ``(_ type: ...)`` from the child, as cheaply as a named parent) and the
# unnamed slots. A struct literal's name (``Point { .. }``) and ``impl Type``'s type are
# types. On Debian's crates this leaves out only definitions and ``Item`` in ``Iterator<Item
# = T>`` (an associated type's name, bound there, not a type used).
REFERENCES = """
(call_expression function: (identifier) @call)
(call_expression function: (scoped_identifier path: (_)? @qualifier name: (identifier) @call))
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @call))
(call_expression function: (generic_function function: (identifier) @call))
(call_expression function: (generic_function function: (scoped_identifier path: (_)? @qualifier name: (identifier) @call)))
(call_expression function: (generic_function function: (field_expression value: (_) @qualifier field: (field_identifier) @call)))
(impl_item trait: (type_identifier) @base)
(impl_item trait: (scoped_type_identifier path: (_)? @qualifier name: (type_identifier) @base))
(impl_item trait: (generic_type type: (type_identifier) @base))
(impl_item trait: (generic_type type: (scoped_type_identifier path: (_)? @qualifier name: (type_identifier) @base)))
(trait_item bounds: (trait_bounds (type_identifier) @base))
(trait_item bounds: (trait_bounds (scoped_type_identifier path: (_)? @qualifier name: (type_identifier) @base)))
(trait_item bounds: (trait_bounds (generic_type type: (type_identifier) @base)))
(trait_item bounds: (trait_bounds (generic_type type: (scoped_type_identifier path: (_)? @qualifier name: (type_identifier) @base))))
(scoped_type_identifier path: (_)? @qualifier name: (type_identifier) @type)
(struct_expression name: (type_identifier) @type)
(_ type: (type_identifier) @type)
(_ return_type: (type_identifier) @type)
(_ element: (type_identifier) @type)
(_ trait: (type_identifier) @type)
(_ alias: (type_identifier) @type)
(where_predicate left: (type_identifier) @type)
(type_arguments (type_identifier) @type)
(trait_bounds (type_identifier) @type)
(removed_trait_bound (type_identifier) @type)
(tuple_type (type_identifier) @type)
(bounded_type (type_identifier) @type)
(function_type parameters: (parameters (type_identifier) @type))
"""


_IMPORT_KEYWORDS = (b"use", b"mod")


def _imports(root: ts.Node, source: bytes) -> list[Import]:
    """``use`` declarations, one import per path they bind, and ``mod foo;`` declarations.

    A ``use`` path splits before its last segment: module is the path to its parent, names
    the last segment and what it binds (``use crate::a::{b, c as d}`` -> module ``crate::a``
    with names ``[("b", "b")]``, then module ``crate::a`` with ``[("c", "d")]``); a glob
    keeps the whole path as module with names ``[("*", "*")]`` (``use super::x::*`` ->
    ``super::x``); ``self`` in a group stands for the group's path (``use a::b::{self}`` ->
    module ``a``, names ``[("b", "b")]``); a path of one segment binds a crate or module
    itself: module ``serde``, alias ``serde`` (``use ::std as s`` -> ``::std``, alias ``s``).
    So every ``use`` has names or an alias. A path starting with ``self`` or ``super`` is
    counted from the file's module even inside inline modules, where it is rewritten so
    (``mod tests { use super::*; }`` -> module ``self``, ``mod t { use self::h::f; }`` ->
    module ``self::t::h``): resolution then needs only the file.

    A ``mod foo;`` (without a body) has neither: module ``self::foo``, with the inline
    modules around it (``mod a { mod foo; }`` -> ``self::a::foo``). With a
    ``#[path = "p"]`` attribute, module is the file path ``p`` as written, relative to the
    file's directory (never a Rust path: it does not start with ``self::``); inside inline
    modules their names come first as directories (``mod a { #[path = "x.rs"] mod f; }`` ->
    ``a/x.rs``), which is Rust's rule for a ``mod.rs``, ``lib.rs`` or ``main.rs`` (another
    file ``b.rs`` would add ``b/`` first: FIXME, rare enough to leave unresolved). Each import
    spans its own clause (``c as d``), a ``mod`` its declaration."""
    # The keywords are found in the text and their items through the tree: this visits
    # only the imports, where a walk of every node would build a Python object per node.
    result: list[Import] = []
    for start, end in word_spans(source, _IMPORT_KEYWORDS):
        keyword = root.descendant_for_byte_range(start, end)
        item = keyword.parent if keyword is not None else None
        if keyword is None or item is None:
            continue
        if keyword.type == "use" and item.type == "use_declaration":
            argument = item.child_by_field_name("argument")
            if argument is not None:
                result.extend(_use_tree(argument, source, _inline_modules(item, source)))
        elif keyword.type == "mod" and item.type == "mod_item" and item.child_by_field_name("body") is None:
            found = _mod_declaration(item, source)
            if found is not None:
                result.append(found)
    return result


def _rust_text(node: ts.Node, source: bytes) -> str:
    return "".join(source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _rust_path(node: ts.Node, source: bytes) -> list[str]:
    """``a::b::c`` -> ``["a", "b", "c"]``; ``::std::io`` -> ``["::std", "io"]``."""
    text = _rust_text(node, source)
    lead = "::" if text.startswith("::") else ""
    parts = [p for p in text.split("::") if p]
    if parts:
        parts[0] = lead + parts[0]
    return parts


def _inline_modules(node: ts.Node, source: bytes) -> list[str]:
    """The names of the ``mod x { }`` blocks around ``node``, outermost first."""
    names = []
    outer = node.parent
    while outer is not None:
        if outer.type == "mod_item":
            name = outer.child_by_field_name("name")
            if name is not None:
                names.append(_rust_text(name, source))
        outer = outer.parent
    return names[::-1]


def _from_file(parts: list[str], inline: list[str]) -> list[str]:
    """A ``self``/``super`` path written inside inline modules, counted from the file's module."""
    if not inline or not parts or parts[0] not in ("self", "super"):
        return parts
    base = list(inline)
    index = 1 if parts[0] == "self" else 0
    above = 0
    while index < len(parts) and parts[index] == "super":
        if base:
            base.pop()
        else:
            above += 1
        index += 1
    return (["super"] * above or ["self"]) + base + parts[index:]


def _use_tree(argument: ts.Node, source: bytes, inline: list[str]) -> list[Import]:
    """The paths a ``use`` tree binds, in source order (an explicit stack of subtrees, each
    with the path of the groups around it)."""
    result: list[Import] = []
    stack: list[tuple[ts.Node, list[str]]] = [(argument, [])]
    while stack:
        node, prefix = stack.pop()
        kind = node.type
        if kind == "use_list":
            stack.extend((child, prefix) for child in reversed(node.named_children))
        elif kind == "scoped_use_list":
            path, group = node.child_by_field_name("path"), node.child_by_field_name("list")
            if group is not None:
                stack.append((group, prefix + (_rust_path(path, source) if path is not None else [])))
        elif kind == "use_wildcard":
            parts = _from_file(prefix + [p for child in node.named_children for p in _rust_path(child, source)], inline)
            if parts:
                result.append(_rust_import(node, "::".join(parts), [("*", "*")], None))
        elif kind == "use_as_clause":
            path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
            if path is not None and alias is not None:
                found = _binding(node, _from_file(prefix + _rust_path(path, source), inline), _rust_text(alias, source))
                if found is not None:
                    result.append(found)
        elif kind in ("identifier", "scoped_identifier", "self", "crate", "super", "metavariable"):
            found = _binding(node, _from_file(prefix + _rust_path(node, source), inline), None)
            if found is not None:
                result.append(found)
    return result


def _binding(node: ts.Node, parts: list[str], alias: str | None) -> Import | None:
    if parts and parts[-1] == "self":
        parts = parts[:-1]
    if not parts:
        return None
    local = alias if alias is not None else parts[-1].removeprefix("::")
    if len(parts) == 1:
        return _rust_import(node, parts[0], [], local)
    return _rust_import(node, "::".join(parts[:-1]), [(parts[-1], local)], None)


def _mod_declaration(item: ts.Node, source: bytes) -> Import | None:
    name = item.child_by_field_name("name")
    if name is None:
        return None
    inline = _inline_modules(item, source)
    # A ``#[path]`` attribute among the attributes (and comments) right above names the file.
    before = item.prev_named_sibling
    while before is not None and before.type in ("attribute_item", "line_comment", "block_comment"):
        attribute = before.named_children[0] if before.type == "attribute_item" and before.named_child_count else None
        value = attribute.child_by_field_name("value") if attribute is not None else None
        if attribute is not None and value is not None and value.type == "string_literal" and value.end_byte - value.start_byte >= 2:
            head = attribute.named_children[0] if attribute.named_child_count else None
            if head is not None and source[head.start_byte : head.end_byte] == b"path":
                path = source[value.start_byte + 1 : value.end_byte - 1].decode("utf-8", "replace")
                return _rust_import(item, "/".join([*inline, path]), [], None)
        before = before.prev_named_sibling
    return _rust_import(item, "::".join(["self", *inline, _rust_text(name, source)]), [], None)


def _rust_import(node: ts.Node, module: str, names: list[tuple[str, str]], alias: str | None) -> Import:
    return Import(module, node.start_point[0] + 1, node.start_point[1], node.start_byte, node.end_byte, names, alias)


# (The imports hook's rules are read in C too: ``rdx/native/query.c``, rust_imports; see
# Spec.native_imports.)
SPEC = Spec(language="rust", grammar="rust", query=QUERY, separator="::", references=REFERENCES, imports=_imports, native_imports="rust")
