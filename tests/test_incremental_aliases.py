"""Random edits around constant aliases (issue 21): aliases added, removed and assigned again,
with what depends on them in other files: a namespace body written under the alias name
(which reopens the alias's target), a mixin of it, a singleton method on it, a compact name
through it, an alias of it, references through it. Every resolve must equal a graph built
from scratch over the same files; the edits that other files' definitions depend on go around
those files (``Incremental._detour``), and the count of resolves that still fell back, with
their reasons, is printed (``-s``)."""

from __future__ import annotations

import collections
import random

import pytest
from test_incremental import dump, fresh

TARGETS = "module Target\n  K = 1\n  def self.make = 1\nend\nmodule Other\n  K = 2\n  def self.make = 2\nend\n"
CHUNKS = [
    "Y = Target\n",
    "Y = Other\n",
    "Z = Y\n",
    "module Y\n  class Inner\n  end\nend\n",
    "class Mixer\n  include Y\nend\n",
    "def Y.extra = 2\n",
    "class User\n  def f\n    Y.make\n    Y::K\n    Z::K\n  end\nend\n",
    "class Y::Deep\nend\n",
    "class << Y\n  def s = 1\nend\n",
    "X = Z\n",
    "class Sub < Y::Inner\nend\n",
]
FILES = ["file:///ax/b.rb", "file:///ax/c.rb", "file:///ax/d.rb"]


def render(project: dict[str, list[int]]) -> dict[str, str]:
    files = {"file:///ax/a.rb": TARGETS}
    files.update({uri: "".join(CHUNKS[c] for c in chunks) for uri, chunks in project.items()})
    return files


def run_alias_sequence(seed: int, reasons: collections.Counter[str], steps: int = 8) -> tuple[int, int]:
    """``steps`` random edits from ``seed``, each resolved and compared with a fresh graph;
    returns (incremental, total) and counts in ``reasons`` why the others fell back."""
    rng = random.Random(seed)
    project = {uri: rng.sample(range(len(CHUNKS)), 2) for uri in FILES}
    files = render(project)
    g = fresh(files, core=False)
    g.prepare_queries()
    incremental = total = 0
    for _ in range(steps):
        uri = rng.choice(FILES)
        chunks = project[uri]
        chunk = rng.randrange(len(CHUNKS))
        if chunk in chunks:
            chunks.remove(chunk)
        else:
            chunks.insert(rng.randint(0, len(chunks)), chunk)
        files = render(project)
        g.index_source(uri, files[uri])
        g.resolve()
        total += 1
        if g.last_resolve == "incremental":
            incremental += 1
        elif g.last_resolve == "full":
            reasons[(g.last_fallback or "").split(": ", 1)[-1]] += 1
        assert dump(g) == dump(fresh(files, core=False)), f"seed {seed}\n" + "\n".join(f"# {u}\n{t}" for u, t in sorted(files.items()))
    return incremental, total


# 400 random resolves, each compared with a fresh graph: slow by make check's rule (hundreds of
# random examples); the tier keeps the alias cases of tests/test_incremental_removals.py.
@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(2))
def test_random_alias_edits_match_a_fresh_graph(chunk):
    reasons: collections.Counter[str] = collections.Counter()
    incremental = total = 0
    for seed in range(chunk * 25, chunk * 25 + 25):
        i, t = run_alias_sequence(seed, reasons)
        incremental += i
        total += t
    print(f"alias edits: {incremental} of {total} incremental")
    for reason, n in reasons.most_common():
        print(f"{n:5d}  {reason}")


def test_an_alias_assigned_again_to_what_it_names_is_incremental(tmp_path):
    # A line duplicated (``Y = Target`` twice, or once more in a later file): the alias names
    # the same namespace wherever it is followed, so the assignment joins its declaration
    # (``SkeletonEdits._assigned_again``). Ruby warns and keeps Target.
    from conftest import run_ruby
    from test_incremental_placeholders import replay

    files = {"file:///aa/a.rb": TARGETS + "Y = Target\n", "file:///aa/b.rb": "module Y\n  class Inner\n  end\nend\nclass User\n  def f = Y::K\nend\n"}
    twice = TARGETS + "Y = Target\nY = Target\n"
    later = "Y = Target\n" + files["file:///aa/b.rb"]
    steps = [("file:///aa/a.rb", twice), ("file:///aa/a.rb", files["file:///aa/a.rb"]), ("file:///aa/b.rb", later)]
    assert replay(files, steps) == [None, None, None]
    assert run_ruby(twice + later + "p Y.equal?(Target), Target::Inner\n", tmp_path).split("\n")[:2] == ["true", "Target::Inner"]


@pytest.mark.parametrize("target", ["::E", "Target"])
def test_an_alias_moved_into_another_body_of_its_namespace_is_incremental(target: str) -> None:
    # A method's ``end`` deleted above: the compact ``module E::A`` after it is read inside
    # ``module E`` (tree-sitter's recovery), so its alias is removed and added back in the same
    # namespace. It keeps its declaration with the new assignment only, and names what the new
    # lexical scope finds (``Target`` is E::Target inside E, ::Target outside).
    from test_incremental_placeholders import replay

    before = f"module E\n  def self.p\n    1\n  end\n  def self.q\n  end\nend\nmodule E::A\n  AK = {target}\n  def self.r = AK::K\nend\n"
    before += "class U\n  def f = E::A::AK::K\nend\n"
    after = before.replace("    1\n  end\n", "    1\n")
    files = {"file:///aa/a.rb": "module Target\n  K = 1\nend\nmodule E\n  K = 3\n  module Target\n    K = 2\n  end\nend\n", "file:///aa/b.rb": before}
    assert replay(files, [("file:///aa/b.rb", after), ("file:///aa/b.rb", before)]) == [None, None]


@pytest.mark.parametrize("through", ["AL", "AK"])
def test_a_chain_change_reaches_references_through_an_alias(through: str, tmp_path) -> None:
    # ``AL = D`` (and ``AK = AL``): ``AL::Z`` looks Z up in D's chain. D gaining a superclass in
    # another file changes what it finds, so the documents naming an alias of D are read again
    # (``Mentions.aliases_leading_to``), as those naming D are.
    from conftest import run_ruby
    from test_incremental_placeholders import replay

    files = {
        "file:///ac/a.rb": "module M\n  Z = 1\nend\nclass Base\n  include M\nend\nclass D\nend\nAL = D\nAK = AL\n",
        "file:///ac/b.rb": f"class User\n  def f = {through}::Z\nend\n",
        "file:///ac/c.rb": "class D\nend\n",
    }
    assert replay(files, [("file:///ac/c.rb", "class D < Base\nend\n"), ("file:///ac/c.rb", "class D\nend\n")]) == [None, None]
    program = files["file:///ac/a.rb"].replace("class D\nend\n", "class D < Base\nend\n") + f"p {through}::Z\n"
    assert run_ruby(program, tmp_path).strip() == "1"
