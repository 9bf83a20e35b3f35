"""``RepoServer``: the Ray actor that holds one repository's opened graph and answers the MCP
tools for it (``rdx_mcp.build_server``, so shapes and validation are exactly one project's).
It opens a private copy of the repository's published snapshot (the store's copy stays as
published), so a restart by Ray reopens from the snapshot. Every answer gets ``repository``
and ``commit``, and every item and file the repository it lies in (a gem another repository
builds lies there). It owns nothing but its graph; merging is the front's (``rdx_fleet.merge``).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import tempfile
from typing import Any

import rdx
from rdx_fleet.links import place
from rdx_fleet.store import Store

__all__ = ["RepoServer", "annotate"]

_LOCATION = re.compile(r"^(.*):(\d+:\d+-\d+:\d+)$")


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
        repo, rel = where(f["path"])
        f["path"], f["repository"] = rel, repo
    out["repository"] = name
    return out


def _node_id() -> str | None:
    try:
        import ray

        return str(ray.get_runtime_context().get_node_id())
    except Exception:  # Outside Ray (a test calling the class directly).
        return None


class RepoServer:
    """One repository's graph, opened from its snapshot at ``commit`` (a Ray actor)."""

    def __init__(self, name: str, path: str, store_root: str, commit: str, roots: list[tuple[str, str]]) -> None:
        from rdx_mcp import Workspace, build_server

        self.name, self.path, self.commit, self.roots = name, path, commit, roots
        self.root = os.path.realpath(path)
        self.local = tempfile.mkdtemp(prefix=f"rdx-fleet-{name}-")
        shutil.rmtree(self.local)
        shutil.copytree(Store(store_root).snapshot_dir(name, commit), self.local)
        self.workspace = Workspace(path, cache_dir=self.local, watch=False).start()
        if not self.workspace.wait_ready(timeout=3600):
            raise rdx.InternalError(f"repository {rdx.excerpt(name)} did not open from its snapshot: {self.workspace._error}")
        self.server = build_server(self.workspace)
        self.revision = self.workspace.graph().revision

    def info(self) -> dict[str, Any]:
        """Who and where this actor is, and its peak memory (for placement estimates)."""
        return {
            "repository": self.name, "commit": self.commit, "revision": self.revision, "pid": os.getpid(),
            "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "node": _node_id(),
        }

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``{"ok": output}`` or ``{"error": {type, message, suggestion}}`` of one MCP tool."""
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            result = await self.server.call_tool(tool, arguments)
        except ToolError as exc:
            text = str(exc)
            body = json.loads(text[text.index("{") :]) if "{" in text else {"type": "internal", "message": text, "suggestion": ""}
            body["repository"] = self.name
            return {"error": body}
        out = dict(getattr(result, "structured_content", None) or {})
        out["commit"] = self.commit
        return {"ok": annotate(out, self.name, self.root, self.roots)}
