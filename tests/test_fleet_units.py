"""The fleet's parts that need no Ray: the manifest, commits, the store's atomic publish, the
links between repositories and the merges (fast, in process)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import rdx
from rdx_fleet.fleet import plan_shards
from rdx_fleet.links import LOCAL_GEMS, link_commit, links_of, local_gems_of, taking_gems
from rdx_fleet.manifest import load_manifest
from rdx_fleet.merge import interleave, interleave_depths, merge_grep, merge_references
from rdx_fleet.store import Store, commit_of


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def test_manifest_errors_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    cases = {
        'store = "s"\n[[repository]]\nname = "a"\npath = "a"\n[[repository]]\nname = "a"\npath = "a"\n': "appears twice",
        'store = "s"\n[[repository]]\nname = "b"\npath = "missing"\n': "is not a directory",
        'store = "s"\n': "names no [[repository]]",
        '[[repository]]\nname = "a"\npath = "a"\n': "needs store",
        'store = "s3://bucket/x"\n[[repository]]\nname = "a"\npath = "a"\n': "only a local directory",
        'store = "s"\n[[repository]]\nname = "../x"\npath = "a"\n': "must be letters",
    }
    for text, message in cases.items():
        (tmp_path / "m.toml").write_text(text)
        with pytest.raises(rdx.RdxError, match=message.replace("[", r"\[").replace("]", r"\]")):
            load_manifest(str(tmp_path / "m.toml"))


def test_git_repositories_are_cloned_and_their_commit_is_head(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    (origin / "lib").mkdir(parents=True)
    (origin / "lib" / "x.rb").write_text("class X; end\n")
    git(origin, "init", "-q")
    git(origin, "add", ".")
    git(origin, "commit", "-qm", "one")
    head = git(origin, "rev-parse", "HEAD")
    (tmp_path / "m.toml").write_text(f'store = "s"\n[[repository]]\nname = "o"\ngit = "{origin}"\nref = "{head}"\n')
    manifest = load_manifest(str(tmp_path / "m.toml"))
    [repo] = manifest.repositories
    assert repo.path == str(tmp_path / "s" / ".checkouts" / "o") and repo.git == str(origin)
    assert commit_of(repo.path) == head == commit_of(str(origin))
    (origin / "lib" / "x.rb").write_text("class X; def y; end; end\n")  # Dirty: a content hash.
    dirty = commit_of(str(origin))
    assert dirty.startswith("w") and dirty != head and commit_of(str(origin)) == dirty


def test_publish_is_whole_or_nothing(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    tmp = store.scratch("r", "c1", None)
    (Path(tmp) / "snapshot").write_text("half")
    assert store.current("r") is None and not store.has("r", "c1")  # Building: nothing visible.
    store.publish("r", "c1", tmp, {"declarations": 1})
    assert store.current("r") == "c1" and store.metadata("r", "c1") == {"declarations": 1}
    warm = store.scratch("r", "c2", "c1")
    assert (Path(warm) / "snapshot").read_text() == "half" and not (Path(warm) / "fleet.json").exists()
    assert store.sweep("r") == 1 and store.current("r") == "c1"


def test_links_by_path_git_and_gemspec(tmp_path: Path) -> None:
    specs = {"lib1": ("one", None), "lib2": ("two", None), "lib3": ("three", None), "lib4": ("four", '"1.0"'), "lib5": ("five", "Five::VERSION")}
    for name, (spec, version) in specs.items():
        (tmp_path / name).mkdir()
        line = f"  s.version = {version}\n" if version else ""
        (tmp_path / name / f"{spec}.gemspec").write_text(f'Gem::Specification.new do |s|\n  s.name = "{spec}"\n{line}end\n')
    (tmp_path / "lib5" / "lib" / "five").mkdir(parents=True)
    (tmp_path / "lib5" / "lib" / "five" / "version.rb").write_text('module Five\n  VERSION = "5.1"\nend\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "Gemfile.lock").write_text(
        "GIT\n  remote: https://git.example/lib2.git\n  revision: abc\n  specs:\n    two (1.0)\n\n"
        "PATH\n  remote: ../lib1\n  specs:\n    one (0.1)\n\n"
        # four: another release than lib4 builds (not linked); five: the version its constant says.
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    three (2.0)\n    four (2.0)\n    five (5.1)\n    rake (13.0)\n"
    )
    (tmp_path / "m.toml").write_text(
        'store = "s"\n' + "".join(f'[[repository]]\nname = "{n}"\npath = "{n}"\n' for n in ("app", "lib1", "lib3", "lib4", "lib5"))
    )
    manifest = load_manifest(str(tmp_path / "m.toml"))
    manifest = type(manifest)(manifest.store, (*manifest.repositories, type(manifest.repositories[0])("lib2", str(tmp_path / "lib2"), "https://git.example/lib2.git")))
    links = links_of(manifest)
    found = [(link.source, link.target, link.gem, link.how) for link in links]
    assert found == [("app", "lib1", "one", "path"), ("app", "lib2", "two", "git"), ("app", "lib3", "three", "gemspec"), ("app", "lib5", "five", "gemspec")]
    # rdx follows PATH sources by itself; the others are taken from the checkouts.
    assert local_gems_of(manifest, links) == {"app": {"two": str(tmp_path / "lib2"), "three": str(tmp_path / "lib3"), "five": str(tmp_path / "lib5")}}


def test_a_linked_repository_is_keyed_by_its_targets_commits() -> None:
    assert link_commit("abc", []) == "abc"
    one, two = link_commit("abc", ["b1", "c1"]), link_commit("abc", ["c1", "b1"])
    assert one == two and one.startswith("abc+")
    assert link_commit("abc", ["b2", "c1"]) != one


def test_shards_pack_small_repositories_and_keep_large_ones_alone() -> None:
    sizes = {f"r{i}": 10 for i in range(6)} | {"big": 100}
    assert plan_shards(sizes, budget=1000, at_least=1) == [sorted(sizes)]
    assert plan_shards(sizes, budget=1000, at_least=2) == [["big"], [f"r{i}" for i in range(6)]]
    three = plan_shards(sizes, budget=60, at_least=1)  # 160 bytes in shards of 60: three shards.
    assert len(three) == 3 and ["big"] in three and sorted(n for s in three for n in s) == sorted(sizes)
    assert plan_shards(sizes, budget=60, at_least=1) == three  # Deterministic.
    assert plan_shards({"a": 1}, budget=1, at_least=4) == [["a"]]
    assert plan_shards({}, budget=1, at_least=4) == []


GEARS = {"lib/gears.rb": "module Gears\n  class Base\n    def turn\n      :base\n    end\n  end\nend\n"}


def test_a_locked_gem_is_taken_from_the_checkout_named_in_local_gems(tmp_path: Path) -> None:
    """What the fleet relies on for GIT and gemspec links: with ``LOCAL_GEMS`` naming a gem's
    checkout, rdx loads that checkout in place of the installed gem (there is none here)."""
    gears, app = tmp_path / "gears", tmp_path / "app"
    for rel, text in GEARS.items():
        (gears / rel).parent.mkdir(parents=True, exist_ok=True)
        (gears / rel).write_text(text)
    (app / "lib").mkdir(parents=True)
    (app / "lib" / "app.rb").write_text('require "gears"\nclass Motor < Gears::Base\nend\n')
    (app / "Gemfile.lock").write_text("GIT\n  remote: https://git.example/gears.git\n  revision: abc\n  specs:\n    gears (0.2.0)\n\nDEPENDENCIES\n  gears!\n")

    def opened(cache: str) -> rdx.Graph:
        g = rdx.Graph.open(str(app), cache_dir=str(tmp_path / cache), jobs=1)
        g.resolve()
        return g

    assert opened("plain").get("Gears::Base#turn()") is None  # Not installed: a missing gem.
    before = os.environ.get(LOCAL_GEMS)
    with taking_gems({"gears": str(gears)}):
        assert json.loads(os.environ[LOCAL_GEMS]) == {"gears": str(gears)}
        g = opened("linked")
    assert os.environ.get(LOCAL_GEMS) == before
    base = g.get("Gears::Base")
    assert base is not None and base.location is not None and os.path.realpath(base.location.path) == os.path.realpath(gears / "lib/gears.rb")
    motor = g.get("Motor")
    assert motor is not None and [a.name for a in motor.ancestors][:2] == ["Motor", "Gears::Base"]
    assert [(r.location.start_line) for r in g.references_to("Gears::Base")] == [2]
    # An edit of the checkout is seen (its stamp is in the gem's version, not a stale cache entry).
    (gears / "lib/gears.rb").write_text("module Gears\n  class Base\n    def turn2\n    end\n  end\nend\n")
    with taking_gems({"gears": str(gears)}):
        g = opened("again")
    assert g.get("Gears::Base#turn2()") is not None and g.get("Gears::Base#turn()") is None


def test_split_discovery_equals_one_task(tmp_path: Path) -> None:
    """Discovery in batches (``rdx.discover_batch``), seeded into the snapshot
    (``rdx.seed_snapshot``) and resolved once, gives the graph one task gives."""
    root = tmp_path / "repo"
    for i in range(7):
        (root / "lib" / "split").mkdir(parents=True, exist_ok=True)
        (root / "lib" / "split" / f"part{i}.rb").write_text(
            f"module Split\n  class Part{i} < {'Object' if i == 0 else f'Part{i - 1}'}\n    include Comparable\n"
            f"    def step_{i}(x)\n      Part{(i + 3) % 7}.new.step_{(i + 3) % 7}(x)\n    end\n  end\nend\n"
        )
    (root / "lib" / "broken.rb").write_text("class Broken\n  def oops(\nend\n")
    (root / "README.md").write_text("# split\n")
    paths, _, _ = rdx.Graph.plan(str(root))
    batches = [rdx.discover_batch(paths[i : i + 3]) for i in range(0, len(paths), 3)]
    assert len(batches) == 3
    assert rdx.seed_snapshot(str(root), str(tmp_path / "split"), batches) == len(paths)
    split = rdx.Graph.open(str(root), cache_dir=str(tmp_path / "split"), jobs=1)
    assert split.open_stats["parsed"] == 0 and split.open_stats["reused"] == len(paths)
    one = rdx.Graph.open(str(root), cache_dir=str(tmp_path / "one"), jobs=1)
    assert one.open_stats["parsed"] == len(paths)
    for g in (split, one):
        g.resolve()

    def shape(g: rdx.Graph) -> tuple[object, ...]:
        decls = sorted((d.name, str(d.kind), str(d.location)) for d in g.declarations)
        ancestors = sorted((d.name, tuple(a.name for a in d.ancestors)) for d in g.declarations if d.name.startswith("Split::"))
        consts = sorted(repr(r) for r in g.constant_references)
        methods = sorted(repr(r) for r in g.method_references)
        return decls, ancestors, consts, methods, sorted(str(d) for d in g.diagnostics)

    assert shape(split) == shape(one)
    ancestors = shape(one)[1]
    assert isinstance(ancestors, list) and ("Split::Part6", ("Split::Part6", "Split::Part5", "Split::Part4")) in [(n, a[:3]) for n, a in ancestors]


def test_merges_are_deterministic_and_page_exactly() -> None:
    def shard(repo: str, lines: list[tuple[str, int]], total: int, start: int = 0) -> dict[str, object]:
        files: list[dict[str, object]] = []
        for path, line in lines:
            if not files or files[-1]["path"] != path:
                files.append({"repository": repo, "path": path, "language": "ruby", "lines": []})
            files[-1]["lines"].append({"line": line, "column": 0, "text": ""})  # type: ignore[attr-defined]
        return {"total": total, "files": files, "_from": start, "matched_files": len(files)}

    a = shard("a", [("x.rb", 1), ("x.rb", 5), ("y.rb", 2)], 3)
    b = shard("b", [("x.rb", 3)], 1)
    page = merge_grep([a, b], 2, 2)
    assert page["total"] == 4 and page["next_offset"] is None
    assert [(f["repository"], f["path"], [x["line"] for x in f["lines"]]) for f in page["files"]] == [("a", "y.rb", [2]), ("b", "x.rb", [3])]
    assert interleave([[{"n": 1}, {"n": 2}], [], [{"n": 3}]]) == [{"n": 1}, {"n": 3}, {"n": 2}]
    refs = {"files": [{"repository": "b", "path": "z.rb", "refs": [{"at": "10:2-10:5", "name": "X"}, {"at": "2:0-2:1", "name": "X"}]}]}
    assert [r["at"] for r in merge_references([refs, refs])] == ["2:0-2:1", "10:2-10:5"]


def test_the_command_line_default_batch_size_is_the_indexers() -> None:
    import rdx.cli.fleet
    from rdx_fleet.indexing import SPLIT_FILES

    assert rdx.cli.fleet.SPLIT_FILES == SPLIT_FILES


def test_interleave_depths_say_how_much_of_each_list_a_page_takes() -> None:
    """Checked against ``interleave`` itself over every small case: the lists cut to their
    depths interleave into the same first ``end`` items, and no depth is larger than needed."""
    import itertools

    for counts in itertools.product(range(4), repeat=3):
        lists = [[(i, r) for r in range(c)] for i, c in enumerate(counts)]
        for end in range(sum(counts) + 2):
            depths = interleave_depths(list(counts), end)
            full = interleave(lists)[:end]
            assert interleave([items[:k] for items, k in zip(lists, depths, strict=True)])[:end] == full
            assert depths == [max((rank + 1 for j, rank in full if j == i), default=0) for i in range(len(counts))]
    assert interleave_depths([5, 0, 2, 9], 7) == [3, 0, 2, 2]


def test_a_path_gem_edited_in_place_is_seen_as_ruby_loads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Repository A locks gem ``bgem`` by a ``PATH`` source to B's checkout; B is edited in
    place: same size and the same mtime (restored), so only its contents tell. A's re-index,
    warm from its own snapshot and the shared gem cache, and a fresh one, must both see the
    edit, as Ruby loading B does."""
    import shutil

    monkeypatch.setenv("RDX_GEM_CACHE", str(tmp_path / "gem-cache"))
    a, b = tmp_path / "a", tmp_path / "b"
    (b / "lib").mkdir(parents=True)
    (b / "bgem.gemspec").write_text('Gem::Specification.new do |s|\n  s.name = "bgem"\n  s.version = "0.1.0"\nend\n')
    source = b / "lib" / "bgem.rb"
    source.write_text("module Bgem\n  def self.one; end\nend\n")
    (a / "lib").mkdir(parents=True)
    (a / "Gemfile").write_text('gem "bgem", path: "../b"\n')
    (a / "Gemfile.lock").write_text("PATH\n  remote: ../b\n  specs:\n    bgem (0.1.0)\n\nDEPENDENCIES\n  bgem!\n")
    (a / "lib" / "a.rb").write_text('require "bgem"\nBgem.one\n')

    def methods(cache: str) -> list[str]:
        g = rdx.Graph.open(str(a), cache_dir=str(tmp_path / cache), jobs=1)
        g.resolve()
        return sorted(d.name for d in g.declarations if d.name.startswith("Bgem::<Bgem>#"))

    def ruby() -> list[str]:
        ruby_bin = shutil.which("ruby")
        assert ruby_bin is not None, "ruby is the oracle"
        out = subprocess.run([ruby_bin, "-I", str(b / "lib"), "-e", 'require "bgem"; puts Bgem.singleton_methods.sort'], capture_output=True, text=True, check=True)
        return [f"Bgem::<Bgem>#{m}()" for m in out.stdout.split()]

    assert methods("warm") == ruby() == ["Bgem::<Bgem>#one()"]
    st = source.stat()
    source.write_text("module Bgem\n  def self.two; end\nend\n")  # The same size...
    os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns))  # ...and the same mtime.
    assert source.stat().st_size == st.st_size and source.stat().st_mtime_ns == st.st_mtime_ns
    assert methods("warm") == methods("fresh") == ruby() == ["Bgem::<Bgem>#two()"]


def test_a_dead_shards_copies_are_swept_and_a_closed_shards_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard's copies of the snapshots are owned by its process (a lock the kernel releases
    when it dies): a shard that dies without closing leaves them until the next shard on the
    node starts (a restart included) or the fleet sweeps; a live shard's are never taken."""
    import sys

    from rdx_fleet.actors import Hosted, ShardServer
    from rdx_fleet.copies import sweep
    from rdx_fleet.indexing import index_fleet

    copies = tmp_path / "copies"
    monkeypatch.setenv("RDX_FLEET_COPIES", str(copies))
    (tmp_path / "r" / "lib").mkdir(parents=True)
    (tmp_path / "r" / "lib" / "r.rb").write_text("class R\nend\n")
    (tmp_path / "m.toml").write_text(f'store = "store"\n[[repository]]\nname = "r"\npath = "{tmp_path / "r"}"\n')
    manifest = load_manifest(str(tmp_path / "m.toml"))
    [result] = index_fleet(manifest, use_ray=False)
    hosted = [Hosted("r", str(tmp_path / "r"), result.commit)]
    roots = [("r", os.path.realpath(tmp_path / "r"))]
    script = (
        "import os, sys\nfrom rdx_fleet.actors import Hosted, ShardServer\n"
        f"s = ShardServer([Hosted('r', {str(tmp_path / 'r')!r}, {result.commit!r})], {manifest.store!r}, {roots!r})\n"
        "print(s.info()[0]['copy'], flush=True)\nos._exit(9)\n"  # Killed: no cleanup runs.
    )
    died = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ, "RDX_NO_DAEMON": "1"})
    assert died.returncode == 9, died.stderr
    dead_copy = Path(died.stdout.strip())
    assert (dead_copy / "fleet.json").is_file()  # Left behind.
    live = ShardServer(hosted, manifest.store, roots)  # A shard starting on the node sweeps...
    assert not dead_copy.exists() and not dead_copy.parent.exists()
    own = Path(live.info()[0]["copy"])
    assert (own / "fleet.json").is_file() and sweep() == [] and own.is_dir()  # ...never a live shard's.
    assert live.info()[0]["revision"] >= 1
    live.close()
    assert not own.exists() and not own.parent.exists() and os.listdir(copies) == []


PYLIB = {
    "pyproject.toml": '[project]\nname = "b_tools"\nversion = "1.0"\n',
    "bpkg/__init__.py": "",
    "bpkg/core.py": "class Thing:\n    def run(self, n):\n        return n * 2\n\n\ndef helper(x):\n    return Thing().run(x)\n",
}
PYAPP = {
    "requirements.txt": "B-Tools==1.0\n",
    "app/__init__.py": "",
    "app/main.py": "from bpkg.core import Thing, helper\n\n\ndef go():\n    return helper(Thing().run(3))\n",
}


def test_a_python_import_of_another_repository_resolves_into_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pyapp`` requires the distribution ``pylib`` builds (and imports its package): its
    shard answers positions and references from its graph opened with pylib's package
    directory beside it, so go-to-definition lands in pylib where Python says, and the uses
    of pylib's function include pyapp's; grep and stats stay pyapp's own."""
    import asyncio
    import sys

    import msgspec

    from rdx_fleet.actors import Hosted, ShardServer
    from rdx_fleet.indexing import index_fleet
    from rdx_fleet.links import python_links, python_roots_of
    from rdx_fleet.merge import merge_references

    monkeypatch.setenv("RDX_FLEET_COPIES", str(tmp_path / "copies"))
    for name, files in (("pylib", PYLIB), ("pyapp", PYAPP), ("other", {"x.py": "import os\nimport bpkg2\n"})):
        for rel, text in files.items():
            (tmp_path / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / rel).write_text(text)
    (tmp_path / "m.toml").write_text('store = "store"\n' + "".join(f'[[repository]]\nname = "{n}"\npath = "{tmp_path / n}"\n' for n in ("other", "pyapp", "pylib")))
    manifest = load_manifest(str(tmp_path / "m.toml"))
    links = links_of(manifest)
    assert [(link.source, link.target, link.gem, link.how) for link in links] == [("pyapp", "pylib", "b-tools", "python")] == [
        (link.source, link.target, link.gem, link.how) for link in python_links(manifest)]
    (tmp_path / "pyapp" / "requirements.txt").write_text("")  # The import alone links it too.
    assert [(link.source, link.gem) for link in python_links(manifest)] == [("pyapp", "bpkg")]
    (tmp_path / "pyapp" / "requirements.txt").write_text(PYAPP["requirements.txt"])
    roots = python_roots_of(manifest, links)
    assert roots == {"pyapp": [str(tmp_path / "pylib")]}
    results = {r.name: r for r in index_fleet(manifest, use_ray=False)}
    assert "+" in results["pyapp"].commit  # Keyed by pylib's commit too.
    realroots = sorted(((n, os.path.realpath(tmp_path / n)) for n in ("other", "pyapp", "pylib")), key=lambda x: -len(x[1]))
    shard = ShardServer([Hosted(n, str(tmp_path / n), results[n].commit, {}, roots.get(n, [])) for n in ("pyapp", "pylib")], manifest.store, realroots)
    try:
        def ask(tool: str, arguments: dict[str, object], names: list[str], direct: bool = False) -> dict[str, dict[str, Any]]:
            raw = asyncio.run(shard.answer(tool, arguments, names, direct))
            return {n: a["ok"] for n, a in msgspec.msgpack.decode(raw).items()}

        python = subprocess.run(
            [sys.executable, "-c", "import inspect, bpkg.core as c; print(inspect.getsourcelines(c.helper)[1], inspect.getsourcelines(c.Thing)[1])"],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(tmp_path / "pylib")},
        )
        helper_line, thing_line = map(int, python.stdout.split())
        for column, line in ((12, helper_line), (19, thing_line)):  # helper( and Thing() in go().
            [target] = ask("definition_at", {"file_path": "app/main.py", "line": 5, "column": column}, ["pyapp"])["pyapp"]["items"]
            assert target["repository"] == "pylib" and target["location"].split(":")[:2] == ["bpkg/core.py", str(line)]
        refs = ask("find_method_references", {"name": "bpkg.core.helper"}, ["pyapp", "pylib"])
        merged = merge_references(list(refs.values()))
        assert [(r["repository"], r["path"], r["at"]) for r in merged] == [("pyapp", "app/main.py", "5:11-5:17")]
        things = merge_references(list(ask("find_constant_references", {"name": "bpkg.core.Thing"}, ["pyapp", "pylib"]).values()))
        assert [(r["repository"], r["path"]) for r in things] == [("pyapp", "app/main.py"), ("pylib", "bpkg/core.py")]
        grep = ask("search_code", {"pattern": "def helper", "limit": 10, "offset": 0}, ["pyapp", "pylib"], direct=True)
        assert (grep["pyapp"]["total"], grep["pylib"]["total"]) == (0, 1)  # pylib's files are pylib's alone.
        assert ask("codebase_stats", {}, ["pyapp"], direct=True)["pyapp"]["documents"] == 2  # app/__init__.py, app/main.py
    finally:
        shard.close()


def test_a_shards_ranked_page_searches_each_repository_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard asked for a page of ranked search over its repositories merged by score
    searches each repository once (the repositories the page reaches into build their items
    from that same search), and its page equals asking each repository for the whole page."""
    import asyncio

    import msgspec

    from rdx_fleet.actors import Hosted, ShardServer
    from rdx_fleet.indexing import index_fleet
    from rdx_fleet.merge import merge_scored

    monkeypatch.setenv("RDX_FLEET_COPIES", str(tmp_path / "copies"))
    names = ("alpha", "beta", "gamma")
    for i, name in enumerate(names):
        (tmp_path / name / "lib").mkdir(parents=True)
        methods = "".join(f"  # Parses the input line of kind {k}.\n  def parse_line_{k}(s)\n    s.split(',')\n  end\n" for k in range(4 + 3 * i))
        (tmp_path / name / "lib" / f"{name}.rb").write_text(f"class {name.title()}Parser\n{methods}end\n")
    (tmp_path / "m.toml").write_text('store = "store"\n' + "".join(f'[[repository]]\nname = "{n}"\npath = "{tmp_path / n}"\n' for n in names))
    manifest = load_manifest(str(tmp_path / "m.toml"))
    results = {r.name: r for r in index_fleet(manifest, use_ray=False)}
    roots = sorted(((n, os.path.realpath(tmp_path / n)) for n in names), key=lambda x: -len(x[1]))
    shard = ShardServer([Hosted(n, str(tmp_path / n), results[n].commit) for n in names], manifest.store, roots)
    try:
        total = rdx.CollectionStatistics()
        for per_path in msgspec.msgpack.decode(shard.statistics_of(), type=dict[str, dict[str, rdx.CollectionStatistics]]).values():
            for stats in per_path.values():
                total = total.plus(stats)
        shard.set_statistics(msgspec.msgpack.encode(total))
        searches: list[str] = []
        real = rdx.Graph.search

        def counted(self: rdx.Graph, query: str, **kwargs: object) -> list[rdx.Declaration]:
            searches.append(query)
            return real(self, query, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(rdx.Graph, "search", counted)
        arguments = {"query": "parse input line", "offset": 0, "limit": 12}
        page = msgspec.msgpack.decode(asyncio.run(shard.answer("search_declarations", arguments, list(names), True, True)))
        assert len(searches) == len(names)
        whole = msgspec.msgpack.decode(asyncio.run(shard.answer("search_declarations", arguments, list(names), True)))
        merged = merge_scored({n: whole[n]["ok"]["ranking"] for n in names}, 12)
        assert len({n for n, _ in merged}) > 1  # The page reaches into several repositories' lists.
        assert [page[n]["ok"]["ranking"] for n in names] == [whole[n]["ok"]["ranking"] for n in names]
        assert [page[n]["ok"]["items"][i] for n, i in merged] == [whole[n]["ok"]["items"][i] for n, i in merged]
    finally:
        shard.close()


def test_merge_by_score_equals_sorting_every_entry() -> None:
    """``merge_scored`` reads the rankings lazily; it must equal sorting all their entries by
    (score descending, name, repository) and keeping a shared name once, only when no
    repository owns it (random rankings, with ties and shared names)."""
    import random

    from rdx_fleet.merge import merge_scored

    def by_sorting(rankings: dict[str, list[list[object]]], most: int) -> list[tuple[str, int]]:
        entries = sorted((-float(s), n, r, i, bool(sh)) for r, ranking in rankings.items() for i, (n, s, sh) in enumerate(ranking))  # type: ignore[arg-type]
        owned = {n for _, n, _, _, sh in entries if not sh}
        seen: set[str] = set()
        out: list[tuple[str, int]] = []
        for _, n, r, i, sh in entries:
            if sh and (n in owned or n in seen):
                continue
            seen.add(str(n))
            out.append((r, i))
        return out[:most]

    rng = random.Random(26)
    for _ in range(300):
        rankings: dict[str, list[list[object]]] = {}
        for repo in rng.sample(["a", "b", "c", "d"], rng.randint(0, 4)):
            names = rng.sample([f"N{k}" for k in range(12)], rng.randint(0, 8))
            entries = [[n, float(rng.choice([1, 2, 2.5, 3, 7])), rng.random() < 0.3] for n in names]
            rankings[repo] = sorted(entries, key=lambda e: (-e[1], e[0]))  # type: ignore[operator]
        for most in (1, 3, 10, 100):
            assert merge_scored(rankings, most) == by_sorting(rankings, most)
