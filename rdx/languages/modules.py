"""The module a file defines, for qualified names: what a language's own rules say about a
file's path (the Go package clause and Java package declaration are read from the source by
the specs instead)."""

from __future__ import annotations

import os

__all__ = ["module_name"]


def module_name(path: str, language: str) -> str | None:
    """Python: the dotted path from the outermost package (``receipts/printer.py`` inside a
    package ``receipts`` -> ``receipts.printer``; a package's ``__init__.py`` is the package).
    Other languages: None (their specs read it, or it has no such name)."""
    if language != "python":
        return None
    directory, filename = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(filename)[0]
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
        if not package:
            break
    return ".".join(parts) or None
