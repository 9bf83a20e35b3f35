"""``python -m rdx_mcp [PATH] [--http HOST:PORT]``: serve a project's graph over MCP."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from rdx_mcp.server import Workspace, build_server


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rdx mcp", description="Serve a Ruby project's rdx graph over MCP (stdio by default).")
    parser.add_argument("path", nargs="?", default=".", help="project root (default: current directory)")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP on a loopback address instead of stdio")
    parser.add_argument("--cache-dir", default=None, help="where the index snapshot lives (default: .rdx/ in the project)")
    args = parser.parse_args(argv)
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
    workspace = Workspace(args.path, cache_dir=args.cache_dir).start()
    server = build_server(workspace)
    try:
        if args.http:
            server.run("streamable-http", host=host.strip("[]"), port=port)
        else:
            server.run("stdio")
    finally:
        workspace.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
