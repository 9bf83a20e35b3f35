"""The fleet's parts that need no Ray: the manifest, commits, the store's atomic publish, the
links between repositories and the merges (fast, in process)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import rdx
from rdx_fleet.links import links_of
from rdx_fleet.manifest import load_manifest
from rdx_fleet.merge import interleave, merge_grep, merge_references
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
    for name, spec in (("lib1", "one"), ("lib2", "two"), ("lib3", "three")):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{spec}.gemspec").write_text(f'Gem::Specification.new do |s|\n  s.name = "{spec}"\nend\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "Gemfile.lock").write_text(
        "GIT\n  remote: https://git.example/lib2.git\n  revision: abc\n  specs:\n    two (1.0)\n\n"
        "PATH\n  remote: ../lib1\n  specs:\n    one (0.1)\n\n"
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    three (2.0)\n    rake (13.0)\n"
    )
    (tmp_path / "m.toml").write_text(
        'store = "s"\n' + "".join(f'[[repository]]\nname = "{n}"\npath = "{n}"\n' for n in ("app", "lib1", "lib3"))
    )
    manifest = load_manifest(str(tmp_path / "m.toml"))
    manifest = type(manifest)(manifest.store, (*manifest.repositories, type(manifest.repositories[0])("lib2", str(tmp_path / "lib2"), "https://git.example/lib2.git")))
    found = [(link.source, link.target, link.gem, link.how) for link in links_of(manifest)]
    assert found == [("app", "lib1", "one", "path"), ("app", "lib2", "two", "git"), ("app", "lib3", "three", "gemspec")]


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
