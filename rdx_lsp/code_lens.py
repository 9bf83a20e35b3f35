"""``textDocument/codeLens`` and ``codeLens/resolve``: "Run" and "Run in terminal" above each
Ruby test and group, and a reference count above each class, module and method.

Tests are found in the buffer's syntax tree:

- minitest (and test-unit, ActiveSupport): a class whose superclass ends in ``Test`` or
  ``TestCase`` (``Minitest::Test``, ``ActiveSupport::TestCase``...), its ``def test_*`` methods
  and its ``test "..." do`` blocks;
- RSpec: ``describe``/``context``/``feature`` groups and ``it``/``specify``/``example``/
  ``scenario`` examples with a block, in ``*_spec.rb`` files.

The command line is what the project runs its tests with: ``bin/rails test FILE:LINE`` in a
Rails application, else ``ruby -Itest FILE --name NAME`` (a whole file for a class) or
``rspec FILE:LINE``, after ``bundle exec`` when the project has a Gemfile.

"Run" is the server's command ``rdx.runTest``: it runs the command in the workspace root
(never through a shell; at most ``RUN_TIMEOUT`` seconds; only a command line this server put
in a lens, so the command cannot be made to run anything else), logs its output
(``window/logMessage``) and says whether it passed (``window/showMessage``). "Run in terminal"
is ``rdx.runTestInTerminal`` with the same arguments, a command for the client to bind to its
terminal (VS Code extensions and Neovim's ``vim.lsp.commands`` can); the server does not
claim it, so a client can.

Reference counts are computed on ``codeLens/resolve`` only, for the lenses on screen.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["RUN_TIMEOUT", "register", "test_items"]

RUN_TIMEOUT = 600
_TEST_CLASS = re.compile(r"(?:Test|TestCase|Spec)$")
_GROUPS = frozenset({b"describe", b"context", b"feature", b"shared_examples", b"example_group"})
_EXAMPLES = frozenset({b"it", b"specify", b"example", b"scenario", b"its"})
_COUNTED = frozenset({"Class", "Module", "Method"})


class TestItem:
    """A test or a group found in a buffer: 0-based row of its first line, a label, and how
    to select it (``name`` for minitest, ``None`` for a whole file or an RSpec line)."""

    __slots__ = ("framework", "group", "label", "name", "row")

    def __init__(self, row: int, label: str, framework: str, name: str | None, group: bool) -> None:
        self.row = row
        self.label = label
        self.framework = framework
        self.name = name
        self.group = group


def _text(node) -> str:  # type: ignore[no-untyped-def]
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _first_string(args) -> str | None:  # type: ignore[no-untyped-def]
    """The literal text of a call's first argument when it is a string without interpolation
    (or a constant: ``describe Foo``)."""
    if args is None or args.named_child_count == 0:
        return None
    first = args.named_children[0]
    if first.type == "string":
        parts = first.named_children
        return _text(parts[0]) if len(parts) == 1 and parts[0].type == "string_content" else ("" if not parts else None)
    if first.type in ("constant", "scope_resolution"):
        return _text(first)
    return None


def test_items(source: bytes, uri: str, spec: bool) -> list[TestItem]:
    """The tests and groups of a Ruby buffer, in source order (a cursor walk)."""
    tree = parse_ruby(uri, source)
    out: list[TestItem] = []
    cursor = tree.walk()
    # Rows of the test classes we are inside, by their end, to tell ``def test_*`` apart.
    classes: list[int] = []
    while True:
        node = cursor.node
        assert node is not None  # A cursor always stands on a node.
        while classes and node.start_byte >= classes[-1]:
            classes.pop()
        if node.type == "class":
            superclass = node.child_by_field_name("superclass")
            name = _text(node.child_by_field_name("name"))
            if superclass is not None and _TEST_CLASS.search(_text(superclass).lstrip("< ").strip()):
                out.append(TestItem(node.start_point.row, name, "minitest", None, True))
                classes.append(node.end_byte)
        elif node.type == "method" and classes:
            name = _text(node.child_by_field_name("name"))
            if name.startswith("test_"):
                out.append(TestItem(node.start_point.row, name, "minitest", name, False))
        elif node.type == "call" and node.child_by_field_name("block") is not None:
            method = node.child_by_field_name("method")
            receiver = node.child_by_field_name("receiver")
            word = method.text if method is not None else b""
            label = _first_string(node.child_by_field_name("arguments"))
            if classes and receiver is None and word == b"test" and label:
                out.append(TestItem(node.start_point.row, label, "minitest", "test_" + re.sub(r"\s+", "_", label), False))
            elif spec and (receiver is None or _text(receiver) == "RSpec") and (word in _GROUPS or word in _EXAMPLES):
                out.append(TestItem(node.start_point.row, label or word.decode(), "rspec", None, word in _GROUPS))
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def command_line(root: str, path: str, item: TestItem) -> list[str]:
    """The command that runs one test or group (see the module docstring)."""
    relative = os.path.relpath(path, root)
    bundle = ["bundle", "exec"] if os.path.exists(os.path.join(root, "Gemfile")) else []
    if item.framework == "rspec":
        return [*bundle, "rspec", f"{relative}:{item.row + 1}"]
    if os.path.exists(os.path.join(root, "bin", "rails")):
        return ["bin/rails", "test", relative if item.group else f"{relative}:{item.row + 1}"]
    base = [*bundle, "ruby", "-Itest", "-Ilib", relative]
    return base if item.name is None else [*base, "--name", item.name]


def register(server: RdxLanguageServer) -> None:
    # The command lines put in lenses: the only ones ``rdx.runTest`` runs.
    issued: set[tuple[str, ...]] = set()

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=True))
    async def code_lens(ls: RdxLanguageServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
        graph = await ls.ready()
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is None or ls.language(uri) != "ruby":
            return None
        lines = ls.lines()
        out = []
        source = ls.source(uri)
        for item in test_items(source, uri, path.endswith("_spec.rb")):
            at = lsp.Range(lsp.Position(item.row, 0), lsp.Position(item.row, 0))
            line = command_line(ls.root or os.path.dirname(path), path, item)
            issued.add(tuple(line))
            argument = {"command": line, "cwd": ls.root, "label": item.label}
            out.append(lsp.CodeLens(range=at, command=lsp.Command(title="▶ Run", command="rdx.runTest", arguments=[argument])))
            out.append(lsp.CodeLens(range=at, command=lsp.Command(title="Run in terminal", command="rdx.runTestInTerminal", arguments=[argument])))
        doc = graph.document(uri)
        for d in doc.definitions if doc is not None else []:
            if d.kind in _COUNTED and (decl := d.declaration) is not None:
                out.append(lsp.CodeLens(range=lines.range(d.name_location), data={"name": decl.name}))
        return out

    @server.feature(lsp.CODE_LENS_RESOLVE)
    async def resolve(ls: RdxLanguageServer, lens: lsp.CodeLens) -> lsp.CodeLens:
        graph = await ls.ready()
        name = lens.data.get("name") if isinstance(lens.data, dict) else None
        decl = graph.get(name) if isinstance(name, str) else None
        if decl is None:
            lens.command = lsp.Command(title="no references", command="")
            return lens
        refs = graph.references_to(decl)
        certain = sum(1 for r in refs if r.certain)
        title = f"{certain} reference{'' if certain == 1 else 's'}"
        if len(refs) > certain:
            title += f" (+{len(refs) - certain} by name only)"
        lens.command = lsp.Command(title=title, command="")
        return lens

    @server.command("rdx.runTest")
    async def run_test(ls: RdxLanguageServer, *args: Any) -> dict[str, Any]:
        spec = args[0] if args and isinstance(args[0], dict) else {}
        command = spec.get("command")
        if not isinstance(command, list) or tuple(command) not in issued:
            raise JsonRpcInvalidParams(f"rdx.runTest runs the command lines of its code lenses only, not {command!r}; ask for code lenses first")
        cwd = ls.root
        shown = shlex.join(command)
        try:
            proc = await asyncio.create_subprocess_exec(
                *command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
            )
        except OSError as exc:
            ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=f"rdx: cannot run {shown}: {exc}"))
            return {"command": command, "status": None, "output": str(exc)}
        try:
            output, _ = await asyncio.wait_for(proc.communicate(), RUN_TIMEOUT)
        except TimeoutError:
            proc.kill()
            output, _ = await proc.communicate()
        text = output.decode("utf-8", "replace")
        ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Log, message=f"$ {shown}\n{text}"))
        passed = proc.returncode == 0
        kind = lsp.MessageType.Info if passed else lsp.MessageType.Error
        summary = "passed" if passed else f"failed (exit status {proc.returncode})"
        ls.window_show_message(lsp.ShowMessageParams(type=kind, message=f"rdx: {spec.get('label') or shown} {summary}"))
        return {"command": command, "status": proc.returncode, "output": text[-20000:]}
