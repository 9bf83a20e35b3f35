"""Running a search: candidates from the trigram index, matches verified on each file's text.

Hits come sorted by path, line and column, one per matching line (the first match's column),
like ``rg -n``. A page (``limit``/``offset``) still counts every match for its ``total``, but
builds hit objects only for the lines it returns.

A search has a time budget (``timeout``; the public API's default is ``GREP_TIMEOUT``): the clock is
read between files and between windows of ``_WINDOW`` bytes inside a file (RE2 cannot be
interrupted inside one call, so a window bounds the overshoot), and a search out of time returns
what it found so far with ``complete`` false. Globs are checked when the search starts (at most
``MAX_GLOBS`` of ``MAX_GLOB_CHARS`` each; a glob git would ignore, such as ``[``, is an error).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from rdx.model.errors import InvalidArgumentError, excerpt
from rdx.model.languages import LANGUAGES
from rdx.search.pattern import SearchPattern, compile_pattern
from rdx.search.text_index import TextFile, TextIndex

if TYPE_CHECKING:
    import pathspec  # Imported where a glob is given (``_check_glob``, ``_filters``).

__all__ = ["GREP_TIMEOUT", "MAX_GLOBS", "MAX_GLOB_CHARS", "GrepHit", "GrepPage", "display_path", "grep"]

GREP_TIMEOUT = 5.0  # Seconds a search may take by default; None means no limit.
MAX_GLOBS = 64
MAX_GLOB_CHARS = 1024
# Bytes of a file searched by one RE2 call when nothing narrows the search to lines: small
# enough that the budget is checked often, large enough that the calls cost nothing.
_WINDOW = 64 << 10


def display_path(path: str) -> str:
    """``path`` as text that any encoder (JSON, HTML) takes: unchanged when it is valid Unicode.
    A file name that is not valid UTF-8 reaches Python with surrogate escapes (``os.fsdecode``),
    which UTF-8 cannot encode: each such byte is written ``\\xff`` (as ``backslashreplace``
    writes bytes), any other lone surrogate ``\\udxxx``. ripgrep prints the raw bytes, which
    only a byte stream (the CLI's text output) can hold. ``GrepHit.path`` keeps the real name."""
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return "".join(_escaped(c) for c in path)


def _escaped(c: str) -> str:
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return c


class _OutOfTime(Exception):
    """The search's time budget ran out (caught in ``grep``, which returns what it has)."""


@dataclass(frozen=True, slots=True)
class GrepHit:
    """One matching line: ``line`` 1-based, ``column`` the first match's 0-based byte offset,
    ``text`` the line (decoded, invalid bytes replaced), with ``before``/``after`` context."""

    path: str
    line: int
    column: int
    text: str
    end_column: int = 0
    language: str = "text"
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    def to_builtins(self) -> dict[str, Any]:
        """The hit as plain values for a JSON encoder, its path through ``display_path`` (a
        name that is not UTF-8 cannot be encoded as it is): what ``rdx grep --json`` and the
        C API print for a hit."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        data["path"] = display_path(self.path)
        return data


@dataclass
class GrepPage:
    """A page of hits; ``total`` counts every matching line, ``files`` every matching file."""

    hits: list[GrepHit] = field(default_factory=list)
    total: int = 0
    files: int = 0
    offset: int = 0
    scanned: int = 0  # Files whose text was verified (the candidates).
    # False when the time budget ran out: ``total`` and ``files`` then count only the files
    # searched before it did, and later lines may be missing.
    complete: bool = True

    def __iter__(self) -> Iterator[GrepHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, i: int) -> GrepHit:
        return self.hits[i]


def _line_matches(body: bytes, pattern: SearchPattern, deadline: float) -> Iterator[tuple[int, int, int]]:
    """(match start, match end, line end) of the first match on each matching line; raises
    ``_OutOfTime`` once ``time.monotonic()`` passes ``deadline``."""
    n = len(body)
    pos = 0
    literal = pattern.literal
    search = pattern.regex.search
    anchor = pattern.anchor
    clock = time.monotonic
    while pos <= n:
        if clock() > deadline:
            raise _OutOfTime
        if literal is not None:
            start = body.find(literal, pos)
            if start < 0:
                return
            end = start + len(literal)
        elif anchor is not None:
            # Only lines holding the anchor can match: run the regex on those lines alone.
            hit = body.find(anchor, pos)
            if hit < 0:
                return
            line_start = body.rfind(b"\n", 0, hit) + 1
            line_end = body.find(b"\n", hit)
            line_end = n if line_end < 0 else line_end
            m = search(body, max(pos, line_start), line_end)
            if m is None:
                pos = line_end + 1
                continue
            start, end = m.start(), m.end()
        else:
            # A window ends at a line break, and no match spans one, so searching window by
            # window finds what one call over the rest of the file would.
            window = body.find(b"\n", pos + _WINDOW) if pos + _WINDOW < n else -1
            window = n if window < 0 else window
            m = search(body, pos, window)
            if m is None:
                if window >= n:
                    return
                pos = window + 1
                continue
            start, end = m.start(), m.end()
        if start == n and (n == 0 or body[n - 1] == 10):
            return  # An empty match after the last line break: not a line.
        line_end = body.find(b"\n", start)
        if line_end < 0:
            line_end = n
        yield start, end, line_end
        pos = line_end + 1


def _strings(value: object, what: str, example: str) -> list[str]:
    """``value`` (None, a string, or a list or tuple of strings) as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
        return list(value)
    raise InvalidArgumentError(f"{what} must be a string or a list of strings such as {example}, got {excerpt(value)}")


def _check_glob(glob: str) -> None:
    """Raise InvalidArgumentError for a glob that is too long or that git would not read as
    a pattern (an unclosed ``[``, a bad range, a trailing backslash, a comment)."""
    if not glob.strip("!"):
        raise InvalidArgumentError("glob must be a non-empty pattern such as '*.rb' or '!test/**', got an empty one")
    if len(glob) > MAX_GLOB_CHARS:
        raise InvalidArgumentError(f"glob {excerpt(glob)} is longer than the {MAX_GLOB_CHARS} characters allowed")
    body = glob[1:] if glob.startswith("!") else glob
    import pathspec

    try:
        spec = pathspec.GitIgnoreSpec.from_lines([body])
    except Exception as exc:  # pathspec raises re.error, its own errors, or a regex backend's.
        raise InvalidArgumentError(f"glob {excerpt(glob)} is not a valid gitignore-style pattern ({excerpt(str(exc))}); check its brackets and backslashes") from None
    if not spec.patterns or getattr(spec.patterns[0], "regex", None) is None:
        # pathspec, as git, ignores such a line, so the glob would silently match nothing.
        raise InvalidArgumentError(f"glob {excerpt(glob)} matches nothing (an unclosed '[' or a '#' comment); escape '[' as '\\['")


def _filters(glob: str | Sequence[str] | None, language: str | Sequence[str] | None) -> tuple[pathspec.PathSpec | None, pathspec.PathSpec | None, frozenset[str] | None]:
    globs = _strings(glob, "glob", "'*.rb' or ['*.rb', '!test/**']")
    if len(globs) > MAX_GLOBS:
        raise InvalidArgumentError(f"{len(globs)} globs given, at most {MAX_GLOBS} are allowed; combine them")
    for g in globs:
        _check_glob(g)
    include = [g for g in globs if not g.startswith("!")]
    exclude = [g[1:] for g in globs if g.startswith("!")]
    languages = _strings(language, "language", "'ruby' or ['ruby', 'yaml']")
    unknown = [x for x in languages if x not in LANGUAGES]
    if unknown:
        raise InvalidArgumentError(f"unknown language {excerpt(unknown[0])}; one of: {', '.join(sorted(LANGUAGES))}")
    if not globs:
        return None, None, frozenset(languages) if languages else None
    import pathspec

    return (
        pathspec.GitIgnoreSpec.from_lines(include) if include else None,
        pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None,
        frozenset(languages) if languages else None,
    )


def grep(
    index: TextIndex,
    pattern: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    glob: str | Sequence[str] | None = None,
    language: str | Sequence[str] | None = None,
    under: Sequence[str] = (),
    relative_to: str | None = None,
    context: int = 0,
    limit: int | None = None,
    offset: int = 0,
    timeout: float | None = None,
) -> GrepPage:
    """Search ``index``; globs match paths relative to ``relative_to`` (a ``!glob`` excludes),
    ``under`` keeps files below any of those paths. After ``timeout`` seconds (None: no limit;
    the public ``grep`` of ``Graph`` and ``TextSearch`` passes ``GREP_TIMEOUT`` by default) the
    page holds what was found and says ``complete=False``."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise InvalidArgumentError(f"limit must be a non-negative integer, got {limit!r}")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidArgumentError(f"offset must be a non-negative integer, got {offset!r}")
    if not isinstance(context, int) or isinstance(context, bool) or context < 0:
        raise InvalidArgumentError(f"context must be a non-negative integer, got {excerpt(context)}")
    if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout < 1e9):
        raise InvalidArgumentError(f"timeout must be a positive number of seconds (or None for no limit), got {excerpt(timeout)}")
    if not isinstance(regex, bool) or not isinstance(ignore_case, bool):
        raise InvalidArgumentError(f"regex and ignore_case must be booleans, got {excerpt(regex)} and {excerpt(ignore_case)}")
    deadline = time.monotonic() + timeout if timeout is not None else float("inf")
    compiled = compile_pattern(pattern, regex=regex, ignore_case=ignore_case)
    include, exclude, languages = _filters(glob, language)
    candidates = index.candidates(compiled.requirement, deadline)
    if candidates is None:  # The trigram query itself ran out of time.
        return GrepPage(offset=offset, complete=False)
    files = [f for f in candidates if _selected(f, include, exclude, languages, under, relative_to)]
    page = GrepPage(offset=offset, scanned=len(files))
    stop = None if limit is None else offset + limit
    for f, body in index.bodies(files):
        line_no = 1
        counted_to = 0
        matched = False
        try:
            for start, end, line_end in _line_matches(body, compiled, deadline):
                matched = True
                line_no += body.count(b"\n", counted_to, start)
                counted_to = start
                if page.total >= offset and (stop is None or page.total < stop):
                    page.hits.append(_hit(f, body, line_no, start, end, line_end, context))
                page.total += 1
        except _OutOfTime:
            page.complete = False
        page.files += matched
        if not page.complete:
            break
    return page


def _selected(
    f: TextFile, include: pathspec.PathSpec | None, exclude: pathspec.PathSpec | None, languages: frozenset[str] | None, under: Sequence[str], base: str | None
) -> bool:
    if languages is not None and f.language not in languages:
        return False
    if under and not any(f.path == u or f.path.startswith(u.rstrip("/") + "/") for u in under):
        return False
    if include is None and exclude is None:
        return True
    rel = f.path[len(base.rstrip("/")) + 1 :] if base and f.path.startswith(base.rstrip("/") + "/") else f.path.lstrip("/")
    if include is not None and not include.match_file(rel):
        return False
    return not (exclude is not None and exclude.match_file(rel))


def _hit(f: TextFile, body: bytes, line_no: int, start: int, end: int, line_end: int, context: int) -> GrepHit:
    line_start = body.rfind(b"\n", 0, start) + 1
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    if context:
        before = tuple(x.decode("utf-8", "replace") for x in _lines_before(body, line_start, context))
        after = tuple(x.decode("utf-8", "replace") for x in _lines_after(body, line_end, context))
    return GrepHit(
        f.path, line_no, start - line_start, body[line_start:line_end].decode("utf-8", "replace"),
        min(end, line_end) - line_start, f.language, before, after,
    )


def _lines_before(body: bytes, line_start: int, n: int) -> list[bytes]:
    lines: list[bytes] = []
    end = line_start - 1  # The line break that ends the previous line.
    while len(lines) < n and end >= 0:
        start = body.rfind(b"\n", 0, end) + 1
        lines.append(body[start:end])
        end = start - 1
    return lines[::-1]


def _lines_after(body: bytes, line_end: int, n: int) -> list[bytes]:
    lines: list[bytes] = []
    start = line_end + 1
    while len(lines) < n and start < len(body):
        end = body.find(b"\n", start)
        end = len(body) if end < 0 else end
        lines.append(body[start:end])
        start = end + 1
    return lines
