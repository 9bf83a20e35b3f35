"""Benchmark: 200 concurrent MCP tool calls against the Debian corpus, in process.

Usage: python bench/bench_mcp.py [PATH ...]   (default: the Debian corpus roots)
Prints p50/p99 latency per tool and checks every answer (no errors, expected names).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import anyio
from mcp import Client

from rdx_mcp import Workspace, build_server

DEFAULT = "/usr/share/rubygems-integration/all/gems"

CALLS = [
    ("get_declaration", {"name": "ActiveRecord::Base"}, "ActiveRecord::Base"),
    ("get_ancestors", {"name": "ActionController::Base"}, "ActionController::Base"),
    ("search_declarations", {"query": "Validat", "limit": 20}, None),
    ("resolve_constant", {"name": "Base", "nesting": ["ActiveRecord"]}, "ActiveRecord::Base"),
    ("find_constant_references", {"name": "RuboCop::Cop::Base", "limit": 50}, None),
    ("get_descendants", {"name": "RuboCop::Cop::Base", "limit": 100}, None),
    ("index_status", {}, None),
]


async def run(server) -> dict[str, list[float]]:
    latencies: dict[str, list[float]] = {name: [] for name, _, _ in CALLS}
    failures: list[str] = []
    async with Client(server) as client:

        async def one(i: int) -> None:
            name, args, expect = CALLS[i % len(CALLS)]
            t0 = time.perf_counter()
            result = await client.call_tool(name, args)
            latencies[name].append(time.perf_counter() - t0)
            if result.is_error or (expect and expect not in result.content[0].text):
                failures.append(f"{name}: {result.content[0].text[:120]}")

        async with anyio.create_task_group() as tg:
            for i in range(200):
                tg.start_soon(one, i)
    if failures:
        sys.exit(f"{len(failures)} wrong answers, first: {failures[0]}")
    return latencies


async def sequential(server, repeat: int = 20) -> dict[str, list[float]]:
    """Service time: the same calls one at a time (no queueing behind other calls)."""
    latencies: dict[str, list[float]] = {name: [] for name, _, _ in CALLS}
    async with Client(server) as client:
        for _ in range(repeat):
            for name, args, _ in CALLS:
                t0 = time.perf_counter()
                await client.call_tool(name, args)
                latencies[name].append(time.perf_counter() - t0)
    return latencies


def report(title: str, latencies: dict[str, list[float]]) -> None:
    print(title)
    for name, values in latencies.items():
        values.sort()
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        print(f"  {name:26s} n={len(values):3d}  p50 {statistics.median(values) * 1000:8.1f} ms  p99 {p99 * 1000:8.1f} ms")


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    if not os.path.isdir(root):
        sys.exit(f"{root} does not exist: run `make system-deps` or pass a path")
    workspace = Workspace(root, cache_dir=tempfile.mkdtemp(prefix="rdx-mcp-bench-"), watch=False).start()
    t0 = time.perf_counter()
    assert workspace.wait_ready(600), "indexing failed"
    print(f"indexed {root} in {time.perf_counter() - t0:.1f}s")
    server = build_server(workspace)
    report("one call at a time (service time per tool; target p50 < 10 ms for lookups):", anyio.run(sequential, server))
    t0 = time.perf_counter()
    latencies = anyio.run(run, server)
    report(f"200 concurrent calls, all answered correctly in {time.perf_counter() - t0:.1f}s (latency includes queueing):", latencies)
    workspace.stop()


if __name__ == "__main__":
    main()
