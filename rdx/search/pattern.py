"""A search pattern: how to match it on a line (RE2, linear time) and which trigrams any
matching line must contain (the index query that picks candidate files).

Matching follows ripgrep's rules: a match never spans a line break (RE2's ``never_nl``), ``^``
and ``$`` are line anchors, and ``\\d``, ``\\w``, ``\\s`` are Unicode classes as in ripgrep's
default Unicode mode (``\\b`` stays ASCII: RE2 has no Unicode word boundary).

The trigram requirement is an AND/OR tree computed from the pattern's syntax tree (Russ Cox's
construction, simplified): literal runs give their trigrams, alternations an OR, anything
unbounded (``.*``, classes, optional parts) no requirement. It must never require a trigram a
match can lack, so when in doubt a part requires nothing; a pattern that requires nothing at all
is answered by scanning every file, still correctly.

Bounds, so that one request cannot hold a server: a pattern is at most ``MAX_PATTERN_BYTES``
(4 KiB) of UTF-8, rejected before any work; RE2 gets ``RE2_MAX_MEM`` (8 MiB, RE2's own default)
for its compiled program and DFA cache, and a pattern whose program does not fit is rejected;
capture groups are never recorded (only a match's bounds are used, and recording them sends RE2
to its slow NFA on every matching line); planning the trigram requirement is linear in the
pattern's size (exact strings are cut at ``_MAX_RUN`` characters). The time a search may take
is bounded in ``grep.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as sre_c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, cast

import re2  # type: ignore[import-untyped]

from rdx.model.errors import InvalidArgumentError, excerpt

__all__ = ["MAX_PATTERN_BYTES", "RE2_MAX_MEM", "Requirement", "SearchPattern", "compile_pattern"]

MAX_PATTERN_BYTES = 4096  # Longer patterns are rejected at once (UTF-8 bytes).
RE2_MAX_MEM = 8 << 20  # RE2's budget for the compiled program and its DFA cache.

# A requirement: None (nothing required), a trigram (str of 3 chars), or ("and"|"or", children).
Requirement = str | tuple[str, tuple["Requirement", ...]] | None

_MAX_EXACT = 64  # Past this many alternatives a literal set becomes a requirement.
_MAX_GRAMS = 24  # Trigrams used per literal run (evenly spread): enough to be selective.
# Exact strings longer than this become a requirement: extending them one character at a time
# would copy them again for every character, quadratic in the pattern's length.
_MAX_RUN = 64

# Ripgrep's Unicode classes, in RE2 syntax (inside a bracket expression).
_WORD = r"\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}"
_DIGIT = r"\p{Nd}"
_SPACE = r"\t\n\x0B\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}"
_CLASSES = {"w": _WORD, "d": _DIGIT, "s": _SPACE}
# Constructs where Python's parser (used only to plan) reads RE2 syntax differently.
_PLAN_UNSAFE = re.compile(r"\\[pPQEC]|\[:|\(\?[^:)]*U|\\z|\\[0-9]")


@dataclass(frozen=True)
class SearchPattern:
    """A compiled search: ``regex`` finds matches in UTF-8 bytes; ``literal`` is set for a
    case-sensitive literal (found with ``bytes.find``, faster than any regex)."""

    text: str
    regex: re2._Regexp
    literal: bytes | None
    requirement: Requirement
    # A string every match contains (case-sensitive): lines without it are skipped before
    # the regex runs.
    anchor: bytes | None = None


def _unicode_classes(pattern: str) -> str:
    """``\\w``, ``\\d``, ``\\s`` (and their negations outside brackets) as Unicode classes."""
    out: list[str] = []
    i, n, depth = 0, len(pattern), 0
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            lower = nxt.lower()
            if lower in _CLASSES and (depth == 0 or nxt.islower()):
                body = _CLASSES[lower]
                if depth:
                    out.append(body)
                else:
                    out.append(("[" if nxt.islower() else "[^") + body + "]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[" and depth == 0:
            depth = 1
            out.append(ch)
            i += 1
            # A ']' right after '[' or '[^' is a literal member.
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("]")
                i += 1
            continue
        if ch == "[" and depth and pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            if end != -1:
                out.append(pattern[i : end + 2])
                i = end + 2
                continue
        if ch == "]" and depth:
            depth = 0
        out.append(ch)
        i += 1
    return "".join(out)


def _options() -> re2.Options:
    options = re2.Options()
    options.never_nl = True  # As ripgrep: a match never includes a line break.
    options.log_errors = False
    options.max_mem = RE2_MAX_MEM
    # Only a match's bounds are used. With groups recorded, RE2 runs its NFA over every match
    # to place them, about 100 times slower on a pattern such as ``(.*){1000}``.
    options.never_capture = True
    return options


def compile_pattern(text: str, *, regex: bool, ignore_case: bool) -> SearchPattern:
    """Compile ``text`` (a literal, or an RE2 regex when ``regex``); raises
    InvalidArgumentError for an empty or invalid pattern."""
    if not isinstance(text, str):
        raise InvalidArgumentError(f"pattern must be a string, got {excerpt(text)}")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_PATTERN_BYTES:
        raise InvalidArgumentError(
            f"pattern {excerpt(text)} is longer than the {MAX_PATTERN_BYTES} bytes allowed; search for a shorter, distinctive part of it"
        )
    if text == "":
        raise InvalidArgumentError("pattern is empty; give the text or regex to find")
    if "\n" in text or "\r" in text:
        raise InvalidArgumentError("pattern contains a line break; lines are searched one at a time, search for one line")
    source = _unicode_classes(text) if regex else re2.escape(text)
    flags = "(?m)" + ("(?i)" if ignore_case else "")
    try:
        compiled = re2.compile((flags + source).encode("utf-8"), _options())
    except re2.error as exc:
        message = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        # RE2 names the error, then quotes the offending part of the (prefixed) pattern.
        reason = message.split(":")[0]
        if "too large" in reason:
            raise InvalidArgumentError(
                f"regex {excerpt(text)} compiles to a program larger than RE2's {RE2_MAX_MEM >> 20} MiB budget; use fewer or smaller repetitions"
            ) from None
        raise InvalidArgumentError(f"invalid regex {excerpt(text)}: {reason}; the syntax is RE2's (as ripgrep's)") from None
    literal = text.encode("utf-8") if not regex and not ignore_case else None
    if regex:
        requirement, must, folded = _regex_plan(text, ignore_case)
    else:
        requirement, must, folded = _literal_requirement(text, ignore_case), text, ignore_case
    # Case-sensitive only: RE2 finds a case-folded literal as fast as anything in Python
    # could, and a short anchor is too frequent to pay for running the regex line by line.
    anchor = must.encode("utf-8") if must is not None and not folded and literal is None and len(must) >= 5 else None
    return SearchPattern(text, compiled, literal, requirement, anchor)


# -- the trigram requirement -------------------------------------------------------------------


def _combine(op: str, items: list[Requirement]) -> Requirement:
    """``op`` ("and"/"or") of ``items``, flattened and deduplicated. None (nothing required)
    drops out of an AND and absorbs an OR: one alternative requiring nothing makes the whole
    require nothing."""
    # A dict keeps the first-seen order and finds duplicates in constant time.
    kept: dict[Requirement, None] = {}
    for item in items:
        if item is None:
            if op == "or":
                return None
            continue
        if isinstance(item, tuple) and item[0] == op:
            kept.update(dict.fromkeys(item[1]))
        else:
            kept[item] = None
    if not kept:
        return None
    first = next(iter(kept))
    return first if len(kept) == 1 else (op, tuple(kept))


def _and(items: list[Requirement]) -> Requirement:
    return _combine("and", items)


def _or(items: list[Requirement]) -> Requirement:
    return _combine("or", items)


def _grams(run: str) -> Requirement:
    grams = list(dict.fromkeys(run[i : i + 3] for i in range(len(run) - 2)))
    if len(grams) > _MAX_GRAMS:
        step = (len(grams) - 1) / (_MAX_GRAMS - 1)
        grams = list(dict.fromkeys(grams[round(k * step)] for k in range(_MAX_GRAMS)))
    return _and(list(grams))


def _string_requirement(s: str, ignore_case: bool) -> Requirement:
    """Trigrams of ``s``; under ``ignore_case`` a non-ASCII character breaks the run (its
    case variants may fold differently in the index)."""
    if ignore_case:
        return _and([_grams(run) for run in re.split(r"[^\x00-\x7f]", s)])
    return _grams(s)


def _literal_requirement(text: str, ignore_case: bool) -> Requirement:
    return _string_requirement(text, ignore_case)


def _exact_requirement(exact: set[str], ignore_case: bool) -> Requirement:
    return _or([_string_requirement(s, ignore_case) for s in sorted(exact)])


class _Info:
    """What a sub-pattern matches: an exact set of strings when small, else a requirement."""

    __slots__ = ("exact", "req")

    def __init__(self, exact: set[str] | None, req: Requirement = None) -> None:
        self.exact = exact
        self.req = req

    def requirement(self, ignore_case: bool) -> Requirement:
        if self.exact is not None:
            return _exact_requirement(self.exact, ignore_case)
        return self.req


def _regex_plan(text: str, ignore_case: bool) -> tuple[Requirement, str | None, bool]:
    """The trigram requirement of a regex, the longest literal every match contains, and
    whether that literal is case-folded."""
    if _PLAN_UNSAFE.search(text):
        return None, None, False
    try:
        parsed = sre_parse.parse(text, re.IGNORECASE if ignore_case else 0)
        case_insensitive = ignore_case or bool(parsed.state.flags & re.IGNORECASE)
        items = list(parsed)
        return _sequence(items, case_insensitive).requirement(case_insensitive), _longest_run(items), case_insensitive
    except Exception:  # Python's parser rejects some RE2 syntax, or nesting too deep: plan nothing, scan.
        return None, None, False


def _longest_run(items: list[tuple[object, object]]) -> str | None:
    """The longest run of plain characters at the top level of a pattern (through groups
    without alternatives): a string every match contains. Scoped flags end a run."""
    best = run = ""
    for op, av in items:
        if op is sre_c.LITERAL:
            run += chr(av)  # type: ignore[arg-type]
            continue
        if op is sre_c.SUBPATTERN and not av[1] and not av[2]:  # type: ignore[index]
            inner = list(av[3])  # type: ignore[index]
            if all(o is sre_c.LITERAL for o, _ in inner):
                run += "".join(chr(a) for _, a in inner)  # type: ignore[arg-type]
                continue
        if op is sre_c.AT:
            continue  # Zero-width: the characters on either side are adjacent in any match.
        best = max(best, run, key=len)
        run = ""
    best = max(best, run, key=len)
    return best or None


def _sequence(items: list[tuple[object, object]], ic: bool) -> _Info:
    reqs: list[Requirement] = []
    current: set[str] = {""}
    exact = True  # Whether ``current`` alone describes everything matched so far.
    for op, av in items:
        info = _node(op, av, ic)
        if info.exact is not None:
            if len(current) * len(info.exact) <= _MAX_EXACT:
                current = {a + b for a in current for b in info.exact}
                if max(map(len, current)) > _MAX_RUN:
                    # Keep the trigrams so far; the last two characters still start the next
                    # ones, as a match holds them right before what follows.
                    reqs.append(_exact_requirement(current, ic))
                    current, exact = {x[-2:] for x in current}, False
            else:
                reqs.append(_exact_requirement(current, ic))
                current, exact = set(info.exact), False
            continue
        reqs += [_exact_requirement(current, ic), info.req]
        current, exact = {""}, False
    if exact:
        return _Info(current)
    return _Info(None, _and([*reqs, _exact_requirement(current, ic)]))


def _node(op: object, av: object, ic: bool) -> _Info:
    if op is sre_c.LITERAL:
        ch = chr(av)  # type: ignore[arg-type]
        if ic and not ch.isascii():
            return _Info(None)
        return _Info({ch.lower() if ic else ch})
    if op is sre_c.AT:
        return _Info({""})
    if op is sre_c.SUBPATTERN:
        _group, add_flags, _del_flags, sub = cast(Any, av)
        return _sequence(list(sub), ic or bool(add_flags & re.IGNORECASE))
    if op is sre_c.BRANCH:
        branches = [_sequence(list(b), ic) for b in av[1]]  # type: ignore[index]
        if all(b.exact is not None for b in branches):
            union = set().union(*(b.exact for b in branches if b.exact is not None))
            if len(union) <= _MAX_EXACT:
                return _Info(union)
        return _Info(None, _or([b.requirement(ic) for b in branches]))
    if op is sre_c.IN:
        chars = _class_chars(av, ic)  # type: ignore[arg-type]
        return _Info(chars) if chars is not None else _Info(None)
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
        low, high, repeated = cast(Any, av)
        if low == 0:
            return _Info(None)
        inner = _sequence(list(repeated), ic)
        if inner.exact is not None and low == high and len(inner.exact) ** low <= _MAX_EXACT:
            exact = {""}
            for _ in range(low):
                exact = {a + b for a in exact for b in inner.exact}
            return _Info(exact)
        return _Info(None, inner.requirement(ic))
    if op is sre_c.ATOMIC_GROUP:
        return _sequence(list(av), ic)  # type: ignore[call-overload]
    return _Info(None)  # ANY, categories, NOT_LITERAL, lookarounds, backreferences...


def _class_chars(items: list[tuple[object, object]], ic: bool) -> set[str] | None:
    """The members of a small bracket class of plain characters, else None."""
    chars: set[str] = set()
    for op, av in items:
        if op is sre_c.LITERAL:
            ch = chr(av)  # type: ignore[arg-type]
            if ic and not ch.isascii():
                return None
            chars.add(ch.lower() if ic else ch)
        elif op is sre_c.RANGE and av[1] - av[0] < 4:  # type: ignore[index,operator]
            for code in range(av[0], av[1] + 1):  # type: ignore[index]
                ch = chr(code)
                if ic and not ch.isascii():
                    return None
                chars.add(ch.lower() if ic else ch)
        else:
            return None
        if len(chars) > 8:
            return None
    return chars or None
