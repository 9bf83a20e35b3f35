"""Finding the files to index: directory walks, ignore rules, and reading one file safely.

This module owns everything that touches the file system during discovery. Walks are iterative,
follow directory symlinks at most once per real directory (so symlink loops end), skip the
usual vendored and generated folders, and honour ``.gitignore`` files at every level through
pathspec. Reading a file never raises: problems come back as diagnostics.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from hashlib import blake2b

import pathspec

from rdx.discovery.config import WorkspaceConfig
from rdx.model.languages import FOREIGN_LANGUAGES, language_of
from rdx.model.records import Diagnostic

__all__ = [
    "RUBY_EXTENSIONS", "RUBY_FILENAMES", "SKIPPED_DIRS", "FileEntry", "changed_files", "collect_files", "is_indexed_path", "path_to_uri",
    "read_source", "still_wanted", "uri_to_path",
]

RUBY_EXTENSIONS = frozenset({".rb", ".rake", ".gemspec", ".ru", ".rbi"})
RUBY_FILENAMES = frozenset({"Gemfile", "Rakefile", "Guardfile", "Capfile", "Thorfile"})
# Directory names never walked into (``vendor/bundle`` is matched as a relative path).
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "tmp", ".rdx", ".bundle"})
SKIPPED_RELATIVE = ("vendor/bundle",)
# Files larger than this are reported and skipped: nothing useful is that big, and a parse of
# a multi-hundred-megabyte file would stall a worker.
MAX_FILE_BYTES = 64 * 1024 * 1024
_BINARY_SNIFF = 8192


@dataclass
class FileEntry:
    """A file chosen for indexing."""

    path: str
    uri: str
    size: int = 0
    mtime_ns: int = 0


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


def uri_to_path(uri: str) -> str | None:
    if uri.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(uri).path)
    return None


def is_ruby_file(name: str) -> bool:
    return name in RUBY_FILENAMES or os.path.splitext(name)[1] in RUBY_EXTENSIONS


def is_source_file(name: str) -> bool:
    """Whether a file named so becomes a document of the graph: Ruby, or a language whose
    structure ``rdx.polyglot`` reads (Python, JavaScript, TypeScript, Go, Rust, ...)."""
    return is_ruby_file(name) or language_of(name) in FOREIGN_LANGUAGES


def is_indexed_path(path: str, root: str, select: Callable[[str], bool] | None = None) -> bool:
    """Whether a file at ``path`` under the project ``root`` is one the walk would read (by its
    name, and no skipped directory such as ``.git``, ``vendor/bundle`` or the ``.rdx`` cache
    between the root and it): the one predicate ``rdx watch`` and the MCP server share."""
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
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None


def collect_files(
    root: str, config: WorkspaceConfig | None = None, config_root: str | None = None, select: Callable[[str], bool] = is_source_file
) -> WalkResult:
    """Every Ruby file under ``root`` (a directory or a single file), sorted by path; with
    ``select`` (a predicate on file names), every file it selects instead.

    With a workspace ``config``, its include/exclude globs (relative to ``config_root``) and
    size limit apply; files over the limit are skipped (and reported when they are Ruby files:
    the text index walks every file, and a large data file is no news)."""
    result = WalkResult()
    include = config.include_spec() if config else None
    exclude = config.exclude_spec() if config else None
    limit = config.max_file_size if config else None
    base = os.path.abspath(config_root or root)

    prefix = base.rstrip(os.sep) + os.sep

    def relative(path: str, to: str, to_prefix: str) -> str:
        # Paths built by the walk start with the root: slicing avoids relpath's abspath calls.
        rel = path[len(to_prefix) :] if path.startswith(to_prefix) else os.path.relpath(path, to)
        return rel.replace(os.sep, "/")

    def wanted(path: str, size: int) -> bool:
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
        st = os.stat(root)
        if config is None or wanted(os.path.abspath(root), st.st_size):
            result.files.append(FileEntry(root, path_to_uri(root), st.st_size, st.st_mtime_ns))
        return result
    root = os.path.abspath(root)
    root_prefix = root.rstrip(os.sep) + os.sep
    seen_dirs: set[tuple[int, int]] = set()
    # Each stack entry: directory, and the ignore specs that apply to it with their base dirs.
    stack: list[tuple[str, tuple[tuple[str, pathspec.PathSpec], ...]]] = [(root, ())]
    while stack:
        directory, specs = stack.pop()
        try:
            st = os.stat(directory)
        except OSError as exc:
            result.problems.append((directory, Diagnostic("unreadable-directory", f"cannot read directory: {exc.strerror}", severity="error")))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            continue  # A symlink loop or a second link to a directory already walked.
        seen_dirs.add(key)
        spec = _load_gitignore(directory)
        if spec is not None:
            specs = specs + ((directory, spec),)
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            result.problems.append((directory, Diagnostic("unreadable-directory", f"cannot read directory: {exc.strerror}", severity="error")))
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            full = entry.path
            try:
                is_dir = entry.is_dir()  # Follows symlinks; loops are caught by ``seen_dirs``.
            except OSError:
                is_dir = False
            if is_dir:
                if name in SKIPPED_DIRS:
                    continue
                rel_root = relative(full, root, root_prefix)
                if rel_root in SKIPPED_RELATIVE or _ignored(full, True, specs):
                    continue
                subdirs.append((full, specs))
            elif select(name):
                if _ignored(full, False, specs):
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    # A dangling symlink: report it once, with its path.
                    if is_source_file(name):
                        result.problems.append((full, Diagnostic("unreadable-file", "cannot read file: broken symbolic link", severity="error")))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    # A FIFO or device named like Ruby: opening it could block forever.
                    if is_source_file(name):
                        result.problems.append((full, Diagnostic("not-a-file", "not a regular file; skipped", severity="error")))
                    continue
                if config is not None and not wanted(full, st.st_size):
                    continue
                result.files.append(FileEntry(full, path_to_uri(full), st.st_size, st.st_mtime_ns))
        subdirs.sort(reverse=True)
        stack.extend(subdirs)
    result.files.sort(key=lambda f: f.path)
    return result


def changed_files(paths: Iterable[str], config: WorkspaceConfig | None, root: str | None, indexed: Iterable[str]) -> list[str]:
    """File events as files (absolute, sorted): a directory (created, or moved in whole, whose
    files may bring no events of their own) stands for every file the walk finds under it; a
    path that is gone for itself and every ``indexed`` file under it."""
    out: set[str] = set()
    known = list(indexed)
    for path in (os.path.abspath(p) for p in paths):
        if os.path.isdir(path):
            out.update(e.path for e in collect_files(path, config, root, select=lambda name: True).files)
        elif not os.path.exists(path):
            prefix = path.rstrip(os.sep) + os.sep
            out.add(path)
            out.update(p for p in known if p.startswith(prefix))
        else:
            out.add(path)
    return sorted(out)


def still_wanted(path: str, config: WorkspaceConfig | None, root: str | None) -> bool:
    """Whether the walk would index the file at ``path`` now: it is a file, and ``config``
    (when given, with the project ``root``) keeps it by its globs and size limit."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
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


_RUBY_STOPS = re.compile(rb"[\x00\x04\x1a]")
_STOP_NAMES = {0: "NUL", 4: "^D", 26: "^Z"}


def ruby_program(data: bytes) -> tuple[bytes, Diagnostic | None]:
    """What Ruby reads of a file: everything before the first NUL, ^D or ^Z byte (Ruby stops
    there, as it does at ``__END__``, which the parser handles), and a note when it stopped."""
    found = _RUBY_STOPS.search(data)
    if found is None:
        return data, None
    at = found.start()
    what = _STOP_NAMES[data[at]]
    return data[:at], Diagnostic("end-of-program", f"Ruby stops reading at the {what} byte at offset {at}; the rest is not indexed", at, at, "warning")


def read_source(path: str, ruby: bool = False) -> tuple[bytes | None, int, int, list[Diagnostic]]:
    """Read one file: (bytes or None, size, mtime_ns, diagnostics). Never raises. A Ruby file
    is what Ruby reads of it (``ruby_program``), never rejected as binary."""
    try:
        # Checked before opening: open() on a FIFO blocks until a writer appears.
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, 0, 0, [Diagnostic("not-a-file", "not a regular file; skipped", severity="error")]
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_size > MAX_FILE_BYTES:
                return None, st.st_size, st.st_mtime_ns, [
                    Diagnostic("file-too-large", f"file is {st.st_size} bytes, over the {MAX_FILE_BYTES}-byte limit; skipped", severity="error")
                ]
            data = f.read()
    except FileNotFoundError:
        return None, 0, 0, [Diagnostic("file-vanished", "file disappeared before it could be read", severity="error")]
    except OSError as exc:
        return None, 0, 0, [Diagnostic("unreadable-file", f"cannot read file: {exc.strerror or exc}", severity="error")]
    diagnostics: list[Diagnostic] = []
    size = len(data)
    if ruby:
        data, stopped = ruby_program(data)
        if stopped is not None:
            diagnostics.append(stopped)
    if b"\0" in data[:_BINARY_SNIFF]:
        return None, size, st.st_mtime_ns, [Diagnostic("binary-file", "file looks binary (contains NUL bytes); skipped", severity="error")]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        diagnostics.append(
            Diagnostic("invalid-utf8", f"invalid UTF-8 at byte {exc.start}; indexed with replacement characters", exc.start, exc.start + 1, "warning")
        )
    return data, size, st.st_mtime_ns, diagnostics


def content_hash(data: bytes) -> int:
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little")
