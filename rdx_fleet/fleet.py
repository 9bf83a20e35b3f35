"""``Fleet``: the serving side's state on the driver: one ``RepoServer`` actor per repository
(placed by an estimate of its memory; restarted by Ray from its snapshot when it dies), the
fan-out of one tool call to many of them, and the atomic swap of a repository re-indexed while
serving. It owns the actor handles; merging is ``rdx_fleet.merge``, HTTP is ``rdx_fleet.front``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import rdx
from rdx_fleet.actors import RepoServer
from rdx_fleet.links import Link, links_of
from rdx_fleet.manifest import Manifest
from rdx_fleet.store import Store

__all__ = ["Fleet", "Unavailable"]

# Bytes of memory an opened graph takes per byte of its snapshot on disk (measured on the
# Debian gems: see docs/fleet.md); the floor covers the interpreter and rdx itself.
MEMORY_PER_SNAPSHOT_BYTE = 12
MEMORY_FLOOR = 64 << 20


class Unavailable(Exception):
    """A repository's actor died or is restarting; the query may be retried."""

    def __init__(self, repository: str, detail: str) -> None:
        super().__init__(f"repository {repository} is unavailable: {detail}")
        self.repository = repository


class Fleet:
    """The repositories of ``manifest`` served by Ray actors (``ray`` is initialised)."""

    def __init__(self, manifest: Manifest, ray: Any) -> None:
        self.manifest = manifest
        self.ray = ray
        self.store = Store(manifest.store)
        self.roots = sorted(((r.name, os.path.realpath(r.path)) for r in manifest.repositories), key=lambda x: -len(x[1]))
        self.links: list[Link] = links_of(manifest)
        self.actors: dict[str, tuple[Any, str]] = {}  # name -> (handle, commit)
        self._retired: list[Any] = []
        self._remote = ray.remote(RepoServer)

    def _spawn(self, name: str, commit: str) -> Any:
        repo = self.manifest.get(name)
        meta = self.store.metadata(name, commit)
        memory = max(MEMORY_FLOOR, int(meta.get("snapshot_bytes", 0)) * MEMORY_PER_SNAPSHOT_BYTE)  # type: ignore[call-overload]
        return self._remote.options(
            # SPREAD: the graphs' memory over every node, so losing one loses few repositories.
            num_cpus=0, memory=memory, max_restarts=-1, max_task_retries=0, max_concurrency=8, scheduling_strategy="SPREAD",
        ).remote(name, repo.path, self.store.root, commit, self.roots)

    def start(self) -> Fleet:
        """Start an actor for every repository with a published snapshot and wait for them."""
        starting = {}
        for repo in self.manifest.repositories:
            commit = self.store.current(repo.name)
            if commit is not None:
                starting[repo.name] = (self._spawn(repo.name, commit), commit)
        if not starting:
            raise rdx.NotFoundError(f"no repository has a snapshot in {rdx.excerpt(self.store.root)}; run rdx fleet index first")
        self.ray.get([h.info.remote() for h, _ in starting.values()])
        self.actors = dict(sorted(starting.items()))
        return self

    def refresh(self) -> list[str]:
        """Swap in every repository whose current snapshot changed since it was started (the
        new actor is ready before the swap; the old one ends at the next refresh). Returns
        the names swapped."""
        for old in self._retired:
            self.ray.kill(old)
        self._retired = []
        changed = {}
        for repo in self.manifest.repositories:
            commit = self.store.current(repo.name)
            now = self.actors.get(repo.name)
            if commit is not None and (now is None or now[1] != commit):
                changed[repo.name] = (self._spawn(repo.name, commit), commit)
        self.ray.get([h.info.remote() for h, _ in changed.values()])
        for name, entry in changed.items():
            old = self.actors.get(name)
            self.actors = dict(sorted({**self.actors, name: entry}.items()))  # One assignment: atomic for readers.
            if old is not None:
                self._retired.append(old[0])
        return sorted(changed)

    def stop(self) -> None:
        for handle, _ in self.actors.values():
            self.ray.kill(handle)
        for old in self._retired:
            self.ray.kill(old)
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

    def _submit(self, name: str, tool: str, arguments: dict[str, Any]) -> Any:
        return self.actors[name][0].call.remote(tool, arguments)

    def _collect(self, name: str, tool: str, ref: Any) -> dict[str, Any]:
        """The answer behind ``ref``, with the cluster's failures made ``rdx``'s."""
        try:
            return dict(self.ray.get(ref))
        except (self.ray.exceptions.RayActorError, self.ray.exceptions.ActorUnavailableError) as exc:
            raise Unavailable(name, type(exc).__name__) from None
        except self.ray.exceptions.RayTaskError as exc:  # A bug in rdx, not a fault of the cluster.
            message = f"repository {rdx.excerpt(name)}: {tool} failed: {rdx.excerpt(str(getattr(exc, 'cause', exc)), 300)}"
            return {"error": {"type": "internal", "message": message, "suggestion": "this is a bug in rdx; other queries still work", "repository": name}}

    async def call(self, name: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One tool call on one repository: ``{"ok": ...}`` or ``{"error": ...}``."""
        return (await self.fan([name], tool, arguments))[name]

    async def fan(self, names: list[str], tool: str, arguments: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The same call on every repository of ``names``, answers in name order: every call
        is submitted first, then one thread waits for them all, off the event loop."""
        refs = [(n, self._submit(n, tool, arguments)) for n in names]

        def wait() -> dict[str, dict[str, Any]]:
            self.ray.wait([r for _, r in refs], num_returns=len(refs))
            return {n: self._collect(n, tool, r) for n, r in refs}

        return await asyncio.to_thread(wait)

    def info(self) -> list[dict[str, Any]]:
        return list(self.ray.get([h.info.remote() for h, _ in self.actors.values()]))
