"""A graph reopened from its snapshot orders files as the graph that saved it did (issue 22).

``rdx.toml``'s ``entry_points`` decide the load order (``rdx.ruby.resolve.order``). A warm
open restores the resolved graph without walking the files again; the first edit after it
builds the load order (to place an added file, or to tell whether a constant a file looks up
is defined only in a file loaded later, ``Lookup.defined_after``). That walk must start from
the same entry points, specs and Gemfile as the cold resolve (``Resolver.use_roots``), or the
same edit gives one answer on a cold graph and another on a warm one. Each case checks the
cold graph, the warm graph after the same edit, a graph opened from scratch on the edited
files, and Ruby loading the entry point.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import run_ruby

import rdx

TOML = 'entry_points = ["src/main.rb"]\n'


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _chain(g: rdx.Graph, name: str) -> list[str]:
    return [a.name for a in g[name].ancestors]


def _cold_warm_fresh(tmp_path: Path, files: dict[str, str], edit: tuple[str, str], name: str) -> tuple[list[str], list[str], list[str]]:
    """``name``'s ancestors after ``edit`` (file, new text) on a cold graph, on a graph reopened
    from the cold one's snapshot, and on a graph opened on the edited files from scratch."""
    project = tmp_path / "app"
    _write(project, files)
    path, text = edit
    uri = (project / path).as_uri()
    cold = rdx.Graph.open(project, jobs=1)
    assert cold.open_stats["resolved"] is False
    before = _chain(cold, "Object")  # Resolves, which saves the snapshot.
    warm = rdx.Graph.open(project, jobs=1)
    assert warm.open_stats["resolved"] is True and _chain(warm, "Object") == before
    answers = []
    for g in (cold, warm):
        g.index_source(uri, text)
        g.resolve()
        assert g.last_resolve == "incremental", g.last_fallback
        answers.append(_chain(g, name))
    scratch = tmp_path / "scratch"
    _write(scratch, {**files, path: text})
    answers.append(_chain(rdx.Graph.open(scratch, jobs=1), name))
    shutil.rmtree(scratch)
    return answers[0], answers[1], answers[2]


def test_a_lookup_in_an_edited_file_skips_a_constant_the_entry_point_loads_later(tmp_path: Path) -> None:
    """main.rb requires c.rb, then a.rb, which defines ``P::BasicObject``: while c.rb loads,
    ``BasicObject`` in ``module P`` is still ``::BasicObject``. By URI order a.rb would be a
    root of its own walked first, and the warm graph's edit found ``P::BasicObject``."""
    files = {
        "src/a.rb": "module P\n  class BasicObject\n  end\nend\n",
        "src/c.rb": "module P\n  class X < BasicObject\n  end\nend\n",
        "src/main.rb": 'require_relative "c"\nrequire_relative "a"\n',
        "rdx.toml": TOML,
    }
    edited = "module P\n  class X < BasicObject\n  end\n  class Y < BasicObject\n  end\nend\n"
    cold, warm, scratch = _cold_warm_fresh(tmp_path, files, ("src/c.rb", edited), "P::Y")
    probe = tmp_path / "ruby"
    _write(probe, {**files, "src/c.rb": edited})
    ruby = run_ruby(f'require_relative "{probe}/src/main"\nputs P::Y.ancestors.join(",")\n', tmp_path)
    assert ruby.strip().split(",") == ["P::Y", "BasicObject"]
    assert cold == warm == scratch == ["P::Y", "BasicObject"]


def _mixing(name: str, head: str = "") -> str:
    return f"{head}module {name}; end\nclass K\n  include {name}\nend\n"


def test_an_added_file_loads_after_the_entry_points_walk(tmp_path: Path) -> None:
    """A file added after a warm open, required by nothing, loads after everything the entry
    point requires and after the entry point itself: its mixin into ``K`` comes first in the
    chain. By URI order it sat between a.rb and main.rb."""
    files = {
        "src/a.rb": _mixing("Ma"),
        "src/c.rb": _mixing("Mc"),
        "src/main.rb": _mixing("Mmain", 'require_relative "c"\nrequire_relative "a"\n'),
        "rdx.toml": TOML,
    }
    cold, warm, scratch = _cold_warm_fresh(tmp_path, files, ("src/b.rb", _mixing("Mb")), "K")
    probe = tmp_path / "ruby"
    _write(probe, {**files, "src/b.rb": _mixing("Mb")})
    ruby = run_ruby(f'require_relative "{probe}/src/main"\nrequire_relative "{probe}/src/b"\nputs K.ancestors.join(",")\n', tmp_path)
    assert ruby.strip().split(",")[:5] == ["K", "Mb", "Mmain", "Ma", "Mc"]
    assert cold[:5] == warm[:5] == scratch[:5] == ["K", "Mb", "Mmain", "Ma", "Mc"]
