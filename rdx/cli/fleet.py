"""``rdx fleet index|serve|mcp``: the commands over ``rdx_fleet`` (index and serve many repositories on Ray).
Only argument parsing and printing live here; ``rdx_fleet`` is imported when a command runs,
so ``rdx`` without the ``fleet`` extra (Ray) starts as fast as before.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Any

__all__ = ["add_fleet_parser"]

SPLIT_FILES = 2000  # rdx_fleet.indexing.SPLIT_FILES, repeated: rdx_fleet is imported only when a command runs.


def _index(args: argparse.Namespace) -> int:
    from rdx_fleet.indexing import index_fleet, print_progress
    from rdx_fleet.manifest import load_manifest

    manifest = load_manifest(args.manifest)
    results = index_fleet(
        manifest, use_ray=not args.sequential, address=args.address, progress=None if args.quiet else print_progress, split_files=args.split_files,
    )
    indexed = sum(r.status == "indexed" for r in results)
    print(f"rdx fleet: {len(results)} repositories, {indexed} indexed, {len(results) - indexed} unchanged, store {manifest.store}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    import rdx
    from rdx_fleet.cluster import connect
    from rdx_fleet.fleet import Fleet
    from rdx_fleet.front import build_app
    from rdx_fleet.manifest import load_manifest
    from rdx_web.guard import is_loopback

    token = args.token or os.environ.get("RDX_TOKEN")
    if not is_loopback(args.host) and not token:
        raise rdx.InvalidArgumentError(f"serving on {rdx.excerpt(args.host)} (not loopback) needs a token; pass --token or set RDX_TOKEN")
    manifest = load_manifest(args.manifest, clone=False)
    ray = connect(args.address)
    fleet = Fleet(manifest, ray, shards=args.shards).start()
    stop = threading.Event()

    def refresher() -> None:
        while not stop.wait(args.refresh):
            swapped = fleet.refresh()
            if swapped:
                print(f"rdx fleet: swapped in {', '.join(swapped)}", file=sys.stderr)

    if args.refresh > 0:
        threading.Thread(target=refresher, daemon=True, name="rdx-fleet-refresh").start()
    try:
        app: Any = build_app(fleet, host=args.host, port=args.port, token=token)
        print(f"rdx fleet: {len(fleet.actors)} repositories at http://{args.host}:{args.port}/api/ (grep, search, declarations/NAME, references/NAME, definition, hover, map, stats, status)", file=sys.stderr, flush=True)
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        stop.set()
        fleet.stop()
    return 0


def _mcp(args: argparse.Namespace) -> int:
    from rdx_fleet.cluster import connect
    from rdx_fleet.fleet import Fleet
    from rdx_fleet.front import FleetAPI
    from rdx_fleet.manifest import load_manifest
    from rdx_fleet.mcp import build_fleet_server

    manifest = load_manifest(args.manifest, clone=False)
    fleet = Fleet(manifest, connect(args.address), shards=args.shards).start()
    try:
        build_fleet_server(FleetAPI(fleet)).run("stdio")
    finally:
        fleet.stop()
    return 0


def add_fleet_parser(sub: Any) -> None:
    """Register ``rdx fleet index|serve`` on the top-level subparsers."""
    p = sub.add_parser("fleet", help="index and serve many repositories on Ray (pip install 'rdx[fleet]')")
    fleet_sub = p.add_subparsers(dest="fleet_command", metavar="COMMAND", required=True)
    q = fleet_sub.add_parser("index", help="index every repository of a manifest, one Ray task each; unchanged ones are skipped")
    q.add_argument("manifest")
    q.add_argument("--address", default=None, help="Ray cluster address (auto, HOST:PORT, ray://...); default: a local Ray")
    q.add_argument("--sequential", action="store_true", help="index in this process, one repository after another, without Ray")
    q.add_argument("--quiet", "-q", action="store_true")
    q.add_argument("--split-files", type=int, default=SPLIT_FILES, metavar="N",
                   help=f"discover a repository indexed cold with more than N source files in batches of N, one Ray task each (default {SPLIT_FILES})")
    q.set_defaults(func=_index)
    s = fleet_sub.add_parser("serve", help="serve the fleet's HTTP JSON API (the /api/ of rdx serve, with a repository field and filter)")
    s.add_argument("manifest")
    s.add_argument("--address", default=None)
    s.add_argument("--port", type=int, default=8766)
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--token", default=None)
    s.add_argument("--refresh", type=float, default=10.0, help="seconds between checks for re-indexed repositories (0: never)")
    s.add_argument("--shards", type=int, default=None, help="serve from at least this many actors (default: one per Ray node; more when memory requires)")
    s.set_defaults(func=_serve)
    m = fleet_sub.add_parser("mcp", help="serve the fleet's MCP tools over stdio (one project's tools, with a repository parameter)")
    m.add_argument("manifest")
    m.add_argument("--address", default=None)
    m.add_argument("--shards", type=int, default=None, help="as for serve")
    m.set_defaults(func=_mcp)
