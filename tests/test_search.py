"""Declaration search: the ranking on fixtures, and the indexed search (haystacks and regular
expressions selecting candidates) agreeing with scoring every declaration, for any query."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rdx.search.names import SearchIndex, search_declarations
from tests.conftest import build_graph

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


@settings(max_examples=300, deadline=None)
@given(query=st.text(alphabet=QUERY_ALPHABET, min_size=1, max_size=8), mode=st.sampled_from(["fuzzy", "prefix", "exact"]))
def test_indexed_search_equals_scoring_everything(records, index, query, mode):
    assert names(search_declarations(records, query, mode, index=index)) == names(search_declarations(records, query, mode))


@pytest.mark.parametrize("query", ["save", "Sha256", "sha", "hexd", "<=>", "[]", "empty?", "$glob", "valid", "AR", "ab\ncd", "re"])
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
