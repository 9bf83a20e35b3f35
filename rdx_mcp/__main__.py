"""``python -m rdx_mcp [PATH] [--http HOST:PORT]``: serve a project's graph over MCP.

Over HTTP (the SDK's streamable HTTP transport, loopback only) the SDK checks Host and Origin
(DNS rebinding) and bounds request bodies (4 MiB). rdx's tools keep no per-session state, so
sessions are cheap to drop: one with no request for ``--session-idle-timeout`` seconds
(default ``SESSION_IDLE_TIMEOUT``) is closed and its memory freed (the client starts a new
one), and at most ``--max-sessions`` (default ``MAX_SESSIONS``) are open at once, a client
asking for more getting 503 until one ends.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

SESSION_IDLE_TIMEOUT = 300.0  # Seconds; the SDK's own default is 30 minutes.
MAX_SESSIONS = 256


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rdx mcp", description="Serve a Ruby project's rdx graph over MCP (stdio by default).")
    parser.add_argument("path", nargs="?", default=".", help="project root (default: current directory)")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP on a loopback address instead of stdio")
    parser.add_argument("--cache-dir", default=None, help="where the index snapshot lives (default: .rdx/ in the project)")
    parser.add_argument(
        "--session-idle-timeout", type=float, default=SESSION_IDLE_TIMEOUT, metavar="SECONDS",
        help=f"--http: close a session after this long without a request (default {SESSION_IDLE_TIMEOUT:g})",
    )
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, help=f"--http: sessions open at once (default {MAX_SESSIONS})")
    args = parser.parse_args(argv)
    if not 0 < args.session_idle_timeout < 1e9 or args.max_sessions < 1:
        print("rdx mcp: error: --session-idle-timeout and --max-sessions must be positive", file=sys.stderr)
        return 2
    if not os.path.isdir(args.path):
        print(f"rdx mcp: error: {args.path!r} is not a directory", file=sys.stderr)
        return 2
    host, port = "127.0.0.1", 0
    if args.http:
        host, _, port_text = args.http.rpartition(":")
        if not port_text.isdigit() or host not in ("127.0.0.1", "localhost", "::1", "[::1]"):
            print(f"rdx mcp: error: --http wants a loopback HOST:PORT such as 127.0.0.1:8765, got {args.http!r}", file=sys.stderr)
            return 2
        port = int(port_text)
    from rdx_mcp.workspace import Workspace

    workspace = Workspace(args.path, cache_dir=args.cache_dir).start()
    # The server (and the MCP SDK, over a second of CPU to import) once the arguments are known
    # good, so that a usage error does not pay for it, and after the workspace has started
    # indexing, which goes on in its thread meanwhile.
    from rdx_mcp.server import build_server

    server = build_server(workspace)
    try:
        if args.http:
            server.run(
                "streamable-http", host=host.strip("[]"), port=port, session_idle_timeout=args.session_idle_timeout, max_sessions=args.max_sessions
            )
        else:
            server.run("stdio")
    finally:
        workspace.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
