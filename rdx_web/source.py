"""Source as HTML lines: Pygments' tokens with links woven in, every text escaped. It owns the
rendering only; which names link where is decided by the caller (``rdx_web.pages``).

Highlighting has a time budget: Pygments' lexers are regular-expression machines, and some
files (a generated 1.4 MB parser) take them tens of seconds. Past the budget the rest of the
file is shown as plain text, still with its links and line anchors, and ``Rendered.partial``
says from which line.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from html import escape
from typing import Any

from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
from pygments.token import STANDARD_TYPES, Token  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

__all__ = ["HIGHLIGHT_BUDGET", "Link", "Rendered", "char_columns", "render"]

HIGHLIGHT_BUDGET = 0.15  # Seconds of lexing per file; the rest is plain text.
_CHECK_EVERY = 512  # Tokens between two looks at the clock.


@dataclass(frozen=True)
class Link:
    """A span of one line (character columns) that becomes ``<a>``: its URL, CSS class and
    tooltip. Text only: the renderer escapes all three."""

    start: int
    end: int
    href: str
    css: str = "ref"
    title: str = ""


@dataclass
class Rendered:
    lines: list[str] = field(default_factory=list)  # One HTML fragment per line (see ``render``).
    language: str = "text"
    partial: int | None = None  # The first line shown without highlighting, when the budget ran out.


_CLASS_CACHE: dict[Any, str] = {}  # Pygments token type -> its short CSS class.


def _css_class(ttype: Any) -> str:
    found = _CLASS_CACHE.get(ttype)
    if found is None:
        t = ttype
        while t not in STANDARD_TYPES and t.parent is not None:
            t = t.parent
        found = _CLASS_CACHE[ttype] = STANDARD_TYPES.get(t, "")
    return found


def _lexer(filename: str, text: str) -> Lexer:
    try:
        return get_lexer_for_filename(filename, text[:4096], stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def char_columns(line: str, byte_columns: list[int]) -> list[int]:
    """rdx's byte columns on ``line`` as character indexes (the same on an ASCII line)."""
    if line.isascii():
        return byte_columns
    out = []
    for b in byte_columns:
        out.append(len(line.encode("utf-8")[:b].decode("utf-8", "ignore")))
    return out


def _tokens_by_line(text: str, lexer: Lexer, budget: float) -> tuple[list[list[tuple[str, str]]], int | None]:
    """Per line, (css class, text) pieces covering the line; lines after the budget ran out
    are missing from the list (the caller shows them plain)."""
    lines: list[list[tuple[str, str]]] = [[]]
    deadline = time.perf_counter() + budget
    consumed = 0
    for n, (_, ttype, value) in enumerate(lexer.get_tokens_unprocessed(text)):
        if n % _CHECK_EVERY == 0 and n and time.perf_counter() > deadline:
            # Drop the line being built: it is shown plain, with the rest.
            lines.pop()
            return lines, len(lines) + 1
        css = _css_class(ttype) if ttype is not Token.Text else ""
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part:
                lines[-1].append((css, part))
        consumed += len(value)
    return lines, None


def _weave(pieces: list[tuple[str, str]], links: list[Link]) -> str:
    """One line's HTML: the pieces in spans, the links' spans inside ``<a>``, cut at link
    boundaries so that tags always nest."""
    out: list[str] = []
    li = 0
    open_link: Link | None = None
    pos = 0
    for css, text in pieces:
        i = 0
        size = len(text)
        while i < size:
            here = pos + i
            if open_link is not None and here >= open_link.end:
                out.append("</a>")
                open_link = None
            while li < len(links) and links[li].end <= here:
                li += 1
            if open_link is None and li < len(links) and links[li].start <= here:
                open_link = links[li]
                li += 1
                title = f' title="{escape(open_link.title)}"' if open_link.title else ""
                out.append(f'<a class="{escape(open_link.css)}" href="{escape(open_link.href)}"{title}>')
            stop = pos + size
            if open_link is not None:
                stop = min(stop, open_link.end)
            elif li < len(links):
                stop = min(stop, max(links[li].start, here + 1))
            chunk = escape(text[i : stop - pos], quote=False)
            out.append(f'<span class="{css}">{chunk}</span>' if css else chunk)
            i = stop - pos
        pos += size
    if open_link is not None:
        out.append("</a>")
    return "".join(out)


def render(
    filename: str, text: str, links: dict[int, list[Link]], budget: float = HIGHLIGHT_BUDGET, badges: dict[int, str] | None = None
) -> Rendered:
    """``text`` as highlighted HTML lines with ``links`` (by 1-based line, character columns;
    overlapping links keep the first). Each line is a ``<span id="L<n>">`` with its number as
    its first link, then its code and ``badges[n]`` (HTML, already escaped)."""
    raw_lines = text.split("\n")
    lexer = _lexer(filename, text)
    if isinstance(lexer, TextLexer):
        tokens: list[list[tuple[str, str]]] = []
        partial = None
    else:
        tokens, partial = _tokens_by_line(text, lexer, budget)
    # Lines past the highlighted ones, escaped in one call (escape leaves newlines alone).
    plain = escape("\n".join(raw_lines[len(tokens) :]), quote=False).split("\n") if len(tokens) < len(raw_lines) else []
    badges = badges or {}
    rendered = Rendered(language=lexer.name, partial=partial)
    out = rendered.lines
    highlighted = len(tokens)
    for n, line in enumerate(raw_lines, start=1):
        line_links = links.get(n)
        if n > highlighted and not line_links:
            html = plain[n - highlighted - 1]
        else:
            pieces = tokens[n - 1] if n <= highlighted else [("", line)] if line else []
            if not line_links:
                html = "".join(f'<span class="{c}">{escape(t, quote=False)}</span>' if c else escape(t, quote=False) for c, t in pieces)
            else:
                kept: list[Link] = []
                for link in sorted(line_links, key=lambda k: (k.start, -k.end)):
                    if link.end > link.start and (not kept or link.start >= kept[-1].end):
                        kept.append(link)
                html = _weave(pieces, kept)
        # Short markup (a 1.4 MB file has 40,000 lines): the stylesheet styles ``pre.src > span``
        # as a line and its first ``a`` as the line number.
        out.append(f'<span id="L{n}"><a href="#L{n}">{n}</a>{html}{badges.get(n, "")}\n</span>')
    return rendered
