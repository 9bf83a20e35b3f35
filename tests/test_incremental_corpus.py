"""Incremental updates on real code: random edits to ActiveModel and ActiveSupport (concerns,
``module_function``, aliases, ``class << self``, visibility sections), each resolved
incrementally and compared with a graph built from scratch over the edited files.

Skipped when Debian's Rails gems are not installed (``make test`` installs them)."""

from __future__ import annotations

import glob
import random
import re
from pathlib import Path

import pytest
from test_incremental import dump

import rdx

GEMS = Path("/usr/share/rubygems-integration/all/gems")
ROOTS = sorted(glob.glob(str(GEMS / "activemodel-*" / "lib"))) + sorted(glob.glob(str(GEMS / "activesupport-*" / "lib" / "active_support" / "core_ext")))

pytestmark = [pytest.mark.corpus, pytest.mark.skipif(not ROOTS, reason="Debian's ruby-rails gems are not installed")]

DEF_LINE = re.compile(r"^( +)def (?:self\.)?([a-z_][a-z0-9_]*[?!]?)", re.M)


def corpus() -> dict[str, str]:
    files = {}
    for root in ROOTS:
        for path in sorted(Path(root).rglob("*.rb")):
            files[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    return files


def edit(text: str, rng: random.Random, serial: int) -> str | None:
    """One random edit at a method definition of ``text`` (None when it has none)."""
    matches = list(DEF_LINE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    indent, name, at = m.group(1), m.group(2), m.start()
    kind = rng.choice(["add", "rename", "private", "alias", "attr", "comment", "delete"])
    if kind == "add":
        return text[:at] + f"{indent}def rdx_added_{serial}(x) = x\n" + text[at:]
    if kind == "rename":
        return text[: m.end(2)] + f"_rdx{serial}" + text[m.end(2) :]
    if kind == "private":
        return text[:at] + f"{indent}private :{name}\n" + text[at:]
    if kind == "alias":
        return text[:at] + f"{indent}alias_method :rdx_alias_{serial}, :{name}\n" + text[at:]
    if kind == "attr":
        return text[:at] + f"{indent}attr_accessor :rdx_attr_{serial}\n" + text[at:]
    if kind == "comment":
        return text[:at] + f"{indent}# edited {serial}\n" + text[at:]
    end = text.find("\n", at)
    return text[:at] + text[end + 1 :]  # delete the def line: often a syntax error


def fresh(files: dict[str, str]) -> rdx.Graph:
    g = rdx.Graph()
    for path, text in files.items():
        g.index_source(path, text)
    g.resolve(from_scratch=True)
    return g


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_to_real_code_match_a_fresh_graph(seed):
    rng = random.Random(seed)
    files = corpus()
    g = fresh(files)
    paths = sorted(files)
    replayed = 0
    for serial in range(12):
        path = rng.choice(paths)
        changed = edit(files[path], rng, serial)
        if changed is None:
            continue
        files[path] = changed
        g.index_source(path, changed)
        g.resolve()
        replayed += g.last_resolve == "incremental"
        if serial % 2 == 1:
            assert dump(g) == dump(fresh(files)), f"seed {seed}, edit {serial} of {path}"
    assert dump(g) == dump(fresh(files)), f"seed {seed}"
    assert replayed >= 3  # the incremental paths really ran


def test_emptying_a_module_an_activemodel_concern_includes_matches_a_fresh_graph():
    # ActiveModel::Model (a concern) includes AttributeAssignment: emptied, the autoloaded
    # forbidden_attributes_protection.rb moves in load order (its documents go and come back),
    # and the chains of Model and its singleton class change. Each step equals a fresh graph
    # (an incremental chain of a concern used to lose the ``extend``s of its included blocks:
    # ``Invalidation.rechain`` falls back for it).
    files = corpus()
    g = fresh(files)
    path = next(p for p in files if p.endswith("active_model/attribute_assignment.rb"))
    original = files[path]
    without_requires = re.sub(r"^require .*\n", "", original, flags=re.M)
    for text in (without_requires, "", without_requires, original):
        files[path] = text
        g.index_source(path, text)
        g.resolve()
        assert dump(g) == dump(fresh(files)), f"after {text[:40]!r}"
