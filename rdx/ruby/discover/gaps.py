"""Known gaps of the Ruby grammar: valid Ruby (``ruby -c`` says Syntax OK) that tree-sitter-ruby
0.23.1, the newest release, cannot parse. Each is reported as a "grammar-limitation" warning
instead of a "syntax-error", and the definitions around it are kept. Only the shapes below
count; any other error stays a syntax error.

* A method named ``self`` (``def self(token)``, as parser's ``Parser::Builders::Default``
  defines): the grammar takes ``def self`` for the start of ``def self.name``, and the error
  can swallow the class around it. ``reparse_methods_named_self`` parses the file again with
  each such name spelled ``sel_`` (as long, so every offset holds) where that spelling parses
  as a method definition, and ``restore_method_names`` gives the walk's definitions their
  names back.
* Statements in parentheses right after ``return``, ``break`` or ``next``
  (``return(\\n 1\\n 2\\n)``): Ruby reads them as a parenthesized statement list, the grammar
  only with a space before the parenthesis. The error stays inside the argument list, so
  nothing around it is lost; ``parenthesized_statements_gap`` recognises it when the same text
  with the space parses.
* Spellings the grammar lacks, each read through a stand-in of the same length that it
  parses as the same kind of node (``reparse_spelling_gaps``): a lambda's block-local
  variables (``->(i; x) { }``, read as ``->(i, x)``), the label ``defined?:`` (a hash key or
  keyword argument, read as ``defined_:``), and symbols of punctuation globals (``:$:``,
  ``:$;``, read as ``:$0``). A site counts only where the original tree has an error and the
  stand-in's tree has the expected node there.

Pure functions of the source, trees and the walk's records; they never import the walker's
module at run time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import tree_sitter
import tree_sitter_ruby

from rdx.model.ids import definition_id
from rdx.model.records import Diagnostic

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = ["GRAMMAR_LIMITATION", "parenthesized_statements_gap", "reparse_methods_named_self", "reparse_spelling_gaps", "restore_method_names"]

GRAMMAR_LIMITATION = "grammar-limitation"

# ``def self`` not followed by ``.``/``::`` or more of a name (``def self.x``, ``def selfish``).
_DEF_SELF = re.compile(rb"(?<![\w@$:.])def[ \t]+(self)(?![\w.]|::|[ \t]+\.)")
_STAND_IN = b"sel_"
_JUMPS = frozenset({"return", "break", "next"})

_parser: tree_sitter.Parser | None = None


def _parse(source: bytes) -> Any:
    global _parser
    if _parser is None:
        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    return _parser.parse(source)


def _names_a_method(root: Any, start: int) -> bool:
    """Whether the 4 bytes at ``start`` begin the name of a ``def`` in the tree."""
    node = root.descendant_for_byte_range(start, start + len(_STAND_IN))
    if node is None or node.type != "identifier" or node.start_byte != start:
        return False
    parent = node.parent
    if parent is not None and parent.type == "setter":  # ``def self=(value)``
        node, parent = parent, parent.parent
    name = parent.child_by_field_name("name") if parent is not None and parent.type == "method" else None
    return name is not None and name.start_byte == start


def _spelled(source: bytes, sites: Iterable[int]) -> bytes:
    patched = bytearray(source)
    for start in sites:
        patched[start : start + len(_STAND_IN)] = _STAND_IN
    return bytes(patched)


def reparse_methods_named_self(source: bytes, tree: Any) -> tuple[Any, list[int]]:
    """The tree to walk and the offsets of the method names spelled ``sel_`` in it (see the
    module doc); ``tree`` itself and no offsets when the file defines no method ``self``."""
    if not tree.root_node.has_error:
        return tree, []
    sites = [m.start(1) for m in _DEF_SELF.finditer(source)]
    if not sites:
        return tree, []
    patched = _parse(_spelled(source, sites))
    kept = [start for start in sites if _names_a_method(patched.root_node, start)]
    if len(kept) < len(sites):  # ``def self`` in a string or a comment stays as written.
        if not kept:
            return tree, []
        patched = _parse(_spelled(source, kept))
        kept = [start for start in kept if _names_a_method(patched.root_node, start)]
    return patched, kept


def restore_method_names(w: Walker, sites: list[int]) -> None:
    """Name the methods at ``sites`` ``self`` again (their ids too) and say why they were read
    as they were."""
    at = set(sites)
    for d in w.definitions:
        if d.kind == "Method" and d.name_start in at and d.name.startswith(_STAND_IN.decode()):
            d.name = "self" + d.name[len(_STAND_IN) :]
            d.id = definition_id(w.uri, d.start, d.name)
            w.method_names.add(d.name)
    for start in sites:
        w.diagnostics.append(
            Diagnostic(
                GRAMMAR_LIMITATION,
                "tree-sitter-ruby cannot parse a method named 'self' (valid Ruby): rdx reads the definition around the grammar's gap",
                start,
                start + len(_STAND_IN),
                "warning",
            )
        )


def parenthesized_statements_gap(error: Any, ancestors: Iterable[Any]) -> str | None:
    """The message for an ERROR node that is the gap of ``return(\\n a\\n b\\n)`` (or
    ``break``/``next``), else None. ``ancestors`` are the error's, innermost first: the
    nearest argument list must be the jump's, opened by ``(`` right after the keyword, and
    the jump must parse with a space before the parenthesis."""
    for node in ancestors:
        if node.type != "argument_list":
            continue
        jump = node.parent
        if jump is None or jump.type not in _JUMPS or jump.child_count != 2:
            return None
        keyword = jump.children[0]
        first, last = node.children[0] if node.child_count else None, node.children[-1] if node.child_count else None
        if first is None or last is None or first.type != "(" or last.type != ")" or last.is_missing or first.start_byte != keyword.end_byte:
            return None
        again = _parse(keyword.text + b" " + node.text).root_node
        if again.has_error:
            return None
        return (
            f"tree-sitter-ruby cannot parse statements in parentheses right after '{keyword.text.decode()}' (valid Ruby; the grammar"
            " needs a space before the parenthesis): what is inside is read as far as the grammar gets"
        )
    return None


def _in_error(root: Any, start: int, end: int) -> bool:
    """Whether the original tree has an error at ``start``..``end``: an ERROR or missing node
    overlapping it, or around it."""
    node = root.descendant_for_byte_range(start, end)
    around = node
    while around is not None:
        if around.type == "ERROR" or around.is_missing:
            return True
        around = around.parent
    stack = [node] if node is not None and node.has_error else []
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return True
        stack += [c for c in n.children if c.has_error and c.start_byte < end and c.end_byte > start]
    return False


def _lambda_local(root: Any, start: int) -> bool:
    node = root.named_descendant_for_byte_range(start, start + 1)
    return node is not None and node.type == "lambda_parameters" and not node.has_error


def _label(root: Any, start: int) -> bool:
    node = root.descendant_for_byte_range(start, start + len(b"defined_"))
    return node is not None and node.type == "hash_key_symbol" and node.start_byte == start


def _global_symbol(root: Any, start: int) -> bool:
    node = root.descendant_for_byte_range(start, start + 3)
    return node is not None and node.type == "simple_symbol" and node.start_byte == start and node.end_byte == start + 3


# (pattern whose group 1 is replaced, the stand-in, the check of the stand-in's tree at the
# group's start, what the warning says).
_SPELLINGS: tuple[tuple[re.Pattern[bytes], bytes, Any, str], ...] = (
    (re.compile(rb"->[ \t]*\([^();]*?(;)"), b",", _lambda_local, "a lambda's block-local variables (->(a; b))"),
    (re.compile(rb"(?<![\w?!@$:])(defined\?):(?!:)"), b"defined_", _label, "the label 'defined?:'"),
    (re.compile(rb"(?<![\w:])(:\$[!@/\\,;.<>$?~=*\"&'`+:])"), b":$0", _global_symbol, "a symbol of a punctuation global (:$:)"),
)


def reparse_spelling_gaps(source: bytes, tree: Any) -> tuple[bytes, Any, list[Diagnostic]]:
    """The source and tree to walk, with each spelling the grammar lacks read through its
    stand-in (see the module doc), and a warning per site; ``source`` and ``tree`` themselves
    when there is none. Offsets hold: every stand-in is as long as what it stands for."""
    root = tree.root_node
    if not root.has_error:
        return source, tree, []
    sites = [
        (m.start(1), m.end(1), stand_in, check, what)
        for pattern, stand_in, check, what in _SPELLINGS
        for m in pattern.finditer(source)
        if _in_error(root, m.start(1), m.end(0) + 1)  # The error may begin right after (``defined?`` then ``:``).
    ]
    for _ in range(2):  # Again without the sites whose stand-in did not take.
        if not sites:
            return source, tree, []
        patched_source = bytearray(source)
        for start, end, stand_in, _check, _what in sites:
            patched_source[start:end] = stand_in
        patched = _parse(bytes(patched_source))
        kept = [site for site in sites if site[3](patched.root_node, site[0])]
        if len(kept) == len(sites):
            break
        sites = kept
    else:
        return source, tree, []
    return bytes(patched_source), patched, [
        Diagnostic(GRAMMAR_LIMITATION, f"tree-sitter-ruby cannot parse {what} (valid Ruby): rdx reads it as an equivalent spelling", start, end, "warning")
        for start, end, _stand_in, _check, what in sites
    ]
