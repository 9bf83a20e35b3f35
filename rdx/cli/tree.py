"""``rdx tree FILE``: the syntax tree of one file, as the language server's
``rdx.showSyntaxTree`` command shows it (``rdx_lsp.syntax_tree``): one named node per line,
indented by depth, with its field name, its span (0-based rows and columns) and the text of
short leaves. An ERB template shows the tree of its Ruby (``rdx.ruby_of_template``)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rdx.cli.base import Usage
from rdx.model.languages import language_of
from rdx.workspace.files import is_ruby_file, path_to_uri, read_source

__all__ = ["add_tree_parser"]


def cmd_tree(args: argparse.Namespace) -> int:
    # The language server's modules: imported here, as ``rdx lsp`` imports them, lazily.
    from rdx_lsp.syntax import parse
    from rdx_lsp.syntax_tree import syntax_tree_text

    path = os.path.abspath(args.file)
    if not os.path.isfile(path):
        raise Usage(f"{args.file!r} is not a file")
    language = "ruby" if is_ruby_file(os.path.basename(path)) else language_of(path)
    data, _, _, problems = read_source(path, ruby=language == "ruby")
    if data is None:
        raise Usage(f"cannot read {args.file!r}: {problems[0].message if problems else 'unreadable'}")
    rows = None
    if args.lines is not None:
        first, _, last = args.lines.partition(":")
        try:
            rows = (int(first) - 1, int(last or first) - 1)
        except ValueError:
            raise Usage(f"--lines takes FIRST:LAST (1-based, inclusive), got {args.lines!r}") from None
        if rows[0] < 0 or rows[1] < rows[0]:
            raise Usage(f"--lines takes FIRST:LAST with 1 <= FIRST <= LAST, got {args.lines!r}")
    tree = parse(path_to_uri(path), data, language)
    if tree is None:
        raise Usage(f"rdx has no grammar for {args.file!r} (language {language!r})")
    print(syntax_tree_text(tree, rows))
    return 0


def add_tree_parser(sub: Any) -> None:
    p = sub.add_parser("tree", help="print the syntax tree of one file (what rdx lsp's rdx.showSyntaxTree shows)")
    p.add_argument("file")
    p.add_argument("--lines", default=None, metavar="FIRST:LAST", help="only the nodes that touch these lines (1-based, inclusive)")
    p.set_defaults(func=cmd_tree)
