"""The language server put together: the server (``server.py``) with its requests
(``features.py``) registered, and ``main``, which runs it over stdio. It owns nothing else;
both halves stay free of each other's imports in the other direction."""

from __future__ import annotations

import logging
import os
import sys

from rdx_lsp.features import register
from rdx_lsp.server import RdxLanguageServer

__all__ = ["build_server", "main"]


def build_server() -> RdxLanguageServer:
    server = RdxLanguageServer()
    register(server)
    return server


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("RDX_LSP_LOG", "WARNING"), format="rdx lsp: %(message)s")
    # The protocol gets file objects of its own on duplicates of fds 0 and 1, and ``sys.stdin``
    # and ``sys.stdout`` point elsewhere. Discovery forks worker processes while pygls's reader
    # thread waits in ``readline()`` holding its file's lock; a forked worker closes
    # ``sys.stdin`` on start (multiprocessing does) and would wait for that lock forever. And
    # nothing printed by accident can corrupt the protocol stream.
    stdin = os.fdopen(os.dup(0), "rb")
    stdout = os.fdopen(os.dup(1), "wb")
    sys.stdin = open(os.devnull)  # noqa: SIM115 - replaces the process's stdin for good
    sys.stdout = sys.stderr
    build_server().start_io(stdin, stdout)
    return 0
