"""Bad input never crashes the index and never loses data.

One directory tree mixes good files with every kind of trouble a real checkout holds; it is
indexed sequentially (``jobs=1``) and with worker processes (``jobs=2``; the 1 MB file puts the
total, about 1.4 MB, well above the pool's in-process threshold of 256 KB). Every good file's
declarations must be present, every skipped folder absent, and every problem reported exactly
once with its path and a stable code. Behaviour that was wrong when these tests were written is
fixed; new gaps get ``xfail(strict=True)`` with a FIXME.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from conftest import run_ruby

import rdx
import rdx.api.graph
from rdx.ruby.discover.parse import MAX_NESTING
from rdx.workspace import files as files_mod
from rdx.workspace import pool as pool_mod
from rdx.workspace.files import FileEntry, path_to_uri
from rdx.workspace.pool import discover_file

DEPTH = 10_000
MODULE_DEPTH = 3_000  # over rdx.ruby.discover.parse.MAX_NESTING: cut at the limit (tests/test_hostile_depth.py)
BIG_TARGET = 1024 * 1024  # Four times the pool's in-process threshold: the size is not the point.


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text))
    return path


def big_source() -> tuple[str, int]:
    """About ``BIG_TARGET`` bytes (1 MB) of valid Ruby; returns the text and how many classes it defines."""
    pad = "x" * 200
    parts = []
    size = 0
    n = 0
    while size < BIG_TARGET:
        s = f"class Gen{n}\n  # {pad}\n  def m{n}(a, b) = a + b\nend\n"
        parts.append(s)
        size += len(s)
        n += 1
    return "".join(parts), n


def deep_sources() -> dict[str, tuple[str, str]]:
    """File name -> (source, a declaration defined after the deep part)."""
    n = DEPTH
    return {
        "deep_array.rb": ("class DeepArray\n  X = " + "[" * n + "]" * n + "\n  def after_array; end\nend\n", "DeepArray#after_array()"),
        "deep_paren.rb": ("class DeepParen\n  Z = " + "(" * n + "1" + ")" * n + "\n  def after_paren; end\nend\n", "DeepParen#after_paren()"),
        "deep_if.rb": (
            "class DeepIf\n  def m\n" + "if a\nbegin\n" * n + "end\nend\n" * n + "  end\n  def after_if; end\nend\n",
            "DeepIf#after_if()",
        ),
        "deep_blocks.rb": ("class DeepBlock\n  def m\n" + "f {\n" * n + "}\n" * n + "  end\n  def after_block; end\nend\n", "DeepBlock#after_block()"),
        "deep_chain.rb": ("class DeepChain\n  def m\n    x" + ".c" * n + "\n  end\n  def after_chain; end\nend\n", "DeepChain#after_chain()"),
        "deep_sum.rb": ("class DeepSum\n  Y = 1" + " + 1" * n + "\n  def after_sum; end\nend\n", "DeepSum#after_sum()"),
        "deep_modules.rb": (
            "".join(f"module D{i}\n" for i in range(MODULE_DEPTH)) + "def deepest; end\n" + "end\n" * MODULE_DEPTH + "class AfterModules; end\n",
            "AfterModules",
        ),
    }


GOOD_DECLARATIONS = [
    "Good",
    "Good#ok()",
    "Lib::Util",
    "Lib::Util::<Util>#helper()",
    "Nested::Deeper#more()",
    "Utf#m()",  # invalid UTF-8 in a comment: warned about, still indexed
    "Syn#ok()",  # before the syntax error
    "AfterError#fine()",  # after the syntax error
    "VendorOther",  # only vendor/bundle is skipped, not vendor/
    "RakeTask",  # Rakefile has no extension
    "Gen0#m0()",
]

SKIPPED_DECLARATIONS = ["Vendored", "NodeMod", "GitThing", "TmpThing", "IgnoredDir", "IgnoredFile", "IgnoredNested", "Binary", "NotRuby"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The shared, never-modified tree; returns (root, facts about it)."""
    root = tmp_path_factory.mktemp("bad_input") / "root"
    write(root / "good.rb", "class Good\n  def ok; end\nend\n")
    write(root / "lib" / "util.rb", "module Lib\n  module Util\n    def self.helper; end\n  end\nend\n")
    write(root / "nested" / "deeper" / "more.rb", "module Nested\n  class Deeper\n    def more; end\n  end\nend\n")
    write(root / "Rakefile", "class RakeTask; end\n")
    write(root / "README.md", "class NotRuby; end\n")
    write(root / "bad_utf8.rb", b"class Utf\n  # caf\xe9 \xff\xfe\n  def m; end\nend\n")
    write(root / "x.rb", b"\x00\x01\x02\x03class Binary; end\n\x00")
    write(root / "empty.rb", b"")
    write(root / "syntax.rb", "class Syn\n  def ok; end\nend\nfoo(1,,2)\nclass AfterError\n  def fine; end\nend\n")
    text, big_classes = big_source()
    write(root / "big.rb", text)
    for name, (src, _) in deep_sources().items():
        write(root / "deep" / name, src)
    # A file over the size limit: sparse, so it costs no disk and no time to create.
    with open(root / "huge.rb", "wb") as f:
        f.truncate(files_mod.MAX_FILE_BYTES + 1)
    # Folders that are never walked, and .gitignore rules at two levels.
    write(root / "vendor" / "bundle" / "ruby" / "gems" / "v.rb", "class Vendored; end\n")
    write(root / "vendor" / "other" / "o.rb", "class VendorOther; end\n")
    write(root / "node_modules" / "pkg" / "n.rb", "class NodeMod; end\n")
    write(root / ".git" / "hooks" / "g.rb", "class GitThing; end\n")
    write(root / "tmp" / "cache" / "t.rb", "class TmpThing; end\n")
    write(root / ".gitignore", "ignored_dir/\n*.generated.rb\n")
    write(root / "ignored_dir" / "i.rb", "class IgnoredDir; end\n")
    write(root / "lib" / "schema.generated.rb", "class IgnoredFile; end\n")
    write(root / "nested" / ".gitignore", "secret.rb\n")
    write(root / "nested" / "secret.rb", "class IgnoredNested; end\n")
    # Symlinks: a loop back to the root, and one pointing nowhere.
    os.symlink(root, root / "nested" / "loop")
    os.symlink(root / "missing-target.rb", root / "dangling.rb")
    good_files = {
        "good.rb",
        "lib/util.rb",
        "nested/deeper/more.rb",
        "Rakefile",
        "README.md",  # A Markdown document: its headings are sections, its text no Ruby.
        "bad_utf8.rb",
        "empty.rb",
        "syntax.rb",
        "big.rb",
        "vendor/other/o.rb",
        *(f"deep/{n}" for n in deep_sources()),
    }
    expected_problems = {
        (str(root / "dangling.rb"), "unreadable-file"),
        (str(root / "syntax.rb"), "syntax-error"),
        (str(root / "huge.rb"), "file-too-large"),
        # Every deep file nests past a discovery limit (MAX_SYNTAX_DEPTH or MAX_NESTING): what
        # lies deeper is left out with one diagnostic per file.
        *((str(root / "deep" / name), "too-deep") for name in deep_sources()),
    }
    # Ruby reads a program up to its first NUL: x.rb is an empty program, not a binary file.
    warnings = {(str(root / "bad_utf8.rb"), "invalid-utf8"), (str(root / "x.rb"), "end-of-program")}
    return root, {"big_classes": big_classes, "good_files": good_files, "problems": expected_problems, "warnings": warnings}


class PoolSpy(pool_mod.ProcessPoolExecutor):
    created = 0

    def __init__(self, *args, **kwargs):
        PoolSpy.created += 1
        super().__init__(*args, **kwargs)


@pytest.fixture(scope="module")
def indexed_by_jobs(tree):
    """The tree indexed once sequentially and once with two workers (shared by the tests)."""
    root, facts = tree
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pool_mod, "ProcessPoolExecutor", PoolSpy)
        for jobs in (1, 2):
            PoolSpy.created = 0
            calls: list[tuple[int, int]] = []
            g = rdx.Graph()
            returned = g.index_all([root], jobs=jobs, progress=lambda done, total, calls=calls: calls.append((done, total)))
            g.resolve()
            out[jobs] = {"graph": g, "returned": returned, "progress": calls, "pools": PoolSpy.created}
    return out


@pytest.fixture(params=[1, 2], ids=["jobs1", "jobs2"])
def indexed(request, tree, indexed_by_jobs):
    root, facts = tree
    run = indexed_by_jobs[request.param]
    return run["graph"], run["returned"], root, facts


def test_parallel_pool_really_ran(indexed_by_jobs):
    assert indexed_by_jobs[1]["pools"] == 0
    assert indexed_by_jobs[2]["pools"] == 1, "jobs=2 must use worker processes for this tree"


def test_index_all_returns_each_problem_once(indexed):
    g, returned, root, facts = indexed
    assert Counter((d.path, d.code) for d in returned) == Counter(facts["problems"])
    assert all(d.severity == "error" and d.message for d in returned)


def test_every_problem_and_warning_is_in_diagnostics_once(indexed):
    g, returned, root, facts = indexed
    seen = Counter((d.path, d.code) for d in g.diagnostics)
    assert seen == Counter(facts["problems"] | facts["warnings"])
    (utf,) = [d for d in g.diagnostics if d.code == "invalid-utf8"]
    assert utf.severity == "warning"
    # The bad byte is at line 2, column 7 (after "  # caf").
    assert (utf.location.start_line, utf.location.start_column) == (2, 7)
    (syn,) = [d for d in g.diagnostics if d.code == "syntax-error"]
    assert syn.location is not None and syn.location.start_line == 4


def test_good_declarations_are_present(indexed):
    g, returned, root, facts = indexed
    missing = [n for n in GOOD_DECLARATIONS if n not in g]
    assert missing == []
    last = facts["big_classes"] - 1
    assert f"Gen{last}#m{last}()" in g
    generated = [d for d in g.search("Gen", kind="Class", match_mode="prefix") if re.fullmatch(r"Gen\d+", d.name)]
    assert len(generated) == facts["big_classes"]


def test_deep_nesting_is_indexed_without_recursion_error(indexed):
    g, returned, root, facts = indexed
    for name, (_, after) in deep_sources().items():
        assert after in g, f"{name}: {after} missing"
    # Modules are kept up to the nesting limit; what is nested deeper is left out.
    kept = "::".join(f"D{i}" for i in range(MAX_NESTING))
    assert g[kept].kind == "Module"
    assert len(g[kept].definitions[0].lexical_nesting) == MAX_NESTING - 1  # the modules around it
    assert kept + "::D" + str(MAX_NESTING) not in g
    # Chained calls are method references down to the syntax depth limit.
    chain = [r for r in g.method_references if r.location.path.endswith("deep_chain.rb")]
    assert 0 < len(chain) <= DEPTH


def test_skipped_and_ignored_files_are_absent(indexed):
    g, returned, root, facts = indexed
    assert [n for n in SKIPPED_DECLARATIONS if n in g] == []


def test_each_good_file_is_indexed_once(indexed):
    g, returned, root, facts = indexed
    paths = [d.path for d in g.documents if d.path is not None]
    assert len(paths) == len(set(paths)), "a file was indexed twice (symlink loop?)"
    rel = {os.path.relpath(p, root) for p in paths}
    # Binary and oversized files are kept as empty documents carrying their diagnostic.
    assert rel == facts["good_files"] | {"x.rb", "huge.rb"}
    empty = g.document(str(root / "empty.rb"))
    assert empty is not None and empty.size == 0 and empty.definitions == []
    assert g.document(str(root / "x.rb")).definitions == []


def test_parallel_and_sequential_agree(indexed_by_jobs):
    a, b = indexed_by_jobs[1]["graph"], indexed_by_jobs[2]["graph"]
    assert {d.name: d.kind for d in a.declarations} == {d.name: d.kind for d in b.declarations}
    assert a.stats() == b.stats()


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_counts_every_file(tree, indexed_by_jobs, jobs):
    root, facts = tree
    calls = indexed_by_jobs[jobs]["progress"]
    total = len(facts["good_files"]) + 2  # plus x.rb and huge.rb, which are read and rejected
    assert calls and calls[-1] == (total, total)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert {c[1] for c in calls} == {total}


# ---------------------------------------------------------------------------------------------
# Files that cannot be read
# ---------------------------------------------------------------------------------------------


def test_chmod_000_file(tmp_path):
    write(tmp_path / "good.rb", "class Good; end\n")
    locked = write(tmp_path / "locked.rb", "class Locked; end\n")
    locked.chmod(0)
    try:
        readable = os.access(locked, os.R_OK)  # True for root, which ignores file modes
        g = rdx.Graph()
        problems = g.index_all([tmp_path], jobs=1)
    finally:
        locked.chmod(0o644)
    assert "Good" in g
    if readable:  # running as root (or with CAP_DAC_OVERRIDE): the file is simply indexed
        assert problems == []
        assert "Locked" in g
    else:
        assert [(d.path, d.code) for d in problems] == [(str(locked), "unreadable-file")]
        assert "Locked" not in g


@pytest.mark.parametrize("jobs", [1, 2])
def test_permission_denied_is_reported(tmp_path, monkeypatch, jobs):
    """EACCES simulated, so that the path is exercised even when tests run as root."""
    write(tmp_path / "good.rb", "class Good; end\n")
    write(tmp_path / "padding.rb", "# " + "p" * 300_000 + "\nclass Padding; end\n")  # forces the pool
    locked = write(tmp_path / "locked.rb", "class Locked; end\n")
    real_open = files_mod.open_regular

    def fake_open(path, *args, **kwargs):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files_mod, "open_regular", fake_open)
    g = rdx.Graph()
    problems = g.index_all([tmp_path], jobs=jobs)
    assert [(d.path, d.code) for d in problems] == [(str(locked), "unreadable-file")]
    assert "Permission denied" in problems[0].message
    assert "Good" in g and "Padding" in g and "Locked" not in g


def test_discover_file_on_a_deleted_path(tmp_path):
    path = write(tmp_path / "gone.rb", "class Gone; end\n")
    entry = FileEntry(str(path), path_to_uri(str(path)))
    path.unlink()
    result = discover_file(entry)
    assert [(d.code, d.severity) for d in result.diagnostics] == [("file-vanished", "error")]
    assert result.definitions == []
    assert result.path == str(path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_file_vanishing_between_walk_and_read(tmp_path, monkeypatch, jobs):
    write(tmp_path / "good.rb", "class Good; end\n")
    write(tmp_path / "padding.rb", "# " + "p" * 300_000 + "\nclass Padding; end\n")
    doomed = write(tmp_path / "doomed.rb", "class Doomed; end\n")
    real_collect = rdx.api.graph.collect_files

    def collect_then_delete(root, *config):
        walk = real_collect(root, *config)
        assert any(f.path == str(doomed) for f in walk.files)
        doomed.unlink()
        return walk

    monkeypatch.setattr(rdx.api.graph, "collect_files", collect_then_delete)
    g = rdx.Graph()
    problems = g.index_all([tmp_path], jobs=jobs)
    assert [(d.path, d.code) for d in problems] == [(str(doomed), "file-vanished")]
    assert "Good" in g and "Padding" in g and "Doomed" not in g
    assert Counter(d.code for d in g.diagnostics) == Counter({"file-vanished": 1})


def test_symlink_to_directory_is_walked_once(tmp_path):
    write(tmp_path / "real" / "a.rb", "class ViaLink; end\n")
    os.symlink(tmp_path / "real", tmp_path / "link")
    os.symlink(tmp_path, tmp_path / "real" / "back")
    g = rdx.Graph()
    assert g.index_all([tmp_path], jobs=1) == []
    assert len(g["ViaLink"].definitions) == 1


# ---------------------------------------------------------------------------------------------
# Encodings and odd bytes through index_source
# ---------------------------------------------------------------------------------------------


def test_lone_surrogates_raise_encoding_failure():
    g = rdx.Graph(core=False)
    with pytest.raises(rdx.EncodingFailureError) as info:
        g.index_source("file:///t/a.rb", 'X = "\ud800"\n')
    assert isinstance(info.value, UnicodeError)
    assert info.value.code == rdx.ErrorCode.ENCODING
    assert g.documents == []  # nothing half-indexed


def test_invalid_utf8_bytes_are_indexed_with_a_warning():
    g = rdx.Graph(core=False)
    problems = g.index_source("file:///t/a.rb", b'class Cafe\n  S = "caf\xe9"\nend\nclass After\n  def m; end\nend\n')
    assert problems == []
    assert "Cafe::S" in g and "After#m()" in g
    assert [(d.code, d.severity, d.location.start_line) for d in g.diagnostics] == [("invalid-utf8", "warning", 2)]


def test_invalid_utf8_in_an_identifier_is_a_syntax_error_not_a_crash():
    # Ruby itself rejects this ("invalid multibyte char"); rdx must report it and keep going.
    g = rdx.Graph(core=False)
    problems = g.index_source("file:///t/a.rb", b"class Caf\xe9\nend\nclass After\n  def m; end\nend\n")
    assert "syntax-error" in {d.code for d in problems}
    assert "After#m()" in g


@pytest.mark.parametrize(
    "name,source,expected",
    [
        ("bom", b"\xef\xbb\xbfclass Bom\n  def m; end\nend\n", "Bom#m()"),
        ("crlf", b"class Crlf\r\n  def m; end\r\nend\r\n", "Crlf#m()"),
        ("nul-in-string", b'class Nul\n  X = "a\x00b"\nend\n', "Nul::X"),
        ("latin1-magic-comment", "# encoding: iso-8859-1\nclass Lat\n  S = 'caf\xe9'\nend\n".encode("latin-1"), "Lat::S"),
        ("heredoc", b"class Hd\n  X = <<~EOS\n    class NotCode; end\n  EOS\n  def after; end\nend\n", "Hd#after()"),
        ("only-comments", b"# just a comment\n", None),
        ("whitespace", b"\n\n   \t\n", None),
    ],
)
def test_odd_but_valid_sources(name, source, expected):
    g = rdx.Graph(core=False)
    assert g.index_source(f"file:///t/{name}.rb", source) == []
    if expected is not None:
        assert expected in g
    assert "NotCode" not in g


def test_crlf_locations():
    g = rdx.Graph(core=False)
    g.index_source("file:///t/a.rb", b"class Crlf\r\n  def m; end\r\nend\r\n")
    loc = g["Crlf#m()"].location
    assert (loc.start_line, loc.start_column, loc.end_line, loc.end_column) == (2, 2, 2, 12)


# ---------------------------------------------------------------------------------------------
# Syntax errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source,kept",
    [
        ("class Before\n  def ok; end\nend\nfoo(1,,2)\nclass After\n  def fine; end\nend\n", ["Before#ok()", "After#fine()"]),
        ("class Before\n  def ok; end\nend\nx = (1 + \nclass After\n  def fine; end\nend\n", ["Before#ok()", "After#fine()"]),
        ("class Before\n  def ok; end\nend\ndef broken(\n", ["Before#ok()"]),
    ],
    ids=["bad-arguments", "unclosed-paren", "unclosed-def-params"],
)
def test_syntax_errors_are_reported_once_and_keep_what_parses(source, kept):
    g = rdx.Graph(core=False)
    problems = g.index_source("/t/broken.rb", source)
    assert [(d.code, d.path) for d in problems] == [("syntax-error", "/t/broken.rb")]
    assert [n for n in kept if n not in g] == []


def test_stray_end_is_a_syntax_error():
    g = rdx.Graph(core=False)
    problems = g.index_source("/t/broken.rb", "class Before\n  def ok; end\nend\nend\n")
    assert [d.code for d in problems] == ["syntax-error"]


def test_syntax_error_in_a_method_keeps_the_class():
    g = rdx.Graph(core=False)
    problems = g.index_source("/t/broken.rb", "class Before\n  def ok; end\n  def bad\n    x = \n  end\n  def later; end\nend\n")
    assert [d.code for d in problems] == ["syntax-error"]
    assert [n for n in ("Before", "Before#ok()", "Before#later()") if n not in g] == []


# ---------------------------------------------------------------------------------------------
# Roots
# ---------------------------------------------------------------------------------------------


def test_missing_root_raises_io_failure_before_indexing(tmp_path):
    write(tmp_path / "good.rb", "class Good; end\n")
    g = rdx.Graph()
    with pytest.raises(rdx.IOFailureError) as info:
        g.index_all(["/does/not/exist"])
    assert isinstance(info.value, OSError)
    assert info.value.code == rdx.ErrorCode.IO
    with pytest.raises(rdx.IOFailureError):
        g.index_all([tmp_path, "/does/not/exist"])
    assert "Good" not in g


def test_single_file_root(tmp_path):
    path = write(tmp_path / "one.rb", "class One; end\n")
    g = rdx.Graph()
    assert g.index_all(path) == []
    assert "One" in g


@pytest.mark.parametrize("how", ["twice", "same-root-twice"])
def test_reindexing_reports_each_problem_once(tmp_path, how):
    write(tmp_path / "good.rb", "class Good; end\n")
    os.symlink(tmp_path / "nowhere.rb", tmp_path / "dangling.rb")
    write(tmp_path / "x.py", b"\x00binary")
    g = rdx.Graph()
    if how == "twice":
        g.index_all([tmp_path], jobs=1)
        g.index_all([tmp_path], jobs=1)
    else:
        g.index_all([tmp_path, tmp_path], jobs=1)
    seen = Counter((os.path.basename(d.path), d.code) for d in g.diagnostics)
    assert seen == Counter({("dangling.rb", "unreadable-file"): 1, ("x.py", "binary-file"): 1})


@pytest.mark.parametrize(
    "jobs",
    [1, 2],
)
def test_non_utf8_file_name(tmp_path, jobs):
    write(tmp_path / "ok.rb", "class OkName; end\n")
    write(tmp_path / "padding.rb", "# " + "p" * 300_000 + "\nclass Padding; end\n")
    with open(os.path.join(os.fsencode(tmp_path), b"bad\xffname.rb"), "w") as f:
        f.write("class BadName; end\n")
    g = rdx.Graph()
    problems = g.index_all([tmp_path], jobs=jobs)
    assert problems == []
    assert "OkName" in g and "Padding" in g and "BadName" in g


_FIFO_SCRIPT = """
import sys, rdx
g = rdx.Graph(core=False)
problems = g.index_all([sys.argv[1]], jobs=1)
print(sorted((d.path.rsplit("/", 1)[-1], d.code) for d in problems), "F" in g)
"""


def test_fifo_does_not_hang(tmp_path):
    write(tmp_path / "f.rb", "class F; end\n")
    os.mkfifo(tmp_path / "pipe.rb")
    try:
        proc = subprocess.run([sys.executable, "-c", _FIFO_SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=4)
    except subprocess.TimeoutExpired:
        pytest.fail("index_all hung on a FIFO")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[('pipe.rb', 'not-a-file')] True"


@pytest.mark.parametrize("stop", [b"\x00", b"\x04", b"\x1a", b"\n__END__\n"])
def test_ruby_stops_reading_where_ruby_does(tmp_path, stop):
    """What follows a NUL, ^D or ^Z byte or an ``__END__`` line is not part of the program:
    Ruby says so, and rdx indexes what precedes."""
    source = b"class Before; end\n" + stop + b"\nclass After; end\n"
    write(tmp_path / "stop.rb", source)
    ruby = run_ruby(f"load {str(tmp_path / 'stop.rb')!r}\np [defined?(Before), defined?(After)]", tmp_path).strip()
    assert ruby == '["constant", nil]'
    g = rdx.Graph()
    g.index_all([tmp_path], jobs=1)
    assert g.get("Before") is not None and g.get("After") is None
