"""``Fleet``: the serving side's state on the driver: the repositories packed into shards (a few
per ``ShardServer`` actor, placed by an estimate of their memory; restarted by Ray from their
snapshots when they die), the fan-out of one tool call to the shards that hold the asked
repositories (one Ray call per shard, all awaited at once), and the atomic swap of a
repository re-indexed while serving. It owns the actor handles; merging is
``rdx_fleet.merge``, HTTP is ``rdx_fleet.front``.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from typing import Any, NamedTuple

import msgspec

import rdx
from rdx_fleet.actors import Hosted, ShardServer
from rdx_fleet.copies import sweep
from rdx_fleet.links import Link, links_of, local_gems_of, python_roots_of
from rdx_fleet.manifest import Manifest
from rdx_fleet.store import Store

__all__ = ["Fleet", "Placed", "Unavailable", "plan_shards"]

# Bytes of memory an opened graph takes per byte of its snapshot on disk (measured on the
# Debian gems: see docs/fleet.md); the base covers the interpreter, rdx and Ruby's core stub,
# paid once per shard.
MEMORY_PER_SNAPSHOT_BYTE = 12
MEMORY_FLOOR = 64 << 20
SHARD_BASE = 160 << 20
# A shard holds repositories up to about this estimate; a larger repository is a shard alone.
SHARD_BUDGET = 2 << 30


class Unavailable(Exception):
    """A repository's actor died or is restarting; the query may be retried."""

    def __init__(self, repository: str, detail: str) -> None:
        super().__init__(f"repository {repository} is unavailable: {detail}")
        self.repository = repository


class Placed(NamedTuple):
    """Where one repository is served: its shard's actor, the commit it opened, the shard's number."""

    handle: Any
    commit: str
    shard: int


def plan_shards(sizes: dict[str, int], budget: int, at_least: int) -> list[list[str]]:
    """Repositories (name -> estimated bytes) packed into shards: at least ``at_least`` of
    them (so the shards spread over the cluster's cores), more when the estimates exceed
    ``budget`` per shard; the largest first, each into the lightest shard (ties: the lower
    number), every shard's names sorted. Deterministic for the same input."""
    if not sizes:
        return []
    count = min(len(sizes), max(1, at_least, math.ceil(sum(sizes.values()) / max(1, budget))))
    shards: list[list[str]] = [[] for _ in range(count)]
    load = [0] * count
    for name in sorted(sizes, key=lambda n: (-sizes[n], n)):
        k = min(range(count), key=lambda i: (load[i], i))
        shards[k].append(name)
        load[k] += sizes[name]
    return [sorted(s) for s in shards if s]


class Fleet:
    """The repositories of ``manifest`` served by Ray actors (``ray`` is initialised).
    ``shards``: how many actors at least (default: one per live node, so that losing a node
    loses only its share; within a node, fewer shards mean fewer calls per query, see
    docs/fleet.md); ``shard_budget``: the most memory one shard is planned to hold."""

    def __init__(self, manifest: Manifest, ray: Any, *, shards: int | None = None, shard_budget: int = SHARD_BUDGET) -> None:
        self.manifest = manifest
        self.ray = ray
        self.store = Store(manifest.store)
        self.roots = sorted(((r.name, os.path.realpath(r.path)) for r in manifest.repositories), key=lambda x: -len(x[1]))
        self.links: list[Link] = links_of(manifest)
        self.local_gems = local_gems_of(manifest, self.links)
        self.python_roots = python_roots_of(manifest, self.links)
        self.min_shards = shards
        self.shard_budget = shard_budget
        self.actors: dict[str, Placed] = {}  # name -> where it is served, in name order
        self._retired: list[Any] = []
        self._next_shard = 0
        self._remote = ray.remote(ShardServer)
        # Each served repository's ranked-search statistics per file path (``statistics``).
        self._statistics: dict[str, dict[str, rdx.CollectionStatistics]] = {}
        self.statistics = rdx.CollectionStatistics()  # Their sum: one index over the union's.
        self._statistics_ref: Any = None
        # Each shard's directory of snapshot copies (on its node), as it last said.
        self._copies: dict[Any, str] = {}

    def _estimate(self, name: str, commit: str) -> int:
        meta = self.store.metadata(name, commit)
        return max(MEMORY_FLOOR, int(meta.get("snapshot_bytes", 0)) * MEMORY_PER_SNAPSHOT_BYTE)  # type: ignore[call-overload]

    def _spawn(self, names: list[str], commits: dict[str, str]) -> Any:
        hosted = [Hosted(n, self.manifest.get(n).path, commits[n], self.local_gems.get(n, {}), self.python_roots.get(n, [])) for n in names]
        memory = SHARD_BASE + sum(self._estimate(n, commits[n]) for n in names)
        return self._remote.options(
            # SPREAD: the graphs' memory over every node, so losing one loses few repositories.
            num_cpus=0, memory=memory, max_restarts=-1, max_task_retries=0, max_concurrency=8, scheduling_strategy="SPREAD",
        ).remote(hosted, self.store.root, self.roots)

    def _place(self, groups: list[list[str]], commits: dict[str, str]) -> dict[str, Placed]:
        """Start one actor per group, wait until every one is ready, and say where each name is."""
        started = []
        for names in groups:
            started.append((self._spawn(names, commits), names, self._next_shard))
            self._next_shard += 1
        for (h, _, _), info in zip(started, self.ray.get([h.info.remote() for h, _, _ in started]), strict=True):
            self._copies[h] = os.path.dirname(info[0]["copy"])
        return {n: Placed(h, commits[n], k) for h, names, k in started for n in names}

    def _commits(self) -> dict[str, str]:
        out = {}
        for repo in self.manifest.repositories:
            commit = self.store.current(repo.name)
            if commit is not None:
                out[repo.name] = commit
        return out

    def start(self) -> Fleet:
        """Plan the shards of every repository with a published snapshot, start them and wait."""
        commits = self._commits()
        if not commits:
            raise rdx.NotFoundError(f"no repository has a snapshot in {rdx.excerpt(self.store.root)}; run rdx fleet index first")
        at_least = self.min_shards if self.min_shards is not None else sum(1 for node in self.ray.nodes() if node.get("Alive"))
        groups = plan_shards({n: self._estimate(n, c) for n, c in commits.items()}, self.shard_budget, at_least)
        self.sweep_nodes()  # What the shards of an earlier fleet that died left behind.
        placed = self._place(groups, commits)
        self._share_statistics(placed, {})
        self.actors = dict(sorted(placed.items()))
        return self

    def _share_statistics(self, placed: dict[str, Placed], serving: dict[str, Placed]) -> None:
        """Gather the ranked-search statistics of the repositories just ``placed``, sum every
        served repository's over distinct file paths (a file two graphs hold, Ruby's core or
        a shared gem, counts once: the statistics of one index over the union), and give the
        sum to every shard of ``placed`` and ``serving``, before they are swapped in."""
        handles = {p.shard: p.handle for p in placed.values()}
        for raw in self.ray.get([h.statistics_of.remote() for h in handles.values()]):
            decoded = msgspec.msgpack.decode(raw, type=dict[str, dict[str, rdx.CollectionStatistics]])
            self._statistics.update(decoded)
        served = set(serving) | set(placed)
        self._statistics = {n: s for n, s in self._statistics.items() if n in served}
        by_path: dict[str, rdx.CollectionStatistics] = {}
        for name in sorted(self._statistics):
            for path, stats in self._statistics[name].items():
                by_path.setdefault(path, stats)
        total = rdx.CollectionStatistics()
        for path in sorted(by_path):
            total = total.plus(by_path[path])
        self.statistics = total
        self._statistics_ref = encoded = self.ray.put(msgspec.msgpack.encode(total))
        every = {p.shard: p.handle for p in (*serving.values(), *placed.values())}
        self.ray.get([h.set_statistics.remote(encoded) for h in every.values()])

    def score_by_statistics(self, on: bool) -> None:
        """Ranked search merged by score (the default), or, off, by interleaving ranks, the
        shards given no statistics (for measuring one against the other)."""
        if not on:
            self._statistics_ref = None
        elif self._statistics_ref is None:
            self._statistics_ref = self.ray.put(msgspec.msgpack.encode(self.statistics))
        self.ray.get([h.set_statistics.remote(self._statistics_ref) for h in {p.shard: p.handle for p in self.actors.values()}.values()])

    def restore_statistics(self, names: list[str]) -> None:
        """Give the statistics again to the shards of ``names``, which answered without them:
        Ray restarted them (a restart runs the constructor only). Not awaited: their next
        answers are scored."""
        actors = self.actors
        if self._statistics_ref is None:  # Off (``score_by_statistics``).
            return
        for handle in {actors[n].shard: actors[n].handle for n in names if n in actors}.values():
            handle.set_statistics.remote(self._statistics_ref)

    def sweep_nodes(self) -> list[str]:
        """Remove, on every live node, the snapshot copies that no live shard owns
        (``rdx_fleet.copies.sweep``); the directories removed."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        task = self.ray.remote(num_cpus=0, max_retries=0)(sweep)
        refs = [
            task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote()
            for node in self.ray.nodes() if node.get("Alive")
        ]
        return sorted(d for gone in self.ray.get(refs, timeout=120) for d in gone)

    def _end(self, handles: set[Any]) -> None:
        """Close (removes their copies of the snapshots) and kill the actors of ``handles``;
        a shard that could not close (dead, stuck) is swept once its process is gone."""
        closing = {h.close.remote(): h for h in handles}
        done, _ = self.ray.wait(list(closing), num_returns=len(closing), timeout=30)
        failed = []
        for ref in closing:
            try:
                if ref not in done:
                    raise TimeoutError
                self.ray.get(ref)
            except Exception:
                failed.append(closing[ref])
        for handle in handles:
            self.ray.kill(handle)
        copies = {h: self._copies.pop(h, "") for h in handles}
        if not failed:
            return
        left = {copies[h] for h in failed} - {""}
        # Their processes end shortly after the kill, and with them their locks: sweep until
        # their copies are gone (a minute at most).
        for _ in range(120):
            left -= set(self.sweep_nodes())
            if not left:
                break
            time.sleep(0.5)

    def refresh(self) -> list[str]:
        """Swap in every repository whose current snapshot changed since it was started: its
        whole shard is started again with the current commits, ready before the swap (one
        assignment); the old actor ends at the next refresh. Returns the names swapped."""
        self._end(set(self._retired))
        self._retired = []
        commits = self._commits()
        changed = sorted(n for n, c in commits.items() if n not in self.actors or self.actors[n].commit != c)
        if not changed:
            return []
        shards = sorted({self.actors[n].shard for n in changed if n in self.actors})
        groups = [sorted(n for n, p in self.actors.items() if p.shard == k) for k in shards]
        groups += [[n] for n in changed if n not in self.actors]  # Indexed for the first time.
        placed = self._place(groups, {**{n: p.commit for n, p in self.actors.items()}, **commits})
        self._share_statistics(placed, {n: p for n, p in self.actors.items() if n not in placed})
        old = {self.actors[n].handle for n in placed if n in self.actors}
        self.actors = dict(sorted({**self.actors, **placed}.items()))  # One assignment: atomic for readers.
        self._retired = list(old)
        return changed

    def stop(self) -> None:
        self._end({p.handle for p in self.actors.values()} | set(self._retired))
        self.actors, self._retired = {}, []

    def names(self, only: list[str] | None = None) -> list[str]:
        """The served repositories, in name order, or those of ``only`` (unknown: an error)."""
        actors = self.actors
        if not only:
            return list(actors)
        unknown = sorted(set(only) - set(actors))
        if unknown:
            raise rdx.NotFoundError(f"no repository named {rdx.excerpt(unknown[0])} is served")
        return [n for n in actors if n in only]

    async def call(self, name: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One tool call on one repository: ``{"ok": ...}`` or ``{"error": ...}``."""
        return (await self.fan([name], tool, arguments))[name]

    async def fan(self, names: list[str], tool: str, arguments: dict[str, Any], *, shared_limit: bool = False) -> dict[str, dict[str, Any]]:
        """The same call on every repository of ``names``, answers in name order: the
        arguments are validated once here (tools of ``ANSWERS``), then one call per shard.
        ``shared_limit`` (grep from the start of the concatenation): each shard spends
        ``limit`` over its repositories in order (the repositories of other shards before
        them only push the page's end earlier, so what it sends covers the page)."""
        from mcp.server.mcpserver.exceptions import ToolError

        from rdx_mcp.server import ANSWERS, answer_arguments

        direct = tool in ANSWERS
        if direct:
            try:
                arguments = answer_arguments(tool, arguments)
            except ToolError as exc:
                text = str(exc)
                body = json.loads(text[text.index("{") :])
                return {n: {"error": body} for n in names}
        actors = self.actors  # One reading: a swap meanwhile does not mix two placements.
        groups: dict[int, tuple[Any, list[str]]] = {}
        for n in names:
            placed = actors[n]
            groups.setdefault(placed.shard, (placed.handle, []))[1].append(n)
        refs = [(group, handle.answer.remote(tool, arguments, group, direct, shared_limit and direct)) for handle, group in groups.values()]
        # Every shard awaited at once, on this event loop (an ObjectRef is awaitable): no
        # thread hop, and no shard waits for another to be collected.
        answers = await asyncio.gather(*(ref for _, ref in refs), return_exceptions=True)
        got: dict[str, dict[str, Any]] = {}
        for (group, _), raw in zip(refs, answers, strict=True):
            got.update(self._failed(group, tool, raw) if isinstance(raw, BaseException) else msgspec.msgpack.decode(raw))
        return {n: got[n] for n in names}

    def _failed(self, group: list[str], tool: str, exc: BaseException) -> dict[str, dict[str, Any]]:
        """The answers of a shard whose call raised ``exc``, with the cluster's failures made ``rdx``'s."""
        if isinstance(exc, (self.ray.exceptions.RayActorError, self.ray.exceptions.ActorUnavailableError)):
            raise Unavailable(", ".join(group), type(exc).__name__) from None
        if isinstance(exc, self.ray.exceptions.RayTaskError):  # A bug in rdx, not a fault of the cluster.
            detail = rdx.excerpt(str(getattr(exc, "cause", exc)), 300)
            return {
                n: {"error": {"type": "internal", "message": f"repository {rdx.excerpt(n)}: {tool} failed: {detail}",
                              "suggestion": "this is a bug in rdx; other queries still work", "repository": n}}
                for n in group
            }
        raise exc

    def info(self) -> list[dict[str, Any]]:
        """One entry per served repository, in name order (shards answer for all they hold)."""
        handles = {p.shard: p.handle for p in self.actors.values()}
        batches = self.ray.get([h.info.remote() for h in handles.values()])
        for handle, batch in zip(handles.values(), batches, strict=True):
            self._copies[handle] = os.path.dirname(batch[0]["copy"])  # A restarted shard has new ones.
        found = {i["repository"]: i for batch in batches for i in batch}
        return [found[n] for n in self.actors]

