"""The project's dependencies as library documents (issue 14, "The project's gems").

``Graph.open(root)`` calls ``load_dependencies``: the gems ``Gemfile.lock`` locks are found where
they are installed (``rdx.workspace.gems``), and their Ruby files become documents marked with
``FileResult.library`` (``"activerecord-6.1.7.10"``). Each gem's results come from the user-level
cache (``rdx.cache.gems``) when that gem version was parsed before, by any project; the others
are parsed in the worker pool in one batch and cached. Library documents are not saved in the
project's snapshot (the gem cache holds them) and are not part of the project's text index, map
or dead-code candidates; search and the MCP tools can filter them out.

Problems (a missing gem, a version other than the locked one, an unreadable lockfile, an
unwritable cache, a damaged cache entry, removed and parsed again) are warnings on ``Gemfile.lock``; they never stop the project from opening.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import msgspec

from rdx.cache.gems import gem_cache_dir, load_gem, save_gem
from rdx.model.public import Diagnostic
from rdx.model.records import FileResult
from rdx.model.store import Unread
from rdx.workspace.config import WorkspaceConfig
from rdx.workspace.files import FileEntry, collect_files, is_ruby_file, path_to_uri, read_regular
from rdx.workspace.gems import LOCKFILE, InstalledGem, locate, read_lockfile
from rdx.workspace.pool import discover_files

__all__ = ["DependencyLoad", "PlannedGem", "load_dependencies", "plan_dependencies"]


class DependencyLoad(msgspec.Struct, kw_only=True):
    """What ``load_dependencies`` found: documents, problems and counts for ``open_stats``."""

    # Documents from the gem cache are ``Unread`` stubs, decoded when first read (issue 23).
    documents: list[FileResult | Unread] = []
    problems: list[Diagnostic] = []
    gems: int = 0
    cached: int = 0
    parsed_files: int = 0


class PlannedGem(msgspec.Struct, frozen=True):
    """A gem ``Graph.open`` would index: its name, the version installed (and indexed), the
    version the lockfile locks, and how many of its files would be indexed."""

    name: str
    version: str
    locked: str
    files: int


def plan_dependencies(root: str, config: WorkspaceConfig, *, project: frozenset[str] = frozenset(), use_ruby: bool = True) -> tuple[list[PlannedGem], list[Diagnostic]]:
    """What ``load_dependencies`` would index for ``root``, without parsing or caching
    anything: each gem found and its file count (files of ``project``, URIs the project
    indexes itself, and files an earlier gem claimed are not counted again), and the same
    problems (missing gems, other versions, an unreadable lockfile)."""
    lockfile = os.path.join(root, LOCKFILE)
    if not config.gems or not os.path.isfile(lockfile):
        return [], []
    try:
        locked = read_lockfile(read_regular(lockfile).decode("utf-8", "replace"))
    except OSError as exc:
        return [], [Diagnostic("lockfile-unreadable", f"cannot read {lockfile}: {exc.strerror or exc}", "warning", lockfile)]
    installed, problems = locate(root, locked, use_ruby=use_ruby)
    versions = {g.name: g.version for g in locked}
    claimed: set[str] = set(project)
    planned: list[PlannedGem] = []
    for gem in installed:
        entries = [e for e in _entries(gem) if e.uri not in claimed]
        claimed.update(e.uri for e in entries)
        planned.append(PlannedGem(gem.name, gem.version, versions.get(gem.name, gem.version), len(entries)))
    return planned, [Diagnostic(p.code, p.message, p.severity, lockfile) for p in problems]


def _entries(gem: InstalledGem) -> list[FileEntry]:
    entries: list[FileEntry] = []
    seen: set[str] = set()
    for directory in gem.dirs:
        for entry in collect_files(directory, None, directory, is_ruby_file).files:
            if entry.uri not in seen:
                seen.add(entry.uri)
                entries.append(entry)
    for path in gem.files:
        uri = path_to_uri(path)
        if uri not in seen and os.path.isfile(path):
            seen.add(uri)
            entries.append(FileEntry(os.path.abspath(path), uri))
    return entries


def load_dependencies(
    root: str, config: WorkspaceConfig, *, jobs: int | None = None, progress: Callable[[int], None] | None = None, use_ruby: bool = True
) -> DependencyLoad:
    """Library documents for the gems ``root/Gemfile.lock`` locks (nothing without one, or
    when the configuration says ``gems = false``)."""
    lockfile = os.path.join(root, LOCKFILE)
    out = DependencyLoad()
    if not config.gems or not os.path.isfile(lockfile):
        return out
    try:
        locked = read_lockfile(read_regular(lockfile).decode("utf-8", "replace"))
    except OSError as exc:
        out.problems.append(Diagnostic("lockfile-unreadable", f"cannot read {lockfile}: {exc.strerror or exc}", "warning", lockfile))
        return out
    cache = gem_cache_dir()
    installed, problems = locate(root, locked, use_ruby=use_ruby, memo_dir=cache)
    out.problems += [Diagnostic(p.code, p.message, p.severity, lockfile) for p in problems]
    missing: dict[str, tuple[InstalledGem, list[FileEntry]]] = {}
    claimed: set[str] = set()
    for gem in installed:
        locations = gem.dirs + gem.files
        documents, damaged = load_gem(cache, gem.key, locations)
        if damaged is not None:
            out.problems.append(Diagnostic("gem-cache-damaged", damaged, "warning", cache))
        if documents is not None:
            out.cached += 1
            fresh = [d for d in documents if d.uri not in claimed]
            claimed.update(d.uri for d in fresh)
            out.documents += fresh
        else:
            entries = [e for e in _entries(gem) if e.uri not in claimed]
            claimed.update(e.uri for e in entries)
            missing[gem.key] = (gem, entries)
    out.gems = len(installed)
    owner = {e.uri: key for key, (_, entries) in missing.items() for e in entries}
    parsed: dict[str, list[FileResult]] = {key: [] for key in missing}
    every = [e for _, entries in missing.values() for e in entries]
    for result in discover_files(every, jobs=jobs, progress=progress):
        result.library = owner[result.uri]
        parsed[owner[result.uri]].append(result)
    out.parsed_files = len(every)
    for key, results in parsed.items():
        gem = missing[key][0]
        results.sort(key=lambda r: r.uri)
        out.documents += results
        problem = save_gem(cache, key, gem.dirs + gem.files, results)
        if problem is not None:
            out.problems.append(Diagnostic("gem-cache-unwritable", problem, "warning", cache))
    return out
