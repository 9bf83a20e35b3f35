"""The fleet's answers (``FleetAPI``) and its HTTP JSON API: the paths and parameters of
``rdx serve``'s ``/api/`` (grep, search, declarations/NAME, stats, status) plus references,
definition, hover and map, each answered by fanning one MCP tool out to the repositories'
actors and merging (``rdx_fleet.merge``). Every item carries ``repository``; ``repository``
(repeatable) filters. Errors are the MCP error object; an actor that died answers 503
``unavailable`` (retry: Ray restarts it from its snapshot). Behind ``rdx_web``'s ``Guard``
(Host/Origin, token, headers). The fleet's MCP tools (``rdx_fleet.mcp``) call ``FleetAPI`` too.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

import rdx
from rdx_fleet.fleet import Fleet, Unavailable
from rdx_fleet.merge import interleave, interleave_depths, merge_grep, merge_references, merge_scored, own, page_meta
from rdx_web.guard import STATUS, Guard, problem, security_settings

__all__ = ["FleetAPI", "Problem", "build_app"]

GREP_PARAMS = {"pattern", "regex", "ignore_case", "glob", "language", "context", "limit", "offset", "max_tokens", "timeout"}
SEARCH_PARAMS = {"query", "kind", "match_mode", "path", "limit", "offset", "max_tokens", "dependencies"}
POSITION_PARAMS = {"path", "line", "column"}
MAX_CODE_LINES, MAX_SEARCH, MAX_REFERENCES = 500, 100, 200  # The MCP tools' page limits.


class Problem(Exception):
    """An answer that is the error object ``{type, message, suggestion}`` with a status."""

    def __init__(self, body: dict[str, Any], status: int | None = None) -> None:
        super().__init__(body.get("message", ""))
        self.body, self.status = body, status or STATUS.get(body.get("type", ""), 400)


class _JSON(JSONResponse):
    """A JSON response encoded by msgspec (the same JSON as the standard library's, faster)."""

    def render(self, content: Any) -> bytes:
        return msgspec.json.encode(content)


def _bad(message: str, suggestion: str) -> Problem:
    return Problem({"type": "invalid_argument", "message": message, "suggestion": suggestion})


def _int(arguments: dict[str, Any], key: str, default: int, low: int = 0) -> int:
    try:
        value = int(arguments.get(key, default))
    except (TypeError, ValueError):
        raise _bad(f"{key} must be an integer, got {rdx.excerpt(str(arguments[key]))}", f"pass {key}=N") from None
    if value < low:
        raise _bad(f"{key} must be at least {low}, got {value}", f"pass {key}>={low}")
    return value


def _ok(answer: dict[str, Any]) -> dict[str, Any]:
    if "error" in answer:
        raise Problem(answer["error"])
    return dict(answer["ok"])


def _fit(body: dict[str, Any], key: str, max_tokens: Any) -> dict[str, Any]:
    """Drop items from the end of ``body[key]`` until the JSON fits ``max_tokens``."""
    if max_tokens is None:
        return body
    budget = int(max_tokens)
    while body[key] and rdx.count_tokens(json.dumps(body, separators=(",", ":"))) > budget:
        body[key] = body[key][: len(body[key]) * 3 // 4]
        body["truncated"] = True
    return body


def _revisions(shards: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {n: {"commit": s.get("commit"), "revision": s.get("revision")} for n, s in shards.items()}


class FleetAPI:
    """Every fleet question over ``fleet``: arguments as the MCP tools take them (strings are
    accepted, as in a query string), ``only`` the repositories to ask (empty: all)."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet

    async def grep(self, arguments: dict[str, Any], only: list[str]) -> dict[str, Any]:
        fleet = self.fleet
        arguments = dict(arguments)
        max_tokens = arguments.pop("max_tokens", None)
        offset, limit = _int(arguments, "offset", 0), min(_int(arguments, "limit", 50, 1), MAX_CODE_LINES)
        names = fleet.names(only)
        asked = {**arguments, "offset": 0, "limit": min(offset + limit, MAX_CODE_LINES)}
        first = {n: _ok(a) for n, a in (await fleet.fan(names, "search_code", asked, shared_limit=True)).items()}
        shards = []
        start = 0
        for n in names:
            shard = first[n]
            shard["_from"] = 0
            seen = sum(len(f["lines"]) for f in shard["files"])
            lo, hi = max(0, offset - start), min(shard["total"], offset + limit - start)
            if hi > lo and hi > seen:  # The window reaches past what the first call returned.
                shard = _ok(await fleet.call(n, "search_code", {**arguments, "offset": lo, "limit": hi - lo}))
                shard["_from"] = lo
            shards.append(shard)
            start += shard["total"]
        body = merge_grep(shards, offset, limit)
        body["revisions"] = _revisions(first)
        return _fit(body, "files", max_tokens)

    async def search(self, arguments: dict[str, Any], only: list[str]) -> dict[str, Any]:
        """Merged by score when every repository scored with the fleet's statistics and in
        score order (``_by_score``), else ranks interleaved (``merge.interleave``). A page
        ending at ``end``: each shard merges its own repositories' rankings and sends the
        items of its first ``end`` (``ShardServer._ranked_page``), which hold the page's;
        interleaved, it takes about ``end / repositories`` items of each, which each sends
        (its ``total`` comes along), then the few whose lists the page reaches past are asked
        again for exactly as many as it takes (``interleave_depths``): the same page as asking
        every repository for ``end`` items, at a fraction of the items built and sent. A
        repository that takes gems from another served one is asked for ``end`` at once: the
        other repository's declarations it lists are dropped (``own``), so its count is known
        only from its whole list."""
        fleet = self.fleet
        arguments = dict(arguments)
        max_tokens = arguments.pop("max_tokens", None)
        offset, limit = _int(arguments, "offset", 0), min(_int(arguments, "limit", 20, 1), MAX_SEARCH)
        names = fleet.names(only)
        end = min(offset + limit, MAX_SEARCH)
        served = set(fleet.actors)
        linked = {link.source for link in fleet.links if link.target in served}
        # The page's items in one call to each shard when the answers are scored.
        groups = [([n for n in names if n not in linked], end, True), ([n for n in names if n in linked], end, False)]
        asked = [fleet.fan(group, "search_declarations", {**arguments, "offset": 0, "limit": depth}, shared_limit=shared) for group, depth, shared in groups if group]
        shards = {n: _ok(a) for answer in await asyncio.gather(*asked) for n, a in answer.items()}
        unscored = [n for n in names if shards[n].get("unscored")]
        if unscored:
            fleet.restore_statistics(unscored)
        if names and all("ranking" in shards[n] for n in names):
            return await self._by_score(arguments, names, shards, offset, limit, max_tokens)
        kept = {n: own(shards[n]["items"], n, served) for n in names}
        # A shard's total less the other repositories' declarations it listed (exact when the
        # shard listed all its matches, as it does up to the tools' limit of 100).
        counts = {n: shards[n]["total"] - (len(shards[n]["items"]) - len(kept[n])) for n in names}
        depths = dict(zip(names, interleave_depths([counts[n] for n in names], end), strict=True))
        short = [n for n in names if depths[n] > len(kept[n]) and n not in linked]
        if short:  # The page reaches past what these sent: the same question, deeper.
            deeper = max(depths[n] for n in short)
            for n, a in (await fleet.fan(short, "search_declarations", {**arguments, "offset": 0, "limit": deeper})).items():
                shards[n] = _ok(a)
                kept[n] = own(shards[n]["items"], n, served)
        merged = interleave([kept[n][: depths[n]] for n in names])
        items = merged[offset : offset + limit]
        total = sum(counts.values())
        return _fit({**page_meta(total, offset, limit, len(items)), "items": items, "revisions": _revisions(shards)}, "items", max_tokens)

    async def _by_score(
        self, arguments: dict[str, Any], names: list[str], shards: dict[str, dict[str, Any]], offset: int, limit: int, max_tokens: Any,
    ) -> dict[str, Any]:
        """Ranked search merged by score (``merge.merge_scored``): every repository scored
        with the fleet's statistics and sent its whole ranking with the first items; the few
        whose items the page reaches past are asked again, for exactly as many."""
        merged = merge_scored({n: shards[n]["ranking"] for n in names}, MAX_SEARCH)
        page = merged[offset : offset + limit]
        need: dict[str, int] = {}
        for repo, index in page:
            need[repo] = max(need.get(repo, 0), index + 1)
        short = sorted(n for n, depth in need.items() if depth > len(shards[n]["items"]))
        if short:
            deeper = await self.fleet.fan(short, "search_declarations", {**arguments, "offset": 0, "limit": max(need[n] for n in short)})
            for n, a in deeper.items():
                shards[n] = _ok(a)
                if shards[n].get("ranking") is None or len(shards[n]["items"]) < need[n]:
                    raise Problem({"type": "unavailable", "message": f"repository {n} was swapped during the search", "suggestion": "retry"}, 503)
        items = [shards[repo]["items"][index] for repo, index in page]
        body = {**page_meta(len(merged), offset, limit, len(items)), "items": items, "revisions": _revisions({n: shards[n] for n in names})}
        return _fit(body, "items", max_tokens)

    async def declaration(self, name: str, arguments: dict[str, Any], only: list[str]) -> dict[str, Any]:
        fleet = self.fleet
        answers = await fleet.fan(fleet.names(only), "get_declaration", {"name": name, **arguments})
        served = set(fleet.actors)
        items = [a["ok"] for n, a in answers.items() if "ok" in a and own(a["ok"]["definitions"], n, served)]
        if not items:
            self._none(name, [a["error"] for a in answers.values() if "error" in a])
        return {"name": name, "total": len(items), "items": items}

    def _none(self, name: str, errors: list[dict[str, Any]]) -> None:
        hard = [e for e in errors if e.get("type") != "not_found"]
        if hard:
            raise Problem(hard[0])
        raise Problem({"type": "not_found", "message": f"no repository declares {rdx.excerpt(name)}", "suggestion": "use /api/search (search_declarations)"})

    async def references(self, name: str, arguments: dict[str, Any], only: list[str]) -> dict[str, Any]:
        fleet = self.fleet
        kind = arguments.get("kind") or ("method" if "#" in name or "." in name.rsplit("::", 1)[-1] else "constant")
        if kind not in ("constant", "method"):
            raise _bad(f"kind must be constant or method, got {rdx.excerpt(str(kind))}", "kind=constant or kind=method")
        tool = f"find_{kind}_references"
        offset, limit = _int(arguments, "offset", 0), _int(arguments, "limit", 50, 1)
        answers = await fleet.fan(fleet.names(only), tool, {"name": name, "offset": 0, "limit": MAX_REFERENCES})
        shards, errors = [], []
        for n, a in answers.items():
            if "error" in a:
                errors.append(a["error"])
                continue
            shard = a["ok"]
            while shard["next_offset"] is not None:  # Every reference of this shard, page by page.
                more = _ok(await fleet.call(n, tool, {"name": name, "offset": shard["next_offset"], "limit": MAX_REFERENCES}))
                shard["files"] += more["files"]
                shard["next_offset"] = more["next_offset"]
            shards.append(shard)
        if not shards:
            self._none(name, errors)
        refs = merge_references(shards)
        items = refs[offset : offset + limit]
        revisions = {s["repository"]: {"commit": s["commit"], "revision": s["revision"]} for s in shards}
        return {**page_meta(len(refs), offset, limit, len(items)), "items": items, "revisions": revisions}

    async def one(self, tool: str, arguments: dict[str, Any], only: list[str]) -> dict[str, Any]:
        """A question about one repository (a position, its map)."""
        if len(only) != 1:
            raise _bad(f"{tool} needs exactly one repository", "pass repository=NAME")
        arguments = dict(arguments)
        if "path" in arguments:
            arguments["file_path"] = arguments.pop("path")
        return _ok(await self.fleet.call(self.fleet.names(only)[0], tool, arguments))

    async def stats(self, only: list[str]) -> dict[str, Any]:
        answers = await self.fleet.fan(self.fleet.names(only), "codebase_stats", {})
        items = [_ok(a) for a in answers.values()]
        keys = ("documents", "bytes", "definitions", "declarations", "constant_references", "method_references", "diagnostics")
        return {**{k: sum(i.get(k) or 0 for i in items) for k in keys}, "repositories": len(items), "items": items}

    async def status(self, only: list[str]) -> dict[str, Any]:
        answers = await self.fleet.fan(self.fleet.names(only), "index_status", {})
        items = [_ok(a) for a in answers.values()]
        links = [{"source": link.source, "target": link.target, "gem": link.gem, "how": link.how} for link in self.fleet.links]
        return {"state": "ready" if all(i["state"] == "ready" for i in items) else "indexing", "repositories": len(items), "items": items, "links": links}


def _arguments(request: Request, allowed: set[str], repeated: frozenset[str] = frozenset()) -> tuple[dict[str, Any], list[str]]:
    params = request.query_params
    unknown = sorted(set(params.keys()) - allowed - {"repository"})
    if unknown:
        raise _bad(f"{request.url.path} takes no parameter {rdx.excerpt(unknown[0])}", f"parameters: {', '.join(sorted(allowed | {'repository'}))}")
    out: dict[str, Any] = {}
    for key in params.keys():
        if key == "repository":
            continue
        values = params.getlist(key)
        if key in repeated:
            out[key] = values
        elif len(values) > 1:
            raise _bad(f"{key} is given {len(values)} times", f"give {key} once")
        else:
            out[key] = values[0]
    return out, params.getlist("repository")


def build_app(fleet: Fleet, *, host: str = "127.0.0.1", port: int | None = None, token: str | None = None) -> ASGIApp:
    """The JSON API over ``fleet``, guarded as ``rdx serve`` is."""
    api = FleetAPI(fleet)

    def route(path: str, allowed: set[str], answer: Any, repeated: frozenset[str] = frozenset()) -> Route:
        async def endpoint(request: Request) -> JSONResponse:
            try:
                arguments, only = _arguments(request, allowed, repeated)
                return _JSON(await answer(request, arguments, only))
            except Problem as exc:
                return _JSON(exc.body, status_code=exc.status)
            except rdx.NotFoundError as exc:
                return problem("not_found", str(exc), "GET /api/status lists the repositories")
            except Unavailable as exc:
                return problem("unavailable", str(exc), "retry: Ray restarts the repository's server from its snapshot", status=503)

        return Route(path, endpoint, methods=["GET"])

    def one(tool: str) -> Any:
        return lambda request, arguments, only: api.one(tool, arguments, only)

    routes = [
        route("/api/grep", GREP_PARAMS, lambda r, a, o: api.grep(a, o), frozenset({"glob"})),
        route("/api/search", SEARCH_PARAMS, lambda r, a, o: api.search(a, o)),
        route("/api/declarations/{name:path}", {"max_tokens"}, lambda r, a, o: api.declaration(r.path_params["name"], a, o)),
        route("/api/references/{name:path}", {"kind", "limit", "offset"}, lambda r, a, o: api.references(r.path_params["name"], a, o)),
        route("/api/definition", POSITION_PARAMS | {"max_tokens"}, one("definition_at")),
        route("/api/hover", POSITION_PARAMS, one("hover_at")),
        route("/api/map", {"max_tokens", "focus", "detail"}, one("repo_map"), frozenset({"focus"})),
        route("/api/stats", set(), lambda r, a, o: api.stats(o)),
        route("/api/status", set(), lambda r, a, o: api.status(o)),
    ]
    return Guard(Starlette(routes=routes), security_settings(host, port, ()), token)
