"""``rdx lsp`` in a real editor: headless Neovim's built-in LSP client on a copy of RuboCop's
``lib/``, scripted by ``tests/data/nvim/lsp_session.lua``.

The Lua script is generic: it starts the server, opens one file, waits for the client to attach
and the indexing progress to end, runs the steps of a JSON plan (requests, buffer edits that the
client sends as incremental didChange, a wait for diagnostics) and writes every answer to a JSON
report. The expectations live here. pytest-lsp (``test_lsp.py``) checks the protocol feature by
feature; this test checks that an actual client, with its own capabilities, position encoding and
change tracking, gets the same answers.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import rdx_lsp

NVIM = shutil.which("nvim")
SESSION = Path(__file__).parent / "data" / "nvim" / "lsp_session.lua"
CHECKOUT = Path(rdx_lsp.__file__).resolve().parent.parent
RUBOCOP_GEMS = "/usr/share/rubygems-integration/all/gems/rubocop-1.*/"
COP = "lib/rubocop/cop/style/redundant_self.rb"
# Each request may wait for the background index (a few seconds); the whole session is bounded too.
REQUEST_TIMEOUT_MS = 20_000
SESSION_TIMEOUT_S = 90

# A method inserted into the cop, before ``def on_block``: a call to a method of ``Cop::Base`` and
# an unfinished name to complete.
PROBE = ["        def on_rdx_probe(node)", "          add_offense(node)", "          add_off", "        end", ""]


def rubocop_lib(tmp_path: Path) -> Path:
    """A copy of the Debian RuboCop package's ``lib/`` (about 770 files) as the workspace root."""
    found = sorted(glob.glob(RUBOCOP_GEMS))
    assert found, f"RuboCop is missing ({RUBOCOP_GEMS}); make test installs it (scripts/install-system-deps)"
    root = tmp_path / "rubocop"
    shutil.copytree(Path(found[-1]) / "lib", root / "lib")
    return root


def line_of(lines: list[str], needle: str) -> int:
    """The 0-based line holding ``needle`` (the first one)."""
    return next(i for i, line in enumerate(lines) if needle in line)


def run_session(tmp_path: Path, root: Path, path: Path, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the scripted Neovim session and return its report; on any failure, the assertion
    message carries Neovim's output, the report's error and the end of the LSP log."""
    assert NVIM is not None, "nvim is required for the editor test (make test installs it: scripts/install-system-deps)"
    out = tmp_path / "report.json"
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "cmd": [sys.executable, "-m", "rdx_lsp"],
                "root": str(root),
                "file": str(path),
                "out": str(out),
                "timeout_ms": REQUEST_TIMEOUT_MS,
                "steps": steps,
            }
        )
    )
    # Neovim's cache (where the LSP log goes), state and config live in tmp_path, away from the user's.
    # Neovim runs in the workspace, as an editor would; the server imports this checkout's packages
    # (as pytest does) even where an older editable install predates ``rdx_lsp``.
    xdg = tmp_path / "xdg"
    env = dict(
        os.environ,
        RDX_NVIM_PLAN=str(plan),
        XDG_CACHE_HOME=str(xdg / "cache"),
        XDG_STATE_HOME=str(xdg / "state"),
        XDG_CONFIG_HOME=str(xdg / "config"),
        XDG_DATA_HOME=str(xdg / "data"),
    )
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(CHECKOUT), os.environ.get("PYTHONPATH")) if p)
    command = [NVIM, "--headless", "--clean", "-n", "-u", "NONE", "-i", "NONE", "-c", f"luafile {SESSION}"]
    # Neovim and the server it spawns share a new process group, killed whole on timeout.
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=root,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=SESSION_TIMEOUT_S)
        outcome = f"nvim exited with {proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        outcome = f"nvim timed out after {SESSION_TIMEOUT_S} s"
    finally:
        # A server that outlives Neovim (one stuck indexing ignores ``exit``) goes with its group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    outcome += f"\nstdout:\n{stdout}\nstderr:\n{stderr}"
    ok = proc.returncode == 0
    report = json.loads(out.read_text()) if out.exists() else {}
    if not ok or "error" in report:
        log = Path(report.get("log_path") or xdg / "cache" / "nvim" / "lsp.log")
        # The log's lines can be whole documents (didOpen): the last ones, each cut short.
        tail = (
            "\n".join(line[:500] for line in log.read_text(errors="replace").splitlines()[-40:])
            if log.exists()
            else f"(no LSP log at {log})"
        )
        done = [step["name"] for step in report.get("steps", [])]
        raise AssertionError(f"{outcome}\nsession error: {report.get('error')}\nsteps done: {done}\nLSP log ({log}), last lines:\n{tail}")
    return report


def answers(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The steps of a report by name; each failed or refused request fails the test here."""
    steps = {step["name"]: step for step in report["steps"]}
    for name, step in steps.items():
        assert "failure" not in step and "error" not in step, f"{name}: {step}"
    return steps


def relative(location: dict[str, Any], root: Path) -> tuple[str, int, int]:
    uri = location.get("uri") or location["targetUri"]
    start = (location.get("range") or location["targetSelectionRange"])["start"]
    return (str(Path(uri.removeprefix("file://")).relative_to(root)), start["line"], start["character"])


def symbol_paths(symbols: list[dict[str, Any]], prefix: str = "") -> list[str]:
    """Document symbols flattened to ``Outer/Inner/name`` paths, in order."""
    out = []
    stack = [(prefix, s) for s in reversed(symbols)]
    while stack:
        outer, symbol = stack.pop()
        path = f"{outer}/{symbol['name']}" if outer else symbol["name"]
        out.append(path)
        stack.extend((path, child) for child in reversed(symbol.get("children") or []))
    return out


@pytest.mark.corpus
def test_neovim_session_on_rubocop(tmp_path: Path) -> None:
    root = rubocop_lib(tmp_path)
    path = root / COP
    lines = path.read_text().splitlines()
    klass = line_of(lines, "class RedundantSelf < Base")
    base = (klass, lines[klass].index("Base") + 1)
    offense = line_of(lines, "add_offense(node.receiver)")
    on_block = line_of(lines, "def on_block(node)")
    probe_call = (on_block + 1, PROBE[1].index("add_offense") + 2)
    probe_end = (on_block + 2, len(PROBE[2]))
    steps: list[dict[str, Any]] = [
        {"name": "definition", "method": "textDocument/definition", "position": base},
        {"name": "hover", "method": "textDocument/hover", "position": base},
        {"name": "references", "method": "textDocument/references", "position": base, "params": {"context": {"includeDeclaration": True}}},
        {"name": "completion", "method": "textDocument/completion", "position": (offense, lines[offense].index("add_offense") + 7)},
        {"name": "symbols", "method": "textDocument/documentSymbol"},
        # Insert a method: Neovim sends the change as an incremental didChange before the next request.
        {"name": "insert probe", "set_lines": [on_block, on_block, PROBE]},
        {"name": "symbols after edit", "method": "textDocument/documentSymbol"},
        {"name": "definition after edit", "method": "textDocument/definition", "position": probe_call},
        {"name": "hover after edit", "method": "textDocument/hover", "position": probe_call},
        {"name": "completion after edit", "method": "textDocument/completion", "position": probe_end},
        {"name": "resolve", "method": "completionItem/resolve", "resolve": {"step": "completion after edit", "label": "add_offense"}},
        # Break the new method: the server publishes a syntax error for the buffer.
        {"name": "break probe", "set_lines": [on_block, on_block + 1, ["        def on_rdx_probe(node"]]},
        {"name": "diagnostics", "wait_diagnostics": {"severity": 1}},
    ]
    report = run_session(tmp_path, root, path, steps)
    assert report["initialized"] and report["attached"], report
    # The indexing progress began and ended under one token, before any request.
    kinds = [p["value"]["kind"] for p in report["progress"]]
    assert report["ready"] and kinds[0] == "begin" and kinds[-1] == "end", report["progress"]
    got = answers(report)

    base_lines = (root / "lib/rubocop/cop/base.rb").read_text().splitlines()
    base_class = line_of(base_lines, "    class Base")
    assert [relative(loc, root) for loc in got["definition"]["result"]] == [("lib/rubocop/cop/base.rb", base_class, 4)]
    hover = got["hover"]["result"]["contents"]
    assert hover["kind"] == "markdown" and "RuboCop::Cop::Base" in hover["value"] and "A scaffold for concrete cops." in hover["value"]
    refs = {relative(loc, root) for loc in got["references"]["result"]}
    assert ("lib/rubocop/cop/base.rb", base_class, 10) in refs  # The declaration, asked for.
    assert (COP, base[0], base[1] - 1) in refs and any(p == "lib/rubocop/cop/cop.rb" for p, _, _ in refs) and len(refs) > 300
    completion = got["completion"]["result"]
    assert "add_offense" in [item["label"] for item in completion["items"]]

    before = symbol_paths(got["symbols"]["result"])
    cop = "RuboCop/Cop/Style/RedundantSelf"
    assert cop in before and f"{cop}/on_send" in before and f"{cop}/on_block" in before and f"{cop}/on_rdx_probe" not in before
    after = symbol_paths(got["symbols after edit"]["result"])
    assert after.index(f"{cop}/on_rdx_probe") == after.index(f"{cop}/on_block") - 1
    assert set(after) - set(before) == {f"{cop}/on_rdx_probe"}
    add_offense = line_of(base_lines, "def add_offense(")
    assert [relative(loc, root) for loc in got["definition after edit"]["result"]] == [("lib/rubocop/cop/base.rb", add_offense, 6)]
    signature = "(node_or_range, message: nil, severity: nil, &block)"
    assert f"RuboCop::Cop::Base#add_offense{signature}" in got["hover after edit"]["result"]["contents"]["value"]
    assert "add_offense" in [item["label"] for item in got["completion after edit"]["result"]["items"]]
    assert f"RuboCop::Cop::Base#add_offense{signature}" in got["resolve"]["result"]["documentation"]["value"]
    diagnostics = got["diagnostics"]
    assert diagnostics["found"], diagnostics
    errors = [(d["lnum"], d["col"], d["message"], d["source"]) for d in diagnostics["diagnostics"] if d["severity"] == 1]
    # tree-sitter's MISSING ")" is zero-width, at the end of the broken line's parameters.
    assert [(e[0], e[2], e[3]) for e in errors] == [(on_block, "missing )", "rdx")], diagnostics
    # The buffer, not the file, was edited.
    assert report["lines"][on_block] == "        def on_rdx_probe(node" and "on_rdx_probe" not in path.read_text()
