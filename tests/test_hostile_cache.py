"""A hostile cache: damaged files, a full disk, an unwritable cache directory (issue 20).

Each case damages one part of a project's cache (or takes the disk away), opens the project
again and checks two things: the answers of show, refs, search and grep are those of a fresh
index of the same project, and one diagnostic names the damaged part. Nothing damaged is
served; nothing is left behind on a full disk; an unwritable cache is reported, not silent.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

import rdx
import rdx.cli.main
import rdx.search.text_index as text_index
from rdx.cache.snapshot import FOREIGN_NAME, IMAGE_NAME, SNAPSHOT_NAME
from rdx.search.ranked import SYMBOLS_NAME

EXAMPLE = Path(rdx.__file__).parent / "data" / "example"
LOCK = "GEM\n  remote: https://rubygems.org/\n  specs:\n    widget (1.2.0)\n"
WIDGET = "module Widget\n  # Turns the crank.\n  class Crank\n    def turn; end\n  end\nend\n"
CACHE_CODES = ("snapshot-rebuilt", "snapshot-unwritable", "gem-cache-damaged", "gem-cache-unwritable")


@pytest.fixture
def gem_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "gem-cache"
    monkeypatch.setenv("RDX_GEM_CACHE", str(cache))
    return cache


@pytest.fixture
def project(tmp_path: Path, gem_cache: Path) -> Path:
    """The built-in example (Ruby, a Rails model, Python, TypeScript) with one bundled gem."""
    return make_project(tmp_path / "shop")


def make_project(root: Path) -> Path:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".rdx"))  # A cache `rdx demo` left there.
    (root / "Gemfile.lock").write_text(LOCK)
    lib = root / "vendor" / "bundle" / "ruby" / "3.1.0" / "gems" / "widget-1.2.0" / "lib"
    lib.mkdir(parents=True)
    (lib / "widget.rb").write_text(WIDGET)
    (root / "lib" / "machine.rb").write_text("class Machine < Widget::Crank\n  def run\n    turn\n  end\nend\n")
    return root


def answers(g: rdx.Graph) -> dict[str, object]:
    """What the commands answer: show, refs, search, grep (locations as strings)."""
    return {
        "show": [msgspec.to_builtins(g[name].summary()) for name in ("Review", "Shop::Pricing", "Machine", "Widget::Crank")],
        "refs": [str(r.location) for name in ("Widget::Crank#turn()", "Widget::Crank") for r in g.references_to(name)],
        "search": [d.name for d in g.search("turns the crank")] + [d.name for d in g.search("price tax")],
        "grep": [(h.path, h.line, h.column) for pattern in ("Review", "def ", "price") for h in g.grep(pattern)],
    }


def warm(project: Path) -> dict[str, object]:
    """Index the project with its cache (every cache file written) and answer."""
    g = rdx.Graph.open(project)
    out = answers(g)
    g.prepare_queries()
    assert not [d for d in g.diagnostics if d.code in CACHE_CODES]
    return out


def fresh(project: Path, tmp_path: Path) -> dict[str, object]:
    """The answers of a fresh index of ``project`` (a cache directory of its own). A project
    whose files are those ``project`` makes has the answers ``_pristine_answers`` computed once
    for the module (most tests compare with them two or three times, about a tenth of a second
    each), with its root in place of the one they were computed under; any other is indexed."""
    pristine = _PRISTINE.get("files")
    if pristine is not None and _files_of(project) == pristine:
        return _rebased(_PRISTINE["answers"], str(_PRISTINE["root"]), str(project))
    return answers(rdx.Graph.open(project, cache_dir=tmp_path / "fresh-cache"))


def _files_of(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but its cache (``.rdx``), by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".rdx" not in p.relative_to(root).parts
    }


def _rebased(value: object, old: str, new: str) -> object:
    """``value`` with ``old`` (a project root) replaced by ``new`` in every string in it."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {k: _rebased(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_rebased(v, old, new) for v in value)
    return value


_PRISTINE: dict[str, object] = {}


@pytest.fixture(scope="module", autouse=True)
def _pristine_answers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The answers of a fresh index of the project the ``project`` fixture makes, computed once
    for the module in a directory of its own, with a gem cache of its own (``fresh`` gives them
    to each test whose project's files are still those)."""
    base = tmp_path_factory.mktemp("pristine")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RDX_GEM_CACHE", str(base / "gem-cache"))
        root = make_project(base / "shop")
        _PRISTINE.update(files=_files_of(root), root=root, answers=answers(rdx.Graph.open(root, cache_dir=base / "fresh-cache")))
    yield
    _PRISTINE.clear()


def flip(path: Path, seed: int, count: int = 64) -> None:
    """``count`` bits flipped at seeded random places."""
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for _ in range(count):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))


def cache_notes(g: rdx.Graph) -> list[str]:
    return [d.message for d in g.diagnostics if d.code in CACHE_CODES]


def gem_file(project: Path) -> Path:
    return next(Path(os.environ["RDX_GEM_CACHE"]).glob("widget-1.2.0-*.msgpack"))


# (damaged file, how to find it, the words of its diagnostic)
FILES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("snapshot", lambda p: p / ".rdx" / SNAPSHOT_NAME, SNAPSHOT_NAME),
    ("resolved", lambda p: p / ".rdx" / IMAGE_NAME, IMAGE_NAME),
    ("foreign", lambda p: p / ".rdx" / FOREIGN_NAME, FOREIGN_NAME),
    ("symbols", lambda p: p / ".rdx" / SYMBOLS_NAME, SYMBOLS_NAME),
    ("text", lambda p: p / ".rdx" / text_index.INDEX_NAME, text_index.INDEX_NAME),
    ("gem", gem_file, "widget-1.2.0"),
]


# make check flips bytes with seed 1 in the snapshot, the text index (SQLite) and the gem cache;
# seeds 2 and 3 are marked corpus, and the other parts, msgpack files checked as the snapshot is,
# slow (make test runs them all).
FAST_PARTS = ("snapshot", "text", "gem")


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.corpus), pytest.param(3, marks=pytest.mark.corpus)])
@pytest.mark.parametrize(
    "part, where, words", [f if f[0] in FAST_PARTS else pytest.param(*f, marks=pytest.mark.slow) for f in FILES], ids=[f[0] for f in FILES]
)
def test_flipped_bytes_are_found_discarded_and_rebuilt(project, tmp_path, part, where, words, seed):
    warm(project)
    damaged = where(project)
    flip(damaged, seed)
    g = rdx.Graph.open(project)
    assert answers(g) == fresh(project, tmp_path)
    notes = cache_notes(g)
    assert len(notes) == 1 and words in notes[0], notes
    # Repaired: the next open finds nothing wrong.
    again = rdx.Graph.open(project)
    assert answers(again) == fresh(project, tmp_path) and cache_notes(again) == []


def test_a_damaged_gem_cache_entry_does_not_break_another_project(project, tmp_path):
    warm(project)
    flip(gem_file(project), 7)
    # Another project's cache (the gem cache is the user's, shared): it reads the same entry.
    g = rdx.Graph.open(project, cache_dir=tmp_path / "another-project-cache")
    assert "Widget::Crank#turn()" in g and any("widget-1.2.0" in n for n in cache_notes(g))
    assert g.open_stats["gem_files_parsed"] == 1


def _damage_pricing(project: Path) -> Path:
    """A same-length edit inside the snapshot's documents that hold ``price_with_tax``."""
    snapshot = project / ".rdx" / SNAPSHOT_NAME
    data = snapshot.read_bytes()
    assert data.count(b"price_with_tax") >= 1
    snapshot.write_bytes(data.replace(b"price_with_tax", b"price_wXth_tax"))
    return snapshot


def test_one_damaged_document_is_parsed_again_alone(project, tmp_path):
    """A same-length edit inside documents of the snapshot. The open sums no document (it
    decodes none); each is checked when first read. Those that fail are parsed again from
    their files, reported once, and the snapshot is rewritten without the damage; the other
    documents come from the snapshot."""
    warm(project)
    snapshot = _damage_pricing(project)
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 0 and g.open_stats["resolved"] is True
    assert "Shop::Pricing#price_with_tax()" in g and "Shop::Pricing#price_wXth_tax()" not in g
    assert answers(g) == fresh(project, tmp_path)
    notes = cache_notes(g)
    assert len(notes) == 1 and SNAPSHOT_NAME in notes[0] and "fail their checksum" in notes[0], notes
    # Healed: rewritten without the damage, every document still in it.
    assert b"price_wXth_tax" not in snapshot.read_bytes() and b"price_with_tax" in snapshot.read_bytes()
    again = rdx.Graph.open(project)
    assert again.open_stats["parsed"] == 0 and again.open_stats["resolved"] is True
    assert answers(again) == fresh(project, tmp_path) and cache_notes(again) == []


def test_a_damaged_document_is_never_copied_into_a_new_snapshot(project, tmp_path):
    """An open that rewrites the snapshot (a file changed) copies the documents it did not
    decode as they are, and checks each first: a damaged one is parsed again instead."""
    warm(project)
    snapshot = _damage_pricing(project)
    with open(project / "lib" / "machine.rb", "a") as f:
        f.write("Machine.new\n")
    g = rdx.Graph.open(project)
    assert g.open_stats["parsed"] == 1
    assert b"price_wXth_tax" not in snapshot.read_bytes()
    assert answers(g) == fresh(project, tmp_path)
    again = rdx.Graph.open(project)
    assert answers(again) == fresh(project, tmp_path) and cache_notes(again) == []


def test_damage_found_while_a_writer_holds_the_lock_is_answered_right_and_found_again(project, tmp_path):
    """The rewrite waits for no writer (it may be this process's own, copying these very
    documents): without the lock, the snapshot is left, and the next open finds the damage
    again, parses those files again and heals it."""
    import fcntl

    warm(project)
    snapshot = _damage_pricing(project)
    with open(project / ".rdx" / "lock", "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        g = rdx.Graph.open(project)
        assert answers(g) == fresh(project, tmp_path) and len(cache_notes(g)) == 1
        assert b"price_wXth_tax" in snapshot.read_bytes()
    again = rdx.Graph.open(project)
    assert answers(again) == fresh(project, tmp_path) and len(cache_notes(again)) == 1
    assert b"price_wXth_tax" not in snapshot.read_bytes()


def test_a_snapshot_replaced_since_the_open_is_not_rewritten_from_the_old_one(project, tmp_path):
    """Damage found in a snapshot that another writer has replaced since: the new file is
    left as it is (the old one's documents would be older than it)."""
    warm(project)
    _damage_pricing(project)
    g = rdx.Graph.open(project)
    other = rdx.Graph.open(project, cache_dir=tmp_path / "other")
    shutil.copy(tmp_path / "other" / SNAPSHOT_NAME, project / ".rdx" / SNAPSHOT_NAME)
    replaced = (project / ".rdx" / SNAPSHOT_NAME).read_bytes()
    assert answers(g) == answers(other) == fresh(project, tmp_path)
    assert (project / ".rdx" / SNAPSHOT_NAME).read_bytes() == replaced and len(cache_notes(g)) == 1


# make check edits the resolved image; the other two, checked the same way, run in make test.
@pytest.mark.parametrize(
    "name, word", [(IMAGE_NAME, b"Crank"), pytest.param(FOREIGN_NAME, b"money", marks=pytest.mark.slow), pytest.param(SYMBOLS_NAME, b"Crank", marks=pytest.mark.slow)]
)
def test_a_same_length_edit_in_a_whole_file_is_never_served(project, tmp_path, name, word):
    warm(project)
    path = project / ".rdx" / name
    data = path.read_bytes()
    assert word in data
    path.write_bytes(data.replace(word, word[:2] + b"X" + word[3:]))
    g = rdx.Graph.open(project)
    assert answers(g) == fresh(project, tmp_path)
    assert any(name in n for n in cache_notes(g))


def test_damaged_text_rows_are_read_again_not_served(project, tmp_path):
    """Bodies changed in place pass SQLite's structural check; their checksum does not."""
    warm(project)
    db = sqlite3.connect(project / ".rdx" / text_index.INDEX_NAME)
    db.execute("UPDATE bodies SET body = replace(body, 'Review', 'Rxview')")
    db.commit()
    db.close()
    g = rdx.Graph.open(project)
    assert answers(g) == fresh(project, tmp_path)
    assert any("failed its checksum" in n for n in cache_notes(g))


def test_a_text_index_failing_at_query_time_is_rebuilt_and_answers(project, tmp_path, monkeypatch):
    warm(project)
    g = rdx.Graph.open(project)
    real = text_index.TextIndex._candidates
    calls = {"n": 0}

    def failing_once(self, requirement, deadline):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1:
            error = sqlite3.DatabaseError("database disk image is malformed")
            error.sqlite_errorcode = 11  # type: ignore[attr-defined]
            raise error
        return real(self, requirement, deadline)

    monkeypatch.setattr(text_index.TextIndex, "_candidates", failing_once)
    assert [(h.path, h.line) for h in g.grep("Review")] == [(h.path, h.line) for h in rdx.Graph.open(project, cache_dir=tmp_path / "f").grep("Review")]
    assert any("corrupted" in n for n in cache_notes(g))


def test_verify_reports_and_repairs(project, capsys):
    warm(project)
    assert rdx.cli.main.main(["index", "--verify", str(project)]) == 0
    assert "everything is intact" in capsys.readouterr().out
    flip(project / ".rdx" / IMAGE_NAME, 1)
    db = sqlite3.connect(project / ".rdx" / text_index.INDEX_NAME)
    db.execute("UPDATE bodies SET body = replace(body, 'Review', 'Rxview')")
    db.commit()
    db.close()
    flip(gem_file(project), 1)
    assert rdx.cli.main.main(["index", "--verify", str(project)]) == 0
    out = capsys.readouterr().out
    assert IMAGE_NAME in out and "text.sqlite" in out and "widget-1.2.0" in out and "repaired" in out
    assert rdx.cli.main.main(["index", "--verify", str(project)]) == 0
    assert "everything is intact" in capsys.readouterr().out


# -- a full disk ------------------------------------------------------------------------------


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write of the cache fails as a full disk fails: atomic writes at fsync (after their
    temporary file was written), the text index's database when it stores a file."""

    def no_space(*_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)
    real_store = text_index.TextIndex._store

    def store(self, *args):  # type: ignore[no-untyped-def]
        if self.path is not None:
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorcode = 13  # type: ignore[attr-defined]
            raise error
        return real_store(self, *args)

    monkeypatch.setattr(text_index.TextIndex, "_store", store)


def leftovers(project: Path) -> list[str]:
    return sorted(p.name for p in (project / ".rdx").iterdir() if p.name.endswith(".tmp"))


def test_a_full_disk_answers_from_memory_and_leaves_nothing_behind(project, tmp_path, full_disk):
    g = rdx.Graph.open(project)
    assert answers(g) == fresh(project, tmp_path)
    notes = cache_notes(g)
    assert notes and all(n.startswith("cannot write the cache at") and "no space left on device" in n for n in notes)
    assert any(str(project / ".rdx") in n for n in notes) and any(os.environ["RDX_GEM_CACHE"] in n for n in notes)
    assert leftovers(project) == [] and not list(Path(os.environ["RDX_GEM_CACHE"]).glob("*.tmp"))


def test_the_cli_says_so_in_one_line_and_answers(project, full_disk, capsys):
    assert rdx.cli.main.main(["show", "Review", "-p", str(project)]) == 0
    captured = capsys.readouterr()
    assert "Review (Class)" in captured.out
    disk_lines = [line for line in captured.err.splitlines() if "no space left on device" in line]
    assert disk_lines and all(line.startswith("rdx: warning: cannot write the cache at") for line in disk_lines)
    assert leftovers(project) == []


# -- an unwritable cache directory ------------------------------------------------------------


def test_an_unwritable_cache_dir_is_reported_and_answers_still_come(project, tmp_path, capsys):
    """A cache directory under a regular file cannot be made, even by root."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cache = str(blocker / "sub")
    assert rdx.cli.main.main(["index", str(project), "--cache-dir", cache]) == 1  # its job was the cache
    captured = capsys.readouterr()
    assert "indexed" in captured.out and f"cannot write the cache at {cache}: not a directory" in captured.err
    assert rdx.cli.main.main(["show", "Review", "-p", str(project), "--cache-dir", cache]) == 0
    captured = capsys.readouterr()
    assert "Review (Class)" in captured.out and "cannot write the cache" in captured.err


def test_trigram_sums_settle_after_writes_and_are_checked(tmp_path: Path) -> None:
    """A write leaves the trigram tables' sums pending (so a keystroke does not pay for
    summing the whole index); ``settle`` computes them, and damage found after that rebuilds."""
    (tmp_path / "a.rb").write_text("class Alpha; end\n")
    path = str(tmp_path / "text.sqlite")
    index = text_index.TextIndex(path)
    st = os.stat(tmp_path / "a.rb")
    index.sync([(str(tmp_path / "a.rb"), st.st_size, st.st_mtime_ns)])
    sums = lambda: dict(sqlite3.connect(path).execute("SELECT name, value FROM sums").fetchall())  # noqa: E731
    assert sums()["grams_data"] == text_index.PENDING
    # Another process opening it meanwhile neither rebuilds nor loses it.
    other = text_index.TextIndex(path)
    assert other.problem is None and sorted(other.files) == [str(tmp_path / "a.rb")]
    other.close()
    index.put(str(tmp_path / "b.rb"), b"class Beta; end\n")
    index.settle()
    assert text_index.PENDING not in sums().values()
    db = sqlite3.connect(path)
    assert text_index.check_database(db) is None
    # A changed block of the trigram index now fails its sum.
    db.execute("UPDATE grams_data SET block = block || x'00' WHERE id = (SELECT max(id) FROM grams_data)")
    db.commit()
    assert "grams_data" in (text_index.check_database(db) or "")
    index.close()
    again = text_index.TextIndex(path)
    assert again.problem is not None and "checksum" in again.problem


def test_rdx_grep_says_it_rebuilt_a_damaged_text_index(project, capsys):
    assert rdx.cli.main.main(["index", str(project)]) == 0
    capsys.readouterr()
    (project / ".rdx" / "text.sqlite").write_bytes(b"not a database" * 300)
    assert rdx.cli.main.main(["grep", "def publish!", str(project)]) == 0
    captured = capsys.readouterr()
    assert "review.rb:10:3:  def publish!" in captured.out
    assert [line for line in captured.err.splitlines() if line.startswith("rdx: warning: text index")], captured.err
