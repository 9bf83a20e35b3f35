"""The ``rdx`` command's entry point: ask the project's resident server, else run in-process.

``main`` reads just enough of the command line to know which project a command is about
(``plan_command``); a command the server answers is sent to it, started on first use, and its
output is written here exactly as the server's run of ``rdx.cli.main`` wrote it (each write in
order, to this process's own stdout and stderr, so buffering and encoding are this process's).
Anything else runs in-process, which is always correct, only slower: ``rdx index``, ``stats``,
``watch`` and the servers; ``--no-daemon``, ``RDX_NO_DAEMON=1`` or ``daemon = false`` in the
project's configuration; options this reader does not know; no safe runtime directory; a
server that cannot start, breaks the connection, is of another version or says it cannot
answer (another project, an unbounded search, an output too large to hold).

Nothing of ``rdx`` is imported on the served path (``tests/test_resident.py`` checks it).
``rdx daemon start|status|stop`` is here too (``daemon_main``), so it is as light.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

from rdx_resident import wire

__all__ = ["SERVED", "daemon_main", "main", "plan_command", "project_of"]

# Commands the server answers: questions about one project's graph or text. ``index`` and
# ``stats`` report how the index was opened and timed, which is the in-process run's own story.
SERVED = frozenset({"show", "resolve", "refs", "def", "hover", "complete", "search", "grep", "map"})

# Options of the served commands that take a value, and those that do not. An option outside
# both (an abbreviation, combined short flags, --help) sends the command in-process, where
# argparse reads it; the server parses the command line again with the real parser anyway.
_VALUED = frozenset({
    "-p", "--project", "-j", "--jobs", "--cache-dir", "--nesting", "--kind", "--mode", "--path", "--language", "--limit",
    "-g", "--glob", "-t", "--type", "--tokens", "-C", "--context", "--offset", "--timeout", "-f", "--focus", "--detail",
})
_FLAGS = frozenset({"--json", "-e", "--regex", "-i", "--ignore-case", "-q", "--quiet", "-0", "--null", "--no-dependencies"})

# Seconds: a server exits after this long without a request (RDX_DAEMON_IDLE overrides).
DEFAULT_IDLE = 600.0
# A grep may run this long on the shared server; a longer or unlimited one runs in-process.
MAX_SERVED_GREP_SECONDS = 60.0
# How long a client waits for a starting server to listen, and for any answer at all.
_LISTEN_WAIT = 30.0
_ANSWER_WAIT = 900.0


def main(argv: list[str] | None = None) -> int:
    """Run ``rdx ARGV``: through the resident server when it can answer, else in-process."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["daemon"]:
        return daemon_main(args[1:])
    plan = plan_command(args)
    if plan is not None:
        try:
            code = _served(plan[0], plan[1], args)
        except KeyboardInterrupt:
            print("rdx: interrupted", file=sys.stderr)
            return 130
        if code is not None:
            return code
    return _in_process(args)


def _in_process(args: list[str]) -> int:
    from rdx.cli.main import main as rdx_main

    return rdx_main(args)


def _opted_out(project: str) -> bool:
    """``RDX_NO_DAEMON`` set (to anything but ``0``), or ``daemon = false`` in the project's
    ``rdx.toml`` (else ``[tool.rdx]`` of ``pyproject.toml``, as the configuration is read)."""
    if os.environ.get("RDX_NO_DAEMON", "0") not in ("", "0"):
        return True
    root = project if os.path.isdir(project) else os.path.dirname(project)
    for name in ("rdx.toml", "pyproject.toml"):
        data = _read_small(os.path.join(root, name))
        if data is None:
            continue
        if b"daemon" not in data:
            return False  # The common case: no need to parse TOML.
        import tomllib

        try:
            table = tomllib.loads(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return True  # The in-process run reports the malformed file.
        if name == "pyproject.toml":
            tool = table.get("tool")
            section = tool.get("rdx") if isinstance(tool, dict) else None
            if not isinstance(section, dict):
                return False
            table = section
        return table.get("daemon", True) is not True
    return False


def _read_small(path: str) -> bytes | None:
    """A regular file's bytes (never blocking on a FIFO), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_size > 1 << 20:
            return None
        return os.read(fd, st.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def project_of(path: str | None) -> str:
    """Where ``rdx grep`` looks for its project (``rdx.cli.search`` uses this function): the
    nearest enclosing directory with ``.rdx`` or ``.git``; else the current directory when the
    path is inside it; else the path. The server checks the answer against its own."""
    start = os.path.abspath(path or ".")
    here = start if os.path.isdir(start) else os.path.dirname(start)
    probe = here
    while True:
        if os.path.isdir(os.path.join(probe, ".rdx")) or os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    cwd = os.getcwd()
    return cwd if here == cwd or here.startswith(cwd.rstrip(os.sep) + os.sep) else here


def plan_command(args: list[str]) -> tuple[str, str | None] | None:
    """(project, cache directory or None), both absolute, when a server may answer ``args``;
    None when the command runs in-process."""
    if not args or args[0] not in SERVED:
        return None
    command = args[0]
    values: dict[str, str] = {}
    positionals: list[str] = []
    i = 1
    while i < len(args):
        a = args[i]
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            if name in _VALUED:
                if not eq:
                    i += 1
                    if i >= len(args):
                        return None
                    value = args[i]
                values[name] = value
            elif name not in _FLAGS or eq:
                return None  # --no-daemon, --no-cache, --help, "--", abbreviations...
        elif a.startswith("-") and a != "-":
            if a[:2] in _VALUED:
                if len(a) > 2:
                    value = a[2:]
                else:
                    i += 1
                    if i >= len(args):
                        return None
                    value = args[i]
                values[{"-p": "--project", "-C": "--context"}.get(a[:2], a[:2])] = value
            elif a not in _FLAGS:
                return None  # -h, combined short flags, a pattern argparse would take for an option
        else:
            positionals.append(a)
        i += 1
    if "--context" in values and command != "grep":
        return None  # A usage error, said in-process.
    project_option = values.get("--project")
    if command == "grep":
        try:
            timeout = float(values.get("--timeout", "5"))
        except ValueError:
            return None
        if not 0 < timeout <= MAX_SERVED_GREP_SECONDS:
            return None
        project = project_option or project_of(positionals[1] if len(positionals) > 1 else None)
    elif command == "map":
        path = positionals[0] if positionals else "."
        if project_option is not None and path not in (".", project_option):
            return None
        project = project_option if project_option is not None else path
    else:
        project = project_option if project_option is not None else "."
    if not project or not os.path.exists(project):
        return None
    cache = values.get("--cache-dir")
    if cache == "":
        return None
    project = os.path.abspath(project)
    if _opted_out(project):
        return None
    return project, os.path.abspath(cache) if cache is not None else None


def _request(args: list[str]) -> bytes:
    return b"\0".join([wire.PROTOCOL.encode(), os.fsencode(os.getcwd()), *(os.fsencode(a) for a in args)])


def _served(project: str, cache: str | None, args: list[str]) -> int | None:
    """The exit status after writing the server's answer, or None when it did not answer (and
    nothing was written)."""
    directory = wire.runtime_dir()
    if directory is None:
        return None
    sock_path, lock_path, log_path = wire.socket_paths(directory, wire.server_key(project, cache))
    try:
        request = _request(args)
    except (OSError, ValueError):
        return None  # No current directory any more, or a NUL in an argument.
    for _attempt in range(2):
        sock = wire.connect(sock_path)
        if sock is None:
            # A grep reads only the text index, a fraction of what opening the graph costs:
            # the first one runs here while the server starts for the commands after it.
            sock = _start(sock_path, lock_path, log_path, project, cache, wait=args[0] != "grep")
            if sock is None:
                return None
        try:
            sock.settimeout(_ANSWER_WAIT)
            frames = wire.ask_frames(sock, b"Q", request)
        except OSError:
            frames = None
        finally:
            sock.close()
        if frames is None:
            return None  # The server broke the connection before its answer was complete.
        last, payload = frames[-1]
        if last == b"r":
            continue  # It saw its configuration or code change and went away: start a new one.
        if last != b"x":
            return None
        return _replay(frames[:-1], payload)
    return None


def _replay(frames: list[tuple[bytes, bytes]], status: bytes) -> int:
    out, err = sys.stdout, sys.stderr
    try:
        for kind, payload in frames:
            (out if kind == b"o" else err).write(payload.decode("utf-8", "surrogatepass"))
    except BrokenPipeError:
        return 0  # As the in-process command: a reader that went away is not an error.
    return int(status)


def _idle_seconds() -> float:
    try:
        value = float(os.environ.get("RDX_DAEMON_IDLE", DEFAULT_IDLE))
    except ValueError:
        return DEFAULT_IDLE
    return value if value > 0 else DEFAULT_IDLE


# The server process: rdx's package directory first on its path (the installation this
# client came from), the socket bound and listening (before the slow import of rdx, so a racing
# client connects to it rather than taking it for stale), then the server's main. ``-P`` keeps
# the current directory off sys.path.
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); from rdx_resident.wire import listen; fd = listen(sys.argv[2]); "
    "from rdx.cli.resident import serve_main; sys.exit(serve_main(fd, sys.argv[1:]))"
)


def _spawn(sock_path: str, log_path: str, project: str, cache: str | None, idle: float) -> int:
    """Start a server in a session of its own (no terminal, so Ctrl-C in the shell is not
    its), its stdin and stdout on /dev/null and its stderr in the log beside the socket; none
    of this process's descriptors are inherited (Python opens them close-on-exec)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    argv = [sys.executable, "-P", "-c", _BOOT, here, "--socket", sock_path, "--project", project, "--idle", repr(idle)]
    if cache is not None:
        argv += ["--cache-dir", cache]
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    if os.path.exists(log_path) and os.path.getsize(log_path) > 1 << 20:
        os.replace(log_path, log_path + ".old")  # Two logs of at most 1 MB each, the older one kept.
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, log, 2)]
        return os.posix_spawn(sys.executable, argv, dict(os.environ), file_actions=actions, setsid=True)
    finally:
        os.close(null)
        os.close(log)


def _start(
    sock_path: str, lock_path: str, log_path: str, project: str, cache: str | None, idle: float | None = None, wait: bool = True
) -> _socket.socket | None:
    """A connection to a server for the project, starting one if none listens (with ``wait``
    False, None once it is started). Clients racing to start take a lock, so one starts it and
    the others connect to it; a socket nobody listens on (a crashed server's) is removed first."""
    import fcntl

    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        deadline = time.monotonic() + _LISTEN_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return None
                time.sleep(0.01)
        sock = wire.connect(sock_path)
        if sock is not None:
            return sock  # Another client started it while this one waited for the lock.
        try:
            os.unlink(sock_path)
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            pid = _spawn(sock_path, log_path, project, cache, idle if idle is not None else _idle_seconds())
        except OSError:
            return None
        # It listens before it loads the project: a request then waits for the graph.
        deadline = time.monotonic() + (_LISTEN_WAIT if wait else 0.0)
        while time.monotonic() < deadline:
            sock = wire.connect(sock_path)
            if sock is not None:
                return sock
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                return None  # It died starting (its log says why).
            time.sleep(0.005)
        if not wait:
            # Hold the start lock until it listens (it binds first thing), so that a racing
            # client connects to it rather than starting another.
            deadline = time.monotonic() + _LISTEN_WAIT
            while not os.path.exists(sock_path) and time.monotonic() < deadline:
                time.sleep(0.002)
        return None
    finally:
        os.close(fd)  # Releases the lock.


# -- rdx daemon ----------------------------------------------------------------------------


def _parse_status(payload: bytes) -> dict[str, str]:
    fields = {}
    for line in payload.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(": ")
        fields[key] = value
    return fields


def _ask(sock_path: str, kind: bytes) -> list[tuple[bytes, bytes]] | None:
    sock = wire.connect(sock_path)
    if sock is None:
        return None
    try:
        return wire.ask_frames(sock, kind, wire.PROTOCOL.encode())
    except OSError:
        return None
    finally:
        sock.close()


def daemon_main(args: list[str]) -> int:
    """``rdx daemon start|status|stop [PATH]``: start a project's server and wait until it is
    ready, say what it holds, or stop it (``--all``: every server of this user)."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            raise _Usage(message)

    parser = _Parser(prog="rdx daemon", description="The resident server that answers rdx commands for a project.")
    parser.add_argument("action", choices=["start", "status", "stop"])
    parser.add_argument("path", nargs="?", default=None, help="project root (default: the current directory)")
    parser.add_argument("--project", "-p", default=None, metavar="PROJECT", help="project root (the same as PATH)")
    parser.add_argument("--cache-dir", default=None, help="the cache directory the server's commands use (default: .rdx/ in the project)")
    parser.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS", help=f"start: exit after this long without a request (default {DEFAULT_IDLE:g}; RDX_DAEMON_IDLE)")
    parser.add_argument("--all", action="store_true", help="status, stop: every server of this user")
    parser.add_argument("--json", action="store_true", help="print JSON")
    try:
        opts = parser.parse_args(args)
        if opts.path is not None and opts.project is not None and opts.path != opts.project:
            raise _Usage(f"the project root is given twice ({opts.path!r} and --project {opts.project!r}); give one")
        if opts.idle_timeout is not None and not opts.idle_timeout > 0:
            raise _Usage(f"--idle-timeout must be a positive number of seconds, got {opts.idle_timeout:g}")
        if opts.all and opts.action == "start":
            raise _Usage("--all goes with status and stop")
        project = os.path.abspath(opts.project or opts.path or ".")
        if not opts.all and not os.path.exists(project):
            raise _Usage(f"{opts.project or opts.path!r} does not exist")
    except _Usage as exc:
        print(f"rdx: error: {exc}", file=sys.stderr)
        return 2
    directory = wire.runtime_dir()
    if directory is None:
        print("rdx: error: no private runtime directory for servers (RDX_RUNTIME_DIR, XDG_RUNTIME_DIR or /tmp/rdx-UID must be a directory of yours with mode 0700)", file=sys.stderr)
        return 1
    if opts.all:
        paths = sorted(os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(".sock"))
    else:
        cache = os.path.abspath(opts.cache_dir) if opts.cache_dir is not None else None
        paths = [wire.socket_paths(directory, wire.server_key(project, cache))[0]]
    if opts.action == "start":
        return _daemon_start(paths[0], project, cache, opts.idle_timeout, opts.json)
    found = []
    for sock_path in paths:
        frames = _ask(sock_path, b"S" if opts.action == "status" else b"K")
        if frames and frames[-1][0] in (b"s", b"k"):
            found.append(_parse_status(frames[-1][1]))
    if opts.json:
        import json

        print(json.dumps(found if opts.all else (found[0] if found else None)))
    elif not found:
        print(f"no server for {project}" if not opts.all else "no servers")
    for status in found if not opts.json else ():
        if opts.action == "stop":
            print(f"stopped the server for {status.get('project')} (pid {status.get('pid')})")
        else:
            print("\n".join(f"{k}: {v}" for k, v in status.items()))
    return 0 if found else 1


class _Usage(Exception):
    pass


def _daemon_start(sock_path: str, project: str, cache: str | None, idle: float | None, as_json: bool) -> int:
    t0 = time.monotonic()
    if os.environ.get("RDX_NO_DAEMON", "0") not in ("", "0"):
        print("rdx: error: the resident server is turned off here (RDX_NO_DAEMON is set)", file=sys.stderr)
        return 1
    directory = os.path.dirname(sock_path)
    key = os.path.basename(sock_path)[: -len(".sock")]
    _, lock_path, log_path = wire.socket_paths(directory, key)
    sock = wire.connect(sock_path)
    if sock is None:
        sock = _start(sock_path, lock_path, log_path, project, cache, idle)
        if sock is None:
            print(f"rdx: error: the server for {project} did not start; see {log_path}", file=sys.stderr)
            return 1
    sock.close()
    # Ready when its status says so: the graph is open and the first answers will be quick.
    status: dict[str, str] = {}
    while True:
        frames = _ask(sock_path, b"S")
        status = _parse_status(frames[-1][1]) if frames and frames[-1][0] == b"s" else {}
        if status.get("state") != "loading":
            break
        time.sleep(0.05)
    if status.get("state") != "ready":
        print(f"rdx: error: the server for {project} failed: {status.get('error') or 'it exited'}; see {log_path}", file=sys.stderr)
        return 1
    if as_json:
        import json

        print(json.dumps(status))
    else:
        print(f"server for {project} ready (pid {status.get('pid')}) in {time.monotonic() - t0:.2f}s")
    return 0
