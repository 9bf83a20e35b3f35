"""Graph.grep on small projects: the API's contract (paging, context, filters, errors), bad
files, editor buffers and file changes. ``test_grep_ripgrep`` compares with ripgrep at scale."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import write

import rdx


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "lib/app.rb", "module App\n  def money(n)\n    format('%.2f', n)\n  end\nend\n")
    write(tmp_path / "lib/tax.rb", "module Tax\n  RATE = 0.2 # money\nend\n")
    write(tmp_path / "docs/guide.md", "# Guide\n\nMoney is formatted\nwith App#money.\n")
    write(tmp_path / "config/app.yml", "currency: EUR\nmoney: true\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/blob.dat").write_bytes(b"money\0\x01\x02")
    (tmp_path / "lib/latin1.rb").write_bytes(b"# caf\xe9 money\n")
    (tmp_path / "crlf.txt").write_bytes(b"money\r\nmore money\r\n")
    (tmp_path / "empty.txt").write_bytes(b"")
    write(tmp_path / ".gitignore", "ignored/\n")
    write(tmp_path / "ignored/secret.rb", "money = 1\n")
    return tmp_path


def lines(page: rdx.Graph) -> list[tuple[str, int]]:
    return [(os.path.basename(h.path), h.line) for h in page]  # type: ignore[attr-defined]


def test_every_text_file_is_searched_and_binary_ignored_files_are_not(project: Path) -> None:
    g = rdx.Graph.open([project])
    page = g.grep("money")
    assert sorted(lines(page)) == sorted(
        [("app.rb", 2), ("app.yml", 2), ("crlf.txt", 1), ("crlf.txt", 2), ("guide.md", 4), ("latin1.rb", 1), ("tax.rb", 2)]
    )
    assert page.total == 7 and page.files == 6
    assert [h.path for h in page] == sorted(h.path for h in page)  # path, then line order
    crlf = [h for h in page if h.path.endswith("crlf.txt")]
    assert crlf[0].text == "money\r" and crlf[1].column == 5  # bytes as they are, like rg
    latin1 = next(h for h in page if h.path.endswith("latin1.rb"))
    assert latin1.text == "# caf\ufffd money" and latin1.column == 7  # byte column, text decoded


def test_case_regex_paging_context_and_filters(project: Path) -> None:
    g = rdx.Graph.open([project])
    assert lines(g.grep("Money")) == [("guide.md", 3)]
    assert len(g.grep("Money", ignore_case=True)) == 8
    regex = g.grep(r"money\(\w*\)|RATE = \d", regex=True)
    assert lines(regex) == [("app.rb", 2), ("tax.rb", 2)] and regex[0].column == 6 and regex[0].end_column == 14
    first, second = g.grep("money", limit=4), g.grep("money", limit=4, offset=4)
    assert first.total == second.total == 7 and len(first) == 4 and len(second) == 3
    assert [(h.path, h.line) for h in first] + [(h.path, h.line) for h in second] == [(h.path, h.line) for h in g.grep("money")]
    hit = g.grep("formatted", context=2)[0]
    assert hit.before == ("# Guide", "") and hit.after == ("with App#money.",)
    assert lines(g.grep("money", glob="*.rb")) == [("app.rb", 2), ("latin1.rb", 1), ("tax.rb", 2)]
    assert lines(g.grep("money", glob=["lib/**", "!lib/tax.rb"])) == [("app.rb", 2), ("latin1.rb", 1)]
    assert lines(g.grep("money", language="markdown")) == [("guide.md", 4)]
    assert lines(g.grep("money", path=project / "config")) == [("app.yml", 2)]
    assert g.grep(r"^$", regex=True, path=project / "empty.txt").total == 0  # an empty file has no lines
    assert lines(g.grep(r"\d\.\d", regex=True)) == [("tax.rb", 2)]  # no trigram: answered by a scan


def test_invalid_arguments_are_clear_errors(project: Path) -> None:
    g = rdx.Graph.open([project])
    for pattern, kwargs in [("(", {"regex": True}), ("", {}), ("a\nb", {}), ("x", {"limit": -1}), ("x", {"offset": "2"}),
                            ("x", {"language": "klingon"}), ("x", {"glob": ""}), ("x", {"context": -1}), (b"x", {})]:
        with pytest.raises(rdx.InvalidArgumentError):
            g.grep(pattern, **kwargs)  # type: ignore[arg-type]


def test_buffers_edits_new_directories_and_deletions(project: Path) -> None:
    g = rdx.Graph.open([project])
    g.index_source(project / "lib/app.rb", "module App\n  def cash(n); end\nend\n")  # an unsaved buffer
    assert lines(g.grep("cash")) == [("app.rb", 2)] and ("app.rb", 2) not in lines(g.grep("money"))
    write(project / "lib/new/more.rb", "# more money\n")  # a new directory: one event for it
    write(project / "docs/guide.md", "# Guide\n")
    os.remove(project / "config/app.yml")
    g.refresh_paths([str(project / "lib/new"), str(project / "docs/guide.md"), str(project / "config/app.yml")])
    found = lines(g.grep("money"))
    assert ("more.rb", 1) in found and ("guide.md", 4) not in found and ("app.yml", 2) not in found
    g.delete_document(project / "lib/tax.rb")
    assert ("tax.rb", 2) not in lines(g.grep("money"))
    # The next open starts from the saved text index and reads again only the files whose
    # indexed text is not what the disk holds: the buffer's file and the deleted document.
    again = rdx.Graph.open([project])
    assert again._text.last_sync is not None and again._text.last_sync.indexed == 2 and again._text.last_sync.kept == 6
    assert ("more.rb", 1) in lines(again.grep("money")) and ("tax.rb", 2) in lines(again.grep("money"))


def test_binary_files_are_remembered_until_they_change(project: Path) -> None:
    rdx.Graph.open([project])
    again = rdx.Graph.open([project])
    assert again._text.last_sync is not None and again._text.last_sync.binary == 1 and again._text.last_sync.indexed == 0
    (project / "bin/blob.dat").write_text("now text: money\n")
    os.utime(project / "bin/blob.dat", ns=(1, 1))  # a different mtime, even on a coarse clock
    third = rdx.Graph.open([project])
    assert ("blob.dat", 1) in lines(third.grep("money")) and third._text.last_sync.binary == 0


def test_graphs_without_a_cache_build_the_text_index_on_first_search(project: Path) -> None:
    g = rdx.Graph()
    g.index_all([project / "lib"])
    assert lines(g.grep("money")) == [("app.rb", 2), ("latin1.rb", 1), ("tax.rb", 2)]
    fixture = rdx.Graph()
    fixture.index_source("file:///fixture/a.rb", "x = :money\n")
    assert [(h.path, h.line) for h in fixture.grep("money")] == [("/fixture/a.rb", 1)]


def test_a_corrupt_text_index_is_rebuilt_with_a_diagnostic(project: Path) -> None:
    rdx.Graph.open([project])
    (project / ".rdx" / "text.sqlite").write_bytes(b"this is not a database" * 100)
    for extra in ("-wal", "-shm"):
        (project / ".rdx" / f"text.sqlite{extra}").unlink(missing_ok=True)
    g = rdx.Graph.open([project])
    assert g.grep("money").total == 7
    assert any(d.code == "snapshot-rebuilt" and "text index" in d.message for d in g.diagnostics)


def test_unicode_case_folding_matches_ripgrep(tmp_path: Path) -> None:
    assert shutil.which("rg") is not None, "ripgrep is the oracle (make test installs it)"
    # K (Kelvin sign) and ſ (long s) fold to ASCII k and s: an -i search must find them as rg does.
    write(tmp_path / "units.txt", "300 \u212aelvin\nkelvin\nKELVIN\nthe cla\u017f\u017f\nclass\n\u03a3\u03c3\u03c2\n")
    g = rdx.Graph.open([tmp_path])
    for pattern, regex in [("kelvin", False), ("class", False), (r"kel\w+", True), ("σσσ", False), (r"\d+ \w", True)]:
        ours = [h.line for h in g.grep(pattern, regex=regex, ignore_case=True)]
        out = subprocess.run(["rg", "--no-config", "-n", "-i", *([] if regex else ["-F"]), "-e", pattern, str(tmp_path / "units.txt")],
                             capture_output=True, text=True).stdout
        assert ours == [int(x.split(":")[0]) for x in out.splitlines()], pattern


def test_file_events_follow_the_configuration(tmp_path: Path) -> None:
    write(tmp_path / "rdx.toml", 'exclude = ["generated/**"]\nmax_file_size = "1KB"\n')
    write(tmp_path / "lib/a.rb", "class A; end # needle\n")
    g = rdx.Graph.open([tmp_path])
    write(tmp_path / "generated/b.rb", "class B; end # needle\n")
    write(tmp_path / "lib/big.rb", "class Big; end # needle\n" + "#" * 2000 + "\n")
    write(tmp_path / "lib/c.rb", "class C; end # needle\n")
    g.refresh_paths([str(tmp_path / "generated/b.rb"), str(tmp_path / "lib/big.rb"), str(tmp_path / "lib/c.rb")])
    g.resolve()
    # As the walk would: excluded and oversized files are neither parsed nor grepped.
    assert "C" in g and "B" not in g and "Big" not in g
    assert sorted(os.path.basename(h.path) for h in g.grep("needle")) == ["a.rb", "c.rb"]
    write(tmp_path / "lib/c.rb", "class C; end # needle\n" + "#" * 2000 + "\n")  # grows past the limit
    g.refresh_paths([str(tmp_path / "lib/c.rb")])
    g.resolve()
    assert "C" not in g and [os.path.basename(h.path) for h in g.grep("needle")] == ["a.rb"]
