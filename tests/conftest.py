"""Shared test helpers: building graphs from inline multi-file Ruby fixtures, and running Ruby."""

from __future__ import annotations

import ast
import atexit
import gc
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import rdx

RUBY = shutil.which("ruby")

# A test process holds pytest, every test module and the libraries they import, hundreds of
# thousands of objects that each full collection walks again. At the default threshold (a
# collection every 700 net allocations) the collector took about a tenth of make check's time;
# every 10,000 less than half of that, every 100,000 (the objects a test makes mostly die young,
# before a collection sees them) about half again, at the same peak memory. This is the test processes' setting only: the
# rdx commands and servers the tests start keep Python's default, and a test that needs a
# collection runs gc.collect() itself.
gc.set_threshold(100_000, *gc.get_threshold()[1:])


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

def _excluded_marks(config: pytest.Config) -> set[str]:
    """The marks whose tests ``-m`` leaves out whatever their other marks are: the ``X`` of an
    expression made only of ``not X`` terms joined by ``and`` (``-m "not corpus and not slow"``);
    none for any other expression."""
    terms = [t.split() for t in (config.option.markexpr or "").split(" and ")]
    if not all(len(t) == 2 and t[0] == "not" and t[1].isidentifier() for t in terms):
        return set()
    return {t[1] for t in terms}


def _module_marks(path: Path) -> set[str]:
    """The names of the marks a test module's top-level ``pytestmark`` gives all its tests."""
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, ValueError):
        return set()
    marks: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark":
                    marks.add(sub.attr)
    return marks


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A module that ``-m`` leaves out whole (``pytestmark = pytest.mark.slow`` under make check)
    is not imported at all: each make check worker would otherwise import it, and what it
    imports (Ray's cluster utilities, the fleet, a language-server client...), only to deselect
    every test in it. Only when the expression is ``not X and not Y...``, where no other mark of a
    test can bring it back."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    excluded = _excluded_marks(config)
    if excluded and excluded & _module_marks(collection_path):
        return True
    return None


def _exit_at_once() -> None:
    """The last step of a make check worker: flush what it wrote and leave without tearing the
    interpreter down. By then the worker has sent every report to the controller and the
    controller has closed its channel; the teardown itself would only free, one by one, the
    millions of objects the test modules and their fixtures left (a few seconds of CPU per
    worker). Registered when this file is imported, so that the exit handlers registered later
    (Ray's, multiprocessing's...) still run before it."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_exit_at_once)

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
