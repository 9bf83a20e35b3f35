"""Shared by ``rdx.languages.importing``'s resolver: the answer (``ResolvedImport``), lookups
over the project's files, and Rust's rules (``mod foo;`` files, crate roots and names; see
the ``rdx.languages.importing`` docstring). ``ImportResolver`` builds on ``RustImports``."""

from __future__ import annotations

import os
from collections.abc import Container, Iterable

import msgspec

from rdx.languages.symbols import Import

__all__ = ["NO_IMPORT", "ResolvedImport", "RustImports"]


class ResolvedImport(msgspec.Struct, frozen=True):
    """The project files an import refers to (absolute paths; empty when none), and, for an
    imported name that is itself a module file, that file (``from pkg import mod``)."""

    files: list[str] = []
    names: dict[str, str] = {}


NO_IMPORT = ResolvedImport()

_CRATE_TARGET_DIRS = ("tests", "benches", "examples")


class RustImports:
    """File lookups and Rust's import rules; ``ImportResolver`` sets the tables in its
    constructor."""

    _files: set[str]
    _crates: dict[str, str]
    _crates_named: dict[str, list[str]]
    _crate_roots: dict[str, str | None]

    @staticmethod
    def _files_of(path: str | None) -> ResolvedImport:
        return ResolvedImport([path]) if path is not None else NO_IMPORT

    def _first(self, candidates: Iterable[str]) -> str | None:
        for candidate in candidates:
            if candidate in self._files:
                return candidate
        return None

    @staticmethod
    def _enclosing(directory: str, table: Container[str]) -> str | None:
        """The nearest directory at or above ``directory`` that is in ``table``."""
        while True:
            if directory in table:
                return directory
            parent = os.path.dirname(directory)
            if parent == directory:
                return None
            directory = parent

    # -- Rust ----------------------------------------------------------------------------

    def _crate_root(self, path: str) -> str | None:
        """The root file of the crate ``path`` belongs to (see the module docstring)."""
        if path in self._crate_roots:
            return self._crate_roots[path]
        found: str | None = None
        crate = self._enclosing(os.path.dirname(path), self._crates)
        if crate is not None:
            parts = os.path.relpath(path, crate).split(os.sep)
            if parts in (["src", "lib.rs"], ["src", "main.rs"], ["build.rs"]):
                found = path
            elif len(parts) == 2 and parts[0] in _CRATE_TARGET_DIRS or len(parts) == 3 and parts[:2] == ["src", "bin"]:
                found = path
            elif len(parts) >= 3 and parts[0] in _CRATE_TARGET_DIRS:
                found = self._first([os.path.join(crate, parts[0], parts[1], "main.rs")])
            elif len(parts) >= 4 and parts[:2] == ["src", "bin"]:
                found = self._first([os.path.join(crate, "src", "bin", parts[2], "main.rs")])
            elif parts[0] == "src":
                found = self._first([os.path.join(crate, "src", "lib.rs"), os.path.join(crate, "src", "main.rs")])
        else:
            # No Cargo.toml listed: the nearest ``src`` directory with a lib.rs or main.rs.
            directory = os.path.dirname(path)
            while found is None:
                if os.path.basename(directory) == "src":
                    found = self._first([os.path.join(directory, "lib.rs"), os.path.join(directory, "main.rs")])
                parent = os.path.dirname(directory)
                if parent == directory:
                    break
                directory = parent
        self._crate_roots[path] = found
        return found

    def _rust_dir(self, module_file: str) -> str:
        """Where the modules a file declares live: beside a ``mod.rs`` or a crate root, in
        ``a/`` for another file ``a.rs``."""
        if os.path.basename(module_file) == "mod.rs" or self._crate_root(module_file) == module_file:
            return os.path.dirname(module_file)
        return os.path.splitext(module_file)[0]

    def _rust_child(self, directory: str, name: str) -> str | None:
        return self._first((os.path.join(directory, name + ".rs"), os.path.join(directory, name, "mod.rs")))

    def _rust_parent(self, module_file: str) -> str | None:
        """The file of the module that declares ``module_file``'s module (None above a crate root)."""
        root = self._crate_root(module_file)
        if root == module_file:
            return None
        directory = os.path.dirname(module_file)
        if os.path.basename(module_file) == "mod.rs":
            directory = os.path.dirname(directory)
        if root is not None and os.path.dirname(root) == directory:
            return root
        return self._first((os.path.join(directory, "mod.rs"), directory + ".rs"))

    def _rust(self, importer: str, imp: Import) -> ResolvedImport:
        module = imp.module
        if not imp.names and imp.alias is None:
            return self._files_of(self._rust_mod(importer, module))
        parts = module.split("::")
        first = parts[0]
        current: str | None
        if first in ("crate", "$crate"):
            current, rest = self._crate_root(importer), parts[1:]
        elif first in ("self", "super"):
            current, rest = importer, parts
        elif first and not first.startswith("::") and self._rust_child(self._rust_dir(importer), first) is not None:
            current, rest = importer, parts  # A module declared beside the importer (2018 paths).
        else:
            current, rest = self._rust_library(importer, first.removeprefix("::")), parts[1:]
            if current is None:
                return NO_IMPORT  # A crate outside the project.
        complete = True
        for part in rest:
            if current is None:
                return NO_IMPORT
            if part == "super":
                current = self._rust_parent(current)
            elif part != "self":
                child = self._rust_child(self._rust_dir(current), part)
                if child is None:
                    complete = False
                    break
                current = child
        if current is None:
            return NO_IMPORT
        names: dict[str, str] = {}
        if complete:
            directory = self._rust_dir(current)
            for imported, _local in imp.names:
                child = self._rust_child(directory, imported) if imported != "*" else None
                if child is not None:
                    names[imported] = child
        return ResolvedImport([current], names)

    def _rust_library(self, importer: str, name: str) -> str | None:
        """The ``src/lib.rs`` of the project's crate whose library is ``name``: the importer's
        own crate when several have the name (a vendored copy), else the only one."""
        directories = self._crates_named.get(name, [])
        if len(directories) > 1:
            own = self._enclosing(os.path.dirname(importer), self._crates)
            directories = [d for d in directories if d == own]
        if len(directories) != 1:
            return None
        return self._first([os.path.join(directories[0], "src", "lib.rs")])

    def _rust_mod(self, importer: str, module: str) -> str | None:
        """``self::a::foo`` (``mod foo;`` inside ``mod a { }``) or a ``#[path]`` file."""
        if not module.startswith("self::"):
            return self._first([os.path.normpath(os.path.join(os.path.dirname(importer), module))])
        *inline, name = module.split("::")[1:]
        return self._rust_child(os.path.join(self._rust_dir(importer), *inline), name)
