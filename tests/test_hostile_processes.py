"""Worker processes: none outlives the process that started it, and one dying spoils only its file.

The discovery pool forks workers; a ``kill -9`` or ``TERM`` of ``rdx index`` (or of a server
while it indexes) used to leave them alive under init. These tests start real commands, kill
them while workers parse, and look for the workers afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from rdx.model.records import Diagnostic, FileResult
from rdx.workspace import pool
from rdx.workspace.files import collect_files

RDX = [sys.executable, "-m", "rdx.cli.main"]


def _project(root, files: int = 400) -> None:
    """Enough Ruby for discovery to use the pool (well over its in-process threshold)."""
    lib = root / "lib"
    lib.mkdir(parents=True)
    body = "".join(f"  def method_{i}(a, b)\n    a + b * {i}\n  end\n" for i in range(60))
    for i in range(files):
        (lib / f"file_{i}.rb").write_text(f"class Klass{i}\n{body}end\n")


def _children(pid: int) -> set[int]:
    """Every process whose parent is ``pid``, from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


COMMANDS = {
    "index": lambda p: ["index", "--no-cache", "--jobs", "2", p],
    "serve": lambda p: ["serve", p, "--port", str(_free_port())],
    "mcp": lambda p: ["mcp", p],
}


@pytest.mark.slow  # six real commands, each killed while its workers parse 1000 files
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill", "term"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_worker_outlives_the_command(tmp_path, command, sig):
    _project(tmp_path / "p", files=1000)  # Long enough to be seen on a fast machine.
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    proc = subprocess.Popen([*RDX, *COMMANDS[command](str(tmp_path / "p"))], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) >= 2, 60), "the pool's workers never started"
        workers = _children(proc.pid)
        proc.send_signal(sig)
        proc.wait(30)
        assert _wait_for(lambda: not any(_alive(w) for w in workers), 10), f"orphaned workers: {[w for w in workers if _alive(w)]}"
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow  # forks a worker pool from the test process, a gigabyte by then in make check's workers
def test_a_worker_that_dies_spoils_only_its_file(tmp_path, monkeypatch):
    _project(tmp_path / "p", files=120)
    victim = str(tmp_path / "p" / "lib" / "file_7.rb")
    real = pool.discover_file

    def dying(entry, parser=None):
        # Forked workers inherit this replacement: the victim's worker dies as an OOM kill would.
        if entry.path == victim:
            os._exit(9)
        return real(entry, parser)

    monkeypatch.setattr(pool, "discover_file", dying)
    entries = collect_files(str(tmp_path / "p")).files
    results = {r.path: r for r in pool.discover_files(entries, jobs=2)}
    assert set(results) == {e.path for e in entries}
    assert [d.code for d in results[victim].diagnostics] == ["worker-died"]
    others = [r for p, r in results.items() if p != victim]
    assert all(not r.diagnostics and r.definitions for r in others)


def test_worker_memory_budget_parses_sizes(monkeypatch):
    for text, expected in [("", pool.DEFAULT_WORKER_MEMORY), ("2G", 2 * 1024**3), ("512m", 512 * 1024**2), ("none", None), ("0", None), ("junk", pool.DEFAULT_WORKER_MEMORY)]:
        monkeypatch.setenv("RDX_WORKER_MEMORY", text)
        assert pool.worker_memory_budget() == expected, text


@pytest.mark.slow  # as above: a worker pool forked from the test process
def test_workers_memory_is_capped(tmp_path, monkeypatch):
    """A worker cannot take more than its budget: a 4 GiB allocation fails there with
    MemoryError (which ``discover_file`` turns into the file's diagnostic) instead of taking
    the machine's memory."""
    _project(tmp_path / "p", files=120)
    hog = str(tmp_path / "p" / "lib" / "file_3.rb")
    real = pool.discover_file

    def hungry(entry, parser=None):
        if entry.path != hog:
            return real(entry, parser)
        try:
            blocks = [bytearray(64 * 1024**2) for _ in range(64)]
            code = f"not-capped-{len(blocks)}"
        except MemoryError:
            code = "capped"
        return FileResult(uri=entry.uri, path=entry.path, diagnostics=[Diagnostic(code, "")])

    monkeypatch.setattr(pool, "discover_file", hungry)
    monkeypatch.setenv("RDX_WORKER_MEMORY", "256M")
    entries = collect_files(str(tmp_path / "p")).files
    results = {r.path: r for r in pool.discover_files(entries, jobs=2)}
    assert [d.code for d in results[hog].diagnostics] == ["capped"]
    assert all(r.definitions for p, r in results.items() if p != hog)
