"""rdx's native (C) helpers, built by ``rdx/native/build.py`` (``make native``).

Today two: ``advance``, which moves Ruby discovery's walk cursor in C past the nodes no handler
wants or whose handler would do nothing, and, given a ``spec``, collects the records of the plain
calls, operators, constants, local variables, blocks and methods it passes over (see
``walk.c``); ``line_starts``, ``rdx.model.text.line_starts`` in C; ``statement_calls``, the
calls ``rdx.ruby.evaluate.loadfacts`` reads; ``find_words``, which of a few words a source
holds, in one pass. The module is optional: ``advance()`` is None when it was not built,
when it was built for another tree-sitter than the one installed, when ``RDX_NATIVE=0`` is set,
or when its walk of a sample disagrees with the Python walk; discovery then walks in Python
and produces the same records. This package imports nothing from rdx.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = [
    "advance", "agrees_on_sample", "definition_id", "disabled_reason", "find_words", "hashes_as_hashlib", "line_starts", "reset", "spec", "statement_calls",
]

# What ``advance`` returns: an event in the low two bits, the cursor's depth above them.
END, HANDLER, MISSING, TOO_DEEP = 0, 1, 2, 3

_SAMPLE = b"""\
module A::B
  class C < D::E
    include F
    def g(h, *i) = h.j(i) { |k| k + [1, 2][0] }
    X = (((1)))
    Y = {l: 1, m:, "n" => 2}
  end
end
foo(
"""


@cache
def _load() -> tuple[Any, str]:
    """The built module ``_walk`` when it may be used (else None), and why not ("" when it may).
    The functions below hand out its functions from this cache: discovery asks for them once
    per file."""
    if os.environ.get("RDX_NATIVE", "1").strip().lower() in {"0", "off", "no", "false"}:
        return None, "RDX_NATIVE=0"
    try:
        from rdx.native import _walk  # type: ignore[attr-defined]
    except ImportError as exc:
        return None, f"not built ({exc})"
    import tree_sitter

    if _walk.version() != tree_sitter.__version__:
        return None, f"built for tree-sitter {_walk.version()}, but {tree_sitter.__version__} is installed: run make native"
    if not agrees_on_sample(_walk.advance):
        return None, "its walk of a sample disagrees with the Python walk"
    if not hashes_as_hashlib(_walk.definition_id):
        return None, "its definition ids disagree with hashlib's blake2b"
    return _walk, ""


def agrees_on_sample(step: Callable[..., int]) -> bool:
    """Whether the native walk visits a sample tree as the cursor's own moves do, every other
    kind flagged (so both skipping and stopping are checked), missing nodes included,
    identifiers named in a set passed over up to a byte, constants up to another, and pairs
    but the one with a single named child."""
    import tree_sitter
    import tree_sitter_ruby

    language = tree_sitter.Language(tree_sitter_ruby.language())
    tree = tree_sitter.Parser(language).parse(_SAMPLE)
    kinds = bytearray(65536)
    for kind in range(0, language.node_kind_count, 2):
        kinds[kind] = 1
    identifier = language.id_for_node_kind("identifier", True) or 0
    kinds[identifier] = 2  # Except in the ``method`` field.
    constant = language.id_for_node_kind("constant", True) or 0
    kinds[constant] = 3  # Except before ``skip_until``.
    skip_until = _SAMPLE.index(b"include")
    pair = language.id_for_node_kind("pair", True) or 0
    kinds[pair] = 4  # Only with one named child.
    fields = bytearray(65536)
    fields[language.field_id_for_name("method") or 0] = 1
    names, until = {b"h", b"i", b"k"}, _SAMPLE.index(b"k +")
    known_passed = before_passed = 0  # Identifiers passed over as known names, constants before ``skip_until``.
    expected = []
    cursor = tree.walk()
    depth = 0
    while True:
        node: Any = cursor.node
        kind = kinds[node.kind_id]
        named = kind == 2 and not fields[cursor.field_id or 0]
        known = named and node.start_byte < until and node.text in names
        known_passed += known
        before = kind == 3 and node.start_byte < skip_until
        before_passed += before
        wanted = kind == 1 or (named and not known) or (kind == 3 and not before) or (kind == 4 and node.named_child_count == 1)
        if depth and (wanted or (not kind and node.is_missing)):  # The root is visited before any step.
            expected.append((node.kind_id, node.start_byte, node.end_byte, depth))
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
            depth -= 1
        else:
            continue
        break
    seen = []
    cursor = tree.walk()
    depth = 0
    table = bytes(kinds)
    skipped = bytes(fields)
    while True:
        event = step(cursor, table, skipped, True, True, 10_000, depth, names, until, skip_until)
        depth = event >> 2
        if event & 3 == END:
            break
        node = cursor.node
        assert node is not None
        seen.append((node.kind_id, node.start_byte, node.end_byte, depth))
    return (
        seen == expected
        and len(seen) > 20
        and {identifier, constant, pair} <= {kind for kind, *_ in seen}
        and known_passed > 0
        and before_passed > 0
        and sum(kind == pair for kind, *_ in seen) == 1
    )


def hashes_as_hashlib(definition_id: Callable[[bytes, int, str], int]) -> bool:
    """Whether the step's definition ids (BLAKE2b in C) are the digests ``rdx.model.ids``
    takes from hashlib, on inputs of one block and of several."""
    import hashlib

    samples = ((b"def\xff\xff", 0, ""), (b"def\xfffile:///a.rb\xff", 12_345, "caf\u00e9="), (b"def\xff" + b"p/" * 150 + b"\xff", 4_294_967_295, "x" * 200), (b"d", 7, "\udc80"))
    for prefix, offset, name in samples:
        data = prefix + b"%d\xff" % offset + name.encode("utf-8", "surrogatepass")
        if definition_id(prefix, offset, name) != int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little"):
            return False
    return True


def advance() -> Callable[..., int] | None:
    """The native cursor step (see ``walk.c``), or None when discovery must walk in Python."""
    module = _load()[0]
    return None if module is None else module.advance  # type: ignore[no-any-return]


def spec(
    fields: tuple[int, ...],
    special: frozenset[str],
    write: int,
    iterators: frozenset[str],
    evals: frozenset[str],
    hooks: frozenset[str],
    max_nesting: int,
    visibility: frozenset[bytes],
    mixins: frozenset[str] = frozenset(),
    attrs: dict[str, tuple[int, str]] | None = None,
    factories: frozenset[str] | None = None,
) -> object:
    """What ``advance`` needs to know of the grammar to collect records (see ``walk.c``): the
    ids of the fields ``method``, ``receiver``, ``block``, ``operator``, ``left``, ``operand``,
    ``object``, ``pattern``, ``name``, ``scope``, ``parameters``, ``superclass``, ``body``,
    ``arguments`` and ``right`` (the last two optional),
    the method names whose calls Python must see, the mark of an assignment's target call, the
    methods that run their block on the self around it (on any receiver), those that run it
    with the receiver as self, the names of methods whose definitions Python must see, the
    deepest nesting of scopes allowed, and the words that mark a namespace body's default
    visibility, and the names of the calls of ``include`` and its kin, and of ``attr_*``,
    ``private`` and its kin and ``alias_method`` (each with walk.c's code for it and the kind
    of definition it makes), whose plain forms it records (walk.c's collect_directive; with
    neither, those calls are Python's), and the constants whose calls may make a namespace
    (``Class.new``: with none given, every constant's assignment of a call is Python's). None when ``advance()`` is."""
    module = _load()[0]
    if module is None:
        return None
    if attrs is None and not mixins:
        return module.spec(fields, special, write, iterators, evals, hooks, max_nesting, visibility)
    if factories is None:
        return module.spec(fields, special, write, iterators, evals, hooks, max_nesting, visibility, mixins, attrs or {})
    return module.spec(fields, special, write, iterators, evals, hooks, max_nesting, visibility, mixins, attrs or {}, factories)


def line_starts() -> Callable[[bytes], bytes] | None:
    """``rdx.model.text.line_starts`` in C (the same bytes), or None when ``advance()`` is."""
    module = _load()[0]
    return None if module is None else module.line_starts  # type: ignore[no-any-return]


def find_words() -> Callable[[bytes, tuple[bytes, ...]], int] | None:
    """``find_words(source, words)``: the int whose bit i says whether ``words[i] in source``
    (words of two bytes or more, at most 32), in one pass over ``source``; None when
    ``advance()`` is."""
    module = _load()[0]
    return None if module is None else module.find_words  # type: ignore[no-any-return]


def definition_id() -> Callable[[bytes, int, str], int] | None:
    """``rdx.model.ids.definition_id`` in C, given the uri's ``definition_prefix`` (the same
    int), or None when ``advance()`` is."""
    module = _load()[0]
    return None if module is None else module.definition_id  # type: ignore[no-any-return]


def statement_calls() -> Callable[..., list[tuple[int, int, int]]] | None:
    """The statement-level calls ``rdx.ruby.evaluate.loadfacts`` reads, found in C (see
    ``walk.c``), or None when ``advance()`` is."""
    module = _load()[0]
    return None if module is None else module.statement_calls  # type: ignore[no-any-return]


def disabled_reason() -> str:
    """Why ``advance()`` is None ("" when it is not)."""
    return _load()[1]


def reset() -> None:
    """Decide again at the next ``advance()`` (after ``RDX_NATIVE`` changed, say)."""
    _load.cache_clear()
