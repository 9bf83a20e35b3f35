"""RuboCop in the editor, through ``rubocop --server`` (RuboCop's own resident mode): its
offenses as diagnostics beside rdx's, ``textDocument/formatting`` with its safe autocorrect, and
``textDocument/rangeFormatting`` (the corrections on the range's lines) and code actions
(autocorrect one offense, disable a cop for a line). Edits are the changed lines only.

It is on when the workspace has RuboCop (a ``.rubocop.yml`` at the root, or ``rubocop`` in
``Gemfile.lock``) and a ``rubocop`` command is on ``PATH``; otherwise none of this runs and the
requests answer nothing. RuboCop always reads the buffer's text (``--stdin``), never the file on
disk. Diagnostics are debounced (``DEBOUNCE`` seconds after the last change; a run that has
started is not abandoned, its result is dropped if the text moved on) and awaited on the event
loop, so navigation never waits for RuboCop.

The first run goes through ``rubocop --server``, RuboCop's own client, which starts RuboCop's
server for the project when none is running; the language server stops that one on shutdown
(``rubocop --stop-server``); a server the user started is left alone. Later runs send the same
request as that client straight to the server's socket (``ServerEndpoint``): the client is a
Ruby process of its own whose start-up cost about 350 ms of every run, more than RuboCop's cops
take on a file of a few hundred lines. The server answers what ``RuboCop::CLI`` prints, as for
the client; when the endpoint cannot be found or does not answer as expected, the run goes
through the client again.

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
import shlex
import shutil
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from rdx_lsp.server import RdxLanguageServer, uri_path

__all__ = ["DEBOUNCE", "RuboCop", "ServerEndpoint", "line_edits", "offenses_to_diagnostics", "register", "server_directory"]

log = logging.getLogger("rdx.lsp")

# Seconds of quiet after a change before RuboCop runs: shorter than the pause between typing
# and reading, longer than most pauses between keystrokes.
DEBOUNCE = 0.1
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
        # Documents RuboCop is checking now, with an event set when the run ends.
        self._running: dict[str, asyncio.Event] = {}
        # The checks running RuboCop now: a change does not cancel them.
        self._active: set[asyncio.Task[None]] = set()
        # Whether this language server started RuboCop's server (and so stops it).
        self.started_server = False
        self._checked_server = False
        # RuboCop's server, once a run through its client has made sure it is up.
        self._endpoint: ServerEndpoint | None = None
        self._looked_for_endpoint = False

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
        if self._endpoint is None and self._looked_for_endpoint:
            self._endpoint = ServerEndpoint.find(self.root or ".")
        if self._endpoint is not None:
            answer = await self._endpoint.request([*args, "--stdin", path], text)
            if answer is not None:
                return answer
            self._endpoint = None  # Stopped or restarted: the client finds (or starts) it again.
        self._looked_for_endpoint = True
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
        if pending is not None and pending not in self._active:
            pending.cancel()  # Still waiting (the debounce, or another run): the new text replaces it.
        self._pending[uri] = asyncio.get_event_loop().create_task(self._check(uri, path))

    async def _check(self, uri: str, path: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        # One run per document at a time: a run already under way (RuboCop's server answers one
        # request after the other) finishes first, and its result is dropped below.
        while uri in self._running:
            await self._running[uri].wait()
        text = self.ls.buffer(uri)
        if text is None:
            return
        version = self.ls.versions.get(uri, 0)
        done = self._running[uri] = asyncio.Event()
        task = asyncio.current_task()
        assert task is not None
        self._active.add(task)
        try:
            status, out = await self.run(["--format", "json"], path, text)
        finally:
            self._active.discard(task)
            del self._running[uri]
            done.set()
        if self.ls.versions.get(uri, 0) != version or self.ls.buffer(uri) is None:
            return  # The buffer moved on (or closed): a newer check replaces this one.
        if self._pending.get(uri) is asyncio.current_task():
            self._pending.pop(uri, None)
        self.ls.extra_diagnostics[uri] = offenses_to_diagnostics(out, text, self.ls.workspace.position_codec.client_num_units)
        self.ls.publish(uri)

    async def stop(self) -> None:
        for task in self._pending.values():
            task.cancel()
        if self.started_server and self.enabled:
            await self._exec(["--stop-server"], None)


def server_directory(root: str, environ: dict[str, str] | None = None, home: str | None = None) -> str | None:
    """Where RuboCop's server for ``root`` keeps its port and token files, by RuboCop's rules
    (``RuboCop::Server::Cache``): ``$RUBOCOP_CACHE_ROOT``, else ``$XDG_CACHE_HOME/<uid>``, else
    ``~/.cache``; then ``rubocop_cache/server/`` and the project's directory (the nearest one
    up from ``root`` with a ``Gemfile`` or ``gems.rb``, else ``root``) with ``/`` as ``+``.
    None when a configuration file may set ``CacheRootDirectory`` (RuboCop reads it with ERB;
    the client is asked then)."""
    env = os.environ if environ is None else environ
    cwd = os.path.realpath(root)  # The client's Dir.pwd.
    cache = env.get("RUBOCOP_CACHE_ROOT")
    if cache is None:
        for config in _configs(cwd, home, env):
            try:
                with open(config, encoding="utf-8", errors="replace") as f:
                    if "CacheRootDirectory" in f.read():
                        return None
            except OSError:
                continue
            break  # RuboCop reads the first configuration file it finds.
        if "XDG_CACHE_HOME" in env:
            cache = os.path.join(env["XDG_CACHE_HOME"], str(os.getuid()))
        else:
            cache = os.path.join(os.path.realpath(home or os.path.expanduser("~")), ".cache")
    project = cwd
    here = cwd
    while here != "/":
        if any(os.path.exists(os.path.join(here, name)) for name in ("Gemfile", "gems.rb")):
            project = here
            break
        here = os.path.dirname(here)
    return os.path.join(cache, "rubocop_cache", "server", project[1:].replace("/", "+"))


def _configs(cwd: str, home: str | None, env: Any) -> list[str]:
    """Configuration files RuboCop may read for ``cwd``, nearest first."""
    out = []
    here = cwd
    while True:
        out.append(os.path.join(here, ".rubocop.yml"))
        if here == "/":
            break
        here = os.path.dirname(here)
    user = home or os.path.expanduser("~")
    config_home = env.get("XDG_CONFIG_HOME") or os.path.join(user, ".config")
    out += [os.path.join(config_home, "rubocop", "config.yml"), os.path.join(user, ".rubocop.yml")]
    return [path for path in out if os.path.isfile(path)]


@dataclass(frozen=True)
class ServerEndpoint:
    """A running RuboCop server: its port, token and directory. ``request`` sends what
    ``rubocop --server`` sends (a line with the token, the working directory, ``exec`` and the
    arguments, shell-quoted; then standard input) and reads the answer to the end; the exit
    status is in the directory's ``status`` file."""

    root: str
    directory: str
    port: int
    token: str

    @classmethod
    def find(cls, root: str, environ: dict[str, str] | None = None) -> ServerEndpoint | None:
        directory = server_directory(root, environ)
        if directory is None:
            return None
        try:
            with open(os.path.join(directory, "port"), encoding="ascii") as f:
                port = int(f.read().strip())
            with open(os.path.join(directory, "token"), encoding="ascii") as f:
                token = f.read().strip()
        except (OSError, ValueError):
            return None
        return cls(os.path.realpath(root), directory, port, token) if token else None

    async def request(self, args: list[str], text: str) -> tuple[int | None, str] | None:
        """RuboCop's exit status and output, or None when the server is gone or answers
        something other than a run's result (a stale token, say)."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 5)
        except (OSError, TimeoutError):
            return None
        status_file = os.path.join(self.directory, "status")
        try:
            # As RuboCop's client does: a status file after the answer is this run's.
            os.unlink(status_file)
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            header = shlex.join([self.token, self.root, "exec", *args]) + "\n"
            writer.write(header.encode() + text.encode())
            await writer.drain()
            writer.write_eof()
            out = await asyncio.wait_for(reader.read(), TIMEOUT)
        except (OSError, TimeoutError):
            return None
        finally:
            writer.close()
        try:
            with open(status_file, encoding="ascii") as f:
                status = int(f.read().strip())
        except (OSError, ValueError):
            # No run wrote it: the server refused the request (a stale token), or another
            # client's run began meanwhile. The client is asked instead.
            return None
        answer = out.decode("utf-8", "replace")
        if status not in (0, 1):
            log.warning("rubocop server run %s failed (%s): %s", " ".join(args), status, answer[-2000:])
        return status, answer

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
