"""Running a search: candidates from the trigram index, matches verified on each file's text.

Hits come sorted by path, line and column, one per matching line (the first match's column),
like ``rg -n``. A page (``limit``/``offset``) still counts every match for its ``total``, but
builds hit objects only for the lines it returns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pathspec

from rdx.errors import InvalidArgumentError
from rdx.fulltext.index import TextFile, TextIndex
from rdx.fulltext.pattern import SearchPattern, compile_pattern
from rdx.model.languages import LANGUAGES

__all__ = ["GrepHit", "GrepPage", "grep"]


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


@dataclass
class GrepPage:
    """A page of hits; ``total`` counts every matching line, ``files`` every matching file."""

    hits: list[GrepHit] = field(default_factory=list)
    total: int = 0
    files: int = 0
    offset: int = 0
    scanned: int = 0  # Files whose text was verified (the candidates).

    def __iter__(self) -> Iterator[GrepHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, i: int) -> GrepHit:
        return self.hits[i]


def _line_matches(body: bytes, pattern: SearchPattern) -> Iterator[tuple[int, int, int]]:
    """(match start, match end, line end) of the first match on each matching line."""
    n = len(body)
    pos = 0
    literal = pattern.literal
    search = pattern.regex.search
    anchor = pattern.anchor
    while pos <= n:
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
            m = search(body, pos)
            if m is None:
                return
            start, end = m.start(), m.end()
        if start == n and (n == 0 or body[n - 1] == 10):
            return  # An empty match after the last line break: not a line.
        line_end = body.find(b"\n", start)
        if line_end < 0:
            line_end = n
        yield start, end, line_end
        pos = line_end + 1


def _filters(glob: str | Sequence[str] | None, language: str | Sequence[str] | None) -> tuple[pathspec.PathSpec | None, pathspec.PathSpec | None, frozenset[str] | None]:
    globs = [glob] if isinstance(glob, str) else list(glob or ())
    if not all(isinstance(g, str) and g.strip("!") for g in globs):
        raise InvalidArgumentError(f"glob must be a non-empty pattern such as '*.rb' or '!test/**', got {glob!r}")
    include = [g for g in globs if not g.startswith("!")]
    exclude = [g[1:] for g in globs if g.startswith("!")]
    languages = [language] if isinstance(language, str) else list(language or ())
    unknown = [x for x in languages if x not in LANGUAGES]
    if unknown:
        raise InvalidArgumentError(f"unknown language {unknown[0]!r}; one of: {', '.join(sorted(LANGUAGES))}")
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
) -> GrepPage:
    """Search ``index``; globs match paths relative to ``relative_to`` (a ``!glob`` excludes),
    ``under`` keeps files below any of those paths."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise InvalidArgumentError(f"limit must be a non-negative integer, got {limit!r}")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidArgumentError(f"offset must be a non-negative integer, got {offset!r}")
    if not isinstance(context, int) or isinstance(context, bool) or context < 0:
        raise InvalidArgumentError(f"context must be a non-negative integer, got {context!r}")
    compiled = compile_pattern(pattern, regex=regex, ignore_case=ignore_case)
    include, exclude, languages = _filters(glob, language)
    files = [f for f in index.candidates(compiled.requirement) if _selected(f, include, exclude, languages, under, relative_to)]
    page = GrepPage(offset=offset, scanned=len(files))
    stop = None if limit is None else offset + limit
    for f, body in index.bodies(files):
        line_no = 1
        counted_to = 0
        matched = False
        for start, end, line_end in _line_matches(body, compiled):
            matched = True
            line_no += body.count(b"\n", counted_to, start)
            counted_to = start
            if page.total >= offset and (stop is None or page.total < stop):
                page.hits.append(_hit(f, body, line_no, start, end, line_end, context))
            page.total += 1
        page.files += matched
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
