"""What every ``rdx`` command shares: exit statuses, the usage error, the argument parser
class, the ``--cache-dir``/``--no-cache`` choice, and the option names: ``--project``/``-p``
names the project root in every command, ``-C`` is lines of context (``rdx grep -C 2``), as
in grep and ripgrep, and nothing else."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rdx.model.public import Diagnostic

if TYPE_CHECKING:
    from rdx.api.graph import Graph

__all__ = [
    "EXIT_ERROR", "EXIT_USAGE", "NotServed", "Parser", "Usage", "cache_choice", "forget_warnings", "held_graph", "hold_graph", "no_context",
    "root_option", "take_root", "warn_about_cache",
]

EXIT_ERROR = 1
EXIT_USAGE = 2


class Usage(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise Usage(message)


class _NotContext(argparse.Action):
    """``-C`` where no lines of context are shown: it named the project root in earlier
    versions of show, search, refs...; say what it means now rather than take a directory."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option_string: str | None = None) -> None:
        raise Usage("-C is lines of context (rdx grep -C 2, as in grep and rg); name the project root with --project/-p")


def no_context(p: argparse.ArgumentParser) -> None:
    """Register ``-C`` (hidden) on a command that shows no lines of context."""
    p.add_argument("-C", nargs="?", dest="_context_elsewhere", action=_NotContext, help=argparse.SUPPRESS)


def root_option(p: argparse.ArgumentParser) -> None:
    """``--project``/``-p`` on a command that also takes the root as its PATH argument."""
    p.add_argument("--project", "-p", dest="project_root", default=None, metavar="PROJECT", help="project root (the same as PATH)")
    no_context(p)


def take_root(args: argparse.Namespace) -> None:
    """Put ``--project`` in ``args.path`` for commands that take the root as PATH too."""
    root = getattr(args, "project_root", None)
    if root is None:
        return
    if getattr(args, "path", ".") not in (".", root):
        raise Usage(f"the project root is given twice ({args.path!r} and --project {root!r}); give one")
    args.path = root


def cache_choice(args: argparse.Namespace) -> str | None | bool:
    if getattr(args, "no_cache", False):
        return False
    return getattr(args, "cache_dir", None)


# Diagnostics about the cache itself: damage found and rebuilt, a cache that could not be written.
_CACHE_CODES = ("snapshot-rebuilt", "snapshot-unwritable", "gem-cache-damaged", "gem-cache-unwritable")
_warned: set[str] = set()


def warn_about_cache(diagnostics: Sequence[Diagnostic]) -> bool:
    """One line on stderr per problem with the cache (the answers still come, from memory);
    True when some part of the cache could not be written."""
    unwritable = False
    for d in diagnostics:
        if d.code in _CACHE_CODES:
            unwritable = unwritable or d.code.endswith("unwritable")
            if d.message not in _warned:
                _warned.add(d.message)
                print(f"rdx: warning: {d.message}", file=sys.stderr)
    return unwritable


def forget_warnings() -> None:
    """Each command warns once per problem: called as a command starts (tests run many in one
    process). In a resident server, the problems its own open reported count as said (see
    ``hold_graph``): an in-process command would not meet them again on its open."""
    _warned.clear()
    _warned.update(_HELD_WARNINGS)


class NotServed(Exception):
    """Raised in a resident server (``rdx.cli.resident``) by a command it must not answer:
    another project or cache directory, no cache, or work it does not bound (a grep without a
    time limit). The client then runs the command in-process."""


# The resident server's graph: (project, cache directory or None, graph), all absolute; empty
# in every other process.
_HELD: list[tuple[str, str | None, Graph]] = []
# Problems with the cache that the server's own open met: the first answer says them, as the
# in-process command that met them would; later answers do not, as later opens would not.
_HELD_WARNINGS: set[str] = set()
_PENDING_WARNINGS: list[Diagnostic] = []


def hold_graph(project: str, cache: str | None, graph: Graph) -> None:
    """Make this process a resident server of ``project``: commands get ``graph`` from
    ``held_graph`` instead of opening the project. Only ``rdx.cli.resident`` calls this."""
    _HELD[:] = [(os.path.abspath(project), os.path.abspath(cache) if cache is not None else None, graph)]
    _HELD_WARNINGS.clear()
    _PENDING_WARNINGS[:] = [d for d in graph.diagnostics if d.code in _CACHE_CODES]


def held_graph(project: str, cache: str | None | bool) -> Graph | None:
    """The graph a resident server holds for ``project`` (a command's ``--project``, relative
    to the current directory) and ``cache`` (``cache_choice``); None outside a server. In a
    server, a command about anything else raises NotServed."""
    if not _HELD:
        return None
    held_project, held_cache, graph = _HELD[0]
    if cache is False or os.path.abspath(project) != held_project:
        raise NotServed(f"this server holds {held_project}")
    if (os.path.abspath(cache) if isinstance(cache, str) else None) != held_cache:
        raise NotServed(f"this server uses the cache directory {held_cache or 'of the project'}")
    if _PENDING_WARNINGS:
        warn_about_cache(_PENDING_WARNINGS)
        _HELD_WARNINGS.update(d.message for d in _PENDING_WARNINGS)
        _PENDING_WARNINGS.clear()
    return graph
