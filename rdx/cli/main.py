"""The ``rdx`` command line: a thin layer over the public API.

Every command indexes a project (``--project``/``-p``, or the PATH argument of those that take
one; default: the current directory), resolves it,
and answers one question, as text or ``--json``. Errors are one line on stderr and a non-zero
exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import msgspec

import rdx
from rdx.cli.base import (
    EXIT_ERROR,
    EXIT_USAGE,
    Parser,
    Usage,
    cache_choice,
    forget_warnings,
    held_graph,
    no_context,
    root_option,
    take_root,
    warn_about_cache,
)
from rdx.cli.daemon import add_daemon_parser, daemon_command
from rdx.cli.demo import add_demo_parser
from rdx.cli.fleet import add_fleet_parser
from rdx.cli.map import add_map_parser
from rdx.cli.search import GREP_PARSER, add_grep_parser, add_serve_parser
from rdx.cli.tree import add_tree_parser
from rdx.model.errors import NotFoundError, RdxError

__all__ = ["main"]

def _index(project: str, jobs: int | None, quiet: bool, cache: str | None | bool = None) -> tuple[rdx.Graph, list[rdx.Diagnostic], float, float]:
    """Index ``project``: from its snapshot (``cache``: None for the default ``.rdx/``, a
    directory, or False for no snapshot at all), resolve, and time both steps."""
    held = held_graph(project, cache)  # In the resident server (rdx.cli.resident): its graph.
    if held is not None:
        return held, [], 0.0, 0.0
    t0 = time.perf_counter()

    def load(progress: Any = None) -> rdx.Graph:
        if cache is False:
            # No snapshot read or kept, but the project as ``rdx.toml`` describes it (files,
            # load paths, gems): a scratch cache directory, removed when the command ends.
            scratch = tempfile.mkdtemp(prefix="rdx-no-cache-")
            atexit.register(shutil.rmtree, scratch, True)
            return rdx.Graph.open([project], cache_dir=scratch, jobs=jobs, progress=progress, freeze_gc=True)
        return rdx.Graph.open([project], cache_dir=cache if isinstance(cache, str) else None, jobs=jobs, progress=progress, freeze_gc=True)

    if not quiet and sys.stderr.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True) as bar:
            task = bar.add_task("index", total=None)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            graph = load(tick)
    else:
        graph = load()
    t1 = time.perf_counter()
    graph.resolve()  # Nothing to do when Graph.open restored the saved resolved graph.
    t2 = time.perf_counter()
    diagnostics = graph.diagnostics
    warn_about_cache(diagnostics)
    problems = [d for d in diagnostics if d.severity == "error"]
    return graph, problems, t1 - t0, t2 - t1


_NAMESPACES = ("Class", "Module", "SingletonClass", "Todo")


def _decl_json(d: rdx.Declaration, full: bool = False) -> dict[str, Any]:
    if full:
        return _summary_json(d.summary())
    out: dict[str, Any] = {"name": d.name, "kind": d.kind}
    language = getattr(d, "language", "ruby")
    if language != "ruby":
        out["language"] = language
    if getattr(d, "origin", "project") == "dependency":
        out["origin"] = "dependency"
    loc = d.location
    if loc is not None:
        out["location"] = str(loc)
    return out


def _summary_json(s: rdx.DeclarationSummary) -> dict[str, Any]:
    out: dict[str, Any] = {"name": s.name, "kind": s.kind}
    if s.definitions:
        out["location"] = str(s.definitions[0].location)
    out["definitions"] = [
        {"kind": x.kind, "location": str(x.location), "comments": x.comments, **({"signature": x.signature} if x.signature else {})}
        for x in s.definitions
    ]
    if s.kind in _NAMESPACES:
        out["ancestors"] = s.ancestors
        out["members"] = [{"name": m.unqualified, "kind": m.kind} for m in s.members]
    if s.visibility is not None:
        out["visibility"] = s.visibility
    if s.kind == "ConstantAlias":
        out["target"] = s.target
    if s.owner is not None:
        out["owner"] = s.owner
    return out


def _emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        sys.stdout.write(msgspec.json.encode(data).decode() + "\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _summary(graph: rdx.Graph, problems: list[rdx.Diagnostic], discovery: float, resolution: float) -> tuple[dict[str, Any], str]:
    stats = graph.stats()
    stats["discovery_seconds"] = round(discovery, 3)
    stats["resolution_seconds"] = round(resolution, 3)
    stats["problems"] = [str(p) for p in problems]
    by_kind: dict[str, int] = stats["declarations_by_kind"]  # type: ignore[assignment]
    kinds = ", ".join(f"{k} {v}" for k, v in by_kind.items())
    opened = graph.open_stats
    if opened:
        stats["open"] = dict(opened)
    source = ""
    if opened.get("snapshot"):
        source = f" ({opened['reused']} from the snapshot, {opened['parsed']} parsed)"
    resolved = "resolved graph restored from the snapshot" if opened.get("resolved") else f"resolved in {resolution:.2f}s"
    lines = [
        f"indexed {stats['documents']} files ({stats['bytes']} bytes){source} in {discovery:.2f}s, {resolved}",
        f"{stats['definitions']} definitions, {stats['declarations']} declarations ({kinds})",
        f"{stats['constant_references']} constant references ({stats['constant_references_resolved']} resolved), "
        f"{stats['method_references']} method references, {stats['diagnostics']} diagnostics",
    ]
    languages: dict[str, dict[str, int]] = stats["languages"]  # type: ignore[assignment]
    for language, n in languages.items():
        lines.append(
            f"{language}: {n['documents']} files, {n['declarations']} declarations, "
            f"{n['references']} references ({n['references_resolved']} resolved), {n['imports']} imports ({n['imports_resolved']} to project files)"
        )
    if stats.get("text_files") is not None:
        lines.append(f"text index (grep): {stats['text_files']} files, {stats['text_bytes']} bytes")
    if problems:
        lines.append(f"{len(problems)} file problems:")
        lines.extend(f"  {p}" for p in problems[:20])
        if len(problems) > 20:
            lines.append(f"  ... and {len(problems) - 20} more (use --json for all)")
    return stats, "\n".join(lines)


def cmd_index(args: argparse.Namespace) -> int:
    """Exit status 0; 1 (after the summary) when the cache could not be written, as making it
    is what ``rdx index`` is for (other commands warn and answer with their usual status)."""
    if args.dry_run:
        return _dry_run(args)
    if args.verify:
        return _verify(args)
    graph, problems, t_disc, t_res = _index(args.path, args.jobs, args.json, cache_choice(args))
    stats, text = _summary(graph, problems, t_disc, t_res)
    _emit(args, stats, text)
    return EXIT_ERROR if warn_about_cache(graph.diagnostics) else 0


def _verify(args: argparse.Namespace) -> int:
    """``rdx index --verify``: check every checksum of the cache (the envelope files, the text
    index's integrity, row sums and stored texts, the gem cache entries the project uses),
    remove what is damaged, rebuild it all by indexing, and check again. Exit 0 when all was
    well or is repaired, 1 when something is still wrong (an unwritable cache)."""
    from rdx.cache.snapshot import check_cache_files, default_cache_dir
    from rdx.search.text_index import INDEX_NAME, verify_text_index

    cache = cache_choice(args)
    if cache is False:
        raise Usage("--verify checks the cache; it cannot be combined with --no-cache")
    directory = cache if isinstance(cache, str) else default_cache_dir(os.path.abspath(args.path))

    def check() -> list[str]:
        found = check_cache_files(directory)
        text = verify_text_index(os.path.join(directory, INDEX_NAME))
        if text is not None:
            found.append(f"{os.path.join(directory, INDEX_NAME)}: {text}; removed")
        return found

    found = check()
    graph, _, _, _ = _index(args.path, args.jobs, True, cache)
    # Opening verified the gem cache entries it read (damaged ones were removed and parsed
    # again) and rebuilt what was removed; building the search index and the other
    # languages' resolution writes those files too.
    found += [d.message for d in graph.diagnostics if d.code in ("snapshot-rebuilt", "gem-cache-damaged")]
    graph.prepare_queries()
    graph.stats()
    remaining = check() + [d.message for d in graph.diagnostics if d.code.endswith("unwritable")]
    lines = [f"checked {directory}: " + ("everything is intact" if not found else f"{len(found)} problems found")]
    lines += [f"  found: {f}" for f in found]
    if found:
        lines.append("repaired: the damaged parts were rebuilt" if not remaining else "not repaired:")
    lines += [f"  {r}" for r in remaining]
    _emit(args, {"cache": directory, "found": found, "remaining": remaining}, "\n".join(lines))
    return EXIT_ERROR if remaining else 0


def _dry_run(args: argparse.Namespace) -> int:
    """List what would be indexed: the project's files, counted per directory, the gems
    Gemfile.lock locks (name, version, files), and what would be skipped."""
    paths, skipped, config = rdx.Graph.plan(args.path)
    gems, gem_problems = rdx.Graph.plan_dependencies(args.path)
    root = os.path.abspath(args.path)
    per_dir: dict[str, int] = {}
    for p in paths:
        d = os.path.relpath(os.path.dirname(p), root) if os.path.isdir(root) else os.path.dirname(p)
        per_dir[d] = per_dir.get(d, 0) + 1
    gem_files = sum(g.files for g in gems)
    data = {
        "config": config.source,
        "files": len(paths),
        "gem_files": gem_files,
        "total_files": len(paths) + gem_files,
        "directories": dict(sorted(per_dir.items())),
        "gems": [{"name": g.name, "version": g.version, "locked": g.locked, "files": g.files} for g in gems],
        "skipped": [str(p) for p in skipped],
        "gem_problems": [d.message for d in gem_problems],
    }
    config_note = f" (config: {config.source})" if config.source else ""
    if gems:
        lines = [
            f"would index {len(paths) + gem_files:,} files: {len(paths):,} of the project{config_note} "
            f"and {gem_files:,} of {len(gems)} gem{'s' if len(gems) != 1 else ''} locked in Gemfile.lock"
        ]
    else:
        lines = [f"would index {len(paths):,} file{'s' if len(paths) != 1 else ''}{config_note}"]
    lines += [f"  {count:6d}  {d}" for d, count in sorted(per_dir.items())]
    if gems:
        lines.append(f"gems ({len(gems)}):")
        for g in sorted(gems, key=lambda g: g.name):
            other = f" (locked {g.locked})" if g.locked != g.version else ""
            lines.append(f"  {g.files:6d}  {g.name} {g.version}{other}")
    if gem_problems:
        lines.append(f"gem problems ({len(gem_problems)}):")
        lines += [f"  {d.message}" for d in gem_problems]
    if skipped:
        lines.append(f"would skip {len(skipped)}:")
        lines += [f"  {p}" for p in skipped]
    _emit(args, data, "\n".join(lines))
    return 0


def _show_text(s: rdx.DeclarationSummary) -> str:
    lines = [f"{s.name} ({s.kind})" if s.language == "ruby" else f"{s.name} ({s.language} {s.kind})"]
    if s.owner is not None:
        lines.append(f"  owner: {s.owner}")
    if s.visibility is not None:
        lines.append(f"  visibility: {s.visibility}")
    if s.kind == "ConstantAlias":
        lines.append(f"  target: {s.target or '(unresolved)'}")
    lines.append("  definitions:")
    for x in s.definitions:
        sig = f" {x.signature}" if x.signature else ""
        lines.append(f"    {x.kind}{sig} at {x.location}")
        for c in x.comments:
            lines.append(f"      {c}")
    if not s.definitions:
        lines.append("    (none: built in or a placeholder)")
    if s.kind in _NAMESPACES or (s.language != "ruby" and (s.ancestors or s.members)):
        lines.append("  ancestors: " + " > ".join(s.ancestors))
        lines.append(f"  members ({len(s.members)}):")
        for m in s.members:
            lines.append(f"    {m.unqualified} ({m.kind})")
    return "\n".join(lines)


def _declaration(graph: rdx.Graph, name: str) -> rdx.Declaration:
    """The declaration named ``name``, or a one-line error offering the nearest names."""
    decl = graph.get(name)
    if decl is None:
        near = graph.suggest(name)
        hint = f"did you mean {', '.join(near)}?" if near else "rdx search finds declarations by words or part of a name"
        raise NotFoundError(f"no declaration named {rdx.excerpt(name)}; {hint}")
    return decl


def cmd_show(args: argparse.Namespace) -> int:
    graph, _, _, _ = _index(args.project, args.jobs, True, cache_choice(args))
    summary = _declaration(graph, args.name).summary()
    _emit(args, _summary_json(summary), _show_text(summary))
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    graph, _, _, _ = _index(args.project, args.jobs, True, cache_choice(args))
    nesting = [n for n in (args.nesting or "").split(",") if n]
    d = graph.resolve_constant(args.name, nesting)
    if d is None:
        where = " > ".join(nesting) or "top level"
        near = graph.suggest(args.name, nesting=nesting)
        _emit(args, None, f"{args.name} does not resolve inside {where}" + (f"; did you mean {', '.join(near)}?" if near else ""))
        return EXIT_ERROR
    _emit(args, _decl_json(d), f"{d.name} ({d.kind})" + (f" at {d.location}" if d.location else ""))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    graph, _, _, _ = _index(args.project, args.jobs, True, cache_choice(args))
    found = graph.search(
        args.query, kind=args.kind, match_mode=args.mode, limit=args.limit, path=args.path_filter, language=args.language, dependencies=not args.no_dependencies
    )
    warn_about_cache(graph.cache_problems())  # The search index restored or saved just now.
    _emit(
        args,
        [_decl_json(d) for d in found],
        "\n".join(f"{d.name} ({_kind_text(d)})" + (f"  {d.location}" if d.location else "") for d in found) or "no matches",
    )
    return 0 if found else EXIT_ERROR


def _kind_text(d: rdx.Declaration) -> str:
    language = getattr(d, "language", "ruby")
    kind = d.kind if language == "ruby" else f"{language} {d.kind}"
    return kind + ", gem" if getattr(d, "origin", "project") == "dependency" else kind


def _position(text: str) -> tuple[str, int, int]:
    path, sep, rest = text.rpartition(":")
    path2, sep2, line = path.rpartition(":")
    if not sep or not sep2 or not line.isdigit() or not rest.isdigit() or not path2:
        raise Usage(f"position {text!r} is not PATH:LINE:COLUMN (line 1-based, column 0-based)")
    if not os.path.exists(path2):
        raise Usage(f"{path2!r} does not exist")
    return os.path.abspath(path2), int(line), int(rest)


def cmd_refs(args: argparse.Namespace) -> int:
    graph, _, _, _ = _index(args.project, args.jobs, True, cache_choice(args))
    refs = graph.references_to(_declaration(graph, args.name))
    lines = [f"{r.location}  {r.name}{'' if r.certain else '  (receiver unknown)'}" for r in refs]
    _emit(args, [msgspec.to_builtins(r) for r in refs], "\n".join(lines) or "no references")
    return 0


def _graph_at(args: argparse.Namespace) -> tuple[rdx.Graph, str, int, int]:
    """Parse ``PATH:LINE:COL`` (before indexing, so a bad position fails fast) and index."""
    path, line, column = _position(args.position)
    graph, _, _, _ = _index(args.project, args.jobs, True, cache_choice(args))
    return graph, path, line, column


def _at(call: Any, path: str, line: int, column: int) -> Any:
    """A position question; a position outside the file (a line it does not have, a column
    past its line's end) is a usage error, as a malformed position is."""
    try:
        return call(path, line, column)
    except rdx.InvalidArgumentError as exc:
        raise Usage(str(exc)) from None


# How the command line marks a guess by name (``certain=False``) in def and hover.
_GUESS = "uncertain: the receiver's type is unknown, so this is a guess by name"


def cmd_def(args: argparse.Namespace) -> int:
    graph, path, line, column = _graph_at(args)
    target = _at(graph.definition_at, path, line, column)
    if target is None:
        _emit(args, None, "nothing to go to at that position")
        return EXIT_ERROR
    if target.certain:
        lines = [f"{target.name} ({target.kind})", *(f"  {loc}" for loc in target.locations)]
    else:
        lines = [f"{target.name} ({target.kind}; {_GUESS})", *(f"  {loc}  {name}" for loc, name in zip(target.locations, target.candidates, strict=False))]
    _emit(args, msgspec.to_builtins(target), "\n".join(lines))
    return 0


def cmd_hover(args: argparse.Namespace) -> int:
    graph, path, line, column = _graph_at(args)
    hover = _at(graph.hover_at, path, line, column)
    if hover is None:
        _emit(args, None, "nothing known at that position")
        return EXIT_ERROR
    title = hover.name
    if hover.signature and title.endswith("()"):
        title = title[:-2] + hover.signature
    lines = [f"{title} ({hover.kind})" if hover.certain else f"{title} ({hover.kind}; {_GUESS})"]
    if not hover.certain and len(hover.candidates) > 1:
        lines.append(f"  one of {len(hover.candidates)} methods of that name:")
        lines += [f"    {name}" for name in hover.candidates]
    if hover.owner:
        lines.append(f"  owner: {hover.owner}")
    if hover.ancestors:
        lines.append("  ancestors: " + " > ".join(hover.ancestors))
    lines.extend(f"  {c}" for c in hover.comments)
    _emit(args, msgspec.to_builtins(hover), "\n".join(lines))
    return 0


def cmd_complete(args: argparse.Namespace) -> int:
    graph, path, line, column = _graph_at(args)
    items = _at(graph.completions_at, path, line, column)[: args.limit]
    _emit(args, [msgspec.to_builtins(c) for c in items], "\n".join(f"{c.label}  ({c.kind}) {c.detail}" for c in items) or "no completions")
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Keep the index (and its snapshot) fresh while files change; print each update."""
    root = os.path.abspath(args.path)
    graph = rdx.Graph.open([root], cache_dir=args.cache_dir, jobs=args.jobs, freeze_gc=True)
    graph.resolve()
    print(f"watching {root}: {graph.stats()['documents']} files indexed (revision {graph.revision})", flush=True)
    unsaved = False

    def updated(changed: int, removed: int, seconds: float) -> None:
        nonlocal unsaved
        unsaved = True
        print(f"updated {changed} and removed {removed} files in {seconds * 1000:.0f} ms (revision {graph.revision})", flush=True)

    def quiet() -> None:
        # The snapshot is written when the files go quiet, not after every batch of changes.
        nonlocal unsaved
        graph.save()
        unsaved = False

    # ``kill`` (SIGTERM) ends the loop like Ctrl-C does, so unsaved updates are written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        rdx.follow_changes(
            graph, root, debounce_ms=args.debounce, on_update=updated, on_idle=quiet,
            on_ready=lambda: print("ready", flush=True), max_batches=args.exit_after or None,
        )
    finally:
        if unsaved:
            graph.save()
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the project over MCP; the server lives in the separate ``rdx_mcp`` package."""
    from rdx_mcp.__main__ import main as mcp_main

    argv = [args.path] + (["--http", args.http] if args.http else []) + (["--cache-dir", args.cache_dir] if args.cache_dir else [])
    if args.session_idle_timeout is not None:
        argv += ["--session-idle-timeout", str(args.session_idle_timeout)]
    if args.max_sessions is not None:
        argv += ["--max-sessions", str(args.max_sessions)]
    return mcp_main(argv)


def cmd_lsp(args: argparse.Namespace) -> int:
    """Serve the Language Server Protocol over stdio; the server is the separate ``rdx_lsp``
    package (the workspace root comes from the client's ``initialize``)."""
    from rdx_lsp.app import main as lsp_main

    return lsp_main([])


def cmd_stats(args: argparse.Namespace) -> int:
    graph, problems, t_disc, t_res = _index(args.path, args.jobs, True, cache_choice(args))
    stats, text = _summary(graph, problems, t_disc, t_res)
    _emit(args, stats, text)
    return 0


def _build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="rdx", description="A semantic code graph for Ruby.")
    parser.add_argument("--version", action="version", version=f"rdx {rdx.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    def common(p: argparse.ArgumentParser, project: bool = True) -> None:
        p.add_argument("--json", action="store_true", help="print JSON instead of text")
        p.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: one per core)")
        p.add_argument("--cache-dir", default=None, help="where the index snapshot lives (default: .rdx/ in the project)")
        p.add_argument("--no-cache", action="store_true", help="neither read nor write the index snapshot")
        p.add_argument("--no-daemon", action="store_true", help="answer in this process, not through the project's resident server (also RDX_NO_DAEMON=1)")
        if project:
            p.add_argument("--project", "-p", default=".", help="project root to index (default: current directory)")
            no_context(p)

    p = sub.add_parser("index", help="index a project and print a summary")
    p.add_argument("path", nargs="?", default=".", help="directory or file (default: current directory)")
    root_option(p)
    p.add_argument("--dry-run", action="store_true", help="list what would be indexed, per directory, and stop")
    p.add_argument("--verify", action="store_true", help="check every checksum of the cache, repair what is damaged, say what was found")
    common(p, project=False)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("show", help="show a declaration: kind, definitions, ancestors, members")
    p.add_argument("name", help="fully qualified name, e.g. Foo::Bar, Foo#bar(), Foo::<Foo>, pkg.mod.Class, http.Client.Do")
    common(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("resolve", help="resolve a constant written inside a lexical nesting")
    p.add_argument("name", help="constant as written, e.g. Baz or Bar::Baz")
    p.add_argument("--nesting", default="", help="enclosing namespaces as written, outermost first: Foo,Bar::Baz")
    common(p)
    p.set_defaults(func=cmd_resolve)

    p = sub.add_parser("search", help="search declarations: ranked by what their names and docs say, or by name")
    p.add_argument("query", help="a description ('parse one CSV line'; AND, OR, -word, prefix*) or a name")
    p.add_argument("--kind", default=None, help="only this kind (Ruby: Class, Module, Method, Constant, ...; other languages: class, function, method, struct, ...)")
    p.add_argument("--mode", default="ranked", choices=["ranked", "fuzzy", "prefix", "exact"], help="ranked (default) or a name match")
    p.add_argument("--path", dest="path_filter", default=None, help="only declarations defined in files whose path contains this (a filter: it need not exist)")
    p.add_argument("--language", default=None, help="only this language (ruby, python, typescript, go, rust, ...)")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--no-dependencies", action="store_true", help="leave out declarations only the project's gems define (Gemfile.lock)")
    common(p)
    p.set_defaults(func=cmd_search)

    add_grep_parser(sub, common)
    p = sub.add_parser("lsp", help="a language server (LSP over stdio) for editors; the root comes from the client")
    p.add_argument("--stdio", action="store_true", help="accepted for editors that pass it (stdio is the only transport)")
    p.set_defaults(func=cmd_lsp)
    add_map_parser(sub, common, _index, root_option)

    p = sub.add_parser("refs", help="references to a declaration (constants through aliases, method calls)")
    p.add_argument("name", help="fully qualified name, e.g. Foo::Bar or Foo#bar()")
    common(p)
    p.set_defaults(func=cmd_refs)

    for name, func, what in (
        ("def", cmd_def, "go to the definition of what is at PATH:LINE:COL"),
        ("hover", cmd_hover, "describe what is at PATH:LINE:COL"),
        ("complete", cmd_complete, "completion candidates at PATH:LINE:COL"),
    ):
        p = sub.add_parser(name, help=what)
        p.add_argument("position", help="PATH:LINE:COL (line 1-based, column 0-based)")
        if name == "complete":
            p.add_argument("--limit", type=int, default=50)
        common(p)
        p.set_defaults(func=func)

    p = sub.add_parser("watch", help="keep the index fresh while files change, printing each update")
    p.add_argument("path", nargs="?", default=".")
    root_option(p)
    p.add_argument("--jobs", "-j", type=int, default=None)
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--debounce", type=int, default=200, help="milliseconds to group changes (default 200)")
    p.add_argument("--exit-after", type=int, default=0, help="stop after this many updates (for scripts and tests)")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("mcp", help="serve the project to AI agents over MCP (stdio, or --http HOST:PORT)")
    p.add_argument("path", nargs="?", default=".")
    root_option(p)
    p.add_argument("--http", default=None, help="loopback HOST:PORT for streamable HTTP")
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--session-idle-timeout", type=float, default=None, metavar="SECONDS", help="--http: close idle sessions after this long (default 300)")
    p.add_argument("--max-sessions", type=int, default=None, help="--http: sessions open at once (default 256)")
    p.set_defaults(func=cmd_mcp)

    add_serve_parser(sub, root_option)

    p = sub.add_parser("stats", help="counts of files, definitions, declarations and references")
    p.add_argument("path", nargs="?", default=".")
    root_option(p)
    common(p, project=False)
    p.set_defaults(func=cmd_stats)

    add_demo_parser(sub, _index, _summary, _emit)
    add_daemon_parser(sub)
    add_fleet_parser(sub)
    add_tree_parser(sub)
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line's parser, built once per process: a build takes about 15 ms (most of a
    resident server's answer, and of a test's call of ``main``), and a parse keeps no state
    in the parser (``append`` options copy their default list; ``parse_intermixed_args``
    puts back what it changes before it returns)."""
    return _build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    forget_warnings()
    parser = _parser()
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        if argv[:1] == ["daemon"]:
            return daemon_command(argv[1:])  # Its own parser, shared with the light client.
        if argv[:1] == ["grep"]:
            # grep takes options between its two positionals (``PATTERN -C 1 PATH``), as rg does.
            args = GREP_PARSER[0].parse_intermixed_args(argv[1:])
            args.command = "grep"
        else:
            args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        take_root(args)
        if getattr(args, "jobs", None) is not None and args.jobs < 1:
            raise Usage(f"--jobs must be at least 1, got {args.jobs}")
        for attr in ("path", "project"):
            value = getattr(args, attr, None)
            if value is not None and not os.path.exists(value):
                raise Usage(f"{value!r} does not exist")
        return int(args.func(args))
    except Usage as exc:
        print(f"rdx: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RdxError as exc:
        print(f"rdx: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("rdx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
