"""``ShardServer``: the Ray actor that holds the opened graphs of a few repositories (a shard)
and answers the MCP tools for any of them. The tools that ``rdx serve``'s JSON API shares
(``rdx_mcp.server.ANSWERS``: grep, ranked search, declarations, stats, status) are called as
functions of the repository's workspace, with arguments the front validated once
(``answer_arguments``), so a query costs no MCP dispatch per repository; the other tools go
through the repository's MCP server (``rdx_mcp.build_server``), so shapes and validation are
exactly one project's. One call answers every repository of the shard that was asked, and
the answers travel as one msgpack byte string (cheaper for Ray to move than nested objects).

Each repository is opened from a private copy of its published snapshot (the store's copy
stays as published; ``rdx_fleet.copies``), so a restart by Ray reopens from the snapshot; a
shard that starts (or restarts) first removes the copies that dead shards left on its node. Every answer gets
``repository`` and ``commit``, and every item and file the repository it lies in (a gem
another repository builds lies there). It owns nothing but its graphs; merging is the
front's (``rdx_fleet.merge``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import resource
from typing import Any

import msgspec

import rdx
from rdx_fleet.copies import ShardCopies, sweep
from rdx_fleet.indexing import LINKED_DIR
from rdx_fleet.links import place, taking_gems
from rdx_fleet.merge import merge_scored
from rdx_fleet.store import Store

__all__ = ["Hosted", "ShardServer", "annotate"]

_LOCATION = re.compile(r"^(.*):(\d+:\d+-\d+:\d+)$")


class Hosted(msgspec.Struct, frozen=True):
    """One repository a shard serves: its name, checkout, the commit (store key) to open, the
    gems it takes from other repositories' checkouts (gem name -> directory), and the other
    repositories' Python package directories it imports (``python_roots``)."""

    name: str
    path: str
    commit: str
    local_gems: dict[str, str] = {}
    python_roots: list[str] = []


def annotate(out: Any, name: str, root: str, roots: list[tuple[str, str]]) -> Any:
    """``out`` (a tool's structured output) with ``repository`` on every item, file and
    reference, and paths outside ``root`` (another repository's) made relative to theirs."""

    def where(path: str) -> tuple[str | None, str]:
        if not os.path.isabs(path):  # Relative: this repository's; a URI (Ruby's core): none's.
            return (None, path) if "://" in path else (name, path)
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


def ranking(out: dict[str, Any], scores: dict[str, tuple[float, str]], roots: tuple[str, ...], arguments: dict[str, Any]) -> None:
    """Add to a ranked search's answer ``out`` the whole list it ranked, ``ranking``: ``[name,
    score, shared]`` best first (``shared``: defined outside the repository, in Ruby's core
    or a gem, so another repository may list it too), and each item's ``score``; when the
    answer is not in score order (one name-like word puts names first; ``dependencies=false``
    drops some), no ranking: the front merges by rank then. ``roots``: the repository's
    directory as given and as resolved, each ending with a separator (a string test per
    entry: resolving a hundred paths per repository would cost more than the search)."""
    ordered = sorted(scores.items(), key=lambda x: (-x[1][0], x[0]))
    items = out.get("items") or []
    if arguments.get("dependencies") is False or [i["name"] for i in items] != [n for n, _ in ordered[: len(items)]]:
        return
    for item in items:
        item["score"] = scores[item["name"]][0]
    out["ranking"] = [[n, score, not p.startswith(roots)] for n, (score, p) in ordered]


def _node_id() -> str | None:
    try:
        import ray

        if not ray.is_initialized():
            return None  # Outside Ray: asking the runtime context would start a local cluster.
        return str(ray.get_runtime_context().get_node_id())
    except Exception:  # Outside Ray (a test calling the class directly).
        return None


def _error_body(exc: Exception, name: str) -> dict[str, Any]:
    """The ``{type, message, suggestion}`` object of a tool error, naming the repository."""
    text = str(exc)
    body = json.loads(text[text.index("{") :]) if "{" in text else {"type": "internal", "message": text, "suggestion": ""}
    body["repository"] = name
    return dict(body)


# The tools a repository linked by Python answers from its graph opened with the other
# repositories' packages beside it: positions in it, and uses of their declarations in it.
LINKED_TOOLS = frozenset({"definition_at", "hover_at", "find_constant_references", "find_method_references"})


class _Repo:
    """One opened repository of a shard: its workspace and, made on first use, its MCP server.
    A repository linked by Python to others has a second workspace, its graph opened with
    their package directories beside its root (``linked``, from the snapshot's ``linked``
    directory): the tools of ``LINKED_TOOLS`` answer from it, so a definition lands in the
    other repository and references list this one's uses of the other's declarations, while
    grep, search, declarations, stats and the map stay this repository's own."""

    def __init__(self, hosted: Hosted, store_root: str, copies: ShardCopies) -> None:
        from rdx_mcp import Workspace

        self.name, self.commit = hosted.name, hosted.commit
        self.root = os.path.realpath(hosted.path)
        self.prefixes = tuple(dict.fromkeys(p.rstrip(os.sep) + os.sep for p in (os.path.abspath(hosted.path), self.root)))
        self.local = copies.copy(hosted.name, Store(store_root).snapshot_dir(hosted.name, hosted.commit))
        with taking_gems(hosted.local_gems):
            self.workspace = Workspace(hosted.path, cache_dir=self.local, watch=False).start()
            ready = self.workspace.wait_ready(timeout=3600)
        if not ready:
            raise rdx.InternalError(f"repository {rdx.excerpt(hosted.name)} did not open from its snapshot: {self.workspace._error}")
        self.linked: Any = None
        if hosted.python_roots:
            with taking_gems(hosted.local_gems):
                self.linked = Workspace(hosted.path, cache_dir=os.path.join(self.local, LINKED_DIR), watch=False, extra_roots=tuple(hosted.python_roots)).start()
                if not self.linked.wait_ready(timeout=3600):
                    raise rdx.InternalError(f"repository {rdx.excerpt(hosted.name)} did not open with its linked repositories: {self.linked._error}")
        self.revision = self.workspace.graph().revision
        self._servers: dict[bool, Any] = {}

    def server(self, linked: bool = False) -> Any:
        """The MCP server of the workspace (of the linked one, when asked and there is one)."""
        linked = linked and self.linked is not None
        if linked not in self._servers:
            from rdx_mcp import build_server

            self._servers[linked] = build_server(self.linked if linked else self.workspace)
        return self._servers[linked]


class _Reused:
    """A repository's workspace as ranked search's answer sees it, with the graph's ``search``
    made once: the first call searches (the scores, under ``scoring_with``, go into
    ``scores``), later calls with the same arguments return the same declarations of the same
    graph. One page of the merge over a shard's repositories builds some repositories'
    items twice (a first item with the ranking, then as many as the page takes), and the
    second time searches no more (the answer searches for its 100 best whatever the limit)."""

    def __init__(self, workspace: Any) -> None:
        self._workspace = workspace
        self._graph: _SearchedOnce | None = None
        self.scores: dict[str, tuple[float, str]] = {}

    def graph(self) -> Any:
        if self._graph is None:
            self._graph = _SearchedOnce(self._workspace.graph())
        return self._graph

    def __getattr__(self, name: str) -> Any:
        return getattr(self._workspace, name)


class _SearchedOnce:
    """A graph whose ``search`` answers each distinct question once (see ``_Reused``)."""

    def __init__(self, graph: Any) -> None:
        self._graph = graph
        self._found: dict[str, Any] = {}

    def search(self, *args: Any, **kwargs: Any) -> Any:
        key = repr((args, sorted(kwargs.items())))
        if key not in self._found:
            self._found[key] = self._graph.search(*args, **kwargs)
        return self._found[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)


class ShardServer:
    """The repositories of ``hosted``, opened from their snapshots (a Ray actor)."""

    def __init__(self, hosted: list[Hosted], store_root: str, roots: list[tuple[str, str]]) -> None:
        self.roots = roots
        # The fleet-wide collection statistics ranked search scores with (``set_statistics``).
        self.statistics: rdx.CollectionStatistics | None = None
        sweep()  # What dead shards left on this node (this shard's own earlier process, restarted).
        self.copies = ShardCopies()
        self.repos: dict[str, _Repo] = {}
        try:
            for h in hosted:
                self.repos[h.name] = _Repo(h, store_root, self.copies)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Remove the private copies of the snapshots (before the actor is killed; a shard
        killed without it leaves them to the next ``sweep`` on its node). The shard answers
        nothing afterwards."""
        for repo in self.repos.values():
            repo.workspace.stop()
            if repo.linked is not None:
                repo.linked.stop()
        self.copies.close()

    def statistics_of(self) -> bytes:
        """Each repository's ranked-search statistics per file path, as msgpack: ``{name:
        {path: CollectionStatistics}}`` (the fleet sums them over distinct paths)."""
        return msgspec.msgpack.encode({n: rdx.ranked_statistics(r.workspace.graph()) for n, r in self.repos.items()})

    def set_statistics(self, encoded: bytes | None) -> None:
        """Score ranked searches with the fleet's statistics from now on (None: no more)."""
        self.statistics = None if encoded is None else msgspec.msgpack.decode(encoded, type=rdx.CollectionStatistics)

    def info(self) -> list[dict[str, Any]]:
        """Who and where each repository is, and the shard's peak memory (for placement)."""
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return [
            {"repository": r.name, "commit": r.commit, "revision": r.revision, "pid": os.getpid(), "max_rss_bytes": rss, "node": _node_id(),
             "shard": sorted(self.repos), "copy": r.local}
            for r in self.repos.values()
        ]

    def _direct(self, repo: _Repo, tool: str, arguments: dict[str, Any], reuse: _Reused | None = None) -> dict[str, Any]:
        """A tool of ``ANSWERS`` as a function of the workspace (arguments validated by the
        caller). ``reuse``: ranked search's results and scores are taken from (or, the first
        time, kept in) it, so a second page of the same search builds items but searches no more."""
        from mcp.server.mcpserver.exceptions import ToolError

        from rdx_mcp.server import ANSWERS, UNLOCKED, internal_error, wire_json

        ranked = tool == "search_declarations" and arguments.get("match_mode", "ranked") == "ranked"
        scores: dict[str, tuple[float, str]] = reuse.scores if reuse is not None else {}
        workspace: Any = reuse if reuse is not None else repo.workspace
        statistics = self.statistics if ranked else None
        try:
            with rdx.scoring_with(statistics, scores) if statistics is not None else contextlib.nullcontext():
                if tool in UNLOCKED:
                    model = ANSWERS[tool](workspace, **arguments)
                else:
                    with repo.workspace.lock:
                        model = ANSWERS[tool](workspace, **arguments)
        except ToolError as exc:
            return {"error": _error_body(exc, repo.name)}
        except Exception as exc:  # A bug in rdx: the same error object the MCP server gives.
            return {"error": _error_body(internal_error(tool, exc), repo.name)}
        answer = self._finish(repo, dict(wire_json(model)))
        if statistics is not None:
            ranking(answer["ok"], scores, repo.prefixes, arguments)
        elif ranked:
            answer["ok"]["unscored"] = True  # Restarted by Ray: the fleet gives the statistics again.
        return answer

    async def _through_mcp(self, repo: _Repo, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            result = await repo.server(tool in LINKED_TOOLS).call_tool(tool, arguments)
        except ToolError as exc:
            return {"error": _error_body(exc, repo.name)}
        return self._finish(repo, dict(getattr(result, "structured_content", None) or {}))

    def _finish(self, repo: _Repo, out: dict[str, Any]) -> dict[str, Any]:
        out["commit"] = repo.commit
        return {"ok": annotate(out, repo.name, repo.root, self.roots)}

    def _all_direct(self, tool: str, arguments: dict[str, Any], names: list[str], shared_limit: bool) -> bytes:
        if not shared_limit:
            return msgspec.msgpack.encode({n: self._direct(self.repos[n], tool, arguments) for n in names})
        if tool == "search_declarations":
            return msgspec.msgpack.encode(self._ranked_page(arguments, names))
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

    def _ranked_page(self, arguments: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """Ranked search with ``limit`` the end of the page over all of ``names``: each
        repository searches once and sends one item with its ranking, their rankings are
        merged by score here as the front merges them (``merge_scored``), and those the
        shard's own first ``limit`` reach into build as many items from the same search
        (``_Reused``): the page's items in one call to the shard, one search per repository,
        and few items built. Not scored (see ``ranking``): each gets its share of ``limit``."""
        end = int(arguments["limit"])
        reused = {n: _Reused(self.repos[n].workspace) for n in names}
        out = {n: self._direct(self.repos[n], "search_declarations", {**arguments, "limit": 1}, reused[n]) for n in names}
        oks = {n: a["ok"] for n, a in out.items() if "ok" in a}
        if all("ranking" in a for a in oks.values()):
            depths: dict[str, int] = {}
            for n, index in merge_scored({n: a["ranking"] for n, a in oks.items()}, end):
                depths[n] = max(depths.get(n, 0), index + 1)
        else:
            depths = {n: -(-end // max(1, len(names))) for n in oks}
        for n, depth in depths.items():
            if depth > len(oks[n]["items"]):
                out[n] = self._direct(self.repos[n], "search_declarations", {**arguments, "limit": depth}, reused[n])
        return out

    async def answer(self, tool: str, arguments: dict[str, Any], names: list[str], direct: bool, shared_limit: bool = False) -> bytes:
        """Every repository of ``names`` answers ``tool``: a msgpack map from name to
        ``{"ok": output}`` or ``{"error": {type, message, suggestion}}``. ``direct``: the tool
        is one of ``ANSWERS`` and ``arguments`` are validated already. ``shared_limit``: for
        grep, ``limit`` lines at most over all of ``names``, in order, rather than each; for
        ranked search, ``limit`` the end of a page of their merge (``_ranked_page``)."""
        if direct:
            # Off the actor's event loop: a slow grep (up to its timeout) does not hold up the
            # other calls this shard is answering meanwhile.
            return await asyncio.to_thread(self._all_direct, tool, arguments, names, shared_limit)
        out = {n: await self._through_mcp(self.repos[n], tool, arguments) for n in names}
        return msgspec.msgpack.encode(out)
