"""Finding the files to index: what is in the project, directory walks, ignore rules, and
reading one file safely.

This module owns everything that touches the file system during discovery, and the one rule
for what is in the project: a file is the project's when its real path (symlinks resolved) is
inside one of the project's roots (``ProjectRoots``: the roots the caller named, the
configuration's ``load_paths``; a gem's directory is a root of its own). A symbolic link that
leads out of the roots is never followed; the walk reports it as ``outside-project``. Walks are
iterative, follow a directory symlink at most once per real directory (so symlink loops end),
walk the links that stay inside the root after the real directories (so a file is indexed
once, under its real path when the walk reaches it directly), skip the usual vendored and
generated folders, and honour ``.gitignore`` files at every level through pathspec. Only
regular files are opened, without blocking (``open_regular``), and checked again once open,
so that a FIFO or a symlink swapped in after the walk is never read. Reading a file never
raises: problems come back as diagnostics.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import TYPE_CHECKING

from rdx.model.languages import FOREIGN_LANGUAGES, language_of
from rdx.model.records import Diagnostic
from rdx.workspace.config import WorkspaceConfig
from rdx.workspace.opening import (
    MAX_FILE_BYTES,
    NotRegularFileError,
    OutsideProjectError,
    inside,
    open_regular,
    read_descriptor,
    read_regular,
)

if TYPE_CHECKING:
    # Imported where a .gitignore is read (``_load_gitignore``): a tree without one never needs it.
    import pathspec

__all__ = [
    "MAX_FILE_BYTES", "RUBY_EXTENSIONS", "RUBY_FILENAMES", "SKIPPED_DIRS", "FileEntry", "NotRegularFileError", "OutsideProjectError", "ProjectRoots",
    "changed_files", "collect_files", "is_indexed_path", "is_source_path", "open_regular", "path_to_uri", "read_regular", "read_source", "still_wanted",
    "uri_to_path",
]

# ``.erb``: templates, whose tags hold Ruby (rdx.ruby.discover.erb).
RUBY_EXTENSIONS = frozenset({".rb", ".rake", ".gemspec", ".ru", ".rbi", ".erb"})
RUBY_FILENAMES = frozenset({"Gemfile", "Rakefile", "Guardfile", "Capfile", "Thorfile"})
# Directory names never walked into (``vendor/bundle`` is matched as a relative path).
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "tmp", ".rdx", ".bundle"})
SKIPPED_RELATIVE = ("vendor/bundle",)
# Their last names: only a directory named so may be one of them.
_SKIPPED_LAST = frozenset(p.rsplit("/", 1)[-1] for p in SKIPPED_RELATIVE)
_BINARY_SNIFF = 8192


@dataclass(slots=True)
class FileEntry:
    """A file chosen for indexing; ``roots`` (real paths) are those its real path must still be
    inside when it is read (empty: a path the caller chose, not checked)."""

    path: str
    uri: str
    size: int = 0
    mtime_ns: int = 0
    roots: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProjectRoots:
    """The directories (or single files) whose files are the project's: the roots the caller
    named and the configuration's ``load_paths``. ``holds`` is the rule every reader applies."""

    # Real paths (symlinks resolved): what a file's real path is compared with.
    real: tuple[str, ...]

    @classmethod
    def of(cls, paths: Iterable[str | os.PathLike[str]], config: WorkspaceConfig | None = None) -> ProjectRoots:
        named = [os.fspath(p) for p in paths] + list(config.load_paths if config is not None else ())
        return cls(tuple(dict.fromkeys(os.path.realpath(p) for p in named)))

    def holds_real(self, real: str) -> bool:
        return inside(real, self.real)

    def holds(self, path: str) -> bool:
        """THE rule: the file (or directory) at ``path`` is in the project when its real path
        is inside one of the roots; a symlink leading out of them is not."""
        return inside(os.path.realpath(path), self.real)


@dataclass
class WalkResult:
    files: list[FileEntry] = field(default_factory=list)
    problems: list[tuple[str, Diagnostic]] = field(default_factory=list)


# Paths made only of these need no percent-encoding (the common case, tested first: a walk
# converts every path of the project).
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_./~-]*")


def path_to_uri(path: str) -> str:
    """A ``file://`` URI; names that are not valid UTF-8 are percent-encoded byte by byte."""
    absolute = os.path.abspath(path)
    if _PLAIN_PATH.fullmatch(absolute):
        return "file://" + absolute
    from urllib.parse import quote

    return "file://" + quote(os.fsencode(absolute), safe="/")


def _uri_of_absolute(path: str) -> str:
    """``path_to_uri`` of a path the walk built: absolute and normal already (the root made
    absolute, then names joined), so ``abspath`` would return it unchanged."""
    if _PLAIN_PATH.fullmatch(path):
        return "file://" + path
    return path_to_uri(path)


def uri_to_path(uri: str) -> str | None:
    if uri.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(uri).path)
    return None


def is_ruby_file(name: str) -> bool:
    return name in RUBY_FILENAMES or os.path.splitext(name)[1] in RUBY_EXTENSIONS


def is_source_file(name: str) -> bool:
    """Whether a file named so becomes a document of the graph: Ruby, or a language whose
    structure ``rdx.languages`` reads (Python, JavaScript, TypeScript, Go, Rust, ...)."""
    # Most files are ``x.rb``: answered without splitting the name (``.rb`` alone, or after
    # dots only, is a name without an extension, as ``os.path.splitext`` has it).
    if name.endswith(".rb") and name[:-3].lstrip(".") and os.sep not in name:
        return True
    return is_ruby_file(name) or language_of(name) in FOREIGN_LANGUAGES


def is_source_path(path: str) -> bool:
    """``is_source_file`` of the last name of ``path`` (``x/y.rb`` answered without cutting it)."""
    if path.endswith(".rb") and path[path.rfind(os.sep) + 1 : -3].lstrip("."):
        return True
    return is_source_file(path[path.rfind(os.sep) + 1 :])


def is_indexed_path(path: str, root: str, select: Callable[[str], bool] | None = None) -> bool:
    """Whether a file at ``path`` under the project ``root`` is one the walk would read (by its
    name, and no skipped directory such as ``.git``, ``vendor/bundle`` or the ``.rdx`` cache
    between the root and it): the one predicate ``rdx watch`` and the MCP server share.

    It looks at the path as written, not at its real path: an indexed file replaced by a link
    out of the project must still reach ``Graph.refresh_paths``, where ``still_wanted`` (the
    rule of ``ProjectRoots``) drops it."""
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    if rel.startswith("../"):
        return False
    parts = rel.split("/")
    if any(rel.startswith(prefix + "/") for prefix in SKIPPED_RELATIVE):
        return False
    if not (select or is_source_file)(parts[-1]) or any(p in SKIPPED_DIRS for p in parts[:-1]):
        return False
    return not _gitignored(os.path.join(root, *parts), root, parts)


def _gitignored(path: str, root: str, parts: list[str]) -> bool:
    """Whether the ``.gitignore`` files between ``root`` and ``path`` exclude it (or one of
    its directories), as the walk would."""
    specs: tuple[tuple[str, pathspec.PathSpec], ...] = ()
    directory = root
    for i, part in enumerate(parts):
        spec = _load_gitignore(directory)
        if spec is not None:
            specs = specs + ((directory, spec),)
        child = os.path.join(directory, part)
        if _ignored(child, i < len(parts) - 1, specs):
            return True
        directory = child
    return False


def _load_gitignore(directory: str) -> pathspec.PathSpec | None:
    try:
        # A FIFO named .gitignore must not stop the walk: regular files only, never blocking.
        lines = read_regular(os.path.join(directory, ".gitignore")).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


def collect_files(
    root: str,
    config: WorkspaceConfig | None = None,
    config_root: str | None = None,
    select: Callable[[str], bool] = is_source_file,
    roots: ProjectRoots | None = None,
) -> WalkResult:
    """Every Ruby file under ``root`` (a directory or a single file), sorted by path; with
    ``select`` (a predicate on file names), every file it selects instead.

    With a workspace ``config``, its include/exclude globs (relative to ``config_root``) and
    size limit apply; files over the limit are skipped (and reported when they are Ruby files:
    the text index walks every file, and a large data file is no news).

    ``roots`` are the project's (default: ``root``, ``config_root`` and the configuration's
    load paths). A symlink below ``root`` whose target is inside ``root`` is walked after the
    real directories, and only when its target was not reached directly; one whose target is
    inside another of the roots is left to that root's walk; one leading out of the roots is
    skipped with an ``outside-project`` problem."""
    result = WalkResult()
    include = config.include_spec() if config else None
    exclude = config.exclude_spec() if config else None
    limit = config.max_file_size if config else None
    base = os.path.abspath(config_root or root)
    if roots is None:
        roots = ProjectRoots.of([root] + ([config_root] if config_root else []), config)

    prefix = base.rstrip(os.sep) + os.sep

    def relative(path: str, to: str, to_prefix: str) -> str:
        # Paths built by the walk start with the root: slicing avoids relpath's abspath calls.
        rel = path[len(to_prefix) :] if path.startswith(to_prefix) else os.path.relpath(path, to)
        return rel.replace(os.sep, "/")

    def wanted(path: str, size: int) -> bool:
        # The path relative to ``base`` only matters to the globs: a root other than ``base``
        # (every gem of a multi-root project) would pay ``relpath`` for each of its files.
        if include is not None or exclude is not None:
            rel = relative(path, base, prefix)
            if include is not None and not include.match_file(rel):
                return False
            if exclude is not None and exclude.match_file(rel):
                return False
        if limit is not None and size > limit:
            if not is_source_file(os.path.basename(path)):
                return False
            result.problems.append(
                (path, Diagnostic("file-too-large", f"file is {size} bytes, over the {limit}-byte limit (max_file_size); skipped", severity="warning"))
            )
            return False
        return True

    if os.path.isfile(root):
        # A file the caller named is a root of its own, wherever a symlink to it points.
        st = os.stat(root)
        if config is None or wanted(os.path.abspath(root), st.st_size):
            result.files.append(FileEntry(root, path_to_uri(root), st.st_size, st.st_mtime_ns, roots.real))
        return result
    root = os.path.abspath(root)
    root_prefix = root.rstrip(os.sep) + os.sep
    # Bound once: the loop below runs for every file of the project.
    globs = include is not None or exclude is not None
    found = result.files
    real_roots = roots.real
    is_regular = stat.S_ISREG
    walked = (os.path.realpath(root),)
    seen_dirs: set[tuple[int, int]] = set()
    # Real paths of the files found, so that a file reached through a link is indexed once.
    seen_files: set[str] = set()
    # Symlinks to files inside the root: (path, real path, stat), added at the end when the
    # walk did not reach their targets directly.
    linked_files: list[tuple[str, str, os.stat_result]] = []
    # Each stack entry: directory, its real path, and the ignore specs that apply to it with
    # their base dirs. Symlinked directories wait in ``linked_dirs`` until the stack is empty.
    Pending = tuple[str, str, tuple[tuple[str, "pathspec.PathSpec"], ...]]
    stack: list[Pending] = [(root, walked[0], ())]
    linked_dirs: list[Pending] = []
    while stack or linked_dirs:
        if not stack:
            linked_dirs.sort(reverse=True)
            stack, linked_dirs = linked_dirs, []
        directory, real_dir, specs = stack.pop()
        try:
            st = os.stat(directory)
        except OSError as exc:
            result.problems.append((directory, Diagnostic("unreadable-directory", f"cannot read directory: {exc.strerror}", severity="error")))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            continue  # A symlink loop or a second link to a directory already walked.
        seen_dirs.add(key)
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            result.problems.append((directory, Diagnostic("unreadable-directory", f"cannot read directory: {exc.strerror}", severity="error")))
            continue
        # The directory's .gitignore, read when its listing has one (no failed open for each
        # directory that has none).
        for entry in entries:
            if entry.name == ".gitignore":
                spec = _load_gitignore(directory)
                if spec is not None:
                    specs = specs + ((directory, spec),)
                break
        subdirs = []
        real_prefix = real_dir.rstrip(os.sep) + os.sep
        for entry in entries:
            name = entry.name
            full = entry.path
            try:
                is_dir = entry.is_dir()  # Follows symlinks; loops are caught by ``seen_dirs``.
                is_link = entry.is_symlink()
            except OSError:
                is_dir = is_link = False
            if is_dir:
                if name in SKIPPED_DIRS:
                    continue
                if name in _SKIPPED_LAST and relative(full, root, root_prefix) in SKIPPED_RELATIVE:
                    continue
                if specs and _ignored(full, True, specs):
                    continue
                if not is_link:
                    subdirs.append((full, real_prefix + name, specs))
                elif _follows(full, walked, roots, result):
                    linked_dirs.append((full, os.path.realpath(full), specs))
            elif select(name):
                if specs and _ignored(full, False, specs):
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    # A dangling symlink: report it once, with its path.
                    if is_source_file(name):
                        result.problems.append((full, Diagnostic("unreadable-file", "cannot read file: broken symbolic link", severity="error")))
                    continue
                if not is_regular(st.st_mode):
                    # A FIFO or device named like Ruby: opening it could block forever.
                    if is_source_file(name):
                        result.problems.append((full, Diagnostic("not-a-file", "not a regular file; skipped", severity="error")))
                    continue
                if is_link:
                    if _follows(full, walked, roots, result):
                        linked_files.append((full, os.path.realpath(full), st))
                    continue
                real = real_prefix + name
                if real in seen_files:
                    continue
                size = st.st_size
                # ``wanted`` has something to say only with globs or over the size limit.
                if config is not None and (globs or (limit is not None and size > limit)) and not wanted(full, size):
                    continue
                seen_files.add(real)
                found.append(FileEntry(full, _uri_of_absolute(full), size, st.st_mtime_ns, real_roots))
        subdirs.sort(reverse=True)
        stack.extend(subdirs)
    for full, real, st in sorted(linked_files):
        if real in seen_files or (config is not None and not wanted(full, st.st_size)):
            continue
        seen_files.add(real)
        result.files.append(FileEntry(full, _uri_of_absolute(full), st.st_size, st.st_mtime_ns, roots.real))
    result.files.sort(key=lambda f: f.path)
    return result


def _follows(link: str, walked: tuple[str, ...], roots: ProjectRoots, result: WalkResult) -> bool:
    """Whether the walk of ``walked`` follows the symlink ``link``: when its target is inside
    it. A target inside another root is that root's walk's to index; a target outside every
    root is reported and never read."""
    target = os.path.realpath(link)
    if inside(target, walked):
        return True
    if not roots.holds_real(target):
        message = f"symbolic link {link} points to {target}, outside the project's roots; skipped (add it to load_paths in rdx.toml to index it)"
        result.problems.append((link, Diagnostic("outside-project", message, severity="error")))
    return False


def changed_files(
    paths: Iterable[str], config: WorkspaceConfig | None, root: str | None, indexed: Iterable[str], roots: ProjectRoots | None = None
) -> list[str]:
    """File events as files (absolute, sorted): a directory (created, or moved in whole, whose
    files may bring no events of their own) stands for every file the walk finds under it; a
    path that is gone for itself and every ``indexed`` file under it.

    With the project's ``roots``, a directory whose real path is outside them is not walked,
    nor is a symlinked directory (the next full walk decides whether its target is walked
    already). Files are passed on whatever their real path: ``still_wanted`` refuses those
    outside, so that an indexed file replaced by a link out of the project is dropped."""
    out: set[str] = set()
    known = list(indexed)
    for path in (os.path.abspath(p) for p in paths):
        if os.path.isdir(path):
            if roots is not None and (os.path.islink(path) or not roots.holds(path)):
                continue
            out.update(e.path for e in collect_files(path, config, root, lambda name: True, roots).files)
        elif not os.path.exists(path):
            prefix = path.rstrip(os.sep) + os.sep
            out.add(path)
            out.update(p for p in known if p.startswith(prefix))
        else:
            out.add(path)
    return sorted(out)


def still_wanted(path: str, config: WorkspaceConfig | None, root: str | None, roots: ProjectRoots | None = None) -> bool:
    """Whether the walk would index the file at ``path`` now: it is a regular file, inside the
    project's ``roots`` (when given) by its real path, and ``config`` (when given, with the
    project ``root``) keeps it by its globs and size limit."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    if roots is not None and not roots.holds(path):
        return False
    if config is None or root is None:
        return True
    return st.st_size <= config.max_file_size and config.keeps(path, root)


def _ignored(path: str, is_dir: bool, specs: tuple[tuple[str, pathspec.PathSpec], ...]) -> bool:
    ignored = False
    for base, spec in specs:
        prefix = base.rstrip(os.sep) + os.sep
        rel = (path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, base)).replace(os.sep, "/")
        if is_dir:
            rel += "/"
        res = spec.check_file(rel)
        if res.include is not None:
            ignored = bool(res.include)
    return ignored


_RUBY_STOPS = (b"\x00", b"\x04", b"\x1a")
_STOP_NAMES = {0: "NUL", 4: "^D", 26: "^Z"}


def ruby_program(data: bytes) -> tuple[bytes, Diagnostic | None]:
    """What Ruby reads of a file: everything before the first NUL, ^D or ^Z byte (Ruby stops
    there, as it does at ``__END__``, which the parser handles), and a note when it stopped."""
    # The first of the three, each looked for (``bytes.find``: memchr) only before the first
    # found so far: a regular expression's character class reads about 80 MB/s, a twentieth.
    at = len(data)
    for stop in _RUBY_STOPS:
        found = data.find(stop, 0, at)
        if found >= 0:
            at = found
    if at == len(data):
        return data, None
    what = _STOP_NAMES[data[at]]
    return data[:at], Diagnostic("end-of-program", f"Ruby stops reading at the {what} byte at offset {at}; the rest is not indexed", at, at, "warning")


def read_source(path: str, ruby: bool = False, roots: Iterable[str] = ()) -> tuple[bytes | None, int, int, list[Diagnostic]]:
    """Read one file: (bytes or None, size, mtime_ns, diagnostics). Never raises. A Ruby file
    is what Ruby reads of it (``ruby_program``), never rejected as binary. With ``roots`` (real
    paths, ``FileEntry.roots``), a file whose real path left them since the walk is refused."""
    try:
        fd, st = open_regular(path, roots)
        try:
            if st.st_size > MAX_FILE_BYTES:
                return None, st.st_size, st.st_mtime_ns, [
                    Diagnostic("file-too-large", f"file is {st.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit; skipped", severity="error")
                ]
            # On the descriptor: a file object would cost more than a small file's read.
            data = read_descriptor(fd, st.st_size, MAX_FILE_BYTES)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return None, 0, 0, [Diagnostic("file-vanished", "file disappeared before it could be read", severity="error")]
    except NotRegularFileError:
        return None, 0, 0, [Diagnostic("not-a-file", "not a regular file; skipped", severity="error")]
    except OutsideProjectError as exc:
        return None, 0, 0, [Diagnostic("outside-project", f"{exc}; skipped", severity="error")]
    except OSError as exc:
        return None, 0, 0, [Diagnostic("unreadable-file", f"cannot read file: {exc.strerror or exc}", severity="error")]
    if len(data) > MAX_FILE_BYTES:
        return None, len(data), st.st_mtime_ns, [
            Diagnostic("file-too-large", f"file grew over the {MAX_FILE_BYTES}-byte limit while it was read; skipped", severity="error")
        ]
    diagnostics: list[Diagnostic] = []
    size = len(data)
    if ruby:
        data, stopped = ruby_program(data)
        if stopped is not None:
            diagnostics.append(stopped)
    if b"\0" in data[:_BINARY_SNIFF]:
        return None, size, st.st_mtime_ns, [Diagnostic("binary-file", "file looks binary (contains NUL bytes); skipped", severity="error")]
    try:
        if not data.isascii():  # (ASCII is UTF-8: checked without making the text)
            data.decode("utf-8")
    except UnicodeDecodeError as exc:
        diagnostics.append(
            Diagnostic("invalid-utf8", f"invalid UTF-8 at byte {exc.start}; indexed with replacement characters", exc.start, exc.start + 1, "warning")
        )
    return data, size, st.st_mtime_ns, diagnostics


def content_hash(data: bytes) -> int:
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little")
