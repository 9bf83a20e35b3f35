"""The editing requests of issue 25 from Neovim 0.7's own LSP client, through the generic
session script of ``tests/test_lsp_neovim.py`` (``tests/data/nvim/lsp_session.lua``), on the
small project of ``tests/test_lsp_editing.py``: signature help, document links, semantic
tokens, selection ranges, code lens, call hierarchy, a code action and on-type formatting after
edits the client sends as incremental didChanges; and RuboCop's diagnostics and formatting on a
project with a ``.rubocop.yml``. Neovim 0.7 has no built-in use for several of these;
the requests go through ``vim.lsp.buf_request_sync`` with its own capabilities and encoding."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_lsp_editing import BOX, MODIFIERS, MONEY, PYTHON, SHOP, SPEC, TEST, TYPES, decode, where
from test_lsp_neovim import answers, run_session

pytestmark = pytest.mark.slow  # One Neovim session, a few seconds.


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in {"lib/shop.rb": SHOP, "lib/shop/money.rb": MONEY, "lib/box.rb": BOX, "test/item_test.rb": TEST, "spec/item_spec.rb": SPEC, "py/cart.py": PYTHON}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_neovim_drives_the_editing_requests(tmp_path: Path) -> None:
    root = project(tmp_path)
    count = where(SHOP, 24, "count")
    steps: list[dict[str, Any]] = [
        {"name": "signature", "method": "textDocument/signatureHelp", "position": (count.line, count.character + 1)},
        {"name": "links", "method": "textDocument/documentLink"},
        {"name": "tokens", "method": "textDocument/semanticTokens/full"},
        {"name": "selection", "method": "textDocument/selectionRange", "params": {"positions": [{"line": count.line, "character": count.character}]}},
        {"name": "lenses", "method": "textDocument/codeLens"},
        {"name": "calls", "method": "textDocument/prepareCallHierarchy", "position": (6, where(SHOP, 6, "price_with").character)},
        # A use of ``Box`` (lib/box.rb, not required yet), then the action that requires it.
        {"name": "use box", "set_lines": [26, 26, ["      Box"]]},
        {
            "name": "actions",
            "method": "textDocument/codeAction",
            "params": {"range": {"start": {"line": 26, "character": 7}, "end": {"line": 26, "character": 7}}, "context": {"diagnostics": []}},
        },
        {"name": "drop box", "set_lines": [26, 27, []]},
        # Enter after a new ``def``: Neovim sends the lines as an incremental didChange first.
        {"name": "type def", "set_lines": [22, 22, ["    def extra", "      "]]},
        {
            "name": "on type",
            "method": "textDocument/onTypeFormatting",
            "position": (23, 6),
            "params": {"ch": "\n", "options": {"tabSize": 2, "insertSpaces": True}},
        },
    ]
    report = run_session(tmp_path, root, root / "lib/shop.rb", steps)
    got = answers(report)

    signature = got["signature"]["result"]
    label = signature["signatures"][0]["label"]
    assert label == "price_with(rate, discount: 0, &block)"
    start, end = signature["signatures"][0]["parameters"][signature["activeParameter"]]["label"]
    assert label[start:end] == "rate"

    links = got["links"]["result"]
    assert [(lk["range"]["start"]["line"], lk["target"]) for lk in links] == [(0, (root / "lib/shop/money.rb").as_uri())]

    tokens = decode(got["tokens"]["result"]["data"], SHOP)
    assert tokens[(12, 12)] == ("Pricing", "namespace", set()) and tokens[(25, 6)] == ("puts", "method", {"defaultLibrary"})
    assert len(TYPES) == 12 and len(MODIFIERS) == 4

    selection = got["selection"]["result"][0]
    assert selection["range"]["start"] == {"line": count.line, "character": count.character} and selection["parent"]

    lenses = got["lenses"]["result"]
    assert sorted({lens["range"]["start"]["line"] for lens in lenses}) == [2, 5, 6, 11, 15, 19, 23]

    assert [(i["name"], i["detail"]) for i in got["calls"]["result"]] == [("price_with", "Shop::Pricing")]

    actions = got["actions"]["result"]
    assert [a["title"] for a in actions] == ['Add require_relative "box" (defines Box)']
    assert actions[0]["edit"]["changes"][(root / "lib/shop.rb").as_uri()][0]["newText"] == 'require_relative "box"\n'

    edits = got["on type"]["result"]
    assert [(e["range"]["start"]["line"], e["newText"]) for e in edits] == [(23, "      "), (24, "    end\n")]


@pytest.mark.skipif(shutil.which("rubocop") is None, reason="RuboCop is installed by make test (scripts/install-system-deps)")
def test_neovim_gets_rubocop_diagnostics_and_formatting(tmp_path: Path) -> None:
    root = tmp_path / "styled"
    (root / "lib").mkdir(parents=True)
    (root / ".rubocop.yml").write_text("AllCops:\n  NewCops: enable\n  SuggestExtensions: false\n")
    text = "# frozen_string_literal: true\n\n# Says hello.\nmodule Hello\n  def self.greet( name )\n    return \"hi #{name}\"\n  end\nend\n"
    (root / "lib/hello.rb").write_text(text)
    steps: list[dict[str, Any]] = [
        # RuboCop's offenses are information (conventions): severity 3.
        {"name": "diagnostics", "wait_diagnostics": {"severity": 3}},
        {"name": "format", "method": "textDocument/formatting", "params": {"options": {"tabSize": 2, "insertSpaces": True}}},
    ]
    try:
        report = run_session(tmp_path, root, root / "lib/hello.rb", steps)
    finally:
        # The language server stops the RuboCop server it started; make sure, whatever happened.
        subprocess.run(["rubocop", "--stop-server"], cwd=root, capture_output=True, timeout=60)
    got = answers(report)
    found = {(d["lnum"], d["message"].split(".")[0]) for d in got["diagnostics"]["diagnostics"] if d["source"] == "rubocop"}
    assert (4, "Space inside parentheses detected") in found and (5, "Redundant `return` detected") in found
    edits = got["format"]["result"]
    assert [(e["range"]["start"]["line"], e["newText"]) for e in edits] == [(4, "  def self.greet(name)\n"), (5, '    "hi #{name}"\n')]
