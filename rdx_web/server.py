"""``rdx serve``: the web code browser and the JSON API, one Starlette app behind ``Guard``.
It owns the assembly (routes, guard, uvicorn) and the start-up message; the pages are
``rdx_web.pages``, the JSON API ``rdx_web.api``.

A bind to a non-loopback address needs a token (``serve`` refuses to start without one) and
prints a warning; browsers cannot send a bearer token with a page load, so such a server is
for programs, and people use it through an SSH tunnel to the loopback address.
"""

from __future__ import annotations

import sys

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp

import rdx
from rdx_mcp import Workspace
from rdx_web.api import api_routes
from rdx_web.guard import Guard, is_loopback, problem, security_settings
from rdx_web.pages import page_routes

__all__ = ["TOKEN_ENV", "build_app", "serve"]

TOKEN_ENV = "RDX_TOKEN"  # Where ``rdx serve`` reads the token when --token is not given.


def build_app(
    workspace: Workspace,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    token: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
) -> ASGIApp:
    """The pages and the JSON API for ``workspace``, answering only requests addressed to
    ``host:port`` (or ``allowed_hosts``) and, with ``token``, carrying it."""
    async def not_found(request: Request, exc: Exception) -> Response:
        # Under /api/ the error object; elsewhere a page (a mistyped URL in a browser).
        if request.url.path.startswith("/api/"):
            return problem("not_found", f"no endpoint {rdx.excerpt(request.url.path)}", "endpoints: /api/grep, /api/search, /api/declarations/NAME, /api/stats, /api/status")
        return HTMLResponse(
            "<!doctype html><title>404 · rdx</title><link rel=\"stylesheet\" href=\"/static/style.css\"><main><section class=\"error\">"
            "<h1>404</h1><p class=\"message\">no page here</p><p class=\"suggestion\"><a href=\"/\">search</a> or <a href=\"/file/\">browse the files</a></p></section></main>",
            status_code=404,
        )

    app = Starlette(routes=[*api_routes(workspace), *page_routes(workspace)], exception_handlers={404: not_found})
    return Guard(app, security_settings(host, port, allowed_hosts), token)


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
    if not is_loopback(host):
        print(f"rdx: warning: {host} is not loopback: the pages and the API are reachable from other machines (with the token)", file=sys.stderr)
    workspace = Workspace(root, cache_dir=cache_dir).start()
    try:
        app = build_app(workspace, host=host, port=port, token=token, allowed_hosts=allowed_hosts)
        shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
        print(f"rdx: open http://{shown}:{port}/ in a browser (the JSON API is under /api/)", file=sys.stderr)
        uvicorn.run(app, host=host.strip("[]"), port=port, log_level="warning")
    finally:
        workspace.stop()
