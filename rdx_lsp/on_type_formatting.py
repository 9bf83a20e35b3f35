"""``textDocument/onTypeFormatting`` on Enter in Ruby buffers:

- after a line that opens a body (``def``, ``class``, ``module``, ``if``, ``unless``, ``while``,
  ``until``, ``case``, ``begin``, ``for``, or a line ending in ``do`` or ``do |args|``) whose
  ``end`` is missing (the buffer no longer parses without errors), the new line is indented
  one step (two spaces) deeper and ``end`` is added on the line after it, at the opening
  line's indentation;
- after a comment line, the new line continues the comment (``# ``) at its indentation,
  except after magic comments (``# frozen_string_literal: true``, ``#!``...).

The edits never touch the text at or after the cursor on its own line, so clients keep the
cursor where the user is typing.
"""

from __future__ import annotations

import re

from lsprotocol import types as lsp

from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["on_enter", "register"]

INDENT = "  "
_OPENS = re.compile(
    r"^(\s*)(?:(?:private|protected|public|module_function)\s+)?(?:def|class|module|if|unless|while|until|case|begin|for)\b(?!.*\bend\s*$)"
)
_DO = re.compile(r"^(\s*)\S.*\bdo(?:\s*\|[^|]*\|)?\s*$")
# A one-line method (``def x = 1``) and ``class << self`` closed on the same line need no end.
_ENDLESS = re.compile(r"^\s*def\s+[^(=\s]+(?:\([^)]*\))?\s*=")
_COMMENT = re.compile(r"^(\s*)#(?![!])\s?(.*)$")
_MAGIC = re.compile(r"^\s*#\s*(?:frozen_string_literal|encoding|coding|warn_indent|shareable_constant_value|typed|rubocop:)", re.IGNORECASE)


def on_enter(lines: list[str], line: int, character: int, missing_end: bool) -> list[lsp.TextEdit]:
    """The edits for Enter that made ``line`` (0-based) with the cursor at ``character``
    (which counts the code units of the new line's leading blanks). ``missing_end``: the
    buffer does not parse as complete Ruby."""
    if line == 0 or line >= len(lines):
        return []
    previous = lines[line - 1]
    current = lines[line]
    blanks = len(current) - len(current.lstrip(" \t"))
    if current.strip():
        return []  # Enter split a line: what follows the cursor says how it continues.
    comment = _COMMENT.match(previous)
    if comment is not None:
        if _MAGIC.match(previous) or not comment.group(2):
            return []
        return [lsp.TextEdit(lsp.Range(lsp.Position(line, 0), lsp.Position(line, blanks)), comment.group(1) + "# ")]
    opening = _OPENS.match(previous) or _DO.match(previous)
    if opening is None or _ENDLESS.match(previous) or not missing_end:
        return []
    indent = opening.group(1)
    edits = [lsp.TextEdit(lsp.Range(lsp.Position(line, 0), lsp.Position(line, blanks)), indent + INDENT)]
    if line + 1 < len(lines):
        edits.append(lsp.TextEdit(lsp.Range(lsp.Position(line + 1, 0), lsp.Position(line + 1, 0)), f"{indent}end\n"))
    else:
        edits.append(lsp.TextEdit(lsp.Range(lsp.Position(line, len(current)), lsp.Position(line, len(current))), f"\n{indent}end"))
    return edits


def register(server: RdxLanguageServer) -> None:
    options = lsp.DocumentOnTypeFormattingOptions(first_trigger_character="\n")

    @server.feature(lsp.TEXT_DOCUMENT_ON_TYPE_FORMATTING, options)
    async def on_type(ls: RdxLanguageServer, params: lsp.DocumentOnTypeFormattingParams) -> list[lsp.TextEdit] | None:
        uri = params.text_document.uri
        if params.ch != "\n" or uri_path(uri) is None or uri not in ls.open_documents:
            return None
        source = ls.source(uri)
        if ls.graph is not None and ls.language(uri) != "ruby":
            return None
        missing_end = parse_ruby(uri, source).root_node.has_error
        return on_enter(source.decode("utf-8", "replace").split("\n"), params.position.line, params.position.character, missing_end)
