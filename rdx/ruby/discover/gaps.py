"""Known gaps of the Ruby grammar: valid Ruby (``ruby -c`` says Syntax OK) that tree-sitter-ruby
0.23.1, the newest release, cannot parse. Each is reported as a "grammar-limitation" warning
instead of a "syntax-error", and the definitions around it are kept. Only the shapes below
count; any other error stays a syntax error.

* A method named ``self`` (``def self(token)``, as parser's ``Parser::Builders::Default``
  defines) or ``super`` (``def super(times = 1)``, pry's ``Pry::Method``): the grammar takes
  ``def self`` for the start of ``def self.name`` and ``super`` for the keyword, and the error
  can swallow the class around it. ``reparse_methods_named_self`` parses the file again with
  each such name spelled ``sel_`` or ``supe_`` (as long, so every offset holds) where that
  spelling parses as a method definition, and ``restore_method_names`` gives the walk's
  definitions their names back.
* Statements in parentheses right after ``return``, ``break`` or ``next``
  (``return(\\n 1\\n 2\\n)``): Ruby reads them as a parenthesized statement list, the grammar
  only with a space before the parenthesis. The error stays inside the argument list, so
  nothing around it is lost; ``parenthesized_statements_gap`` recognises it when the same text
  with the space parses.
* Spellings the grammar lacks, each read through a stand-in of the same length that it
  parses as the same kind of node (``reparse_spelling_gaps``): a lambda's block-local
  variables (``->(i; x) { }``, read as ``->(i, x)``), the label ``defined?:`` (a hash key or
  keyword argument, read as ``defined_:``), symbols of punctuation globals (``:$:``,
  ``:$;``, read as ``:$0``), spaces after a block argument's ``&`` (``f(& b)``, read as
  ``f( &b)``), a ``.()`` call whose dot ends the line (``f.\\n  (1)``, read with the dot
  starting the next line) and a shift without spaces before a number (``(a<<8)``, which the
  grammar reads as a call with a heredoc argument; read as ``a>>8`` and the operator call
  renamed ``<<`` after the walk by ``restore_operators``). A site counts only where the
  original tree went wrong there (an error around it; for the shift, a heredoc starting at
  it) and the stand-in's tree has the expected node there.

Pure functions of the source, trees and the walk's records; they never import the walker's
module at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
import tree_sitter
import tree_sitter_ruby

from rdx.model.ids import definition_id
from rdx.model.records import Diagnostic

if TYPE_CHECKING:
    from rdx.ruby.discover.parse import Walker

__all__ = [
    "GRAMMAR_LIMITATION",
    "SpellingGaps",
    "parenthesized_statements_gap",
    "reparse_methods_named_self",
    "reparse_spelling_gaps",
    "restore_method_names",
    "restore_operators",
]

GRAMMAR_LIMITATION = "grammar-limitation"

# ``def self`` or ``def super`` not followed by ``.``/``::`` or more of a name (``def self.x``,
# ``def selfish``, ``def superb``).
_DEF_KEYWORD = re.compile(rb"(?<![\w@$:.])def[ \t]+(self|super)(?![\w.]|::|[ \t]+\.)")
# Each keyword's stand-in: as long as it, so every offset holds.
_KEYWORD_STAND_INS = {b"self": b"sel_", b"super": b"supe_"}
_JUMPS = frozenset({"return", "break", "next"})

_parser: tree_sitter.Parser | None = None


def _parse(source: bytes) -> Any:
    global _parser
    if _parser is None:
        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    return _parser.parse(source)


def _names_a_method(root: Any, start: int, size: int) -> bool:
    """Whether the ``size`` bytes at ``start`` begin the name of a ``def`` in the tree."""
    node = root.descendant_for_byte_range(start, start + size)
    if node is None or node.type != "identifier" or node.start_byte != start:
        return False
    parent = node.parent
    if parent is not None and parent.type == "setter":  # ``def self=(value)``
        node, parent = parent, parent.parent
    name = parent.child_by_field_name("name") if parent is not None and parent.type == "method" else None
    return name is not None and name.start_byte == start


def _spelled(source: bytes, sites: Iterable[tuple[int, bytes]]) -> bytes:
    patched = bytearray(source)
    for start, keyword in sites:
        patched[start : start + len(keyword)] = _KEYWORD_STAND_INS[keyword]
    return bytes(patched)


def reparse_methods_named_self(source: bytes, tree: Any) -> tuple[Any, list[tuple[int, bytes]]]:
    """The tree to walk and the sites (offset, keyword) of the method names spelled with a
    stand-in in it (see the module doc); ``tree`` itself and no sites when the file defines no
    method named ``self`` or ``super``."""
    if not tree.root_node.has_error:
        return tree, []
    sites = [(m.start(1), m.group(1)) for m in _DEF_KEYWORD.finditer(source)]
    if not sites:
        return tree, []
    patched = _parse(_spelled(source, sites))
    kept = [(start, k) for start, k in sites if _names_a_method(patched.root_node, start, len(k))]
    if len(kept) < len(sites):  # ``def self`` in a string or a comment stays as written.
        if not kept:
            return tree, []
        patched = _parse(_spelled(source, kept))
        kept = [(start, k) for start, k in kept if _names_a_method(patched.root_node, start, len(k))]
    return patched, kept


def restore_method_names(w: Walker, sites: list[tuple[int, bytes]]) -> None:
    """Give the methods at ``sites`` their keyword names again (their ids too) and say why they
    were read as they were."""
    at = {start: keyword.decode() for start, keyword in sites}
    for d in w.definitions:
        name = at.get(d.name_start) if d.kind == "Method" else None
        stand_in = _KEYWORD_STAND_INS[name.encode()].decode() if name is not None else ""
        if name is not None and d.name.startswith(stand_in):
            d.name = name + d.name[len(stand_in) :]
            d.id = definition_id(w.uri, d.start, d.name)
            w.method_names.add(d.name)
    for start, written in sites:
        w.diagnostics.append(
            Diagnostic(
                GRAMMAR_LIMITATION,
                f"tree-sitter-ruby cannot parse a method named '{written.decode()}' (valid Ruby): rdx reads the definition around the grammar's gap",
                start,
                start + len(written),
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


def _shift(root: Any, start: int, end: int) -> bool:
    node = root.descendant_for_byte_range(start, end)
    return node is not None and node.type == ">>" and node.parent is not None and node.parent.type == "binary"


def _block_ampersand(root: Any, start: int, end: int) -> bool:
    """Whether the stand-in's ``&`` (the last byte of the site) begins a block argument or a
    block parameter."""
    node = root.named_descendant_for_byte_range(end - 1, end)
    return node is not None and node.type in ("block_argument", "block_parameter") and node.start_byte == end - 1


def _leading_dot_call(root: Any, start: int, end: int) -> bool:
    """Whether the stand-in's ``.`` (the last byte of the site) is a ``.()`` call's."""
    node = root.descendant_for_byte_range(end - 1, end)
    return node is not None and node.type == "." and node.parent is not None and node.parent.type == "call"


def _heredoc_start(root: Any, start: int, end: int) -> bool:
    """Whether the original tree begins a heredoc at ``start`` (``x<<8`` read as ``x(<<8)``: the
    error it causes is wherever the heredoc's body ends, not at the site)."""
    node = root.descendant_for_byte_range(start, end)
    return node is not None and node.type == "heredoc_beginning" and node.start_byte == start


def _moved_to_end(text: bytes, mark: bytes) -> bytes:
    """``text`` with its one ``mark`` byte moved to its end, the spaces before it (as long)."""
    return text.replace(mark, b"", 1) + mark


class _Spelling(NamedTuple):
    """A spelling the grammar lacks: group 1 of ``pattern`` is read as ``stand_in`` (bytes, or a
    function of group 1's text giving as many), where ``in_original`` says the original tree
    went wrong at the site (start, end of the match) and ``check`` that the stand-in's tree has
    the expected node there (start, end of group 1). ``operator``: the operator method the
    stand-in reads, and the one written, when they differ (its calls are renamed after the walk)."""

    pattern: re.Pattern[bytes]
    stand_in: bytes | Callable[[bytes], bytes]
    check: Callable[[Any, int, int], bool]
    what: str
    in_original: Callable[[Any, int, int], bool] = lambda root, start, end: _in_error(root, start, end + 1)
    operator: tuple[str, str] | None = None


_SPELLINGS: tuple[_Spelling, ...] = (
    _Spelling(re.compile(rb"->[ \t]*\([^();]*?(;)"), b",", lambda r, s, e: _lambda_local(r, s), "a lambda's block-local variables (->(a; b))"),
    # The error may begin right after (``defined?`` then ``:``).
    _Spelling(re.compile(rb"(?<![\w?!@$:])(defined\?):(?!:)"), b"defined_", lambda r, s, e: _label(r, s), "the label 'defined?:'"),
    _Spelling(re.compile(rb"(?<![\w:])(:\$[!@/\\,;.<>$?~=*\"&'`+:])"), b":$0", lambda r, s, e: _global_symbol(r, s), "a symbol of a punctuation global (:$:)"),
    # ``(key1<<8)``: a shift without spaces, right after a name, read as a call with a heredoc
    # argument (dnsruby's DNSKEY.rb); ``>>`` is the same kind of binary node, renamed back.
    _Spelling(re.compile(rb"(?<=[\w)\]])(<<)(?=\d)"), b">>", _shift, "a shift without spaces before a number (a<<8)", _heredoc_start, (">>", "<<")),
    # ``g(& block)`` and ``def m(a, & block)``: spaces between ``&`` and the name (rest-client),
    # read with the spaces before the ``&``.
    _Spelling(re.compile(rb"(?<=[(,])([ \t]*&[ \t]+)(?=[A-Za-z_])"), lambda text: _moved_to_end(text, b"&"), _block_ampersand, "spaces after a block argument's '&' (f(& b))"),
    # ``Collect[*x].\n  (args)``: a ``.()`` call with its dot ending the line (representable),
    # read with the dot starting the next one.
    _Spelling(re.compile(rb"(\.[ \t]*\r?\n[ \t\r\n]*)(?=\()"), lambda text: _moved_to_end(text, b"."), _leading_dot_call, "a '.()' call with the dot at the end of the line (f.\\n(x))"),
)


class SpellingGaps(NamedTuple):
    """What ``reparse_spelling_gaps`` gives: the source and tree to walk, a warning per site, and
    the operator calls to rename after the walk (offset -> the operator written there)."""

    source: bytes
    tree: Any
    diagnostics: list[Diagnostic]
    operators: dict[int, str]


def reparse_spelling_gaps(source: bytes, tree: Any) -> SpellingGaps:
    """The source and tree to walk, with each spelling the grammar lacks read through its
    stand-in (see the module doc), and a warning per site; ``source`` and ``tree`` themselves
    when there is none. Offsets hold: every stand-in is as long as what it stands for."""
    root = tree.root_node
    unchanged = SpellingGaps(source, tree, [], {})
    if not root.has_error:
        return unchanged
    sites = [
        (m.start(1), m.end(1), spelling)
        for spelling in _SPELLINGS
        for m in spelling.pattern.finditer(source)
        if spelling.in_original(root, m.start(1), m.end(0))
    ]
    for _ in range(2):  # Again without the sites whose stand-in did not take.
        if not sites:
            return unchanged
        patched_source = bytearray(source)
        for start, end, spelling in sites:
            stand_in = spelling.stand_in
            patched_source[start:end] = stand_in(source[start:end]) if callable(stand_in) else stand_in
        patched = _parse(bytes(patched_source))
        kept = [site for site in sites if site[2].check(patched.root_node, site[0], site[1])]
        if len(kept) == len(sites):
            break
        sites = kept
    else:
        return unchanged
    diagnostics = [
        Diagnostic(GRAMMAR_LIMITATION, f"tree-sitter-ruby cannot parse {spelling.what} (valid Ruby): rdx reads it as an equivalent spelling", start, end, "warning")
        for start, end, spelling in sites
    ]
    operators = {start: spelling.operator[1] for start, _end, spelling in sites if spelling.operator is not None}
    return SpellingGaps(bytes(patched_source), patched, diagnostics, operators)


def restore_operators(w: Walker, operators: dict[int, str]) -> None:
    """Name the operator calls read through a stand-in (``>>`` for ``<<``) as written."""
    w.method_refs = [msgspec.structs.replace(r, name=operators[r.start]) if r.start in operators else r for r in w.method_refs]
