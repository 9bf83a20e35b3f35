"""The ranked-search index carried across edits (``SymbolIndex.advance``) answers as one built
for the new revision from scratch: the same results in the same order, including for a
namespace that many files reopen, whose row is kept when an edit leaves it as it was and made
again when a reopening's comment changes."""

from __future__ import annotations

import pytest

import rdx

FILES = {
    f"file:///adv/part{n}.rb": f"module Parsing\n  # Step {n} of reading comma separated values.\n  class Step{n}\n    def run(row); end\n  end\nend\n"
    for n in range(8)
}
FILES["file:///adv/parsing.rb"] = "# Reads and writes delimited text files.\nmodule Parsing\n  def self.version; end\nend\n"

QUERIES = ["comma separated values", "delimited text", "reading step", "parsing version", "tab separated fields quickly", "run row", "splits quickly", "fixed width"]

EDITS = [
    # A body edit, a method added, a comment on a reopening changed, the namespace's own
    # comment changed, a file removed and one added.
    ("file:///adv/part3.rb", FILES["file:///adv/part3.rb"].replace("def run(row); end", "def run(row)\n      row.size\n    end")),
    ("file:///adv/part4.rb", FILES["file:///adv/part4.rb"].replace("def run(row); end", "def run(row); end\n    def finish(fields); end")),
    ("file:///adv/part5.rb", FILES["file:///adv/part5.rb"].replace("# Step 5 of reading comma separated values.", "# Splits tab separated fields quickly.")),
    ("file:///adv/parsing.rb", FILES["file:///adv/parsing.rb"].replace("# Reads and writes delimited text files.", "# Parsing of delimited and fixed width text.")),
    ("file:///adv/part6.rb", None),
    ("file:///adv/part9.rb", "module Parsing\n  # Tab separated fields, the last step.\n  class Step9\n  end\nend\n"),
]


def _answers(g: rdx.Graph) -> list[list[str]]:
    return [[d.name for d in g.search(q, limit=20)] for q in QUERIES]


def _fresh(files: dict[str, str]) -> rdx.Graph:
    g = rdx.Graph(core=False)
    for uri, text in files.items():
        g.index_source(uri, text)
    g.resolve()
    return g


@pytest.mark.parametrize("upto", range(1, len(EDITS) + 1))
def test_the_advanced_index_answers_as_a_fresh_one(upto):
    files = dict(FILES)
    g = _fresh(files)
    g.prepare_queries()
    assert _answers(g)  # the index exists before the edits, so that they advance it
    for uri, text in EDITS[:upto]:
        if text is None:
            files.pop(uri)
            g.delete_document(uri)
        else:
            files[uri] = text
            g.index_source(uri, text)
        g.resolve()
        assert g.last_resolve == "incremental"
        assert _answers(g) == _answers(_fresh(files))
