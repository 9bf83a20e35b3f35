"""The documentation runs: every example of README.md and docs/*.md is executed, every relative
link points at a file (and heading) that exists, and the README keeps its two commands.

How a page marks its examples:

- a ```python block is executed; a ```pycon block is run as a doctest (``...`` matches
  anything, whitespace is normalized). Both run in one namespace per page, in page order, with
  ``rdx`` imported, from a directory holding a copy of the built-in example project at
  ``rdx/data/example`` (as a checkout has it), so pages can say ``Graph.open("rdx/data/example")``;
- a ```console block holds ``$ rdx ...`` commands, run through the console script's entry point
  (``rdx.cli.main:main``) in a subprocess started from that directory (one per page, with
  ``python -P``, so that the copy of ``rdx/data/example`` there does not shadow the package).
  The lines after a command are output it must print (stdout, then stderr), in that order, each
  a whole line in which ``...`` matches anything (a line that is only ``...`` stands for lines
  left out). A command must exit 0, unless the output shown has an ``rdx: error:`` line: then it
  must fail;
- ``<!-- write: PATH -->`` on the line before a block writes the block's text to PATH (relative to
  that directory) instead of running it, for a configuration file or a small project;
- ``<!-- not run: REASON -->`` on the line before a block says it is shown only (a server that
  runs until stopped, ``make test`` itself, something that needs a C compiler...).

Blocks in other languages (```json, ```lua, ```toml, ```ruby, ```text...) are shown only; JSON
and TOML ones must parse. A block in a runnable language or a shell (```sh, ```bash) that is
neither run nor marked fails the test, as does a marker with no block after it, so no example
goes untested by accident.
"""

from __future__ import annotations

import doctest
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLE = ROOT / "rdx" / "data" / "example"

RUNNABLE = frozenset({"python", "pycon", "console"})
# Shell blocks cannot be run as they are written (a prompt-less ``sh`` block mixes commands and
# comments): each must say why it is not run, or be written as ```console.
SHELLS = frozenset({"sh", "bash", "shell", "zsh"})
# The README is the front page: what rdx is, the two commands, a tour and links. Details go to docs/.
README_MAX_LINES = 200

_FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)")
_MARKER = re.compile(r"^\s*<!--\s*(not run|write):\s*(.*?)\s*-->\s*$")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    marker: str | None  # "not run", "write" or None
    argument: str  # the reason, or the path to write

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> tuple[list[Block], list[str]]:
    """The fenced blocks of ``page`` and the problems with its markers (one with no block after it)."""
    lines = page.read_text().splitlines()
    blocks: list[Block] = []
    problems: list[str] = []
    pending: tuple[int, str, str] | None = None  # (line, marker, argument) waiting for its block
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = _MARKER.match(line)
        fence = _FENCE.match(line)
        if marker:
            if pending is not None:
                problems.append(f"{page.name}:{pending[0]}: <!-- {pending[1]} --> is not followed by a block")
            pending = (i + 1, marker.group(1), marker.group(2))
        elif fence:
            indent, ticks, language = fence.group(1), fence.group(2), fence.group(3).lower()
            body: list[str] = []
            j = i + 1
            while j < len(lines) and not (lines[j].strip().startswith(ticks) and lines[j].strip().strip("`") == ""):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
                j += 1
            text = "\n".join(body) + "\n"
            kind, argument = (pending[1], pending[2]) if pending is not None else (None, "")
            blocks.append(Block(page, i + 1, language, text, kind, argument))
            pending = None
            i = j
        elif line.strip() and pending is not None:
            problems.append(f"{page.name}:{pending[0]}: <!-- {pending[1]} --> is not followed by a block")
            pending = None
        i += 1
    if pending is not None:
        problems.append(f"{page.name}:{pending[0]}: <!-- {pending[1]} --> is not followed by a block")
    return blocks, problems


def runs(block: Block) -> bool:
    """Whether the test executes ``block`` (a written file counts: the examples after it use it)."""
    return block.marker == "write" or (block.marker is None and block.language in RUNNABLE)


# -- the pages are well formed ---------------------------------------------------------------


def test_every_example_is_run_or_marked() -> None:
    problems: list[str] = []
    for page in PAGES:
        blocks, marker_problems = blocks_of(page)
        problems += marker_problems
        for b in blocks:
            if b.marker is None and b.language in SHELLS:
                problems.append(f"{b.where}: a ```{b.language} block is not run: write it as ```console with $ prompts, or mark it <!-- not run: why -->")
            if b.marker == "not run" and not b.argument:
                problems.append(f"{b.where}: <!-- not run: --> needs a reason")
            if b.marker == "write" and (not b.argument or os.path.isabs(b.argument) or ".." in Path(b.argument).parts):
                problems.append(f"{b.where}: <!-- write: {b.argument} --> needs a relative path inside the example directory")
            if b.language == "console" and b.marker is None and not any(line.startswith("$ ") for line in b.text.splitlines()):
                problems.append(f"{b.where}: a ```console block without a $ command")
    assert not problems, "\n".join(problems)


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower()).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    found: set[str] = set()
    in_fence = False
    for line in page.read_text().splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            slug = _slug(line.lstrip("#"))
            n = 0
            while (slug if n == 0 else f"{slug}-{n}") in found:
                n += 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_relative_links_point_at_files_that_exist() -> None:
    problems: list[str] = []
    checked = 0
    for page in PAGES:
        text = page.read_text()
        # Links inside code blocks are code, not links.
        prose = re.sub(r"^(\s*)(`{3,}).*?^\1\2\s*$", "", text, flags=re.S | re.M)
        prose = re.sub(r"`[^`\n]*`", "", prose)
        for target in _LINK.findall(prose):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            checked += 1
            path_part, _, anchor = target.partition("#")
            path = (page.parent / path_part).resolve() if path_part else page
            where = f"{page.relative_to(ROOT)}: ({target})"
            if not path.exists():
                problems.append(f"{where}: {path_part} does not exist")
            elif not path.is_relative_to(ROOT):
                problems.append(f"{where}: points outside the repository")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                problems.append(f"{where}: {path.name} has no heading #{anchor}")
    assert not problems, "\n".join(problems)
    assert checked >= 10  # The README's table of pages alone has more.


def test_readme_keeps_its_two_commands() -> None:
    """On a fresh machine ``make run`` does the main job on the built-in example and ``make test``
    runs the tests (CI runs exactly that, .ci/run): both stay near the top of the README, and
    the Makefile and CI still mean what it says."""
    lines = README.read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move details to docs/"
    head = "\n".join(lines[:40])
    assert re.search(r"^make run\b", head, re.M) and re.search(r"^make test\b", head, re.M), "make run and make test must stay at the top"
    makefile = (ROOT / "Makefile").read_text()
    run = re.search(r"^run:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert run is not None and "rdx demo" in run.group(1), "make run runs rdx demo (the README says so)"
    assert re.search(r"^test:", makefile, re.M)
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M), ".ci/run runs the README's test command"


def test_configuration_shown_parses() -> None:
    """Blocks shown only but meant to be copied (client configurations, rdx.toml) are valid."""
    import json
    import tomllib

    for page in PAGES:
        for b in blocks_of(page)[0]:
            if b.language == "json":
                json.loads(b.text)
            elif b.language == "toml":
                tomllib.loads(b.text)
            elif b.marker == "write" and b.argument.endswith(".toml"):
                tomllib.loads(b.text)


def test_benchmarks_page_names_every_script_and_its_options() -> None:
    """docs/benchmarks.md has a section per script of bench/, and each option its usage lines
    show is one the script takes."""
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    scripts = sorted(p.name for p in (ROOT / "bench").glob("bench_*.py"))
    assert scripts
    problems = [f"no section ### {name}" for name in scripts if f"### {name}" not in page]
    for name, usage in re.findall(r"^`python bench/(bench_\w+\.py)([^`]*)`$", page, re.M):
        source = (ROOT / "bench" / name).read_text()
        problems += [f"{name} takes no {flag}" for flag in re.findall(r"--[a-z][a-z-]*", usage) if f'"{flag}"' not in source]
    assert not problems, "\n".join(problems)


def test_every_command_and_tool_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    """Each ``rdx`` command has a row in docs/cli.md, and each MCP tool one in docs/mcp.md."""
    from rdx.cli.main import main

    with pytest.raises(SystemExit):
        main(["--help"])
    commands = re.findall(r"^ {4}(\w+) ", capsys.readouterr().out, re.M)
    assert len(commands) > 10
    cli = (ROOT / "docs" / "cli.md").read_text()
    missing = [c for c in commands if f"| `rdx {c}" not in cli]
    server = (ROOT / "rdx_mcp" / "server.py").read_text()
    tools = re.findall(r"@tool\([^@]*?\)\n\s+def (\w+)\(", server, re.S)
    assert len(tools) > 10
    mcp = (ROOT / "docs" / "mcp.md").read_text()
    missing += [f"MCP tool {t}" for t in tools if f"| `{t}` |" not in mcp]
    assert not missing, missing


# -- the examples run ------------------------------------------------------------------------


def _copy_example(into: Path) -> None:
    shutil.copytree(EXAMPLE, into / "rdx" / "data" / "example", ignore=shutil.ignore_patterns(".rdx", "__pycache__"))


def _environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["RDX_GEM_CACHE"] = str(home / "gem-cache")
    env.pop("RDX_TOKEN", None)
    env["COLUMNS"] = "100"
    return env


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    """The ``$`` commands of a console block, each with the output shown after it."""
    found: list[tuple[str, list[str]]] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            found.append((command, []))
        elif found:
            found[-1][1].append(line.rstrip())
        else:
            raise AssertionError(f"{block.where}: output before the first $ command")
        i += 1
    return found


def _pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in expected.split("...")))


def _missing(expected: list[str], actual: list[str]) -> str | None:
    """The first expected line not found, in order, among ``actual`` (None: all found)."""
    at = 0
    for want in expected:
        if not want.strip() or want.strip() == "...":
            continue
        pattern = _pattern(want)
        while at < len(actual) and not pattern.fullmatch(actual[at].rstrip()):
            at += 1
        if at == len(actual):
            return want
        at += 1
    return None


# One process per page runs its commands through the console script's entry point
# (``rdx = "rdx.cli.main:main"``), one request line in, one JSON answer line out: an interpreter
# started per command would double the time of this test. Commands write to their own buffers;
# the answers go to a copy of the original stdout, and fd 1 points at stderr, so nothing a
# command or a worker process prints can garble them.
_DRIVER = """
import contextlib, io, json, os, sys, traceback
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
from rdx.cli.main import main
for line in sys.stdin:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(json.loads(line))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 99
    answers.write(json.dumps([code, out.getvalue(), err.getvalue()]) + "\\n")
    answers.flush()
"""


class Console:
    """The ``rdx`` command line of one page, run from its directory (see ``_DRIVER``)."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.cwd, self.env = cwd, env
        self.process: subprocess.Popen[str] | None = None

    def run(self, argv: list[str]) -> tuple[int, str, str]:
        import json

        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-c", _DRIVER], cwd=self.cwd, env=self.env, text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(argv) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"the command process ended (exit status {self.process.wait()})"
        code, out, err = json.loads(answer)
        return code, out, err

    def close(self) -> None:
        if self.process is not None:
            self.process.communicate(timeout=60)


def _run_console(block: Block, console: Console) -> None:
    for command, expected in _commands(block):
        argv = shlex.split(command)
        assert argv[0] == "rdx", f"{block.where}: only rdx commands run here; mark the block <!-- not run: why --> for {command!r}"
        code, stdout, stderr = console.run(argv[1:])
        shown = f"{block.where}: $ {command}\nexit {code}\n{stdout}{stderr}"
        assert "Traceback" not in stderr, shown
        if any(line.startswith("rdx: error:") for line in expected):
            assert code != 0, shown
        else:
            assert code == 0, shown
        missing = _missing(expected, (stdout + stderr).splitlines())
        assert missing is None, f"{shown}\nthe page shows a line the command did not print:\n{missing}"


def _run_pycon(block: Block, namespace: dict[str, object]) -> None:
    test = doctest.DocTestParser().get_doctest(block.text, namespace, block.where, str(block.page), block.line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    runner.run(test, out=report.write, clear_globs=False)
    namespace.update(test.globs)  # DocTest ran in a copy of the namespace; later blocks see its names.
    assert runner.failures == 0, report.getvalue()


def _pages_with_examples() -> list[Path]:
    return [page for page in PAGES if any(runs(b) for b in blocks_of(page)[0])]


# make check runs the README's examples; the other pages' (a process and an index each) run in
# make test.
@pytest.mark.parametrize(
    "page", [p if p == README else pytest.param(p, marks=pytest.mark.slow) for p in _pages_with_examples()], ids=lambda p: str(p.relative_to(ROOT))
)
def test_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    work = tmp_path / "checkout"
    _copy_example(work)
    monkeypatch.chdir(work)
    env = _environment(tmp_path)
    monkeypatch.setenv("RDX_GEM_CACHE", env["RDX_GEM_CACHE"])
    import rdx

    namespace: dict[str, object] = {"__name__": "__docs__", "rdx": rdx}
    blocks = blocks_of(page)[0]
    console = Console(work, env)
    request.addfinalizer(console.close)
    ran = []
    for block in blocks:
        if not runs(block):
            continue
        if block.marker == "write":
            target = work / block.argument
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text)
        elif block.language == "python":
            exec(compile(block.text, block.where, "exec"), namespace)
        elif block.language == "pycon":
            _run_pycon(block, namespace)
        elif block.language == "console":
            _run_console(block, console)
        else:
            raise AssertionError(f"{block.where}: no runner for ```{block.language}")
        ran.append(block)
    # Every block the page marks runnable ran (none skipped by a language or marker this test
    # does not know), and the page had at least one.
    assert ran and ran == [b for b in blocks if runs(b)]
