"""Cache files read through a mapping and let go of as they are read (issue 21).

The envelope's checksum of a mapped file is summed a slice at a time, each slice's pages let
go of once summed (``rdx.cache.envelope.mapped_checksum``), and the ranked-search database's
image is written to a private file a slice at a time rather than copied whole into memory
(``rdx.search.ranked``): a prepared graph of 10 copies of the Debian corpus peaked 1.5 GB above
what it holds while it restored that index. These tests check that what is read so is what a
plain read gives: the same sums, the same bytes after the pages are let go of, the same
answers from a restored index (with slices small enough that every path takes several). None
of them measures memory.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from pathlib import Path

import pytest
from conftest import write

import rdx
import rdx.cache.envelope as envelope
import rdx.search.ranked as ranked
from rdx.cache.envelope import checksum, mapped_checksum, open_envelope, release, seal

FILES = {
    "lib/a.rb": "module A\n  # Converts a title into a slug for URLs.\n  def self.slugify(s); end\nend\n",
    "lib/b.rb": "module B\n  # Splits comma separated values into fields.\n  def self.split_fields(s); end\n  class Row; end\nend\n",
}
QUERIES = ("url slug from a title", "split comma separated values", "Row", "fields")


def names(found: list[rdx.Declaration]) -> list[str]:
    return [d.name for d in found]


def mapped(path: Path) -> mmap.mmap:
    with open(path, "rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 3 * 4096 + 17])
def test_a_mapped_checksum_is_the_checksum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    monkeypatch.setattr(envelope, "_SLICE", 4096)
    data = os.urandom(size)
    (tmp_path / "f").write_bytes(b"x" * 7 + data)
    if size == 0:
        assert mapped_checksum(data) == checksum(data)
        return
    m = mapped(tmp_path / "f")
    view = memoryview(m)[7:]
    assert mapped_checksum(view) == checksum(data) == mapped_checksum(data)
    # The pages let go of are read again from the file: the same bytes.
    release(view)
    assert bytes(view) == data
    view.release()
    m.close()


def test_release_leaves_bytes_and_closed_maps_alone(tmp_path: Path) -> None:
    release(b"bytes")
    release(memoryview(b"bytes"))
    (tmp_path / "f").write_bytes(b"abc")
    m = mapped(tmp_path / "f")
    m.close()
    release(m)


def test_an_envelope_read_through_a_mapping_checks_as_read_into_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(envelope, "_SLICE", 4096)
    head = os.urandom(5 * 4096 + 3)
    path = tmp_path / "f"
    path.write_bytes(seal("symbols", head))
    m = mapped(path)
    assert bytes(open_envelope(m, "symbols").head) == head == bytes(open_envelope(path.read_bytes(), "symbols").head)
    damaged = bytearray(path.read_bytes())
    damaged[-100] ^= 1
    path.write_bytes(bytes(damaged))
    with pytest.raises(envelope.Damaged):
        open_envelope(mapped(path), "symbols")


def saved_index(tmp_path: Path) -> tuple[Path, dict[str, list[str]]]:
    """A project whose ranked-search index is saved, and the answers of the graph that built it."""
    for rel, text in FILES.items():
        write(tmp_path / rel, text)
    first = rdx.Graph.open([tmp_path])
    expected = {q: names(first.search(q)) for q in QUERIES}
    saved = tmp_path / ".rdx" / ranked.SYMBOLS_NAME
    assert saved.exists() and expected[QUERIES[0]][0] == "A::<A>#slugify()"
    return saved, expected


def test_a_restored_index_answers_as_the_one_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved, expected = saved_index(tmp_path)
    mtime = saved.stat().st_mtime_ns
    monkeypatch.setattr(envelope, "_SLICE", 4096)
    monkeypatch.setattr(ranked, "_SLICE", 4096)
    left = set(os.listdir(tempfile.gettempdir()))
    g = rdx.Graph.open([tmp_path])
    assert {q: names(g.search(q)) for q in QUERIES} == expected
    assert saved.stat().st_mtime_ns == mtime  # Restored, not rebuilt.
    # The private copy of the database's file is gone once opened.
    assert not {n for n in set(os.listdir(tempfile.gettempdir())) - left if n.startswith("rdx-symbols-")}
    # And the restored index takes edits as the built one does.
    write(tmp_path / "lib/b.rb", FILES["lib/b.rb"].replace("class Row; end", "class Row; end\n  # Joins fields with commas.\n  def self.join_fields(f); end"))
    g.refresh_paths([str(tmp_path / "lib/b.rb")])
    assert names(g.search("join fields with commas"))[0] == "B::<B>#join_fields()"


def test_without_a_writable_temporary_directory_the_index_is_restored_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved, expected = saved_index(tmp_path)
    mtime = saved.stat().st_mtime_ns
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    g = rdx.Graph.open([tmp_path])
    assert {q: names(g.search(q)) for q in QUERIES} == expected
    assert saved.stat().st_mtime_ns == mtime
