"""``rdx daemon start|status|stop``: the resident server's controls, as a command of
``rdx.cli.main``. The command itself lives in the light client (``rdx_resident.client``), which
the ``rdx`` console script runs without importing rdx; this module only registers it, so that
``rdx --help`` lists it and ``python -m rdx.cli.main daemon ...`` runs the same code."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["add_daemon_parser", "daemon_command"]


def add_daemon_parser(sub: Any) -> None:
    """``rdx daemon`` in ``rdx --help``; its arguments are read by ``daemon_command``."""
    p = sub.add_parser("daemon", help="the project's resident server: start, status, stop", add_help=False)
    p.add_argument("arguments", nargs=argparse.REMAINDER, help="start|status|stop [PATH] [--all] [--idle-timeout S]")


def daemon_command(argv: list[str]) -> int:
    try:
        from rdx_resident.client import daemon_main
    except ImportError:
        # rdx_resident sits beside the rdx package (a checkout, or site-packages); an editable
        # install made before it existed does not map it yet.
        sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        from rdx_resident.client import daemon_main

    return daemon_main(argv)
