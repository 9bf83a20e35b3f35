"""``rdx serve``: a small JSON API over HTTP for tools that are not MCP clients.

Every endpoint is one MCP tool called with the query string as its arguments, so parameters,
validation, paging (``limit``/``offset``/``total``/``next_offset``) and output are exactly the
MCP server's:

- ``GET /grep?pattern=...`` -> ``search_code`` (``glob`` may repeat);
- ``GET /search?query=...`` -> ``search_declarations``;
- ``GET /declarations/{name}`` -> ``get_declaration`` (the name URL-encoded: ``Foo%23bar()``);
- ``GET /stats`` -> ``codebase_stats``; ``GET /status`` -> ``index_status``.

Errors are the MCP error object ``{type, message, suggestion}`` with a status: 400 for a bad
parameter, 404 for an unknown name or path, 503 while the project is still being indexed.
Built on Starlette and uvicorn, which the MCP SDK already brings; loopback by default.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from rdx_mcp.server import Workspace, build_server

__all__ = ["build_app", "serve"]

_STATUS = {"invalid_argument": 400, "not_found": 404, "indexing": 503, "index_failed": 503, "internal": 500}
# Endpoint -> (tool, the parameters it takes, those that may repeat).
_ENDPOINTS: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {
    "/grep": (
        "search_code",
        frozenset({"pattern", "regex", "ignore_case", "glob", "language", "context", "limit", "offset", "max_tokens"}),
        frozenset({"glob"}),
    ),
    "/search": ("search_declarations", frozenset({"query", "kind", "match_mode", "path", "limit", "offset", "max_tokens", "dependencies"}), frozenset()),
    "/stats": ("codebase_stats", frozenset(), frozenset()),
    "/status": ("index_status", frozenset(), frozenset()),
}


def _problem(kind: str, message: str, suggestion: str) -> JSONResponse:
    return JSONResponse({"type": kind, "message": message, "suggestion": suggestion}, status_code=_STATUS.get(kind, 400))


def build_app(workspace: Workspace) -> Starlette:
    server = build_server(workspace)

    async def call(tool: str, arguments: dict[str, Any]) -> JSONResponse:
        try:
            result = await server.call_tool(tool, arguments)
        except ToolError as exc:
            text = str(exc)
            body = json.loads(text[text.index("{") :]) if "{" in text else {"type": "internal", "message": text, "suggestion": ""}
            return JSONResponse(body, status_code=_STATUS.get(body.get("type", ""), 400))
        return JSONResponse(getattr(result, "structured_content", None))

    def endpoint(path: str) -> Any:
        tool, allowed, repeated = _ENDPOINTS[path]

        async def handle(request: Request) -> JSONResponse:
            params = request.query_params
            unknown = sorted(set(params.keys()) - allowed)
            if unknown:
                return _problem("invalid_argument", f"{path} takes no parameter {unknown[0]!r}", f"parameters: {', '.join(sorted(allowed)) or 'none'}")
            arguments: dict[str, Any] = {}
            for key in params.keys():
                values = params.getlist(key)
                if key in repeated:
                    arguments[key] = values
                elif len(values) > 1:
                    return _problem("invalid_argument", f"{path}: {key} is given {len(values)} times", f"give {key} once")
                else:
                    arguments[key] = values[0]
            return await call(tool, arguments)

        return handle

    async def declaration(request: Request) -> JSONResponse:
        params = dict(request.query_params)
        if set(params) - {"max_tokens"}:
            return _problem("invalid_argument", "/declarations/{name} takes only max_tokens", "put the name in the path, URL-encoded")
        return await call("get_declaration", {"name": request.path_params["name"], **params})

    routes = [Route(path, endpoint(path), methods=["GET"]) for path in _ENDPOINTS]
    routes.append(Route("/declarations/{name:path}", declaration, methods=["GET"]))
    return Starlette(routes=routes)


def serve(root: str, *, host: str = "127.0.0.1", port: int = 8765, cache_dir: str | None = None) -> None:
    import uvicorn

    workspace = Workspace(root, cache_dir=cache_dir).start()
    try:
        uvicorn.run(build_app(workspace), host=host, port=port, log_level="warning")
    finally:
        workspace.stop()
