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
from test_incremental import dump

import rdx
from rdx.api.reporting import CACHE_CODES
from rdx.cache.snapshot import IMAGE_NAME, SCHEMA_VERSION, SNAPSHOT_NAME


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "lib/a.rb", "module App\n  class Base; end\nend\n")
    write(tmp_path / "lib/b.rb", "module App\n  class User < Base\n    def name; end\n  end\nend\n")
    write(tmp_path / "lib/c.rb", "module App\n  VERSION = '1'\nend\n")
    return tmp_path


def names(g: rdx.Graph) -> set[str]:
    return {d.name for d in g.declarations if d.name.startswith("App")}


NO_GEMS = {"gems": 0, "gems_cached": 0, "gem_files_parsed": 0}


def test_cold_then_warm_reuses_everything(project):
    g = rdx.Graph.open(project)
    assert g.open_stats == {"reused": 0, "parsed": 3, "deleted": 0, "snapshot": False, "resolved": False, **NO_GEMS}
    assert (project / ".rdx" / SNAPSHOT_NAME).exists()
    assert (project / ".rdx" / ".gitignore").read_text().splitlines()[-1] == "*"
    cold = names(g)
    g2 = rdx.Graph.open(project)
    # The first graph resolved (``names`` asked it), so the second starts resolved too.
    assert g2.open_stats == {"reused": 3, "parsed": 0, "deleted": 0, "snapshot": True, "resolved": True, **NO_GEMS}
    assert names(g2) == cold
    assert [a.name for a in g2["App::User"].ancestors][:3] == ["App::User", "App::Base", "Object"]


def test_changed_new_and_deleted_files_are_picked_up(project):
    rdx.Graph.open(project)
    write(project / "lib/b.rb", "module App\n  class User < Base\n    def email; end\n  end\nend\n")
    write(project / "lib/d.rb", "module App\n  class Admin < User; end\nend\n")
    (project / "lib/c.rb").unlink()
    g = rdx.Graph.open(project)
    assert g.open_stats == {"reused": 1, "parsed": 2, "deleted": 1, "snapshot": True, "resolved": False, **NO_GEMS}
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
    # What ``rdx search`` warns about, without building every file's diagnostics.
    assert g.cache_problems() == [d for d in g.diagnostics if d.code in CACHE_CODES] == notes
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


def test_a_snapshot_made_by_another_rdx_is_parsed_again(project, monkeypatch):
    """Another version of rdx's discovery may record other things from the same files (and a
    resolved image keyed by their content would then be paired with the wrong records)."""
    import rdx.api.persisting as persisting_module
    import rdx.cache.snapshot as snapshot_module

    rdx.Graph.open(project).resolve()
    monkeypatch.setattr(snapshot_module, "discovery_fingerprint", lambda: "another-rdx")
    monkeypatch.setattr(persisting_module, "discovery_fingerprint", lambda: "another-rdx")
    g = rdx.Graph.open(project)
    assert (g.open_stats["parsed"], g.open_stats["resolved"]) == (3, False)
    assert any(d.code == "snapshot-rebuilt" and "another version of rdx" in d.message for d in g.diagnostics)
    assert rdx.Graph.open(project).open_stats["reused"] == 3  # written back by this rdx


@pytest.mark.slow  # four indexer processes at once
def test_concurrent_indexers_leave_a_valid_snapshot(project):
    for i in range(30):
        write(project / f"lib/gen/m{i}.rb", f"module App\n  class C{i} < Base; end\nend\n")
    code = f"import rdx; g = rdx.Graph.open({str(project)!r}, jobs=1); assert 'App::C29' in g"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 0 and g.open_stats["reused"] == 33
    assert not [d for d in g.diagnostics if d.code == "snapshot-rebuilt"]
    assert not list((project / ".rdx").glob(".*.tmp"))  # no temporary files left behind


def test_open_rejects_missing_roots(tmp_path):
    with pytest.raises(rdx.IOFailureError):
        rdx.Graph.open(tmp_path / "missing")
    with pytest.raises(rdx.InvalidArgumentError):
        rdx.Graph.open(tmp_path, jobs=0)


RICH = {
    "lib/shop.rb": "module Shop\n  module Priced\n    def price; end\n  end\n  class Item\n    include Priced\n    include Comparable\n    def <=>(o) = price <=> o.price\n  end\nend\n",
    "lib/special.rb": "require_relative 'shop'\nmodule Shop\n  class Special < Item\n    alias cost price\n    private :price\n    def self.build = new\n  end\n  LIST = [Item, Special].freeze\nend\n",
    "lib/use.rb": "class Report\n  def run = Shop::Special.build.cost + Shop::LIST.size\nend\n",
}


@pytest.fixture
def rich(tmp_path: Path) -> Path:
    for rel, text in RICH.items():
        write(tmp_path / rel, text)
    return tmp_path


def _from_scratch(root: Path) -> rdx.Graph:
    g = rdx.Graph()
    g.index_all([root])
    g.resolve(from_scratch=True)
    return g


def test_warm_start_restores_the_resolved_graph(rich):
    cold = rdx.Graph.open(rich)
    cold.resolve()
    assert (rich / ".rdx" / IMAGE_NAME).exists()
    warm = rdx.Graph.open(rich)
    assert warm.open_stats["resolved"] is True
    assert not warm._store.is_stale  # nothing left to resolve
    # Every answer equals a graph resolved from scratch, including lazily built ones.
    assert dump(warm) == dump(_from_scratch(rich))
    assert warm["Shop::Special"].singleton_class.singleton_class is not None
    assert [d.name for d in warm.search("Special", limit=2)][0] == "Shop::Special"


def test_a_restored_graph_takes_incremental_edits(rich):
    rdx.Graph.open(rich).resolve()
    warm = rdx.Graph.open(rich)
    text = RICH["lib/special.rb"].replace("    private :price\n", "    private :price\n    def extra; end\n")
    write(rich / "lib/special.rb", text)
    warm.index_source(str(rich / "lib/special.rb"), text)
    warm.resolve()
    assert warm.last_resolve == "incremental"  # the member replay worked on restored bookkeeping
    assert dump(warm) == dump(_from_scratch(rich))


def test_a_restored_graph_takes_skeleton_edits_and_new_and_deleted_files(rich):
    """The indexes an update reads (descendants, mentions, load order) are built on demand for
    a graph that started from the snapshot."""
    rdx.Graph.open(rich).resolve()
    warm = rdx.Graph.open(rich)
    edits = [
        ("lib/special.rb", RICH["lib/special.rb"].replace("class Special < Item", "class Special")),
        ("lib/extra.rb", "module Shop\n  class Extra < Item\n    include Priced\n  end\nend\n"),
        ("lib/shop.rb", RICH["lib/shop.rb"].replace("    include Comparable\n", "")),
        ("lib/extra.rb", None),
    ]
    for rel, text in edits:
        if text is None:
            (rich / rel).unlink()
            warm.delete_document(str(rich / rel))
        else:
            write(rich / rel, text)
            warm.index_source(str(rich / rel), text)
        warm.resolve()
        assert warm.last_resolve == "incremental", (rel, warm.last_fallback)
        assert dump(warm) == dump(_from_scratch(rich)), rel


def test_a_changed_file_is_resolved_not_restored(rich):
    rdx.Graph.open(rich).resolve()
    write(rich / "lib/use.rb", "class Report\n  def run2; end\nend\n")
    g = rdx.Graph.open(rich)
    assert g.open_stats["resolved"] is False
    assert "Report#run2()" in g and "Report#run()" not in g
    assert dump(g) == dump(_from_scratch(rich))


@pytest.mark.parametrize("damage", [lambda p: p.write_bytes(p.read_bytes()[:100]), lambda p: p.write_bytes(b"\xc1junk")])
def test_a_bad_resolved_graph_is_reported_and_rebuilt(rich, damage):
    rdx.Graph.open(rich).resolve()
    damage(rich / ".rdx" / IMAGE_NAME)
    g = rdx.Graph.open(rich)
    assert g.open_stats["resolved"] is False
    notes = [d for d in g.diagnostics if d.code == "snapshot-rebuilt"]
    assert len(notes) == 1 and "resolved graph" in notes[0].message
    answers = dump(g)
    answers["diagnostics"] = [x for x in answers["diagnostics"] if "snapshot-rebuilt" not in x]
    assert answers == dump(_from_scratch(rich))
    assert rdx.Graph.open(rich).open_stats["resolved"] is True  # written back after resolving
