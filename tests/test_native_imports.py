"""Go's and C's imports read by the native query runner (``imports`` in rdx/native/query.c,
codes 4 and 5 of ``rdx.languages.engine.NATIVE_IMPORTS``) against the specs' Python hooks
(specs/go.py and specs/c.py ``_imports``), which stay the one definition: the same Import
records on crafted sources, on every prefix of them (broken code), and on real headers."""

from __future__ import annotations

import glob
import os
import sysconfig

import msgspec
import pytest
import tree_sitter as ts
from tree_sitter_language_pack import get_parser

import rdx.native.query
from rdx.languages.engine import NATIVE_IMPORTS
from rdx.languages.registry import spec_for
from rdx.languages.symbols import Import

_ENCODE = msgspec.msgpack.Encoder().encode

CASES = [
    (
        "go",
        b'package p\n\n// c\nimport "fmt"\nimport (\n\t"os"\n\tf "net/http"\n\t. "strings"\n\t_ "embed" // side\n\t/* x */ "a/b"\n)\n'
        b'import ()\nimport g "\xc3\xa9\xff"\nimport h ""\nimport "\n'
        b'func main() {}\nimport "late"\n',
    ),
    ("go", b'// lead\npackage p\nimport "a"\nvar x = 1\nimport "b"\n'),
    ("go", b'import "nopkg"\n'),
    (
        "c",
        b'#include "a.h"\n#  include <sys/b.h>\n#\tinclude\t"c.h"\n#include_next <d.h>\n#include MACRO\n#include <>\n'
        b'#ifdef X\n# include "in_if.h"\n#endif\n/* #include "comment.h" */\nchar *s = "#include \\"str.h\\"";\n'
        b'#include "\xc3\xa9\xff.h"\n#includes "no.h"\n#include"tight.h"\n#include',
    ),
    ("c", b'int x;\n#include "last.h"'),
]


def _parser(grammar: str) -> ts.Parser:
    return get_parser(grammar)  # type: ignore[arg-type]


def _importer() -> object:
    read = rdx.native.query.importer()
    assert read is not None, f"the native query runner is not in use: {rdx.native.query.disabled_reason()} (make native builds it)"
    return read


def _both(language: str, source: bytes) -> tuple[bytes, bytes]:
    spec = spec_for(language)
    assert spec is not None and spec.imports is not None and spec.native_imports == language
    read = _importer()
    root = _parser(spec.grammar).parse(source).root_node
    native = read(NATIVE_IMPORTS[language], root, Import)  # type: ignore[operator]
    assert native is not None
    return _ENCODE(native), _ENCODE(spec.imports(root, source))


@pytest.mark.parametrize(("language", "source"), CASES)
def test_native_imports_answer_as_the_hooks(language: str, source: bytes) -> None:
    native, python = _both(language, source)
    assert native == python
    assert msgspec.msgpack.decode(native), "the case has imports"
    for cut in range(len(source)):
        native, python = _both(language, source[:cut])
        assert native == python, (language, cut)


def test_native_imports_read_what_the_hooks_read() -> None:
    spec = spec_for("go")
    assert spec is not None
    root = _parser("go").parse(CASES[0][1]).root_node
    found = _importer()(NATIVE_IMPORTS["go"], root, Import)  # type: ignore[operator]
    assert [(i.module, i.alias, i.line) for i in found] == [
        ("fmt", None, 4),
        ("os", None, 6),
        ("net/http", "f", 7),
        ("strings", ".", 8),
        ("embed", "_", 9),
        ("a/b", None, 10),
        ("\xe9\ufffd", "g", 13),
        ("", "h", 14),
    ]
    root = _parser("c").parse(CASES[3][1]).root_node
    found = _importer()(NATIVE_IMPORTS["c"], root, Import)  # type: ignore[operator]
    assert [(i.module, i.system) for i in found][:5] == [("a.h", False), ("sys/b.h", True), ("c.h", False), ("", True), ("in_if.h", False)]


def test_native_imports_agree_on_real_headers() -> None:
    # Python's own headers (the native build needs them), else the system's.
    headers = sorted(glob.glob(os.path.join(sysconfig.get_paths()["include"], "**", "*.h"), recursive=True))[:200]
    headers = headers or sorted(glob.glob("/usr/include/**/*.h", recursive=True))[:200]
    assert headers, "no C headers on this machine to compare the two paths on"
    for path in headers:
        with open(path, "rb") as f:
            source = f.read()
        native, python = _both("c", source)
        assert native == python, path
