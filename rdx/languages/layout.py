"""What import resolution needs from a project's configuration files, read once.

``read_layout(roots, files)`` reads the configuration files among ``files`` into a ``Layout``:
the module path of each ``go.mod``; the ``baseUrl`` and ``paths`` of each ``tsconfig.json`` or
``jsconfig.json`` (with what a relative ``extends`` brings in); the ``main`` of each
``package.json`` (what importing its directory means in Node); the library name of each
``Cargo.toml``; and the directories C and C++ look for includes in (every directory named
``include`` that holds a listed file, then the roots). This is the only part of import
resolution that reads files: ``rdx.languages.importing`` resolves against a ``Layout`` without
any I/O, so a layout is read during discovery and resolution stays pure.

A configuration file that cannot be read or parsed is left out, as if it were absent: a
broken ``tsconfig.json`` must not stop the rest of the project from being indexed. Configuration
files are found only among ``files`` (a caller lists them next to the sources); nothing here
walks directories.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable

import msgspec

__all__ = ["JsConfig", "Layout", "read_layout"]

# How many configurations one tsconfig may pull in through ``extends`` (itself included):
# real chains are two or three long, and a cycle must end.
_MAX_EXTENDS = 8
_JS_CONFIGS = ("tsconfig.json", "jsconfig.json")  # In this order of precedence in one directory.


class JsConfig(msgspec.Struct, frozen=True):
    """What one tsconfig.json or jsconfig.json says about module names, its ``extends`` merged in.

    ``base_url`` is absolute (None when unset); ``paths`` maps each pattern (``@app/*``) to its
    targets as written (``["src/app/*"]``), which are relative to ``paths_base``: the
    ``baseUrl`` when there is one, else the directory of the file that wrote ``paths``."""

    base_url: str | None = None
    paths: dict[str, list[str]] = {}
    paths_base: str = ""


class Layout(msgspec.Struct, frozen=True):
    """The project's configuration as import resolution needs it (absolute, normalized paths).

    ``go_modules``: directory of each go.mod -> its module path (``std`` for Go's own source
    tree). ``js_configs``: directory of each tsconfig.json/jsconfig.json -> its settings.
    ``js_packages``: directory of each package.json -> its ``main`` (absolute, as written:
    extension probing still applies). ``crates``: directory of each Cargo.toml -> the name
    other crates' ``use`` paths give its library (``[lib] name``, else the package's name with
    ``-`` as ``_``; empty when the file names none or cannot be read).
    ``include_dirs``: where C and C++ includes are looked for after the including file's
    directory, in order."""

    roots: list[str] = []
    go_modules: dict[str, str] = {}
    js_configs: dict[str, JsConfig] = {}
    js_packages: dict[str, str] = {}
    crates: dict[str, str] = {}
    include_dirs: list[str] = []


def read_layout(roots: list[str], files: list[str], read: Callable[[str], bytes | None] | None = None) -> Layout:
    """The layout of a project from its roots and its files (absolute paths, configuration
    files among them). Unreadable or invalid configuration files are skipped. ``read`` gives a
    file's bytes or None; the caller passes one that applies the project's rules (real paths
    inside the roots, regular files only), since an ``extends`` may name any path. Without
    it, only regular files whose real path is inside ``roots`` are read."""
    roots = [os.path.normpath(os.path.abspath(r)) for r in roots]
    reader = read or _confined_reader(roots)
    paths = sorted({os.path.normpath(f) for f in files})
    go_modules: dict[str, str] = {}
    js_configs: dict[str, JsConfig] = {}
    js_packages: dict[str, str] = {}
    crates: dict[str, str] = {}
    directories: set[str] = set()
    parsed: dict[str, dict[str, object] | None] = {}
    js_files: dict[str, str] = {}
    for path in paths:
        directory, name = os.path.split(path)
        directories.add(directory)
        if name == "go.mod":
            module = _go_module(path, reader)
            if module is not None:
                go_modules[directory] = module
        elif name in _JS_CONFIGS:
            # A tsconfig.json wins over a jsconfig.json beside it (TypeScript reads only the former).
            if name == _JS_CONFIGS[0] or directory not in js_files:
                js_files[directory] = path
        elif name == "package.json":
            package = _load_jsonc(path, parsed, reader)
            main = package.get("main") if package is not None else None
            if isinstance(main, str) and main.strip():
                js_packages[directory] = os.path.normpath(os.path.join(directory, main))
        elif name == "Cargo.toml":
            crates[directory] = _crate_name(path, reader)
    for directory, path in js_files.items():
        config = _js_config(path, parsed, reader)
        if config is not None:
            js_configs[directory] = config
    return Layout(
        roots=roots,
        go_modules=go_modules,
        js_configs=js_configs,
        js_packages=js_packages,
        crates=crates,
        include_dirs=_include_dirs(directories, roots),
    )


Reader = Callable[[str], bytes | None]


def _confined_reader(roots: list[str]) -> Reader:
    """Reads a regular file whose real path is inside one of ``roots`` (real paths too)."""
    real_roots = [os.path.realpath(r) for r in roots]

    def read(path: str) -> bytes | None:
        real = os.path.realpath(path)
        if not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in real_roots) or not os.path.isfile(real):
            return None
        try:
            with open(real, "rb") as handle:
                return handle.read()
        except OSError:
            return None

    return read


def _read(path: str, read: Reader) -> str | None:
    data = read(path)
    if data is None:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


# -- go.mod ----------------------------------------------------------------------------------

_MODULE_LINE = re.compile(r"^\s*module\s+(\"[^\"]*\"|`[^`]*`|\S+)", re.MULTILINE)


def _go_module(path: str, read: Reader) -> str | None:
    """The ``module`` directive's path (quoted or not; comments after it ignored)."""
    text = _read(path, read)
    if text is None:
        return None
    match = _MODULE_LINE.search(text)
    if match is None:
        return None
    module = match.group(1).split("//", 1)[0].strip().strip('"`')
    return module or None


# -- Cargo.toml ------------------------------------------------------------------------------


def _crate_name(path: str, read: Reader) -> str:
    text = _read(path, read)
    if text is None:
        return ""
    try:
        manifest = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return ""
    for table in ("lib", "package"):
        section = manifest.get(table)
        name = section.get("name") if isinstance(section, dict) else None
        if isinstance(name, str) and name:
            return name.replace("-", "_")
    return ""


# -- tsconfig.json ---------------------------------------------------------------------------

# One token of JSON with comments: a string (whole, escapes included), a comment, a comma, a
# closing bracket, or a run of anything else. Strings come first so that ``//`` or a comma
# inside one stays text.
_JSONC_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*|/\*[\s\S]*?(?:\*/|$)|[,}\]]|[^",}\]/]+|/')


def _strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (what TypeScript accepts) -> plain JSON.
    Strings are kept exactly; ``//`` and ``/* */`` comments go; a comma followed only by
    whitespace and comments before a closing bracket goes."""
    out: list[str] = []
    pending_comma = -1  # Index in ``out`` of a comma that may turn out to be trailing.
    for match in _JSONC_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == "/" and token[1:2] in ("/", "*"):
            out.append(" ")
            continue
        if first in "}]":
            if pending_comma >= 0:
                out[pending_comma] = ""
            pending_comma = -1
        elif first == ",":
            pending_comma = len(out)
        elif not token.isspace():
            pending_comma = -1
        out.append(token)
    return "".join(out)


def _load_jsonc(path: str, parsed: dict[str, dict[str, object] | None], read: Reader) -> dict[str, object] | None:
    if path not in parsed:
        text = _read(path, read)
        value: object = None
        if text is not None:
            try:
                value = json.loads(_strip_jsonc(text))
            except (ValueError, RecursionError):
                value = None
        parsed[path] = value if isinstance(value, dict) else None
    return parsed[path]


def _extends(config: dict[str, object], directory: str) -> list[str]:
    """The files a config extends, relative ones only (a package name would need node_modules
    lookup, which this does not attempt), in the order they are written."""
    value = config.get("extends")
    written = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
    found = []
    for entry in written:
        if not (entry.startswith(("./", "../")) or os.path.isabs(entry)):
            continue
        path = os.path.normpath(os.path.join(directory, entry))
        if not path.endswith(".json") and not os.path.isfile(path):
            path += ".json"
        found.append(path)
    return found


def _js_config(path: str, parsed: dict[str, dict[str, object] | None], read: Reader) -> JsConfig | None:
    """The settings of one config with its ``extends`` chain merged: a config overrides what
    it extends, and of several it extends, a later one overrides an earlier one. So the
    configs are visited nearest first (an explicit stack, depth first, the last of a list of
    bases first) and the first to set ``baseUrl`` or ``paths`` gives it."""
    if _load_jsonc(path, parsed, read) is None:
        return None
    base_url: str | None = None
    paths: dict[str, list[str]] | None = None
    paths_directory = ""
    stack = [path]
    seen: set[str] = set()
    while stack and len(seen) < _MAX_EXTENDS:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        config = _load_jsonc(current, parsed, read)
        if config is None:
            continue
        directory = os.path.dirname(current)
        options = config.get("compilerOptions")
        if isinstance(options, dict):
            written_base, written_paths = options.get("baseUrl"), options.get("paths")
            if base_url is None and isinstance(written_base, str):
                base_url = os.path.normpath(os.path.join(directory, written_base))
            if paths is None and isinstance(written_paths, dict):
                paths = {
                    pattern: [t for t in targets if isinstance(t, str)]
                    for pattern, targets in written_paths.items()
                    if isinstance(pattern, str) and isinstance(targets, list)
                }
                paths_directory = directory
        stack.extend(_extends(config, directory))
    return JsConfig(base_url=base_url, paths=paths or {}, paths_base=base_url or paths_directory or os.path.dirname(path))


# -- C and C++ -------------------------------------------------------------------------------


def _include_dirs(directories: set[str], roots: list[str]) -> list[str]:
    """Every directory named ``include`` on the way to a listed file, sorted, then the roots."""
    found: set[str] = set()
    marker = os.sep + "include"
    for directory in directories:
        start = directory.find(marker)
        while start >= 0:
            end = start + len(marker)
            if end == len(directory) or directory[end] == os.sep:
                found.add(directory[:end])
            start = directory.find(marker, end)
    ordered = sorted(found)
    return ordered + [r for r in roots if r not in found]
