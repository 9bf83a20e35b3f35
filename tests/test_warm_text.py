"""The text index on a warm open (issue 23): attached when first needed, and checked in full
only when the database is not as rdx last left it (its stamp).

Checked against a fresh index of the same project, and against the damage each check is
there to find: rows changed by another program, bytes changed in place with the file's
modification time set back.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

import rdx
import rdx.search.text_index as text_index
from rdx.search.text_index import STAMP_SUFFIX, TextIndex

EXAMPLE = Path(rdx.__file__).parent / "data" / "example"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".rdx"))
    return root


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The full checks (SQLite's and every row sum) run from now on, by their verdicts."""
    seen: list[str] = []
    real = text_index.check_database

    def counted(db: sqlite3.Connection) -> str | None:
        verdict = real(db)
        seen.append(verdict or "ok")
        return verdict

    monkeypatch.setattr(text_index, "check_database", counted)
    return seen


def indexed(tmp_path: Path) -> str:
    """A text index of two files, written, settled and closed (so stamped)."""
    for name, text in (("a.rb", "class Alpha; end\n"), ("b.md", "# Beta\n")):
        (tmp_path / name).write_text(text)
    path = str(tmp_path / "text.sqlite")
    index = TextIndex(path)
    index.sync([(str(tmp_path / n), os.stat(tmp_path / n).st_size, os.stat(tmp_path / n).st_mtime_ns) for n in ("a.rb", "b.md")])
    index.close()
    return path


def test_an_index_as_rdx_left_it_opens_without_the_full_check(tmp_path, checks):
    path = indexed(tmp_path)
    assert os.path.exists(path + STAMP_SUFFIX) and text_index.stamp_holds(path)
    again = TextIndex(path)
    assert again.problem is None and sorted(os.path.basename(p) for p in again.files) == ["a.rb", "b.md"]
    assert checks == []
    # Reading leaves the file as it was: the next open is as cheap.
    assert again.body(str(tmp_path / "a.rb")) == b"class Alpha; end\n"
    again.close()
    assert TextIndex(path).problem is None and checks == []


def test_rows_changed_by_another_program_are_checked_and_rebuilt(tmp_path, checks):
    path = indexed(tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE files SET size = size + 1")
    db.commit()
    db.close()
    damaged = TextIndex(path)
    assert checks and checks[0] != "ok" and damaged.problem is not None and "checksum" in (damaged.problem or "")
    damaged.sync([(str(tmp_path / "a.rb"), os.stat(tmp_path / "a.rb").st_size, os.stat(tmp_path / "a.rb").st_mtime_ns)])
    assert sorted(damaged.files) == [str(tmp_path / "a.rb")] and damaged.body(str(tmp_path / "a.rb")) == b"class Alpha; end\n"
    damaged.close()  # Rebuilt, settled and stamped: trusted again.
    checks.clear()
    assert TextIndex(path).problem is None and checks == []


def test_bytes_changed_in_place_with_the_old_mtime_are_still_checked(tmp_path, checks):
    """The stamp holds the ctime too, which no program can set back."""
    path = indexed(tmp_path)
    before = os.stat(path)
    data = bytearray(Path(path).read_bytes())
    at = data.rfind(b"Alpha")
    assert at > 0
    data[at : at + 5] = b"Omega"
    Path(path).write_bytes(bytes(data))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns and os.stat(path).st_size == before.st_size
    assert not text_index.stamp_holds(path)
    TextIndex(path).close()
    assert len(checks) == 1


def test_a_log_with_frames_is_not_trusted_by_the_stamp(tmp_path, checks):
    path = indexed(tmp_path)
    writer = TextIndex(path)
    writer.put(str(tmp_path / "c.rb"), b"class Gamma; end\n")  # Committed to the log, not settled.
    assert os.path.getsize(path + "-wal") > 0 and not text_index.stamp_holds(path)
    reader = TextIndex(path)
    assert len(checks) == 1 and reader.problem is None and str(tmp_path / "c.rb") in reader.files
    reader.close()
    writer.close()


def _record_opens(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The paths of the text indexes opened from now on (None: in memory)."""
    opened: list[str | None] = []
    real = TextIndex.__init__

    def recording(self: TextIndex, path: str | None = None) -> None:
        opened.append(path)
        real(self, path)

    monkeypatch.setattr(TextIndex, "__init__", recording)
    return opened


def test_a_warm_open_attaches_the_text_index_when_first_needed(project, tmp_path, monkeypatch):
    rdx.Graph.open(project).resolve()  # Cold: the whole cache is made, text index included.
    opened = _record_opens(monkeypatch)
    g = rdx.Graph.open(project)
    assert g.open_stats["resolved"] and g["Review"].name == "Review"
    assert opened == []
    fresh = rdx.Graph.open(project, cache_dir=tmp_path / "fresh")
    opened.clear()
    assert [(h.path, h.line) for h in g.grep("Review")] == [(h.path, h.line) for h in fresh.grep("Review")]
    assert opened == [str(project / ".rdx" / text_index.INDEX_NAME)]


def test_a_damaged_text_index_is_reported_once_the_graph_greps(project, tmp_path):
    rdx.Graph.open(project)
    (project / ".rdx" / text_index.INDEX_NAME).write_bytes(b"not a database" * 300)
    g = rdx.Graph.open(project)
    hits = [(h.path, h.line) for h in g.grep("def ")]
    assert hits == [(h.path, h.line) for h in rdx.Graph.open(project, cache_dir=tmp_path / "fresh").grep("def ")]
    notes = [d.message for d in g.diagnostics if d.code == "snapshot-rebuilt"]
    assert len(notes) == 1 and text_index.INDEX_NAME in notes[0]


def test_a_file_changed_after_a_warm_open_is_grepped_as_refreshed(project):
    """A change reported to the graph before its first grep is in that grep's answer."""
    rdx.Graph.open(project)
    g = rdx.Graph.open(project)
    target = project / "app" / "models" / "review.rb"
    target.write_text(target.read_text() + "# zebra crossing\n")
    g.refresh_paths([str(target)])
    assert [(os.path.basename(h.path), h.text) for h in g.grep("zebra")] == [("review.rb", "# zebra crossing")]


def test_a_buffer_given_before_the_first_grep_wins_over_the_disk(project, monkeypatch):
    shop = project / "lib" / "shop.rb"
    assert [h for h in rdx.Graph.open(project).grep("module Shop") if h.path == str(shop)]
    opened = _record_opens(monkeypatch)
    g = rdx.Graph.open(project)
    review = project / "app" / "models" / "review.rb"
    g.index_source(review, "class Review\n  # unsaved zebra\nend\n")
    g.delete_document(shop)
    assert opened == []  # Buffers wait for the index.
    assert [(os.path.basename(h.path), h.line) for h in g.grep("zebra")] == [("review.rb", 2)]
    assert [h.path for h in g.grep("class Review")] == [str(review)] and not [h for h in g.grep("module Shop") if h.path == str(shop)]
    assert opened == [str(project / ".rdx" / text_index.INDEX_NAME)]
