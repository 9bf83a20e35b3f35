"""A full resolve of a small project starts from Ruby core resolved alone and adds the
project's documents (``rdx.ruby.resolve.base``): its state must be exactly the state of a
resolve from scratch of the same documents, whatever the project does to core's classes, and
the base must come out of every graph unchanged. (``RDX_CORE_BASE_CHECK=1`` makes every such
resolve of a test run compare itself with one from scratch: see ``tests/conftest.py``.)"""

from __future__ import annotations

import random

import pytest
from conftest import canonical_state, scratch_state_of
from rubygen import generate
from test_incremental import BASE, dump, fresh
from test_incremental_generated import mutate

import rdx
from rdx.api.persisting import core_base, core_document
from rdx.ruby.resolve.base import MAX_BASE_DOCUMENTS

# A project that writes into core: reopened core classes and modules, methods on Object and
# Kernel, a mixin into a core class, aliases of core methods and constants, a subclass of a core
# class, a constant alias of a core module, singleton methods of core classes, visibility
# changes of inherited core methods.
INTO_CORE = {
    "file:///core_user/a.rb": """\
class String
  def shout
    upcase + "!"
  end
  alias_method :yell, :shout
  private :length
end

module Kernel
  def helper_everywhere; end
end

def top_level_method; end

module Greeting
  def greet; "hi"; end
end

class Integer
  class << self
    def parse_loose(x); end
  end
end

Enum = Enumerable
""",
    "file:///core_user/b.rb": """\
require_relative "a"

class Name < String
  include Comparable
  def <=>(other); end
end

class Array
  include Greeting
  def second; self[1]; end
end

class Hash
  alias each_entry each
end

X = Name.new.shout.yell
Y = Enum
""",
}


@pytest.fixture(scope="module", autouse=True)
def base_ready():
    """The base is built on a process's second ask (a process that resolves once never pays for
    it): asked twice here, so that the first resolve of these tests already uses it."""
    core = core_document()
    core_base(core)
    assert core_base(core) is not None


def indexed(files: dict[str, str]) -> rdx.Graph:
    g = rdx.Graph()
    for uri, text in files.items():
        g.index_source(uri, text)
    return g


def resolved_on_core(files: dict[str, str]) -> rdx.Graph:
    g = indexed(files)
    g.resolve()
    assert g.last_resolve == "full" and g.last_start == "core"
    return g


@pytest.mark.parametrize("files", [BASE, INTO_CORE], ids=["shop", "into core"])
def test_a_small_project_resolved_on_core_is_the_project_resolved_from_scratch(files):
    g = resolved_on_core(files)
    assert canonical_state(g._view.state) == canonical_state(scratch_state_of(g))
    assert dump(g) == dump(fresh(files))


def test_what_a_project_writes_into_core_is_there():
    g = resolved_on_core(INTO_CORE)
    assert g["String#shout()"].owner.name == "String"
    assert "Greeting" in [a.name for a in g["Array"].ancestors]
    assert "Comparable" in [a.name for a in g["Name"].ancestors]
    assert g["Y"] is not None


def test_the_base_is_unchanged_by_the_graphs_built_on_it():
    base = core_base(core_document())
    before = canonical_state(base.fork().state)
    for files in (INTO_CORE, BASE, INTO_CORE):
        g = resolved_on_core(files)
        # And edits after it: each an incremental update of the graph, never of the base.
        uri = sorted(files)[0]
        g.index_source(uri, files[uri] + "\nclass String\n  def whisper; end\nend\nmodule Kernel\n  def more; end\nend\n")
        g.resolve()
        assert g.last_resolve == "incremental"
    assert canonical_state(base.fork().state) == before
    # A graph of core alone, from scratch, is what the base holds.
    core_only = rdx.Graph()
    core_only.resolve(from_scratch=True)
    assert canonical_state(core_only._view.state) == before


# make check runs the first 3 seeds; make test all 12.
@pytest.mark.parametrize("seed", [s if s < 3 else pytest.param(s, marks=pytest.mark.slow) for s in range(12)])
def test_generated_programs_and_their_edits_match_a_resolve_from_scratch(seed):
    """The differential tests' random programs (nested and compact namespaces, reopenings
    across files, mixins, ``class << self``, aliases, private constants), then random line
    edits (each graph resolved anew, from the resolved core when that applies)."""
    rng = random.Random(seed)
    files = {f"file:///gen/{name}": text for name, text in generate(seed).files.items()}
    assert len(files) <= MAX_BASE_DOCUMENTS
    for step in range(4):
        g = indexed(files)
        g.resolve()
        assert dump(g) == dump(fresh(files)), f"seed {seed} step {step}: {g.last_start}"
        if g.last_start == "core":
            assert canonical_state(g._view.state) == canonical_state(scratch_state_of(g))
        mutate(files, rng)


def test_edits_after_a_resolve_on_core_match_a_fresh_graph():
    files = dict(BASE)
    g = resolved_on_core(files)
    files["file:///inc/b.rb"] = files["file:///inc/b.rb"].replace("class Special < Item", "class Special < Shop::Item\n    include Comparable")
    files["file:///inc/d.rb"] = "module Shop\n  class Extra < Special; end\nend\n"
    for uri in ("file:///inc/b.rb", "file:///inc/d.rb"):
        g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))
    g.delete_document("file:///inc/a.rb")
    del files["file:///inc/a.rb"]
    g.resolve()
    assert dump(g) == dump(fresh(files))


def test_when_the_base_does_not_apply(monkeypatch):
    # From scratch when asked, when the environment says so, for a bigger project and for a
    # graph without core; the same answers each way.
    g = indexed(BASE)
    g.resolve(from_scratch=True)
    assert g.last_start == "scratch"
    monkeypatch.setenv("RDX_CORE_BASE", "0")
    g = indexed(BASE)
    g.resolve()
    assert g.last_start == "scratch"
    monkeypatch.delenv("RDX_CORE_BASE")
    many = {f"file:///many/f{i}.rb": f"class F{i}\n  def m{i}; end\nend\n" for i in range(MAX_BASE_DOCUMENTS + 1)}
    g = indexed(many)
    g.resolve()
    assert g.last_start == "scratch"
    assert dump(g) == dump(fresh(many))
    g = rdx.Graph(core=False)
    g.index_source("file:///x.rb", "class X; end\n")
    g.resolve()
    assert g.last_start == "scratch"


def test_an_addition_the_updater_cannot_make_resolves_from_scratch():
    """Reopening ``class Object`` in a file is an addition the incremental updater leaves to a
    full resolve ("Object reopens its own scope"): the resolve then starts from scratch and
    gives the same graph, with nothing reported."""
    files = dict(INTO_CORE)
    files["file:///core_user/c.rb"] = "class Object\n  include Greeting\nend\n"
    g = indexed(files)
    g.resolve()
    assert g.last_start == "scratch"
    assert dump(g) == dump(fresh(files))
    assert "Greeting" in [a.name for a in g["Object"].ancestors]
    assert not [d for d in g.diagnostics if d.code == "internal-error"]
