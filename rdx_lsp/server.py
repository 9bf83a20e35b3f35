"""``rdx lsp``: the Language Server Protocol over stdio, on pygls 2 with lsprotocol's types.

The server owns one ``rdx.Graph`` of the workspace root the client names in ``initialize``,
opened warm from the snapshot in a background thread (with ``$/progress`` reports); requests
wait for it. After that every graph operation runs on the event loop's thread, one at a time:
open documents are indexed from their buffers (which win over the disk until closed), files
changed outside the editor are read again (``workspace/didChangeWatchedFiles``), and each query
resolves what changed first. Diagnostics are published for open documents after each change.

Only names exported by ``rdx`` are used; the features are in ``features.py``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import sys
import threading
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

import rdx
from rdx_lsp.positions import Lines

__all__ = ["RdxLanguageServer", "build_server", "main"]

log = logging.getLogger("rdx.lsp")

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}


def uri_path(uri: str) -> str | None:
    return unquote(urlparse(uri).path) if uri.startswith("file://") else None


class RdxLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rdx", rdx.__version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.graph: rdx.Graph | None = None
        self.root: str | None = None
        self.failure: str | None = None
        self._ready: concurrent.futures.Future[rdx.Graph] = concurrent.futures.Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.open_documents: set[str] = set()
        # Edits received per document, so a request can tell its text changed while it waited.
        self.versions: dict[str, int] = {}

    # -- the graph ---------------------------------------------------------------------------

    def start_indexing(self, root: str) -> None:
        self.root = root
        self._loop = asyncio.get_event_loop()
        token = "rdx-indexing"
        progress = self.work_done_progress
        capable = bool(self.client_capabilities.window and self.client_capabilities.window.work_done_progress)

        created = threading.Event()

        def say(kind: str, **fields: Any) -> None:
            # The client must have answered the token's creation before any report about it.
            if not capable or self._loop is None or not created.wait(5):
                return
            value: Any
            if kind == "begin":
                value = lsp.WorkDoneProgressBegin(title="rdx: indexing", percentage=0, cancellable=False, **fields)
            elif kind == "report":
                value = lsp.WorkDoneProgressReport(**fields)
            else:
                value = lsp.WorkDoneProgressEnd(**fields)
            self._loop.call_soon_threadsafe(getattr(progress, kind), token, value)

        def run() -> None:
            try:
                def tick(done: int, total: int) -> None:
                    if total and (done == total or done % 50 == 0):
                        say("report", percentage=int(100 * done / total), message=f"{done}/{total} files")

                say("begin", message=root)
                graph = rdx.Graph.open(root, progress=tick)
                graph.resolve()
                say("end", message=f"{len(graph.documents)} files")
                self._ready.set_result(graph)
            except Exception as exc:  # Reported to every request, which fail with it.
                log.exception("indexing failed")
                self.failure = f"rdx could not index {root}: {exc}"
                say("end", message=self.failure)
                self._ready.set_exception(exc)

        if capable:
            self.work_done_progress.create(token, lambda *_: created.set())
        threading.Thread(target=run, name="rdx-index", daemon=True).start()

    async def ready(self) -> rdx.Graph:
        """The graph, once indexed; the buffers opened meanwhile are indexed from their text."""
        if self.graph is None:
            graph = await asyncio.wrap_future(self._ready)
            if self.graph is None:
                self.graph = graph
                for uri in sorted(self.open_documents):
                    self._index_buffer(uri)
        return self.graph

    def buffer(self, uri: str) -> str | None:
        if uri not in self.open_documents:
            return None
        return self.workspace.get_text_document(uri).source

    def lines(self) -> Lines:
        codec = self.workspace.position_codec
        return Lines(self.buffer, codec.client_num_units)

    def _index_buffer(self, uri: str) -> None:
        assert self.graph is not None
        text = self.buffer(uri)
        if text is not None:
            self.graph.index_source(uri, text)

    # -- documents ---------------------------------------------------------------------------

    async def changed(self, uri: str) -> None:
        if self.graph is not None:
            self._index_buffer(uri)
            self.publish(uri)

    def publish(self, uri: str) -> None:
        """Diagnostics of one document (syntax errors, what resolution could not resolve)."""
        if self.graph is None:
            return
        lines = self.lines()
        out = []
        for d in self.graph.diagnostics_of(uri):
            where = lines.range(d.location) if d.location is not None else lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
            out.append(lsp.Diagnostic(range=where, message=d.message, severity=_SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Information), code=d.code, source="rdx"))
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=out))

    def files_changed(self, uris: list[str]) -> None:
        """Files changed outside the editor: read again, except those open (buffers win)."""
        if self.graph is None:
            return
        paths = [p for uri in uris if uri not in self.open_documents and (p := uri_path(uri)) is not None]
        if paths:
            self.graph.refresh_paths(paths)


def build_server() -> RdxLanguageServer:
    from rdx_lsp.features import register

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
