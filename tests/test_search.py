"""Declaration search: the ranking on fixtures, and the indexed search (haystacks and regular
expressions selecting candidates) agreeing with scoring every declaration, for any query."""

from __future__ import annotations

import string

import pytest
from conftest import build_graph
from hypothesis import given, settings
from hypothesis import strategies as st

from rdx.search.names import SearchIndex, search_declarations, typo_distance

FIXTURE = {
    "a.rb": """\
module ActiveRecord
  class Base
    def find_by_sql(q); end
    def find_by(**kw); end
    def save!; end
    def <=>(other); end
    def [](key); end
    def empty?; end
  end
  module Validations
    class UniquenessValidator; end
    HTTP2_SETTINGS = 1
  end
end
class SHA256Digest
  def hexdigest; end
end
$global_thing = 1
""",
}


@pytest.fixture(scope="module")
def graph():
    return build_graph(FIXTURE)


@pytest.fixture(scope="module")
def records(graph):
    return list(graph._view.state.declarations.values())


@pytest.fixture(scope="module")
def index(records):
    return SearchIndex(records)


def names(found) -> list[str]:
    return [d.name for d in found]


def test_ranking_exact_then_prefix_then_substring_then_subwords(graph):
    found = names(graph.search("find_by"))
    assert found[0] == "ActiveRecord::Base#find_by()"  # exact unqualified name first
    assert found[1] == "ActiveRecord::Base#find_by_sql()"  # then a prefix
    assert "ActiveRecord" in names(graph.search("ActRec"))[:3]  # sub-word prefixes in order
    assert names(graph.search("UniqVal"))[0] == "ActiveRecord::Validations::UniquenessValidator"
    assert names(graph.search("Base", match_mode="exact"))[0] == "ActiveRecord::Base"
    assert names(graph.search("ActiveRecord::V", match_mode="prefix"))[0] == "ActiveRecord::Validations"
    assert all(d.kind == "Method" for d in graph.search("e", kind="Method"))


QUERY_ALPHABET = string.ascii_letters + string.digits + "_:#?!<=>[]\\^-.$@ ()"


@pytest.mark.slow  # 300 random queries against a full scan; the chosen queries below stay in make check
@settings(max_examples=300, deadline=None)
@given(query=st.text(alphabet=QUERY_ALPHABET, min_size=1, max_size=8), mode=st.sampled_from(["fuzzy", "prefix", "exact"]))
def test_indexed_search_equals_scoring_everything(records, index, query, mode):
    assert names(search_declarations(records, query, mode, index=index)) == names(search_declarations(records, query, mode))


@pytest.mark.parametrize(
    "query",
    ["save", "Sha256", "sha", "hexd", "<=>", "[]", "empty?", "$glob", "valid", "AR", "ab\ncd", "re",
     # Typos, qualified or not: the candidates the index selects include every typo scored.
     "Bsae", "ActiveRecord::Bsae", "ActiveRecrod", "Validatoins", "find_by_sqll", "ActiveRecord::Base#fnd_by", "Activ::Base", "hexdigets"],
)
def test_indexed_search_equals_scoring_everything_on_chosen_queries(records, index, query):
    for mode in ("fuzzy", "prefix", "exact"):
        for kind in (None, "Method", "Class"):
            expected = names(search_declarations(records, query, mode, kind))
            assert names(search_declarations(records, query, mode, kind, index)) == expected, (query, mode, kind)


def test_prepared_indexes_answer_like_lazily_built_ones():
    lazy = build_graph(FIXTURE)
    prepared = build_graph(FIXTURE)
    prepared.prepare_queries()
    assert prepared._view.search_index is not None
    for query in ("find", "ActRec", "Base", "hexd"):
        for mode in ("fuzzy", "prefix", "exact"):
            assert names(prepared.search(query, match_mode=mode)) == names(lazy.search(query, match_mode=mode))
    assert [r.location for r in prepared.references_to("ActiveRecord::Base#save!()")] == [r.location for r in lazy.references_to("ActiveRecord::Base#save!()")]


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance, the textbook table."""
    d = [[i + j if not i or not j else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@settings(max_examples=500, deadline=None)
@given(a=st.text(alphabet="abc", max_size=8), b=st.text(alphabet="abc", max_size=8), limit=st.integers(0, 3))
def test_typo_distance_is_the_bounded_optimal_string_alignment(a, b, limit):
    exact = _osa(a, b)
    assert typo_distance(a, b, limit) == (exact if exact <= limit else limit + 1)


def test_typos_rank_the_intended_name_first(graph):
    assert names(graph.search("Validatoins", match_mode="fuzzy"))[0] == "ActiveRecord::Validations"  # a transposition
    assert names(graph.search("ActiveRecord::Bsae", match_mode="fuzzy"))[0] == "ActiveRecord::Base"
    assert names(graph.search("ActiveRecord::Base#find_by_sqll", match_mode="fuzzy"))[0] == "ActiveRecord::Base#find_by_sql()"
    assert graph.suggest("ActiveRecord::Bsae")[0] == "ActiveRecord::Base"
    assert graph.suggest("hexdigets")[0] == "SHA256Digest#hexdigest()"
    # Names shorter than four characters take no typos in search (too many names are near them).
    assert "ActiveRecord::Base" not in names(graph.search("Bsa", match_mode="fuzzy"))
    assert set(names(graph.search("Bsae", match_mode="fuzzy"))[:2]) == {"ActiveRecord::Base", "Random::Base"}  # the shorter first
