"""The fleet manifest: a TOML file naming the store and the repositories. It owns parsing and
validation (unique names, existing paths) and cloning ``git`` repositories into the store's
checkout cache; it never indexes anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib

import msgspec

import rdx

__all__ = ["Manifest", "Repository", "load_manifest"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class Repository(msgspec.Struct, frozen=True):
    """One repository of the fleet: a unique name and the absolute path of its checkout."""

    name: str
    path: str
    git: str | None = None
    ref: str | None = None


class Manifest(msgspec.Struct, frozen=True):
    """The store (a directory) and the repositories, in name order."""

    store: str
    repositories: tuple[Repository, ...]

    def get(self, name: str) -> Repository:
        for repo in self.repositories:
            if repo.name == name:
                return repo
        raise rdx.NotFoundError(f"no repository named {rdx.excerpt(name)} in the manifest")


def load_manifest(path: str, *, clone: bool = True) -> Manifest:
    """The manifest at ``path``; relative paths are relative to the manifest's directory. A
    ``git`` repository is cloned (or fetched) into ``STORE/.checkouts/<name>`` when ``clone``."""
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except OSError as exc:
        raise rdx.IOFailureError(f"cannot read the manifest {rdx.excerpt(path)}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise rdx.InvalidArgumentError(f"the manifest {rdx.excerpt(path)} is not TOML: {exc}") from None
    base = os.path.dirname(os.path.abspath(path))
    store = raw.get("store")
    if not isinstance(store, str) or not store:
        raise rdx.InvalidArgumentError(f"the manifest {rdx.excerpt(path)} needs store = \"DIRECTORY\"")
    if "://" in store and not store.startswith("file://"):
        raise rdx.InvalidArgumentError(f"store {rdx.excerpt(store)}: only a local directory (or file://) is supported")
    store = os.path.abspath(os.path.join(base, store.removeprefix("file://")))
    repos: list[Repository] = []
    seen: set[str] = set()
    for entry in raw.get("repository", []):
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise rdx.InvalidArgumentError(f"repository name {rdx.excerpt(str(name))} must be letters, digits, '.', '_' or '-'")
        if name in seen:
            raise rdx.InvalidArgumentError(f"repository name {rdx.excerpt(name)} appears twice in the manifest")
        seen.add(name)
        git, ref = entry.get("git"), entry.get("ref")
        if git:
            checkout = os.path.join(store, ".checkouts", name)
            if clone:
                _clone(git, ref, checkout)
            repos.append(Repository(name, checkout, git, ref))
            continue
        where = entry.get("path")
        if not isinstance(where, str):
            raise rdx.InvalidArgumentError(f"repository {rdx.excerpt(name)} needs path = \"DIRECTORY\" or git = \"URL\"")
        full = os.path.realpath(os.path.join(base, where))
        if not os.path.isdir(full):
            raise rdx.NotFoundError(f"repository {rdx.excerpt(name)}: {rdx.excerpt(full)} is not a directory")
        repos.append(Repository(name, full))
    if not repos:
        raise rdx.InvalidArgumentError(f"the manifest {rdx.excerpt(path)} names no [[repository]]")
    return Manifest(store, tuple(sorted(repos, key=lambda r: r.name)))


def _clone(url: str, ref: str | None, checkout: str) -> None:
    """Clone ``url`` into ``checkout`` or bring an existing clone to ``ref``."""
    try:
        if not os.path.isdir(os.path.join(checkout, ".git")):
            os.makedirs(os.path.dirname(checkout), exist_ok=True)
            subprocess.run(["git", "clone", "--quiet", url, checkout], check=True, capture_output=True, timeout=600)
        else:
            subprocess.run(["git", "-C", checkout, "fetch", "--quiet", "origin"], check=True, capture_output=True, timeout=600)
        if ref:
            subprocess.run(["git", "-C", checkout, "checkout", "--quiet", "--detach", ref], check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        raise rdx.IOFailureError(f"cannot clone {rdx.excerpt(url)}: {detail.decode(errors='replace').strip() or exc}") from None
