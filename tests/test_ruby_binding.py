"""The Ruby binding (bindings/ruby/lib/rdx.rb, Fiddle over librdx.so): runs its minitest suite
(bindings/ruby/test/test_rdx.rb) with Debian's ruby. That suite covers the whole Ruby API,
compares it with the Python API on the same fixture (through tests/binding_answers.py, run
with this interpreter) and with real Ruby, and checks the error classes against rdx.h."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RUBY
from librdx import BINDINGS, ROOT, build_library


@pytest.mark.slow  # the whole minitest suite through the library; make check runs the test below
def test_ruby_binding_suite() -> None:
    library = build_library()
    assert RUBY is not None, "ruby is required (make test installs Debian's ruby)"
    # Nothing Python-specific leaks in from this process: the library finds its own packages.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
    env |= {"RDX_LIB": str(library), "RDX_PYTHON": sys.executable}
    proc = subprocess.run(
        [RUBY, f"-I{BINDINGS / 'ruby' / 'lib'}", str(BINDINGS / "ruby" / "test" / "test_rdx.rb")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    summary = re.search(r"(\d+) runs, (\d+) assertions, 0 failures, 0 errors, 0 skips", proc.stdout)
    assert summary is not None, output
    assert int(summary[1]) >= 20 and int(summary[2]) >= 200, summary[0]
    assert "DEPRECATED" not in output and "warning" not in output.lower(), output


def test_ruby_binding_finds_the_library_by_default() -> None:
    """Without RDX_LIB, rdx.rb loads bindings/build/librdx.so relative to itself."""
    build_library()
    assert RUBY is not None
    env = {k: v for k, v in os.environ.items() if k != "RDX_LIB" and not k.startswith("PYTHON")}
    script = 'g = Rdx::Graph.new; g.index_source("file:///x.rb", "class X; end"); puts g["X"].ancestors.map(&:name).join(" "); puts Rdx::Native::LIBRARY_PATH'
    proc = subprocess.run(
        [RUBY, f"-I{BINDINGS / 'ruby' / 'lib'}", "-rrdx", "-e", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["X Object Kernel BasicObject", str(Path(BINDINGS / "build" / "librdx.so"))]
