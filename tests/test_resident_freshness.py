"""The resident server's re-check before each answer (``rdx.cli.freshness.Freshness``): which
paths a sweep hands to ``Graph.refresh_paths`` after each kind of change, which changes mean a
fresh server instead, and that the watch loop's batches and the sweeps never apply a change
twice."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import write

from rdx.cli.freshness import Freshness
from rdx.search.text_workspace import walk_every_file
from rdx.workspace.config import load_config


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    write(root / "lib" / "a.rb", "class A; end\n")
    write(root / "lib" / "b.rb", "class B; end\n")
    write(root / "README.md", "# p\n")
    (root / "empty").mkdir()
    (root / ".git").mkdir()
    write(root / "tmp" / "scratch.rb", "x = 1\n")  # a skipped directory
    return root


@pytest.fixture(params=["stat", "inotify"])
def scanned(request):
    """Record a project as the server does. ``stat``: every sweep compares every file;
    ``inotify``: after one full sweep, sweeps read only what inotify's events name (the
    server's way on Linux); both must find the same changes."""

    def scan(root: Path) -> Freshness:
        config = load_config(str(root))
        f = Freshness([str(root)], keeps=lambda path: config.keeps(path, str(root)))
        f.watch_restart([str(root / "rdx.toml")])
        f.scan(e.path for e in walk_every_file([str(root)], load_config(str(root))))
        if request.param == "inotify":
            assert f.listen()
            assert f.sweep() == ([], None)  # the one full sweep; events from here on
            assert f.journal is not None
        return f

    return scan


def touch(path: Path, text: str) -> None:
    """Rewrite ``path`` so that its stat changes even on a coarse clock."""
    st = path.stat() if path.exists() else None
    path.write_text(text)
    if st is not None:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def check_sweep(f: Freshness, expected: list[Path], restart: bool = False) -> None:
    changed, reason = f.sweep()
    assert (reason is not None) == restart, reason
    assert changed == sorted(str(p) for p in expected)
    if not restart:
        assert f.sweep() == ([], None)  # recorded: the next sweep finds nothing


def test_nothing_changed_nothing_to_refresh(tree, scanned):
    check_sweep(scanned(tree), [])


def test_edits_additions_and_removals(tree, scanned):
    f = scanned(tree)
    touch(tree / "lib" / "a.rb", "class A; def x; end; end\n")
    check_sweep(f, [tree / "lib" / "a.rb"])
    write(tree / "lib" / "c.rb", "class C; end\n")
    check_sweep(f, [tree / "lib" / "c.rb"])
    (tree / "lib" / "b.rb").unlink()
    check_sweep(f, [tree / "lib" / "b.rb"])
    write(tree / "empty" / "new.rb", "class N; end\n")  # in a directory that held no file
    check_sweep(f, [tree / "empty" / "new.rb"])
    write(tree / "lib" / "deep" / "er" / "d.rb", "class D; end\n")  # a new directory
    check_sweep(f, [tree / "lib" / "deep", tree / "lib" / "deep" / "er" / "d.rb"])
    os.rename(tree / "lib" / "deep", tree / "lib" / "moved")
    changed, reason = f.sweep()
    assert reason is None and str(tree / "lib" / "deep") in changed and str(tree / "lib" / "moved") in changed
    write(tree / "tmp" / "ignored.rb", "x = 2\n")
    write(tree / ".git" / "HEAD", "ref\n")
    check_sweep(f, [])  # skipped directories are not the project's


def test_a_file_the_walk_skipped_is_watched_too(tree, scanned):
    write(tree / "rdx.toml", 'max_file_size = 10\nexclude = ["doc/**"]\n')
    write(tree / "lib" / "big.rb", "class Big; def x; end; end\n")  # too large: not indexed
    write(tree / "doc" / "x.rb", "class X; end\n")  # excluded
    f = scanned(tree)
    touch(tree / "lib" / "big.rb", "class S\n")  # small enough now
    touch(tree / "doc" / "x.rb", "class Y; end\n")
    check_sweep(f, [tree / "lib" / "big.rb"])


def test_new_directories_are_seen_under_include_globs(tree, scanned):
    write(tree / "rdx.toml", 'include = ["lib/**/*.rb"]\n')
    (tree / "lib" / "later").mkdir()
    f = scanned(tree)
    write(tree / "lib" / "later" / "l.rb", "class L; end\n")
    write(tree / "lib" / "new" / "n.rb", "class N; end\n")
    write(tree / "lib" / "new" / "notes.txt", "not included\n")
    check_sweep(f, [tree / "lib" / "later" / "l.rb", tree / "lib" / "new", tree / "lib" / "new" / "n.rb"])


def test_changes_that_need_a_fresh_server(tree, scanned):
    f = scanned(tree)
    write(tree / "rdx.toml", 'exclude = ["README.md"]\n')
    check_sweep(f, [], restart=True)
    f = scanned(tree)
    write(tree / "lib" / ".gitignore", "b.rb\n")
    check_sweep(f, [], restart=True)
    f = scanned(tree)
    (tree / "lib" / "link.rb").symlink_to(tree / "lib" / "a.rb")
    check_sweep(f, [], restart=True)


def test_the_watch_loop_and_the_sweep_apply_each_change_once(tree, scanned):
    f = scanned(tree)
    a = tree / "lib" / "a.rb"
    touch(a, "class A; def y; end; end\n")
    assert f.note([str(a)]) == ([str(a)], None)  # the watch loop applies it...
    check_sweep(f, [])  # ...so the sweep does not
    time.sleep(0.01)
    touch(a, "class A; def z; end; end\n")
    check_sweep(f, [a])  # the sweep applies it first...
    assert f.note([str(a)]) == ([], None)  # ...so the watch loop's late batch does not
    new = tree / "lib" / "n.rb"
    write(new, "class N; end\n")
    assert f.note([str(new)]) == ([str(new)], None)
    check_sweep(f, [])
    assert f.note([str(tree / "lib" / ".gitignore")])[1] is not None


def test_with_inotify_a_sweep_looks_only_at_what_changed(tmp_path, monkeypatch):
    """The point of ``listen``: on a project of many files, a sweep after one edit stats that
    file (and its directory), not every file; with nothing changed it stats nothing but the
    restart paths nothing can watch."""
    import rdx.cli.freshness as freshness

    root = tmp_path / "p"
    for i in range(300):
        write(root / "lib" / f"d{i % 10}" / f"f{i}.rb", f"class F{i}; end\n")
    f = Freshness([str(root)])
    f.watch_restart([str(root / "rdx.toml")])
    f.scan(e.path for e in walk_every_file([str(root)], load_config(str(root))))
    assert f.listen() and f.sweep() == ([], None)
    calls: list[str] = []
    real = freshness._sig
    monkeypatch.setattr(freshness, "_sig", lambda path: calls.append(path) or real(path))
    assert f.sweep() == ([], None) and calls == []
    edited = root / "lib" / "d3" / "f13.rb"
    touch(edited, "class F13; def x; end; end\n")
    assert f.sweep() == ([str(edited)], None)
    assert set(calls) <= {str(edited), str(edited.parent)}
    calls.clear()
    write(root / "lib" / "d4" / "new.rb", "class New; end\n")
    assert f.sweep() == ([str(root / "lib" / "d4" / "new.rb")], None)
    assert len(calls) < 5


def test_an_overflowed_queue_means_one_full_sweep_then_events_again(tree, monkeypatch):
    """When the kernel dropped events (queue overflow), the next sweep compares everything,
    with the watches set up again first, and later sweeps go back to events."""
    config = load_config(str(tree))
    f = Freshness([str(tree)], keeps=lambda path: config.keeps(path, str(tree)))
    f.scan(e.path for e in walk_every_file([str(tree)], config))
    assert f.listen() and f.sweep() == ([], None)
    first = f.journal
    # Lose an edit's event, as an overflow would, and mark the queue overflowed.
    touch(tree / "lib" / "a.rb", "class A; def lost; end; end\n")
    first.pending()
    first.broken = True
    assert f.sweep() == ([str(tree / "lib" / "a.rb")], None)  # the full sweep finds it
    assert f.journal is not None and f.journal is not first
    touch(tree / "lib" / "b.rb", "class B; def z; end; end\n")
    assert f.sweep() == ([str(tree / "lib" / "b.rb")], None)
    assert not f.journal.broken and f.journal is not None
