"""Cross-repository links: which fleet repositories each repository's ``Gemfile.lock`` locks.
A ``PATH`` source whose directory is another repository's checkout, a ``GIT`` source whose
remote is another repository's ``git`` URL (or its path), or a locked gem whose name is a gemspec
another repository builds. It owns reading lockfiles and gemspec names for that purpose only;
the graph loads a ``PATH`` gem from its directory by itself, so A's graph then holds B's
declarations at B's paths, and ``place`` names the repository of such a path.
"""

from __future__ import annotations

import glob
import os
import re

import msgspec

from rdx_fleet.manifest import Manifest

__all__ = ["Link", "links_of", "place"]

_SPEC = re.compile(r"^    ([A-Za-z0-9_.-]+) \(")
_GEMSPEC_NAME = re.compile(r"""\.name\s*=\s*["']([A-Za-z0-9_.-]+)["']""")


class Link(msgspec.Struct, frozen=True):
    """Repository ``source`` locks gem ``gem`` that repository ``target`` builds, through ``how``
    (``path``, ``git`` or ``gemspec``)."""

    source: str
    target: str
    gem: str
    how: str


def _lock_sections(text: str) -> list[tuple[str, str | None, list[str]]]:
    """(section, remote, gem names in its specs) for each section of a lockfile."""
    out: list[tuple[str, str | None, list[str]]] = []
    for line in text.splitlines():
        if line and not line.startswith(" "):
            out.append((line.strip(), None, []))
        elif out and line.startswith("  remote: "):
            section, _, names = out[-1]
            out[-1] = (section, line.split(":", 1)[1].strip(), names)
        elif out:
            match = _SPEC.match(line)
            if match:
                out[-1][2].append(match.group(1))
    return out


def gemspec_names(path: str) -> list[str]:
    """The gem names the gemspecs at the top of ``path`` declare."""
    names = []
    for spec in sorted(glob.glob(os.path.join(path, "*.gemspec"))):
        try:
            with open(spec, encoding="utf-8", errors="replace") as f:
                match = _GEMSPEC_NAME.search(f.read())
        except OSError:
            continue
        names.append(match.group(1) if match else os.path.basename(spec)[: -len(".gemspec")])
    return names


def links_of(manifest: Manifest) -> list[Link]:
    """Every link between repositories of ``manifest``, sorted."""
    by_path = {os.path.realpath(r.path): r.name for r in manifest.repositories}
    by_git = {r.git: r.name for r in manifest.repositories if r.git}
    by_gem = {name: r.name for r in manifest.repositories for name in gemspec_names(r.path)}
    found: set[Link] = set()
    for repo in manifest.repositories:
        try:
            with open(os.path.join(repo.path, "Gemfile.lock"), encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for section, remote, names in _lock_sections(text):
            for gem in names:
                target, how = None, "gemspec"
                if section == "PATH" and remote is not None:
                    target, how = by_path.get(os.path.realpath(os.path.join(repo.path, remote))), "path"
                elif section == "GIT" and remote is not None:
                    target, how = by_git.get(remote) or by_path.get(os.path.realpath(remote.removeprefix("file://"))), "git"
                if target is None:
                    target, how = by_gem.get(gem), "gemspec"
                if target is not None and target != repo.name and by_gem.get(gem, target) == target:
                    found.add(Link(repo.name, target, gem, how))
    return sorted(found, key=lambda link: (link.source, link.target, link.gem))


def place(path: str, roots: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(repository, path relative to it) of the absolute ``path``; ``roots`` is (name, real
    root) pairs, the longest roots first so a repository nested in another wins."""
    for name, root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return name, os.path.relpath(path, root)
    return None
