"""What every ``rdx`` command shares: exit statuses, the usage error, the argument parser
class and the ``--cache-dir``/``--no-cache`` choice."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rdx.model.public import Diagnostic

__all__ = ["EXIT_ERROR", "EXIT_USAGE", "Parser", "Usage", "cache_choice", "forget_warnings", "warn_about_cache"]

EXIT_ERROR = 1
EXIT_USAGE = 2


class Usage(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise Usage(message)


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
    process)."""
    _warned.clear()
