"""Opening one file safely: the leaf every reader of the project's files goes through.

It owns the checks made at the moment a file is opened (a regular file, opened without
blocking, its real path inside the project's roots) and nothing else: which files belong to the
project, the walk and the ignore rules are ``rdx.workspace.files``'s. It imports nothing of
rdx, so the configuration reader can use it as the walk does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

__all__ = ["MAX_FILE_BYTES", "NotRegularFileError", "OutsideProjectError", "inside", "open_regular", "read_descriptor", "read_regular"]

# Files larger than this are reported and skipped: nothing useful is that big, and a parse of
# a multi-hundred-megabyte file would stall a worker.
MAX_FILE_BYTES = 64 * 1024 * 1024


class NotRegularFileError(OSError):
    """A path that is not a regular file (a FIFO, a device, a socket, a directory)."""


class OutsideProjectError(OSError):
    """A path whose real path is outside the project's roots."""


def inside(real: str, roots: Iterable[str]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` (real paths) or below one."""
    for root in roots:
        if real == root or real.startswith(root if root.endswith(os.sep) else root + os.sep):
            return True
    return False


def open_regular(path: str, roots: Iterable[str] = ()) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file at ``path`` and its status; raises OSError
    (``NotRegularFileError``, ``OutsideProjectError`` among them) otherwise.

    Nothing here can block: the path is checked before opening (opening some devices has
    effects), opened with ``O_NONBLOCK`` (a FIFO swapped in meanwhile opens at once) and
    checked again on the descriptor. With ``roots`` (real paths), the real path of what was
    opened must be inside one of them: a file replaced by a symlink out of the project after
    the walk is refused."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFileError(f"{path} is not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"{path} is not a regular file")
        if roots:
            real = _opened_path(fd, path, st)
            if not inside(real, roots):
                raise OutsideProjectError(f"{path} resolves to {real}, outside the project's roots")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _opened_path(fd: int, path: str, st: os.stat_result) -> str:
    """The real path of the file open at ``fd``: the kernel's answer where there is one,
    else ``path`` resolved and checked to be the same file."""
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
        if opened.startswith(os.sep) and not opened.endswith(" (deleted)"):
            return opened
    except OSError:
        pass
    real = os.path.realpath(path)
    again = os.stat(real)
    if (again.st_dev, again.st_ino) != (st.st_dev, st.st_ino):
        raise OutsideProjectError(f"{path} changed while it was opened")
    return real


def _read_up_to(fd: int, count: int, first: int) -> bytes:
    """At most ``count`` bytes from ``fd``, fewer only at its end: ``first`` bytes asked at
    once (a regular file gives them all in one read), the rest in pieces of at most a
    mebibyte, so that a file growing toward the limit does not make one limit-sized buffer."""
    data = os.read(fd, min(count, first))
    if len(data) == count or not data:
        return data
    pieces = [data]
    got = len(data)
    while got < count:
        piece = os.read(fd, min(count - got, _PIECE))
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


_PIECE = 1024 * 1024


def read_descriptor(fd: int, size: int, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the file open on ``fd`` (``open_regular``'s), whose size
    was ``size`` when it was opened: a file still growing is read up to one byte over the
    limit, not forever. The size and one byte are read first: one read of the whole limit
    makes a buffer that large for every file (about 50 us each). Read with ``os.read``: no
    file object is made, which costs more than the read of a small file (about 15 us)."""
    want = min(size, limit) + 1
    data = _read_up_to(fd, want, want)
    if len(data) > size and len(data) <= limit:
        data += _read_up_to(fd, limit + 1 - len(data), _PIECE)
    return data


def read_regular(path: str, roots: Iterable[str] = (), limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at ``path`` (see ``open_regular``), at most ``limit``;
    raises OSError otherwise, or when the file is larger."""
    fd, st = open_regular(path, roots)
    try:
        if st.st_size > limit:
            raise OSError(f"{path} is {st.st_size} bytes, over the {limit}-byte limit")
        data = read_descriptor(fd, st.st_size, limit)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(f"{path} grew over the {limit}-byte limit while it was read")
    return data
