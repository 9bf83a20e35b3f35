"""Deterministic merging of the shards' answers (pure functions over the tools' outputs).

- grep: repositories in name order, each in its own path and line order; exact global paging.
- ranked search: by score, when every shard scored with the fleet's collection statistics (the
  statistics of one index over the union, so scores compare): ties by name, then repository;
  a declaration outside the repositories (Ruby's core, a gem) that several list, once.
  Otherwise (a name-like word lists names first, ``dependencies=false``) the shards' ranks
  interleaved (rank 1 of every repository, in name order, then rank 2, ...).
- references: the union, without duplicates (a gem's uses seen from two graphs), in repository,
  path, line and column order.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["interleave", "interleave_depths", "merge_grep", "merge_references", "merge_scored", "own", "page_meta"]


def page_meta(total: int, offset: int, limit: int, shown: int) -> dict[str, Any]:
    end = offset + shown
    return {"total": total, "offset": offset, "limit": limit, "next_offset": end if end < total else None}


def merge_grep(shards: list[dict[str, Any]], offset: int, limit: int) -> dict[str, Any]:
    """One page of the concatenation of every shard's lines; each shard must hold its lines
    from its own offset ``shard["_from"]`` on."""
    lines: list[tuple[dict[str, Any], dict[str, Any]]] = []
    start = 0
    total = 0
    for shard in shards:
        total += shard["total"]
        index = start + shard["_from"]
        for f in shard["files"]:
            for line in f["lines"]:
                if offset <= index < offset + limit:
                    lines.append((f, line))
                index += 1
        start += shard["total"]
    files: list[dict[str, Any]] = []
    for f, line in lines:
        if not files or (files[-1]["repository"], files[-1]["path"]) != (f["repository"], f["path"]):
            files.append({"repository": f["repository"], "path": f["path"], "language": f["language"], "lines": []})
        files[-1]["lines"].append(line)
    return {
        **page_meta(total, offset, limit, len(lines)),
        "matched_files": sum(s.get("matched_files", 0) for s in shards),
        "complete": all(s.get("complete", True) for s in shards),
        "files": files,
    }


def own(items: list[dict[str, Any]], shard: str, served: set[str]) -> list[dict[str, Any]]:
    """``items`` without those that lie in another served repository: a gem that repository
    builds, which its own shard answers (so the fleet lists each declaration once)."""
    return [i for i in items if i.get("repository") in (None, shard) or i.get("repository") not in served]


def interleave(shards: list[list[T]]) -> list[T]:
    """Rank 1 of each shard (in the given order), then rank 2, ..."""
    out: list[T] = []
    depth = max((len(s) for s in shards), default=0)
    for rank in range(depth):
        out += [s[rank] for s in shards if rank < len(s)]
    return out


def interleave_depths(counts: list[int], end: int) -> list[int]:
    """How many leading items of each list (of ``counts`` items) the first ``end`` items of
    their ``interleave`` take: what each shard must send for a page ending at ``end``."""
    depths = [0] * len(counts)
    taken = 0
    rank = 0
    while taken < end and any(c > rank for c in counts):
        for i, c in enumerate(counts):
            if c > rank and taken < end:
                depths[i] = rank + 1
                taken += 1
        rank += 1
    return depths


def merge_references(shards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every reference once, as ``{repository, path, at, name, certain, receiver?}``, sorted."""
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for shard in shards:
        for f in shard["files"]:
            for ref in f["refs"]:
                key = (f["repository"] or "", f["path"], ref["at"])
                seen.setdefault(key, {"repository": f["repository"], "path": f["path"], **ref})

    def order(r: dict[str, Any]) -> tuple[str, str, int, int]:
        line, col = r["at"].split("-")[0].split(":")
        return (r["repository"] or "", r["path"], int(line), int(col))

    return sorted(seen.values(), key=order)


def merge_scored(rankings: dict[str, list[list[Any]]], most: int) -> list[tuple[str, int]]:
    """The first ``most`` of every repository's ranking (``[name, score, shared]``, best first)
    merged: (repository, index in its ranking), by score, then name, then repository. A
    shared entry (defined outside its repository) is dropped when a repository lists that
    name as its own, and kept once otherwise (Ruby's core, a gem several repositories lock).
    Each ranking must be in (score descending, name) order with each name once, as
    ``rdx_fleet.actors.ranking`` makes it: the lists are merged lazily (``heapq.merge``), so a
    page reads about ``most`` entries of the thousands sent rather than sorting them all, and
    the names repositories own are gathered only when a shared entry comes up."""

    def stream(repo: str, ranking: list[list[Any]]) -> Iterator[tuple[float, str, str, int, bool]]:
        for i, (name, score, shared) in enumerate(ranking):
            yield -float(score), name, repo, i, bool(shared)

    streams = [stream(repo, ranking) for repo, ranking in rankings.items()]
    owned: set[str] | None = None
    seen: set[str] = set()
    out: list[tuple[str, int]] = []
    if most <= 0:
        return out
    for _, name, repo, i, shared in heapq.merge(*streams):
        if shared:
            if owned is None:
                owned = {n for ranking in rankings.values() for n, _, s in ranking if not s}
            if name in owned or name in seen:
                continue
            seen.add(name)
        out.append((repo, i))
        if len(out) == most:
            break
    return out
