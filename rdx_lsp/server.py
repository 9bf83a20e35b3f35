"""``rdx lsp``: the Language Server Protocol over stdio, on pygls 2 with lsprotocol's types.

The server owns one ``rdx.Graph`` of the workspace root the client names in ``initialize``,
opened warm from the snapshot in a background thread; requests wait for it. Indexing is
reported with ``$/progress`` (when the client supports it): a begin, reports of the files
parsed ("1200/5044 files", with a percentage; at most one every 200 ms, from ``Graph.open``'s
progress callback), "resolving", and an end. After that every graph operation runs on the
event loop's thread, one at a time: open documents are indexed from their buffers (which win
over the disk until closed), files changed outside the editor are read again
(``workspace/didChangeWatchedFiles``), and each query resolves what changed first. Diagnostics
are published for open documents after each change.

A document the client has not opened is read from the disk only through
``Graph.read_project_file``: a regular file inside the project's roots (or a gem's indexed
file), opened without blocking. Anything else (``file:///dev/zero``, a FIFO, a file outside the
project) reads as empty and is never opened; file events outside the roots change nothing
(``Graph.refresh_paths`` applies the same rule as the walk).

Limits: a buffer larger than the graph's ``max_file_size`` (2 MB by default, the size limit of
files on disk) is not indexed; its document is indexed empty and carries a "buffer-too-large"
diagnostic until it shrinks or closes. Every request gets an answer: one whose parameters do not
fit the protocol's types (a negative position, say) is answered InvalidParams (pygls would only
log it), and one whose result cannot be encoded is answered InternalError (``RdxProtocol``).

Only names exported by ``rdx`` are used; the features are in ``features.py`` and the modules
``app.py`` registers. Other tools' diagnostics (RuboCop's) are kept per document in
``extra_diagnostics`` and published with rdx's; ``change_listeners`` hear of every buffer
change, indexed or not.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

import cattrs
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

import rdx
from rdx_lsp.positions import Lines

__all__ = ["IndexingProgress", "RdxLanguageServer", "RdxProtocol"]

log = logging.getLogger("rdx.lsp")

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}


def uri_path(uri: str) -> str | None:
    return unquote(urlparse(uri).path) if uri.startswith("file://") else None


class RdxProtocol(LanguageServerProtocol):
    """pygls's protocol, except that no request goes unanswered: pygls logs a request it cannot
    decode, or a result it cannot encode, and the client waits forever."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                cause = exc.__cause__
                details = "; ".join(cattrs.transform_error(cause)) if isinstance(cause, cattrs.BaseValidationError) else str(cause or exc)
                error = JsonRpcInvalidParams(f"invalid parameters for {data['method']}: {details}")
                self._send_response(data["id"], error=error.to_response_error())
            raise

    def _send_data(self, data: Any) -> None:
        """pygls's ``_send_data``, except that a response that cannot be encoded (a result too
        deep for the converter's recursion, say) is answered with an InternalError."""
        if not data:
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception as exc:
            log.exception("cannot encode a message")
            msg_id = getattr(data, "id", None)
            if msg_id is not None and getattr(data, "error", None) is None:
                error = JsonRpcInternalError(f"rdx could not encode its answer: {type(exc).__name__}: {exc}")
                self._send_response(msg_id, error=error.to_response_error())
            return
        if self.writer is None:
            log.error("no transport to send a message on")
            return
        if self._include_headers:
            body = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n{body}"
        written = self.writer.write(body.encode(self.CHARSET))
        if inspect.isawaitable(written):
            asyncio.ensure_future(written)


class IndexingProgress:
    """``Graph.open``'s progress callback, throttled into ``report(done, total)`` calls for
    ``$/progress``: the first files parsed, then at most one report every ``interval`` seconds,
    and the last (all files parsed) always. Called on the indexing thread."""

    def __init__(self, report: Callable[[int, int], None], interval: float = 0.2, clock: Callable[[], float] = time.monotonic) -> None:
        self.report = report
        self.interval = interval
        self.clock = clock
        self.done = 0
        self._last: float | None = None

    def __call__(self, done: int, total: int) -> None:
        # Running counts, as ``Graph.open`` and ``Graph.index_all`` give them.
        self.done = done
        if total <= 0:
            return
        now = self.clock()
        if self._last is None or self.done >= total or now - self._last >= self.interval:
            self._last = now
            self.report(self.done, total)


class RdxLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rdx", rdx.__version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental, protocol_cls=RdxProtocol)
        self.graph: rdx.Graph | None = None
        self.root: str | None = None
        self.failure: str | None = None
        self._ready: concurrent.futures.Future[rdx.Graph] = concurrent.futures.Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._startup: asyncio.Task[None] | None = None
        self.open_documents: set[str] = set()
        # Edits received per document, so a request can tell its text changed while it waited.
        self.versions: dict[str, int] = {}
        # Open documents whose buffer is over the size limit, with their size in bytes.
        self.oversized: dict[str, int] = {}
        # What the client sent as ``initializationOptions`` (features read their settings there).
        self.initialization_options: Any = None
        # Diagnostics of other tools per document (RuboCop's), published beside rdx's own.
        self.extra_diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        # Called with a document's URI after it is opened, changed or saved.
        self.change_listeners: list[Callable[[str], None]] = []
        # Async functions of (server, CodeActionParams) giving code actions (``code_actions.py``
        # asks each one).
        self.code_action_providers: list[Callable[..., Any]] = []
        # Async functions of (server, params) asked in turn for definitions and hovers when rdx
        # itself has none there (``rails_views.py``: a view's instance variables).
        self.definition_providers: list[Callable[..., Any]] = []
        self.hover_providers: list[Callable[..., Any]] = []
        # Async functions of (server, CompletionParams) giving more completion items.
        self.completion_providers: list[Callable[..., Any]] = []
        # ``Graph.uses_in`` per document for the graph's current revision: semantic tokens, inlay
        # hints and call hierarchy ask it of the same text one after the other.
        self._uses: dict[str, tuple[int, list[rdx.Use]]] = {}

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
                def report(done: int, total: int) -> None:
                    say("report", percentage=min(100, 100 * done // total), message=f"{done}/{total} files")

                say("begin", message=root)
                # The server process holds the graph and little else: as for ``rdx mcp``, the
                # graph is kept out of the cyclic collector's sight, so that the collections
                # that requests' short-lived objects trigger do not walk it (they made the
                # latency of semantic tokens vary fivefold).
                graph = rdx.Graph.open(root, progress=IndexingProgress(report), freeze_gc=True)
                say("report", message="resolving")
                graph.resolve()
                say("end", message=f"{len(graph.documents)} files")
                self._ready.set_result(graph)
                if self._loop is not None:
                    self._loop.call_soon_threadsafe(self._start_when_ready)
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
                # Buffers opened while the index was built had nothing published yet.
                for uri in sorted(self.open_documents):
                    self.publish(uri)
        return self.graph

    def _start_when_ready(self) -> None:
        assert self._loop is not None
        self._startup = self._loop.create_task(self._when_ready())

    async def _when_ready(self) -> None:
        """Once indexing ends, take the graph in (and publish the open buffers' diagnostics)
        without waiting for the first request to do it."""
        try:
            await self.ready()
        except Exception:  # Reported to every request instead (``failure``).
            pass

    def buffer(self, uri: str) -> str | None:
        if uri not in self.open_documents:
            return None
        return self.workspace.get_text_document(uri).source

    def text(self, uri: str) -> str | bytes:
        """A document's text for positions: the open buffer, else the file on disk when the
        graph may read it (see the module docstring), else nothing."""
        text = self.buffer(uri)
        if text is not None:
            return text
        path = uri_path(uri)
        data = self.graph.read_project_file(path) if path is not None and self.graph is not None else None
        return data if data is not None else b""

    def source(self, uri: str) -> bytes:
        """A document's text as bytes (see ``text``), for the syntax tree."""
        text = self.text(uri)
        return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text

    def language(self, uri: str) -> str:
        """The language rdx indexed a document as (``ruby``, ``python``...), Ruby when unknown."""
        doc = self.graph.document(uri) if self.graph is not None else None
        return doc.language if doc is not None else "ruby"

    def uses(self, uri: str) -> list[rdx.Use]:
        """``Graph.uses_in(uri)`` of the graph's current revision (cached until it changes)."""
        assert self.graph is not None
        graph = self.graph
        revision = graph.revision
        found = self._uses.get(uri)
        if found is not None and found[0] == revision:
            return found[1]
        uses = graph.uses_in(uri)
        self._uses[uri] = (graph.revision, uses)
        if len(self._uses) > 64:
            self._uses.pop(next(iter(self._uses)))
        return uses

    def lines(self) -> Lines:
        codec = self.workspace.position_codec
        return Lines(self.text, codec.client_num_units)

    def _index_buffer(self, uri: str) -> None:
        """Index an open buffer, or, over the size limit, an empty document in its place (no
        stale answers about text that changed; the limit keeps a 50 MB paste from stalling
        the server as it would stall ``rdx index``)."""
        assert self.graph is not None
        text = self.buffer(uri)
        if text is None:
            return
        data = text.encode("utf-8", "surrogatepass")
        limit = self.graph.config.max_file_size
        if len(data) > limit:
            self.oversized[uri] = len(data)
            self.graph.index_source(uri, b"")
            return
        self.oversized.pop(uri, None)
        self.graph.index_source(uri, text)

    # -- documents ---------------------------------------------------------------------------

    async def changed(self, uri: str) -> None:
        if self.graph is not None:
            self._index_buffer(uri)
            self.publish(uri)
        # Features that follow buffers on their own (RuboCop's diagnostics), graph or not.
        for listener in self.change_listeners:
            listener(uri)

    def publish(self, uri: str) -> None:
        """Diagnostics of one document (syntax errors, what resolution could not resolve)."""
        if self.graph is None:
            return
        lines = self.lines()
        out = []
        if (size := self.oversized.get(uri)) is not None:
            limit = self.graph.config.max_file_size
            message = f"the buffer is {size} bytes, over the {limit}-byte limit (max_file_size), so rdx does not index it: raise max_file_size in rdx.toml to index it"
            start = lsp.Position(0, 0)
            out.append(lsp.Diagnostic(range=lsp.Range(start, start), message=message, severity=lsp.DiagnosticSeverity.Warning, code="buffer-too-large", source="rdx"))
        for d in self.graph.diagnostics_of(uri):
            where = lines.range(d.location) if d.location is not None else lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
            out.append(lsp.Diagnostic(range=where, message=d.message, severity=_SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Information), code=d.code, source="rdx"))
        out.extend(self.extra_diagnostics.get(uri, ()))
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=out))

    def files_changed(self, uris: list[str]) -> None:
        """Files changed outside the editor: read again, except those open (buffers win)."""
        if self.graph is None:
            return
        paths = [p for uri in uris if uri not in self.open_documents and (p := uri_path(uri)) is not None]
        if paths:
            self.graph.refresh_paths(paths)
