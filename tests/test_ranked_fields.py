"""The fields ranked search re-scores a candidate by are made when its row is written (the
``rescore`` table of ``rdx.search.ranked``), and they are what stemming each word of the row's
texts alone gives: FTS5's Porter stem of the word's first token (the word itself when it has
none), for the words of its name, its summary, its namespace, the first 150 words of the rest
of its doc comment and its path and parameters; and its summary's words as written. The
oracle stems every word in a table of its own; the index stems a batch of words at once. Rows
of Ruby core, of the project, of another language, and rows rewritten by an edit are checked."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from conftest import write

import rdx

_WORD = re.compile(r"[A-Za-z]+|\d+")
_DOC_WORDS = 150



def _name(n: int, width: int = 2) -> str:
    """A word of letters only, one for each ``n``: aa, ab, ..."""
    letters = ""
    for _ in range(width):
        n, digit = divmod(n, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[digit] + letters
    return letters


# Words that one token does not make (digits beside letters, underscores, letters outside
# ASCII, a ligature, the Kelvin sign, a dotted capital I); doc comments longer than what is
# read of them: of short words (the first 150 are in its first 2,000 characters) and of long
# words, then short ones (they are not); every word its own, so that the 150th is seen.
_SHORT = " ".join("w" + _name(n) for n in range(600))
_LONG_THEN_SHORT = " ".join("x" * 55 + _name(n) for n in range(40)) + " " + " ".join("v" + _name(n) for n in range(300))
# Docs whose 150th word is a long one that starts ever further in: wherever a reader stops
# reading its first characters, one of them has that word cut there.
_CUT = "".join(
    f"  # Cut {width}.\n  #\n  # {' '.join(_name(n, width) for n in range(149))} {'y' * 3000} tail\n  def cut{width}; end\n\n" for width in range(1, 14)
)
RUBY = f"""
module Net2Http
  # Opens a UTF8 socket to the host, sha256-checked: café, İstanbul, ﬁle, K and naïve.
  #
  # {_SHORT}
  def open_socket(max_age, _retries = 3, utf8: true, **opts); end

  # Retries on timeout.
  #
  # {_LONG_THEN_SHORT}
  def retry_later(seconds_2); end

{_CUT}
  class Http2Stream < Struct.new(:id)
    # The stream's window, in octets (RFC7540 6.9).
    def window_size; end
  end
end
"""
PYTHON = 'def format_currency(amount_2, *, unit="$"):\n    """Formats an amount as currency: 1,000.00 US$."""\n    return amount_2\n'


class Oracle:
    """Stems each word alone, in a table of its own."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.executescript("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61'); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');")
        self.known: dict[str, str] = {}

    def stem(self, word: str) -> str:
        if word not in self.known:
            self.db.execute("INSERT INTO t(rowid, x) VALUES(1, ?)", (word,))
            row = self.db.execute("SELECT term FROM v WHERE offset = 0").fetchone()
            self.db.execute("DELETE FROM t")
            self.known[word] = row[0] if row else word
        return self.known[word]

    def text(self, words: list[str]) -> str:
        stems = list(dict.fromkeys(self.stem(w) for w in words))
        return " " + " ".join(stems) + " " if stems else " "

    def fields(self, words: str, namespace: str, summary: str, doc: str, path: str) -> tuple[str, ...]:
        said = _WORD.findall(summary.lower())
        return (
            self.text(words.split()),
            self.text(said),
            self.text(namespace.split()),
            self.text(_WORD.findall(doc.lower())[:_DOC_WORDS]),
            self.text(path.split()),
            " " + " ".join(said) + " ",
        )


def check_fields(graph: rdx.Graph, oracle: Oracle) -> int:
    """Every row's stored fields are the oracle's; the number of rows checked."""
    db: sqlite3.Connection = graph._view.symbol_index._db
    texts = {
        rowid: (words, namespace, summary, doc, path)
        for rowid, words, namespace, summary, doc, path in db.execute(
            "SELECT d.rowid, d.words, s.namespace, s.summary, s.doc, s.path FROM decl d JOIN sym s ON s.rowid = d.rowid"
        )
    }
    stored = {row[0]: row[1:] for row in db.execute("SELECT rowid, name_stems, summary_stems, namespace_stems, doc_stems, path_stems, summary_words FROM rescore")}
    assert stored.keys() == texts.keys()
    for rowid, text in texts.items():
        assert stored[rowid] == oracle.fields(*text), text
    return len(texts)


def test_the_stored_fields_are_each_word_stemmed_alone(tmp_path: Path) -> None:
    write(tmp_path / "lib/net.rb", RUBY)
    write(tmp_path / "lib/money.py", PYTHON)
    graph = rdx.Graph.open([tmp_path], cache_dir=str(tmp_path / "cache"))
    graph.resolve()
    found = graph.search("open a utf8 socket")
    assert [d.name for d in found][:1] == ["Net2Http#open_socket()"]
    oracle = Oracle()
    assert check_fields(graph, oracle) > 1000  # Ruby core's rows with the project's.
    # The first 150 words of the rest of a doc comment, however long its words.
    db = graph._view.symbol_index._db
    docs = dict(db.execute("SELECT d.name, f.doc_stems FROM rescore f JOIN decl d ON d.rowid = f.rowid WHERE d.name LIKE 'Net2Http#%'").fetchall())
    assert f" w{_name(149)} " in docs["Net2Http#open_socket()"] and f" w{_name(150)} " not in docs["Net2Http#open_socket()"]
    assert f" v{_name(109)} " in docs["Net2Http#retry_later()"] and f" v{_name(110)} " not in docs["Net2Http#retry_later()"]
    assert [d.name for d in graph.search("formats an amount as currency")][:1] == ["money.format_currency"]

    # Rows written again by an edit (the index advanced to the next revision), and restored.
    write(tmp_path / "lib/net.rb", RUBY.replace("Retries on timeout.", "Tries again after a timeout, in 2 seconds (½ on retry).").replace("window_size", "window_bytes"))
    write(tmp_path / "lib/more.rb", "module Net2Http\n  # Gzip-compresses the body, level 9.\n  def deflate9(body); end\nend\n")
    graph.refresh_paths([str(tmp_path / "lib/net.rb"), str(tmp_path / "lib/more.rb")])
    graph.resolve()
    assert [d.name for d in graph.search("compresses the body")][:1] == ["Net2Http#deflate9()"]
    check_fields(graph, oracle)
    graph.save()
    again = rdx.Graph.open([tmp_path], cache_dir=str(tmp_path / "cache"))
    assert [d.name for d in again.search("tries again after a timeout")][:1] == ["Net2Http#retry_later()"]
    check_fields(again, oracle)
