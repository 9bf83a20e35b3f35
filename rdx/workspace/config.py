"""Workspace configuration: which files a project indexes.

Read from ``rdx.toml`` at the project root, or else the ``[tool.rdx]`` table of
``pyproject.toml`` (both decoded with msgspec). Keys: ``include`` and ``exclude`` (gitignore-style
globs relative to the root; with ``include`` set only matching files are indexed),
``max_file_size`` (bytes, or a string such as ``"2MB"``; default 2 MB; larger files are
reported and skipped), ``load_paths`` (extra directories, relative to the root, indexed too;
each is a root of the project, so a symlink into one is not ``outside-project``, see
``rdx.workspace.files.ProjectRoots``), ``gems`` (default true: index the gems ``Gemfile.lock`` locks, see ``rdx.workspace.dependencies``)
and ``entry_points`` (files, relative to the root, that Ruby loads first, in this order: the
load order walks their requires before any other file's; see ``rdx.ruby.resolve.order``).
A malformed file is a one-line error naming the file and the key.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import msgspec

from rdx.model.errors import InvalidArgumentError
from rdx.workspace.opening import read_regular

if TYPE_CHECKING:
    import pathspec  # Imported by the specs below when a configuration has patterns.

__all__ = ["WorkspaceConfig", "load_config", "DEFAULT_MAX_FILE_SIZE"]

DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?i?b?)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2, "mib": 1024**2, "g": 1024**3, "gb": 1024**3, "gib": 1024**3}


class _Raw(msgspec.Struct, forbid_unknown_fields=True):
    include: list[str] = []
    exclude: list[str] = []
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE
    load_paths: list[str] = []
    gems: bool = True
    entry_points: list[str] = []
    daemon: bool = True


class WorkspaceConfig(msgspec.Struct, frozen=True):
    """Resolved settings; ``source`` names the file they came from (None: defaults)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    load_paths: tuple[str, ...] = ()
    # Index the gems Gemfile.lock locks (rdx.workspace.dependencies) when ``Graph.open`` opens the root.
    gems: bool = True
    entry_points: tuple[str, ...] = ()
    # Whether ``rdx`` commands on this project may answer through its resident server
    # (``rdx_resident``; the client reads the key itself, without importing this module).
    daemon: bool = True
    source: str | None = None

    def include_spec(self) -> pathspec.PathSpec | None:
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(self.include) if self.include else None

    def exclude_spec(self) -> pathspec.PathSpec | None:
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(self.exclude) if self.exclude else None

    def keeps(self, path: str, root: str) -> bool:
        """Whether the include/exclude globs keep ``path`` (under the project ``root``); a
        file outside the root (a load path) is kept."""
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel.startswith("../"):
            return True
        include, exclude = self.include_spec(), self.exclude_spec()
        return (include is None or include.match_file(rel)) and not (exclude is not None and exclude.match_file(rel))


def _size(value: int | str, source: str) -> int:
    if isinstance(value, int):
        if value <= 0:
            raise InvalidArgumentError(f"{source}: max_file_size must be positive, got {value}")
        return value
    m = _SIZE.match(value)
    if not m or m.group(2) is not None and m.group(2).lower() not in _UNITS:
        raise InvalidArgumentError(f"{source}: max_file_size {value!r} is not a size such as 2000000 or \"2MB\"")
    return int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])


def load_config(root: str) -> WorkspaceConfig:
    """The configuration of the project at ``root`` (defaults when there is none)."""
    root_dir = root if os.path.isdir(root) else os.path.dirname(os.path.abspath(root))
    rdx_toml = os.path.join(root_dir, "rdx.toml")
    pyproject = os.path.join(root_dir, "pyproject.toml")
    raw: _Raw | None = None
    source = None

    try:
        if os.path.exists(rdx_toml):
            source = rdx_toml
            raw = msgspec.toml.decode(read_regular(rdx_toml), type=_Raw)
        elif os.path.exists(pyproject):
            data = msgspec.toml.decode(read_regular(pyproject))
            table = data.get("tool", {}).get("rdx") if isinstance(data, dict) else None
            if table is not None:
                source = pyproject + " [tool.rdx]"
                raw = msgspec.convert(table, type=_Raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise InvalidArgumentError(f"{source or pyproject}: {exc}") from None
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read {source or pyproject}: {exc.strerror or exc}") from None
    if raw is None:
        return WorkspaceConfig()
    assert source is not None
    return WorkspaceConfig(
        include=tuple(raw.include),
        exclude=tuple(raw.exclude),
        max_file_size=_size(raw.max_file_size, source),
        load_paths=tuple(os.path.normpath(os.path.join(root_dir, p)) for p in raw.load_paths),
        gems=raw.gems,
        entry_points=tuple(os.path.normpath(os.path.join(root_dir, p)) for p in raw.entry_points),
        daemon=raw.daemon,
        source=source,
    )
