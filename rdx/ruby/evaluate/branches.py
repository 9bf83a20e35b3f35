"""The branch a load-time conditional takes, for constants assigned from one:
``XImplementation = case when Concurrent.on_cruby? then MriX ... else MutexX end`` (also
``if``/``elsif``/``else``, ``unless`` and ternaries), followed by ``class X < XImplementation``.

Ruby evaluates the conditions when the file loads; rdx cannot, so this is a heuristic with a
stated model: **the program runs on CRuby (MRI) 2.0 or later, and optional features that the
code probes for at load time are absent**. Under that model each condition is true, false or
an unknown *probe*:

* engine tests are decided: a call without arguments named ``cruby?``/``mri?`` (or
  ``on_cruby?``...) is true, one named after another engine (``jruby?``, ``on_rbx?``,
  ``truffleruby?``, ``java?``...) is false; ``RUBY_ENGINE == "ruby"`` is true,
  ``RUBY_ENGINE == "jruby"`` false, ``RUBY_ENGINE =~ /jruby/`` false (a plain regex is
  matched against "ruby"), ``RUBY_PLATFORM == "java"`` false, ``defined?(JRUBY_VERSION)``
  false, and ``defined?(RUBY_ENGINE)`` (any top-level constant of Ruby's core) true;
* version tests against a version before 2.0 are decided (``RUBY_VERSION < "1.9"``,
  ``ruby_version(:>, 1, 9, 3)``); later versions are probes;
* a method probe of a core class or module, ``Proc.method_defined?(:__file__)`` (or
  ``public_method_defined?``) with a literal name, is decided by Ruby's core
  (``rdx.ruby.evaluate.core_methods``): true for ``Array.method_defined?(:sum)``, false for
  REE's ``Proc#__file__`` (method_source), which no CRuby has; a method a library adds to a
  core class counts as absent, as every optional feature does;
* other probes are conditions that read only the environment: ``defined?(...)``, a constant,
  a call on a constant (or on nothing) whose arguments are all literals or constants, and
  comparisons of such values (``Concurrent.c_extensions_loaded?``, ``defined?(JavaAtomicBoolean)``);
* ``!``/``not``, ``&&``/``and``, ``||``/``or`` and parentheses combine these;
* the file is loaded by ``require``, not run as the program: ``__FILE__ == $0`` (or
  ``$PROGRAM_NAME``, either side possibly in ``File.expand_path``) is false.

The branch chosen is the first whose condition is true, an unknown probe counting as false
(the optional feature is assumed absent), else the ``else`` branch. The value is the last
expression of that branch when it is a constant (``case``/``if`` nested in it are followed);
anything else, or a condition that is not a probe (a local or global variable, ``ENV[...]``,
``$stdout.isatty``), gives None: no guess is made. Where Ruby's choice depends on the platform
or on an optional library being installed, the answer is the CRuby-without-extensions one,
which may differ from what a given machine does (``defined?(::Set)`` counts as false).

``untaken_branches`` applies the decided part of this model to statements (``include X if
cond``, ``if``/``elsif``/``else`` chains, ``class X < Y`` in a branch), for the mixins and
superclasses the walker records there: a branch is left out only when the conditions decide
it (the first decided true is taken, the ``else`` when all are decided false, a lone branch
is left out when decided false). An unknown probe keeps every branch, since the optional
feature may well be loaded: haml's ``if defined?(Ripper) && ...`` branch is the one Ruby
takes, and so is ``include Rake::DSL if defined?(Rake::DSL)`` once rake is loaded.

Pure functions of tree-sitter nodes, evaluated with explicit stacks (no recursion).
"""

from __future__ import annotations

import re
from typing import Any

from rdx.ruby.evaluate.core_methods import core_constant, core_method_defined
from rdx.ruby.syntax import node_text, symbol_name

__all__ = ["chosen_constant", "condition_value", "untaken_branches"]

_CONDITIONALS = frozenset({"if", "unless", "case", "conditional"})
_CONSTANTS = frozenset({"constant", "scope_resolution"})
_OTHER_ENGINES = frozenset({"jruby", "rbx", "rubinius", "truffleruby", "truffle", "graalvm", "java", "maglev", "ironruby", "opal"})
_LITERALS = frozenset({"integer", "float", "string", "simple_symbol", "true", "false", "nil", "regex"})
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "=~", "!~", "==="})
# ``Proc.method_defined?(:__file__)``: decided from Ruby's core (``core_methods``).
_METHOD_PROBES = frozenset({"method_defined?", "public_method_defined?"})
# A condition that is not a probe: the conditional's value cannot be known.
_OPAQUE = "opaque"
# Deepest nesting of conditionals inside the branch taken that is followed.
_MAX_NESTING = 16


def _last_expression(body: Any) -> Any | None:
    """The last statement of a branch body (``then``/``else``), comments skipped."""
    if body is None:
        return None
    statements = [c for c in body.named_children if c.type != "comment"]
    return statements[-1] if statements else None


def _version_decided(op: str, major: int) -> bool | None:
    """``RUBY_VERSION <op> v`` for a version ``v`` whose major number is ``major``: decided
    only for versions before 2.0, which every supported Ruby is after."""
    if major >= 2:
        return None
    return op in (">", ">=", "!=")


def _leading_major(text: str) -> int | None:
    match = re.match(r"(\d+)", text)
    return int(match.group(1)) if match else None


# What a file loaded by ``require`` compares with the program's name: ``__FILE__`` is its own
# path, ``$0`` (``$PROGRAM_NAME``) the script Ruby was started with, never a required file.
_PROGRAM_NAMES = frozenset({"$0", "$PROGRAM_NAME"})
# Calls that keep a path the same path or not on both sides (``File.expand_path(__FILE__)``).
_PATH_CALLS = frozenset({"expand_path", "basename", "realpath", "absolute_path"})


def _script_side(node: Any) -> str | None:
    """"file" for ``__FILE__``, "program" for ``$0`` or ``$PROGRAM_NAME``, possibly wrapped
    in a path call of ``File`` (the same one on both sides is the caller's business)."""
    if node.type == "call":
        receiver, method, args = (node.child_by_field_name(f) for f in ("receiver", "method", "arguments"))
        if receiver is None or node_text(receiver) not in ("File", "::File") or method is None or node_text(method) not in _PATH_CALLS:
            return None
        given = args.named_children if args is not None else []
        if len(given) != 1:
            return None
        node = given[0]
    text = node_text(node)
    if node.type == "identifier" and text == "__FILE__":
        return "file"
    if node.type == "global_variable" and text in _PROGRAM_NAMES:
        return "program"
    return None


def _comparison(node: Any, op: str) -> bool | None | str:
    """A comparison between two environment values."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return _OPAQUE
    if op in ("==", "!=") and {_script_side(left), _script_side(right)} == {"file", "program"}:
        # ``if __FILE__ == $0``: the file runs as a script, which a required file never does.
        return op == "!="
    name = node_text(left) if left.type == "constant" else ""
    literal = symbol_name(right) if right.type == "string" else None
    if name == "RUBY_ENGINE" and literal is not None and op in ("==", "!="):
        return (literal == "ruby") == (op == "==")
    if name == "RUBY_PLATFORM" and literal == "java" and op in ("==", "!="):
        return op == "!="
    if name == "RUBY_ENGINE" and op in ("=~", "!~") and (matched := _engine_matches(right)) is not None:
        return matched == (op == "=~")
    if name == "RUBY_VERSION" and literal is not None and op in _COMPARISONS - {"=~", "!~", "==="}:
        major = _leading_major(literal)
        return _version_decided(op, major) if major is not None else None
    if all(_is_environment(side) for side in (left, right)):
        return None
    return _OPAQUE


def _engine_matches(regex: Any) -> bool | None:
    """Whether a regex literal without interpolation or flags (``/jruby/``) matches CRuby's
    ``RUBY_ENGINE``, "ruby"; None for any other regex."""
    if regex.type != "regex" or any(c.type != "string_content" for c in regex.named_children) or not node_text(regex).endswith("/"):
        return None
    try:
        return re.search("".join(node_text(c) for c in regex.named_children), "ruby") is not None
    except re.error:
        return None


def _is_environment(node: Any) -> bool:
    """A value read from the environment only: a literal, a constant, or a probe call."""
    return node.type in _LITERALS or node.type in _CONSTANTS or (node.type == "call" and _call(node) != _OPAQUE)


def _call(node: Any) -> bool | None | str:
    """Engine predicates, version probes and method probes of core classes are decided;
    other calls on a constant (or on nothing) with literal or constant arguments and no
    block are unknown probes."""
    method, receiver = node.child_by_field_name("method"), node.child_by_field_name("receiver")
    args = node.child_by_field_name("arguments")
    if method is None or node.child_by_field_name("block") is not None:
        return _OPAQUE
    if receiver is not None and receiver.type not in _CONSTANTS:
        return _OPAQUE
    given = args.named_children if args is not None else []
    if any(a.type not in _LITERALS and a.type not in _CONSTANTS for a in given):
        return _OPAQUE
    if receiver is not None and node_text(method) in _METHOD_PROBES and len(given) == 1 and (probed := symbol_name(given[0])) is not None:
        return core_method_defined(node_text(receiver), probed)
    name = node_text(method).removeprefix("on_").removesuffix("?")
    if not given and name in ("cruby", "mri"):
        return True
    if not given and name in _OTHER_ENGINES:
        return False
    if name == "ruby_version" and len(given) >= 2 and given[0].type == "simple_symbol" and all(a.type == "integer" for a in given[1:]):
        op = node_text(given[0])[1:]
        return _version_decided(op, int(node_text(given[1]))) if op in _COMPARISONS else None
    return None


def _defined(operand: Any) -> bool | None | str:
    while operand.type == "parenthesized_statements" and operand.named_child_count == 1:
        operand = operand.named_children[0]
    if operand.type == "constant" and node_text(operand) == "JRUBY_VERSION":
        return False
    if operand.type in _CONSTANTS and "::" not in node_text(operand).removeprefix("::") and core_constant(node_text(operand)):
        return True  # ``defined?(RUBY_ENGINE)``: core defines it before anything loads.
    return None if operand.type in _CONSTANTS or operand.type == "call" else _OPAQUE


def _and(a: bool | None | str, b: bool | None | str) -> bool | None | str:
    if _OPAQUE in (a, b):
        return _OPAQUE
    if a is False or b is False:
        return False
    return True if a is True and b is True else None


def _or(a: bool | None | str, b: bool | None | str) -> bool | None | str:
    if _OPAQUE in (a, b):
        return _OPAQUE
    if a is True or b is True:
        return True
    return False if a is False and b is False else None


def _not(a: bool | None | str) -> bool | None | str:
    return a if a is None or a == _OPAQUE else not a


def condition_value(node: Any) -> bool | None | str:
    """True, False, None (an unknown probe) or ``_OPAQUE`` for a condition, evaluated with an
    explicit stack: operands are pushed, results combined in postfix order."""
    tasks: list[tuple[Any, str]] = [(node, "")]
    results: list[bool | None | str] = []
    while tasks:
        current, combine = tasks.pop()
        if combine == "and":
            b, a = results.pop(), results.pop()
            results.append(_and(a, b))
            continue
        if combine == "or":
            b, a = results.pop(), results.pop()
            results.append(_or(a, b))
            continue
        if combine == "not":
            results.append(_not(results.pop()))
            continue
        t = current.type
        operator = current.child_by_field_name("operator")
        op = node_text(operator) if operator is not None else ""
        if t == "parenthesized_statements" and current.named_child_count == 1:
            tasks.append((current.named_children[0], ""))
        elif t == "binary" and op in ("&&", "and", "||", "or"):
            tasks += [(current, "and" if op in ("&&", "and") else "or"), (current.child_by_field_name("right"), ""), (current.child_by_field_name("left"), "")]
        elif t == "binary" and op in _COMPARISONS:
            results.append(_comparison(current, op))
        elif t == "unary" and op in ("!", "not"):
            tasks += [(current, "not"), (current.child_by_field_name("operand"), "")]
        elif t == "unary" and op == "defined?":
            results.append(_defined(current.child_by_field_name("operand")))
        elif t in ("true", "false", "nil"):
            results.append(t == "true")
        elif t == "call":
            results.append(_call(current))
        elif t in _CONSTANTS:
            results.append(None)
        else:
            results.append(_OPAQUE)
    return results[0] if len(results) == 1 else _OPAQUE


def _taken(conditional: Any) -> tuple[bool, Any | None]:
    """(decidable, the body taken or None when no branch is) for one conditional node."""
    t = conditional.type
    if t == "case":
        subject = conditional.child_by_field_name("value")
        for clause in conditional.named_children:
            if clause.type == "else":
                return True, clause
            if clause.type != "when":
                continue
            value = _when_value(subject, clause)
            if value == _OPAQUE:
                return False, None
            if value is True:
                return True, clause.child_by_field_name("body")
        return True, None
    if t == "conditional":
        value = condition_value(conditional.child_by_field_name("condition"))
        if value == _OPAQUE:
            return False, None
        return True, conditional.child_by_field_name("consequence" if value is True else "alternative")
    branch = conditional
    while branch is not None and branch.type != "else":
        value = condition_value(branch.child_by_field_name("condition"))
        value = _not(value) if branch.type == "unless" else value
        if value == _OPAQUE:
            return False, None
        if value is True:
            return True, branch.child_by_field_name("consequence")
        branch = branch.child_by_field_name("alternative")
    return True, branch


def _when_value(subject: Any | None, clause: Any) -> bool | None | str:
    """Whether a ``when`` matches: any of its patterns is true (``case`` without a subject), or
    equals the subject (only ``case RUBY_ENGINE when "ruby"`` is decided)."""
    value: bool | None | str = False
    for pattern in clause.children_by_field_name("pattern"):
        expr = pattern.named_children[0] if pattern.type == "pattern" and pattern.named_child_count == 1 else pattern
        if subject is None:
            value = _or(value, condition_value(expr))
        elif subject.type == "constant" and node_text(subject) == "RUBY_ENGINE" and expr.type == "string" and symbol_name(expr) is not None:
            value = _or(value, symbol_name(expr) == "ruby")
        else:
            return _OPAQUE
    return value


def chosen_constant(value: Any) -> Any | None:
    """For a conditional value (``case``/``if``/``unless``/ternary, possibly parenthesized):
    the constant node its taken branch ends in under this module's model, else None."""
    for _ in range(_MAX_NESTING):
        while value is not None and value.type == "parenthesized_statements" and value.named_child_count == 1:
            value = value.named_children[0]
        if value is None or value.type not in _CONDITIONALS:
            return value if value is not None and value.type in _CONSTANTS else None
        decidable, body = _taken(value)
        if not decidable or body is None:
            return None
        # A ternary's branches are expressions; ``then``/``else`` bodies hold statements.
        value = body if value.type == "conditional" else _last_expression(body)
    return None


_MODIFIERS = frozenset({"if_modifier", "unless_modifier"})
STATEMENT_CONDITIONALS = frozenset({"if", "unless", *_MODIFIERS})


def untaken_branches(node: Any) -> list[tuple[int, int]]:
    """The byte ranges of the branches of an ``if``/``unless`` statement (or modifier) that Ruby
    does not run under this module's model (see the module doc); none when it cannot say."""
    t = node.type
    if t in _MODIFIERS:
        value = condition_value(node.child_by_field_name("condition"))
        body = node.child_by_field_name("body")
        skipped = value is (True if t == "unless_modifier" else False)
        return [(body.start_byte, body.end_byte)] if skipped and body is not None else []
    if t not in ("if", "unless"):
        return []
    consequence, alternative = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
    if alternative is None:
        value = condition_value(node.child_by_field_name("condition"))
        skipped = value is (True if t == "unless" else False)
        return [(consequence.start_byte, consequence.end_byte)] if skipped and consequence is not None else []
    # The branch taken: the first whose condition is decided true, or the ``else`` (or none)
    # when every condition is decided false; an unknown probe on the way leaves it open.
    bodies: list[Any | None] = []
    taken = -1
    branch = node
    while branch is not None:
        if branch.type == "else":
            bodies.append(branch)
            taken = len(bodies) - 1
            break
        value = condition_value(branch.child_by_field_name("condition"))
        value = _not(value) if branch.type == "unless" else value
        if value is not True and value is not False:
            return []
        bodies.append(branch.child_by_field_name("consequence"))
        if value is True:
            taken = len(bodies) - 1
            break
        branch = branch.child_by_field_name("alternative")
    # The branches after the one taken are not run either.
    while branch is not None and branch.type != "else":
        branch = branch.child_by_field_name("alternative")
        if branch is not None:
            bodies.append(branch if branch.type == "else" else branch.child_by_field_name("consequence"))
    return [(b.start_byte, b.end_byte) for i, b in enumerate(bodies) if i != taken and b is not None]
