"""What every ``rdx`` command shares: exit statuses, the usage error, the argument parser
class and the ``--cache-dir``/``--no-cache`` choice."""

from __future__ import annotations

import argparse

__all__ = ["EXIT_ERROR", "EXIT_USAGE", "Parser", "Usage", "cache_choice"]

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
