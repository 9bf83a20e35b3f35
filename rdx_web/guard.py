"""The checks every request to ``rdx serve`` passes before any page or endpoint runs, and the
headers every answer carries. It owns nothing else: no routing, no graph.

In this order: a URL longer than ``MAX_URL_BYTES`` is 414; the ``Host`` header must name the
address the server is bound to (421) and a browser's ``Origin``, when sent, the same (403),
which defeats DNS rebinding (the MCP SDK's ``TransportSecurityMiddleware``, as ``rdx mcp
--http`` uses it); with a token, the request must carry ``Authorization: Bearer <token>``
(401). Every answer then gets a strict Content-Security-Policy (scripts, styles and images
from this server only, no inline script, no framing), ``nosniff`` and ``no-referrer``.
"""

from __future__ import annotations

import hmac
import ipaddress

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MAX_URL_BYTES", "SECURITY_HEADERS", "STATUS", "Guard", "is_loopback", "problem", "security_settings"]

MAX_URL_BYTES = 16 << 10  # Path plus query string; every parameter's own limit is far below.

STATUS = {
    "invalid_argument": 400, "unauthorized": 401, "forbidden": 403, "not_found": 404, "uri_too_long": 414,
    "misdirected": 421, "indexing": 503, "index_failed": 503, "internal": 500,
}
_KIND_OF_STATUS = {401: "unauthorized", 403: "forbidden", 414: "uri_too_long", 421: "misdirected"}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

# No inline script or style may run: the pages load /static/app.js and /static/style.css only.
# Pictures are inline SVG from Graphviz (markup, not scripts) whose links stay on this server.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def problem(kind: str, message: str, suggestion: str, status: int | None = None) -> JSONResponse:
    """The error object of the JSON API (the MCP tools' ``{type, message, suggestion}``)."""
    headers = {"WWW-Authenticate": "Bearer"} if kind == "unauthorized" else None
    return JSONResponse({"type": kind, "message": message, "suggestion": suggestion}, status_code=status or STATUS.get(kind, 400), headers=headers)


def security_settings(host: str, port: int | None, allowed_hosts: tuple[str, ...]) -> TransportSecuritySettings:
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


class Guard:
    """The checks every request passes before any endpoint runs (see the module docstring)."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings, token: str | None) -> None:
        self.app = app
        self.security = TransportSecurityMiddleware(security)
        self.token = token.encode("utf-8") if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        refused = await self._check(Request(scope))
        if refused is not None:
            await refused(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _check(self, request: Request) -> JSONResponse | None:
        scope = request.scope
        size = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
        if size > MAX_URL_BYTES:
            return problem("uri_too_long", f"the request URL is {size} bytes, longer than the {MAX_URL_BYTES} allowed", "send a shorter pattern or query")
        refused = await self.security.validate_request(request)
        if refused is not None:
            # The SDK's answer (421 for a foreign Host, 403 for a foreign Origin), as our error object.
            what = bytes(refused.body).decode("utf-8", "replace")
            return problem(
                _KIND_OF_STATUS.get(refused.status_code, "forbidden"), f"{what}; this server answers only requests addressed to it",
                "use the address the server was started on (rdx serve --allow-host adds names)", refused.status_code,
            )
        if self.token is not None:
            given = request.headers.get("authorization", "")
            scheme, _, credential = given.partition(" ")
            # compare_digest takes as long for any wrong token, so timing tells nothing about it.
            if scheme.lower() != "bearer" or not hmac.compare_digest(credential.strip().encode("utf-8", "replace"), self.token):
                return problem("unauthorized", "a valid bearer token is required", "send Authorization: Bearer <the token rdx serve was given>")
        return None
