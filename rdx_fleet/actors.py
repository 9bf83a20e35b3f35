"""``ShardServer``: the Ray actor that holds the opened graphs of a few repositories (a shard)
and answers the MCP tools for any of them. The tools that ``rdx serve``'s JSON API shares
(``rdx_mcp.server.ANSWERS``: grep, ranked search, declarations, stats, status) are called as
functions of the repository's workspace, with arguments the front validated once
(``answer_arguments``), so a query costs no MCP dispatch per repository; the other tools go
through the repository's MCP server (``rdx_mcp.build_server``), so shapes and validation are
exactly one project's. One call answers every repository of the shard that was asked, and
the answers travel as one msgpack byte string (cheaper for Ray to move than nested objects).

Each repository is opened from a private copy of its published snapshot (the store's copy
stays as published), so a restart by Ray reopens from the snapshot. Every answer gets
``repository`` and ``commit``, and every item and file the repository it lies in (a gem
another repository builds lies there). It owns nothing but its graphs; merging is the
front's (``rdx_fleet.merge``).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import shutil
import tempfile
from typing import Any

import msgspec

import rdx
from rdx_fleet.links import place, taking_gems
from rdx_fleet.store import Store

__all__ = ["Hosted", "ShardServer", "annotate"]

_LOCATION = re.compile(r"^(.*):(\d+:\d+-\d+:\d+)$")


class Hosted(msgspec.Struct, frozen=True):
    """One repository a shard serves: its name, checkout, the commit (store key) to open, and
    the gems it takes from other repositories' checkouts (gem name -> directory)."""

    name: str
    path: str
    commit: str
    local_gems: dict[str, str] = {}


def annotate(out: Any, name: str, root: str, roots: list[tuple[str, str]]) -> Any:
    """``out`` (a tool's structured output) with ``repository`` on every item, file and
    reference, and paths outside ``root`` (another repository's) made relative to theirs."""

    def where(path: str) -> tuple[str | None, str]:
        if not os.path.isabs(path):
            return name, path
        placed = place(os.path.realpath(path), roots)
        return placed if placed is not None else (None, path)

    def fix_location(item: dict[str, Any]) -> None:
        loc = item.get("location")
        match = _LOCATION.match(loc) if isinstance(loc, str) else None
        if match:
            repo, rel = where(match.group(1))
            item["location"] = f"{rel}:{match.group(2)}" if repo is not None else loc
            item["repository"] = repo
        else:
            item.setdefault("repository", name)

    for key in ("items", "members", "definitions"):  # Lists of located items (stats has counts).
        found = out.get(key)
        for item in found if isinstance(found, list) else []:
            fix_location(item)
    files = out.get("files")
    for f in files if isinstance(files, list) else []:
        if os.path.isabs(f["path"]):
            repo, rel = where(f["path"])
            f["path"], f["repository"] = rel, repo
        else:
            f["repository"] = name
    out["repository"] = name
    return out


def _node_id() -> str | None:
    try:
        import ray

        return str(ray.get_runtime_context().get_node_id())
    except Exception:  # Outside Ray (a test calling the class directly).
        return None


def _error_body(exc: Exception, name: str) -> dict[str, Any]:
    """The ``{type, message, suggestion}`` object of a tool error, naming the repository."""
    text = str(exc)
    body = json.loads(text[text.index("{") :]) if "{" in text else {"type": "internal", "message": text, "suggestion": ""}
    body["repository"] = name
    return dict(body)


class _Repo:
    """One opened repository of a shard: its workspace and, made on first use, its MCP server."""

    def __init__(self, hosted: Hosted, store_root: str) -> None:
        from rdx_mcp import Workspace

        self.name, self.commit = hosted.name, hosted.commit
        self.root = os.path.realpath(hosted.path)
        self.local = tempfile.mkdtemp(prefix=f"rdx-fleet-{hosted.name}-")
        shutil.rmtree(self.local)
        shutil.copytree(Store(store_root).snapshot_dir(hosted.name, hosted.commit), self.local)
        with taking_gems(hosted.local_gems):
            self.workspace = Workspace(hosted.path, cache_dir=self.local, watch=False).start()
            ready = self.workspace.wait_ready(timeout=3600)
        if not ready:
            raise rdx.InternalError(f"repository {rdx.excerpt(hosted.name)} did not open from its snapshot: {self.workspace._error}")
        self.revision = self.workspace.graph().revision
        self._server: Any = None

    def server(self) -> Any:
        if self._server is None:
            from rdx_mcp import build_server

            self._server = build_server(self.workspace)
        return self._server


class ShardServer:
    """The repositories of ``hosted``, opened from their snapshots (a Ray actor)."""

    def __init__(self, hosted: list[Hosted], store_root: str, roots: list[tuple[str, str]]) -> None:
        self.roots = roots
        self.repos = {h.name: _Repo(h, store_root) for h in hosted}

    def close(self) -> None:
        """Remove the private copies of the snapshots (before the actor is killed: a killed
        process runs no cleanup). The shard answers nothing afterwards."""
        for repo in self.repos.values():
            repo.workspace.stop()
            shutil.rmtree(repo.local, ignore_errors=True)

    def info(self) -> list[dict[str, Any]]:
        """Who and where each repository is, and the shard's peak memory (for placement)."""
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return [
            {"repository": r.name, "commit": r.commit, "revision": r.revision, "pid": os.getpid(), "max_rss_bytes": rss, "node": _node_id(),
             "shard": sorted(self.repos), "copy": r.local}
            for r in self.repos.values()
        ]

    def _direct(self, repo: _Repo, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tool of ``ANSWERS`` as a function of the workspace (arguments validated by the caller)."""
        from mcp.server.mcpserver.exceptions import ToolError

        from rdx_mcp.server import ANSWERS, UNLOCKED, internal_error, wire_json

        try:
            if tool in UNLOCKED:
                model = ANSWERS[tool](repo.workspace, **arguments)
            else:
                with repo.workspace.lock:
                    model = ANSWERS[tool](repo.workspace, **arguments)
        except ToolError as exc:
            return {"error": _error_body(exc, repo.name)}
        except Exception as exc:  # A bug in rdx: the same error object the MCP server gives.
            return {"error": _error_body(internal_error(tool, exc), repo.name)}
        return self._finish(repo, dict(wire_json(model)))

    async def _through_mcp(self, repo: _Repo, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            result = await repo.server().call_tool(tool, arguments)
        except ToolError as exc:
            return {"error": _error_body(exc, repo.name)}
        return self._finish(repo, dict(getattr(result, "structured_content", None) or {}))

    def _finish(self, repo: _Repo, out: dict[str, Any]) -> dict[str, Any]:
        out["commit"] = repo.commit
        return {"ok": annotate(out, repo.name, repo.root, self.roots)}

    def _all_direct(self, tool: str, arguments: dict[str, Any], names: list[str], shared_limit: bool) -> bytes:
        if not shared_limit:
            return msgspec.msgpack.encode({n: self._direct(self.repos[n], tool, arguments) for n in names})
        # ``limit`` is a budget of lines over ``names`` in their order (a page of their
        # concatenation from its start ends within it): each repository gets what the ones
        # before it left, and once it is spent only its counts (one line asked, none sent).
        out: dict[str, Any] = {}
        left = int(arguments["limit"])
        for n in names:
            answer = self._direct(self.repos[n], tool, {**arguments, "limit": max(1, left)})
            if "ok" in answer:
                if left <= 0:
                    answer["ok"]["files"] = []
                left -= int(answer["ok"]["total"])
            out[n] = answer
        return msgspec.msgpack.encode(out)

    async def answer(self, tool: str, arguments: dict[str, Any], names: list[str], direct: bool, shared_limit: bool = False) -> bytes:
        """Every repository of ``names`` answers ``tool``: a msgpack map from name to
        ``{"ok": output}`` or ``{"error": {type, message, suggestion}}``. ``direct``: the tool
        is one of ``ANSWERS`` and ``arguments`` are validated already. ``shared_limit`` (grep):
        ``limit`` lines at most over all of ``names``, in order, rather than each."""
        if direct:
            # Off the actor's event loop: a slow grep (up to its timeout) does not hold up the
            # other calls this shard is answering meanwhile.
            return await asyncio.to_thread(self._all_direct, tool, arguments, names, shared_limit)
        out = {n: await self._through_mcp(self.repos[n], tool, arguments) for n in names}
        return msgspec.msgpack.encode(out)
