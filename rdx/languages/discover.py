"""Discovery of files in languages other than Ruby: a FileResult carrying the symbols,
references and imports ``rdx.languages`` extracts, plus the line table every document has.

Runs in the same worker processes as Ruby's discovery. A file the extractor fails on becomes a
diagnostic on its own result, never an exception that spoils a batch.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from rdx.languages import extract_all, module_name, spec_for
from rdx.model.languages import language_of
from rdx.model.records import Diagnostic, FileResult
from rdx.model.text import line_starts
from rdx.native import line_starts as native_line_starts

__all__ = ["discover_foreign", "foreign_language"]

# The line table in C, once rdx.native has it: the same bytes as rdx.model.text's, so it is
# kept rather than asked for at every file (about 2 us a file, 1 % of a small file's parse).
_native_lines: Callable[[bytes], bytes] | None = None


def foreign_language(path: str) -> str:
    """The extractor's name for a file: its language, except TSX, which has its own grammar."""
    if path.endswith(".tsx"):
        return "tsx"
    return language_of(path)


def discover_foreign(uri: str, data: bytes, path: str | None) -> FileResult:
    name = path or uri
    extractor = foreign_language(name)
    language = "typescript" if extractor == "tsx" else extractor
    spec = spec_for(extractor)
    # The line table in C when the native module is built (the same bytes).
    global _native_lines
    lines = _native_lines
    if lines is None:
        lines = _native_lines = native_line_starts()
    result = FileResult(uri=uri, path=path, size=len(data), line_starts=(lines or line_starts)(data), language=language)
    if spec is None:
        result.diagnostics = [Diagnostic("unknown-language", f"no extractor reads {language} files", severity="warning")]
        return result
    # A Python file's module path follows its packages on disk (``__init__.py`` files); other
    # languages have none (``module_name``).
    module = module_name(path, language) if language == "python" and path is not None and os.path.isabs(path) else None
    try:
        found = extract_all(spec, data, module)
    except Exception as exc:  # A bug in an extractor must spoil one file, not the index.
        result.diagnostics = [Diagnostic("internal-error", f"rdx failed on this file: {exc!r}")]
        return result
    result.module = module
    result.symbols = found.symbols
    result.references = found.references
    result.imports = found.imports
    return result
