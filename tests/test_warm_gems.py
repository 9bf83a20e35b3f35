"""A warm open of a project with locked gems does not start Ruby again (issue 23).

Where each locked gem is installed is Ruby's answer (``rdx.workspace.gems``): about a second
of a warm open, every time. The answer is remembered in the gem cache with the identity of
every path it depends on (the Gemfile, the lock, the Ruby binary, the directories RubyGems
reads specifications from, the load path, each found gem's specification), and taken from there
while none of them changed. These tests install gems into a ``GEM_PATH`` of their own with the
real Ruby, and check that what a fresh probe would answer is what the open answers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import rdx
import rdx.workspace.gems as gems

pytestmark = pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")


def install(home: Path, name: str, version: str, source: str) -> None:
    """A gem as ``gem install`` leaves it: its files and its specification."""
    lib = home / "gems" / f"{name}-{version}" / "lib"
    lib.mkdir(parents=True)
    (lib / f"{name}.rb").write_text(source)
    specs = home / "specifications"
    specs.mkdir(parents=True, exist_ok=True)
    (specs / f"{name}-{version}.gemspec").write_text(
        "Gem::Specification.new do |s|\n"
        f"  s.name = {name!r}\n  s.version = {version!r}\n  s.summary = 'x'\n  s.authors = ['x']\n"
        f"  s.files = ['lib/{name}.rb']\n  s.require_paths = ['lib']\nend\n"
    )


def uninstall(home: Path, name: str, version: str) -> None:
    shutil.rmtree(home / "gems" / f"{name}-{version}")
    (home / "specifications" / f"{name}-{version}.gemspec").unlink()


def lock(root: Path, *specs: tuple[str, str]) -> None:
    lines = "".join(f"    {name} ({version})\n" for name, version in specs)
    (root / "Gemfile.lock").write_text(f"GEM\n  remote: https://rubygems.org/\n  specs:\n{lines}\n")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty gem directory of this test's own, and a gem cache of its own."""
    gem_home = tmp_path / "gem-home"
    gem_home.mkdir()
    monkeypatch.setenv("GEM_PATH", str(gem_home))
    monkeypatch.setenv("RDX_GEM_CACHE", str(tmp_path / "gem-cache"))
    return gem_home


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    root = tmp_path / "app"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "machine.rb").write_text("class Machine < Crank::Wheel\nend\n")
    install(home, "crank", "1.0.0", "module Crank\n  class Wheel\n    def turn; end\n  end\nend\n")
    lock(root, ("crank", "1.0.0"), ("pulley", "2.0.0"))
    return root


class Probes:
    """Counts the Ruby probes ``rdx.workspace.gems`` starts."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = subprocess.run

        def run(*args: object, **kwargs: object) -> object:
            self.count += 1
            return real(*args, **kwargs)  # type: ignore[call-overload]

        monkeypatch.setattr(gems.subprocess, "run", run)


def missing(g: rdx.Graph) -> list[str]:
    return sorted(d.message for d in g.diagnostics if d.code == "gem-missing")


def test_a_warm_open_takes_ruby_s_answer_from_the_memo(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    probes = Probes(monkeypatch)
    cold = rdx.Graph.open(project)
    assert probes.count == 1 and cold.open_stats["gems"] == 1 and len(missing(cold)) == 1
    warm = rdx.Graph.open(project)
    assert probes.count == 1  # Not asked again.
    assert warm.open_stats["gems"] == 1 and warm.open_stats["gems_cached"] == 1 and missing(warm) == missing(cold)
    assert [a.name for a in warm["Machine"].ancestors][:2] == ["Machine", "Crank::Wheel"]


def test_a_gem_installed_or_removed_since_is_seen(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rdx.Graph.open(project)
    probes = Probes(monkeypatch)
    install(home, "pulley", "2.0.0", "module Pulley\nend\n")
    g = rdx.Graph.open(project)
    assert probes.count == 1 and g.open_stats["gems"] == 2 and missing(g) == [] and "Pulley" in g
    uninstall(home, "crank", "1.0.0")
    g = rdx.Graph.open(project)
    assert probes.count == 2 and g.open_stats["gems"] == 1 and len(missing(g)) == 1
    assert {d.library for d in g.documents if d.library} == {"pulley-2.0.0"}


def test_a_changed_lockfile_or_environment_asks_again(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rdx.Graph.open(project)
    probes = Probes(monkeypatch)
    lock(project, ("crank", "1.0.0"))
    assert rdx.Graph.open(project).open_stats["gems"] == 1 and probes.count == 1
    other = home.parent / "other-home"
    other.mkdir()
    monkeypatch.setenv("GEM_PATH", str(other))
    g = rdx.Graph.open(project)
    assert probes.count == 2 and g.open_stats["gems"] == 0 and len(missing(g)) == 1


def test_a_respecified_gem_in_place_is_seen(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A specification rewritten in place (same name, same directory entries): its own
    identity changes, so Ruby is asked again."""
    rdx.Graph.open(project)
    probes = Probes(monkeypatch)
    spec = home / "specifications" / "crank-1.0.0.gemspec"
    extra = home / "gems" / "crank-1.0.0" / "ext"
    extra.mkdir()
    (extra / "crank_ext.rb").write_text("module Crank\n  class Ext; end\nend\n")
    spec.write_text(spec.read_text().replace("s.require_paths = ['lib']", "s.require_paths = ['lib', 'ext']"))
    g = rdx.Graph.open(project)
    assert probes.count == 1 and "Crank::Ext" in g


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"answer": {}, "watched": []}', b'{"answer": 1, "watched": 2}'])
def test_a_damaged_memo_is_not_trusted(project: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes) -> None:
    cold = rdx.Graph.open(project)
    memos = list(Path(os.environ["RDX_GEM_CACHE"]).glob("located-*.json"))
    assert len(memos) == 1
    memos[0].write_bytes(damage)
    probes = Probes(monkeypatch)
    g = rdx.Graph.open(project)
    assert probes.count == 1 and g.open_stats["gems"] == cold.open_stats["gems"] and missing(g) == missing(cold)
    assert rdx.Graph.open(project) and probes.count == 1  # Written again.
