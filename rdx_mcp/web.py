"""``rdx serve``: a small JSON API over HTTP for tools that are not MCP clients.

Every endpoint is one MCP tool called with the query string as its arguments, so parameters,
validation, paging (``limit``/``offset``/``total``/``next_offset``) and output are exactly the
MCP server's:

- ``GET /grep?pattern=...`` -> ``search_code`` (``glob`` may repeat; ``timeout`` in seconds);
- ``GET /search?query=...`` -> ``search_declarations``;
- ``GET /declarations/{name}`` -> ``get_declaration`` (the name URL-encoded: ``Foo%23bar()``);
- ``GET /stats`` -> ``codebase_stats``; ``GET /status`` -> ``index_status``.

Errors are the MCP error object ``{type, message, suggestion}`` with a status: 400 for a bad
parameter, 404 for an unknown name or path, 503 while the project is still being indexed.
Built on Starlette and uvicorn, which the MCP SDK already brings; loopback by default.

Every request passes ``_Guard`` first, in this order: a URL longer than ``MAX_URL_BYTES`` is
414; the ``Host`` header must name the address the server is bound to (421) and a browser's
``Origin``, when sent, the same (403), which defeats DNS rebinding, checked by the MCP SDK's
``TransportSecurityMiddleware`` as ``rdx mcp --http`` does; and with a token, the request must
carry ``Authorization: Bearer <token>`` (401). A bind to a non-loopback address needs a token:
``serve`` refuses to start without one.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

import rdx
from rdx_mcp.server import Workspace, build_server

__all__ = ["MAX_URL_BYTES", "TOKEN_ENV", "build_app", "is_loopback", "serve"]

MAX_URL_BYTES = 16 << 10  # Path plus query string; every parameter's own limit is far below.
TOKEN_ENV = "RDX_TOKEN"  # Where ``rdx serve`` reads the token when --token is not given.

_STATUS = {
    "invalid_argument": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404, "uri_too_long": 414,
    "misdirected": 421, "indexing": 503, "index_failed": 503, "internal": 500,
}
_KIND_OF_STATUS = {401: "unauthorized", 403: "forbidden", 414: "uri_too_long", 421: "misdirected"}
# Endpoint -> (tool, the parameters it takes, those that may repeat).
_ENDPOINTS: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {
    "/grep": (
        "search_code",
        frozenset({"pattern", "regex", "ignore_case", "glob", "language", "context", "limit", "offset", "max_tokens", "timeout"}),
        frozenset({"glob"}),
    ),
    "/search": ("search_declarations", frozenset({"query", "kind", "match_mode", "path", "limit", "offset", "max_tokens", "dependencies"}), frozenset()),
    "/stats": ("codebase_stats", frozenset(), frozenset()),
    "/status": ("index_status", frozenset(), frozenset()),
}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _problem(kind: str, message: str, suggestion: str, status: int | None = None) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if kind == "unauthorized" else None
    return JSONResponse({"type": kind, "message": message, "suggestion": suggestion}, status_code=status or _STATUS.get(kind, 400), headers=headers)


def _security(host: str, port: int | None, allowed_hosts: tuple[str, ...]) -> TransportSecuritySettings:
    """The Host and Origin values a request may carry: the bound address (the loopback names
    when it is loopback) with its port, and ``allowed_hosts`` (``name`` or ``name:port``).
    Without a known port (0: chosen at bind time) any port of those names is allowed."""
    names = list(_LOOPBACK_NAMES) if is_loopback(host) else [f"[{host}]" if ":" in host else host]
    hosts: list[str] = []
    for name in names:
        if port:
            hosts.append(f"{name}:{port}")
            if port == 80:
                hosts.append(name)  # Browsers leave the default port out.
        else:
            hosts += [name, f"{name}:*"]
    for extra in allowed_hosts:
        hosts += [extra] if ":" in extra.lstrip("[").split("]")[-1] else [extra, f"{extra}:{port}" if port else f"{extra}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts]
    )


class _Guard:
    """The checks every request passes before any endpoint runs (see the module docstring)."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings, token: str | None) -> None:
        self.app = app
        self.security = TransportSecurityMiddleware(security)
        self.token = token.encode("utf-8") if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = await self._check(Request(scope))
        if problem is not None:
            await problem(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _check(self, request: Request) -> JSONResponse | None:
        scope = request.scope
        size = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
        if size > MAX_URL_BYTES:
            return _problem("uri_too_long", f"the request URL is {size} bytes, longer than the {MAX_URL_BYTES} allowed", "send a shorter pattern or query")
        refused = await self.security.validate_request(request)
        if refused is not None:
            # The SDK's answer (421 for a foreign Host, 403 for a foreign Origin), as our error object.
            what = bytes(refused.body).decode("utf-8", "replace")
            return _problem(
                _KIND_OF_STATUS.get(refused.status_code, "forbidden"), f"{what}; this server answers only requests addressed to it",
                "use the address the server was started on (rdx serve --allow-host adds names)", refused.status_code,
            )
        if self.token is not None:
            given = request.headers.get("authorization", "")
            scheme, _, credential = given.partition(" ")
            # compare_digest takes as long for any wrong token, so timing tells nothing about it.
            if scheme.lower() != "bearer" or not hmac.compare_digest(credential.strip().encode("utf-8", "replace"), self.token):
                return _problem("unauthorized", "a valid bearer token is required", "send Authorization: Bearer <the token rdx serve was given>")
        return None


def build_app(
    workspace: Workspace,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    token: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
) -> ASGIApp:
    """The JSON API for ``workspace``, answering only requests addressed to ``host:port`` (or
    ``allowed_hosts``) and, with ``token``, carrying it."""
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
                return _problem("invalid_argument", f"{path} takes no parameter {rdx.excerpt(unknown[0])}", f"parameters: {', '.join(sorted(allowed)) or 'none'}")
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
    return _Guard(Starlette(routes=routes), _security(host, port, allowed_hosts), token)


def serve(
    root: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    cache_dir: str | None = None,
    token: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
) -> None:
    """Serve ``root`` until interrupted; a non-loopback ``host`` needs a ``token``."""
    import uvicorn

    if not is_loopback(host) and not token:
        raise rdx.InvalidArgumentError(f"serving on {rdx.excerpt(host)} (not loopback) needs a token; pass --token or set {TOKEN_ENV}")
    workspace = Workspace(root, cache_dir=cache_dir).start()
    try:
        app = build_app(workspace, host=host, port=port, token=token, allowed_hosts=allowed_hosts)
        uvicorn.run(app, host=host.strip("[]"), port=port, log_level="warning")
    finally:
        workspace.stop()
