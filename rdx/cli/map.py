"""``rdx map``: the repository map for LLMs (``Graph.repo_map``) on the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import msgspec

from rdx.cli.base import Usage, cache_choice

__all__ = ["add_map_parser"]


def add_map_parser(sub: Any, common: Callable[..., None], index: Callable[..., Any], root_option: Callable[..., None]) -> None:
    p = sub.add_parser("map", help="a token-budgeted map of the repository's most important declarations, for LLMs")
    p.add_argument("path", nargs="?", default=".", help="project root (default: current directory)")
    root_option(p)
    p.add_argument("--tokens", "-t", type=int, default=2048, help="hard ceiling in cl100k_base tokens (default: 2048)")
    p.add_argument(
        "--focus", "-f", action="append", default=[], help="a file being edited or a declaration name to rank around (repeatable)"
    )
    p.add_argument("--detail", choices=["auto", "symbols", "files"], default="auto", help="files: one line per file (auto below 384 tokens)")
    common(p, project=False)

    def run(args: argparse.Namespace) -> int:
        if args.tokens < 64:
            raise Usage(f"--tokens must be at least 64, got {args.tokens}")
        graph, _, _, _ = index(args.path, args.jobs, True, cache_choice(args))
        result = graph.repo_map(args.tokens, focus=args.focus, detail=args.detail)
        if args.json:
            sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
        else:
            sys.stdout.write(result.text)
            if result.unmatched:
                print(f"rdx: nothing matched the focus {', '.join(result.unmatched)}", file=sys.stderr)
        return 0

    p.set_defaults(func=run)
