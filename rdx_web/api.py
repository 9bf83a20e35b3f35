"""The JSON API of ``rdx serve``, under ``/api/``: every endpoint answers with the function
behind one MCP tool (``rdx_mcp.server.ANSWERS``), its query string validated against that
function's signature as the MCP SDK validates a tool's arguments, so parameters, validation,
paging (``limit``/``offset``/``total``/``next_offset``) and output shapes are exactly the MCP
server's, without going through the MCP server:

- ``GET /api/grep?pattern=...`` -> ``search_code`` (``glob`` may repeat; ``timeout`` in seconds);
- ``GET /api/search?query=...`` -> ``search_declarations``;
- ``GET /api/declarations/{name}`` -> ``get_declaration`` (the name URL-encoded: ``Foo%23bar()``);
- ``GET /api/stats`` -> ``codebase_stats``; ``GET /api/status`` -> ``index_status``.

The answers run in a worker thread, under the workspace's lock except those MCP runs without
it (``UNLOCKED``: status and grep). The paths of before the pages (``/grep``, ``/search``,
``/declarations/...``, ``/stats``, ``/status``) answer 307, a redirect that keeps the method
and the query string (not 308: Python's urllib before 3.13 does not follow it, and clients of
the old paths use it). Errors are the MCP error object ``{type, message, suggestion}`` with a
status: 400 for a bad parameter, 404 for an unknown name or path, 503 while the project is
still being indexed. This module owns the routes only; the pages are ``rdx_web.pages``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

import rdx
from rdx_mcp import Workspace
from rdx_mcp.server import ANSWERS, UNLOCKED, answer_arguments, internal_error, wire_json
from rdx_web.guard import STATUS, problem

__all__ = ["ENDPOINTS", "api_routes"]

log = logging.getLogger("rdx.web")

# Endpoint -> (tool, the parameters it takes, those that may repeat).
ENDPOINTS: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {
    "/grep": (
        "search_code",
        frozenset({"pattern", "regex", "ignore_case", "glob", "language", "context", "limit", "offset", "max_tokens", "timeout"}),
        frozenset({"glob"}),
    ),
    "/search": ("search_declarations", frozenset({"query", "kind", "match_mode", "path", "limit", "offset", "max_tokens", "dependencies"}), frozenset()),
    "/stats": ("codebase_stats", frozenset(), frozenset()),
    "/status": ("index_status", frozenset(), frozenset()),
}


def error_response(exc: ToolError) -> JSONResponse:
    """A tool error's object ``{type, message, suggestion}`` with its HTTP status."""
    text = str(exc)
    body = json.loads(text[text.index("{") :]) if "{" in text else {"type": "internal", "message": text, "suggestion": ""}
    return JSONResponse(body, status_code=STATUS.get(body.get("type", ""), 400))


def api_routes(workspace: Workspace) -> list[BaseRoute]:
    """The ``/api/`` routes for ``workspace`` and the redirects from the old paths."""

    def answer(tool: str, arguments: dict[str, Any]) -> Any:
        """The JSON of ``tool``'s answer to ``arguments`` (validated first, as MCP does)."""
        validated = answer_arguments(tool, arguments)
        if tool in UNLOCKED:
            return wire_json(ANSWERS[tool](workspace, **validated))
        with workspace.lock:  # The graph moves only under it (the MCP tools take it too).
            return wire_json(ANSWERS[tool](workspace, **validated))

    async def call(tool: str, arguments: dict[str, Any]) -> JSONResponse:
        try:
            body = await run_in_threadpool(answer, tool, arguments)
        except ToolError as exc:
            return error_response(exc)
        except Exception as exc:  # A bug: the MCP server's error object for it, never a traceback.
            log.error("%s raised an unexpected exception", rdx.excerpt(tool), exc_info=exc)
            return error_response(internal_error(tool, exc))
        return JSONResponse(body)

    def endpoint(path: str) -> Any:
        tool, allowed, repeated = ENDPOINTS[path]

        async def handle(request: Request) -> JSONResponse:
            params = request.query_params
            unknown = sorted(set(params.keys()) - allowed)
            if unknown:
                return problem("invalid_argument", f"{path} takes no parameter {rdx.excerpt(unknown[0])}", f"parameters: {', '.join(sorted(allowed)) or 'none'}")
            arguments: dict[str, Any] = {}
            for key in params.keys():
                values = params.getlist(key)
                if key in repeated:
                    arguments[key] = values
                elif len(values) > 1:
                    return problem("invalid_argument", f"{path}: {key} is given {len(values)} times", f"give {key} once")
                else:
                    arguments[key] = values[0]
            return await call(tool, arguments)

        return handle

    async def declaration(request: Request) -> JSONResponse:
        params = dict(request.query_params)
        if set(params) - {"max_tokens"}:
            return problem("invalid_argument", "/declarations/{name} takes only max_tokens", "put the name in the path, URL-encoded")
        return await call("get_declaration", {"name": request.path_params["name"], **params})

    async def moved(request: Request) -> Response:
        # The raw path keeps the name's encoding (``%23`` stays ``%23``), the query its order.
        raw = request.scope.get("raw_path") or request.url.path.encode()
        target = "/api" + raw.decode("latin-1")
        if request.url.query:
            target += "?" + request.url.query
        return RedirectResponse(target, status_code=307)

    routes: list[BaseRoute] = [Route("/api" + path, endpoint(path), methods=["GET"]) for path in ENDPOINTS]
    routes.append(Route("/api/declarations/{name:path}", declaration, methods=["GET"]))
    routes += [Route(path, moved, methods=["GET"]) for path in ENDPOINTS]
    routes.append(Route("/declarations/{name:path}", moved, methods=["GET"]))
    return routes
