"""RuboCop in the editor, through ``rubocop --server`` (RuboCop's own resident mode): its
offenses as diagnostics beside rdx's, ``textDocument/formatting`` with its safe autocorrect, and
``textDocument/rangeFormatting`` (the corrections on the range's lines) and code actions
(autocorrect one offense, disable a cop for a line). Edits are the changed lines only.

It is on when the workspace has RuboCop (a ``.rubocop.yml`` at the root, or ``rubocop`` in
``Gemfile.lock``) and a ``rubocop`` command is on ``PATH``; otherwise none of this runs and the
requests answer nothing. RuboCop always reads the buffer's text (``--stdin``), never the file on
disk. Diagnostics are debounced (``DEBOUNCE`` seconds after the last change) and run in a
subprocess the event loop awaits, so navigation never waits for RuboCop; a result for text that
has changed since is dropped (the next run replaces it). The first run starts RuboCop's server
for the project when none is running, and the language server stops that one on shutdown
(``rubocop --stop-server``); a server the user started is left alone.

RuboCop's columns are 1-based characters with an inclusive end; they are turned into the
client's code units on the buffer's line. Severities: ``error`` and ``fatal`` are errors,
``warning`` warnings, the rest (``convention``, ``refactor``, ``info``) information.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import os
import shutil
from typing import Any

from lsprotocol import types as lsp

from rdx_lsp.server import RdxLanguageServer, uri_path

__all__ = ["DEBOUNCE", "RuboCop", "line_edits", "offenses_to_diagnostics", "register"]

log = logging.getLogger("rdx.lsp")

DEBOUNCE = 0.15
TIMEOUT = 60.0  # Seconds for one run (the first starts RuboCop's server and loads every cop).
_SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error, "fatal": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
}


class RuboCop:
    """One workspace's RuboCop (see the module docstring)."""

    def __init__(self, ls: RdxLanguageServer) -> None:
        self.ls = ls
        self._enabled: bool | None = None
        self._pending: dict[str, asyncio.Task[None]] = {}
        # Whether this language server started RuboCop's server (and so stops it).
        self.started_server = False
        self._checked_server = False

    @property
    def root(self) -> str | None:
        return self.ls.root

    @property
    def enabled(self) -> bool:
        if self._enabled is None:
            root = self.root
            self._enabled = bool(root) and shutil.which("rubocop") is not None and _wanted(root)  # type: ignore[arg-type]
        return self._enabled

    async def run(self, args: list[str], path: str, text: str) -> tuple[int | None, str]:
        """RuboCop's exit status and standard output for ``text`` as the file ``path``."""
        if not self._checked_server:
            self._checked_server = True
            status, out = await self._exec(["--server-status"], None)
            self.started_server = "is running" not in out
        return await self._exec(["--server", *args, "--stdin", path], text)

    async def _exec(self, args: list[str], text: str | None) -> tuple[int | None, str]:
        try:
            proc = await asyncio.create_subprocess_exec(
                "rubocop", *args, cwd=self.root, stdin=asyncio.subprocess.PIPE if text is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            log.warning("cannot run rubocop: %s", exc)
            return None, ""
        try:
            out, err = await asyncio.wait_for(proc.communicate(text.encode() if text is not None else None), TIMEOUT)
        except TimeoutError:
            proc.kill()
            await proc.communicate()
            log.warning("rubocop %s took over %s s; stopped", " ".join(args), TIMEOUT)
            return None, ""
        if proc.returncode not in (0, 1):
            log.warning("rubocop %s failed (%s): %s", " ".join(args), proc.returncode, err.decode("utf-8", "replace")[-2000:])
        return proc.returncode, out.decode("utf-8", "replace")

    # -- diagnostics --------------------------------------------------------------------------

    def changed(self, uri: str) -> None:
        """A buffer changed: check it again once it has been quiet for ``DEBOUNCE`` seconds."""
        path = uri_path(uri)
        if path is None or not path.endswith((".rb", ".rake", ".gemspec", ".ru")) or not self.enabled:
            return
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._pending[uri] = asyncio.get_event_loop().create_task(self._check(uri, path))

    async def _check(self, uri: str, path: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        text = self.ls.buffer(uri)
        if text is None:
            return
        version = self.ls.versions.get(uri, 0)
        status, out = await self.run(["--format", "json"], path, text)
        if self.ls.versions.get(uri, 0) != version or self.ls.buffer(uri) is None:
            return  # The buffer moved on (or closed): a newer check replaces this one.
        self._pending.pop(uri, None)
        self.ls.extra_diagnostics[uri] = offenses_to_diagnostics(out, text, self.ls.workspace.position_codec.client_num_units)
        self.ls.publish(uri)

    async def stop(self) -> None:
        for task in self._pending.values():
            task.cancel()
        if self.started_server and self.enabled:
            await self._exec(["--stop-server"], None)


def _wanted(root: str) -> bool:
    if os.path.exists(os.path.join(root, ".rubocop.yml")):
        return True
    try:
        with open(os.path.join(root, "Gemfile.lock"), encoding="utf-8", errors="replace") as lock:
            return any(line.strip().startswith("rubocop ") for line in lock)
    except OSError:
        return False


def _position(lines: list[str], line: int, column: int, units: Any) -> lsp.Position:
    """An LSP position from RuboCop's 1-based line and 0-based character column."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return lsp.Position(line=max(0, line - 1), character=units(text[:column]))


def offenses_to_diagnostics(report: str, text: str, units: Any) -> list[lsp.Diagnostic]:
    """RuboCop's JSON report of one file as LSP diagnostics (``data`` keeps the cop's name and
    whether it can correct the offense, for code actions)."""
    try:
        files = json.loads(report).get("files") or []
    except (ValueError, AttributeError):
        return []
    lines = text.split("\n")
    out = []
    for offense in (files[0].get("offenses") or []) if files else []:
        where = offense.get("location") or {}
        start = _position(lines, where.get("start_line", 1), where.get("start_column", 1) - 1, units)
        end = _position(lines, where.get("last_line", where.get("start_line", 1)), where.get("last_column", 0), units)
        cop = offense.get("cop_name", "")
        out.append(
            lsp.Diagnostic(
                range=lsp.Range(start, end), message=offense.get("message", ""), source="rubocop", code=cop,
                severity=_SEVERITY.get(offense.get("severity"), lsp.DiagnosticSeverity.Information),
                data={"cop": cop, "correctable": bool(offense.get("correctable"))},
            )
        )
    return out


def line_edits(old: str, new: str, units: Any, rows: tuple[int, int] | None = None) -> list[lsp.TextEdit]:
    """Edits turning ``old`` into ``new`` line by line (what RuboCop changed, not the whole
    buffer, so the client keeps its marks and folds elsewhere); with ``rows`` (0-based,
    inclusive), only the changes within those lines, for range formatting."""
    before = old.splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    out = []
    hunks = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            # Lines changed one for one: one edit each, so a range can take some of them.
            hunks += [(k, k + 1, j1 + k - i1, j1 + k - i1 + 1) for k in range(i1, i2) if before[k] != after[j1 + k - i1]]
        elif tag != "equal":
            hunks.append((i1, i2, j1, j2))
    for i1, i2, j1, j2 in hunks:
        if rows is not None and not (rows[0] <= i1 and i2 - 1 <= rows[1]):
            continue
        # Whole lines, from the start of line i1 to the start of line i2; past a last line
        # without a newline, to its end.
        if i2 < len(before) or old.endswith("\n"):
            end = lsp.Position(i2, 0)
        else:
            end = lsp.Position(len(before) - 1, units(before[-1]))
        out.append(lsp.TextEdit(range=lsp.Range(lsp.Position(i1, 0), end), new_text="".join(after[j1:j2])))
    return out


def register(server: RdxLanguageServer) -> None:
    state: dict[str, RuboCop] = {}

    def rubocop(ls: RdxLanguageServer) -> RuboCop:
        if "it" not in state:
            state["it"] = RuboCop(ls)
        return state["it"]

    server.change_listeners.append(lambda uri: rubocop(server).changed(uri))

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(ls: RdxLanguageServer, params: Any) -> None:
        if "it" in state:
            await state["it"].stop()

    async def corrected(ls: RdxLanguageServer, uri: str, only: str | None = None, rows: tuple[int, int] | None = None) -> list[lsp.TextEdit] | None:
        cop = rubocop(ls)
        path = uri_path(uri)
        text = ls.buffer(uri)
        if path is None or text is None or not cop.enabled:
            return None
        args = ["--autocorrect", "--stderr", "--format", "quiet"] + (["--only", only] if only else [])
        status, out = await cop.run(args, path, text)
        if status not in (0, 1) or not out or out == text:
            return [] if status in (0, 1) else None
        return line_edits(text, out, ls.workspace.position_codec.client_num_units, rows)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    async def formatting(ls: RdxLanguageServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        return await corrected(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_RANGE_FORMATTING)
    async def range_formatting(ls: RdxLanguageServer, params: lsp.DocumentRangeFormattingParams) -> list[lsp.TextEdit] | None:
        """RuboCop corrects the whole buffer (its cops read the whole file); the changes on the
        range's lines are kept."""
        end = params.range.end
        last = end.line - 1 if end.character == 0 and end.line > params.range.start.line else end.line
        return await corrected(ls, params.text_document.uri, rows=(params.range.start.line, last))

    async def code_action(ls: RdxLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        text = ls.buffer(uri)
        if text is None or not rubocop(ls).enabled:
            return []
        lines = text.split("\n")
        units = ls.workspace.position_codec.client_num_units
        out: list[lsp.CodeAction] = []
        seen: set[tuple[str, int]] = set()
        for diagnostic in params.context.diagnostics:
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            cop = data.get("cop")
            if diagnostic.source != "rubocop" or not isinstance(cop, str) or not cop:
                continue
            row = diagnostic.range.start.line
            if data.get("correctable") and (cop, -1) not in seen:
                seen.add((cop, -1))
                edits = await corrected(ls, uri, only=cop)
                if edits:
                    out.append(lsp.CodeAction(
                        title=f"Autocorrect {cop}", kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                        edit=lsp.WorkspaceEdit(changes={uri: edits}), is_preferred=True,
                    ))
            if (cop, row) not in seen and row < len(lines):
                seen.add((cop, row))
                line = lines[row]
                addition = f", {cop}" if "# rubocop:disable " in line else f" # rubocop:disable {cop}"
                end = lsp.Position(row, units(line))
                out.append(lsp.CodeAction(
                    title=f"Disable {cop} for this line", kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=lsp.Range(end, end), new_text=addition)]}),
                ))
        return out

    server.code_action_providers.append(code_action)
