"""The fleet's parts that need no Ray: the manifest, commits, the store's atomic publish, the
links between repositories and the merges (fast, in process)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

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
