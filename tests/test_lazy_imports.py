"""``import rdx`` imports none of rdx's modules: each public name is imported from its module at
its first use (``rdx/__init__.py``), so a process pays only for what its command uses. And
opening a graph does not import what only some trees or some commands need (the discovery
pool's process machinery, pathspec for .gitignore files and globs)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import rdx

_PROBE = """
import json, sys
seen = lambda: sorted(m for m in sys.modules if m == "rdx" or m.startswith("rdx."))
import rdx
after_import = seen()
rdx.excerpt("x")
after_excerpt = seen()
rdx.Graph
heavy = ["multiprocessing", "concurrent.futures.process", "ctypes", "pathspec"]
print(json.dumps({"import": after_import, "excerpt": after_excerpt, "graph": "rdx.api.graph" in sys.modules,
                  "heavy": [m for m in heavy if m in sys.modules]}))
"""


def test_import_rdx_imports_only_what_is_used() -> None:
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert found["import"] == ["rdx"]
    assert "rdx.api.graph" not in found["excerpt"] and "rdx.model.errors" in found["excerpt"]
    assert found["graph"] is True
    assert found["heavy"] == []


def test_every_public_name_is_there() -> None:
    names = set(rdx.__all__) - {"__version__"}
    assert {name for name in dir(rdx) if not name.startswith("_")} >= names
    for name in sorted(names):
        value = getattr(rdx, name)  # Each from its module: a class or a function of rdx's.
        assert value.__name__ == name and value.__module__.startswith("rdx."), name
    from rdx import Graph, TextSearch

    assert Graph is rdx.Graph and TextSearch is rdx.TextSearch
    with pytest.raises(AttributeError, match="no attribute 'Grpah'"):
        rdx.Grpah  # noqa: B018
    with pytest.raises(ImportError):
        from rdx import Grpah  # noqa: F401
