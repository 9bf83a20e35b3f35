"""``textDocument/signatureHelp``: the parameters of the method a Ruby call resolves to, with
the parameter the cursor is on.

The call around the cursor is found in the buffer's syntax tree (``syntax.py``): the innermost
call whose arguments contain it. What it calls is rdx's answer at the method's name
(``Graph.definition_at``): the method, or where the receiver's type is unknown every method of
that name (one signature each, the guess marked in its documentation). A method's parameters
are its definition's signature as written, split at its top-level commas. A method that a
macro defines (``attr_reader``, ``has_many``, ``delegate``...) shows the macro call that
defines it. The active parameter follows the arguments written before the cursor: positional
ones in order (a splat takes the rest), ``key:`` arguments their keyword (else ``**opts``),
``&blk`` the block parameter.
"""

from __future__ import annotations

import re

import tree_sitter
from lsprotocol import types as lsp

import rdx
from rdx_lsp.positions import Lines
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["active_parameter", "open_call", "register", "split_parameters", "text_arguments", "written_arguments"]

MAX_SIGNATURES = 8  # Methods of one name a guess lists at most.
LOOK_BACK = 2000  # Bytes before the cursor searched for an unclosed call's parenthesis.
_NAME_BEFORE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[?!]?\Z")
_CALLS = frozenset({"call", "super"})
# A definition written as a method (``def m``, ``private def m``), not by a macro call.
_DEF = re.compile(r"\s*(?:(?:private|protected|public|module_function)\s+)?def\s")


def split_parameters(signature: str) -> list[tuple[int, int]]:
    """The (start, end) character spans of each parameter in ``(a, b = f(1, 2), &c)``: split at
    commas outside brackets and strings, blanks trimmed."""
    inner_start = 1 if signature.startswith("(") else 0
    inner_end = len(signature) - 1 if signature.endswith(")") and inner_start else len(signature)
    spans = []
    depth = 0
    quote = ""
    start = inner_start
    for i in range(inner_start, inner_end + 1):
        char = signature[i] if i < inner_end else ","
        if quote:
            quote = "" if char == quote else quote
            continue
        if char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth <= 0:
            text = signature[start:i]
            stripped = text.strip()
            if stripped:
                begin = start + len(text) - len(text.lstrip())
                spans.append((begin, begin + len(stripped)))
            start = i + 1
    return spans


# An argument as the rule below reads it: its kind (``positional``, ``pair``, ``block``,
# ``splat``, ``hash_splat``) and, for a pair, its keyword.
Argument = tuple[str, str | None]
_KINDS = {"pair": "pair", "block_argument": "block", "splat_argument": "splat", "hash_splat_argument": "hash_splat"}
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*[?!]?):(?!:)")


def written_arguments(node: tree_sitter.Node | None, offset: int) -> tuple[list[Argument], Argument | None]:
    """The arguments of an argument list written before ``offset``, and the one it is in (None
    right after a comma or the opening parenthesis)."""
    args = [c for c in node.named_children if c.type != "comment"] if node is not None else []
    before: list[Argument] = []
    current: Argument | None = None
    for a in args:
        key = None
        if a.type == "pair":
            found = a.child_by_field_name("key")
            key = found.text.decode("utf-8", "replace").rstrip(":") if found is not None and found.text is not None else ""
        argument = (_KINDS.get(a.type, "positional"), key)
        if a.end_byte < offset:
            before.append(argument)
        elif a.start_byte <= offset:
            current = argument
    return before, current


def text_arguments(text: str) -> tuple[list[Argument], Argument | None]:
    """The same from the text between an unclosed ``(`` and the cursor (a call being typed,
    which the grammar cannot parse yet): split at top-level commas, kinds by their first
    characters."""
    pieces = [text[a:b] for a, b in split_parameters(text + ",")] if text.strip() else []
    trailing = not text.strip() or text.rstrip().endswith(",")
    read: list[Argument] = []
    for piece in pieces:
        key = _KEY.match(piece)
        if key is not None:
            read.append(("pair", key.group(1)))
        elif piece.startswith("&"):
            read.append(("block", None))
        elif piece.startswith("**"):
            read.append(("hash_splat", None))
        elif piece.startswith("*"):
            read.append(("splat", None))
        else:
            read.append(("positional", None))
    if trailing or not read:
        return read, None
    return read[:-1], read[-1]


def active_parameter(params: list[str], before: list[Argument], current: Argument | None) -> int | None:
    """The parameter the argument being written goes to (see the module docstring)."""
    if not params:
        return None
    if params[0] == "...":
        return 0
    positional = [i for i, p in enumerate(params) if not p.startswith(("*", "&")) and not _keyword(p)]
    splat = next((i for i, p in enumerate(params) if p.startswith("*") and not p.startswith("**")), None)
    double = next((i for i, p in enumerate(params) if p.startswith("**")), None)
    block = next((i for i, p in enumerate(params) if p.startswith("&")), None)
    if current is not None and current[0] == "pair":
        found = next((i for i, p in enumerate(params) if _keyword(p) == current[1]), None)
        return found if found is not None else double
    if current is not None and current[0] == "block":
        return block
    written = [a for a in before if a[0] in ("positional", "splat")]
    if len(written) < len(positional):
        return positional[len(written)]
    if splat is not None:
        return splat
    keywords = [i for i, p in enumerate(params) if _keyword(p)]
    return keywords[0] if keywords else double


def open_call(source: bytes, offset: int) -> tuple[int, str, str] | None:
    """For a call being typed whose ``(`` is not closed yet: the byte offset where its method's
    name starts, the name, and the text of its arguments before ``offset``. Looks back at most
    ``LOOK_BACK`` bytes, skipping brackets closed in between and string literals on one line."""
    window_start = max(0, offset - LOOK_BACK)
    text = source[window_start:offset].decode("utf-8", "replace")
    depth = 0
    i = len(text) - 1
    while i >= 0:
        char = text[i]
        if char in "\"'":
            found = text.rfind(char, 0, i)
            i = found - 1 if found >= 0 and "\n" not in text[found:i] else i - 1
            continue
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                if char != "(":
                    return None
                name = _NAME_BEFORE.search(text[:i])
                if name is None:
                    return None
                return window_start + len(text[: name.start()].encode()), name.group(), text[i + 1 :]
            depth -= 1
        i -= 1
    return None


def _keyword(param: str) -> str | None:
    """The keyword of ``key:`` or ``key: default``, else None."""
    head = param.split(":", 1)[0]
    return head if ":" in param and head.isidentifier() else None


def _call_at(tree: tree_sitter.Tree, row: int, column: int) -> tuple[tree_sitter.Node, tree_sitter.Node | None] | None:
    """The innermost call whose arguments hold the point, and its argument list (None when it
    has none yet: ``foo `` typed before the first argument)."""
    node: tree_sitter.Node | None = tree.root_node.descendant_for_point_range((row, column), (row, column))
    point = (row, column)
    steps = 0
    while node is not None and steps < 200:  # A bounded climb: calls sit near the cursor.
        if node.type in _CALLS or node.type == "argument_list":
            call = node.parent if node.type == "argument_list" else node
            if call is not None and call.type in _CALLS:
                args = call.child_by_field_name("arguments")
                if args is not None and args.start_point < point and (point <= args.end_point or not _closed(args) and point[0] == args.end_point[0]):
                    # Inside ``(...)``, or after a parenthesis-less call's first argument.
                    if not (_closed(args) and point == args.end_point):
                        return call, args
        node = node.parent
        steps += 1
    return None


def _closed(args: tree_sitter.Node) -> bool:
    return args.child_count > 0 and args.children[-1].type == ")"


def _signatures(graph: rdx.Graph, lines: Lines, target: rdx.Target) -> list[tuple[str, str, str | None]]:
    """(label, parameters as written, documentation) for each method the call may reach."""
    names = [target.name] if target.certain else target.candidates[:MAX_SIGNATURES]
    out: list[tuple[str, str, str | None]] = []
    for name in names:
        decl = graph.get(name)
        if decl is None or decl.kind != "Method":
            continue
        definitions = decl.definitions
        signature = next((d.signature for d in definitions if d.signature), None) or "()"
        short = decl.unqualified_name.removesuffix("()")
        notes = [f"`{decl.name}`"]
        if not target.certain:
            notes.append("*uncertain*: the receiver's type is unknown; a method of that name")
        for d in definitions[:1]:
            written = lines.text(rdx.Location(d.location.path, d.location.start_line, d.location.start_column, d.location.start_line, 10**6, d.uri))
            if written and not _DEF.match(written):
                notes.append(f"defined by `{written.strip()}`")  # A macro call or an attr_*.
        if decl.comments:
            notes.append("\n".join(c.lstrip("#").strip() for c in decl.comments))
        out.append((short + signature, signature, "\n\n".join(notes)))
    return out


def register(server: RdxLanguageServer) -> None:
    options = lsp.SignatureHelpOptions(trigger_characters=["(", ",", " "], retrigger_characters=[","])

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, options)
    async def signature_help(ls: RdxLanguageServer, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        uri = params.text_document.uri
        path = uri_path(uri)
        graph = await ls.ready()
        if path is None or not path.endswith((".rb", ".rake", ".ru", ".gemspec")):
            return None
        text = ls.text(uri)
        source = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        lines = ls.lines()
        line, column = lines.to_rdx(uri, path, params.position)
        offset = _offset(source, line, column)
        found = _call_at(parse_ruby(uri, source), line - 1, column)
        if found is not None:
            call, args = found
            method = call.child_by_field_name("method") if call.type == "call" else call
            if method is None:
                return None
            name_at = (method.start_point.row + 1, method.start_point.column)
            name = method.text.decode("utf-8", "replace") if method.text is not None else ""
            before, current = written_arguments(args, offset)
        else:
            typed = open_call(source, offset)
            if typed is None:
                return None
            start, name, inside = typed
            row = source.count(b"\n", 0, start)
            name_at = (row + 1, start - (source.rfind(b"\n", 0, start) + 1))
            before, current = text_arguments(inside)
        target = _target(graph, path, name_at, name)
        if target is None:
            return None
        signatures = []
        active = None
        for label, signature, documentation in _signatures(graph, lines, target):
            base = len(label) - len(signature)
            spans = split_parameters(signature)
            parameters = [lsp.ParameterInformation(label=(base + a, base + b)) for a, b in spans]
            written = [signature[a:b] for a, b in spans]
            index = active_parameter(written, before, current)
            if active is None:
                active = index
            doc = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=documentation) if documentation else None
            signatures.append(lsp.SignatureInformation(label=label, documentation=doc, parameters=parameters, active_parameter=index))
        if not signatures:
            return None
        return lsp.SignatureHelp(signatures=signatures, active_signature=0, active_parameter=active)


def _target(graph: rdx.Graph, path: str, at: tuple[int, int], name: str) -> rdx.Target | None:
    """What the call whose method's name starts at ``at`` reaches: rdx's answer there, or, in a
    buffer whose syntax is broken while the call is typed (rdx then cannot resolve it), the
    method of that name that completion offers there (self's methods, or the receiver's), else
    every method of that name (uncertain)."""
    try:
        target = graph.definition_at(path, *at)
        if target is not None and target.kind == "Method":
            return target
        offered = graph.completions_at(path, at[0], at[1] + len(name.encode()))
    except rdx.InvalidArgumentError:
        return None  # The buffer moved on since the request was sent.
    found = next((c for c in offered if c.label == name and c.kind == "Method"), None)
    if found is not None:
        return rdx.Target(found.detail, "Method", [])
    # Where the syntax error took the scope around the call with it: the methods of that
    # name, a guess marked as one.
    named = [d.name for d in graph.search(name, match_mode="exact", kind="Method", limit=MAX_SIGNATURES) if d.name.endswith(f"#{name}()")]
    return rdx.Target(name + "()", "Method", [], certain=False, candidates=named) if named else None


def _offset(source: bytes, line: int, column: int) -> int:
    """The byte offset of a 1-based line and byte column."""
    start = 0
    for _ in range(line - 1):
        found = source.find(b"\n", start)
        if found < 0:
            return len(source)
        start = found + 1
    return start + column
