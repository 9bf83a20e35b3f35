"""Cross-repository links: which fleet repositories each repository's ``Gemfile.lock`` locks.
A ``PATH`` source whose directory is another repository's checkout, a ``GIT`` source whose
remote is another repository's ``git`` URL (or its path), or a locked gem whose name and
version are those of a gemspec another repository builds. For Python (``how = "python"``):
repository A is linked to B when A's requirements (``requirements*.txt``, ``pyproject.toml``'s
``[project] dependencies``, ``setup.cfg``'s ``install_requires``) name the distribution B's
``pyproject.toml``, ``setup.cfg`` or ``setup.py`` builds, or A's Python files import a
top-level package B holds (a directory with ``__init__.py`` at B's top or in ``B/src``) that A
does not hold itself; ``python_roots_of`` says which directories A's graph then opens beside
A's root, so that A's imports resolve into B (``Graph.open([A, B])`` does so). It owns reading lockfiles and
gemspecs for that purpose only. The graph loads a ``PATH`` gem from its directory by itself;
for the others, ``local_gems_of`` says which gems A takes from which checkout, and whoever
opens A's graph sets ``LOCAL_GEMS`` to that (``rdx_fleet.actors.local_gems``), so rdx finds
the gem in B's checkout in place of where it is installed. A's graph then holds B's
declarations at B's paths, and ``place`` names the repository of such a path.
"""

from __future__ import annotations

import configparser
import glob
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec

from rdx_fleet.manifest import Manifest

__all__ = [
    "LOCAL_GEMS", "Link", "gemspecs", "link_commit", "links_of", "local_gems_of", "place", "python_links", "python_packages",
    "python_roots_of", "taking_gems",
]

# The environment variable rdx reads for gems taken from a checkout (``rdx.workspace.gems``).
LOCAL_GEMS = "RDX_LOCAL_GEMS"
_SPEC = re.compile(r"^    ([A-Za-z0-9_.-]+) \(([^)]*)\)")
_GEMSPEC_NAME = re.compile(r"""\.name\s*=\s*["']([A-Za-z0-9_.-]+)["']""")
_GEMSPEC_VERSION = re.compile(r"""\.version\s*=\s*["']([0-9][A-Za-z0-9_.-]*)["']""")
_VERSION_CONSTANT = re.compile(r"""\bVERSION\s*=\s*["']([0-9][A-Za-z0-9_.-]*)["']""")
_SETUP_NAME = re.compile(r"""\bname\s*=\s*["']([A-Za-z0-9_.-]+)["']""")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.-]*)")
_PY_IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import\b|import\s+([A-Za-z_]\w*(?:[\w.]*)(?:\s*,\s*[A-Za-z_][\w.]*)*))", re.MULTILINE)
_PY_SKIP = {".git", ".venv", "venv", "node_modules", ".tox", "build", "dist", "__pycache__", ".rdx"}


class Link(msgspec.Struct, frozen=True):
    """Repository ``source`` locks gem ``gem`` that repository ``target`` builds, through ``how``
    (``path``, ``git`` or ``gemspec``)."""

    source: str
    target: str
    gem: str
    how: str


def _lock_sections(text: str) -> list[tuple[str, str | None, list[tuple[str, str]]]]:
    """(section, remote, (gem name, version) of its specs) for each section of a lockfile."""
    out: list[tuple[str, str | None, list[tuple[str, str]]]] = []
    for line in text.splitlines():
        if line and not line.startswith(" "):
            out.append((line.strip(), None, []))
        elif out and line.startswith("  remote: "):
            section, _, names = out[-1]
            out[-1] = (section, line.split(":", 1)[1].strip(), names)
        elif out:
            match = _SPEC.match(line)
            if match:
                out[-1][2].append((match.group(1), match.group(2).split("-")[0]))
    return out


def gemspecs(path: str) -> list[tuple[str, str | None]]:
    """(gem name, version or None when it is not written as a literal) of each gemspec at the
    top of ``path``; a version given by a constant is looked for as ``VERSION = "..."`` in
    ``lib/**/version.rb``."""
    out: list[tuple[str, str | None]] = []
    for spec in sorted(glob.glob(os.path.join(path, "*.gemspec"))):
        try:
            with open(spec, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        name = _GEMSPEC_NAME.search(text)
        version = _GEMSPEC_VERSION.search(text)
        found = version.group(1) if version else None
        if found is None:
            for candidate in sorted(glob.glob(os.path.join(path, "lib", "**", "version.rb"), recursive=True)):
                try:
                    with open(candidate, encoding="utf-8", errors="replace") as f:
                        constant = _VERSION_CONSTANT.search(f.read())
                except OSError:
                    continue
                if constant:
                    found = constant.group(1)
                    break
        out.append((name.group(1) if name else os.path.basename(spec)[: -len(".gemspec")], found))
    return out


def _normalize(name: str) -> str:
    """A distribution's name as Python packaging compares names (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def python_packages(path: str) -> tuple[set[str], dict[str, str]]:
    """(the normalized distribution names the checkout at ``path`` builds, its top-level
    packages: name -> the directory that holds them, ``path`` or ``path/src``)."""
    names: set[str] = set()
    try:
        project = tomllib.loads(_read(os.path.join(path, "pyproject.toml"))).get("project", {})
    except tomllib.TOMLDecodeError:
        project = {}
    if isinstance(project.get("name"), str):
        names.add(_normalize(project["name"]))
    config = configparser.ConfigParser(interpolation=None)
    try:
        config.read_string(_read(os.path.join(path, "setup.cfg")))
        if config.has_option("metadata", "name"):
            names.add(_normalize(config.get("metadata", "name")))
    except configparser.Error:
        pass
    setup = _SETUP_NAME.search(_read(os.path.join(path, "setup.py")))
    if setup:
        names.add(_normalize(setup.group(1)))
    packages: dict[str, str] = {}
    for base in (path, os.path.join(path, "src")):
        try:
            entries = sorted(os.listdir(base))
        except OSError:
            continue
        for entry in entries:
            if entry.isidentifier() and os.path.isfile(os.path.join(base, entry, "__init__.py")):
                packages.setdefault(entry, base)
    return names, packages


def _requirements(path: str) -> set[str]:
    """The normalized distribution names the checkout at ``path`` requires."""
    lines: list[str] = []
    for req in sorted(glob.glob(os.path.join(path, "requirements*.txt"))):
        lines += [x for x in _read(req).splitlines() if not x.lstrip().startswith(("#", "-"))]
    try:
        pyproject = tomllib.loads(_read(os.path.join(path, "pyproject.toml")))
    except tomllib.TOMLDecodeError:
        pyproject = {}
    project = pyproject.get("project", {})
    lines += [x for x in project.get("dependencies", []) if isinstance(x, str)]
    for extra in (project.get("optional-dependencies") or {}).values():
        lines += [x for x in extra if isinstance(x, str)]
    config = configparser.ConfigParser(interpolation=None)
    try:
        config.read_string(_read(os.path.join(path, "setup.cfg")))
        if config.has_option("options", "install_requires"):
            lines += config.get("options", "install_requires").splitlines()
    except configparser.Error:
        pass
    return {_normalize(m.group(1)) for m in map(_REQUIREMENT.match, lines) if m}


def _imported(path: str) -> set[str]:
    """The top-level modules the Python files of the checkout at ``path`` import (absolute
    imports; ``from . import x`` is relative and names none)."""
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in _PY_SKIP and not d.startswith("."))
        for name in filenames:
            if name.endswith((".py", ".pyi")):
                for match in _PY_IMPORT.finditer(_read(os.path.join(dirpath, name))):
                    if match.group(1):
                        found.add(match.group(1))
                    else:
                        found.update(part.strip().split(".")[0] for part in match.group(2).split(","))
    return found


def python_links(manifest: Manifest) -> list[Link]:
    """Repository A -> B when A requires the distribution B builds, or imports a package B
    holds that A does not; ``gem`` is the distribution's name (or the package's)."""
    built = {r.name: python_packages(r.path) for r in manifest.repositories}
    found: set[Link] = set()
    for repo in manifest.repositories:
        own = built[repo.name][1]
        wanted = _requirements(repo.path)
        imported = _imported(repo.path) if any(built[o][1] for o in built if o != repo.name) else set()
        for other, (names, packages) in built.items():
            if other == repo.name or not packages:
                continue
            by_name = sorted(names & wanted)
            by_import = sorted(p for p in packages if p in imported and p not in own)
            if by_name or by_import:
                found.add(Link(repo.name, other, (by_name or by_import)[0], "python"))
    return sorted(found, key=lambda link: (link.source, link.target, link.gem))


def python_roots_of(manifest: Manifest, links: list[Link]) -> dict[str, list[str]]:
    """For each repository, the directories its graph opens beside its root (where the
    packages of the repositories it links to by Python lie), sorted."""
    out: dict[str, set[str]] = {}
    for link in links:
        if link.how == "python":
            out.setdefault(link.source, set()).update(python_packages(manifest.get(link.target).path)[1].values())
    return {name: sorted(roots) for name, roots in out.items()}


def links_of(manifest: Manifest) -> list[Link]:
    """Every link between repositories of ``manifest``, sorted. A gem matched only by its
    gemspec must have the locked version when the gemspec's version is known (another
    version is another release: the installed one is the right one)."""
    by_path = {os.path.realpath(r.path): r.name for r in manifest.repositories}
    by_git = {r.git: r.name for r in manifest.repositories if r.git}
    by_gem = {name: (r.name, version) for r in manifest.repositories for name, version in gemspecs(r.path)}
    found: set[Link] = set()
    for repo in manifest.repositories:
        try:
            with open(os.path.join(repo.path, "Gemfile.lock"), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for section, remote, specs in _lock_sections(text):
            for gem, version in specs:
                target, how = None, "gemspec"
                if section == "PATH" and remote is not None:
                    target, how = by_path.get(os.path.realpath(os.path.join(repo.path, remote))), "path"
                elif section == "GIT" and remote is not None:
                    target, how = by_git.get(remote) or by_path.get(os.path.realpath(remote.removeprefix("file://"))), "git"
                if target is None:
                    built = by_gem.get(gem)
                    if built is not None and built[1] in (None, version):
                        target, how = built[0], "gemspec"
                if target is not None and target != repo.name and by_gem.get(gem, (target, None))[0] == target:
                    found.add(Link(repo.name, target, gem, how))
    found.update(python_links(manifest))
    return sorted(found, key=lambda link: (link.source, link.target, link.gem))


def local_gems_of(manifest: Manifest, links: list[Link]) -> dict[str, dict[str, str]]:
    """For each repository, the gems it takes from another repository's checkout (gem name ->
    checkout) other than through a ``PATH`` source, which rdx follows by itself."""
    out: dict[str, dict[str, str]] = {}
    for link in links:
        if link.how not in ("path", "python"):
            out.setdefault(link.source, {})[link.gem] = manifest.get(link.target).path
    return out


@contextmanager
def taking_gems(gems: dict[str, str]) -> Iterator[None]:
    """``LOCAL_GEMS`` set to ``gems`` while a graph opens (rdx finds those gems there rather
    than where they are installed), then restored. The variable is process-wide: callers open
    one graph at a time."""
    before = os.environ.get(LOCAL_GEMS)
    if gems:
        os.environ[LOCAL_GEMS] = json.dumps(gems, sort_keys=True)
    else:
        os.environ.pop(LOCAL_GEMS, None)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(LOCAL_GEMS, None)
        else:
            os.environ[LOCAL_GEMS] = before


def link_commit(commit: str, targets: list[str]) -> str:
    """The store key of a repository at ``commit`` that takes gems from repositories at the
    commits ``targets``: the commit alone without links, else the commit and a hash of
    theirs, so a change in a linked repository alone builds a new snapshot."""
    if not targets:
        return commit
    return f"{commit}+{hashlib.blake2b(chr(0).join(sorted(targets)).encode(), digest_size=6).hexdigest()}"


def place(path: str, roots: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(repository, path relative to it) of the absolute ``path``; ``roots`` is (name, real
    root) pairs, the longest roots first so a repository nested in another wins."""
    for name, root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return name, os.path.relpath(path, root)
    return None
