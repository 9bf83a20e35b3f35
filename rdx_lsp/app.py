"""The language server put together: the server (``server.py``) with its requests
(``features.py`` for navigation, one module per request for the rest) registered, and
``main``, which runs it over stdio. It owns nothing else;
both halves stay free of each other's imports in the other direction."""

from __future__ import annotations

import logging
import os
import sys

from rdx_lsp import (
    call_hierarchy,
    code_actions,
    code_lens,
    document_links,
    inlay_hints,
    on_type_formatting,
    rails_views,
    rubocop,
    selection_ranges,
    semantic_tokens,
    signature_help,
    syntax_tree,
    watching,
)
from rdx_lsp.features import register
from rdx_lsp.server import RdxLanguageServer

__all__ = ["build_server", "main"]


def build_server() -> RdxLanguageServer:
    server = RdxLanguageServer()
    register(server)
    # One module per request beyond navigation, as ruby-lsp keeps one class per request.
    features = (
        semantic_tokens, signature_help, inlay_hints, selection_ranges, document_links, code_lens, on_type_formatting, call_hierarchy,
        syntax_tree, watching, rubocop, code_actions, rails_views,
    )
    for feature in features:
        feature.register(server)
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
