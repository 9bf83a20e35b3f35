"""The native query runner (rdx/native/query.c) against the engine's Python path it replaces.

The engine of ``rdx.languages`` reads a spec's query matches either from py-tree-sitter's
``QueryCursor.matches`` (Python) or from ``query.c``'s ``run``, which runs the same query in C
and returns the definitions and the Reference records. Both must give the same FileResult, byte
for byte: here on a source per language the engine has (every spec in ``SPECS``) that uses its
definitions, references, qualifiers and predicates, on every prefix of those sources (broken
code), on odd input, and, in the corpus tier, on every file of bench_polyglot's corpora.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest

import rdx.languages.engine as engine
import rdx.native.query
from rdx.languages.discover import discover_foreign
from rdx.languages.registry import SPECS, spec_for

_ENCODE = msgspec.msgpack.Encoder().encode

# A file name per language, for discover_foreign (which picks the extractor by name).
PATHS = {
    "python": "/p/pkg/mod.py",
    "go": "/p/main.go",
    "javascript": "/p/app.js",
    "typescript": "/p/app.ts",
    "tsx": "/p/app.tsx",
    "rust": "/p/src/lib.rs",
    "java": "/p/A.java",
    "c": "/p/a.c",
    "cpp": "/p/a.cpp",
    "php": "/p/a.php",
    "csharp": "/p/A.cs",
    "markdown": "/p/README.md",
}

SOURCES = {
    "python": b'''\
"""Module doc."""
import os, sys as system
from ..pkg.mod import a as b, c
MAX_SIZE = 3
lower = 4
Mixed = 5
square = lambda x: x * x

# About K.
class K(Base, os.PathLike, metaclass=Meta):
    """Doc of K."""
    LIMIT = 1
    def method(self, x: int, y: typing.List[int]) -> Dict[str, K]:
        """M."""
        def inner(): return helper(x).chain.call(y)
        return self.method(os.path.join(x), K())

@decorator(arg)
def top(a: "K", *b) -> None:
    print(a, b); sys.exit(top(a))
''',
    "go": b"""\
package shop

import (
\t"fmt"
\tf "net/http"
)

// Cart holds items.
type Cart struct {
\tItems []Item
\tsync.Mutex
\tBase[int]
}

type Pricer interface {
\tio.Reader
\tPrice() int
}

// Total sums.
func (c *Cart) Total(x map[string]Item) (int, error) {
\tfmt.Println(len(c.Items), f.Get("x"))
\treturn Sum[int](c.Items), nil
}

func New[T any](v T) *Cart { return &Cart{} }

const Answer = 42
""",
    "javascript": b"""\
import x, { y as z } from "./mod.js";
const fs = require("fs");
/** Adds. */
export function add(a, b) { return a + b }
export const mul = (a, b) => a * b;
class A extends B.C { constructor(x) { super(x); this.m(); } static m() { return new D.E(); } }
Foo.prototype.bar = function () { return baz(1).qux(); };
Foo.notproto.baz = function () {};
module.exports = { helper: function () {}, "quoted": () => 1 };
""",
    "typescript": b"""\
import type { T as U } from "./types";
interface I extends J<K> { m(a: string): Promise<Map<string, I>> }
type T = string | Other.Thing;
enum E { A }
namespace N { export function f(): void { g<number>(1); } }
abstract class K<T> extends Base implements I, ns.Iface { abstract z(): void; p: Foo = new Foo(); }
""",
    "tsx": b"""\
import React from "react";
export const App = () => <Layout><Row.Cell/><div/><span>{render(x)}</span><ui.Card/></Layout>;
function Row(props: Props) { return <Cell {...props}/>; }
interface Props { cell: Cell.Kind }
""",
    "rust": b"""\
use std::collections::{HashMap, HashSet as Set};
/// A point.
#[derive(Debug)]
pub struct P<K> { x: i32, map: HashMap<K, Vec<u8>> }
pub trait T: Clone + fmt::Debug { fn t(&self) -> i32; }
impl<K> P<K> {
    /// New.
    pub fn new() -> Self { let v = Vec::new(); helper(v); Self::other(); todo!() }
}
impl T for P<u8> { fn t(&self) -> i32 { self.x.abs() } }
mod m { pub fn f() {} pub enum E { A, B } }
const C: u32 = 1;
macro_rules! mac { () => {} }
""",
    "java": b"""\
package a.b;
import java.util.List;
import static java.lang.Math.max;
/** Doc. */
public class C extends B implements I, x.J<K> {
  int f; var v;
  C() { super(); }
  /** M. */
  void m(int a, List<String> l) throws IOException { var x = new ArrayList<String>(); foo(); this.bar(a); Util.baz(); }
  interface Inner { void n(); }
  enum E { X, Y }
}
""",
    "c": b"""\
#include <stdio.h>
#include "local.h"
/* A struct. */
struct point { int x; int y; };
typedef struct point point_t;
enum color { RED, GREEN };
// Adds.
static int add(int a, point_t *p) { return helper(a) + p->x + printf("%d", a); }
#define MAX(a, b) ((a) > (b) ? (a) : (b))
union u { int i; float f; };
""",
    "cpp": b"""\
#include <vector>
namespace n {
// A class.
class K : public Base, private ns::Other<int> {
 public:
  void m();
  int q() { return static_cast<int>(x) + std::max(1, 2) + make<T>(3) + ns::inner::f(); }
};
}
void n::K::m() { auto v = new std::vector<int>(); }
template <typename T>
T id(T x) { return x; }
""",
    "php": b"""\
<?php
namespace App\\Models;
use Illuminate\\Support\\Str;
/** A user. */
class User extends Model implements \\JsonSerializable {
  use Traits\\HasName;
  const X = 1;
  public function save($a): int { $b = new static(); $c = new Post(); Str::slug($a); $this->touch(); return strlen($a); }
}
function helper() { return new \\App\\Other(); }
""",
    "csharp": b"""\
using System;
using Alias = System.Text;
namespace N.M {
/// <summary>Doc</summary>
public class C : Base, IThing {
  public int P { get; set; }
  void M(int a) { Console.WriteLine(a); var x = new List<int>(); Helper(x); }
}
interface IThing { void N(); }
}
""",
    "markdown": b"""\
# Guide

Text.

## Install

### Linux

Setext
======
""",
}


def _native() -> Callable[..., Any]:
    run = rdx.native.query.runner()
    assert run is not None, f"the native query runner is not in use: {rdx.native.query.disabled_reason()} (make native builds it)"
    return run


def _both(language: str, source: bytes, monkeypatch: pytest.MonkeyPatch, path: str | None = None) -> tuple[bytes, bytes, int]:
    """The FileResult of ``source`` read natively and in Python, encoded, and how many times
    the native runner answered (rather than handing over to the Python path)."""
    run = _native()
    answered = 0

    def counted(*args: Any) -> Any:
        nonlocal answered
        found = run(*args)
        answered += found is not None
        return found

    path = path or PATHS[language]
    with monkeypatch.context() as patch:
        patch.setattr(engine, "native_query", lambda: counted)
        native = _ENCODE(discover_foreign("file://" + path, source, path))
    with monkeypatch.context() as patch:
        patch.setattr(engine, "native_query", lambda: None)
        python = _ENCODE(discover_foreign("file://" + path, source, path))
    return native, python, answered


def test_every_language_has_a_source() -> None:
    assert set(SOURCES) == set(SPECS) == set(PATHS)


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_native_and_python_agree(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    native, python, answered = _both(language, SOURCES[language], monkeypatch)
    assert native == python
    assert answered == 1
    spec = spec_for(language)
    assert spec is not None
    # The sources are not vacuous: symbols everywhere, references where the spec reads them.
    path = PATHS[language]
    found = discover_foreign("file://" + path, SOURCES[language], path)
    assert len(found.symbols) >= 3, language
    assert bool(found.references) == bool(spec.references), language
    assert not found.diagnostics, language


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_native_and_python_agree_on_broken_code(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every prefix of the source (cut at every seventh byte and at every line end) is a
    broken file with error and missing nodes; both paths read each alike."""
    source = SOURCES[language]
    cuts = sorted({*range(0, len(source), 7), *(i for i, byte in enumerate(source) if byte == 10)})
    for cut in cuts:
        native, python, _ = _both(language, source[:cut], monkeypatch)
        assert native == python, (language, cut)


ODD = [
    b"",
    b"\xff\xfe garbage \x00",
    b"(((((" * 500,
    "é ünïcode ☃\n".encode() * 10,
    # Names that are not UTF-8, where the spec matches them with #match? (Python constants):
    # py-tree-sitter raises, the native runner hands over to the Python path.
    b"A\xff = 1\nB\xc3 = 2\nC = 3\n",
    b"X\x00Y = 1\n",
]


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_native_and_python_agree_on_odd_input(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for source in ODD:
        native, python, _ = _both(language, source, monkeypatch)
        assert native == python, (language, source)


def test_a_pattern_without_its_kind_capture_raises_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec whose pattern's kind capture is optional: the Python path raises KeyError at a
    match without it, and the native runner hands over rather than answer otherwise."""
    spec = engine.Spec(
        language="python", grammar="python", query="(class_definition name: (identifier) @name superclasses: (argument_list)? @class)"
    )
    source = b"class A(B): pass\nclass C: pass\n"
    _native()
    with monkeypatch.context() as patch:
        patch.setattr(engine, "native_query", lambda: None)
        with pytest.raises(KeyError):
            engine.extract_all(spec, source)
    with pytest.raises(KeyError):
        engine.extract_all(spec, source)


def test_a_text_that_is_not_utf8_under_match_raises_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """py-tree-sitter decodes a text it matches with ``#match?`` as UTF-8 and raises when it
    cannot; the native runner hands over to the Python path, which raises the same error."""
    spec = engine.Spec(language="python", grammar="python", query='((string) @name @constant (#match? @name "a"))')
    run = _native()
    parser = engine._parser("python")
    plan = engine._plan(spec)
    assert plan.native is not None
    source = b'"\xff a"\n'
    assert run(plan.query, parser.parse(source).root_node, *plan.native, None, source, *plan.matcher) is None
    good = b'"a"\n"c"\n"\xc3\xa9a"\n'
    assert [s.name for s in engine.extract_all(spec, good).symbols] == ['"a"', '"\xe9a"']
    errors = []
    for native in (True, False):
        with monkeypatch.context() as patch:
            if not native:
                patch.setattr(engine, "native_query", lambda: None)
            with pytest.raises(UnicodeDecodeError) as raised:
                engine.extract_all(spec, b'"a"\n"\xff a"\n')
            errors.append(repr(raised.value))
    assert errors[0] == errors[1]


def test_general_rule_and_scopes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Patterns with several kind captures (the general rule: the first capture that is not
    ``@name`` or ``@_x``), ``@scope`` definitions (which qualify but are not symbols, and are
    no reference's scope), and patterns that name several reference kinds."""
    spec = engine.Spec(
        language="python",
        grammar="python",
        query="""
(class_definition name: (identifier) @name body: (block (function_definition name: (identifier) @_inner) @function)) @class
(function_definition name: (identifier) @name) @scope
(module (call function: (identifier) @name) @constant)
""",
        references="""
(call function: (identifier) @call arguments: (argument_list (identifier)? @type))
(call function: (attribute object: (_) @qualifier attribute: (identifier) @base))
""",
    )
    source = b"class A:\n    def f(self): g(x)\n    def h(self): a.b.c(y)\ndef top():\n    k()\nrun()\nrun(z)\n"
    _native()
    with monkeypatch.context() as patch:
        patch.setattr(engine, "native_query", lambda: None)
        python = engine.extract_all(spec, source)
    native = engine.extract_all(spec, source)
    assert _ENCODE(native) == _ENCODE(python)
    assert native.references and native.symbols


# Sources where tree-sitter's query cursor reads a tree in ways the runner's own matcher
# (query.c, match_tree) must follow to give the same matches.
MATCHER_CASES = [
    # A supertype in a pattern: Python's ``expression_statement`` is a hidden supertype, so
    # ``(module (expression_statement (assignment)))`` matches the assignment nested in the
    # module-level one, which the cursor reads as the supertype's node.
    ("python", b"A = B = 1\nC = D = E = 2\nx = Y = 3\n"),
    # A tree whose root is an error: a pattern with a wildcard root, ``(_ type: ...)``, never
    # starts at a child of an error (the cursor takes it for a pattern with several roots).
    (
        "c",
        b"""#ifndef X
#define X
struct _Py_global_strings {
    struct {
        STRUCT_FOR_STR(anon_dictcomp, "<dictcomp>")
        STRUCT_FOR_STR(anon_genexpr, "<genexpr>")
        STRUCT_FOR_STR(anon_lambda, "<lambda>")
    } literals;
};
#endif
""",
    ),
    # Optional qualifiers ``path: (_)? @qualifier``: the longest match when there is one.
    ("rust", b"fn f() { a::b::c(); c(); <T>::d(); Self::e(); crate::g::<u8>(); x.y::<T>(); }\nimpl a::B for C {}\n"),
    # Alternations (``value: [(arrow_function) (function_expression)]``) with negated fields.
    (
        "javascript",
        b"const a = () => 1, b = function () {}, c = function named() {};\nd = (function () {});\n"
        b"A.prototype.m = function () {};\nA.prototype.n = other;\nx.y = () => 2;\n"
        b"({ k: () => 1, 'q': function () {}, z: 3 });\nobj.#p(); obj.q();\n",
    ),
    # Anchors (``(type_elem . (type_identifier) @base .)``) and negated fields (``!name``).
    ("go", b"package p\ntype T struct { A; b int; c.D; *E; F[int] }\ntype I interface { J; k.L; M(); N | O }\n"),
]


@pytest.mark.parametrize(("language", "source"), MATCHER_CASES)
def test_the_matcher_answers_as_the_cursor(language: str, source: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's own matcher answers for these (not the cursor), as the Python path and as
    the runner with tree-sitter's cursor do."""
    before = rdx.native.query.matched_trees()
    native, python, answered = _both(language, source, monkeypatch)
    assert answered == 1
    assert rdx.native.query.matched_trees() == before + 1
    assert native == python
    with monkeypatch.context() as patch:
        patch.setattr(engine, "use_matcher", False)
        cursor, _, _ = _both(language, source, monkeypatch)
    assert rdx.native.query.matched_trees() == before + 1
    assert cursor == native
    path = PATHS[language]
    found = discover_foreign("file://" + path, source, path)
    assert found.references or language == "python"
    if language == "python":  # The nested assignments are constants too (the supertype's reading).
        assert [s.name for s in found.symbols] == ["A", "B", "C", "D", "Y"]


# Sources for the hooks' rules the runner reads itself (engine.NATIVE_OWNERS, NATIVE_DOCS,
# NATIVE_IMPORTS) and for the doc comments it reads in C: the cases each reads here, and those
# it hands to the Python hook (escapes, string prefixes, text other than ASCII...).
HOOK_CASES = [
    (
        "python",
        b'def a():\n    """Simple."""\n'
        b"def b():\n    'single'\n"
        b'def c():\n    r"""raw \\d"""\n'
        b'def d():\n    """esc\\n"""\n'
        b'def e():\n    """   """\n'
        b'def f():\n    """\xc3\xbcn\xc3\xafcode\xe3\x80\x80 """\n'
        b'def g():\n    u"prefixed"\n'
        b'def h():\n    b"bytes"\n'
        b'def i():\n    f"fmt {x}"\n'
        b'def j():\n    """a "quoted" word, it\'s"""\n'
        b"def k():\n    '''it''s'''\n"
        b'def l():\n    ""\n'
        b'def m():\n    "a" "b"\n'
        b'def n(): """inline"""\n'
        b'def o():\n    x = 1\n    """not first"""\n'
        b'def p():\n    """tab\tand form\x0c feed\x1f"""\n'
        b'def q():\n    """\xff not utf-8"""\n'
        b'def r():\n    """nul \x00 byte"""\n'
        b'def s():\n    """"quote first"""\n'
        b'def t():\n    """quote last" """\n'
        b"# About U.\n#\n#  indented\nclass U:\n    pass\n"
        b"# \xc3\xa9t\xc3\xa9\nclass V:\n    pass\n"
        b"class W:\n",
    ),
    ("python", b'def a():\r\n    """crlf\r\n    doc\r\n    """\r\n\r\n# c\r\ndef b(): pass\r\n'),
    (
        "python",
        b"import a.b, c as d\nimport  e . f  as  g\nfrom . import x\nfrom ..pkg import (h as i, j)\nfrom m import *\n"
        b"from __future__ import annotations\ndef f():\n    import inner\ntry:\n    import z\nexcept ImportError:\n    pass\n"
        b"imports = 1\nimport_ = 2\nfrom m import\n",
    ),
    ("python", "import \u00fcn\u00ef.c\u00f6de\nfrom a import b\n".encode()),
    (
        "go",
        b"package p\n\n// Cart.\n//\n//  holds items.   \ntype Cart struct{}\n\n/* Block\n * lines */\nfunc (c *Cart) A() {}\n"
        b"/**\n * Javadoc style.\n */\nfunc (Cart) B() {}\nfunc (c *Cart[K, V]) C() {}\nfunc (c *pkg.T) D() {}\nfunc (c) E() {}\n"
        b"// \xc3\xa9 not ascii\nfunc F() {}\n// -- dashes\n// # hash\n//! bang\n///triple\nfunc G() {}\n"
        b"// a\x0bb\x1cc\x1dd\x1ee\x0cf\r\n// g\nfunc H() {}\n",
    ),
    ("go", b"package p\n" + b"".join(b"// line %d\n" % i for i in range(60)) + b"func Long() {}\n/*\n" + b" *\n" * 50 + b"*/\nfunc Block() {}\n"),
    (
        "javascript",
        b'import "side";\nimport * as ns from "y";\nimport d, { a as b, c } from \'./x\';\nimport { "a-b" as e } from "q";\n'
        b'export { f as g } from "./z";\nexport * from "w";\nexport * as h from "v";\nexport { own };\nexport default 1;\n'
        b'const r = require("./r");\nconst { i, j: k, ...rest } = require("t");\nl = require("l");\nrequire(dynamic);\n'
        b'require("a", "b");\nimport("./dyn");\nconst m = await import("m");\nobj.require("no");\n$import("no");\n'
        b'const n = require("\xc3\xa9\xff");\n'
        b"A.prototype.m = function () {};\nA.b.prototype.n = function () {};\n\xc3\xa4.prototype.o = () => 1;\n"
        b'A.prototypes.p = function () {};\nA["prototype"].q = function () {};\n',
    ),
    (
        "typescript",
        b'import k = require("k");\nimport type { T as U } from "./types";\nexport type { V } from "./v";\n'
        b'import x, * as y from "xy";\nexport = Foo;\n',
    ),
    ("tsx", b'import React, { useState } from "react";\nconst C = () => <A.B />;\n'),
    (
        "rust",
        b"use std::io;\nuse ::std as s;\nuse crate::a::{b, c as d, self};\nuse super::x::*;\nuse a::b::{self};\nuse self::{self as me};\n"
        b"use  some :: spaced :: { path as  alias , };\npub(crate) use self::z::{w::{v, u as t}, *, {}};\nuse ::{x, y::z};\n"
        b"mod tests { use super::*; mod inner { use self::h::f; use super::super::g; use super::super::super::k; mod deep; } }\n"
        b"mod foo;\n#[path = \"p/q.rs\"]\nmod bar;\nmod a {\n    #[path = \"x.rs\"]\n    // c\n    #[cfg(x)]\n    mod f;\n}\n"
        b"#[path = \"\xc3\xa9.rs\"]\nmod e;\n#[doc = \"no\"]\nmod g;\n#[path]\nmod h;\nmod body { }\n"
        b"macro_rules! m { () => { use $x::y; } }\nfn user() { let mod_ = 1; let r#use = 2; } // use in a comment\n"
        b"/// Doc.\n#[derive(Debug)]\nstruct S { /// field\n    f: u8,\n}\n",
    ),
    ("rust", "use \u00fcn\u00ef::c\u00f6de;\nmod \u00e9;\nuse a::b;\n".encode()),
]


@pytest.mark.parametrize(("language", "source"), HOOK_CASES)
def test_the_hooks_the_runner_reads_answer_as_theirs(language: str, source: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner, doc and imports hooks the runner reads itself, and the doc comments: the same
    records as the Python path, on these sources and on every prefix of them."""
    native, python, answered = _both(language, source, monkeypatch)
    assert native == python
    assert answered == 1
    path = PATHS[language]
    assert not discover_foreign("file://" + path, source, path).diagnostics
    for cut in sorted({*range(0, len(source), 5), *(i for i, byte in enumerate(source) if byte == 10)}):
        native, python, _ = _both(language, source[:cut], monkeypatch)
        assert native == python, (language, cut)


def test_the_runner_reads_the_hooks_itself() -> None:
    """With the runner in use, the Python hooks answer only where its rules hand over: a
    docstring with an escape (or a prefix, or text other than ASCII), a dotted name or a path
    that is not ASCII (Python's, Rust's); JavaScript's imports and owners, Rust's imports and
    Go's receivers otherwise never."""
    import dataclasses

    _native()
    calls: dict[str, int] = {}

    def counting(name: str, hook: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            return hook(*args)

        return call

    def run(language: str, source: bytes, *hooks: str) -> engine.Extraction:
        spec = spec_for(language)
        assert spec is not None
        calls.clear()
        replaced = dataclasses.replace(spec, **{name: counting(name, getattr(spec, name)) for name in hooks})
        return engine.extract_all(replaced, source)

    found = run("python", b'def a():\n    """Plain."""\ndef b():\n    "\xc3\xa9 "\nimport a.b as c\n', "doc", "imports")
    assert calls == {}
    assert [s.doc for s in found.symbols] == ["Plain.", "\xe9"]
    assert [(i.module, i.alias) for i in found.imports] == [("a.b", "c")]
    found = run("python", b'def a():\n    """Esc\\t."""\nimport \xc3\xa9\n', "doc", "imports")
    assert calls == {"doc": 1, "imports": 1}
    assert [s.doc for s in found.symbols] == ["Esc\t."]
    found = run("javascript", b'import a from "a";\nconst b = require("b");\nA.prototype.m = function () {};\n', "owner", "imports")
    assert calls == {}
    assert [s.qualified for s in found.symbols] == ["A.m"] and [i.module for i in found.imports] == ["a", "b"]
    found = run("go", b"package p\nfunc (c *Cart[K]) M() {}\n", "owner")
    assert calls == {}
    assert [s.qualified for s in found.symbols] == ["p.Cart.M"]
    found = run("rust", b"mod m { use super::a::{b as c, self}; }\nmod d;\n", "imports")
    assert calls == {}
    assert [(i.module, i.names, i.alias) for i in found.imports] == [("self::a", [("b", "c")], None), ("self", [("a", "a")], None), ("self::d", [], None)]
    found = run("rust", "use \u00e9::b;\n".encode(), "imports")
    assert calls == {"imports": 1}
    assert [i.module for i in found.imports] == ["\u00e9"]


def _discover_in_child(paths: dict[str, str]) -> dict[str, bytes]:
    return {language: _ENCODE(discover_foreign("file://" + path, SOURCES[language], path)) for language, path in paths.items()}


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this system: workers inherit nothing")
def test_prepare_foreign_then_a_forked_worker_discovers_the_same() -> None:
    """``prepare_foreign`` makes in the parent what a pool's workers read (each language's plan,
    the native runner's check) and they inherit it at the fork: a forked worker's results are
    those of this process, which made its own, and of the Python path; names without an
    extractor (Ruby, text) are passed over."""
    from concurrent.futures import ProcessPoolExecutor

    from rdx.languages.discover import prepare_foreign

    prepare_foreign([*PATHS.values(), "/p/app.rb", "/p/Gemfile", "/p/notes.txt", "/p/.js"])
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as pool:
        forked = pool.submit(_discover_in_child, PATHS).result()
    assert forked == _discover_in_child(PATHS)
    run = engine.native_query
    try:
        engine.native_query = lambda: None
        assert forked == _discover_in_child(PATHS)
    finally:
        engine.native_query = run


def test_an_empty_class_body_is_no_error() -> None:
    """``class A:`` at the end of a file (a body without statements) has no docstring, on both
    paths (py-tree-sitter's ``named_child(0)`` raises there)."""
    for source in (b"class A:\n", b"def f():\n"):
        found = discover_foreign("file:///p/m.py", source, "/p/m.py")
        assert not found.diagnostics and [s.doc for s in found.symbols] == [None]


def test_the_matcher_reads_the_patterns_it_can() -> None:
    """patterns.table compiles every spec's query but C#'s (a bare ``_``), and hands any
    pattern it does not read (repetitions, a bare wildcard, several top-level nodes) to the
    cursor."""
    import tree_sitter
    from tree_sitter_language_pack import get_language

    from rdx.native import patterns

    for name in SPECS:
        spec = spec_for(name)
        assert spec is not None
        assert (engine._plan(spec).matcher[0] is None) == (name == "csharp"), name
    language = get_language("python")
    for text in ("(call (argument_list (identifier)* @x))", "(call function: _ @x)", "((identifier) @a (string) @b)", "(call (_)+ @x)"):
        query = tree_sitter.Query(language, text)
        assert patterns.table(language, query, text.encode()) is None, text
    text = "(call function: (attribute object: (_)? @q attribute: (identifier) @x))"
    assert patterns.table(language, tree_sitter.Query(language, text), text.encode()) is not None


def test_sample_check_rejects_a_disagreeing_runner() -> None:
    """The loader's check compares with py-tree-sitter's matches: a runner that drops or
    reorders a match fails it."""
    from rdx.native import _query  # type: ignore[attr-defined]

    assert rdx.native.query.agrees_on_sample(_query.matches)
    assert not rdx.native.query.agrees_on_sample(lambda query, node: _query.matches(query, node)[1:])
    assert not rdx.native.query.agrees_on_sample(lambda query, node: list(reversed(_query.matches(query, node))))
    assert not rdx.native.query.agrees_on_sample(lambda query, node: None)


def test_rdx_native_0_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    _native()
    monkeypatch.setenv("RDX_NATIVE", "0")
    rdx.native.query.reset()
    try:
        assert rdx.native.query.runner() is None
        assert rdx.native.query.disabled_reason() == "RDX_NATIVE=0"
    finally:
        monkeypatch.delenv("RDX_NATIVE")
        rdx.native.query.reset()
    assert rdx.native.query.runner() is not None


def _corpus_files() -> Iterator[tuple[str, str]]:
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
    from bench_polyglot import CORPORA, _corpus

    for language, _, _, root, pattern in CORPORA:
        assert os.path.isdir(root), f"{root} is missing (make test installs the corpora)"
        for path in _corpus(root, pattern):
            yield language, path


@pytest.mark.corpus
def test_native_and_python_agree_on_the_corpora(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file of bench_polyglot's corpora (Python's and Go's standard libraries, CPython's
    headers, Debian's Rust crates, the npm packages): byte-identical results."""
    from test_polyglot import _npm_corpus

    assert _npm_corpus(), "the JavaScript corpus comes from the npm registry through npm (make test installs npm)"
    differ = []
    count = 0
    for language, path in _corpus_files():
        with open(path, "rb") as f:
            source = f.read()
        native, python, _ = _both(language, source, monkeypatch, path)
        count += 1
        if native != python:
            differ.append(path)
    assert count > 5000
    assert not differ, differ[:10]
