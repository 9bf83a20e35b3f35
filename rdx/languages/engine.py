"""The one extraction engine every language shares, driven by a ``Spec``.

A spec is mostly a tree-sitter query: each pattern captures a definition node as ``@<kind>``
(a ``SymbolKind`` value) and its name as ``@name``; ``@scope`` marks a node that only
qualifies what it contains (a Rust ``impl Type``). The query runs in C; the engine then sorts
the matches by position, nests them by byte range, turns functions inside types into methods,
and reads each definition's signature (the text between its name and its body) and doc
comment (comment lines right above it, or what the spec's ``doc`` hook finds, such as a
Python docstring). Qualified names join the enclosing names with the language's separator,
after the module prefix the spec's ``module`` hook reads (a Go package clause, a Java
package declaration) or the caller gives (a Python module path).

``extract_all`` has rdx's native query runner apply these rules when it is built
(``rdx/native/query.c``: the matches found by its own matcher of the patterns
``rdx/native/patterns.py`` reads, else by tree-sitter's query cursor, and the symbols and
references made in C, text other than ASCII handed back to the functions here), else reads
py-tree-sitter's ``QueryCursor.matches`` here; both give the same records
(``tests/test_native_query.py``, ``bench/bench_polyglot.py --check``). The rules below stay
the one definition of what is extracted.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import msgspec
import tree_sitter as ts

from rdx.languages.symbols import Import, Reference, RefKind, Symbol, SymbolKind
from rdx.native import patterns
from rdx.native.query import importer as native_imports
from rdx.native.query import runner as native_query

__all__ = ["NATIVE_DOCS", "NATIVE_IMPORTS", "NATIVE_OWNERS", "Extraction", "Spec", "extract", "extract_all", "prepare", "word_spans"]

# Whether the native runner may match the patterns it reads itself (else tree-sitter's query
# cursor runs every query): both give the same matches; the benchmark compares their times.
use_matcher = True

# The hooks' rules that ``rdx/native/query.c`` reads itself (see ``Spec.native_owner``), by
# name: their codes there.
NATIVE_OWNERS = {"go-receiver": 1, "js-prototype": 2}
NATIVE_DOCS = {"python-docstring": 1}
NATIVE_IMPORTS = {"python": 1, "javascript": 2, "rust": 3, "go": 4, "c": 5}

_TYPES = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM, "scope"})
_SPACES = re.compile(r"\s+")
_MAX_SIGNATURE = 240
_MAX_DOC_LINES = 40


@dataclass(frozen=True)
class Spec:
    """How one language is read (see the module docstring)."""

    language: str
    grammar: str
    query: str
    separator: str = "."
    # Between a type and its members, when the language writes it differently (PHP ``::``).
    member_separator: str | None = None
    # The module prefix a file's own text declares (package clause), if any.
    module: Callable[[ts.Node, bytes], str | None] | None = None
    # A doc the language keeps elsewhere than in comments above (a Python docstring).
    doc: Callable[[ts.Node, bytes], str | None] | None = None
    # For a method defined outside its type (Go ``func (r *T) M()``): the type's name.
    owner: Callable[[ts.Node, bytes], str | None] | None = None
    # Node types of comments.
    comments: frozenset[str] = field(default_factory=lambda: frozenset({"comment", "line_comment", "block_comment"}))
    # A tree-sitter query for references: each pattern captures a name as ``@call``, ``@type``
    # or ``@base`` (a ``RefKind`` value) and, optionally, what is written before it as
    # ``@qualifier`` (``obj`` in ``obj.foo()``).
    references: str = ""
    # The file's imports, read from the tree.
    imports: Callable[[ts.Node, bytes], list[Import]] | None = None
    # The hooks above whose rules rdx's native query runner (``rdx/native/query.c``) reads
    # itself, by name (``NATIVE_OWNERS``, ``NATIVE_DOCS``, ``NATIVE_IMPORTS``): the hook stays
    # the one definition, answers where the runner is not built (and wherever its rule in C is
    # not sure to give the same), and ``bench/bench_polyglot.py --check`` compares both.
    native_owner: str = ""
    native_doc: str = ""
    native_imports: str = ""


class Extraction(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """Everything a file yields: its definitions, the names it uses and its imports."""

    symbols: list[Symbol]
    references: list[Reference]
    imports: list[Import]


@cache
def _parser(grammar: str) -> ts.Parser:
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar)  # type: ignore[arg-type]


@cache
def _query(grammar: str, source: str) -> ts.Query:
    from tree_sitter_language_pack import get_language

    return ts.Query(get_language(grammar), source)  # type: ignore[arg-type]


def _text(source: bytes, start: int, end: int) -> str:
    return source[start:end].decode("utf-8", "replace")


@cache
def _combined(grammar: str, definitions: str, references: str) -> tuple[ts.Query, int]:
    """One query for definitions and references (one walk of the tree instead of two, about a
    third less matching time) and the number of its patterns that are definitions'."""
    query = _query(grammar, definitions + "\n" + references)
    # The definitions' patterns are those that start in their text (counted so rather than by
    # compiling the definitions alone, which would cost another compilation).
    limit = len(definitions.encode())
    split = 0
    while split < query.pattern_count and query.start_byte_for_pattern(split) < limit:
        split += 1
    return query, split


Match = tuple[int, dict[str, list[ts.Node]]]
_CAPTURE = re.compile(r"@([A-Za-z_][\w.-]*)")


@dataclass(frozen=True)
class _Plan:
    """What the engine reads of a spec, worked out once per process rather than per match:
    the combined query, per pattern the one capture that names its definition's kind or its
    reference's kind (None when a pattern has several, which then takes the general path) and
    whether it may capture ``@qualifier``, and the grammar's ids for the node kinds and fields
    read around every definition (an id compares cheaper than a name, which is built anew as a
    Python string at every read)."""

    query: ts.Query
    split: int
    kinds: tuple[str | None, ...]
    qualified: tuple[bool, ...]
    body: int | None
    comments: frozenset[int]
    wrappers: frozenset[int]
    # The native runner's arguments after the query and the root (see ``rdx/native/query.c``:
    # split, kinds, flags, name, qualifier, uses, Reference, reference kinds, the body field,
    # the comment and wrapper node kinds, what nesting reads), None when a
    # pattern names a capture the query lacks (the Python path then answers, as it always did);
    # and each capture's name by id.
    native: tuple[object, ...] | None
    capture_names: tuple[str, ...]
    # The native runner's own matcher of the query's patterns (``rdx/native/patterns.py``):
    # its table and its lookups by root node kind, or (None, None) when a pattern uses what
    # it does not read (tree-sitter's query cursor then runs the query).
    matcher: tuple[bytes | None, bytes | None]
    # The code of the spec's imports hook's rule in the native runner (0: none).
    imports: int


_plans: dict[int, tuple[Spec, _Plan]] = {}


def _plan(spec: Spec) -> _Plan:
    found = _plans.get(id(spec))
    if found is not None and found[0] is spec:
        return found[1]
    from tree_sitter_language_pack import get_language

    language = get_language(spec.grammar)  # type: ignore[arg-type]
    if spec.references:
        query, split = _combined(spec.grammar, spec.query, spec.references)
        text = (spec.query + "\n" + spec.references).encode()
    else:
        query = _query(spec.grammar, spec.query)
        split = query.pattern_count
        text = spec.query.encode()
    kinds: list[str | None] = []
    qualified: list[bool] = []
    for pattern in range(query.pattern_count):
        names = set(_CAPTURE.findall(text[query.start_byte_for_pattern(pattern) : query.end_byte_for_pattern(pattern)].decode()))
        if pattern < split:
            candidates = [x for x in names if x != "name" and not x.startswith("_")]
        else:
            candidates = [x for x in names if x in _REF_ORDER]
        kinds.append(candidates[0] if len(candidates) == 1 else None)
        qualified.append("qualifier" in names)
    by_name: dict[str, list[int]] = {}
    for kind_id in range(language.node_kind_count):
        name = language.node_kind_for_id(kind_id)
        if name is not None:
            by_name.setdefault(name, []).append(kind_id)
    capture_names = tuple(query.capture_name(i) for i in range(query.capture_count))
    comments = frozenset(i for name in spec.comments for i in by_name.get(name, ()))
    wrappers = frozenset(i for name in _WRAPPERS for i in by_name.get(name, ()))
    node_kinds = bytearray(65536)
    for kind_id in comments:
        node_kinds[kind_id] |= 1
    for kind_id in wrappers:
        node_kinds[kind_id] |= 2
    body = language.field_id_for_name("body")
    native = _native_arguments(split, kinds, capture_names)
    plan = _Plan(
        query=query,
        split=split,
        kinds=tuple(kinds),
        qualified=tuple(qualified),
        body=body,
        comments=comments,
        wrappers=wrappers,
        native=None if native is None else (*native, -1 if body is None else body, bytes(node_kinds), _nest_arguments(spec, capture_names)),
        capture_names=capture_names,
        matcher=_matcher(language, query, text),
        imports=NATIVE_IMPORTS[spec.native_imports] if spec.native_imports and spec.imports is not None else 0,
    )
    _plans[id(spec)] = (spec, plan)
    return plan


def _matcher(language: ts.Language, query: ts.Query, text: bytes) -> tuple[bytes | None, bytes | None]:
    """The matcher's table of ``query`` (``rdx/native/patterns.py``) and its lookups, read by
    ``match_tree`` in ``rdx/native/query.c``: per node kind id (65,536 of them), where its
    entries start in the list that follows (-1: none); that list's length; the list (each
    kind's entries in order, then -1); the entries with a wildcard root (then -1)."""
    found = patterns.table(language, query, text)
    if found is None:
        return None, None
    values = array("i")
    values.frombytes(found)
    roots: dict[int, list[int]] = {}
    wildcards: list[int] = []
    at = 1
    for entry in range(values[0]):
        steps = values[at + 1]
        symbol = values[at + 3]  # The root step's symbol (after the pattern, the count, the depth).
        (wildcards if symbol < 0 else roots.setdefault(symbol, [])).append(entry)
        at += 2 + steps * patterns.STEP_SIZE
    starts = array("i", [-1]) * 65536
    order = array("i")
    for symbol, entries in sorted(roots.items()):
        starts[symbol] = len(order)
        order.extend([*entries, -1])
    index = starts + array("i", [len(order)]) + order + array("i", [*wildcards, -1])
    return found, index.tobytes()


def _native_arguments(split: int, kinds: list[str | None], capture_names: tuple[str, ...]) -> tuple[object, ...] | None:
    """What the native runner reads of a plan (see ``_Plan.native``): per pattern, a
    definition's kind capture id or a reference's index in ``_REF_ORDER`` (-1: the general
    rule); per capture, 1 when it never names a definition's kind (``@name``, ``@_x``) and 2
    for ``@scope`` (not a symbol)."""
    ids = {name: index for index, name in enumerate(capture_names)}
    if any(kind is not None and kind not in ids for kind in kinds):
        return None  # The Python path raises at such a pattern's first match.
    codes = array(
        "i", [-1 if kind is None else (ids[kind] if pattern < split else _REF_ORDER.index(kind)) for pattern, kind in enumerate(kinds)]
    )
    flags = bytes(
        (1 if name == "name" or name.startswith("_") else 0)
        | (2 if name == "scope" else 0)
        | (4 if name in _TYPES else 0)
        | (8 if name == SymbolKind.FUNCTION else 0)
        for name in capture_names
    )
    uses = tuple(ids.get(kind, -1) for kind in _REF_ORDER)
    return (split, codes.tobytes(), flags, ids.get("name", -1), ids.get("qualifier", -1), uses, Reference, _REF_ORDER)


def _nest_arguments(spec: Spec, capture_names: tuple[str, ...]) -> tuple[object, ...]:
    """What the native runner reads to nest the definitions as ``_nest`` does (see ``nest`` in
    ``rdx/native/query.c``): each capture's name (a definition's kind), the Symbol record, the
    method kind, the separators, the spec's hooks, the functions it hands text other than
    ASCII to (so that their rules stay the one definition), and the codes of the hooks' rules
    it reads itself (0: none)."""
    return (
        capture_names,
        Symbol,
        str(SymbolKind.METHOD),
        spec.separator,
        spec.member_separator,
        spec.owner,
        spec.doc,
        _signature,
        _comment_text,
        NATIVE_OWNERS[spec.native_owner] if spec.native_owner and spec.owner is not None else 0,
        NATIVE_DOCS[spec.native_doc] if spec.native_doc and spec.doc is not None else 0,
    )


def prepare(spec: Spec) -> None:
    """Make, in this process, what every file of ``spec``'s language reads: its grammar and
    parser, its plan (the query compiled: about 50 ms for JavaScript's, 120 ms for
    TypeScript's), the native runner (checked against py-tree-sitter on a sample) and its
    matcher's table. Worker processes forked afterwards inherit them rather than each making
    its own (``rdx.languages.discover.prepare_foreign``)."""
    extract_all(spec, b"")


def extract(spec: Spec, source: bytes, module: str | None = None) -> list[Symbol]:
    """The definitions in ``source``, in source order (a parent before its children)."""
    plan = _plan(spec)
    root = _parser(spec.grammar).parse(source).root_node
    return _symbols(spec, plan, root, source, module, ts.QueryCursor(_query(spec.grammar, spec.query)).matches(root))


def extract_all(spec: Spec, source: bytes, module: str | None = None) -> Extraction:
    """Definitions, references (each with its innermost enclosing symbol) and imports."""
    plan = _plan(spec)
    root = _parser(spec.grammar).parse(source).root_node
    native = plan.native
    run = native_query() if native is not None else None
    found = None
    if run is not None and native is not None:
        prefix = module if module is not None else (spec.module(root, source) if spec.module is not None else None)
        found = run(plan.query, root, *native, prefix, source, *(plan.matcher if use_matcher else (None, None)))
    if found is not None:
        # The query ran in C (rdx/native/query.c), and the rules below with it: the symbols
        # and the references come back as records; and the imports, where the spec's hook
        # is one the runner reads itself.
        imports = None
        if plan.imports:
            read = native_imports()
            imports = read(plan.imports, root, Import) if read is not None else None
        if imports is None:
            imports = spec.imports(root, source) if spec.imports is not None else []
        return Extraction(found[0], found[1], imports)
    definitions: list[Match] = []
    uses: list[Match] = []
    matches = ts.QueryCursor(plan.query).matches(root)
    if spec.references:
        split = plan.split
        for match in matches:
            (definitions if match[0] < split else uses).append(match)
    else:
        definitions = matches
    symbols = _symbols(spec, plan, root, source, module, definitions)
    references = _references(plan, source, symbols, uses) if uses else []
    imports = spec.imports(root, source) if spec.imports is not None else []
    return Extraction(symbols, references, imports)


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def word_spans(source: bytes, words: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """Where ``source`` holds one of ``words`` as a whole word, in source order: the spans a
    bytes pattern ``\\b(?:w1|w2)\\b`` finds, found by ``bytes.find`` per word instead (several
    times faster than the regular expression, which has no literal to search for). The words
    must not overlap themselves (``aa``), as keywords do not."""
    found: list[tuple[int, int]] = []
    size = len(source)
    find = source.find
    for word in words:
        length = len(word)
        start = find(word)
        while start >= 0:
            end = start + length
            if (start == 0 or source[start - 1] not in _WORD_BYTES) and (end == size or source[end] not in _WORD_BYTES):
                found.append((start, end))
            start = find(word, start + 1)
    if len(words) > 1:
        found.sort()
    return found


_REF_ORDER = (RefKind.CALL.value, RefKind.TYPE.value, RefKind.BASE.value)


def _references(plan: _Plan, source: bytes, symbols: list[Symbol], matches: list[Match]) -> list[Reference]:
    # (Per reference, every node property read builds Python objects: this loop stays lean.)
    found: dict[int, tuple[str, ts.Node, list[ts.Node] | None]] = {}
    kinds = plan.kinds
    qualified = plan.qualified
    for pattern, captures in matches:
        kind = kinds[pattern]
        if kind is not None:
            node = captures[kind][0]
            start = node.start_byte
            # One reference per name node: the first match (the most specific) wins.
            if start not in found:
                found[start] = (kind, node, captures.get("qualifier") if qualified[pattern] else None)
            continue
        for kind in _REF_ORDER:
            nodes = captures.get(kind)
            if nodes:
                node = nodes[0]
                start = node.start_byte
                if start not in found:
                    found[start] = (kind, node, captures.get("qualifier"))
                break
    # Each reference's scope: the innermost symbol containing it (symbols are in source
    # order, parents first, so a stack of open ranges finds it in one merged pass).
    result: list[Reference] = []
    append = result.append
    stack: list[int] = []
    next_symbol = 0
    count = len(symbols)
    next_start = symbols[0].start if count else -1
    for start in sorted(found):
        kind, node, qualifiers = found[start]
        if next_symbol < count and next_start <= start:
            while next_symbol < count and symbols[next_symbol].start <= start:
                while stack and symbols[stack[-1]].end <= symbols[next_symbol].start:
                    stack.pop()
                stack.append(next_symbol)
                next_symbol += 1
            next_start = symbols[next_symbol].start if next_symbol < count else -1
        while stack and symbols[stack[-1]].end <= start:
            stack.pop()
        end = node.end_byte
        if end - start > 200 or end == start:
            continue
        name = source[start:end].decode("utf-8", "replace")
        written = None
        if qualifiers:
            qualifier = qualifiers[0]
            q_start, q_end = qualifier.start_byte, qualifier.end_byte
            if q_end - q_start <= 200:
                written = source[q_start:q_end].decode("utf-8", "replace")
                if "\n" in written:
                    written = None
        row, column = node.start_point
        append(Reference(kind, name, row + 1, column, start, end, written, stack[-1] if stack else -1))
    return result


def _symbols(spec: Spec, plan: _Plan, root: ts.Node, source: bytes, module: str | None, matches: list[Match]) -> list[Symbol]:
    # Keyed by (start, -end): sorted, a parent comes before its children.
    found: dict[tuple[int, int], tuple[int, str, ts.Node, ts.Node]] = {}
    kinds = plan.kinds
    for pattern, captures in matches:
        names = captures.get("name")
        if not names:
            continue
        kind = kinds[pattern]
        if kind is not None:
            node = captures[kind][0]
        else:
            for kind, nodes in captures.items():
                if kind == "name" or kind.startswith("_"):
                    continue
                node = nodes[0]
                break
            else:
                continue
        key = (node.start_byte, -node.end_byte)
        # The first pattern that matches a node wins: specs list the most specific first.
        prior = found.get(key)
        if prior is None or prior[0] > pattern:
            found[key] = (pattern, kind, node, names[0])
    prefix = module if module is not None else (spec.module(root, source) if spec.module is not None else None)
    items: list[_Item] = []
    for key in sorted(found):
        _pattern, kind, node, name_node = found[key]
        row, column = name_node.start_point
        # Where the signature ends and the comments above: read from the node when needed.
        items.append((key[0], -key[1], kind, node, name_node.start_byte, name_node.end_byte, row, column, -1, None))
    return _nest(spec, plan, source, items, prefix)


# A definition as ``_nest`` reads it: its node's start and end, its kind, its node, its name's
# start and end bytes and start row and column, where its signature ends (-1: to be found from
# the node, ``_signature_end``) and the comments right above it (``_comment_ranges``; None: to
# be found from the node).
_Item = tuple[int, int, str, ts.Node, int, int, int, int, int, tuple[tuple[int, int], ...] | None]


def _nest(spec: Spec, plan: _Plan, source: bytes, items: list[_Item], prefix: str | None) -> list[Symbol]:
    symbols: list[Symbol] = []
    kinds: list[str] = []  # Per symbol index, including scopes (which are not emitted).
    qualified: list[str] = []
    emitted: list[int] = []  # Symbol index -> position in ``symbols`` (-1 for a scope).
    parents: list[int] = []
    stack: list[tuple[int, int]] = []  # (end byte, symbol index)
    owner_of = spec.owner
    doc_of = spec.doc
    separator = spec.separator
    member_separator = spec.member_separator
    body = plan.body
    for start, end, kind, node, name_start, name_end, row, column, signature_end, comments in items:
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1][1] if stack else -1
        name = source[name_start:name_end].decode("utf-8", "replace").strip()
        in_type = parent >= 0 and kinds[parent] in _TYPES
        if kind == SymbolKind.FUNCTION and in_type:
            kind = SymbolKind.METHOD
        owner = owner_of(node, source) if owner_of is not None else None
        if owner is not None:
            kind = SymbolKind.METHOD
            base = ((prefix + separator) if prefix else "") + owner
        elif parent >= 0:
            base = qualified[parent]
        else:
            base = prefix or ""
        join = member_separator if member_separator and (owner is not None or in_type) else separator
        full = f"{base}{join}{name}" if base else name
        index = len(kinds)
        kinds.append(kind)
        qualified.append(full)
        parents.append(parent)
        stack.append((end, index))
        if kind == "scope":
            emitted.append(-1)
            continue
        visible_parent = parent
        while visible_parent >= 0 and emitted[visible_parent] < 0:
            visible_parent = parents[visible_parent]
        emitted.append(len(symbols))
        # Positional (the fields' order: name, kind, qualified, line, column, start, end,
        # name_start, name_end, parent, signature, doc): cheaper than keywords, once a symbol.
        symbols.append(
            Symbol(
                name,
                str(kind),
                full,
                row + 1,
                column,
                start,
                end,
                name_start,
                name_end,
                emitted[visible_parent] if visible_parent >= 0 else -1,
                _signature(source, name_end, signature_end if signature_end >= 0 else _signature_end(source, node, body, name_end, end)),
                (doc_of(node, source) if doc_of is not None else None)
                or _comment_text(source, comments if comments is not None else _comment_ranges(plan, node)),
            )
        )
    return symbols


def _signature_end(source: bytes, node: ts.Node, body_field: int | None, name_end: int, node_end: int) -> int:
    """Where the signature ends: at the body, else at the end of the name's line."""
    body = node.child_by_field_id(body_field) if body_field is not None else None
    if body is not None:
        return body.start_byte
    # No body field (a type, a field, a constant): the rest of the name's line.
    end = source.find(b"\n", name_end, node_end)
    return node_end if end < 0 else end


def _signature(source: bytes, name_end: int, end: int) -> str | None:
    """The text between the name and ``end`` (parameters, return type, bases), on one line."""
    if end - name_end > 4 * _MAX_SIGNATURE:
        end = name_end + 4 * _MAX_SIGNATURE
    raw = source[name_end:end]
    if not raw.strip():
        return None
    text = raw.decode("utf-8", "replace")
    if "  " in text or "\n" in text or "\t" in text or "\r" in text:
        text = _SPACES.sub(" ", text)
    text = text.strip().rstrip(":{;").strip()
    if not text:
        return None
    return text if len(text) <= _MAX_SIGNATURE else text[: _MAX_SIGNATURE - 1] + "…"


_WRAPPERS = frozenset({"decorated_definition", "export_statement", "template_declaration"})


def _comment_ranges(plan: _Plan, node: ts.Node) -> tuple[tuple[int, int], ...]:
    """The comments directly above ``node`` (no blank line between), nearest first, as byte
    ranges (``_comment_text`` reads their lines).

    Decorators, attributes and export wrappers sit between a definition and its comments, as
    does a declaration that holds only this definition (Go's ``type X struct``): the comments
    are looked for above those. (Each node access builds a Python object: this stays lean,
    and compares kind ids, not kind names. The native runner finds the same in C.)"""
    comments = plan.comments
    wrappers = plan.wrappers
    current = node
    prev = current.prev_sibling
    while prev is None or prev.kind_id not in comments:
        parent = current.parent
        if parent is None or not (parent.kind_id in wrappers or parent.named_child_count == 1) or parent.parent is None:
            return ()
        current = parent
        prev = current.prev_sibling
    found: list[tuple[int, int]] = []
    next_row = current.start_point[0]
    while prev is not None and prev.kind_id in comments and prev.end_point[0] >= next_row - 1:
        found.append((prev.start_byte, prev.end_byte))
        next_row = prev.start_point[0]
        prev = prev.prev_sibling
    return tuple(found)


def _comment_text(source: bytes, ranges: tuple[tuple[int, int], ...]) -> str | None:
    """The lines of the comments (nearest first) without their markers, at most
    ``_MAX_DOC_LINES`` comments' worth of lines: the doc comment of what is below them."""
    if not ranges:
        return None
    lines: list[str] = []
    for start, end in ranges:
        if len(lines) >= _MAX_DOC_LINES:
            break
        lines[:0] = _text(source, start, end).splitlines()
    text = "\n".join(_strip_comment(x) for x in lines).strip()
    return text or None


_MARKERS = re.compile(r"^\s*(///?|//!|/\*\*?|\*/|\*|#|--)\s?")


def _strip_comment(line: str) -> str:
    stripped = _MARKERS.sub("", line).rstrip()
    stripped = stripped.removesuffix("*/").rstrip()
    return stripped
