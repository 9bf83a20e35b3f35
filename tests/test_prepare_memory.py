"""A warm graph prepared for queries (``Graph.prepare_queries``), as the servers hold it.

A warm open publishes the saved image's tables; ``prepare_queries`` restores the resolver over
those same tables, lets go of the pages of the mapped image it read (issue 21: they would
stay resident on top of everything decoded from them), and makes the big tables the kind
updates share. These tests check that the view and the resolver then answer from one state,
that nothing read again from the released file differs, and that answers and the following
incremental edits are those of a graph resolved from scratch. None of them measures memory.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

import pytest
from conftest import write
from test_incremental import dump
from test_warm_lazy import saved_project

import rdx
import rdx.ruby.resolve.image as image_module
from rdx.ruby.resolve.edits import SHARED_TABLES, shared_kind

FILES = {
    "lib/shop.rb": "module Shop\n  module Priced\n    def price; end\n  end\n  class Item\n    include Priced\n    def <=>(o) = price <=> o.price\n  end\nend\n",
    "lib/special.rb": "require_relative 'shop'\nmodule Shop\n  class Special < Item\n    alias cost price\n    def self.build = new\n  end\nend\n",
    "lib/use.rb": "class Report\n  def run = Shop::Special.build.cost\nend\n",
    "lib/other.rb": "class Other\n  def a = 1\nend\n",
    "lib/more.rb": "module More\n  class Thing < Other\n    def b = a\n  end\nend\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose snapshot and resolved graph are saved in its cache."""
    return saved_project(tmp_path, FILES)


@pytest.fixture
def released(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each resolver restored from a saved image let go of: the object behind the
    image's bytes (an ``mmap`` when it was read from its file)."""
    seen: list[Any] = []
    let_go = image_module._let_go_of_pages

    def spy(image: Any) -> None:
        seen.append(image.declaration_records.obj)
        let_go(image)

    monkeypatch.setattr(image_module, "_let_go_of_pages", spy)
    return seen


def from_scratch(root: Path) -> rdx.Graph:
    g = rdx.Graph()
    g.index_all([root])
    g.resolve(from_scratch=True)
    return g


def edit(g: rdx.Graph, root: Path, rel: str, text: str) -> None:
    write(root / rel, text)
    g.index_source(str(root / rel), text)
    g.resolve()


def test_prepared_view_and_resolver_answer_from_one_state(project: Path) -> None:
    g = rdx.Graph.open(project)
    assert g.open_stats.get("resolved")
    g.prepare_queries()
    view, resolver = g._view, g._resolver
    assert view is not None and resolver is not None
    state = resolver.binding.state
    # One state, not an equal copy: every big table is held once, in the kind updates share.
    assert view.state is state and g._store.resolved is state
    for name in SHARED_TABLES:
        assert type(getattr(state, name)) is shared_kind(name), name
    assert dump(g) == dump(from_scratch(project))


def test_the_released_image_is_read_again_from_its_file(project: Path, released: list[Any]) -> None:
    g = rdx.Graph.open(project)
    # Nothing decoded before the resolver is restored: every record is read after the pages
    # were let go of (the first answer decodes from the file again).
    g.prepare_queries()
    assert len(released) == 1 and isinstance(released[0], mmap.mmap)
    assert dump(g) == dump(from_scratch(project))


def test_an_edit_first_restores_the_resolver_then_answers_as_from_scratch(project: Path, released: list[Any]) -> None:
    g = rdx.Graph.open(project)
    assert g["Shop::Item"] is not None
    edit(g, project, "lib/other.rb", FILES["lib/other.rb"].replace("def a = 1", "def a = 1\n  def c = 3"))
    assert g.last_resolve == "incremental", g.last_fallback
    assert len(released) == 1
    assert "Other#c()" in g
    assert dump(g) == dump(from_scratch(project))


@pytest.mark.parametrize(
    "rel, text",
    [
        ("lib/other.rb", FILES["lib/other.rb"].replace("def a = 1", "def a = 2")),  # Inside a body.
        ("lib/more.rb", FILES["lib/more.rb"].replace("def b = a", "def b = a\n    def d = b")),  # A member added.
        ("lib/added.rb", "class Added < Other\n  def e = a\nend\n"),  # A document added.
    ],
)
def test_edits_after_prepare_are_those_of_a_fresh_resolve(project: Path, rel: str, text: str) -> None:
    g = rdx.Graph.open(project)
    g.prepare_queries()
    edit(g, project, rel, text)
    assert g.last_resolve == "incremental", g.last_fallback
    assert dump(g) == dump(from_scratch(project))
    # A second prepare (the next idle time) changes no answer.
    g.prepare_queries()
    assert dump(g) == dump(from_scratch(project))


def test_an_image_held_in_memory_is_left_as_it_is(tmp_path: Path, released: list[Any]) -> None:
    root = tmp_path / "project"
    for rel, text in FILES.items():
        write(root / rel, text)
    # Cold: resolved here, starting from Ruby core's image held in memory (``resolve.base``).
    g = rdx.Graph.open(root)
    g.prepare_queries()
    assert not any(isinstance(obj, mmap.mmap) for obj in released)
    assert dump(g) == dump(from_scratch(root))
