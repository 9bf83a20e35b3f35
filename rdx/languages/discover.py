"""Discovery of files in languages other than Ruby: a FileResult carrying the symbols,
references and imports ``rdx.languages`` extracts, plus the line table every document has.

Runs in the same worker processes as Ruby's discovery. A file the extractor fails on becomes a
diagnostic on its own result, never an exception that spoils a batch. ``prepare_foreign``
makes, before the workers are forked, what every one of them would otherwise make for itself
(the languages' compiled queries, the native runner's check).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from rdx.languages import extract_all, module_name, spec_for
from rdx.languages.engine import Spec, prepare
from rdx.model.languages import language_of
from rdx.model.records import Diagnostic, FileResult
from rdx.model.text import line_starts
from rdx.native import line_starts as native_line_starts

__all__ = ["discover_foreign", "foreign_language", "prepare_foreign"]

# The line table in C, once rdx.native has it: the same bytes as rdx.model.text's, so it is
# kept rather than asked for at every file (about 2 us a file, 1 % of a small file's parse).
_native_lines: Callable[[bytes], bytes] | None = None

# Per extractor (``foreign_language``): the language its files have and its spec (None: no
# extractor reads them), looked up once per process rather than at every file.
_extractors: dict[str, tuple[str, Spec | None]] = {}


def foreign_language(path: str) -> str:
    """The extractor's name for a file: its language, except TSX, which has its own grammar."""
    if path.endswith(".tsx"):
        return "tsx"
    return language_of(path)


def _extractor(name: str) -> tuple[str, Spec | None]:
    extractor = foreign_language(name)
    found = _extractors.get(extractor)
    if found is None:
        found = _extractors[extractor] = ("typescript" if extractor == "tsx" else extractor, spec_for(extractor))
    return found


def prepare_foreign(paths: Iterable[str]) -> None:
    """Make in this process, for the languages of ``paths`` that have an extractor, what
    discovery of any of their files reads (``rdx.languages.engine.prepare``: the query
    compiled, the native runner checked): a pool's workers forked afterwards inherit it
    instead of each making its own, which costs a worker more than a hundred small files'
    parses (about 70 ms for JavaScript, 135 ms for TypeScript)."""
    # One path per name ending (from the character before its last dot or slash) is asked
    # its extractor: about a microsecond a path less than asking every one. (A path the ending
    # misleads about, ``dir/..js`` beside ``a..js``, leaves a language to the workers, which
    # then make their own, as without this.)
    endings: set[str] = set()
    extractors: dict[str, str] = {}
    for path in paths:
        ending = path[max(path.rfind("."), path.rfind("/")) - 1 :]
        if ending not in endings:
            endings.add(ending)
            extractors.setdefault(foreign_language(path), path)
    for path in extractors.values():
        spec = _extractor(path)[1]
        if spec is None:
            continue
        try:
            prepare(spec)
        except Exception:  # A worker then meets the same failure per file, as a diagnostic.
            pass


def discover_foreign(uri: str, data: bytes, path: str | None) -> FileResult:
    language, spec = _extractor(path or uri)
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
