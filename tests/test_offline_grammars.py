"""The grammars of tree-sitter-language-pack load offline: the pinned version bundles them
(1.x downloads them at first use, which fails without a network)."""

from __future__ import annotations

import socket
from importlib.metadata import version

import pytest

LANGUAGES = ["python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "php", "csharp", "markdown"]


def test_the_bundled_version_is_installed() -> None:
    assert version("tree-sitter-language-pack") == "0.13.0"


def test_every_grammar_loads_and_parses_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a grammar load tried to open a network connection")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    from tree_sitter_language_pack import get_parser

    for name in LANGUAGES:
        tree = get_parser(name).parse(b"x\n")  # type: ignore[arg-type]
        assert tree.root_node is not None and tree.root_node.end_byte == 2, name
