"""Deep nesting costs linear time and memory, and nesting past the limits is a diagnostic.

Hostile files (100,000 nested modules, blocks or ``Class.new`` bodies; 2,000 nested modules
beside a ``db/schema.rb``; directives at the bottom of deep blocks) are indexed in a subprocess
limited to 2 GB of address space, with worker processes as ``rdx index`` uses them; the timeout
is a liveness bound, not a measurement. Each must finish with one "too-deep" diagnostic on the
hostile file and the project's other files indexed. Nesting up to the limit is indexed in full,
and an edit across the limit resolves incrementally to what a fresh graph holds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_incremental import dump, fresh

from rdx.ruby.discover.parse import MAX_NESTING, MAX_SYNTAX_DEPTH

MEMORY_LIMIT = 2 * 1024**3
LIVENESS = 60  # seconds; far above what the cases take, only so a regression fails instead of hanging

GOOD = "module Good\n  def ok; end\nend\n"
SCHEMA = 'ActiveRecord::Schema.define do\n  create_table "users" do |t|\n    t.string "name"\n  end\nend\n'
USER = "class User < ApplicationRecord\nend\n"


def modules(depth: int, body: str = "def deepest; end\n", name: str = "M") -> str:
    return "".join(f"module {name}{i}\n" for i in range(depth)) + body + "end\n" * depth


def compact(levels: int, body: str = "") -> str:
    """``levels`` compact names (``module P0::Q0``), each two levels deep, whose first segment
    is declared just before, so that every name nests in the one around it."""
    return "".join(f"module P{i}; end\nmodule P{i}::Q{i}\n" for i in range(levels)) + body + "end\n" * levels


def compact_name(levels: int) -> str:
    return "::".join(f"P{i}::Q{i}" for i in range(levels))


def nested(opening: str, closing: str, depth: int, head: str = "", tail: str = "") -> str:
    return head + opening * depth + closing * depth + tail


# name -> (files of the project, declarations that must be present)
HOSTILE: dict[str, tuple[dict[str, str], list[str]]] = {
    "modules_100k": ({"deep.rb": modules(100_000), "good.rb": GOOD}, ["Good#ok()", "M0", "M0::M1"]),
    "modules_2000_with_schema": (
        {"deep.rb": modules(2_000), "good.rb": GOOD, "db/schema.rb": SCHEMA, "app/models/user.rb": USER},
        ["Good#ok()", "User#name()", "User#name_changed?()"],
    ),
    "compact_names_50k": ({"deep.rb": compact(50_000), "good.rb": GOOD}, ["Good#ok()", "P0::Q0", compact_name(MAX_NESTING // 2)]),
    "class_new_100k": ({"deep.rb": nested("X = Class.new do\n", "end\n", 100_000), "good.rb": GOOD}, ["Good#ok()", "X"]),
    "blocks_100k": ({"deep.rb": nested("f {\n", "}\n", 100_000, tail="class After; end\n"), "good.rb": GOOD}, ["Good#ok()", "After"]),
    # Directives and splatted constants at every level of deep blocks used to walk up all the
    # parents from each (tree-sitter's ``parent`` is itself O(depth)): cubic in the depth.
    "directives_in_blocks_20k": (
        {"deep.rb": nested("f {\nattr_reader(*NAMES)\ninclude Comparable\n", "}\n", 20_000, head="class A\nNAMES = %i[a b]\n", tail="def after; end\nend\n"),
         "good.rb": GOOD},
        ["Good#ok()", "A#a()", "A#after()"],
    ),
}
# Diagnostics a case gets besides "too-deep": ``include`` in the block of an unknown method
# (``f { include Comparable }``) is left out with a note (tests/test_mixins_in_blocks.py).
OTHER_DIAGNOSTICS = {"directives_in_blocks_20k": [["deep.rb", "mixin-in-block"]]}

_DRIVER = textwrap.dedent(
    """
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    import rdx
    g = rdx.Graph()
    g.index_all([sys.argv[1]], jobs=2)
    g.resolve()
    wanted = json.loads(sys.argv[2])
    print(json.dumps({{
        "present": [name for name in wanted if name in g],
        "diagnostics": sorted({{(d.path.rsplit("/", 1)[-1], d.code) for d in g.diagnostics}}),
    }}))
    """
)


def index_in_subprocess(root: Path, wanted: list[str]) -> dict:
    driver = _DRIVER.format(limit=MEMORY_LIMIT)
    done = subprocess.run([sys.executable, "-c", driver, str(root), json.dumps(wanted)], capture_output=True, text=True, timeout=LIVENESS)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


# make check runs the 2,000-deep case; the 20,000- to 100,000-deep files are scale tests, marked
# corpus (make test runs them all).
@pytest.mark.parametrize("case", [c if c == "modules_2000_with_schema" else pytest.param(c, marks=pytest.mark.corpus) for c in sorted(HOSTILE)])
def test_hostile_nesting_is_a_diagnostic_within_bounded_memory(tmp_path: Path, case: str) -> None:
    files, wanted = HOSTILE[case]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    answer = index_in_subprocess(tmp_path, wanted)
    assert answer["present"] == wanted
    assert answer["diagnostics"] == sorted([["deep.rb", "too-deep"], *OTHER_DIAGNOSTICS.get(case, [])])


def declarations_of(source: str) -> tuple[set[str], list[str]]:
    g = fresh({"file:///t/deep.rb": source})
    names = {d.name for d in g.declarations if d.definitions and d.definitions[0].uri == "file:///t/deep.rb"}
    return names, [d.code for d in g.diagnostics]


# name -> (source, a declaration nested deepest, whether it is kept)
AT_THE_LIMIT: dict[str, tuple[str, str, bool]] = {
    # MAX_NESTING - 1 modules and a method: MAX_NESTING scopes, all kept.
    "modules_at_limit": (modules(MAX_NESTING - 1), "::".join(f"M{i}" for i in range(MAX_NESTING - 1)) + "#deepest()", True),
    # One more module: the method would open scope MAX_NESTING + 1.
    "modules_over_limit": (modules(MAX_NESTING), "::".join(f"M{i}" for i in range(MAX_NESTING - 1)) + "#deepest()", False),
    # Each segment of a compact name counts as a level.
    "compact_at_limit": (compact(MAX_NESTING // 2), compact_name(MAX_NESTING // 2), True),
    "compact_over_limit": (compact(MAX_NESTING // 2, "def deepest; end\n"), compact_name(MAX_NESTING // 2) + "#deepest()", False),
    # Expressions are walked down to MAX_SYNTAX_DEPTH; a definition after a deeper one is kept.
    "expression_over_limit": ("X = " + "[" * MAX_SYNTAX_DEPTH + "]" * MAX_SYNTAX_DEPTH + "\nclass After; end\n", "After", True),
}
TOO_DEEP = {"modules_over_limit", "compact_over_limit", "expression_over_limit"}


@pytest.mark.parametrize("case", sorted(AT_THE_LIMIT))
def test_nesting_up_to_the_limit_is_indexed_in_full(case: str) -> None:
    source, deepest, kept = AT_THE_LIMIT[case]
    names, codes = declarations_of(source)
    assert (deepest in names) == kept
    assert codes == (["too-deep"] if case in TOO_DEEP else [])


def test_an_edit_across_the_limit_resolves_incrementally_like_a_fresh_graph() -> None:
    files = {"file:///t/good.rb": GOOD, "file:///t/deep.rb": modules(MAX_NESTING - 1)}
    g = fresh(files)
    for text in (modules(MAX_NESTING + 40), modules(MAX_NESTING - 1), modules(3, body=modules(MAX_NESTING, name="N")), ""):
        files["file:///t/deep.rb"] = text
        g.index_source("file:///t/deep.rb", text)
        g.resolve()
        assert dump(g) == dump(fresh(files))
