"""Declaration search: the ranking on fixtures, and the indexed search (haystacks and regular
expressions selecting candidates) agreeing with scoring every declaration, for any query."""

from __future__ import annotations

import itertools
import random
import string

import pytest
from conftest import build_graph

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


# 300 random queries against a full scan: tests/test_search_random.py (slow); the chosen queries
# below stay in make check.


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


def test_typo_distance_is_the_bounded_optimal_string_alignment():
    """Every pair of strings over three letters up to three long, and 3,000 seeded random pairs
    up to eight long (more cases than Hypothesis's 500 examples were, in a tenth of the time:
    the examples' generation took a second and a half), at each limit from 0 to 3."""
    short = ["".join(p) for n in range(4) for p in itertools.product("abc", repeat=n)]
    rng = random.Random(20)
    longer = ["".join(rng.choice("abc") for _ in range(rng.randint(0, 8))) for _ in range(6000)]
    for a, b in [*itertools.product(short, short), *zip(longer[::2], longer[1::2], strict=True)]:
        exact = _osa(a, b)
        for limit in range(4):
            assert typo_distance(a, b, limit) == (exact if exact <= limit else limit + 1), (a, b, limit)


def test_typos_rank_the_intended_name_first(graph):
    assert names(graph.search("Validatoins", match_mode="fuzzy"))[0] == "ActiveRecord::Validations"  # a transposition
    assert names(graph.search("ActiveRecord::Bsae", match_mode="fuzzy"))[0] == "ActiveRecord::Base"
    assert names(graph.search("ActiveRecord::Base#find_by_sqll", match_mode="fuzzy"))[0] == "ActiveRecord::Base#find_by_sql()"
    assert graph.suggest("ActiveRecord::Bsae")[0] == "ActiveRecord::Base"
    assert graph.suggest("hexdigets")[0] == "SHA256Digest#hexdigest()"
    # Names shorter than four characters take no typos in search (too many names are near them).
    assert "ActiveRecord::Base" not in names(graph.search("Bsa", match_mode="fuzzy"))
    assert set(names(graph.search("Bsae", match_mode="fuzzy"))[:2]) == {"ActiveRecord::Base", "Random::Base"}  # the shorter first
