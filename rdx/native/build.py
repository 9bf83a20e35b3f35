"""Build rdx's native module, ``rdx/native/_walk*.so``, from ``walk.c`` and the tree-sitter runtime.

The module moves py-tree-sitter's cursors in C, so it must be compiled against the same
tree-sitter runtime as the installed py-tree-sitter: this script reads the installed version,
fetches that version's source distribution from the package index (``pip download``, once;
it is kept under ``rdx/native/build/``) and compiles its single-file runtime (``lib.c``) into
the module with the runtime's symbols hidden. Needs a C compiler and Python's headers (as
``make capi`` does).

Run ``python rdx/native/build.py`` (``make native``). It rebuilds only when the source, the
tree-sitter version or the interpreter changed (``--force`` to rebuild anyway). When the build
is impossible (no compiler, no index), it says why and exits with status 0 unless ``--strict``:
rdx then runs its Python walk, which gives the same records. This script does not import rdx.

It builds ``_query*.so`` from ``query.c`` the same way (``build_query``): the other languages'
query runner, with its own copy of the runtime; without it the engine of ``rdx.languages``
reads py-tree-sitter's matches, which gives the same records.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "walk.c"
BUILD = HERE / "build"
TARGET = HERE / ("_walk" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
STAMP = BUILD / "walk.stamp"
# The query runner (query.c), a module of its own with its own copy of the runtime.
QUERY_SOURCE = HERE / "query.c"
QUERY_TARGET = HERE / ("_query" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
QUERY_STAMP = BUILD / "query.stamp"


# py-tree-sitter's TreeCursor object as walk.c reads it (``binding/types.h``, whitespace aside):
# a version that lays it (or its Tree) out otherwise is not built against.
_CURSOR_LAYOUT = "typedef struct { PyObject_HEAD TSTreeCursor cursor; PyObject *node; PyObject *tree; } TreeCursor;"
# Its Tree object, whose source walk.c reads identifiers' text from.
_TREE_LAYOUT = "typedef struct { PyObject_HEAD TSTree *tree; PyObject *source; PyObject *language; } Tree;"
# The objects query.c reads besides the Tree: the Node it makes for definitions, the Query it
# runs, and the predicates py-tree-sitter compiled from the query's text.
_QUERY_LAYOUTS = (
    "typedef struct { PyObject_HEAD TSNode node; PyObject *children; PyObject *tree; } Node;",
    "typedef struct { PyObject_HEAD TSQuery *query; PyObject *predicates; PyObject *settings; PyObject *assertions; } Query;",
    "typedef struct { PyObject_HEAD uint32_t capture1_id; uint32_t capture2_id; bool is_positive; bool is_any; } QueryPredicateEqCapture;",
    "typedef struct { PyObject_HEAD uint32_t capture_id; PyObject *string_value; bool is_positive; bool is_any; } QueryPredicateEqString;",
    "typedef struct { PyObject_HEAD uint32_t capture_id; PyObject *pattern; bool is_positive; bool is_any; } QueryPredicateMatch;",
    "typedef struct { PyObject_HEAD uint32_t capture_id; PyObject *values; bool is_positive; } QueryPredicateAnyOf;",
)


def _runtime(version: str) -> Path:
    """The directory holding tree-sitter ``version``'s ``lib/src/lib.c`` and ``lib/include``,
    beside ``binding/types.h`` (py-tree-sitter's object layouts)."""
    lib = BUILD / f"tree-sitter-{version}" / "lib"
    if (lib / "src" / "lib.c").is_file() and (lib.parent / "binding" / "types.h").is_file():
        return lib
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "-d", tmp, f"tree-sitter=={version}"],
            check=True,
        )
        archives = [p for p in Path(tmp).iterdir() if p.name.endswith(".tar.gz")]
        if not archives:
            raise RuntimeError(f"pip fetched no source archive of tree-sitter {version}")
        staging = BUILD / f"tree-sitter-{version}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        with tarfile.open(archives[0]) as tar:
            wanted = []
            for member in tar.getmembers():
                if not (member.isfile() or member.isdir()):
                    continue
                if "/tree_sitter/core/lib/" in member.name:
                    member.name = "lib/" + member.name.split("/tree_sitter/core/lib/", 1)[1]
                elif member.name.endswith("/tree_sitter/binding/types.h"):
                    member.name = "binding/types.h"
                else:
                    continue
                wanted.append(member)
            tar.extractall(staging, members=wanted, filter="data")
        if not (staging / "lib" / "src" / "lib.c").is_file() or not (staging / "binding" / "types.h").is_file():
            raise RuntimeError(f"tree-sitter {version}'s source archive has no lib/src/lib.c or binding/types.h")
        shutil.rmtree(lib.parent, ignore_errors=True)
        staging.rename(lib.parent)
    return lib


def _key(version: str, source: Path = SOURCE, target: Path = TARGET) -> str:
    digest = hashlib.sha256(source.read_bytes())
    digest.update(f"{version}\0{sys.executable}\0{sys.version}\0{target.name}".encode())
    return digest.hexdigest()


def build(force: bool = False) -> Path:
    version = importlib.metadata.version("tree-sitter")
    key = _key(version)
    if not force and TARGET.is_file() and STAMP.is_file() and STAMP.read_text() == key:
        return TARGET
    BUILD.mkdir(exist_ok=True)
    lib = _runtime(version)
    layouts = " ".join((lib.parent / "binding" / "types.h").read_text().split())
    if _CURSOR_LAYOUT not in layouts or _TREE_LAYOUT not in layouts:
        raise RuntimeError(f"py-tree-sitter {version} lays its TreeCursor or Tree out otherwise than walk.c reads them")
    compiler = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    partial = TARGET.with_name(TARGET.name + ".partial")
    flags = [
        *compiler.split(), "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-std=c11",
        "-D_DEFAULT_SOURCE", "-DTREE_SITTER_HIDE_SYMBOLS",
        f'-DRDX_TREE_SITTER_VERSION="{version}"',
        f"-I{sysconfig.get_paths()['include']}", f"-I{lib / 'include'}", f"-I{lib / 'src'}",
    ]
    _compile_with_runtime(flags, SOURCE, lib, partial)
    partial.replace(TARGET)
    STAMP.write_text(key)
    return TARGET


def _compile_with_runtime(flags: list[str], source: Path, lib: Path, out: Path) -> None:
    """Compile ``source`` with tree-sitter's runtime into ``out``: one translation unit, the
    source then the runtime, so that the compiler inlines the runtime's node and cursor
    functions into the walk (it calls them once per node); should that not compile (a name
    both define, in another runtime version), two."""
    unity = BUILD / f"{source.stem}_unity.c"
    unity.write_text(f'#include "{source.as_posix()}"\n#include "{(lib / "src" / "lib.c").as_posix()}"\n')
    try:
        subprocess.run([*flags, str(unity), "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        subprocess.run([*flags, str(source), str(lib / "src" / "lib.c"), "-o", str(out)], check=True)


def build_query(force: bool = False) -> Path:
    """``_query*.so`` from ``query.c``, as ``build`` makes ``_walk*.so`` (the same runtime)."""
    version = importlib.metadata.version("tree-sitter")
    key = _key(version, QUERY_SOURCE, QUERY_TARGET)
    if not force and QUERY_TARGET.is_file() and QUERY_STAMP.is_file() and QUERY_STAMP.read_text() == key:
        return QUERY_TARGET
    BUILD.mkdir(exist_ok=True)
    lib = _runtime(version)
    layouts = " ".join((lib.parent / "binding" / "types.h").read_text().split())
    missing = [x for x in (_TREE_LAYOUT, *_QUERY_LAYOUTS) if x not in layouts]
    if missing:
        raise RuntimeError(f"py-tree-sitter {version} lays out otherwise than query.c reads it: {missing[0]}")
    compiler = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    partial = QUERY_TARGET.with_name(QUERY_TARGET.name + ".partial")
    flags = [
        *compiler.split(), "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-std=c11",
        "-D_DEFAULT_SOURCE", "-DTREE_SITTER_HIDE_SYMBOLS",
        f'-DRDX_TREE_SITTER_VERSION="{version}"',
        f"-I{sysconfig.get_paths()['include']}", f"-I{lib / 'include'}", f"-I{lib / 'src'}",
    ]
    _compile_with_runtime(flags, QUERY_SOURCE, lib, partial)
    partial.replace(QUERY_TARGET)
    QUERY_STAMP.write_text(key)
    return QUERY_TARGET


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even when nothing changed")
    parser.add_argument("--strict", action="store_true", help="fail when the module cannot be built")
    args = parser.parse_args()
    try:
        print(f"native walk: {build(args.force).relative_to(HERE.parent.parent)}")
    except (OSError, subprocess.CalledProcessError, RuntimeError, tarfile.TarError, importlib.metadata.PackageNotFoundError) as exc:
        print(f"native walk not built ({exc}); rdx uses its Python walk, which gives the same records", file=sys.stderr)
        if args.strict:
            return 1
    try:
        print(f"native query runner: {build_query(args.force).relative_to(HERE.parent.parent)}")
    except (OSError, subprocess.CalledProcessError, RuntimeError, tarfile.TarError, importlib.metadata.PackageNotFoundError) as exc:
        print(f"native query runner not built ({exc}); rdx reads py-tree-sitter's matches, which gives the same records", file=sys.stderr)
        return 1 if args.strict else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
