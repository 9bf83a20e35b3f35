"""Block-local values of a loop over a literal list or hash: what ``StatusMessage.each { |code,
message| err_name = message.gsub(/[ \\-]/, ''); ...; const_set(err_name, Class.new(parent)) }``
computes in each iteration over ``StatusMessage = { 100 => 'Continue', ... }``
(rdx.ruby.evaluate.frames runs the statements; this module evaluates expressions).

Values are a small closed set: strings and symbols (``Str``), integers, constants (``Const``,
the node naming one) and ``Class.new(C)``/``Class.new(self)``/``Module.new`` (``NewModule``,
with or without a body block, which it keeps). The evaluator knows
literals, locals, interpolation of a local (or of a chain on one), ``gsub``/``sub`` with a
literal string or a simple regex (literal characters, escaped punctuation and character
classes: patterns whose meaning is the same in Ruby and in Python's ``re``) and a replacement
without backslashes, ``tr`` with literal sets (no ``^``, no escapes), ``upcase``/``downcase``/
``capitalize`` of ASCII text, ``to_s``, ``to_sym``, ``freeze``/``dup``. Anything else is
unknown (None), and a name that is unknown in an iteration defines nothing there: no name is
ever guessed.

Pure functions of tree-sitter nodes; method chains are evaluated from a list, no recursion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rdx.ruby.syntax import node_text

__all__ = ["Const", "Env", "Frame", "NewModule", "Str", "Value", "env_at", "evaluate", "literal_value"]


@dataclass(frozen=True)
class Str:
    text: str
    symbol: bool = False


@dataclass(frozen=True)
class Const:
    node: Any


@dataclass(frozen=True)
class NewModule:
    kind: str  # "Class" or "Module"
    superclass: Any  # a constant node, ``self`` (the namespace around the loop) or None
    # The ``do ... end``/``{ }`` block of ``Class.new(C) do ... end``: its body (rdx.ruby.evaluate.shared).
    block: Any = field(default=None, compare=False)


Value = Str | int | Const | NewModule
Env = dict[str, Value]
# One iteration: (statement start, locals before it), in statement order; None for the locals
# of a region that the iteration does not run or may not run.
Frame = tuple[tuple[int, Env | None], ...]

_CONSTANTS = frozenset({"constant", "scope_resolution"})
_DECIMAL = re.compile(r"[0-9][0-9_]*")
# Regex sources that mean the same in Ruby and Python: literal characters, escaped punctuation,
# character classes of those (with ranges of letters or digits), each optionally repeated.
_RE_CHAR = r"[A-Za-z0-9 _,:;!@%&=~'\"<>]"
_RE_ESCAPE = r"\\[- .()\[\]{}*+?|^$/\\]"
_RE_CLASS = rf"\[\^?(?:{_RE_CHAR}|[.*+?(){{}}|$/]|{_RE_ESCAPE}|[A-Za-z0-9]-[A-Za-z0-9])+\]"
_SAFE_REGEX = re.compile(rf"(?:(?:{_RE_CHAR}|-|{_RE_ESCAPE}|{_RE_CLASS})[+*?]?)+")
_ASCII = re.compile(r"[\x00-\x7f]*")


def literal_value(node: Any) -> Value | None:
    """The value of a literal element: integer, plain string or symbol, word, constant."""
    t = node.type
    if t == "integer" and _DECIMAL.fullmatch(node_text(node)):
        return int(node_text(node).replace("_", ""))
    if t in ("simple_symbol", "hash_key_symbol", "bare_symbol") or t in ("string", "bare_string", "delimited_symbol"):
        parts = node.named_children
        if t in ("simple_symbol", "hash_key_symbol"):
            return Str(node_text(node).removeprefix(":"), True)
        if all(p.type == "string_content" for p in parts):
            return Str("".join(node_text(p) for p in parts), t in ("bare_symbol", "delimited_symbol"))
        return None
    if t in _CONSTANTS:
        return Const(node)
    return None


def _tr_set(text: str) -> str | None:
    """``tr``'s character set with ``a-z`` ranges expanded; None for ``^``, escapes, empty."""
    if not text or text.startswith("^") or "\\" in text:
        return None
    out: list[str] = []
    i = 0
    while i < len(text):
        if i + 2 < len(text) and text[i + 1] == "-" and text[i] <= text[i + 2]:
            out += [chr(c) for c in range(ord(text[i]), ord(text[i + 2]) + 1)]
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _pattern(node: Any) -> re.Pattern[str] | None:
    """A ``gsub``/``sub`` pattern as a Python regex, when its meaning is the same in Ruby."""
    if node.type == "string":
        value = literal_value(node)
        return re.compile(re.escape(value.text)) if isinstance(value, Str) else None
    if node.type != "regex" or not node_text(node).endswith("/"):
        return None  # Flags (``/x/i``) and ``%r{}`` are left alone.
    if any(p.type not in ("string_content", "escape_sequence") for p in node.named_children):
        return None
    source = node_text(node)[1:-1]
    if not _SAFE_REGEX.fullmatch(source):
        return None
    try:
        return re.compile(source)
    except re.error:  # ``[z-a]``: Ruby rejects it too (the file does not load).
        return None


def _method(value: Value, name: str, args: list[Any]) -> Value | None:
    """``value.name(*args)`` for the string methods this module knows."""
    if isinstance(value, int):
        return Str(str(value)) if name == "to_s" and not args else None
    if not isinstance(value, Str):
        return None
    text = value.text
    if name in ("freeze", "dup", "itself") and not args:
        return value
    if name in ("to_s", "to_sym", "to_str", "id2name") and not args:
        return Str(text, name == "to_sym")
    if name in ("upcase", "downcase", "capitalize") and not args and _ASCII.fullmatch(text):
        return Str(text.upper() if name == "upcase" else text.lower() if name == "downcase" else text.capitalize(), value.symbol)
    if value.symbol or len(args) != 2:
        return None  # Symbols have no gsub/sub/tr.
    replacement = literal_value(args[1])
    if not isinstance(replacement, Str) or replacement.symbol or "\\" in replacement.text:
        return None
    if name in ("gsub", "sub"):
        pattern = _pattern(args[0])
        return Str(pattern.sub(replacement.text, text, count=1 if name == "sub" else 0)) if pattern is not None else None
    if name == "tr":
        source = literal_value(args[0])
        chars, into = (_tr_set(source.text) if isinstance(source, Str) else None), _tr_set(replacement.text)
        if chars is None or into is None:
            return None
        into = (into + into[-1] * len(chars))[: len(chars)]
        return Str(text.translate(str.maketrans(chars, into)))
    return None


def _atom(node: Any, env: Env, strings: bool) -> Value | None:
    """A chain's base: a local, a literal, ``Class.new(C)``, or (when ``strings``) a string
    interpolating locals (``"RC_#{name}"``)."""
    while node.type == "parenthesized_statements" and node.named_child_count == 1:
        node = node.named_children[0]
    t = node.type
    if t == "identifier":
        return env.get(node_text(node))
    if t == "call":
        return _new_module(node, env)
    if t in ("string", "delimited_symbol") and strings and any(p.type == "interpolation" for p in node.named_children):
        out: list[str] = []
        for part in node.named_children:
            if part.type == "string_content":
                out.append(node_text(part))
                continue
            inner = _chain(part.named_children[0], env, False) if part.type == "interpolation" and part.named_child_count == 1 else None
            if isinstance(inner, Str):
                out.append(inner.text)
            elif isinstance(inner, int):
                out.append(str(inner))
            else:
                return None
        return Str("".join(out), t == "delimited_symbol")
    return literal_value(node)


def _new_module(node: Any, env: Env) -> Value | None:
    """``Class.new``, ``Class.new(C)`` (C a constant or a local holding one), ``Module.new``."""
    receiver, method = node.child_by_field_name("receiver"), node.child_by_field_name("method")
    if receiver is None or method is None or node_text(method) != "new":
        return None
    block = node.child_by_field_name("block")  # ``Class.new(C) { def x; end }``: the class's body.
    kind = node_text(receiver) if receiver.type == "constant" else ""
    args = node.child_by_field_name("arguments")
    given = args.named_children if args is not None else []
    if kind == "Module" and not given:
        return NewModule("Module", None, block)
    if kind != "Class" or len(given) > 1:
        return None
    if not given:
        return NewModule("Class", None, block)
    parent = given[0]
    if parent.type == "self":
        return NewModule("Class", parent, block)  # The namespace around the loop.
    value = env.get(node_text(parent)) if parent.type == "identifier" else literal_value(parent)
    return NewModule("Class", value.node, block) if isinstance(value, Const) else None


def _chain(node: Any, env: Env, strings: bool) -> Value | None:
    """``base.m1(...).m2`` evaluated from the base outwards (an explicit list, no recursion)."""
    calls: list[Any] = []
    while node.type == "call" and node.child_by_field_name("receiver") is not None and _new_module(node, env) is None:
        calls.append(node)
        node = node.child_by_field_name("receiver")
    value = _atom(node, env, strings)
    for call in reversed(calls):
        method, args = call.child_by_field_name("method"), call.child_by_field_name("arguments")
        if value is None or method is None or call.child_by_field_name("block") is not None:
            return None
        value = _method(value, node_text(method), args.named_children if args is not None else [])
    return value


def evaluate(node: Any, env: Env) -> Value | None:
    """The value of an expression in one iteration's locals, or None when unknown."""
    return _chain(node, env, True)


def env_at(frame: Frame, offset: int) -> Env | None:
    """The locals of one iteration before the statement containing ``offset``; None where
    the iteration does not run (or may not run) the code at ``offset``."""
    found: Env | None = {}
    for start, env in frame:
        if start > offset:
            break
        found = env
    return found
