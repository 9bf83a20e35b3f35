"""The loader of rdx's native query runner (``query.c``, built into ``_query*.so`` by
``rdx/native/build.py``, ``make native``).

``runner()`` is the module's ``run``: it runs a spec's query over a tree in C and returns the
symbols and references the engine of ``rdx.languages`` makes of its matches, without a Python
object per capture (see ``query.c``); the patterns ``patterns.py`` compiles into a table it
matches itself, in one walk of the tree, rather than with tree-sitter's query cursor. It is
None when the module was not built, was built for another tree-sitter than the one installed,
``RDX_NATIVE=0`` is set, or its matches of a sample disagree with py-tree-sitter's
``QueryCursor.matches``; the engine then reads py-tree-sitter's matches in Python and produces
the same records. ``importer()`` is the module's ``imports``: a file's imports by the rules of
a spec's hook that ``query.c`` reads itself (JavaScript's, Python's, Rust's, Go's, C's). This module imports
nothing from rdx.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["agrees_on_sample", "disabled_reason", "importer", "matched_trees", "reset", "runner"]

# The version of the module's functions' arguments and answers (``API`` in ``query.c``).
_API = 2

# A sample that exercises every predicate py-tree-sitter evaluates (and a name it ignores),
# quantified captures, and captures listed out of their names' order.
_SAMPLE = b"""\
import os
CONSTANT = 1
lower = 2
MIXED_case = lambda: 3
class Foo(Base, os.Bar):
    def method(self, x: int) -> Foo:
        return self.method(x)
def prototype(a, b): return a(b, b)
def same(same): return same.same(same)
print(b(CONSTANT), a(lower))
"""

_SAMPLE_QUERY = """
(module (assignment left: (identifier) @name) @constant (#match? @name "^[A-Z][A-Z0-9_]*$"))
(module (assignment left: (identifier) @name) @other (#not-match? @name "^[A-Z]+$"))
(class_definition name: (identifier) @name superclasses: (argument_list (_)+ @base)) @class
(function_definition name: (identifier) @name (#eq? @name "prototype")) @function
(function_definition name: (identifier) @name (#not-eq? @name "prototype")) @function
(function_definition name: (identifier) @name parameters: (parameters (identifier) @param) (#eq? @name @param)) @same
(function_definition name: (identifier) @name parameters: (parameters (identifier) @param) (#not-eq? @name @param)) @other
(function_definition name: (identifier) @name parameters: (parameters (identifier)+ @param) (#any-eq? @param "b")) @any
(call function: (identifier) @call arguments: (argument_list (identifier)* @arg) (#any-of? @call "a" "b"))
(call function: (identifier) @call (#not-any-of? @call "a" "b"))
(call function: (attribute object: (_) @qualifier attribute: (identifier) @call) (#any-match? @call "^m"))
(call function: (_) @call arguments: (argument_list (identifier) @arg) (#any-not-eq? @arg "same"))
(type (identifier) @type (#unknown? @type "ignored"))
"""


@cache
def _load() -> tuple[Callable[..., Any] | None, str]:
    if os.environ.get("RDX_NATIVE", "1").strip().lower() in {"0", "off", "no", "false"}:
        return None, "RDX_NATIVE=0"
    try:
        # The compiled half of this module, built beside it (``build.py``); loaded by name.
        _query: Any = importlib.import_module("rdx.native._query")
    except ImportError as exc:
        return None, f"not built ({exc})"
    import tree_sitter

    if _query.version() != tree_sitter.__version__:
        return None, f"built for tree-sitter {_query.version()}, but {tree_sitter.__version__} is installed: run make native"
    if getattr(_query, "API", 0) != _API:
        return None, "built from another query.c than this rdx's: run make native"
    if not agrees_on_sample(_query.matches):
        return None, "its matches of a sample disagree with py-tree-sitter's"
    return _query.run, ""


def agrees_on_sample(matches: Callable[..., Any]) -> bool:
    """Whether ``matches`` (the module's) lists the matches of a sample query over a sample
    tree as ``QueryCursor.matches`` does: the same patterns in the same order, each with the
    same captures (names in the same order, nodes by byte range), every predicate kind kept or
    rejected alike."""
    import tree_sitter
    from tree_sitter_language_pack import get_language

    language = get_language("python")
    query = tree_sitter.Query(language, _SAMPLE_QUERY)
    root = tree_sitter.Parser(language).parse(_SAMPLE).root_node
    expected = [
        (pattern, [(name, [(node.start_byte, node.end_byte) for node in nodes]) for name, nodes in captures.items()])
        for pattern, captures in tree_sitter.QueryCursor(query).matches(root)
    ]
    found = matches(query, root)
    if found is None:
        return False
    seen = []
    for pattern, captures in found:
        grouped: dict[str, list[tuple[int, int]]] = {}
        for capture, start, end in captures:
            grouped.setdefault(query.capture_name(capture), []).append((start, end))
        seen.append((pattern, list(grouped.items())))
    return seen == expected and {pattern for pattern, _ in seen} == set(range(query.pattern_count))


def runner() -> Callable[..., Any] | None:
    """The native query runner (``run`` of ``query.c``), or None when the engine must read
    py-tree-sitter's matches in Python."""
    return _load()[0]


def importer() -> Callable[..., Any] | None:
    """The module's ``imports`` (a file's imports by the rules of a spec's hook, read in C:
    see ``rdx.languages.engine.NATIVE_IMPORTS``), or None when ``runner()`` is."""
    return _imports(_load()[0])


@cache
def _imports(run: Callable[..., Any] | None) -> Callable[..., Any] | None:
    if run is None:
        return None
    compiled: Any = importlib.import_module("rdx.native._query")
    return compiled.imports  # type: ignore[no-any-return]


def matched_trees() -> int:
    """How many trees the runner's own matcher has answered for in this process (the patterns
    it reads, ``rdx/native/patterns.py``), rather than tree-sitter's query cursor; 0 when the
    runner is not in use."""
    if _load()[0] is None:
        return 0
    compiled: Any = importlib.import_module("rdx.native._query")
    return int(compiled.matched())


def disabled_reason() -> str:
    """Why ``runner()`` is None ("" when it is not)."""
    return _load()[1]


def reset() -> None:
    """Decide again at the next ``runner()`` (after ``RDX_NATIVE`` changed, say)."""
    _load.cache_clear()
