"""The repository map: ranking (PageRank as networkx computes it), the token budget as a hard
ceiling that is also well used, focus, determinism and stability, on the demo project and on
the Debian Ruby corpus."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import rdx
from rdx.map.mapgraph import MapGraph
from rdx.map.repomap import count_tokens, map_graph

EXAMPLE = Path(rdx.__file__).parent / "data" / "example"


@pytest.fixture
def example(tmp_path: Path) -> rdx.Graph:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    return rdx.Graph.open(str(root))


def blocks(text: str) -> dict[str, list[str]]:
    """File header -> its lines (the legend and aliases under the key "")."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    for line in text.splitlines():
        if line and not line.startswith((" ", "#", "@")) and line.split(" ")[0].count("/") + line.split(" ")[0].count(".") >= 1 and " :" not in line:
            current = line.split(" ")[0]
            out[current] = []
        elif line.startswith("@") and " :" not in line and "=" not in line:
            current = line.split(" ")[0]
            out[current] = []
        else:
            out[current].append(line)
    return out


def test_pagerank_is_networkx_pagerank(example: rdx.Graph) -> None:
    # Here, not at the top: a make check worker that never runs this test does not import them.
    import networkx as nx  # type: ignore[import-untyped]
    import numpy as np

    graph = map_graph(example._ready())
    expected = nx.pagerank(graph.graph, weight="weight", tol=1e-9, max_iter=1000)
    ours = graph.rank()
    # Both stop when an iteration moves the vector by less than N * 1e-8 in L1 (networkx's rule):
    # they agree to that precision.
    assert np.allclose([expected[n] for n in range(len(ours))], ours, atol=len(ours) * 1e-8)
    focus = [graph.file_index[u] for u in graph.files if u.endswith("printer.py")]
    personal = dict.fromkeys(focus, 1.0)
    expected = nx.pagerank(graph.graph, weight="weight", personalization=personal, dangling=personal, tol=1e-9, max_iter=1000)
    ours = graph.rank(focus)
    assert np.allclose([expected[n] for n in range(len(ours))], ours, atol=len(ours) * 1e-8)


def test_the_demo_map(example: rdx.Graph) -> None:
    result = example.repo_map(2048)
    text = result.text
    assert result.tokens == count_tokens(text) <= 2048 and result.detail == "symbols"
    assert text.startswith("# rdx map · c class · mod module · m method")
    lines = text.splitlines()
    # review.rb's belongs_to :product, class_name: "Shop::Models::Product" uses it.
    assert "c Shop::Models::Product :4 < Shop::Models::Record +Shop::Comparable,Shop::Pricing ←review.rb" in lines
    # Of the methods has_many, enum and the schema's columns define, only those the code calls.
    assert "  m publish!() :10 →published!,published?" in lines and "  m published? :6" in lines
    assert "  m votes :4" not in lines and "db/schema.rb" not in lines
    assert "  m price_with_tax() :6 ←product.rb,order.rb →TAX_RATE" in lines
    assert "f format_cents(cents: int) -> str :6 ←printer.py" in lines
    assert "  m line(self, label: str, cents: int) -> str :12 →format_cents" in lines
    assert "f formatMoney(amount: Money): string :8 ←\" →Money" in lines  # Ditto: cart.ts, as the line above.
    assert "@1/=lib/shop/models/" in lines and "@1/product.rb ←3" in lines
    # Everything fits in 2k tokens: every declaration the map shows of this project is there.
    assert result.declarations == 54 and result.files == 11


def test_small_budgets_list_files(example: rdx.Graph) -> None:
    result = example.repo_map(200, focus=["web/cart.ts"])
    assert result.detail == "files" and result.tokens <= 200
    lines = result.text.splitlines()
    assert lines[1] == "web/money.ts ←1: Money, formatMoney"  # What the focus uses comes first.
    assert not any(line.startswith("web/cart.ts") for line in lines)  # The focus itself is not listed.


def test_focus_by_name_and_bad_arguments(example: rdx.Graph) -> None:
    focused = example.repo_map(400, focus=["format_cents", "NoSuchThing"], detail="symbols")
    assert focused.unmatched == ["NoSuchThing"]
    assert "f format_cents(cents: int) -> str :6 ←printer.py" in focused.text
    with pytest.raises(rdx.NotFoundError):
        example.repo_map(400, focus=["NoSuchThing"])
    for bad in ({"max_tokens": 10}, {"max_tokens": "2k"}, {"detail": "everything"}, {"focus": [""]}):
        with pytest.raises(rdx.InvalidArgumentError):
            example.repo_map(**bad)  # type: ignore[arg-type]


def test_an_edit_changes_only_its_own_block(example: rdx.Graph, tmp_path: Path) -> None:
    before = example.repo_map(4096).text
    pricing = tmp_path / "example" / "lib" / "shop" / "pricing.rb"
    pricing.write_text(pricing.read_text().replace("    def price_with_tax", "    def discount; end\n\n    def price_with_tax"))
    example.refresh_paths([str(pricing)])
    after = example.repo_map(4096).text
    old, new = blocks(before), blocks(after)
    assert old[""] == new[""]  # Legend and aliases.
    changed = [name for name in set(old) | set(new) if old.get(name) != new.get(name)]
    assert changed == ["lib/shop/pricing.rb"]
    assert "  m discount() :6" in new["lib/shop/pricing.rb"]


def test_maps_are_deterministic(example: rdx.Graph, tmp_path: Path) -> None:
    first = example.repo_map(1024, focus=["lib/shop/models/order.rb"]).text
    assert example.repo_map(1024, focus=["lib/shop/models/order.rb"]).text == first
    again = rdx.Graph.open(str(tmp_path / "example"))  # Another graph, from the snapshot.
    assert again.repo_map(1024, focus=["lib/shop/models/order.rb"]).text == first


# -- the Debian corpus ----------------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("budget", [256, 512, 1024, 2048, 4096, 8192, 16384])
def test_budgets_are_ceilings_and_well_used(debian_graph: rdx.Graph, budget: int) -> None:
    result = debian_graph.repo_map(budget)
    assert result.tokens == count_tokens(result.text)
    assert 0.85 * budget <= result.tokens <= budget, (budget, result.tokens)


def _top_referenced(graph: MapGraph, uri: str, n: int) -> list[str]:
    """The classes and modules defined outside ``uri`` that it uses most (by the map's weights)."""
    state = graph.view.state
    weights = []
    for decl, users in graph.used_by.items():
        rec = state.declarations.get(decl)
        if rec is None or rec.kind not in ("Class", "Module") or uri not in users or graph.home(decl) == uri:
            continue
        weights.append((-users[uri], rec.name))
    return [name for _, name in sorted(weights)[:n]]


@pytest.mark.corpus
def test_focus_brings_in_what_the_file_uses(debian_graph: rdx.Graph) -> None:
    graph = map_graph(debian_graph._ready())
    files = [
        "/usr/lib/ruby/3.1.0/net/http.rb",
        *sorted(p for p in graph.paths.values() if p.endswith("/rubocop/cop/style/redundant_self.rb")),
        *sorted(p for p in graph.paths.values() if p.endswith("/active_record/associations/association.rb")),
    ]
    assert len(files) == 3, files
    for path in files:
        uri = next(u for u, p in graph.paths.items() if p == path)
        wanted = _top_referenced(graph, uri, 10)
        text = debian_graph.repo_map(2048, focus=[path]).text
        shown = [name for name in wanted if f" {name} :" in text or f" {name}(" in text]
        assert len(shown) >= 0.7 * len(wanted), (path, wanted, shown)


@pytest.mark.corpus
def test_the_corpus_map_is_deterministic(debian_graph: rdx.Graph) -> None:
    path = "/usr/lib/ruby/3.1.0/net/http.rb"
    assert os.path.exists(path)
    first = debian_graph.repo_map(2048, focus=[path])
    assert debian_graph.repo_map(2048, focus=[path]).text == first.text
    # Shown relative to its root (the pinned corpus names Ruby's library directory itself).
    focus = [line for line in first.text.splitlines() if line.startswith("# focus (not listed, the agent has them): ")]
    assert len(focus) == 1 and focus[0].endswith(" net/http.rb"), focus


def test_a_prepended_module_is_listed_and_the_class_is_not_its_own_mixin():
    """Issue 22: with a prepend the class is not first in its chain (solidus' Spree::Order
    printed itself as a mixin and lost its first prepend)."""
    g = rdx.Graph(core=False)
    g.index_source(
        "file:///m/a.rb",
        "module Patch\n  def total; end\nend\nmodule Extra; end\nclass Base; end\n"
        "class Order < Base\n  prepend Patch\n  include Extra\n  def total; end\nend\nOrder.new.total\n",
    )
    g.resolve()
    line = next(x for x in g.repo_map(max_tokens=500).text.splitlines() if x.startswith("c Order"))
    assert line.endswith("< Base +Patch,Extra"), line
