"""Member edits (methods, attributes, aliases, variables, visibility) replay only the members
of the namespaces they touch; the property is that the result always equals a graph built
from scratch over the final files.

The project below spreads a hierarchy over four files (reopenings, mixins, a subclass chain)
and random edits insert, delete and replace member lines, so methods appear before and after
the ``private :m``, ``alias`` and ``remove_method`` lines of other files that name them. Now
and then an edit changes the skeleton (a mixin), which must resolve from scratch.
"""

from __future__ import annotations

import random

import pytest
from test_incremental import dump, fresh, fresh_dump

import rdx

# Each file is a list of namespace bodies: (opening lines, member lines); "end" closes each.
PROJECT: dict[str, list[tuple[list[str], list[str]]]] = {
    "file:///m/a.rb": [
        (["module M"], ["def a; end", "def b; @x = 1; end"]),
        (["class A", "  include M"], ["def c; end", "private :a"]),
    ],
    "file:///m/b.rb": [
        (["require_relative 'a'", "class B < A"], ["def d; end", "alias_method :e, :c"]),
        (["module N"], ["def f; end", "module_function :f"]),
    ],
    "file:///m/c.rb": [
        (["require_relative 'b'", "class C < B", "  include N"], ["def g; end", "protected :d"]),
        (["class A"], ["def h; end", "attr_accessor :k"]),
    ],
    "file:///m/d.rb": [
        (["module M"], ["def self.s; end", "@@v = 1"]),
        (["class D < C"], ["def a; super; end", "remove_method :g"]),
    ],
}

NAMES = ["a", "b", "c", "d", "g", "h", "k", "z"]
MEMBER_LINES = [
    "def {n}; end",
    "def {n}(x, y = 1); {m}(x); end",
    "def self.{n}; end",
    "def {n}; @{v} = {m}; end",
    "private :{n}",
    "protected :{n}",
    "public :{n}",
    "private",
    "alias_method :{n}2, :{m}",
    "alias {n}3 {m}",
    "attr_accessor :{n}",
    "attr_reader :{n}",
    "@@{v} = 1",
    "remove_method :{n}",
    "undef_method :{n}",
    "module_function :{n}",
    "private_class_method :{n}",
    "{m}",
]
SKELETON_LINES = ["include Comparable", "include M", "extend N"]
# Added namespaces and constants: fresh names take the incremental path unless something
# already mentions them; reopenings and colliding names resolve from scratch.
ADDED_LINES = [
    "class Fresh{k}; def a; end; end",
    "class Fresh{k} < A; def b; end; private :b; end",
    "module FreshM{k}; def c; end; module_function :c; end",
    "FRESH_{k} = 1",
    "class Fresh{k}; include M; def d; @x = 1; end; end",
    "class Fresh{k}; class << self; def e; end; end; end",
    "def use_fresh{k}; Fresh{k}.new; FreshM{k}; FRESH_{k}; end",
    "class A; end",
    "class Fresh{k} < Missing{k}; end",
    "def Fresh{k}.made; end",
    "private_constant :FRESH_{k}",
    "ALIAS_{k} = Fresh{k}",
]


def render(project: dict[str, list[tuple[list[str], list[str]]]]) -> dict[str, str]:
    files = {}
    for uri, blocks in project.items():
        out = []
        for opening, members in blocks:
            out.extend(opening)
            out.extend("  " + line for line in members)
            out.append("end")
        files[uri] = "\n".join(out) + "\n"
    return files


def member_line(rng: random.Random) -> str:
    return rng.choice(MEMBER_LINES).format(n=rng.choice(NAMES), m=rng.choice(NAMES), v=rng.choice("xyz"))


def edit(project: dict[str, list[tuple[list[str], list[str]]]], rng: random.Random) -> list[str]:
    """Apply one random edit; returns the URIs of the files it changed."""
    uri = rng.choice(sorted(project))
    opening, members = rng.choice(project[uri])
    roll = rng.random()
    if roll < 0.34 or not members:
        members.insert(rng.randint(0, len(members)), member_line(rng))
    elif roll < 0.65:
        del members[rng.randrange(len(members))]
    elif roll < 0.9:
        members[rng.randrange(len(members))] = member_line(rng)
    elif roll < 0.92:
        members.insert(rng.randint(0, len(members)), rng.choice(SKELETON_LINES))
    elif roll < 0.95:
        members.insert(rng.randint(0, len(members)), rng.choice(ADDED_LINES).format(k=rng.randint(0, 3)))
    elif roll < 0.99:
        # Remove an added namespace or constant again (anywhere in the project).
        places = [(m, i) for blocks in project.values() for _, m in blocks for i, line in enumerate(m) if "resh" in line or "ALIAS" in line]
        if places:
            where, i = rng.choice(places)
            del where[i]
            return sorted(u for u, blocks in project.items() if any(m is where for _, m in blocks))
    else:
        # Move a member line to another namespace body (a method moving between classes).
        line = members.pop(rng.randrange(len(members)))
        other = rng.choice(sorted(project))
        rng.choice(project[other])[1].append(line)
        return [uri, other]
    return [uri]


def resolve_and_compare(g: rdx.Graph, files: dict[str, str], seed: int) -> bool:
    """Resolve, check the graph equals one built from scratch, and say whether the resolve
    stayed incremental."""
    g.resolve()
    assert dump(g) == fresh_dump(files, core=False), f"seed {seed}\n" + "\n".join(f"# {u}\n{t}" for u, t in files.items())
    return g.last_resolve == "incremental"


def copy_project() -> dict[str, list[tuple[list[str], list[str]]]]:
    return {uri: [(list(o), list(m)) for o, m in blocks] for uri, blocks in PROJECT.items()}


def run_sequence(seed: int) -> tuple[int, int]:
    """Apply random edits; returns (resolves that replayed members, resolves in total)."""
    rng = random.Random(seed)
    project = copy_project()
    files = render(project)
    g = fresh(files, core=False)
    replayed = total = 0
    for _ in range(rng.randint(3, 8)):
        for _ in range(rng.randint(1, 2)):
            for uri in edit(project, rng):
                files = render(project)
                g.index_source(uri, files[uri])
        total += 1
        replayed += resolve_and_compare(g, files, seed)
    return replayed, total


def check_seeds(run, seeds: range) -> None:  # type: ignore[no-untyped-def]
    """Run ``run(seed)`` for each seed. The property would hold trivially if every resolve fell
    back to a full one, so at least a third must stay incremental."""
    replayed = total = 0
    for seed in seeds:
        r, t = run(seed)
        replayed += r
        total += t
    assert replayed >= total // 3, (replayed, total)


# make check runs chunk 0; the other chunks are marked corpus (make test runs all ten).
@pytest.mark.parametrize("chunk", [c if c == 0 else pytest.param(c, marks=pytest.mark.corpus) for c in range(10)])
def test_random_member_edits_match_a_fresh_graph(chunk):
    check_seeds(run_sequence, range(chunk * 30, chunk * 30 + 30))


def test_member_edit_in_a_superclass_reaches_subclasses():
    project = copy_project()
    g = fresh(render(project), core=False)
    assert g["C"].find_member("zz()") is None
    project["file:///m/a.rb"][1][1].append("def zz; end")
    g.index_source("file:///m/a.rb", render(project)["file:///m/a.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"
    found = g["D"].find_member("zz()")
    assert found is not None and found.name == "A#zz()"
    assert dump(g) == fresh_dump(render(project), core=False)


def test_a_change_reaches_descendants_through_an_alias_chain():
    # x's visibility flows into O#y (alias in another file), then into D#z (alias of y in a
    # subclass that never names x): D must be replayed although the edit does not name y or z.
    files = {
        "file:///chain/o.rb": "class O\n  def x; end\nend\n",
        "file:///chain/p.rb": "require_relative 'o'\nclass O\n  alias y x\nend\n",
        "file:///chain/q.rb": "require_relative 'p'\nclass D < O\n  alias z y\nend\n",
    }
    g = fresh(files, core=False)
    assert g["D#z()"].visibility == "public"
    files["file:///chain/o.rb"] = "class O\n  private\n  def x; end\nend\n"
    g.index_source("file:///chain/o.rb", files["file:///chain/o.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"
    assert g["O#y()"].visibility == "private"
    assert g["D#z()"].visibility == "private"
    assert dump(g) == fresh_dump(files, core=False)


def test_an_added_class_with_a_fresh_name_is_declared_incrementally():
    project = copy_project()
    # Another file already refers to the class (in a method body) before it exists.
    project["file:///m/d.rb"][1][1].append("def build; Widget.new; end")
    g = fresh(render(project), core=False)
    assert g.references_to("A") and not g.get("Widget")
    project["file:///m/b.rb"].append((["class Widget < B", "  include M"], ["def size; end", "CAP = 3"]))
    g.index_source("file:///m/b.rb", render(project)["file:///m/b.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"  # declared without a full resolve
    assert [a.name for a in g["Widget"].ancestors][:4] == ["Widget", "B", "A", "M"]  # as Ruby: M is already there
    assert [r.location.path for r in g.references_to("Widget")] == ["/m/d.rb"]
    assert "Widget::CAP" in g and "Widget#size()" in g and g["Widget"].singleton_class is not None
    assert dump(g) == fresh_dump(render(project), core=False)


@pytest.mark.parametrize(
    "mention",
    [
        "class A\n  def Widget.made; end\nend\n",  # a method receiver
        "module Box\n  Widget = 1\nend\nmodule Box\n  private_constant :Widget\nend\n",  # visibility, other scope
        "WidgetAlias = Widget\n",  # an alias target
        "Widget.include(M)\n",  # an external mixin target
        "class A\n  include Widget\nend\n",  # a mixin (a placeholder until Widget exists)
    ],
)
def test_adding_a_name_that_another_file_mentions_matches_a_fresh_graph(mention):
    files = render(PROJECT)
    files["file:///m/e.rb"] = mention
    g = fresh(files, core=False)
    files["file:///m/b.rb"] += "module Widget\n  def w; end\nend\n"
    g.index_source("file:///m/b.rb", files["file:///m/b.rb"])
    g.resolve()
    assert dump(g) == fresh_dump(files, core=False)


def test_removing_a_class_nothing_else_needs_is_incremental():
    project = copy_project()
    project["file:///m/b.rb"].append((["class Gadget < B"], ["def size; end", "LIMIT = 3", "def self.build; end"]))
    project["file:///m/d.rb"][1][1].append("def make; Gadget.new; end")
    g = fresh(render(project), core=False)
    assert [r.location.path for r in g.references_to("Gadget")] == ["/m/d.rb"]
    project["file:///m/b.rb"].pop()
    g.index_source("file:///m/b.rb", render(project)["file:///m/b.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"  # removed without a full resolve
    assert "Gadget" not in g and "Gadget::LIMIT" not in g and "Gadget#size()" not in g and "Gadget::<Gadget>" not in g
    assert dump(g) == fresh_dump(render(project), core=False)


def run_add_remove_sequence(seed: int) -> tuple[int, int]:
    """Edits that mostly add and remove namespaces and constants; (replayed, total) resolves."""
    rng = random.Random(seed)
    project = copy_project()
    g = fresh(render(project), core=False)
    replayed = total = 0
    for _ in range(10):
        roll = rng.random()
        places = [(u, m, i) for u, blocks in project.items() for _, m in blocks for i, line in enumerate(m) if "resh" in line or "ALIAS" in line]
        reopenings = [(u, b) for u, blocks in project.items() for b in blocks if b[0] and b[0][-1].endswith("# reopened")]
        if roll < 0.35 or not places:
            uri = rng.choice(sorted(project))
            members = rng.choice(project[uri])[1]
            members.insert(rng.randint(0, len(members)), rng.choice(ADDED_LINES).format(k=rng.randint(0, 5)))
            changed = [uri]
        elif roll < 0.45:
            # A new top-level block reopening an existing namespace (or, for C and D in a file
            # loaded before them, declaring them early).
            uri = rng.choice(sorted(project))
            opening = rng.choice(["class A", "class B < A", "module M", "module N", "class C", "class D"])
            body = [rng.choice(["def r{k}; end", "FRESH_{k} = 1", "class Fresh{k}; end", "private :c", "alias_method :r{k}, :c"]).format(k=rng.randint(0, 5))]
            project[uri].insert(rng.randint(0, len(project[uri])), ([opening + "  # reopened"], body))
            changed = [uri]
        elif roll < 0.55 and reopenings:
            uri, block = rng.choice(reopenings)
            project[uri].remove(block)
            changed = [uri]
        elif roll < 0.8:
            uri, members, i = rng.choice(places)
            del members[i]
            changed = [uri]
        else:
            changed = edit(project, rng)
        files = render(project)
        for uri in changed:
            g.index_source(uri, files[uri])
        total += 1
        replayed += resolve_and_compare(g, files, seed)
    return replayed, total


# make check runs chunk 0; the other chunks are marked corpus (make test runs all four).
@pytest.mark.parametrize("chunk", [c if c == 0 else pytest.param(c, marks=pytest.mark.corpus) for c in range(4)])
def test_random_additions_and_removals_match_a_fresh_graph(chunk):
    check_seeds(run_add_remove_sequence, range(chunk * 25, chunk * 25 + 25))


def test_a_class_added_incrementally_is_seen_as_a_descendant_by_later_edits():
    project = copy_project()
    g = fresh(render(project), core=False)
    g._resolver.linearizer.descendants()  # The replay's descendant index exists before the addition.
    project["file:///m/b.rb"].append((["class Kid < A"], ["alias kid_c c"]))
    g.index_source("file:///m/b.rb", render(project)["file:///m/b.rb"])
    g.resolve()
    assert g["Kid#kid_c()"].visibility == "public"
    project["file:///m/a.rb"][1][1].append("private :c")  # In A, loaded before Kid's alias.
    g.index_source("file:///m/a.rb", render(project)["file:///m/a.rb"])
    g.resolve()
    assert g.last_resolve == "incremental"
    assert g["Kid#kid_c()"].visibility == "private"
    assert dump(g) == fresh_dump(render(project), core=False)
