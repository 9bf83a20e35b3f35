"""Shared test helpers: building graphs from inline multi-file Ruby fixtures, and running Ruby."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import rdx

RUBY = shutil.which("ruby")


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


DEBIAN_CORPUS_LIST = Path(__file__).parent / "data" / "debian-corpus.txt"
# Where Debian installs Ruby libraries: what is found there beyond the pinned list is "other
# installed gems" (``other_installed_ruby``).
DEBIAN_RUBY_DIRS = (
    "/usr/lib/ruby/vendor_ruby",
    "/usr/share/rubygems-integration/all/gems",
    "/usr/lib/x86_64-linux-gnu/rubygems-integration/3.1.0/gems",
)


def debian_corpus() -> list[str]:
    """The pinned Debian Ruby corpus (``tests/data/debian-corpus.txt``): every entry named with
    its version, so results do not depend on what else is installed. Fails naming any entry
    that is missing (``make test`` installs them)."""
    import os

    import re
    import warnings

    entries = [line.strip() for line in DEBIAN_CORPUS_LIST.read_text().splitlines() if line.strip() and not line.startswith("#")]
    out, missing = [], []
    for entry in entries:
        if os.path.exists(entry):
            out.append(entry)
            continue
        # A Debian (security) update may have moved a gem to another version: the same gem
        # stands in, with a warning naming both, so that the list gets updated.
        parent, name = os.path.split(entry)
        gem = re.sub(r"-[0-9][^-]*(\.gemspec)?$", "", name)
        others = sorted(n for n in os.listdir(parent) if re.fullmatch(re.escape(gem) + r"-[0-9][^-]*(\.gemspec)?", n)) if os.path.isdir(parent) and gem != name else []
        if others:
            warnings.warn(f"pinned corpus: {entry} is not installed; using {others[-1]}", stacklevel=2)
            out.append(os.path.join(parent, others[-1]))
        else:
            missing.append(entry)
    assert not missing, f"the pinned Debian Ruby corpus is missing {len(missing)} entries (make system-deps): {missing[:10]}"
    return out


def other_installed_ruby() -> list[str]:
    """Ruby libraries installed on this machine that the pinned corpus does not name (on a
    fresh CI machine: the compiled gems rdx's corpus leaves out, such as nokogiri and oj)."""
    import os

    pinned = set(debian_corpus())
    out = []
    for base in DEBIAN_RUBY_DIRS:
        if os.path.isdir(base):
            out += [os.path.join(base, n) for n in sorted(os.listdir(base)) if os.path.join(base, n) not in pinned and n != "3.1.0"]
    return out


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
