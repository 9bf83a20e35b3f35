"""Imports resolved to files of the project, by each language's own rules, without any I/O.

``ImportResolver(files, layout).resolve(language, importer, imp)`` answers which of the
project's ``files`` an ``Import`` (as the extractors record it) refers to. Everything it
knows is the list of files and the ``Layout`` read beforehand (``rdx.languages.layout``): it
never touches the file system, so the same inputs give the same answer in any process.
Dictionaries of the files by directory and by name are built once, in ``__init__``.

An import that does not resolve to a file of the project (a third-party package, a standard
library outside the project, a C# namespace) gives no files: nothing is guessed, and where a
name could mean several files equally (two roots both defining ``utils``), it stays
unresolved too. Per language (``files`` is what the import's names are looked up in,
``names`` maps an imported name that is itself a module file to that file):

- Python: the module's file (``pkg/mod/__init__.py``, else ``pkg/mod.py`` or its ``.pyi``),
  relative imports counted from the importer's package (never above its top-level package);
  absolute ones through the module
  names the project's packages give (``src/pkg/mod.py`` is ``pkg.mod`` when ``src`` holds no
  ``__init__.py``), preferring the importer's own root, then namespace packages under the
  importer's root and the layout's roots. ``names``: for ``from pkg import mod``,
  ``mod`` -> ``pkg/mod.py`` when that file exists.
- Go: every non-test ``.go`` file of the package directory, found through the longest module
  path of a go.mod that prefixes the import path, then the ``vendor`` directory of the
  importer's module, then Go's own source tree (a go.mod with ``module std``) for a path whose
  first element has no dot (``net/http``). Build constraints are not read: all files count.
- JavaScript and TypeScript: a relative path, or a bare one through ``paths`` then
  ``baseUrl`` of the nearest enclosing tsconfig.json/jsconfig.json, probed as written, with
  an extension, then as a directory (its package.json's ``main``, else its ``index``);
  TypeScript's extensions come first from a TypeScript file (where ``./x.js`` means ``x.ts``
  first), JavaScript's from a JavaScript file. Bare package names (``node_modules``) are not
  resolved.
- Rust: a ``mod foo;`` (an import without names or alias, see ``specs/rust.py``) to
  ``foo.rs`` or ``foo/mod.rs`` beside the declaring module (in ``a/`` for a non-``mod.rs``
  file ``a.rs``, in the crate root's directory for a crate root), or to its ``#[path]`` file;
  a ``use`` path starting with ``crate``, ``self``, ``super``, a module declared beside the
  importer, or the library name of a crate of the project (``use regex::Regex`` in regex's
  own tests, another member of a workspace: its ``src/lib.rs``), to the file of the longest
  prefix of its module path that is a module file (``use crate::a::Item`` -> ``a.rs``;
  ``names`` has an imported name that is a module file itself). Crate roots: ``src/lib.rs``, ``src/main.rs``, ``build.rs``, ``src/bin/*.rs`` and
  ``tests``/``benches``/``examples`` files of a Cargo.toml's directory (a ``[lib] path``
  elsewhere is not followed). Paths through crates outside the project (``std``,
  ``serde::``) are not resolved.
- C and C++: ``#include "x"`` beside the including file, then in the layout's include
  directories (the one nearest the importer when several have it); ``#include <x>`` in the
  include directories only.
- Java: the class file whose path ends with the import's package path (``com/foo/Bar.java``,
  a nested or static member's outer class), every class of the package for a wildcard.
- PHP: ``require``/``include`` of a literal path (relative to the importer, or
  ``__DIR__ . "/x.php"``); a ``use`` to the one file whose path ends with the namespace path,
  dropping leading namespace segments as PSR-4 does (``App\\Models\\User`` ->
  ``src/Models/User.php``), when exactly one file matches.
- C#: not resolved (a namespace names no file).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from rdx.languages.import_rust import NO_IMPORT, ResolvedImport, RustImports
from rdx.languages.layout import JsConfig, Layout
from rdx.languages.symbols import Import

__all__ = ["ImportResolver", "ResolvedImport"]


_TS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs", ".json", ".ts", ".tsx", ".d.ts", ".mts", ".cts")
# TypeScript's ESM style imports the compiled name: ``./x.js`` means ``x.ts`` in the sources.
_TS_FOR_JS = {".js": (".ts", ".tsx", ".d.ts"), ".jsx": (".tsx",), ".mjs": (".mts", ".d.mts"), ".cjs": (".cts", ".d.cts")}


def _py_rank(path: str) -> tuple[bool, bool]:
    """Which of two files of one module Python imports: a package's ``__init__`` first, a
    source file before a stub (smaller ranks first)."""
    name = os.path.basename(path)
    return (not name.startswith("__init__."), name.endswith(".pyi"))


class ImportResolver(RustImports):
    """Resolves imports against one set of files and a layout (see the module docstring)."""

    def __init__(self, files: Iterable[str], layout: Layout) -> None:
        self._layout = layout
        self._files: set[str] = set()
        # Directory -> names of the files directly in it; every ancestor of such a directory
        # is in ``_dirs`` (a namespace package or a Go module root may hold no file itself).
        self._by_dir: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        for path in files:
            path = os.path.normpath(path)
            if path in self._files:
                continue
            self._files.add(path)
            directory, name = os.path.split(path)
            self._by_dir.setdefault(directory, []).append(name)
            self._by_name.setdefault(name, []).append(path)
        self._dirs: set[str] = set()
        for directory in self._by_dir:
            while directory not in self._dirs:
                self._dirs.add(directory)
                parent = os.path.dirname(directory)
                if parent == directory:
                    break
                directory = parent
        self._crates = layout.crates
        self._include_rank = {d: i for i, d in reversed(list(enumerate(layout.include_dirs)))}
        self._crates_named: dict[str, list[str]] = {}
        for directory, crate_name in sorted(layout.crates.items()):
            if crate_name:
                self._crates_named.setdefault(crate_name, []).append(directory)
        self._go_std = sorted(d for d, m in layout.go_modules.items() if m == "std")
        # Built on first use: a project without Python or Rust never pays for them.
        self._py_modules: dict[str, list[str]] | None = None
        self._py_roots: dict[str, str] = {}
        self._crate_roots: dict[str, str | None] = {}
        self._dirs_by_name: dict[str, list[str]] | None = None

    def resolve(self, language: str, importer: str, imp: Import) -> ResolvedImport:
        """The files ``imp``, written in the file ``importer``, refers to (see the module
        docstring for each language's rules)."""
        importer = os.path.normpath(importer)
        if language == "python":
            return self._python(importer, imp)
        if language == "go":
            return self._go(importer, imp.module)
        if language in ("javascript", "typescript", "tsx"):
            return self._files_of(self._javascript(importer, imp.module))
        if language == "rust":
            return self._rust(importer, imp)
        if language in ("c", "cpp"):
            return self._files_of(self._include(importer, imp.module, imp.system))
        if language == "java":
            return self._java(imp)
        if language == "php":
            return self._php(importer, imp)
        return NO_IMPORT

    # -- Python --------------------------------------------------------------------------

    def _py_module_file(self, base: str) -> str | None:
        """``base`` (a path without extension) as a module: its package's ``__init__``, else
        its file (a package wins over a module of the same name, as in Python's import)."""
        return self._first((os.path.join(base, "__init__.py"), os.path.join(base, "__init__.pyi"), base + ".py", base + ".pyi"))

    def _py_root(self, directory: str) -> str:
        """The directory above the outermost package holding ``directory`` (``directory``
        itself when it is no package): where Python's path must point to import from it."""
        found = self._py_roots.get(directory)
        if found is None:
            current = directory
            while "__init__.py" in self._by_dir.get(current, ()) or "__init__.pyi" in self._by_dir.get(current, ()):
                parent = os.path.dirname(current)
                if parent == current:
                    break
                current = parent
            found = self._py_roots[directory] = current
        return found

    def _py_index(self) -> dict[str, list[str]]:
        """Dotted module name -> the files that define it, one per root (each file named
        from its own root). In one root a package wins over a module file of the same name,
        and a ``.py`` over its ``.pyi`` stub, as Python's import does."""
        if self._py_modules is None:
            by_root: dict[str, dict[str, str]] = {}
            for directory, names in self._by_dir.items():
                root = self._py_root(directory)
                package = os.path.relpath(directory, root).replace(os.sep, ".") if directory != root else ""
                for name in names:
                    stem, extension = os.path.splitext(name)
                    if extension not in (".py", ".pyi") or "." in stem:
                        continue
                    module = package if stem == "__init__" else f"{package}.{stem}" if package else stem
                    if not module:
                        continue
                    path = os.path.join(directory, name)
                    roots = by_root.setdefault(module, {})
                    if root not in roots or _py_rank(path) < _py_rank(roots[root]):
                        roots[root] = path
            self._py_modules = {module: sorted(roots.values()) for module, roots in by_root.items()}
        return self._py_modules

    def _python(self, importer: str, imp: Import) -> ResolvedImport:
        module = imp.module
        directory = os.path.dirname(importer)
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = directory
            for _ in range(level - 1):
                parent = os.path.dirname(base)
                if parent == base:
                    return NO_IMPORT
                base = parent
            root = self._py_root(directory)
            if root != directory and not base.startswith(root + os.sep):
                return NO_IMPORT  # Beyond the top-level package: an error in Python.
            rest = module[level:]
            target = os.path.join(base, *rest.split(".")) if rest else base
            found = (
                self._first((os.path.join(target, "__init__.py"), os.path.join(target, "__init__.pyi")))
                if not rest
                else self._py_module_file(target)
            )
            package_dir: str | None = target
        else:
            found, package_dir = self._py_absolute(directory, module)
        names: dict[str, str] = {}
        if package_dir is not None and (found is None or os.path.basename(found).startswith("__init__.")):
            for imported, _local in imp.names:
                if imported != "*":
                    submodule = self._py_module_file(os.path.join(package_dir, imported))
                    if submodule is not None:
                        names[imported] = submodule
        if found is None and not names:
            return NO_IMPORT
        return ResolvedImport([found] if found is not None else [], names)

    def _py_absolute(self, directory: str, module: str) -> tuple[str | None, str | None]:
        """An absolute module's file and, when it is a package, its directory."""
        root = self._py_root(directory)
        candidates = self._py_index().get(module, [])
        if len(candidates) > 1:
            # Several roots define it: the importer's own root decides, else nothing does.
            candidates = [c for c in candidates if self._py_root(os.path.dirname(c)) == root]
        elif candidates and "." not in module and not os.path.basename(candidates[0]).startswith("__init__."):
            # A loose top-level module is importable from its own directory only: a
            # ``json.py`` among a project's scripts is not what ``import json`` elsewhere means.
            if self._py_root(os.path.dirname(candidates[0])) != root:
                candidates = []
        if len(candidates) == 1:
            found = candidates[0]
            return found, os.path.dirname(found) if os.path.basename(found).startswith("__init__.") else None
        # Namespace packages (directories without __init__.py) under the importer's root or a
        # project root.
        parts = module.split(".")
        for base in [root, *self._layout.roots]:
            target = os.path.join(base, *parts)
            found_file = self._py_module_file(target)
            if found_file is not None or target in self._dirs:
                return found_file, target if target in self._dirs else None
        return None, None

    # -- Go ------------------------------------------------------------------------------

    def _go_package(self, directory: str) -> list[str]:
        names = self._by_dir.get(directory, ())
        return sorted(os.path.join(directory, n) for n in names if n.endswith(".go") and not n.endswith("_test.go"))

    def _go(self, importer: str, path: str) -> ResolvedImport:
        if not path or path.startswith((".", "/")):
            return NO_IMPORT
        modules = self._layout.go_modules
        own = self._enclosing(os.path.dirname(importer), modules)
        # The longest module path that prefixes the import path; the importer's own module
        # first when several directories declare it.
        best: list[tuple[int, bool, str]] = []
        for directory, module in modules.items():
            if module != "std" and (path == module or path.startswith(module + "/")):
                best.append((len(module), directory == own, directory))
        if best:
            best.sort(reverse=True)
            length = best[0][0]
            top = [b for b in best if b[0] == length]
            if len(top) == 1 or top[0][1]:
                package = os.path.join(top[0][2], path[length + 1 :]) if len(path) > length else top[0][2]
                return ResolvedImport(self._go_package(package))
            return NO_IMPORT
        if own is not None:
            vendored = self._go_package(os.path.join(own, "vendor", path))
            if vendored:
                return ResolvedImport(vendored)
        if "." not in path.split("/", 1)[0] and len(self._go_std) == 1:
            return ResolvedImport(self._go_package(os.path.join(self._go_std[0], path)))
        return NO_IMPORT

    # -- JavaScript and TypeScript ---------------------------------------------------------

    def _javascript(self, importer: str, specifier: str) -> str | None:
        typescript = importer.endswith((".ts", ".tsx", ".mts", ".cts"))
        directory = os.path.dirname(importer)
        if specifier in (".", "..") or specifier.startswith(("./", "../")):
            return self._js_probe(os.path.normpath(os.path.join(directory, specifier)), typescript)
        if specifier.startswith("/"):
            return self._js_probe(os.path.normpath(specifier), typescript)
        if not specifier:
            return None
        configs = self._layout.js_configs
        nearest = self._enclosing(directory, configs)
        if nearest is None:
            return None
        return self._js_config(configs[nearest], specifier, typescript)

    def _js_config(self, config: JsConfig, specifier: str, typescript: bool) -> str | None:
        """``paths`` first (an exact pattern, else the wildcard pattern with the longest
        prefix, as TypeScript picks), each target in turn; then ``baseUrl``."""
        matched: tuple[int, str, str] | None = None  # (prefix length, pattern, what * stands for)
        for pattern in config.paths:
            if pattern == specifier:
                matched = (len(pattern) + 1, pattern, "")
                break
            head, star, tail = pattern.partition("*")
            if star and specifier.startswith(head) and specifier.endswith(tail) and len(specifier) >= len(head) + len(tail):
                if matched is None or len(head) > matched[0]:
                    matched = (len(head), pattern, specifier[len(head) : len(specifier) - len(tail)])
        if matched is not None:
            for target in config.paths[matched[1]]:
                found = self._js_probe(os.path.normpath(os.path.join(config.paths_base, target.replace("*", matched[2]))), typescript)
                if found is not None:
                    return found
        if config.base_url is not None:
            return self._js_probe(os.path.normpath(os.path.join(config.base_url, specifier)), typescript)
        return None

    def _js_probe(self, base: str, typescript: bool) -> str | None:
        """``base`` as a file, with an extension, or as a directory's index file. From
        TypeScript, ``./x.js`` means ``x.ts`` before ``x.js`` (TypeScript's own order)."""
        stem, extension = os.path.splitext(base)
        if typescript and extension in _TS_FOR_JS:
            found = self._first(stem + e for e in _TS_FOR_JS[extension])
            if found is not None:
                return found
        if base in self._files:
            return base
        extensions = _TS_EXTENSIONS if typescript else _JS_EXTENSIONS
        found = self._first(base + e for e in extensions)
        if found is None and base in self._dirs:
            # A directory: its package's ``main`` (a file, with an extension, or a directory's
            # index; not another package's main: one level, as Node reads it), else its index.
            main = self._layout.js_packages.get(base)
            if main is not None:
                found = self._first([main, *(main + e for e in extensions), *(os.path.join(main, "index") + e for e in extensions)])
            if found is None:
                found = self._first(os.path.join(base, "index") + e for e in extensions)
        return found

    # -- C and C++ -----------------------------------------------------------------------

    def _include(self, importer: str, header: str, system: bool) -> str | None:
        if not header:
            return None
        if os.path.isabs(header):
            return self._first([os.path.normpath(header)])
        if not system:
            found = self._first([os.path.normpath(os.path.join(os.path.dirname(importer), header))])
            if found is not None:
                return found
        relative = os.path.normpath(header)
        if relative.startswith(".."):
            hits = [c for c in (os.path.normpath(os.path.join(d, relative)) for d in self._layout.include_dirs) if c in self._files]
        else:
            # The files with the header's name whose directory, less the header's own path, is
            # an include directory: a few lookups however many include directories there are.
            suffix = os.sep + relative
            hits = [
                f
                for f in self._by_name.get(os.path.basename(relative), ())
                if f.endswith(suffix) and f[: -len(suffix)] in self._include_rank
            ]
        if len(hits) <= 1:
            return hits[0] if hits else None
        # The include directory nearest the importer (sharing the longest path with it), then
        # the first in the layout's order.
        return min(hits, key=lambda c: (-len(os.path.commonpath([c, importer])), self._include_rank.get(c[: -len(relative) - 1], 0)))

    # -- Java ----------------------------------------------------------------------------

    def _dirs_named(self) -> dict[str, list[str]]:
        """Directory name -> the directories holding files that have it (for package paths)."""
        if self._dirs_by_name is None:
            table: dict[str, list[str]] = {}
            for directory in self._by_dir:
                table.setdefault(os.path.basename(directory), []).append(directory)
            self._dirs_by_name = table
        return self._dirs_by_name

    def _by_suffix(self, parts: list[str], extension: str) -> list[str]:
        """Files whose path ends with ``a/b/C.java`` for ``["a", "b", "C"]``."""
        suffix = os.sep + os.path.join(*parts) + extension
        return sorted(f for f in self._by_name.get(parts[-1] + extension, ()) if f.endswith(suffix))

    def _java(self, imp: Import) -> ResolvedImport:
        parts = [p for p in imp.module.split(".") if p]
        wildcard = any(imported == "*" for imported, _ in imp.names)
        if wildcard:
            package = os.sep + os.path.join(*parts) if parts else ""
            if package:
                directories = sorted(d for d in self._dirs_named().get(parts[-1], ()) if d.endswith(package))
                classes = [os.path.join(d, n) for d in directories for n in sorted(self._by_dir[d]) if n.endswith(".java")]
                if classes:
                    return ResolvedImport(classes)
        else:
            parts += [imported for imported, _ in imp.names[:1]]
        # The class itself, else the outer class of a nested class or static member; at
        # least a package and a class, so that a lone ``Bar.java`` somewhere is no match.
        for length in range(len(parts), 1, -1):
            found = self._by_suffix(parts[:length], ".java")
            if found:
                return ResolvedImport(found)
        return NO_IMPORT

    # -- PHP -----------------------------------------------------------------------------

    def _php(self, importer: str, imp: Import) -> ResolvedImport:
        module = imp.module
        if not module.startswith("\\"):
            # require/include: a path relative to the importer (PHP's include_path falls back
            # to the calling script's directory), or ``__DIR__ . "/x.php"``.
            if module.startswith("__DIR__"):
                module = module[len("__DIR__") :].lstrip("/")
            path = module if os.path.isabs(module) else os.path.join(os.path.dirname(importer), module)
            return self._files_of(self._first([os.path.normpath(path)]))
        parts = [p for p in module.split("\\") if p] + [imported for imported, _ in imp.names[:1] if imported != "*"]
        for start in range(0, len(parts) - 1):
            found = self._by_suffix(parts[start:], ".php")
            if len(found) == 1:
                return ResolvedImport(found)
            if found:
                return NO_IMPORT  # Several files could be meant.
        return NO_IMPORT
