"""grep against ripgrep: for many queries drawn from the Debian Ruby corpus itself, the set of
(file, line) matches rdx reports equals what ``rg -n`` prints over the same files.

The queries are literals of every length (sampled from real lines), the same case-mangled with
``ignore_case``, and regexes with anchors, classes, alternations, repetitions, Unicode classes,
patterns with no trigram at all (answered by a scan) and patterns that match nothing.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest
from conftest import debian_corpus

from rdx.search.grep import grep
from rdx.search.text_index import TextIndex
from rdx.search.text_workspace import any_file
from rdx.workspace.config import DEFAULT_MAX_FILE_SIZE
from rdx.workspace.files import collect_files

RG = shutil.which("rg")

# Indexes the whole Debian Ruby corpus: the full tier only (make test), not make check.
pytestmark = pytest.mark.corpus



@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[TextIndex, list[str]]:
    assert RG is not None, "ripgrep is the oracle (make test installs Debian's ripgrep)"
    rows = []
    for root in debian_corpus():  # Pinned: the same files whatever else is installed.
        for e in collect_files(root, select=any_file).files:
            rows.append((e.path, e.size, e.mtime_ns))
    index = TextIndex(str(tmp_path_factory.mktemp("text") / "text.sqlite"))
    index.sync(rows, DEFAULT_MAX_FILE_SIZE)
    assert len(index.files) > 5000
    return index, sorted(index.files)


def rg_lines(files: list[str], pattern: str, *, regex: bool, ignore_case: bool) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    flags = ["--no-config", "-n", "-0", "--no-heading", "--with-filename"]
    if not regex:
        flags.append("-F")
    if ignore_case:
        flags.append("-i")
    for start in range(0, len(files), 1500):
        assert RG is not None
        proc = subprocess.run([RG, *flags, "-e", pattern, "--", *files[start : start + 1500]], capture_output=True, timeout=120)
        assert proc.returncode in (0, 1), proc.stderr.decode()
        for raw in proc.stdout.splitlines():
            path, _, rest = raw.partition(b"\0")
            found.add((os.fsdecode(path), int(rest.split(b":", 1)[0])))
    return found


def rdx_lines(index: TextIndex, pattern: str, *, regex: bool, ignore_case: bool) -> set[tuple[str, int]]:
    page = grep(index, pattern, regex=regex, ignore_case=ignore_case)
    hits = {(h.path, h.line) for h in page}
    assert len(hits) == page.total == len(page.hits)  # One hit per line, all of them.
    return hits


def _sampled_lines(index: TextIndex, files: list[str], rng: random.Random, n: int) -> list[str]:
    lines: list[str] = []
    while len(lines) < n:
        body = index.body(rng.choice(files)) or b""
        candidates = [x for x in body.decode("utf-8", "replace").splitlines() if len(x.strip()) > 12 and "\ufffd" not in x and "\r" not in x]
        if candidates:
            lines.append(rng.choice(candidates).strip())
    return lines


def _literals(index: TextIndex, files: list[str]) -> list[tuple[str, bool]]:
    rng = random.Random(20261126)
    out: list[tuple[str, bool]] = []
    for length, line in zip([1, 2, 3, 4, 5, 7, 9, 12, 16, 20, 25, 32, 40] * 3, _sampled_lines(index, files, rng, 39), strict=False):
        start = rng.randrange(0, max(1, len(line) - length))
        out.append((line[start : start + length], False))
    for line in _sampled_lines(index, files, rng, 12):
        word = line[:10]
        out.append(("".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word), True))
    out += [("zqxjv_no_such_text", False), ("ZQXJV_NO_SUCH", True), ("€", False), ("é", True), ("  ", False)]
    return out


REGEXES: list[tuple[str, bool]] = [
    (r"^\s*def initialize\(", False),
    (r"^\s*class \w+ < StandardError$", False),
    ("\\b(require|require_relative) ['\"]json['\"]", False),
    (r"[A-Z][a-z]+Error\b", False),
    (r"\d{4,}", False),
    (r"^#.*TODO", False),
    (r"deprecat(ed|ion)", True),
    (r"\w+\d", False),
    (r"end$", False),
    (r"^$", False),
    (r"colou?r", False),
    (r"[aeiou]{4}", False),
    (r"def (to_s|inspect|hash)\b", False),
    (r"\.each_with_object\(\{\}\)", False),
    (r"(foo|bar|baz)+_(spec|test)", False),
    (r"[[:upper:]]{5}", False),
    (r"\p{Greek}+", False),
    (r"x{2,3}y", False),
    (r"a.b.c.d", False),
    (r"(?i)activerecord::base", False),
    (r"zq[xj]{3}q", False),
    (r"\s+$", False),
    (r"^\S", False),
    (r"\W{6}", False),
    (r"@[a-z_]+ \|\|= ", False),
    (r"(?:Hash|Array)\.new\(", False),
    (r"raise ArgumentError(, )?", False),
    (r"\bself\.", False),
    (r"[^\x00-\x7F]", False),
    (r"MessageVerifier|MessageEncryptor", False),
]


def test_literals_match_ripgrep(corpus: tuple[TextIndex, list[str]]) -> None:
    index, files = corpus
    literals = _literals(index, files)
    assert len(literals) >= 50
    nonempty = 0
    for text, ignore_case in literals:
        ours = rdx_lines(index, text, regex=False, ignore_case=ignore_case)
        theirs = rg_lines(files, text, regex=False, ignore_case=ignore_case)
        assert ours == theirs, (text, ignore_case, sorted(ours ^ theirs)[:5])
        nonempty += bool(ours)
    assert nonempty >= len(literals) - 4  # Sampled from the corpus: found, except the no-match ones.


@pytest.mark.parametrize(("pattern", "ignore_case"), REGEXES)
def test_regexes_match_ripgrep(corpus: tuple[TextIndex, list[str]], pattern: str, ignore_case: bool) -> None:
    index, files = corpus
    ours = rdx_lines(index, pattern, regex=True, ignore_case=ignore_case)
    theirs = rg_lines(files, pattern, regex=True, ignore_case=ignore_case)
    assert ours == theirs, (pattern, sorted(ours ^ theirs)[:5])


def test_columns_and_text_are_the_first_match(corpus: tuple[TextIndex, list[str]]) -> None:
    index, _ = corpus
    page = grep(index, r"def (number_to_currency|number_to_percentage)\(", regex=True)
    assert page.total >= 4
    for hit in page:
        body = (index.body(hit.path) or b"").split(b"\n")[hit.line - 1]
        assert body.decode() == hit.text
        assert body[hit.column :].startswith(b"def number_to_")
        assert hit.text.encode()[hit.column : hit.end_column].startswith(b"def number_to_")
    assert [(h.path, h.line) for h in page] == sorted((h.path, h.line) for h in page)
