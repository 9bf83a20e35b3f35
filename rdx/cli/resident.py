"""The resident server: one process per project that holds its opened, prepared graph and
answers ``rdx`` commands for the light client (``rdx_resident.client``), which starts it.

What it owns: the listening socket (in the user's private runtime directory, see
``rdx_resident.wire``; peers of another user are refused), the graph and the watch loop
(``rdx.follow_changes``, the same loop as ``rdx watch`` and the MCP server) that keeps it
current, the re-check before each answer (``rdx.cli.freshness``) and the idle timeout.

An answer is the in-process command itself: ``rdx.cli.main.main`` runs on the client's
argv in the client's working directory, with ``held_graph`` handing it this graph instead of
opening the project, and with what it writes captured (per thread) and sent back write by
write. So the output is the in-process output by construction; the tests compare them
byte for byte anyway. Requests are answered one at a time under the graph's lock (the watch
loop's updates take it too); any number of clients may connect, and each waits its turn.

What it must not do: answer for another project or cache directory, or run work it does not
bound (``NotServed``: the client runs those in-process); write to a client's terminal itself;
hold more than ``MAX_OUTPUT`` characters of one answer (the client then runs it in-process);
outlive its idle timeout, its project's configuration or its own code (it exits and the next
command starts a fresh one).
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from typing import Any

import rdx
from rdx.cli.base import NotServed, hold_graph
from rdx.cli.freshness import Freshness
from rdx.cli.main import main as rdx_main
from rdx.search.text_workspace import walk_every_file
from rdx.workspace.config import load_config
from rdx_resident import wire

__all__ = ["MAX_OUTPUT", "Resident", "serve_main"]

# Characters of output one answer may hold in the server; a bigger one runs in the client.
MAX_OUTPUT = 64 * 1024 * 1024
# Connections handled at once (each waits for the lock in turn); more are told to go
# in-process at once.
MAX_CONNECTIONS = 64
# Seconds a client has to send its request once connected.
REQUEST_WAIT = 5.0
# Seconds without a command after which the server builds the query indexes of a revision.
PREPARE_AFTER = 0.5


class _TooMuchOutput(BaseException):
    """Raised inside a command whose output passed MAX_OUTPUT (a BaseException, so that no
    ``except Exception`` on the way swallows it)."""


class _Capture:
    """One answer's writes, in order: (b"o" or b"e", text)."""

    def __init__(self) -> None:
        self.writes: list[tuple[bytes, str]] = []
        self.size = 0

    def add(self, kind: bytes, text: str) -> None:
        if not text:
            return
        self.size += len(text)
        if self.size > MAX_OUTPUT:
            raise _TooMuchOutput()
        self.writes.append((kind, text))


_local = threading.local()


class _Router(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of the server: a request thread's writes go to its
    capture, any other thread's to the server's log."""

    def __init__(self, kind: bytes, real: Any) -> None:
        self._kind = kind
        self._real = real

    def write(self, text: str) -> int:
        capture: _Capture | None = getattr(_local, "capture", None)
        if capture is not None:
            capture.add(self._kind, text)
        elif self._real is not None:
            self._real.write(text)
        return len(text)

    def flush(self) -> None:
        if getattr(_local, "capture", None) is None and self._real is not None:
            self._real.flush()

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"


class _Watched:
    """The graph as the watch loop sees it: its batches go through ``Freshness.note`` first,
    so what a re-check already applied is not parsed again (and the reverse)."""

    def __init__(self, server: Resident) -> None:
        self._server = server

    def refresh_paths(self, paths: Iterable[str]) -> tuple[int, int]:
        server = self._server
        fresh, reason = server.freshness.note(paths)
        if reason is not None:
            # Not a change this graph can take in: give way now (the socket goes first, so the
            # next command starts a fresh server).
            _log(f"restarting: {reason}")
            server.stale = reason
            server.release_socket()
            server.stop.set()
            return 0, 0
        if not fresh:
            return 0, 0
        server.dirty = True
        return server.graph.refresh_paths(fresh)

    def resolve(self) -> None:
        self._server.graph.resolve()


def _log(message: str) -> None:
    """One line in the server's log (its stderr: the file beside its socket)."""
    if sys.__stderr__ is not None:
        sys.__stderr__.write(f"{time.strftime('%H:%M:%S')} {message}\n")
        sys.__stderr__.flush()


class Resident:
    """A project's server (see the module docstring)."""

    def __init__(self, project: str, cache: str | None, socket_path: str, idle: float) -> None:
        self.project = os.path.abspath(project)
        self.cache = os.path.abspath(cache) if cache is not None else None
        self.socket_path = socket_path
        self.idle = idle
        self.lock = threading.RLock()
        self.ready = threading.Event()
        self.error: str | None = None
        self.graph: rdx.Graph = None  # type: ignore[assignment]  # Set before ``ready``.
        self.freshness = Freshness([self.project])
        # Why this server must give way to a fresh one (configuration or code changed).
        self.stale: str | None = None
        self.dirty = False  # Updates not yet written to the snapshot.
        self.stop = threading.Event()
        self.started = time.time()
        self.last_request = time.monotonic()
        self.requests = 0
        self.busy = 0
        self.load_seconds = 0.0
        self.prepared = -1  # The revision whose query indexes were built while idle.
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._listener: Any = None
        self._inode: int | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def run(self, fd: int) -> int:
        """Serve on the listening socket ``fd`` (bound by ``rdx_resident.wire.listen`` before
        this process imported rdx) until stopped or idle."""
        import socket

        listener = socket.socket(fileno=fd)
        listener.settimeout(0.5)
        self._listener = listener
        self._inode = os.stat(self.socket_path).st_ino
        _log(f"listening on {self.socket_path} for {self.project} (pid {os.getpid()}, idle timeout {self.idle:g} s)")
        signal.signal(signal.SIGTERM, lambda *_: self.stop.set())
        threading.Thread(target=self._load, name="rdx-resident-load", daemon=True).start()
        try:
            while not self.stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    self._check_idle()
                    continue
                except OSError:
                    continue
                if not self._slots.acquire(blocking=False):
                    self._refuse(conn, "too many clients at once")
                    continue
                threading.Thread(target=self._handle, args=(conn,), name="rdx-resident-request", daemon=True).start()
        finally:
            self._shutdown()
        return 0

    def _check_idle(self) -> None:
        if self.busy == 0 and time.monotonic() - self.last_request > self.idle:
            _log(f"idle for {self.idle:g} s; exiting")
            self.stop.set()
        elif not os.path.exists(self.project):
            _log(f"{self.project} is gone; exiting")
            self.stop.set()

    def release_socket(self) -> None:
        """Remove the socket file if it is still this server's (a newer server may have
        replaced a socket it took for stale)."""
        try:
            if self._inode is not None and os.stat(self.socket_path).st_ino == self._inode:
                os.unlink(self.socket_path)
        except OSError:
            pass
        self._inode = None

    def _shutdown(self) -> None:
        self.release_socket()
        try:
            self._listener.close()
        except OSError:
            pass
        self.stop.set()
        if self.ready.is_set() and self.error is None:
            with self.lock:
                if self.dirty:
                    self.graph.save()
        _log("stopped")

    def _load(self) -> None:
        t0 = time.perf_counter()
        try:
            config = load_config(self.project)
            roots = [self.project, *(p for p in config.load_paths if p != self.project and os.path.exists(p))]
            self.freshness = Freshness(roots, keeps=lambda path: config.keeps(path, self.project))
            root_dir = self.project if os.path.isdir(self.project) else os.path.dirname(self.project)
            self.freshness.watch_restart([os.path.join(root_dir, "rdx.toml"), os.path.join(root_dir, "pyproject.toml")])
            # Recorded before the graph reads a file: a change from now on is seen by a sweep.
            self.freshness.scan(e.path for e in walk_every_file([self.project], config))
            # From the first sweep on, only what inotify names is compared (where it can).
            self.freshness.listen()
            graph = rdx.Graph.open([self.project], cache_dir=self.cache, freeze_gc=True)
            graph.resolve()
            self.freshness.watch_restart(d.path for d in graph.documents if d.library is not None and d.path)
        except Exception as exc:  # noqa: BLE001 - reported to every client, which then runs in-process
            self.error = f"opening {self.project} failed: {exc}"
            _log(self.error + "\n" + traceback.format_exc())
            self.ready.set()
            return
        self.graph = graph
        hold_graph(self.project, self.cache, graph)
        self.load_seconds = time.perf_counter() - t0
        _log(f"opened {self.project} in {self.load_seconds:.2f} s (revision {graph.revision})")
        with self.lock:
            # rdx's own code as loaded now: an edit to it means a fresh server.
            self.freshness.watch_restart(_code_files())
        self.ready.set()
        threading.Thread(target=self._watch, name="rdx-resident-watch", daemon=True).start()
        self._prepare_when_idle()

    def _prepare_when_idle(self) -> None:
        """Build the query indexes of each new revision (search, descendants, call sites: a few
        seconds on a large project) once no command has come for PREPARE_AFTER seconds. A
        command that needs one before then builds it itself; one that comes while they are
        being built waits for them, as it waits for any update."""
        prepared = -1
        while not self.stop.wait(0.1):
            if prepared == self.graph.revision or self.busy or time.monotonic() - self.last_request < PREPARE_AFTER:
                continue
            t0 = time.perf_counter()
            with self.lock:
                revision = self.graph.revision
                self.graph.prepare_queries()
                if self.dirty:
                    self.graph.save()
                    self.dirty = False
                self.freshness.watch_restart(_code_files())  # Modules the queries imported.
                # What was just built lives until the next revision: the collector need not
                # walk it again and again (a full pass over it took 100 ms, in the middle of
                # some answer). Collected once first, so that no garbage is kept with it.
                gc.collect()
                gc.freeze()
            prepared = self.prepared = revision
            _log(f"queries of revision {revision} prepared in {time.perf_counter() - t0:.2f} s")

    def _watch(self) -> None:
        def quiet() -> None:
            # Files went quiet: write the snapshot now, not after every change of a burst (the
            # query indexes of the new revision are built when commands pause).
            if self.dirty:
                self.graph.save()
                self.dirty = False

        try:
            rdx.follow_changes(_Watched(self), self.project, stop=self.stop, lock=self.lock, on_idle=quiet)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - without its watcher the server must not go on
            _log("the watch loop failed; exiting\n" + traceback.format_exc())
            self.stale = "its watch loop failed"

    # -- requests ----------------------------------------------------------------------------

    def _refuse(self, conn: Any, why: str) -> None:
        try:
            conn.settimeout(1.0)
            wire.send_frame(conn, b"f", why.encode())
        except OSError:
            pass
        conn.close()

    def _handle(self, conn: Any) -> None:
        self.busy += 1
        answered = False
        try:
            if wire.peer_uid(conn) != os.getuid():
                return  # Another user: no answer at all.
            conn.settimeout(REQUEST_WAIT)
            frame = wire.read_frame(conn, wire.MAX_REQUEST)
            if frame is None:
                return
            kind, payload = frame
            fields = payload.split(b"\0")
            if fields[0].decode("utf-8", "replace") != wire.PROTOCOL:
                wire.send_frame(conn, b"f", b"another protocol version")
                return
            if kind == b"S":
                wire.send_frame(conn, b"s", self._status().encode())
                return
            if kind == b"K":
                wire.send_frame(conn, b"k", self._status().encode())
                _log("stop requested")
                self.stop.set()
                return
            if kind != b"Q" or len(fields) < 3:
                return
            conn.settimeout(None)
            if not self.ready.is_set() and fields[2] == b"grep":
                # The client greps faster alone (the text index only) than this server loads.
                wire.send_frame(conn, b"f", b"still loading")
                return
            answered = True
            self.ready.wait()
            try:
                reply = self._answer(os.fsdecode(fields[1]), [os.fsdecode(a) for a in fields[2:]])
            except Exception:  # noqa: BLE001 - a bug here must cost a fallback, not the client's answer
                _log("answering failed:\n" + traceback.format_exc())
                reply = _frame(b"f", "the server failed")
            conn.settimeout(60.0)
            conn.sendall(reply)
        except OSError:
            pass  # The client went away; its answer is dropped.
        finally:
            conn.close()
            if answered:  # Status and stop requests neither count nor keep a server alive.
                self.requests += 1
                self.last_request = time.monotonic()
            self.busy -= 1
            self._slots.release()

    def _answer(self, cwd: str, argv: list[str]) -> bytes:
        """The frames answering one command: its writes and exit status, a fallback or a
        restart."""
        if self.error is not None:
            return _frame(b"f", self.error)
        t_wait = time.perf_counter()
        with self.lock:
            t0 = time.perf_counter()
            reason = self.stale
            if reason is None:
                changed, reason = self.freshness.sweep()
                if reason is None and changed:
                    t0 = time.perf_counter()
                    self.graph.refresh_paths(changed)
                    self.graph.resolve()
                    self.dirty = True
                    _log(f"re-checked before an answer: {len(changed)} paths in {(time.perf_counter() - t0) * 1000:.0f} ms (revision {self.graph.revision})")
            if reason is not None:
                # Give way: the socket goes first, so the client's retry starts a new server.
                _log(f"restarting: {reason}")
                self.stale = reason
                self.release_socket()
                self.stop.set()
                return _frame(b"r", reason)
            t1 = time.perf_counter()
            capture = _Capture()
            try:
                os.chdir(cwd)
            except OSError:
                return _frame(b"f", f"no directory {cwd}")
            _local.capture = capture
            # No collection while a command runs (its garbage is collected after the answer):
            # a search makes thousands of short-lived objects, and the collector's passes over
            # them were a tenth of its time.
            collecting = gc.isenabled()
            gc.disable()
            try:
                code = rdx_main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except NotServed as exc:
                return _frame(b"f", str(exc))
            except _TooMuchOutput:
                return _frame(b"f", "the answer is too large to hold")
            except BaseException:  # noqa: BLE001 - the client's own run will show what happens
                _log(f"rdx {' '.join(argv)} failed in the server:\n{traceback.format_exc()}")
                return _frame(b"f", "the command failed in the server")
            finally:
                if collecting:
                    gc.enable()
                _local.capture = None
                os.chdir("/")
        t2 = time.perf_counter()
        _log(
            f"rdx {argv[0] if argv else ''}: {(t2 - t_wait) * 1000:.1f} ms (waited {(t0 - t_wait) * 1000:.1f}, "
            f"re-check {(t1 - t0) * 1000:.1f}, command {(t2 - t1) * 1000:.1f}; exit {code}, {capture.size} characters)"
        )
        parts = [_frame(kind, text) for kind, text in capture.writes]
        parts.append(_frame(b"x", str(int(code))))
        return b"".join(parts)

    def _status(self) -> str:
        state = "failed" if self.error is not None else "ready" if self.ready.is_set() else "loading"
        fields: dict[str, object] = {
            "project": self.project,
            "cache": self.cache or os.path.join(self.project, ".rdx"),
            "pid": os.getpid(),
            "state": state,
            "uptime": f"{time.time() - self.started:.0f} s",
            "requests": self.requests,
            "idle timeout": f"{self.idle:g} s",
            "memory": _rss(),
            "socket": self.socket_path,
        }
        if self.error is not None:
            fields["error"] = self.error
        elif state == "ready":
            fields["revision"] = self.graph.revision
            fields["prepared"] = self.prepared
            fields["load"] = f"{self.load_seconds:.2f} s"
            fields["files watched"] = len(self.freshness.files)
            journal = self.freshness.journal
            fields["re-check"] = f"inotify ({len(journal.dirs)} directories)" if journal is not None else "every file's stat"
        return "\n".join(f"{k}: {v}" for k, v in fields.items())


def _frame(kind: bytes, text: str) -> bytes:
    payload = text.encode("utf-8", "surrogatepass")
    return (len(payload) + 1).to_bytes(4, "big") + kind + payload


def _rss() -> str:
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return "unknown"
    return f"{pages * os.sysconf('SC_PAGE_SIZE') / 1e6:.0f} MB"


def _code_files() -> list[str]:
    """The source files of rdx (and of this client's package) that this process has loaded."""
    roots = {os.path.dirname(os.path.abspath(rdx.__file__)), os.path.dirname(os.path.abspath(wire.__file__))}
    out = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and any(os.path.abspath(path).startswith(r + os.sep) for r in roots):
            out.append(os.path.abspath(path))
    return sorted(set(out))


def serve_main(fd: int, argv: list[str]) -> int:
    """The server process's main (started by ``rdx_resident.client``), serving on the
    listening socket ``fd``."""
    parser = argparse.ArgumentParser(prog="rdx-resident")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--idle", type=float, default=600.0)
    args = parser.parse_args(argv)
    os.chdir("/")  # Never keep a client's directory busy; each request sets its own.
    sys.stdout = _Router(b"o", sys.__stdout__)
    sys.stderr = _Router(b"e", sys.__stderr__)
    server = Resident(args.project, args.cache_dir, args.socket, args.idle)
    try:
        return server.run(fd)
    except OSError as exc:
        _log(f"cannot serve on {args.socket}: {exc}")
        return 1
