"""What the resident server and its clients share: where the server's socket lives, how a
project is named there, and the frames they exchange.

Standard library only, and only its cheap modules: the client imports this on every ``rdx``
command, so it must cost a few milliseconds, not the graph's import time. Nothing here may
import ``rdx``.

The socket lives in a directory private to the user (``$RDX_RUNTIME_DIR``, else
``$XDG_RUNTIME_DIR/rdx``, else ``/tmp/rdx-UID``) that must be a real directory owned by the
user with mode 0700; anything else means no server, and commands run in-process. One socket
per project, cache directory, installation and environment (``server_key``), so two
checkouts, two Python environments or two ``GEM_PATH``\\ s never share a server.

A frame is a 4-byte big-endian length, then one ASCII byte saying what it is, then the
payload (``length`` counts the kind byte and the payload).
"""

from __future__ import annotations

import _socket
import os
import struct
import sys

__all__ = [
    "PROTOCOL", "MAX_REQUEST", "ask_frames", "connect", "listen", "peer_uid", "read_frame", "runtime_dir", "send_frame", "server_key", "socket_paths",
]

# Bumped when the frames or their meaning change; part of the server key, so an old server is
# never asked in a new way.
PROTOCOL = "rdx-resident/1"
# The largest request a server reads (an argv and a working directory).
MAX_REQUEST = 1 << 20
# The longest path a Unix socket address can hold on Linux (108 bytes with the final NUL).
_MAX_SOCKET_PATH = 107

_HEADER = struct.Struct(">I")


def runtime_dir(create: bool = True) -> str | None:
    """The user's private directory for servers' sockets and logs, or None when there is no
    safe one (not a directory, a symbolic link, owned by someone else, open to others)."""
    explicit = os.environ.get("RDX_RUNTIME_DIR")
    if explicit:
        path = explicit
    else:
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        path = os.path.join(xdg, "rdx") if xdg and os.path.isabs(xdg) else os.path.join(os.environ.get("TMPDIR") or "/tmp", f"rdx-{os.getuid()}")
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    # S_ISDIR without importing stat: 0o040000 is the directory type bit pattern.
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return path


def _fnv64(data: bytes) -> int:
    """FNV-1a, 64 bits: enough to tell projects apart in a file name (the server checks the
    project it is asked about anyway, so a collision costs a fallback, never a wrong answer)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


# Environment variables that change answers (which gems are found, where their cache is) or
# the server's limits; a server is started with the client's environment, so it is keyed by them.
_ENV_PREFIXES = ("RDX_", "GEM_", "BUNDLE_")
_ENV_NAMES = ("HOME", "XDG_CACHE_HOME")
# Client-side settings that do not change what a server answers.
_ENV_IGNORED = ("RDX_NO_DAEMON", "RDX_RUNTIME_DIR", "RDX_DAEMON_IDLE")


def server_key(project: str, cache_dir: str | None) -> str:
    """The name of the server for ``project`` (absolute) with ``cache_dir`` (absolute, or None
    for the default) under this installation, Python and environment."""
    env = sorted(
        (k, v) for k, v in os.environ.items()
        if (k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES) and k not in _ENV_IGNORED
    )
    # ``ruby`` on PATH locates the gems Gemfile.lock names; without one, PATH changes nothing.
    if os.path.exists(os.path.join(project, "Gemfile.lock")):
        env.append(("PATH", os.environ.get("PATH", "")))
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [PROTOCOL, project, cache_dir or "", here, sys.executable, sys.prefix, sys.version]
    parts += [f"{k}={v}" for k, v in env]
    data = "\0".join(parts).encode("utf-8", "surrogateescape")
    return f"{_fnv64(data):016x}"


def listen(path: str, backlog: int = 64) -> int:
    """Bind and listen on the Unix socket ``path`` (mode 0600, in the private runtime
    directory); the listening descriptor. A server does this first thing, before importing
    rdx, so that the clients racing to start it find it listening at once."""
    old = os.umask(0o077)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.bind(path)
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old)
    sock.listen(backlog)
    return sock.detach()


def socket_paths(directory: str, key: str) -> tuple[str, str, str]:
    """(socket, start lock, log) of the server named ``key``."""
    base = os.path.join(directory, key)
    return base + ".sock", base + ".lock", base + ".log"


def connect(path: str, timeout: float | None = 5.0) -> _socket.socket | None:
    """A connection to the server at ``path`` run by this user, or None (no socket, nobody
    listening, or a peer of another user)."""
    if len(os.fsencode(path)) > _MAX_SOCKET_PATH:
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        if peer_uid(sock) != os.getuid():
            sock.close()
            return None
    except OSError:
        sock.close()
        return None
    return sock


def peer_uid(sock: _socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket (SO_PEERCRED)."""
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def send_frame(sock: _socket.socket, kind: bytes, payload: bytes = b"") -> None:
    sock.sendall(_HEADER.pack(len(payload) + 1) + kind + payload)


def _read_exactly(sock: _socket.socket, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(sock: _socket.socket, limit: int | None = None) -> tuple[bytes, bytes] | None:
    """The next (kind, payload), or None when the peer closed the connection (or sent more
    than ``limit`` bytes in one frame)."""
    header = _read_exactly(sock, 4)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size < 1 or (limit is not None and size > limit):
        return None
    body = _read_exactly(sock, size)
    if body is None:
        return None
    return body[:1], body[1:]


def ask_frames(sock: _socket.socket, kind: bytes, payload: bytes) -> list[tuple[bytes, bytes]] | None:
    """Send one request and read every frame of the answer until the server closes; None when
    the connection broke before a final frame (exit ``x``, fallback ``f``, restart ``r``,
    status ``s``, stopping ``k``)."""
    send_frame(sock, kind, payload)
    frames = []
    while True:
        frame = read_frame(sock)
        if frame is None:
            return None
        frames.append(frame)
        if frame[0] in (b"x", b"f", b"r", b"s", b"k"):
            return frames
