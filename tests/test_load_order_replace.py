"""``LoadOrder.replace`` updates the load order in place when one document changes: every field
must be what a load order computed from scratch holds (the oracle), after each of hundreds of
random edits applied in sequence to the same order."""

from __future__ import annotations

import glob
import os
import posixpath
import random

import pytest

from rdx.model.records import FileResult
from rdx.model.store import CORE_URI
from rdx.ruby.discover.parse import discover_source
from rdx.ruby.resolve.documents import moving_keys
from rdx.ruby.resolve.order import DOC_GAP, LoadOrder, Replaced

ROOT = "/p/lib/app"
NAMES = ["a", "b", "c", "d", "x", "y", "z", "ext/e1", "ext/e2", "plugins/foo", "plugins/bar"]
LATE = ["file:///p/spec/"]
BUNDLE = [("foo", ("app/plugins/foo",), ("default",))]

# A file's text as items: a statement, or a class/module body ``(keyword, name, items)``.
Item = str | tuple[str, str, list[str]]


def _path(name: str) -> str:
    return f"{ROOT}/{name}.rb" if not name.startswith("spec/") else f"/p/{name}.rb"


def _statement(rng: random.Random, name: str) -> str:
    other = rng.choice(NAMES)
    kind = rng.randrange(12)
    if kind <= 2:
        return f'require "app/{other}"'
    if kind <= 4:
        rel = posixpath.relpath(_path(other), posixpath.dirname(_path(name))).removesuffix(".rb")
        return f'require_relative "{rel}"'
    if kind == 5:
        return f'autoload :{rng.choice("XYZ")}{rng.randrange(2)}, "app/{other}"'
    if kind == 6:
        return f"p {rng.choice(['A::', 'B::', ''])}{rng.choice('XYZ')}{rng.randrange(2)}"
    if kind == 7:
        return 'Dir.glob(File.expand_path("ext/*.rb", __dir__)).sort.each do |path|\n  require path\nend'
    if kind == 8:
        return f"Ext.plugin :{rng.choice(['foo', 'bar'])}"
    if kind == 9:
        return rng.choice(["Bundler.require(:default)", f'def self.m\n  require "app/{other}"\nend'])
    return f"# {'x' * rng.randrange(1, 30)}"


def _random_items(rng: random.Random, name: str) -> list[Item]:
    items: list[Item] = [_statement(rng, name) for _ in range(rng.randrange(0, 4))]
    for _ in range(rng.randrange(0, 3)):
        body = [_statement(rng, name) for _ in range(rng.randrange(0, 3))]
        items.insert(rng.randrange(len(items) + 1), (rng.choice(["module", "class"]), rng.choice(["A", "B", "A::K"]), body))
    return items


def _render(items: list[Item]) -> str:
    lines: list[str] = []
    for item in items:
        if isinstance(item, str):
            lines.extend(item.split("\n"))
        else:
            keyword, name, body = item
            lines.append(f"{keyword} {name}")
            lines.extend("  " + line for line in _render(list(body)).splitlines())
            lines.append("end")
    return "\n".join(lines) + "\n"


def _doc(name: str, items: list[Item]) -> FileResult:
    path = _path(name)
    return discover_source("file://" + path, _render(items).encode(), path)


def _bodies(items: list[Item]) -> list[list[str]]:
    return [item[2] for item in items if not isinstance(item, str)]


def _mutate(rng: random.Random, name: str, items: list[Item]) -> tuple[list[Item], bool]:
    """A random edit of ``items`` (a new list); True when it only shifts byte offsets."""
    items = [item if isinstance(item, str) else (item[0], item[1], list(item[2])) for item in items]
    kind = rng.randrange(8)
    bodies = _bodies(items)
    if kind == 0:  # Text above everything: offsets move, nothing else.
        items.insert(0, f"# {'y' * rng.randrange(1, 40)}")
        return items, True
    if kind == 1:  # A new statement, at the top level or in a body.
        target = rng.choice([items, *bodies])
        target.insert(rng.randrange(len(target) + 1), _statement(rng, name))
    elif kind == 2:  # A statement removed.
        target = rng.choice([items, *bodies])
        if target:
            del target[rng.randrange(len(target))]
    elif kind == 3:  # A statement moved (into or out of a body, up or down).
        source = rng.choice([items, *bodies])
        if source:
            moved = source.pop(rng.randrange(len(source)))
            if isinstance(moved, str):
                target = rng.choice([items, *_bodies(items)])
            else:
                target = items
            target.insert(rng.randrange(len(target) + 1), moved)
    elif kind == 4:  # A run of top-level statements wrapped in a body.
        at = rng.randrange(len(items) + 1)
        run = [item for item in items[at : at + rng.randrange(1, 3)] if isinstance(item, str)]
        items = [item for item in items if not any(item is r for r in run)]
        items.insert(min(at, len(items)), (rng.choice(["module", "class"]), rng.choice(["A", "B"]), run))
    elif kind == 5:  # A body dropped: its statements become top-level ones.
        spots = [i for i, item in enumerate(items) if not isinstance(item, str)]
        if spots:
            i = rng.choice(spots)
            body = items[i][2]
            assert not isinstance(body, str)
            items[i : i + 1] = list(body)
    elif kind == 6:  # Text inside a body, above its statements.
        if bodies:
            rng.choice(bodies).insert(0, "# moved")
            return items, True
    else:  # Rewritten.
        items = _random_items(rng, name)
    return items, False


def assert_same(order: LoadOrder, fresh: LoadOrder) -> None:
    """Every field of ``order`` as ``fresh`` (computed from scratch) holds it."""
    assert [d.uri for d in order.ordered] == [d.uri for d in fresh.ordered]
    assert all(a is b for a, b in zip(order.ordered, fresh.ordered, strict=True))
    assert order.walks == fresh.walks
    assert order.roots == fresh.roots
    assert order.pulled == fresh.pulled
    assert order.required_by == fresh.required_by
    assert list(order.autoloads.items()) == list(fresh.autoloads.items())
    assert order.requirers == fresh.requirers
    assert order.globbing == fresh.globbing
    assert order.path_templates == fresh.path_templates
    assert all(order.path_templates[k] is v for k, v in fresh.path_templates.items())
    assert order.root_order == fresh.root_order
    assert order.by_uri.keys() == fresh.by_uri.keys() and all(order.by_uri[k] is v for k, v in fresh.by_uri.items())
    assert order.by_path.keys() == fresh.by_path.keys() and all(order.by_path[k] is v for k, v in fresh.by_path.items())
    assert order.by_basename.keys() == fresh.by_basename.keys()
    for k, docs in fresh.by_basename.items():
        assert len(order.by_basename[k]) == len(docs) and all(a is b for a, b in zip(order.by_basename[k], docs, strict=True))
    assert (order.order.entries, order.order.late, order.order.bundle) == (fresh.order.entries, fresh.order.late, fresh.order.bundle)


def assert_reported(result: Replaced, before: list[str], before_walks: dict[str, str], order: LoadOrder) -> None:
    """``result`` says what changed between ``before`` (URIs in load order) and now."""
    after = [d.uri for d in order.ordered]
    start, end = result.start, result.start + len(result.old)
    assert len(result.old) == len(result.new)
    assert before[:start] == after[:start] and before[end:] == after[end:]
    assert tuple(before[start:end]) == result.old and tuple(after[start:end]) == result.new
    assert result.ordered_changed == (before != after)
    if result.ordered_changed:  # The span is the smallest: its ends moved.
        assert result.old[0] != result.new[0] and result.old[-1] != result.new[-1]
    assert result.walks == {u: r for u, r in order.walks.items() if before_walks[u] != r}
    # The fewest documents move (``documents.moving_keys``, as ``Graph`` moves them).
    placed = moving_keys(result.new, {u: i * DOC_GAP for i, u in enumerate(result.old)}.get, set())
    assert placed is not None
    moved = placed[1]
    kept = [u for u in result.new if u not in moved]
    assert kept == [u for u in result.old if u not in moved]  # The others keep their order.


TEMPLATE = "module Ext\n  def self.plugin(name)\n    require \"app/plugins/#{name}\"\n  end\nend\n"


def _project(rng: random.Random) -> tuple[dict[str, list[Item]], list[str]]:
    files = {name: _random_items(rng, name) for name in NAMES}
    files["spec/s"] = _random_items(rng, "spec/s")
    files["main"] = [_statement(rng, "main") for _ in range(3)]
    entries = ["file://" + _path("main")] if rng.random() < 0.5 else []
    return files, entries


@pytest.mark.parametrize("seed", [*range(12), 133])  # 133: an autoload moved into a body, renamed
def test_replace_matches_a_load_order_from_scratch(seed: int) -> None:
    rng = random.Random(seed)
    files, entries = _project(rng)
    docs = {name: _doc(name, items) for name, items in files.items()}
    docs["template"] = discover_source("file:///p/lib/ext.rb", TEMPLATE.encode(), "/p/lib/ext.rb")
    if seed % 2:  # The core stub, whose requires load first (gem_prelude's).
        docs["core"] = discover_source(CORE_URI, f'require "app/{rng.choice(NAMES)}"\n'.encode(), None)
    order = LoadOrder(docs.values(), entries, LATE, BUNDLE)
    assert_same(order, LoadOrder(docs.values(), entries, LATE, BUNDLE))
    walked = fast = 0
    for _ in range(40):
        name = rng.choice(sorted(files))
        items, offsets_only = _mutate(rng, name, files[name])
        files[name] = items
        docs[name] = _doc(name, items)
        before, before_walks = [d.uri for d in order.ordered], dict(order.walks)
        result = order.replace(docs[name])
        assert result is not None
        fresh = LoadOrder(docs.values(), entries, LATE, BUNDLE)
        assert_same(order, fresh)
        assert_reported(result, before, before_walks, order)
        if offsets_only:
            assert not result.walked and not result.ordered_changed and not result.walks
        walked += result.walked
        fast += not result.walked
    assert walked and fast


def test_replace_says_no_where_it_cannot_tell() -> None:
    rng = random.Random(1)
    files, entries = _project(rng)
    docs = {name: _doc(name, items) for name, items in files.items()}
    template = discover_source("file:///p/lib/ext.rb", TEMPLATE.encode(), "/p/lib/ext.rb")
    order = LoadOrder([*docs.values(), template], entries, LATE, BUNDLE)
    # Another require template: every document's computed requires may change.
    changed = discover_source("file:///p/lib/ext.rb", TEMPLATE.replace("plugins", "extras").encode(), "/p/lib/ext.rb")
    assert order.replace(changed) is None
    # A document the order does not hold.
    order = LoadOrder(docs.values(), entries, LATE, BUNDLE)
    assert order.replace(template) is None


# -- the Debian corpus: typing in a RuboCop cop that requires files inside its class body --

RUBOCOP = sorted(glob.glob("/usr/share/rubygems-integration/all/gems/rubocop-[0-9]*/lib"))
COP = "rubocop/cop/style/method_call_with_args_parentheses.rb"


@pytest.mark.skipif(not RUBOCOP or not os.path.exists(os.path.join(RUBOCOP[-1], COP)), reason="the Debian RuboCop gem is not installed")
def test_typing_in_a_rubocop_cop_matches_a_load_order_from_scratch() -> None:
    lib = RUBOCOP[-1]
    docs: dict[str, FileResult] = {}
    for path in sorted(glob.glob(os.path.join(lib, "**", "*.rb"), recursive=True)):
        with open(path, "rb") as f:
            docs[path] = discover_source("file://" + path, f.read(), path)
    entries = ["file://" + os.path.join(lib, "rubocop.rb")]
    order = LoadOrder(docs.values(), entries)
    cop = os.path.join(lib, COP)
    with open(cop, encoding="utf-8") as f:
        text = f.read()
    line = next(i for i, line in enumerate(text.splitlines(keepends=True)) if line.lstrip().startswith("class MethodCallWithArgsParentheses"))
    at = sum(len(line) for line in text.splitlines(keepends=True)[: line + 1])
    typed = "        class << self\n"
    outcomes = []
    for k in range(1, len(typed) + 1):
        doc = discover_source("file://" + cop, (text[:at] + typed[:k] + text[at:]).encode(), cop)
        docs[cop] = doc
        before, before_walks = [d.uri for d in order.ordered], dict(order.walks)
        result = order.replace(doc)
        assert result is not None
        fresh = LoadOrder(docs.values(), entries)
        assert_same(order, fresh)
        assert_reported(result, before, before_walks, order)
        outcomes.append(result.walked)
    # Typing ``class`` and ``<< self`` opens a body (the requires below it move into it or out);
    # every other keystroke moves byte offsets only.
    assert not all(outcomes)
    for k in range(len(typed)):
        if not outcomes[k]:
            continue
        assert typed[: k + 1].strip().startswith("class")
