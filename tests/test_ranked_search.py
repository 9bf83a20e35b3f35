"""Ranked declaration search: intent queries, operators, filters, incremental updates, the
saved index, and the judged relevance set over Rails, RuboCop and the standard library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import build_graph, debian_corpus, other_installed_ruby, write

import rdx

SOURCE = {
    "money.rb": """
module Billing
  # Formats a number as a currency string, with a unit and a precision.
  def self.number_to_currency(number, unit: "$"); end

  # Formats a number as a percentage string.
  def self.number_to_percentage(number); end

  # Signs messages and verifies their signatures, so they cannot be tampered with.
  class MessageVerifier
    # Generates a signed message for the value.
    def generate(value); end

    # Returns the value of a signed message, or raises when the signature does not match.
    def verify(message); end

    private

    # Compares two strings in constant time.
    def secure_compare(a, b); end
  end
end
""",
    "files.rb": """
module Disk
  # Removes a directory and everything under it.
  def self.remove_tree(path); end

  # Creates a directory and any missing parents.
  def self.make_directory(path); end
end
""",
    "test/billing_test.rb": """
class BillingTest
  # Checks that the currency format is right.
  def test_currency_format; end
end
""",
}


@pytest.fixture(scope="module")
def g() -> rdx.Graph:
    return build_graph(SOURCE)


def names(found: list[rdx.Declaration]) -> list[str]:
    return [d.name for d in found]


def test_intent_queries_find_what_the_docs_describe(g: rdx.Graph) -> None:
    assert names(g.search("format number as currency"))[0] == "Billing::<Billing>#number_to_currency()"
    assert names(g.search("sign and verify messages"))[0] == "Billing::MessageVerifier"
    # Related words: "delete a folder" finds what the docs call removing a directory.
    assert names(g.search("delete a folder and everything under it"))[0] == "Disk::<Disk>#remove_tree()"
    assert names(g.search("create directory with parents"))[0] == "Disk::<Disk>#make_directory()"


def test_test_code_and_private_methods_rank_below_public_api(g: rdx.Graph) -> None:
    found = names(g.search("currency format"))
    assert found.index("Billing::<Billing>#number_to_currency()") < found.index("BillingTest#test_currency_format()")
    found = names(g.search("compare strings"))
    assert "Billing::MessageVerifier#secure_compare()" in found  # found, though private


def test_singleton_twins_are_never_listed(g: rdx.Graph) -> None:
    for query in ("Billing", "message verifier", "MessageVerifier", "billing currency"):
        assert not any(d.kind == "SingletonClass" for d in g.search(query)), query


def test_operators_prefix_and_filters(g: rdx.Graph) -> None:
    both = names(g.search("number AND percentage"))
    assert both == ["Billing::<Billing>#number_to_percentage()"]
    assert "Billing::<Billing>#number_to_percentage()" not in names(g.search("number -percentage"))
    assert "Billing::<Billing>#number_to_percentage()" not in names(g.search("number NOT percentage"))
    assert set(names(g.search("percent*"))) == {"Billing::<Billing>#number_to_percentage()"}
    assert names(g.search("message", kind="Class")) == ["Billing::MessageVerifier"]
    assert names(g.search("currency", path="test/")) == ["BillingTest#test_currency_format()"]


def test_names_first_and_name_modes_unchanged(g: rdx.Graph) -> None:
    # A query that names a declaration puts it first; one name-like word matches names first.
    assert names(g.search("MessageVerifier"))[0] == "Billing::MessageVerifier"
    assert names(g.search("verify"))[0] == "Billing::MessageVerifier#verify()"
    assert names(g.search("MsgVer"))[0] == "Billing::MessageVerifier"  # fuzzy sub-word prefixes
    assert names(g.search("verify", match_mode="exact")) == ["Billing::MessageVerifier#verify()"]
    assert names(g.search("zzqqxx nothing here")) == []


def test_results_are_deterministic(g: rdx.Graph) -> None:
    runs = {tuple(names(build_graph(SOURCE).search("number string value"))) for _ in range(3)}
    assert len(runs) == 1


def test_bad_arguments_are_clear_errors(g: rdx.Graph) -> None:
    for kwargs in ({"match_mode": "semantic"}, {"kind": "Klass"}, {"limit": -1}, {"path": 3}):
        with pytest.raises(rdx.InvalidArgumentError):
            g.search("currency", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(rdx.InvalidArgumentError):
        g.search("   ")
    assert g.search('"unterminated') is not None and g.search("AND OR NOT") == []


def test_edits_update_the_index_incrementally(tmp_path: Path) -> None:
    write(tmp_path / "lib/a.rb", "module A\n  # Parses one line of comma separated values.\n  def self.parse_line(s); end\nend\n")
    write(tmp_path / "lib/b.rb", "module B\n  def self.other; end\nend\n")
    g = rdx.Graph.open([tmp_path])
    assert names(g.search("comma separated values"))[0] == "A::<A>#parse_line()"
    write(tmp_path / "lib/b.rb", "module B\n  # Splits comma separated values into fields, quickly.\n  def self.split_fields(s); end\nend\n")
    g.refresh_paths([str(tmp_path / "lib/b.rb")])
    found = names(g.search("split comma separated values into fields"))
    assert g.last_resolve == "incremental"
    assert found[0] == "B::<B>#split_fields()" and "B::<B>#other()" not in found
    assert names(build_graph({"a.rb": (tmp_path / "lib/a.rb").read_text(), "b.rb": (tmp_path / "lib/b.rb").read_text()}).search(
        "split comma separated values into fields"
    ))[0] == "B::<B>#split_fields()"


def test_the_index_is_saved_and_restored_for_the_same_documents(tmp_path: Path) -> None:
    write(tmp_path / "lib/a.rb", "module A\n  # Converts a title into a slug for URLs.\n  def self.slugify(s); end\nend\n")
    first = rdx.Graph.open([tmp_path])
    expected = names(first.search("url slug from a title"))
    saved = tmp_path / ".rdx" / "symbols.msgpack"
    assert saved.exists() and expected[0] == "A::<A>#slugify()"
    mtime = saved.stat().st_mtime_ns
    second = rdx.Graph.open([tmp_path])
    assert names(second.search("url slug from a title")) == expected
    assert saved.stat().st_mtime_ns == mtime  # restored, not rebuilt
    write(tmp_path / "lib/a.rb", "module A\n  # Converts a heading into an anchor.\n  def self.anchor(s); end\nend\n")
    third = rdx.Graph.open([tmp_path])
    assert names(third.search("heading anchor"))[0] == "A::<A>#anchor()"  # other documents: rebuilt


# -- the judged relevance set ------------------------------------------------------------------

JUDGMENTS = Path(__file__).parent / "data" / "search_judgments.json"


def _judged_scores(g: rdx.Graph, judged: list[dict], mode: str) -> tuple[float, float]:
    """hit@5 and MRR@10 of the judged queries over ``g``."""
    hits = reciprocal = 0.0
    for item in judged:
        wanted = {item["want"], *item.get("also", ())}
        found = names(g.search(item["query"], match_mode=mode, limit=10))
        rank = next((i for i, name in enumerate(found) if name in wanted), None)
        hits += rank is not None and rank < 5
        reciprocal += 0.0 if rank is None else 1.0 / (rank + 1)
    return hits / len(judged), reciprocal / len(judged)


@pytest.mark.corpus
def test_judged_queries_over_rails_rubocop_and_the_standard_library(debian_graph: rdx.Graph) -> None:
    """Over the pinned corpus (``tests/data/debian-corpus.txt``: the same gems, the same
    versions, whatever else the machine has installed)."""
    judged = json.loads(JUDGMENTS.read_text())
    assert len(judged) >= 60
    g = debian_graph
    for item in judged:
        assert g.get(item["want"]) is not None, item["want"]
    ranked = _judged_scores(g, judged, "ranked")
    fuzzy = _judged_scores(g, judged, "fuzzy")
    print(f"pinned corpus: ranked hit@5 {ranked[0]:.2f} MRR@10 {ranked[1]:.2f}; fuzzy hit@5 {fuzzy[0]:.2f}")
    # Measured 0.66 hit@5 / 0.52 MRR@10 (bench/bench_search.py); the floor catches regressions.
    assert ranked[0] >= 0.58 and ranked[1] >= 0.45, ranked
    assert ranked[0] >= fuzzy[0] + 0.3, (ranked, fuzzy)


@pytest.mark.corpus
def test_judged_queries_hold_up_when_unrelated_gems_are_added(debian_graph: rdx.Graph, tmp_path: Path) -> None:
    """The same judged queries over the pinned corpus plus libraries nobody asked about
    (``other_installed_ruby``: the compiled gems ruby-rails brings, named with their versions):
    their declarations must not push the wanted ones out."""
    extra = other_installed_ruby()
    judged = json.loads(JUDGMENTS.read_text())
    g = rdx.Graph.open([*debian_corpus(), *extra], cache_dir=str(tmp_path / "cache"))
    pinned = _judged_scores(debian_graph, judged, "ranked")
    added = _judged_scores(g, judged, "ranked")
    print(f"{len(extra)} more libraries: ranked hit@5 {pinned[0]:.2f} -> {added[0]:.2f}, MRR@10 {pinned[1]:.2f} -> {added[1]:.2f}")
    assert added[0] >= 0.58 and added[1] >= 0.45, added
    assert added[0] >= pinned[0] - 0.05 and added[1] >= pinned[1] - 0.05, (pinned, added)
