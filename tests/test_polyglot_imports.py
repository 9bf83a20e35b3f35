"""Imports of other languages: what each extractor records (``Import``), what the layout reads
from configuration files, and which project files ``ImportResolver`` finds. Fixtures are small
multi-file projects written to tmp_path; the real packages (Python's email and asyncio, Go's
net/http, Rust crates, the npm corpus) check that every import that must resolve does."""

from __future__ import annotations

import glob
import os
import sysconfig
from pathlib import Path

import pytest
from test_polyglot import _GO_SRC, NPM_CORPUS, _npm_corpus

from rdx.languages.engine import extract_all
from rdx.languages.importing import ImportResolver, ResolvedImport
from rdx.languages.layout import JsConfig, Layout, read_layout
from rdx.languages.registry import spec_for
from rdx.languages.symbols import Import

# -- extraction ------------------------------------------------------------------------------

Row = tuple[str, list[tuple[str, str]], str | None]  # (module, names, alias)


def imports(language: str, source: str) -> list[Import]:
    spec = spec_for(language)
    assert spec is not None
    return extract_all(spec, source.encode()).imports


def check_imports(language: str, source: str, expected: list[Row]) -> None:
    assert [(i.module, i.names, i.alias) for i in imports(language, source)] == expected


EXTRACTION: list[tuple[str, str, list[Row]]] = [
    (
        "python",
        "import a.b\nimport a.b as c, d\nfrom . import x\nfrom ..pkg.mod import a as b, c\nfrom m import *\n"
        "from .. import (y as z,  # why\n  w)\nfrom __future__ import annotations\n"
        'def f():\n    import os . path as p\ns = "import nothing"  # import nothing\n',
        [
            ("a.b", [], None),
            ("a.b", [], "c"),
            ("d", [], None),
            (".", [("x", "x")], None),
            ("..pkg.mod", [("a", "b"), ("c", "c")], None),
            ("m", [("*", "*")], None),
            ("..", [("y", "z"), ("w", "w")], None),
            ("__future__", [("annotations", "annotations")], None),
            ("os.path", [], "p"),
        ],
    ),
    (
        "typescript",
        'import d, { a as b, c } from "./x";\nimport * as ns from "y";\nimport "side";\nexport { e as f, g } from "./z";\n'
        'export * from "w";\nexport * as q from "v";\nconst r = require("./r");\nrequire("s");\nconst { h, i: j } = require("t");\n'
        'await import("./dyn");\nimport k = require("kk");\nimport type { T } from "./types";\n'
        'export const n = 1; o.require("no"); require(name); import(name); import.meta.url; // import x from "c"\n',
        [
            ("./x", [("default", "d"), ("a", "b"), ("c", "c")], None),
            ("y", [], "ns"),
            ("side", [], None),
            ("./z", [("e", "f"), ("g", "g")], None),
            ("w", [("*", "*")], None),
            ("v", [], "q"),
            ("./r", [], "r"),
            ("s", [], None),
            ("t", [("h", "h"), ("i", "j")], None),
            ("./dyn", [], None),
            ("kk", [], "k"),
            ("./types", [("T", "T")], None),
        ],
    ),
    ("javascript", "var x = require('./lib/x').y;\nexports.z = require('z');\n", [("./lib/x", [], None), ("z", [], None)]),
    ("tsx", 'import React from "react";\nexport const A = () => <div/>;\n', [("react", [("default", "React")], None)]),
    (
        "go",
        'package p\n\nimport "fmt"\nimport (\n\tf "fmt"\n\t. "strings" // dot\n\t_ "embed"\n\t"net/http"\n)\nimport `raw/path`\n\nfunc main() {}\n',
        [("fmt", [], None), ("fmt", [], "f"), ("strings", [], "."), ("embed", [], "_"), ("net/http", [], None), ("raw/path", [], None)],
    ),
    (
        "rust",
        "use a::b::{c, d as e, f::*, self, g::{self as h}};\nuse serde;\nuse ::std::io as sio;\npub use crate::x::*;\n"
        'mod foo;\n#[path = "../gen.rs"]\n#[cfg(x)]\npub(crate) mod generated;\nmod inline_block { pub fn f() {} }\n'
        'mod m { mod n; use super::y; use self::k::z; #[path = "p.rs"] mod q; }\nuse super::super::w;\n'
        "#[cfg(test)]\nmod tests { use super::*; }\n// use not::this;\n",
        [
            ("a::b", [("c", "c")], None),
            ("a::b", [("d", "e")], None),
            ("a::b::f", [("*", "*")], None),
            ("a", [("b", "b")], None),
            ("a::b", [("g", "h")], None),
            ("serde", [], "serde"),
            ("::std", [("io", "sio")], None),
            ("crate::x", [("*", "*")], None),
            ("self::foo", [], None),
            ("../gen.rs", [], None),
            ("self::m::n", [], None),
            ("self", [("y", "y")], None),
            ("self::m::k", [("z", "z")], None),
            ("m/p.rs", [], None),
            ("super::super", [("w", "w")], None),
            ("self", [("*", "*")], None),
        ],
    ),
    (
        "java",
        "package x;\nimport a.b.C;\nimport a.b.*;\nimport static a.b.C.m;\nimport static a.b.C.*;\nclass K {}\n",
        [
            ("a.b", [("C", "C")], None),
            ("a.b", [("*", "*")], None),
            ("a.b.C", [("m", "m")], None),
            ("a.b.C", [("*", "*")], None),
        ],
    ),
    (
        "csharp",
        "using System;\nusing X = A.B;\nusing static A.C;\nglobal using G.H;\n"
        "namespace N { using Inner.Ns; class K { void M() { using (var x = y) {} using var z = w; } } }\n",
        [("System", [], None), ("A.B", [], "X"), ("A.C", [("*", "*")], None), ("G.H", [], None), ("Inner.Ns", [], None)],
    ),
    (
        "php",
        "<?php\nuse App\\Models\\User;\nuse App\\Models\\{Post, Tag as T};\nuse function App\\f;\nuse \\Lead\\X as Y, Z;\n"
        'require \'a.php\';\nrequire_once __DIR__ . "/b.php";\ninclude("c.php");\ninclude_once $x;\n'
        "include dirname(__FILE__) . '/../d.php';\nrequire \"$dir/e.php\";\nclass K { use SomeTrait; }\n",
        [
            ("\\App\\Models", [("User", "User")], None),
            ("\\App\\Models", [("Post", "Post")], None),
            ("\\App\\Models", [("Tag", "T")], None),
            ("\\App", [("f", "f")], None),
            ("\\Lead", [("X", "Y")], None),
            ("\\", [("Z", "Z")], None),
            ("a.php", [], None),
            ("__DIR__/b.php", [], None),
            ("c.php", [], None),
            ("__DIR__/../d.php", [], None),
        ],
    ),
]


@pytest.mark.parametrize(("language", "source", "expected"), EXTRACTION, ids=[e[0] for e in EXTRACTION])
def test_extraction(language: str, source: str, expected: list[Row]) -> None:
    check_imports(language, source, expected)


def test_c_includes_are_system_or_not_and_end_with_their_path() -> None:
    source = '#include "a/b.h"\n#  include <stdio.h>\n#ifdef X\n#include "c.h"\n#endif\n#include MACRO\n/* #include "no.h" */\n'
    for language in ("c", "cpp"):
        found = imports(language, source)
        assert [(i.module, i.system, i.line) for i in found] == [("a/b.h", False, 1), ("stdio.h", True, 2), ("c.h", False, 4)]
        assert source.encode()[found[1].start : found[1].end] == b"#  include <stdio.h>"


def test_positions_are_one_based_lines_and_byte_columns() -> None:
    [first, second] = imports("python", "x = 1\nif y:\n    import é_mod, b\n")
    assert (first.line, first.column, second.column) == (3, 11, 19)
    [inner] = imports("rust", "use a::{b as c};")
    assert (inner.start, inner.end) == (8, 14)


def test_broken_sources_give_no_crash() -> None:
    for language in ("python", "javascript", "typescript", "tsx", "go", "rust", "c", "cpp", "java", "csharp", "php"):
        for source in ("import", "from . import", "use ::{;", "#include", 'require("', "import (\n", "\xff garbage", "use a::{b::{c"):
            assert isinstance(imports(language, source), list)


# -- layout ----------------------------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return sorted(str(root / name) for name in files)


def test_layout_reads_go_mod_tsconfig_cargo_and_include_dirs(tmp_path: Path) -> None:
    files = write(
        tmp_path,
        {
            "go.mod": '// The shop.\nmodule "example.com/shop" // quoted\n\ngo 1.21\n',
            "svc/go.mod": "module example.com/shop/svc\n",
            "broken/go.mod": "go 1.21\n",
            "web/tsconfig.base.json": '{\n  // Shared: "not a key"\n  "compilerOptions": {\n    "baseUrl": "./src", /* the sources, */\n'
            '    "paths": {"@lib/*": ["lib/*", "fallback/*",], "url": ["http://x//y/*"]},\n  },\n}\n',
            "web/tsconfig.json": '{ "extends": "./tsconfig.base", "compilerOptions": { "strict": true } }',
            "web/package.json": '{"main": "src/app.ts"}',
            "web/pkg/jsconfig.json": '{"compilerOptions": {"paths": {"x": ["./x.js"]}}}',
            "cycle/tsconfig.json": '{"extends": "./b.json", "compilerOptions": {"paths": {"x": ["x.ts"]}}}',
            "cycle/b.json": '{"extends": ["./tsconfig.json"], "compilerOptions": {"baseUrl": "lib", "paths": {"y": ["y.ts"]}}}',
            "bad/tsconfig.json": "{ not json",
            "bad2/tsconfig.json": "[1, 2]",
            "bad3/package.json": "\x00",
            "rs/Cargo.toml": '[package]\nname = "shop-core"\n',
            "rs/lib/Cargo.toml": '[package]\nname = "a"\n[lib]\nname = "b"\n',
            "rs/bad/Cargo.toml": "[package\n",
            "c/include/shop/cart.h": "",
            "c/third_party/include/x.h": "",
            "c/src/include_me.c": "",
        },
    )
    (tmp_path / "unreadable").mkdir()
    files.append(str(tmp_path / "unreadable" / "tsconfig.json"))  # Listed but missing: skipped.
    layout = read_layout([str(tmp_path)], files)
    root = str(tmp_path)
    assert layout.go_modules == {root: "example.com/shop", f"{root}/svc": "example.com/shop/svc"}
    assert layout.js_configs == {
        f"{root}/web": JsConfig(f"{root}/web/src", {"@lib/*": ["lib/*", "fallback/*"], "url": ["http://x//y/*"]}, f"{root}/web/src"),
        f"{root}/web/pkg": JsConfig(None, {"x": ["./x.js"]}, f"{root}/web/pkg"),
        # Its own paths win over those of the file it extends; baseUrl comes from there.
        f"{root}/cycle": JsConfig(f"{root}/cycle/lib", {"x": ["x.ts"]}, f"{root}/cycle/lib"),
    }
    assert layout.js_packages == {f"{root}/web": f"{root}/web/src/app.ts"}
    assert layout.crates == {f"{root}/rs": "shop_core", f"{root}/rs/lib": "b", f"{root}/rs/bad": ""}
    assert layout.include_dirs == [f"{root}/c/include", f"{root}/c/third_party/include", root]


# -- resolution ------------------------------------------------------------------------------

LANGUAGES = {
    ".py": "python",
    ".go": "go",
    ".js": "javascript",
    ".mjs": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".java": "java",
    ".php": "php",
    ".cs": "csharp",
}

# For each importer, per import in source order: (module, files, names), paths relative to the project.
Expected = dict[str, list[tuple[str, list[str], dict[str, str]]]]


def check_resolution(tmp_path: Path, files: dict[str, str], expected: Expected) -> None:
    paths = write(tmp_path, files)
    resolver = ImportResolver(paths, read_layout([str(tmp_path)], paths))
    root = str(tmp_path) + os.sep
    for importer, wanted in expected.items():
        language = LANGUAGES[os.path.splitext(importer)[1]]
        found = []
        for imp in imports(language, files[importer]):
            result = resolver.resolve(language, root + importer, imp)
            assert isinstance(result, ResolvedImport)
            found.append(
                (imp.module, [f.removeprefix(root) for f in result.files], {k: v.removeprefix(root) for k, v in result.names.items()})
            )
        assert found == wanted, importer


def test_python_relative_absolute_and_namespace_imports(tmp_path: Path) -> None:
    leaf = (
        "from ... import core\nfrom ...core import util\nfrom ..util import x\nfrom .. import missing\nfrom .... import beyond\n"
        "import app.core.util as u\nfrom app.core import util, deep, nothing\nimport os\nfrom app.nothing import y\n"
    )
    files = {
        "src/app/__init__.py": "",
        "src/app/core/__init__.py": "from . import util\nfrom .util import helper as h\nfrom .deep import *\n",
        "src/app/core/util.py": "",
        "src/app/core/util.pyi": "",
        "src/app/core/deep/__init__.py": "",
        "src/app/core/deep/leaf.py": leaf,
        "tests/test_app.py": "import app.core\nfrom app import core\nimport helpers\nfrom tests import helpers\nfrom tests.data import sample\n",
        "tests/helpers.py": "",
        "tests/data/sample.py": "",
        "src/beyond.py": "",
        "scripts/json.py": "",
        "scripts/run.py": "import json\n",
        "other/run.py": "import json\n",
    }
    util, core = "src/app/core/util.py", "src/app/core/__init__.py"
    check_resolution(
        tmp_path,
        files,
        {
            "src/app/core/__init__.py": [
                (".", [core], {"util": util}),
                (".util", [util], {}),
                (".deep", ["src/app/core/deep/__init__.py"], {}),
            ],
            "src/app/core/deep/leaf.py": [
                ("...", ["src/app/__init__.py"], {"core": core}),
                ("...core", [core], {"util": util}),
                ("..util", [util], {}),
                ("..", [core], {}),
                ("....", [], {}),  # Above the outermost package.
                ("app.core.util", [util], {}),
                ("app.core", [core], {"util": util, "deep": "src/app/core/deep/__init__.py"}),
                ("os", [], {}),
                ("app.nothing", [], {}),
            ],
            "tests/test_app.py": [
                ("app.core", [core], {}),
                ("app", ["src/app/__init__.py"], {"core": core}),
                ("helpers", ["tests/helpers.py"], {}),
                # ``tests`` is a namespace package of the project's root.
                ("tests", [], {"helpers": "tests/helpers.py"}),
                ("tests.data", [], {"sample": "tests/data/sample.py"}),
            ],
            # A loose module is importable from its own directory only.
            "scripts/run.py": [("json", ["scripts/json.py"], {})],
            "other/run.py": [("json", [], {})],
        },
    )


def test_go_imports_through_go_mod_vendor_and_std(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/shop // the shop\n\ngo 1.21\n",
        "main.go": 'package main\n\nimport "example.com/shop/cart"\n',
        "cart/cart.go": 'package cart\n\nimport (\n\t"fmt"\n\tm "example.com/shop/money"\n\t_ "example.com/shop/internal/db"\n'
        '\t"github.com/x/y"\n\t"example.com/shop"\n\t"example.com/shopping"\n\t"net/nope"\n)\n',
        "money/money.go": "package money\n",
        "money/format.go": "package money\n",
        "money/money_test.go": "package money\n",
        "internal/db/db.go": "package db\n",
        "vendor/github.com/x/y/y.go": "package y\n",
        "tools/go.mod": "module example.com/shop/tools\n",
        "tools/lint/lint.go": 'package lint\n\nimport (\n\t"example.com/shop/tools/lint/rules"\n\t"example.com/shop/money"\n)\n',
        "tools/lint/rules/rules.go": "package rules\n",
        # Go's own tree: its go.mod says ``module std``.
        "goroot/src/go.mod": "module std\n",
        "goroot/src/fmt/print.go": "package fmt\n",
        "goroot/src/net/http/server.go": 'package http\n\nimport (\n\t"fmt"\n\t"golang.org/x/net/idna"\n)\n',
        "goroot/src/vendor/golang.org/x/net/idna/idna.go": "package idna\n",
    }
    money = ["money/format.go", "money/money.go"]
    check_resolution(
        tmp_path,
        files,
        {
            "main.go": [("example.com/shop/cart", ["cart/cart.go"], {})],
            "cart/cart.go": [
                ("fmt", ["goroot/src/fmt/print.go"], {}),
                ("example.com/shop/money", money, {}),
                ("example.com/shop/internal/db", ["internal/db/db.go"], {}),
                ("github.com/x/y", ["vendor/github.com/x/y/y.go"], {}),
                ("example.com/shop", ["main.go"], {}),
                ("example.com/shopping", [], {}),  # Not under the module path (a prefix of the text only).
                ("net/nope", [], {}),
            ],
            "tools/lint/lint.go": [
                ("example.com/shop/tools/lint/rules", ["tools/lint/rules/rules.go"], {}),
                ("example.com/shop/money", money, {}),
            ],
            "goroot/src/net/http/server.go": [
                ("fmt", ["goroot/src/fmt/print.go"], {}),
                ("golang.org/x/net/idna", ["goroot/src/vendor/golang.org/x/net/idna/idna.go"], {}),
            ],
        },
    )


def test_javascript_and_typescript_paths_base_url_extends_and_probing(tmp_path: Path) -> None:
    app = (
        'import { a } from "./util.js";\nimport b from "@lib/math";\nimport c from "@lib/extra";\nimport cfg from "config";\n'
        'import d from "models/user";\nimport e from "react";\nimport f from "./components";\nimport g from "../package.json";\n'
        'import h from "./nothing";\n'
    )
    files = {
        "web/tsconfig.base.json": '{\n  // Shared settings.\n  "compilerOptions": {\n    "baseUrl": "./src", /* the sources */\n'
        '    "paths": {"@lib/*": ["lib/*", "fallback/*"], "config": ["conf/index.ts"],},\n    "outDir": "http://x//y",\n  },\n}\n',
        "web/tsconfig.json": '{\n  "extends": "./tsconfig.base",\n  "compilerOptions": { "strict": true, },\n}\n',
        "web/package.json": '{"name": "web", "main": "src/app.ts"}',
        "web/src/app.ts": app,
        "web/src/util.ts": "",
        "web/src/util.js": "",  # A compiled copy beside it: TypeScript reads the .ts.
        "web/src/lib/math.ts": "",
        "web/src/fallback/extra.tsx": "",
        "web/src/conf/index.ts": "",
        "web/src/models/user.d.ts": "",
        "web/src/components/index.tsx": "",
        "web/legacy/old.js": 'const u = require("./u");\nconst v = require("../src/util");\nconst p = require("..");\nimport("./lazy");\n'
        'require("@lib/math");\n',
        "web/legacy/u.js": "",
        "web/legacy/lazy.mjs": "",
        "web/legacy/tsconfig.json": "{}",  # Nearer than web's: no paths here.
        "broken/tsconfig.json": "{ not json",
        "broken/a.ts": 'import x from "y/z";\nimport w from "./w";\n',
        "broken/w.ts": "",
    }
    check_resolution(
        tmp_path,
        files,
        {
            "web/src/app.ts": [
                ("./util.js", ["web/src/util.ts"], {}),
                ("@lib/math", ["web/src/lib/math.ts"], {}),
                ("@lib/extra", ["web/src/fallback/extra.tsx"], {}),
                ("config", ["web/src/conf/index.ts"], {}),
                ("models/user", ["web/src/models/user.d.ts"], {}),
                ("react", [], {}),
                ("./components", ["web/src/components/index.tsx"], {}),
                ("../package.json", ["web/package.json"], {}),
                ("./nothing", [], {}),
            ],
            "web/legacy/old.js": [
                ("./u", ["web/legacy/u.js"], {}),
                ("../src/util", ["web/src/util.js"], {}),  # From JavaScript, the .js first.
                ("..", ["web/src/app.ts"], {}),  # The directory's package.json main.
                ("./lazy", ["web/legacy/lazy.mjs"], {}),
                ("@lib/math", [], {}),
            ],
            "broken/a.ts": [("y/z", [], {}), ("./w", ["broken/w.ts"], {})],
        },
    )


def test_rust_mod_files_and_use_paths(tmp_path: Path) -> None:
    files = {
        "shop/Cargo.toml": '[package]\nname = "shop-core"\n',
        "shop/src/lib.rs": 'pub mod cart;\nmod money;\n#[path = "gen/out.rs"]\nmod generated;\n'
        "mod inline { mod nested; use super::cart::Cart; }\nuse crate::cart::item::{Item, self as it};\nuse self::money::*;\n"
        "use std::fmt;\nuse cart::Cart;\n#[cfg(test)]\nmod tests { use super::*; }\n",
        "shop/src/cart.rs": "mod item;\nuse super::money::Money;\nuse crate::cart::item::Item;\n",
        "shop/src/cart/item.rs": "use super::super::money;\nuse crate::missing::Thing;\n",
        "shop/src/money/mod.rs": "mod cents;\nmod absent;\nuse super::cart;\n",
        "shop/src/money/cents.rs": "",
        "shop/src/gen/out.rs": "",
        "shop/src/inline/nested.rs": "",
        "shop/tests/it.rs": "mod common;\nuse shop_core::cart::Cart;\n",
        "shop/tests/common/mod.rs": "",
        "shop/src/bin/tool.rs": "mod opts;\n",
        "shop/src/bin/opts.rs": "",
    }
    lib, cart, item, money = "shop/src/lib.rs", "shop/src/cart.rs", "shop/src/cart/item.rs", "shop/src/money/mod.rs"
    check_resolution(
        tmp_path,
        files,
        {
            "shop/src/lib.rs": [
                ("self::cart", [cart], {}),
                ("self::money", [money], {}),
                ("gen/out.rs", ["shop/src/gen/out.rs"], {}),
                ("self::inline::nested", ["shop/src/inline/nested.rs"], {}),
                ("self::cart", [cart], {}),  # ``super`` inside ``mod inline``: the file's module.
                ("crate::cart::item", [item], {}),
                ("crate::cart", [cart], {"item": item}),
                ("self::money", [money], {}),
                ("std", [], {}),
                ("cart", [cart], {}),  # A module declared beside it (2018 paths).
                ("self", [lib], {}),
            ],
            # A file ``cart.rs`` keeps its modules in ``cart/``.
            "shop/src/cart.rs": [("self::item", [item], {}), ("super::money", [money], {}), ("crate::cart::item", [item], {})],
            "shop/src/cart/item.rs": [("super::super", [lib], {"money": money}), ("crate::missing", [lib], {})],
            # ``mod.rs`` keeps them beside it.
            "shop/src/money/mod.rs": [
                ("self::cents", ["shop/src/money/cents.rs"], {}),
                ("self::absent", [], {}),
                ("super", [lib], {"cart": cart}),
            ],
            # Integration tests and binaries are crate roots: their modules sit beside them.
            "shop/tests/it.rs": [("self::common", ["shop/tests/common/mod.rs"], {}), ("shop_core::cart", [cart], {})],
            "shop/src/bin/tool.rs": [("self::opts", ["shop/src/bin/opts.rs"], {})],
        },
    )


def test_c_includes_beside_then_include_dirs(tmp_path: Path) -> None:
    files = {
        "c/include/shop/cart.h": '#include "shop/money.h"\n#include <stdio.h>\n',
        "c/include/shop/money.h": "",
        "c/src/cart.c": '#include "cart_internal.h"\n#include "shop/cart.h"\n#include <shop/money.h>\n'
        '#include "../include/shop/money.h"\n#include "nothere.h"\n#include <cart_internal.h>\n',
        "c/src/cart_internal.h": "",
        "cpp/include/shop/money.h": "",
        "cpp/src/main.cpp": '#include "shop/money.h"\n',
    }
    check_resolution(
        tmp_path,
        files,
        {
            "c/src/cart.c": [
                ("cart_internal.h", ["c/src/cart_internal.h"], {}),
                ("shop/cart.h", ["c/include/shop/cart.h"], {}),
                ("shop/money.h", ["c/include/shop/money.h"], {}),
                ("../include/shop/money.h", ["c/include/shop/money.h"], {}),
                ("nothere.h", [], {}),
                ("cart_internal.h", [], {}),  # A system include is not looked for beside the file.
            ],
            "c/include/shop/cart.h": [("shop/money.h", ["c/include/shop/money.h"], {}), ("stdio.h", [], {})],
            # Two include directories have it: the one nearest the includer.
            "cpp/src/main.cpp": [("shop/money.h", ["cpp/include/shop/money.h"], {})],
        },
    )


def test_java_php_and_csharp(tmp_path: Path) -> None:
    java = "java/src/main/java/com/shop/"
    files = {
        java
        + "Cart.java": "package com.shop;\nimport com.shop.money.Money;\nimport com.shop.money.*;\nimport static com.shop.money.Money.ZERO;\n"
        "import static com.shop.money.Money.*;\nimport com.shop.Outer.Inner;\nimport java.util.List;\n",
        java + "money/Money.java": "",
        java + "money/Cents.java": "",
        java + "Outer.java": "",
        "php/src/Models/User.php": "<?php\nnamespace App\\Models;\nuse App\\Support\\Str;\nuse Vendor\\Lib\\Thing;\n"
        "require_once __DIR__ . '/../helpers.php';\nrequire 'config.php';\ninclude 'gone.php';\n",
        "php/src/Support/Str.php": "",
        "php/src/helpers.php": "",
        "php/src/Models/config.php": "",
        "cs/Shop.cs": "using Shop.Money;\n",
        "cs/Money/Money.cs": "namespace Shop.Money { class Money {} }\n",
    }
    money = java + "money/Money.java"
    check_resolution(
        tmp_path,
        files,
        {
            java + "Cart.java": [
                ("com.shop.money", [money], {}),
                ("com.shop.money", [java + "money/Cents.java", money], {}),
                ("com.shop.money.Money", [money], {}),
                ("com.shop.money.Money", [money], {}),
                ("com.shop.Outer", [java + "Outer.java"], {}),  # A nested class: its outer class's file.
                ("java.util", [], {}),
            ],
            "php/src/Models/User.php": [
                ("\\App\\Support", ["php/src/Support/Str.php"], {}),  # PSR-4: App\ is src/.
                ("\\Vendor\\Lib", [], {}),
                ("__DIR__/../helpers.php", ["php/src/helpers.php"], {}),
                ("config.php", ["php/src/Models/config.php"], {}),
                ("gone.php", [], {}),
            ],
            # FIXME(issue 11): C# namespaces name no file; a namespace -> files index would come from declarations.
            "cs/Shop.cs": [("Shop.Money", [], {})],
        },
    )


def test_resolution_needs_no_layout_and_unknown_languages_resolve_to_nothing(tmp_path: Path) -> None:
    paths = write(tmp_path, {"a/b.py": "", "a/c.py": "from .b import x\n"})
    resolver = ImportResolver(paths, Layout())
    imp = imports("python", "from .b import x\n")[0]
    assert resolver.resolve("python", str(tmp_path / "a" / "c.py"), imp).files == [str(tmp_path / "a" / "b.py")]
    assert resolver.resolve("markdown", str(tmp_path / "a" / "c.py"), imp) == ResolvedImport()


# -- real packages ---------------------------------------------------------------------------

_STDLIB = sysconfig.get_paths()["stdlib"]


def resolve_all(language: str, root: str, files: list[str], importers: list[str]) -> list[tuple[str, Import, ResolvedImport]]:
    resolver = ImportResolver(files, read_layout([root], files))
    spec = spec_for(language)
    assert spec is not None
    return [
        (path, imp, resolver.resolve(language, path, imp))
        for path in importers
        for imp in extract_all(spec, Path(path).read_bytes()).imports
    ]


@pytest.mark.corpus
@pytest.mark.parametrize(("package", "relative", "absolute"), [("email", 0, 50), ("asyncio", 100, 0)])
def test_python_stdlib_packages_resolve_their_own_imports(package: str, relative: int, absolute: int) -> None:
    """Python 3.11's email imports itself absolutely (``from email import utils``) and asyncio
    relatively (``from .base_events import *``): each import of the package itself resolves
    to a file of the package, and every name imported that is a submodule to its file."""
    directory = os.path.join(_STDLIB, package)
    files = sorted(glob.glob(os.path.join(directory, "**", "*.py"), recursive=True))
    results = resolve_all("python", _STDLIB, files, files)
    own = [(p, i, r) for p, i, r in results if i.module.startswith(".") or i.module.split(".")[0] == package]
    unresolved = [(p, i.module) for p, i, r in own if not r.files]
    assert unresolved == []
    assert all(f.startswith(directory + os.sep) and os.path.isfile(f) for _, _, r in own for f in [*r.files, *r.names.values()])
    assert sum(i.module.startswith(".") for _, i, _ in own) >= relative
    assert sum(not i.module.startswith(".") for _, i, _ in own) >= absolute
    # Everything else is outside the package (the rest of the standard library is not listed).
    assert all(not r.files for p, i, r in results if (p, i, r) not in own)


@pytest.mark.corpus
def test_go_net_http_imports_resolve_to_their_packages() -> None:
    assert os.path.isfile(os.path.join(_GO_SRC, "go.mod")), f"{_GO_SRC} is missing (make test installs golang-src)"
    files = sorted(glob.glob(os.path.join(_GO_SRC, "**", "*.go"), recursive=True)) + [os.path.join(_GO_SRC, "go.mod")]
    importers = sorted(glob.glob(os.path.join(_GO_SRC, "net", "http", "*.go")))
    results = resolve_all("go", _GO_SRC, files, importers)
    assert len(results) > 400
    for path, imp, result in results:
        # A std package lives under src, a dependency of std under src/vendor.
        first = imp.module.split("/")[0]
        package = os.path.join(_GO_SRC, imp.module) if "." not in first else os.path.join(_GO_SRC, "vendor", imp.module)
        wanted = sorted(f for f in glob.glob(os.path.join(package, "*.go")) if not f.endswith("_test.go"))
        assert wanted and result.files == wanted, (path, imp.module)


def _newest(pattern: str) -> str:
    found = sorted(glob.glob(os.path.join("/usr/share/cargo/registry", pattern)))
    assert found, f"no crate {pattern} under /usr/share/cargo/registry (make test installs librust-*-dev)"
    return found[-1]


@pytest.mark.corpus
@pytest.mark.parametrize("crate", ["regex-[0-9]*", "syn-[0-9]*"])
def test_rust_crates_mod_declarations_and_crate_paths_resolve(crate: str) -> None:
    """Every ``mod x;`` (regex: 143, syn: 84 of them, syn's ``#[path]`` ones included) finds
    its file, and every ``use`` through ``crate``, ``self`` or ``super`` a module file."""
    root = _newest(crate)
    files = sorted(glob.glob(os.path.join(root, "**", "*.rs"), recursive=True)) + [os.path.join(root, "Cargo.toml")]
    results = resolve_all("rust", root, files, files)
    mods = [(p, i.module) for p, i, r in results if not i.names and i.alias is None]
    assert len(mods) > 50
    assert [(p, i.module) for p, i, r in results if not i.names and i.alias is None and not r.files] == []
    local = [(p, i, r) for p, i, r in results if (i.names or i.alias) and i.module.split("::")[0] in ("crate", "self", "super")]
    assert len(local) > 100
    assert [(p, i.module) for p, i, r in local if not r.files] == []


@pytest.mark.corpus
def test_npm_relative_requires_resolve() -> None:
    assert _npm_corpus(), "the JavaScript corpus comes from the npm registry through npm (make test installs npm)"
    modules = NPM_CORPUS / "node_modules"
    files = sorted(str(p) for p in modules.rglob("*") if p.is_file())
    express = [f for f in files if f.startswith(str(modules / "express") + os.sep) and f.endswith(".js")]
    results = resolve_all("javascript", str(modules), files, express)
    relative = [(p, i.module, r.files) for p, i, r in results if i.module.startswith(".")]
    assert len(relative) >= 10 and all(r for _, _, r in relative), relative
    # The whole corpus (express's dependencies, lodash, zod's TypeScript sources) likewise.
    for language, extensions, least in (("javascript", (".js", ".cjs", ".mjs"), 3000), ("typescript", (".ts",), 800)):
        importers = [f for f in files if f.endswith(extensions)]
        relative = [(p, i.module, r.files) for p, i, r in resolve_all(language, str(modules), files, importers) if i.module.startswith(".")]
        assert len(relative) >= least and [(p, m) for p, m, r in relative if not r] == []
