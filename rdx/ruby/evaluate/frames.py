"""One frame per iteration of a loop over a literal list: the block-local values
(rdx.ruby.evaluate.unroll) before each statement the iteration runs.

A frame binds the block parameters to the element's literal values and runs the block body's
statements in order. An assignment to a local evaluates its value (unknown values are dropped).
A ``case`` over a local, an ``if``/``unless``/``elsif`` chain and the ``if``/``unless``
modifiers are decided per iteration when their subject or condition is known: ``when`` by
literal values and integer ranges (``100...200``, ``1..9``), a condition when it is ``true``,
``false``, ``nil``, a comparison (``==``, ``!=``, ``<``...) of known integers or strings, or
the negation of one. The branch taken runs; the others get no locals (``None``: code there
defines nothing in this iteration). Any other statement with branches runs with no locals, and
the locals it may assign become unknown afterwards; one that may end the iteration early
(``next``, ``raise``... where it is not decided) leaves the rest of the iteration without
locals, and a ``break`` anywhere leaves every iteration without them.

Pure functions of tree-sitter nodes with explicit work lists; no walk state, no records.
"""

from __future__ import annotations

from typing import Any

from rdx.ruby.evaluate.unroll import Env, Frame, Str, Value, evaluate, literal_value
from rdx.ruby.syntax import node_text

__all__ = ["run_frames"]

# Statements whose parts may or may not run.
_BRANCHING = frozenset({
    "case", "if", "unless", "while", "until", "for", "begin", "conditional",
    "if_modifier", "unless_modifier", "while_modifier", "until_modifier", "rescue_modifier",
})
_LEAVING = frozenset({"next", "break", "redo", "retry", "return"})
_LEAVING_CALLS = frozenset({"raise", "fail", "throw", "exit", "exit!", "abort"})
_NESTED_BODIES = frozenset({"block", "do_block", "lambda", "method", "singleton_method", "class", "module", "singleton_class"})
_ORDERINGS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _statements(body: Any) -> list[Any]:
    return [c for c in body.named_children if c.type != "comment"] if body is not None else []


def _matches(pattern: Any, subject: Value) -> bool | None:
    """Whether ``when pattern`` matches ``subject`` (None: cannot tell)."""
    if pattern.type == "range":
        low, high = pattern.child_by_field_name("begin"), pattern.child_by_field_name("end")
        first = literal_value(low) if low is not None else None
        last = literal_value(high) if high is not None else None
        if not isinstance(subject, int) or not isinstance(first, int) or not isinstance(last, int):
            return None
        exclusive = any(c.type == "..." for c in pattern.children)
        return first <= subject < last if exclusive else first <= subject <= last
    value = literal_value(pattern)
    if isinstance(value, int | Str):
        return value == subject
    return None


def _truth(condition: Any, env: Env) -> bool | None:
    """A condition's truth when it is a literal, a comparison of known values, or ``!`` of one."""
    negate = False
    while condition is not None and condition.type in ("parenthesized_statements", "unary"):
        if condition.type == "parenthesized_statements":
            condition = condition.named_children[0] if condition.named_child_count == 1 else None
            continue
        operator = condition.child_by_field_name("operator")
        if operator is None or node_text(operator) not in ("!", "not"):
            return None
        negate = not negate
        condition = condition.child_by_field_name("operand")
    if condition is None:
        return None
    t = condition.type
    result: bool | None = None
    if t in ("true", "false", "nil"):
        result = t == "true"
    elif t == "binary":
        operator = condition.child_by_field_name("operator")
        op = node_text(operator) if operator is not None else ""
        left, right = (evaluate(condition.child_by_field_name(side), env) for side in ("left", "right"))
        if op in ("==", "!=") and isinstance(left, int | Str) and isinstance(right, int | Str):
            result = (left == right) == (op == "==")
        elif op in _ORDERINGS and isinstance(left, int) and isinstance(right, int):
            result = _ORDERINGS[op](left, right)
    return None if result is None else result != negate


def _choose(node: Any, env: Env) -> tuple[bool, list[Any], list[Any]]:
    """(decided, the statements that run, the regions that do not) for a branching statement."""
    t = node.type
    if t in ("if_modifier", "unless_modifier"):
        truth = _truth(node.child_by_field_name("condition"), env)
        body = node.child_by_field_name("body")
        if truth is None or body is None:
            return False, [], []
        runs = truth == (t == "if_modifier")
        return True, [body] if runs else [], [] if runs else [body]
    if t == "case":
        return _choose_when(node, env)
    if t not in ("if", "unless"):
        return False, [], []
    taken: Any = None
    skipped: list[Any] = []
    branch = node
    while branch is not None and branch.type != "else":
        truth = _truth(branch.child_by_field_name("condition"), env)
        if truth is None:
            return False, [], []
        consequence = branch.child_by_field_name("consequence")
        if taken is None and truth == (branch.type != "unless"):
            taken = consequence
        elif consequence is not None:
            skipped.append(consequence)
        branch = branch.child_by_field_name("alternative")
    if branch is not None:
        if taken is None:
            taken = branch
        else:
            skipped.append(branch)
    return True, _statements(taken), skipped


def _choose_when(case: Any, env: Env) -> tuple[bool, list[Any], list[Any]]:
    subject_node = case.child_by_field_name("value")
    subject = evaluate(subject_node, env) if subject_node is not None else None
    if not isinstance(subject, int | Str):
        return False, [], []
    taken: Any = None
    for clause in case.named_children:
        if taken is not None or clause.type not in ("when", "else"):
            continue
        if clause.type == "else":
            taken = clause
            continue
        for pattern in clause.children_by_field_name("pattern"):
            expr = pattern.named_children[0] if pattern.type == "pattern" and pattern.named_child_count == 1 else pattern
            matched = _matches(expr, subject)
            if matched is None:
                return False, [], []
            if matched:
                taken = clause
                break
    skipped = [c for c in case.named_children if c.type in ("when", "else") and c != taken]
    body = taken if taken is None or taken.type == "else" else taken.child_by_field_name("body")
    return True, _statements(body), skipped


def _leaves(node: Any, kinds: frozenset[str]) -> bool:
    """Whether ``node`` may end the iteration early: ``next``/``break``/``redo``/``return`` (of
    ``kinds``) or a call of ``raise``/``fail``/``throw``/``exit``/``abort``; nested blocks,
    lambdas and method bodies are not looked into (their ``next`` ends them only)."""
    stack = [node]
    while stack:
        current = stack.pop()
        t = current.type
        if t in kinds:
            return True
        if t == "call" and current.child_by_field_name("receiver") is None:
            method = current.child_by_field_name("method")
            if method is not None and node_text(method) in _LEAVING_CALLS:
                return True
        if t in _NESTED_BODIES and current is not node:
            continue
        stack.extend(current.named_children)
    return False


def _forget(node: Any, env: Env) -> None:
    """Locals assigned anywhere in ``node`` become unknown."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("assignment", "operator_assignment"):
            left = current.child_by_field_name("left")
            targets = left.named_children if left is not None and left.type == "left_assignment_list" else [left]
            for target in targets:
                if target is not None and target.type == "identifier":
                    env.pop(node_text(target), None)
        stack.extend(current.named_children)


def _frame(statements: list[Any], bound: Env) -> Frame:
    """One iteration: snapshots of the locals before each statement it runs; ``None`` as the
    locals of a region the iteration does not run or may not run."""
    env = dict(bound)
    entries: list[tuple[int, Env | None]] = []
    stack: list[tuple[Any, bool]] = [(s, False) for s in reversed(statements)]
    while stack:
        node, ended = stack.pop()
        if ended:
            entries.append((node.end_byte, dict(env)))
            continue
        entries.append((node.start_byte, dict(env)))
        left = node.child_by_field_name("left") if node.type == "assignment" else None
        if left is not None and left.type == "identifier":
            value = evaluate(node.child_by_field_name("right"), env)
            env.pop(node_text(left), None) if value is None else env.__setitem__(node_text(left), value)
            continue
        decided, runs, skipped = _choose(node, env) if node.type in _BRANCHING else (False, [], [])
        if not decided and _leaves(node, _LEAVING):
            entries[-1] = (node.start_byte, None)  # What follows may not run in this iteration.
            break
        if node.type not in _BRANCHING:
            _forget(node, env)
            continue
        stack.append((node, True))
        if not decided:
            entries[-1] = (node.start_byte, None)
            _forget(node, env)
            continue
        entries += [(region.start_byte, None) for region in skipped]
        stack += [(s, False) for s in reversed(runs)]
    entries.sort(key=lambda entry: entry[0])
    return tuple(entries)


def run_frames(body: Any, bindings: list[Env]) -> list[Frame]:
    """One frame per iteration of a block whose parameters ``bindings`` gives."""
    statements = _statements(body)
    if any(_leaves(s, frozenset({"break"})) for s in statements):
        return []  # Which iterations run at all depends on the break: none is unrolled.
    return [_frame(statements, bound) for bound in bindings]
