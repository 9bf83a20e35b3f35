"""Benchmark: what typical MCP tool answers cost a model in tokens, against the same answers as a
naive server sends them (pretty-printed JSON, nulls kept), measured in the same run.

Usage: python bench/bench_mcp_tokens.py [--cache-dir DIR] [--show]
Corpus: the gems of Debian's Ruby packages (``/usr/share/rubygems-integration/all/gems``: Rails,
RuboCop and their dependencies; ``make system-deps`` installs them), one ``Workspace`` root as
``bench_mcp.py`` uses, indexed into a temporary snapshot unless ``--cache-dir`` is given.

Each call goes through the SDK's in-process client. Printed per call: the tokens of the text the
server sends (cl100k_base, ``rdx.map.repomap.count_tokens``), the tokens of the same structured
answer as ``json.dumps(indent=2)`` with null fields kept (the baseline; it is also what the SDK
puts in the text copy by default), and their ratio; then the same for ``tools/list`` (every
tool's name, description and schemas), which a client reads into the context once per session.
Only the text copy is counted: it is what a client hands the model (the structured copy carries
the same data for programs).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import time
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from rdx.map.repomap import count_tokens  # noqa: E402
from rdx_mcp import Workspace, build_server  # noqa: E402

ROOT = "/usr/share/rubygems-integration/all/gems"
COP = "rubocop-*/lib/rubocop/cop/style/and_or.rb"


def one(pattern: str) -> str:
    """The project-relative path of the first file matching ``pattern`` under the root."""
    found = sorted(glob.glob(os.path.join(ROOT, pattern)))
    if not found:
        sys.exit(f"no file matches {pattern} under {ROOT}: run `make system-deps`")
    return os.path.relpath(found[0], ROOT)


def position(path: str, needle: str) -> dict[str, Any]:
    """``file_path``, ``line`` (1-based) and ``column`` (0-based) of the first ``needle`` in the file."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if needle in text:
                return {"file_path": path, "line": number, "column": text.index(needle)}
    sys.exit(f"{needle!r} is not in {path}: the corpus changed, update the bench")


def calls() -> list[tuple[str, dict[str, Any]]]:
    cop = one(COP)
    return [
        ("repo_map", {"max_tokens": 2048}),
        ("search_declarations", {"query": "validate presence of attributes", "limit": 10}),
        ("get_declaration", {"name": "ActiveRecord::Relation"}),  # A big class: about 110 members.
        ("find_method_references", {"name": "RuboCop::Cop::Base#add_offense()"}),
        ("get_file_declarations", {"file_path": one("rubocop-*/lib/rubocop/cop/base.rb")}),
        ("definition_at", position(cop, "Base\n")),
        ("hover_at", position(cop, "add_offense(")),
        ("search_code", {"pattern": "def on_send", "limit": 20}),
        # The same lists cut by max_tokens (estimated by the server at four characters a token).
        ("get_declaration", {"name": "ActiveRecord::Relation", "max_tokens": 1000}),
        ("find_method_references", {"name": "RuboCop::Cop::Base#add_offense()", "max_tokens": 1000}),
        ("get_file_declarations", {"file_path": one("rubocop-*/lib/rubocop/cop/base.rb"), "max_tokens": 1000}),
    ]


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def items(name: str, structured: dict[str, Any]) -> str:
    """How much the answer holds, in its own unit."""
    if name == "hover_at":
        return f"one declaration, {len(structured['definitions'][0]['comments'])} comment lines"
    if "items" in structured:
        return f"{len(structured['items'])} of {structured['total']} items{' (truncated)' if structured['truncated'] else ''}"
    if "files" in structured and isinstance(structured["files"], list):
        inner = sum(len(f.get("refs", f.get("lines", []))) for f in structured["files"])
        cut = " (truncated)" if structured["truncated"] else ""
        return f"{inner} of {structured['total']} in {len(structured['files'])} files{cut}"
    if "members" in structured:
        return f"{len(structured['members'])} members{' (truncated)' if structured['truncated'] else ''}"
    if "declarations" in structured:
        return f"{structured['declarations']} declarations"
    return ""


async def measure(server: MCPServer, plan: list[tuple[str, dict[str, Any]]], show: bool) -> None:
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        rows = []
        for name, args in plan:
            result = await client.call_tool(name, args)
            block = result.content[0]
            assert isinstance(block, TextContent)
            text = block.text
            if result.is_error:
                sys.exit(f"{name}({args}) failed: {text}")
            # The same answer before the server compacts it: the SDK's structured content.
            raw = await MCPServer.call_tool(server, name, args)
            assert isinstance(raw, CallToolResult)
            naive = pretty(raw.structured_content)
            budget = f" max_tokens={args['max_tokens']}" if "max_tokens" in args and name != "repo_map" else ""
            rows.append((name + budget, count_tokens(text), count_tokens(naive), items(name, result.structured_content or {})))
            if show:
                print(f"--- {name} {args}\n{text}\n")
    width = max(len(r[0]) for r in rows)
    print(f"{'call':{width}} {'rdx tokens':>10} {'pretty JSON':>11} {'pretty/rdx':>10}  answer")
    for name, ours, theirs, holds in rows:
        print(f"{name:{width}} {ours:>10} {theirs:>11} {theirs / ours:>9.2f}x  {holds}")
    ours_total = sum(r[1] for r in rows)
    theirs_total = sum(r[2] for r in rows)
    print(f"{'all calls':{width}} {ours_total:>10} {theirs_total:>11} {theirs_total / ours_total:>9.2f}x")
    # tools/list as sent (compact, no nulls) against the same list pretty-printed with nulls.
    listed = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    with_nulls = [t.model_dump(by_alias=True, mode="json") for t in tools]
    compact = count_tokens(json.dumps(listed, separators=(",", ":"), ensure_ascii=False))
    naive_list = count_tokens(pretty(with_nulls))
    print(f"{'tools/list':{width}} {compact:>10} {naive_list:>11} {naive_list / compact:>9.2f}x  {len(tools)} tools, every schema")
    print("repo_map's answer is one string already in a compact format: pretty-printing its envelope changes little.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default=None, help="snapshot directory (default: a fresh temporary one)")
    parser.add_argument("--show", action="store_true", help="print every answer as sent")
    args = parser.parse_args()
    if not os.path.isdir(ROOT):
        sys.exit(f"{ROOT} does not exist: run `make system-deps`")
    plan = calls()
    cache = args.cache_dir or tempfile.mkdtemp(prefix="rdx-bench-mcp-tokens-")
    t = time.perf_counter()
    workspace = Workspace(ROOT, cache_dir=cache, watch=False).start()
    if not workspace.wait_ready(600):
        sys.exit("indexing failed")
    print(f"indexed {ROOT} in {time.perf_counter() - t:.1f} s; tokens are cl100k_base, of the text copy a client hands the model")
    try:
        anyio.run(measure, build_server(workspace), plan, args.show)
    finally:
        workspace.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
