"""Workspace configuration: rdx.toml or [tool.rdx], include/exclude globs, size limit, load paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write

import rdx
from rdx.cli.main import main


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "app/models/user.rb", "class User; end\n")
    write(tmp_path / "lib/tool.rb", "module Tool; end\n")
    write(tmp_path / "spec/fixtures/junk.rb", "class Junk; end\n")
    write(tmp_path / "vendor/gems/dep/lib/dep.rb", "module Dep; end\n")
    write(tmp_path / "big.rb", "# " + "x" * 3000 + "\nclass Big; end\n")
    return tmp_path


def test_defaults_skip_files_over_two_megabytes(tmp_path):
    write(tmp_path / "ok.rb", "class Ok; end\n")
    write(tmp_path / "huge.rb", "X = 1\n" * 400_000)  # 2.4 MB
    g = rdx.Graph.open(tmp_path)
    assert "Ok" in g and "X" not in g
    skipped = [d for d in g.diagnostics if d.code == "file-too-large"]
    assert len(skipped) == 1 and skipped[0].path.endswith("huge.rb") and "2097152" in skipped[0].message


def test_rdx_toml_include_exclude_size_and_load_paths(project):
    write(project / "rdx.toml", 'include = ["app/**", "lib/**", "big.rb"]\nexclude = ["lib/tool.rb"]\nmax_file_size = "2KB"\nload_paths = ["vendor/gems/dep/lib"]\n')
    g = rdx.Graph.open(project)
    present = {n for n in ("User", "Tool", "Junk", "Dep", "Big") if n in g}
    assert present == {"User", "Dep"}
    assert [d.path.rsplit("/", 1)[1] for d in g.diagnostics if d.code == "file-too-large"] == ["big.rb"]
    assert g.config.max_file_size == 2048 and g.config.source.endswith("rdx.toml")


def test_pyproject_tool_rdx_table(project):
    write(project / "pyproject.toml", '[project]\nname = "x"\n\n[tool.rdx]\nexclude = ["spec/**"]\n')
    g = rdx.Graph.open(project)
    assert "Junk" not in g and "User" in g and "Tool" in g
    assert g.config.source.endswith("pyproject.toml [tool.rdx]")


@pytest.mark.parametrize(
    "text, words",
    [
        ('max_file_size = "lots"\n', "max_file_size"),
        ("includes = []\n", "includes"),
        ("include = [\n", "rdx.toml"),
    ],
)
def test_bad_config_is_one_clear_error(project, text, words):
    write(project / "rdx.toml", text)
    with pytest.raises(rdx.InvalidArgumentError) as info:
        rdx.Graph.open(project)
    assert words in str(info.value)


def test_dry_run_lists_files_per_directory(project, capsys):
    write(project / "rdx.toml", 'exclude = ["spec/**"]\n')
    assert main(["index", str(project), "--dry-run", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == 4 and data["directories"] == {".": 1, "app/models": 1, "lib": 1, "vendor/gems/dep/lib": 1}
    assert data["config"].endswith("rdx.toml")
    assert not (project / ".rdx").exists()  # a dry run writes nothing
