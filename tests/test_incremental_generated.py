"""Incremental updates on generated programs: the random Ruby programs of the differential
tests (nested and compact namespaces, reopenings across files, mixins, ``class << self``,
``module_function``, aliases, private constants, constant aliases) edited line by line at
random (lines deleted, duplicated, moved between files), each resolve compared with a graph
built from scratch. Broken syntax is allowed: the graph must still equal a fresh one."""

from __future__ import annotations

import collections
import random

import pytest
from rubygen import generate
from test_incremental import dump, fresh
from test_incremental_skeleton import fallback_reason


def mutate(files: dict[str, str], rng: random.Random) -> list[str]:
    """One random line edit; returns the names of the files it changed."""
    name = rng.choice(sorted(files))
    lines = files[name].split("\n")
    roll = rng.random()
    if roll < 0.4 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        changed = [name]
    elif roll < 0.7:
        lines.insert(rng.randint(0, len(lines)), rng.choice(lines))
        changed = [name]
    else:
        other = rng.choice(sorted(files))
        source = files[other].split("\n")
        lines.insert(rng.randint(0, len(lines)), rng.choice(source))
        changed = [name]
    files[name] = "\n".join(lines)
    return changed


# make check runs the first 20 seeds; the rest are marked corpus (make test runs all 80).
@pytest.mark.parametrize("seed", [s if s < 20 else pytest.param(s, marks=pytest.mark.corpus) for s in range(80)])
def test_random_line_edits_of_generated_programs_match_a_fresh_graph(seed):
    check_seed(seed, 6)


# Seeds beyond the 80 whose eighth edit or earlier once gave a graph unlike a fresh one (found by
# running seeds 80-400 for 8 edits each): a stale lookup cache in phase 1 and in additions, a
# name losing every body at once, a placeholder promoted where an earlier lookup made another;
# and, once a ``class << self`` body could go while the same edit adds namespaces, singleton
# classes of singleton classes declared on the way that nothing needed at the end (89, 337).
# From seeds 400-600: a chain diagnostic that phase 1 reported from namespaces declared so far
# and the final chain no longer has (596); a compact name that phase 1 places in a later round
# when the enclosing class's superclass changes (590); and, once Object's chain without core
# was right, a singleton class that an addition's chain declared, missing from the descendant
# index when a later step changed a chain that its chain holds (255).
@pytest.mark.corpus
@pytest.mark.parametrize("seed", [89, 145, 195, 255, 287, 304, 337, 590, 596])
def test_line_edits_that_once_went_wrong_match_a_fresh_graph(seed):
    check_seed(seed, 8)


def check_seed(seed: int, steps: int, outcomes: collections.Counter[str] | None = None, reasons: collections.Counter[str] | None = None) -> None:
    """``steps`` random line edits of generated program ``seed``, each resolve compared with a
    fresh graph (after ``prepare_queries``, as servers run); counts each resolve's
    ``last_resolve`` in ``outcomes`` and why the full ones fell back in ``reasons``
    (``bench/bench_fallbacks.py --generated``)."""
    rng = random.Random(seed)
    program = generate(seed)
    files = {f"file:///gen/{name}": text for name, text in program.files.items()}
    g = fresh(files, core=False)
    g.prepare_queries()
    for step in range(steps):
        for uri in mutate(files, rng):
            g.index_source(uri, files[uri])
        g.resolve()
        if outcomes is not None:
            outcomes[g.last_resolve] += 1
        if reasons is not None and g.last_resolve == "full":
            reasons[fallback_reason(g.last_fallback)] += 1
        assert dump(g) == dump(fresh(files, core=False)), f"seed {seed} step {step}\n" + "\n".join(f"# {u}\n{t}" for u, t in files.items())


# The first edit of these seeds re-reads a file's structure (a line gone, tree-sitter's recovery
# moves bodies), so that a constant's only assignment goes and comes back in the same namespace:
# the declaration stays, with the new assignment, instead of a full resolve.
@pytest.mark.parametrize("seed", [37, 47, 74])
def test_a_constant_an_edit_moves_within_its_namespace_keeps_its_declaration(seed):
    rng = random.Random(seed)
    files = {f"file:///gen/{name}": text for name, text in generate(seed).files.items()}
    g = fresh(files, core=False)
    for uri in mutate(files, rng):
        g.index_source(uri, files[uri])
    g.resolve()
    assert (g.last_resolve, g.last_fallback) == ("incremental", None)
    assert dump(g) == dump(fresh(files, core=False))
