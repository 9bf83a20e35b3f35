"""The persistent snapshot: warm starts reuse unchanged files, changes are picked up, a bad
snapshot is reported and rebuilt, and concurrent writers never corrupt it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from conftest import write

import rdx
from rdx.cache.snapshot import SCHEMA_VERSION, SNAPSHOT_NAME


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "lib/a.rb", "module App\n  class Base; end\nend\n")
    write(tmp_path / "lib/b.rb", "module App\n  class User < Base\n    def name; end\n  end\nend\n")
    write(tmp_path / "lib/c.rb", "module App\n  VERSION = '1'\nend\n")
    return tmp_path


def names(g: rdx.Graph) -> set[str]:
    return {d.name for d in g.declarations if d.name.startswith("App")}


def test_cold_then_warm_reuses_everything(project):
    g = rdx.Graph.open(project)
    assert g.open_stats == {"reused": 0, "parsed": 3, "deleted": 0, "snapshot": False}
    assert (project / ".rdx" / SNAPSHOT_NAME).exists()
    assert (project / ".rdx" / ".gitignore").read_text().splitlines()[-1] == "*"
    cold = names(g)
    g2 = rdx.Graph.open(project)
    assert g2.open_stats == {"reused": 3, "parsed": 0, "deleted": 0, "snapshot": True}
    assert names(g2) == cold
    assert [a.name for a in g2["App::User"].ancestors][:3] == ["App::User", "App::Base", "Object"]


def test_changed_new_and_deleted_files_are_picked_up(project):
    rdx.Graph.open(project)
    write(project / "lib/b.rb", "module App\n  class User < Base\n    def email; end\n  end\nend\n")
    write(project / "lib/d.rb", "module App\n  class Admin < User; end\nend\n")
    (project / "lib/c.rb").unlink()
    g = rdx.Graph.open(project)
    assert g.open_stats == {"reused": 1, "parsed": 2, "deleted": 1, "snapshot": True}
    assert "App::User#email()" in g and "App::User#name()" not in g
    assert "App::Admin" in g and "App::VERSION" not in g
    # The same answers as a graph built from scratch.
    fresh = rdx.Graph()
    fresh.index_all([project])
    assert names(fresh) == names(g)


def test_touched_but_unchanged_file_is_not_parsed_again(project):
    rdx.Graph.open(project)
    later = time.time() + 5
    os.utime(project / "lib/a.rb", (later, later))
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 0 and g.open_stats["reused"] == 3


@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "corrupted"),
        (lambda p: p.write_bytes(b"\x00garbage"), "corrupted"),
        (lambda p: p.write_bytes(msgspec.msgpack.encode({"schema": SCHEMA_VERSION - 1, "roots": [], "documents": 5})), "schema"),
    ],
)
def test_bad_snapshot_is_reported_once_and_rebuilt(project, damage, words):
    rdx.Graph.open(project)
    damage(project / ".rdx" / SNAPSHOT_NAME)
    g = rdx.Graph.open(project)
    notes = [d for d in g.diagnostics if d.code == "snapshot-rebuilt"]
    assert len(notes) == 1 and words in notes[0].message
    assert g.open_stats["parsed"] == 3
    assert "App::User#name()" in g
    assert rdx.Graph.open(project).open_stats["reused"] == 3  # rebuilt and written back


def test_other_roots_do_not_share_a_snapshot(project, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    rdx.Graph.open(project / "lib", cache_dir=cache)
    other = tmp_path_factory.mktemp("other")
    write(other / "x.rb", "class X; end\n")
    g = rdx.Graph.open(other, cache_dir=cache)
    assert "X" in g and "App::User" not in g
    assert any(d.code == "snapshot-rebuilt" and "other roots" in d.message for d in g.diagnostics)


def test_concurrent_indexers_leave_a_valid_snapshot(project):
    for i in range(30):
        write(project / f"lib/gen/m{i}.rb", f"module App\n  class C{i} < Base; end\nend\n")
    code = f"import rdx; g = rdx.Graph.open({str(project)!r}, jobs=1); assert 'App::C29' in g"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 0 and g.open_stats["reused"] == 33
    assert not [d for d in g.diagnostics if d.code == "snapshot-rebuilt"]
    assert not list((project / ".rdx").glob(".index-*.tmp"))  # no temporary files left behind


def test_open_rejects_missing_roots(tmp_path):
    with pytest.raises(rdx.IOFailureError):
        rdx.Graph.open(tmp_path / "missing")
    with pytest.raises(rdx.InvalidArgumentError):
        rdx.Graph.open(tmp_path, jobs=0)
