"""The indexed declaration search agrees with scoring every declaration for 300 random
queries (Hypothesis). Slow, a module of its own: make check, which leaves it out, then imports
neither it nor Hypothesis (about half a second of CPU in each of its workers, a collection
included); tests/test_search.py keeps the chosen queries in make check."""

from __future__ import annotations

import pytest
from conftest import build_graph
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search import FIXTURE, QUERY_ALPHABET, names

from rdx.search.names import SearchIndex, search_declarations

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def records():
    return list(build_graph(FIXTURE)._view.state.declarations.values())


@pytest.fixture(scope="module")
def index(records):
    return SearchIndex(records)


@settings(max_examples=300, deadline=None)
@given(query=st.text(alphabet=QUERY_ALPHABET, min_size=1, max_size=8), mode=st.sampled_from(["fuzzy", "prefix", "exact"]))
def test_indexed_search_equals_scoring_everything(records, index, query, mode):
    assert names(search_declarations(records, query, mode, index=index)) == names(search_declarations(records, query, mode))
