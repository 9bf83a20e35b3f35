"""Literal constant values of one file: what ``*NAMES`` stands for in ``delegate(*NAMES, to: :all)``.

ActiveRecord's ``Querying`` writes ``QUERYING_METHODS = [:find, ...].freeze`` and then
``delegate(*QUERYING_METHODS, to: :all)``; ``attr_accessor(*FLAGS)`` after ``FLAGS = %i[...]``
is common too. A splatted bare constant counts as the literal names it holds when this file
assigns it, before the call, in the namespace body around the call or in an enclosing one (the
lexical scopes Ruby searches first), a value made only of literal lists of symbols or strings
(``[...]``, ``%i[]``, ``%w[]``), ``.freeze``/``.dup`` of one, parentheses, ``+``/``-`` of such
values and other constants of the same kind. A value the file may change in between
(``NAMES << :x``, ``NAMES.concat(...)``) counts as nothing.

Pure functions of tree-sitter nodes: no walk state, no records, nothing imported from the
walker. Everything is found from the call node and the file's root: the nodes around a use are
found by going down from the root (``_around``), since tree-sitter's ``parent`` costs O(depth)
and a walk up the parents would cost O(depth^2) per use; discovery needs no extra pass. What is deliberately absent: constants of
other files (a namespace reopened elsewhere, an ancestor's constant), constants a namespace
reopened earlier in this file holds, and assignments inside blocks and method bodies.
"""

from __future__ import annotations

import re
from typing import Any

from rdx.ruby.syntax import node_text

__all__ = ["constant_names", "literal_collection", "merge_splatted", "splatted_names"]

_LIST_TYPES = frozenset({"array", "symbol_array", "string_array"})
_NAMESPACE_TYPES = frozenset({"class", "module", "singleton_class"})
_PASSING_CALLS = frozenset({"freeze", "dup", "itself"})
# Deepest chain of constants one value may go through (``A = B + C``, ``B = D``...).
_MAX_CONSTANTS = 32
# Calls that change an array in place (on the constant, anywhere between assignment and use).
_MUTATORS = (
    "push|append|concat|unshift|prepend|insert|replace|delete|delete_at|delete_if|clear|pop|shift|fill|keep_if"
    "|map!|collect!|select!|filter!|reject!|uniq!|compact!|flatten!|sort!|sort_by!|reverse!|rotate!|shuffle!|slice!"
    "|store|merge!|update|transform_keys!|transform_values!|default="
)


def _element(node: Any) -> str | None:
    """The name a literal list element holds: a symbol, a plain string, a word of ``%i``/``%w``."""
    t = node.type
    if t in ("bare_symbol", "bare_string"):
        if all(c.type == "string_content" for c in node.named_children):
            return node_text(node)
        return None
    if t == "simple_symbol":
        return node_text(node)[1:]
    if t in ("string", "delimited_symbol") and node.named_child_count == 1 and node.named_children[0].type == "string_content":
        return node_text(node.named_children[0])
    return None


def _assignment_before(body: Any, name: str, before: int) -> Any | None:
    """The last ``name = value`` among ``body``'s statements that end before ``before``."""
    found = None
    for statement in body.named_children:
        if statement.end_byte > before:
            break
        if statement.type == "assignment":
            left = statement.child_by_field_name("left")
            if left is not None and left.type == "constant" and node_text(left) == name:
                found = statement
    return found


def _around(node: Any, root: Any) -> list[Any]:
    """The nodes around ``node``, outermost (``root``) first, found going down from the root."""
    chain: list[Any] = []
    current = root
    while current is not None and current != node:
        chain.append(current)
        current = current.child_with_descendant(node)
    return chain


def _assignment(ref: Any, root: Any) -> Any | None:
    """The assignment a bare constant ``ref`` reads, found in the namespace bodies around it
    (innermost first, then the file's top level); None inside a method body."""
    name = node_text(ref)
    chain = _around(ref, root)
    for i in range(len(chain) - 1, -1, -1):
        parent = chain[i]
        t = parent.type
        if t in ("method", "singleton_method"):
            return None
        if t == "program" or (t == "body_statement" and i > 0 and chain[i - 1].type in _NAMESPACE_TYPES):
            found = _assignment_before(parent, name, ref.start_byte)
            if found is not None:
                return found
    return None


# What changes a constant's value in place: ``X << v``, ``X[k] = v`` (or ``+=``...), ``X.push``.
_CHANGES = rf"\s*(?:<<|\[[^\]\n]*\]\s*(?:[-+*/|&]|\|\||&&)?=(?!=)|\.\s*(?:{_MUTATORS})(?![\w?!]))"
# Any constant path changed so (its name is compared after): compiled once, where a pattern
# per name costs a compile of that alternation for each name a file reads.
# The change is a lookahead: a match takes only the name, and the search goes on inside what
# follows it (``H[A.push] = 1`` changes A too).
_ANY_CHANGED = re.compile(rf"(?<![\w:])([A-Z]\w*(?:::[A-Z]\w*)*)(?={_CHANGES})".encode())
_CONSTANT_PATH = re.compile(r"[A-Z]\w*(?:::[A-Z]\w*)*")


def _changed_between(assignment: Any, use: Any, root: Any) -> bool:
    """Whether the text between an assignment and a use may change the constant in place."""
    name = node_text(assignment.child_by_field_name("left"))
    if _CONSTANT_PATH.fullmatch(name) is None or not name.isascii():
        pattern = re.compile(rf"(?<![\w:]){re.escape(name)}{_CHANGES}".encode())
        return pattern.search(root.text, assignment.end_byte, use.start_byte) is not None
    # (A constant path is followed by a change only where its name ends: the match of a
    # longer one starting at the same place is a different name, never this one.)
    encoded = name.encode()
    return any(m.group(1) == encoded for m in _ANY_CHANGED.finditer(root.text, assignment.end_byte, use.start_byte))


def constant_names(ref: Any, root: Any) -> list[tuple[str, Any]] | None:
    """The names the bare constant ``ref`` (a ``constant`` node) holds where it is read, each
    with the literal element that writes it; None when its value is not such a literal list.

    Evaluated with an explicit stack (no recursion over the syntax tree): operands of ``+``
    and ``-`` are pushed, results are combined in postfix order."""
    tasks: list[tuple[Any, bool]] = [(ref, False)]
    results: list[list[tuple[str, Any]]] = []
    constants = 0
    while tasks:
        node, ready = tasks.pop()
        t = node.type
        if t == "binary":
            operator = node.child_by_field_name("operator")
            op = node_text(operator) if operator is not None else ""
            if op not in ("+", "-"):
                return None
            if ready:
                right, left = results.pop(), results.pop()
                removed = {n for n, _ in right}
                results.append(left + right if op == "+" else [(n, e) for n, e in left if n not in removed])
            else:
                tasks += [(node, True), (node.child_by_field_name("right"), False), (node.child_by_field_name("left"), False)]
        elif t == "parenthesized_statements" and node.named_child_count == 1:
            tasks.append((node.named_children[0], False))
        elif t == "call" and node.child_by_field_name("arguments") is None and node.child_by_field_name("block") is None:
            method, receiver = node.child_by_field_name("method"), node.child_by_field_name("receiver")
            if receiver is None or method is None or node_text(method) not in _PASSING_CALLS:
                return None
            tasks.append((receiver, False))
        elif t in _LIST_TYPES:
            names = [(n, e) for e in node.named_children if (n := _element(e)) is not None]
            if len(names) != node.named_child_count:
                return None
            results.append(names)
        elif t == "constant":
            constants += 1
            found = _assignment(node, root) if constants <= _MAX_CONSTANTS else None
            if found is None or _changed_between(found, node, root):
                return None
            tasks.append((found.child_by_field_name("right"), False))
        else:
            return None
    return results[0] if len(results) == 1 else None


def literal_collection(ref: Any, root: Any) -> Any | None:
    """The literal array, ``%w``/``%i`` list or hash (its node) that the bare constant ``ref``
    holds where it is read, found like ``constant_names`` finds lists (``.freeze`` skipped); None
    when the file may change it in between (``<<``, ``H[k] = v``, ``merge!``...) or it is
    anything else."""
    found = _assignment(ref, root)
    if found is None or _changed_between(found, ref, root):
        return None
    value = found.child_by_field_name("right")
    while value is not None and value.type == "call" and value.child_by_field_name("arguments") is None and value.child_by_field_name("block") is None:
        method = value.child_by_field_name("method")
        if method is None or node_text(method) not in _PASSING_CALLS:
            return None
        value = value.child_by_field_name("receiver")
    return value if value is not None and (value.type in _LIST_TYPES or value.type == "hash") else None


def splatted_names(arg: Any, root: Any) -> list[tuple[str, Any]] | None:
    """For an argument ``*NAME`` where ``NAME`` holds a literal list (``constant_names``): its
    names; None for any other argument."""
    if arg.type != "splat_argument" or arg.named_child_count != 1 or arg.named_children[0].type != "constant":
        return None
    return constant_names(arg.named_children[0], root)


def merge_splatted(call: Any, names: list[tuple[str, Any]], root: Any) -> list[tuple[str, Any]]:
    """``names`` (a call's literal name arguments, in order, as ``Walker._symbol_args`` gives
    them) with the names of its splatted constants inserted where the splats are written.

    The walker expands splatted constants itself (``rdx.ruby.evaluate.loops.expand_names``, names
    located at the splat): a splat some name already lies in is left as it is, and names
    already present with the same element node are not added twice."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return names
    known = {node.start_byte for _, node in names}
    out: list[tuple[str, Any]] = []
    placed: set[int] = set()
    for arg in args.named_children:
        # A splat the walker expanded already (its names are located at the splat itself).
        covered = any(arg.start_byte <= node.start_byte < arg.end_byte for _, node in names)
        listed = splatted_names(arg, root) if not covered else None
        elements = {e.start_byte for _, e in listed} if listed is not None else set()
        if listed is not None:
            out += [(n, e) for n, e in listed if e.start_byte not in known]
        for i, (name, node) in enumerate(names):
            if i not in placed and (arg.start_byte <= node.start_byte < arg.end_byte or node.start_byte in elements):
                out.append((name, node))
                placed.add(i)
    return out + [entry for i, entry in enumerate(names) if i not in placed]
