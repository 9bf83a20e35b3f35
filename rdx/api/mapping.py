"""``Graph.repo_map`` behind the façade: argument checks and what a focus names (a file of the
project, or declarations by qualified or bare name). The map itself is ``rdx.map.repomap``."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

from rdx.map.repomap import DETAILS, RepoMap, map_graph, repo_map
from rdx.model.errors import InvalidArgumentError, NotFoundError
from rdx.ruby.query.handles import View
from rdx.workspace.files import path_to_uri

if TYPE_CHECKING:
    from rdx.api.graph import Graph

__all__ = ["MIN_TOKENS", "build_repo_map"]

MIN_TOKENS = 64


def build_repo_map(graph: Graph, view: View, max_tokens: object, focus: Iterable[str] | str | None, detail: object) -> RepoMap:
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < MIN_TOKENS:
        raise InvalidArgumentError(f"max_tokens must be an integer >= {MIN_TOKENS}, got {max_tokens!r}")
    if detail not in DETAILS:
        raise InvalidArgumentError(f"detail {detail!r} is not one of {', '.join(DETAILS)}")
    items = [focus] if isinstance(focus, str) else list(focus or ())
    if not all(isinstance(item, str) and item.strip() for item in items):
        raise InvalidArgumentError(f"focus must be file paths or declaration names, got {focus!r}")
    roots = graph._roots_list()
    nodes, unmatched = _focus_nodes(graph, view, items, roots[0] if roots else None)
    if items and not nodes:
        raise NotFoundError(f"nothing in the graph matches the focus {items!r}; pass indexed file paths or declaration names")
    result = repo_map(view, max_tokens=max_tokens, focus=nodes, root=roots, detail=str(detail))
    if unmatched:
        # Said in the map itself, where the agent reads it.
        result = msgspec.structs.replace(result, unmatched=unmatched)
    return result


def _focus_nodes(graph: Graph, view: View, items: list[str], root: str | None) -> tuple[list[int], list[str]]:
    mg = map_graph(view)
    nodes: list[int] = []
    unmatched: list[str] = []
    for item in items:
        found = _file_node(mg.file_index, item, root)
        if found is not None:
            nodes.append(found)
            continue
        decls = [d.id for d in graph.declarations_named(item)] or mg.named(item)
        found_decls = [mg.decl_index[d] for d in decls if d in mg.decl_index]
        if found_decls:
            nodes.extend(found_decls)
        else:
            unmatched.append(item)
    return nodes, unmatched


def _file_node(files: dict[str, int], item: str, root: str | None) -> int | None:
    candidates = [item]
    if root is not None and not os.path.isabs(item):
        candidates.insert(0, os.path.join(root, item))
    for candidate in candidates:
        uri = item if "://" in item else path_to_uri(candidate)
        if uri in files:
            return files[uri]
    return None
