"""The search commands: ``rdx grep`` (the text of every file, like ripgrep, through
``rdx.TextSearch``: no Ruby graph is built for a grep) and ``rdx serve`` (the code browser and
the JSON API over HTTP)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import msgspec

import rdx
from rdx.cli.base import EXIT_ERROR, NotServed, Usage, cache_choice, held_graph, warn_about_cache
from rdx.search.grep import GREP_TIMEOUT
from rdx_resident.client import project_of

__all__ = ["GREP_PARSER", "add_grep_parser", "add_serve_parser", "cmd_grep", "cmd_serve"]

# The longest grep (seconds) a resident server runs for a client (see rdx_resident.client).
MAX_SERVED_GREP_SECONDS = 60.0

# The grep parser, kept so ``main`` can parse grep's options between its positionals.
GREP_PARSER: list[argparse.ArgumentParser] = []


def _shown(path: str, project: str) -> str:
    """A path as grep prints it: relative to the current directory when it is inside the
    project (``../README.md`` from ``lib/``), else as it is."""
    inside = path.startswith(os.path.abspath(project).rstrip(os.sep) + os.sep)
    return os.path.relpath(path) if inside or not os.path.relpath(path).startswith("..") else path


def cmd_grep(args: argparse.Namespace) -> int:
    if args.context < 0:
        raise Usage(f"-C must be at least 0, got {args.context}")
    if args.limit is not None and args.limit < 0:
        raise Usage(f"--limit must be at least 0, got {args.limit}")
    if not 0 <= args.timeout < 1e9:
        raise Usage(f"--timeout must be a number of seconds (0: no limit), got {args.timeout}")
    project = args.project or project_of(args.path)
    cache = cache_choice(args)
    searcher: rdx.Graph | rdx.TextSearch
    held = held_graph(project, cache)
    if held is not None:
        # A resident server's graph holds the same text index, kept current; it bounds each
        # request's work, so a search without a time limit runs in the client instead.
        if not args.timeout or args.timeout > MAX_SERVED_GREP_SECONDS:
            raise NotServed(f"a grep of more than {MAX_SERVED_GREP_SECONDS:g} s runs in-process")
        searcher = held
    elif cache is False:
        searcher = rdx.Graph()
        searcher.index_all([project], jobs=args.jobs)
    else:
        # The text index alone: no Ruby file is parsed for a grep.
        searcher = rdx.TextSearch.open(project, cache_dir=cache if isinstance(cache, str) else None)
    page = searcher.grep(
        args.pattern, regex=args.regex, ignore_case=args.ignore_case, glob=args.glob or None, language=args.type or None,
        path=args.path, context=args.context, limit=args.limit, offset=args.offset, timeout=args.timeout or None,
    )
    if isinstance(searcher, rdx.TextSearch):
        warn_about_cache(searcher.diagnostics)
    if not page.complete:
        # Always said, even with -q: the output lacks lines and a script must be able to tell.
        print(f"rdx: the search stopped after its {args.timeout:g} s budget; later files were not searched (--timeout, 0: no limit)", file=sys.stderr)
    if args.json:
        data = {"total": page.total, "files": page.files, "offset": page.offset, "complete": page.complete, "hits": [h.to_builtins() for h in page]}
        sys.stdout.write(msgspec.json.encode(data).decode() + "\n")
        return 0 if page.total else EXIT_ERROR
    out = sys.stdout
    if hasattr(out, "reconfigure"):
        # A file name that is not UTF-8 (surrogate escapes) is printed as its bytes, as
        # ripgrep prints it, whatever the locale's error handler; the lines hold no escapes.
        out.reconfigure(errors="surrogateescape")
    # With --null the path ends with NUL instead of ':' or '-' (as ripgrep's --null), so a
    # path holding ':' or a line break still parses.
    match_sep, context_sep = ("\0", "\0") if args.null else (":", "-")
    previous: tuple[str, int] | None = None
    for hit in page:
        shown = _shown(hit.path, project)
        if args.context:
            first = hit.line - len(hit.before)
            if previous is not None and (previous[0] != hit.path or first > previous[1] + 1):
                out.write("--\n")
            skip = max(0, previous[1] - first + 1) if previous is not None and previous[0] == hit.path else 0
            for k, text in enumerate(hit.before[skip:], first + skip):
                out.write(f"{shown}{context_sep}{k}-{text}\n")
        out.write(f"{shown}{match_sep}{hit.line}:{hit.column + 1}:{hit.text}\n")
        for k, text in enumerate(hit.after, hit.line + 1):
            out.write(f"{shown}{context_sep}{k}-{text}\n")
        previous = (hit.path, hit.line + len(hit.after))
    if page.total > len(page.hits) and not args.quiet:
        print(f"rdx: {len(page.hits)} of {page.total} matching lines shown (--limit/--offset)", file=sys.stderr)
    return 0 if page.total else EXIT_ERROR



def add_grep_parser(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("grep", help="search the text of every file (literal, or RE2 regex with -e), like ripgrep")
    p.add_argument("pattern")
    p.add_argument("path", nargs="?", default=None, help="only files under this path (default: the whole project)")
    p.add_argument("-e", "--regex", action="store_true", help="PATTERN is a regex (RE2 syntax, as ripgrep's)")
    p.add_argument("-i", "--ignore-case", action="store_true")
    p.add_argument("-g", "--glob", action="append", default=[], help="only paths matching this gitignore-style glob; !GLOB excludes (repeatable)")
    p.add_argument("-t", "--type", action="append", default=[], help="only files of this language: ruby, markdown, yaml, ... (repeatable)")
    p.add_argument("-C", "--context", type=int, default=0, help="lines of context around each match")
    p.add_argument("--limit", type=int, default=None, help="at most this many matching lines")
    p.add_argument("--offset", type=int, default=0, help="skip this many matching lines first")
    p.add_argument("-q", "--quiet", action="store_true", help="no note on stderr when --limit cut the output")
    p.add_argument("-0", "--null", action="store_true", help="end each path with a NUL byte instead of ':' (paths with ':' or newlines)")
    p.add_argument(
        "--timeout", type=float, default=GREP_TIMEOUT, metavar="SECONDS",
        help=f"stop after this long and print what was found, with a note on stderr (default {GREP_TIMEOUT:g}; 0: no limit)",
    )
    p.add_argument("--project", "-p", default=None, help="project root (default: the nearest directory with .rdx/ or .git above PATH)")
    common(p, project=False)
    p.set_defaults(func=cmd_grep)
    GREP_PARSER[:] = [p]


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the JSON API over HTTP (``rdx_mcp.web``: the MCP tools behind plain GETs)."""
    if not os.path.isdir(args.path):
        raise Usage(f"{args.path!r} is not a directory")
    if not 0 <= args.port <= 65535:
        raise Usage(f"--port must be between 0 and 65535, got {args.port}")
    from rdx_mcp.web import TOKEN_ENV, is_loopback, serve

    token = args.token or os.environ.get(TOKEN_ENV) or None
    if not is_loopback(args.host):
        if not token:
            raise Usage(f"serving on {args.host} (not loopback) needs a token: set {TOKEN_ENV} (or pass --token); clients send Authorization: Bearer <token>")
        print(f"rdx: warning: serving on {args.host}, not loopback: anyone who can reach it and holds the token can read the project", file=sys.stderr)
    print(f"rdx: serving {os.path.abspath(args.path)} on http://{args.host}:{args.port} (GET /grep, /search, /declarations/NAME, /stats)", file=sys.stderr)
    serve(args.path, host=args.host, port=args.port, cache_dir=args.cache_dir, token=token, allowed_hosts=tuple(args.allow_host))
    return 0



def add_serve_parser(sub: Any, root_option: Callable[..., None]) -> None:
    p = sub.add_parser("serve", help="serve a code browser at / and a JSON API under /api/ (grep, search, declarations/NAME, stats) over HTTP")
    p.add_argument("path", nargs="?", default=".")
    root_option(p)
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only; any other needs a token)")
    p.add_argument(
        "--token", default=None,
        help="require Authorization: Bearer TOKEN on every request (default: $RDX_TOKEN; prefer it, as others can read a command line)",
    )
    p.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME[:PORT]",
        help="also answer requests addressed to this host name (repeatable); others get 421",
    )
    p.add_argument("--cache-dir", default=None)
    p.set_defaults(func=cmd_serve)
