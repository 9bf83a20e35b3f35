"""Resolution passes built and run alone (issue 21): each pass takes the parts it writes and the
passes it calls, and nothing else, so a test can wire just the ones it needs. What the passes
compute alone is checked against Ruby where Ruby can answer, and against the whole resolver."""

from __future__ import annotations

import gc
import shutil
import subprocess
import weakref

import pytest

from rdx.model.store import ResolvedState
from rdx.ruby.discover.parse import discover_source
from rdx.ruby.resolve.ancestors import Ancestors, Chains, Linearization
from rdx.ruby.resolve.builder import Build, Builder
from rdx.ruby.resolve.concerns import ConcernBook, Concerns
from rdx.ruby.resolve.driver import Resolver
from rdx.ruby.resolve.loadcalls import LoadCallBook, LoadCalls
from rdx.ruby.resolve.lookup import Binding, Lookup
from rdx.ruby.resolve.members import MemberBook, Members
from rdx.ruby.resolve.namespaces import ExternalBook, Namespaces
from rdx.ruby.resolve.order import keyed, load_order

SOURCE = """\
module M
  def from_m; end
end
module P
  def both; end
end
class A
  include M
  def both; end
end
class B < A
  prepend P
  def own; end
end
class A
  def later; end
end
"""


def documents(source: str) -> dict:
    return keyed(load_order([discover_source("file:///passes/a.rb", source.encode())]))


def new_state(docs: dict) -> ResolvedState:
    state = ResolvedState(documents=docs)
    state.definition_declarations = {key: [None] * len(d.definitions) for key, d in docs.items()}
    return state


class Skeleton:
    """Only the passes that declare namespaces and linearize them: no members, references,
    image or updates."""

    def __init__(self, source: str) -> None:
        state = new_state(documents(source))
        self.binding = Binding(state)
        self.lookup = Lookup(state)
        self.binding.join(self.lookup)
        caches, build, concern_book, externals = self.lookup.caches, Build(), ConcernBook(), ExternalBook()
        self.build = build
        self.builder = Builder(self.binding, build=build, caches=caches, lookup=self.lookup)
        loadcalls = LoadCalls(self.binding, load_book=LoadCallBook(), lookup=self.lookup)
        concerns = Concerns(self.binding, concern_book=concern_book, lookup=self.lookup)
        self.linearizer = Ancestors(
            self.binding, build=build, builder=self.builder, caches=caches, chains=Chains(state), concern_book=concern_book, concerns=concerns, externals=externals, lookup=self.lookup
        )
        self.lookup.use_chains(Linearization(self.linearizer))
        self.namespaces = Namespaces(
            self.binding, builder=self.builder, externals=externals, linearizer=self.linearizer, load_book=loadcalls.load_book, loadcalls=loadcalls, lookup=self.lookup
        )
        self.builder.bootstrap()
        self.namespaces.phase_namespaces()
        self.linearizer.invalidate()
        self.namespaces.collect_external_mixins()

    def ancestors(self, name: str) -> list[str]:
        decls = self.binding.state.declarations
        return [decls[a].name for a in self.lookup.ancestors(self.binding.state.by_name[name])]


def ruby_ancestors(source: str, name: str) -> list[str]:
    out = subprocess.run(["ruby", "-e", source + f"\nputs {name}.ancestors.map(&:to_s)"], capture_output=True, text=True, check=True, timeout=60)
    return out.stdout.split()


def test_the_builder_alone_declares_placeholders_and_singleton_classes():
    state = new_state(documents("x = 1\n"))
    binding = Binding(state)
    lookup = Lookup(state)
    binding.join(lookup)
    builder = Builder(binding, build=Build(), caches=lookup.caches, lookup=lookup)
    builder.bootstrap()
    assert {"BasicObject", "Object", "Kernel", "Module", "Class"} <= set(state.by_name)
    # ``A::B`` with nothing defined: both segments become ``Todo`` placeholders, A owning B.
    path = discover_source("file:///passes/b.rb", b"class A::B; end\n").definitions[0].path
    assert path is not None
    b = builder.placeholder(path, (), len(path.segments))
    decls = binding.state.declarations
    assert decls[b].name == "A::B" and decls[b].kind == "Todo"
    assert decls[decls[b].owner].name == "A" and decls[decls[b].owner].kind == "Todo"
    single = builder.singleton(b)
    assert decls[single].name == "A::B::<B>" and decls[single].attached == b
    # A lookup over the same tables finds what the builder declared.
    assert lookup.lookup_path(path, ()) == b


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_namespaces_and_linearization_alone_give_rubys_ancestors():
    passes = Skeleton(SOURCE)
    for name in ("A", "B", "M"):
        ruby = ruby_ancestors(SOURCE, name)
        ours = passes.ancestors(name)
        # The stub of core classes is not indexed here: Ruby's Kernel and BasicObject are
        # compared as far as the bootstrap declares them.
        assert [n for n in ours if n in ruby] == [n for n in ruby if n in ours]
        assert [n for n in ruby if n not in ("Object", "Kernel", "BasicObject", "PP::ObjectMixin")] == [n for n in ours if n not in ("Object", "Kernel", "BasicObject")]
    # No member was declared: that is the members pass's job, which did not run.
    assert "A#both()" not in passes.binding.state.by_name


@pytest.mark.skipif(shutil.which("ruby") is None, reason="needs ruby")
def test_the_members_pass_added_to_the_skeleton_finds_rubys_method_owners():
    passes = Skeleton(SOURCE)
    members = Members(passes.binding, build=passes.build, builder=passes.builder, lookup=passes.lookup, member_book=MemberBook(passes.binding.state.documents))
    members.phase_members()
    state = passes.binding.state
    script = SOURCE + "\n" + "\n".join(f"puts B.instance_method(:{m}).owner" for m in ("from_m", "both", "own", "later"))
    owners = subprocess.run(["ruby", "-e", script], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    ours = []
    for m in ("from_m", "both", "own", "later"):
        found = passes.lookup.find_member(state.by_name["B"], f"{m}()")
        assert found is not None, m
        ours.append(state.declarations[state.declarations[found].owner].name)
    assert ours == owners


def test_passes_alone_agree_with_the_whole_resolver():
    whole = Resolver(documents(SOURCE))
    state = whole.run()
    passes = Skeleton(SOURCE)
    for name in ("A", "B", "M", "P"):
        assert passes.ancestors(name) == [state.declarations[a].name for a in state.ancestors[state.by_name[name]]]


def test_a_dropped_resolver_goes_at_once_without_the_collector():
    """The passes refer to each other in one direction only, and to their binding, which holds
    them weakly: dropping a resolver frees it even with the cyclic collector off (servers run
    with it frozen)."""
    # No gc.collect() first: it would free nothing this test makes, and in a test process that
    # has run hundreds of tests a full collection takes seconds.
    gc.disable()
    try:
        resolver = Resolver(documents(SOURCE))
        resolver.run()
        resolver.refresh_members(discover_source("file:///passes/a.rb", (SOURCE + "class C < B; end\n").encode()))
        gone = weakref.ref(resolver)
        linearizer = weakref.ref(resolver.linearizer)
        del resolver
        assert gone() is None and linearizer() is None
    finally:
        gc.enable()
