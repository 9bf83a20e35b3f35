"""Shared test helpers: building graphs from inline multi-file Ruby fixtures, and running Ruby."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import rdx

RUBY = shutil.which("ruby")

# A test process holds pytest, every test module and the libraries they import, hundreds of
# thousands of objects that each full collection walks again. At the default threshold (a
# collection every 700 net allocations) the collector took about a tenth of make check's time;
# every 10,000 it takes less than half of that. This is the test processes' setting only: the
# rdx commands and servers the tests start keep Python's default, and a test that needs a
# collection runs gc.collect() itself.
gc.set_threshold(10_000, *gc.get_threshold()[1:])


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collection imports every test module and what they import (the MCP server, the language
    server's protocol, Ray...): a few million objects that live until the process ends. With
    the collector off meanwhile and those objects frozen afterwards (``gc.freeze``: no later
    collection walks them again), collecting takes about 1.5 s less CPU per process (make check
    collects in both workers), and the tests' collections walk only what the tests made."""
    gc.disable()
    try:
        yield
    finally:
        gc.collect()  # What the imports left as garbage, once, before the rest is frozen.
        gc.freeze()
        gc.enable()

# The rdx commands the tests start answer in their own process, not through a resident server
# each would leave running (tests/test_resident*.py turn it back on for their own commands).
os.environ.setdefault("RDX_NO_DAEMON", "1")

# No Ray cluster starts by accident: outside ``ray.init`` a Ray call such as
# ``ray.get_runtime_context()`` (the fleet's shards ask it for their node) otherwise starts a whole
# local cluster, 15 s or more and a dozen processes that stay until the test process exits.
# Tests that want Ray call ``ray.init`` (tests/test_fleet*.py), which this does not affect; a shard
# built directly by a test then reports no node, as it does outside Ray. Set before Ray is imported
# (it reads the variable once), and inherited by the processes the tests start.
os.environ.setdefault("RAY_ENABLE_AUTO_CONNECT", "0")


def build_graph(files: dict[str, str], core: bool = True) -> rdx.Graph:
    """A resolved graph of ``files`` (name -> source), indexed in name order."""
    g = rdx.Graph(core=core)
    for name in sorted(files):
        g.index_source(f"file:///fixture/{name}", files[name])
    g.resolve()
    return g


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run_ruby(script: str, tmp_path: Path, timeout: float = 60) -> str:
    """Run ``script`` with the system Ruby and return its stdout (fails the test on error)."""
    assert RUBY is not None, "ruby is required for the differential tests (make test installs it)"
    path = tmp_path / "probe.rb"
    path.write_text(script)
    proc = subprocess.run([RUBY, "--disable-gems", str(path)], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"ruby failed:\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def graph_of():
    return build_graph


from corpus import DEBIAN_CORPUS_LIST, debian_corpus, other_installed_ruby  # noqa: E402, F401


@pytest.fixture(scope="session")
def debian_graph(tmp_path_factory: pytest.TempPathFactory) -> rdx.Graph:
    """The pinned Debian Ruby corpus (standard library, Rails, RuboCop...: ``debian_corpus``),
    opened once per test run with a snapshot of its own (tests that only read it share it)."""
    return rdx.Graph.open(debian_corpus(), cache_dir=str(tmp_path_factory.mktemp("debian")))


@contextmanager
def ready_workspace(root: Path, files: dict[str, str]) -> Iterator[object]:
    """An MCP/HTTP ``Workspace`` over ``files`` written under ``root``, indexed and ready."""
    from rdx_mcp import Workspace

    for name, text in files.items():
        write(root / name, text)
    workspace = Workspace(str(root), watch=False).start()
    assert workspace.wait_ready()
    try:
        yield workspace
    finally:
        workspace.stop()
