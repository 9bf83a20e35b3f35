"""The rdx MCP server: thin tool adapters over the public ``rdx`` API.

A ``Workspace`` (``workspace.py``) owns one project's graph; the output models and paging are
in ``models.py``. The tools that ``rdx serve``'s JSON API also answers are module-level
functions of the workspace (``ANSWERS``), so both surfaces build their answers with one function.
Every list tool takes ``max_tokens`` (the list is cut to about that many tokens and says
``truncated``); long lists page with ``limit``/``offset`` and say ``total``/``next_offset``; lists are in a
documented, deterministic order. Errors the model can act on are tool errors whose text is a JSON
object ``{type, message, suggestion}``.

Bounds: string arguments have maximum lengths (``models.py``), checked before a tool runs, and
errors quote at most an excerpt of what they were given. The SDK runs these synchronous tools in
worker threads; graph tools take the workspace's lock (the watcher thread updates the graph under
it), but ``index_status`` and ``search_code`` do not: the first reads a few fields, the second
only the text index, which is thread-safe. So a search, which stops at its time budget
(``timeout``, 5 s by default, at most ``MAX_TIMEOUT``), never delays a status request.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field, ValidationError

import rdx
from rdx_mcp.errors import tool_error as _error
from rdx_mcp.models import (
    MAX_LIST_ITEMS,
    MAX_NAME_CHARS,
    MAX_PATTERN_CHARS,
    CodeFile,
    CodeLine,
    CodePage,
    DeclarationOut,
    DefinitionOut,
    FilePath,
    Filter,
    FlatRef,
    HoverOut,
    Item,
    MapOut,
    MaxTokens,
    Name,
    Offset,
    Page,
    RefFile,
    RefItem,
    RefPage,
    Stats,
    Status,
    Targets,
    compact_schema,
    envelope_tokens,
    page_of,
    whole,
)
from rdx_mcp.workspace import Workspace

__all__ = ["ANSWERS", "UNLOCKED", "Workspace", "answer_arguments", "build_server", "internal_error", "wire_json"]

MAX_SEARCH = 100
MAX_DESCENDANTS = 500
MAX_REFERENCES = 200
MAX_CODE_LINES = 500
MAX_LINE_CHARS = 300  # Longer lines (minified code, data) are cut, with a marker.
GREP_TIMEOUT = 5.0  # Seconds a search_code call may take unless it asks otherwise.
MAX_TIMEOUT = 60.0  # The most a call may ask for: a server answers many clients.
log = logging.getLogger("rdx.mcp")


def _configure_logging() -> None:
    """One plain line on stderr per record, WARNING and above: the SDK would install rich's
    handler (a multi-line box per record) and log every tool error at INFO. rdx logs each tool
    error itself, as one WARNING line (``_RdxServer.call_tool``); the SDK's own INFO line about
    it is silenced. Left alone when the host process configured logging already."""
    logging.getLogger("mcp.server.mcpserver.server").setLevel(logging.WARNING)
    if not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("rdx mcp: %(levelname)s %(message)s"))
        logging.basicConfig(level=logging.WARNING, handlers=[handler])


def _log_tool_error(name: str, error: ToolError) -> ToolError:
    """Log a tool error as one line (its JSON message, without the SDK's prefix) and return it."""
    text = str(error)
    try:
        body = json.loads(text[text.index("{") :])
        line = f"{body.get('type')}: {body.get('message')}"
    except ValueError:
        line = text
    log.warning("tool %s failed: %s", rdx.excerpt(name), line.replace("\n", "\\n").replace("\r", "\\r"))
    return error


class _RdxServer(MCPServer):
    """MCPServer whose argument and internal errors also read ``{type, message, suggestion}``."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise _log_tool_error(name, argument_error(name, cause)) from None
            text = str(exc)
            if '{"type"' in text:
                # Our own error object, without the SDK's "Error executing tool ..." prefix.
                raise _log_tool_error(name, ToolError(text[text.index('{"type"') :])) from None
            if type(exc).__name__ == "UnexpectedToolError":
                log.error("tool %s raised an unexpected exception", rdx.excerpt(name), exc_info=cause)
                raise internal_error(name, cause) from None
            raise _log_tool_error(name, _error("invalid_argument", str(exc), "check the tool name and arguments")) from None
        if isinstance(result, CallToolResult) and isinstance(result.structured_content, dict) and len(result.content) == 1:
            block = result.content[0]
            if isinstance(block, TextContent):
                # The SDK indents the text copy; a model reads it, so send the same JSON
                # compactly, without null-valued item fields (both copies stay identical).
                structured = _drop_nulls(result.structured_content)
                result.structured_content = structured
                block.text = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
        return result


def _drop_nulls(value: Any, top: bool = True) -> Any:
    """``value`` without null-valued keys inside its lists' items (optional fields such as a
    reference's receiver); top-level keys stay, so ``next_offset`` is null at the end."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v, False) for k, v in value.items() if v is not None or top}
    if isinstance(value, list):
        return [_drop_nulls(v, False) for v in value]
    return value


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + f"… (+{len(text) - MAX_LINE_CHARS} chars)"


# -- answers shared with rdx_web's JSON API ---------------------------------------------------
#
# Five tools are also ``rdx serve``'s JSON API (``rdx_web.api``): each answer is one function
# of the workspace and the tool's typed parameters, returning the output model. The tools of
# ``build_server`` call them (under the workspace's lock unless in ``UNLOCKED``); the JSON API
# validates a query string against the answer's signature (``answer_arguments``, the SDK's own
# validation, so the same errors), calls the same function and sends ``wire_json`` of the
# model, so both surfaces give the same JSON. An answer never takes the lock itself: its
# caller does.


def _declaration(g: rdx.Graph, name: str) -> rdx.Declaration:
    decl = g.get(name)
    if decl is None:
        near = g.suggest(name)  # The nearest names, typos first: what every surface offers.
        raise _error("not_found", f"no declaration named {rdx.excerpt(name)}", f"did you mean: {', '.join(near)}" if near else "use search_declarations")
    return decl


def _language_of(d: rdx.Declaration) -> str | None:
    language = getattr(d, "language", "ruby")
    return None if language == "ruby" else language


def _item(workspace: Workspace, d: rdx.Declaration) -> Item:
    return Item(name=d.name, kind=d.kind, location=workspace.loc(d.location), language=_language_of(d))


def search_declarations_answer(
    workspace: Workspace,
    query: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)],
    kind: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="Class, Method, ... (Ruby); class, function, ... (others)")] = None,
    match_mode: Annotated[str, Field(pattern="^(ranked|fuzzy|exact|prefix)$")] = "ranked",
    path: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="part of the defining file's path")] = None,
    language: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="ruby, python, typescript, go, rust, ...")] = None,
    dependencies: Annotated[bool, Field(description="include the gems' declarations")] = True,
    limit: Annotated[int, Field(ge=1)] = 20,
    offset: Offset = 0,
    max_tokens: MaxTokens = None,
) -> Page:
    g = workspace.graph()
    try:
        found = g.search(
            query,
            kind=kind,
            match_mode=match_mode,
            path=path,
            limit=MAX_SEARCH if match_mode == "ranked" else None,
            language=language,
            dependencies=dependencies,
        )
    except rdx.InvalidArgumentError as exc:
        raise _error("invalid_argument", str(exc), "fix the argument named in the message") from None
    chunk, meta = page_of(found, offset, limit, MAX_SEARCH, max_tokens, lambda d: _item(workspace, d))
    return Page(items=chunk, revision=g.revision, **meta)


def get_declaration_answer(workspace: Workspace, name: Name, max_tokens: MaxTokens = None) -> DeclarationOut:
    g = workspace.graph()
    s = _declaration(g, name).summary()
    out = DeclarationOut(
        name=s.name,
        kind=s.kind,
        language=None if s.language == "ruby" else s.language,
        origin=None if s.origin == "project" else s.origin,
        owner=s.owner,
        visibility=s.visibility,
        definitions=[DefinitionOut(kind=x.kind, location=workspace.loc(x.location), comments=x.comments, signature=x.signature) for x in s.definitions],
        ancestors=s.ancestors,
        members=[Item(name=m.name, kind=m.kind, location=workspace.loc(m.location)) for m in s.members],
        revision=g.revision,
    )
    if max_tokens is not None:
        while out.members and rdx.count_tokens(out.model_dump_json(exclude_none=True)) > max_tokens:
            out.members = out.members[: len(out.members) // 2]
            out.truncated = True
    return out


def search_code_answer(
    workspace: Workspace,
    pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATTERN_CHARS)],
    regex: bool = False,
    ignore_case: bool = False,
    glob: Annotated[list[Name] | None, Field(max_length=MAX_LIST_ITEMS, description="e.g. ['*.rb', '!test/**']")] = None,
    language: Annotated[Filter | None, Field(description="ruby, markdown, yaml, ...")] = None,
    context: Annotated[int, Field(ge=0, le=10)] = 0,
    limit: Annotated[int, Field(ge=1)] = 50,
    offset: Offset = 0,
    max_tokens: MaxTokens = None,
    timeout: Annotated[float, Field(gt=0, le=MAX_TIMEOUT)] = GREP_TIMEOUT,  # Seconds; then complete=false.
) -> CodePage:
    g = workspace.text()  # The graph's text index, or before it is ready, the text index alone.
    clamped = limit > MAX_CODE_LINES
    limit = min(limit, MAX_CODE_LINES)
    try:
        page = g.grep(
            pattern, regex=regex, ignore_case=ignore_case, glob=glob, language=language, context=context, limit=limit, offset=offset,
            timeout=timeout,
        )
    except rdx.InvalidArgumentError as exc:
        raise _error("invalid_argument", str(exc), "fix the pattern or filter named in the message") from None
    hits = list(page)
    truncated = False

    def grouped() -> list[CodeFile]:
        files: list[CodeFile] = []
        for h in hits:
            path = rdx.display_path(workspace.rel(h.path) or h.path)  # A name that is not UTF-8 as \xff escapes.
            if not files or files[-1].path != path:
                files.append(CodeFile(path=path, language=h.language, lines=[]))
            line = CodeLine(line=h.line, column=h.column, text=_cut(h.text))
            if context:
                line.before, line.after = [_cut(x) for x in h.before], [_cut(x) for x in h.after]
            files[-1].lines.append(line)
        return files

    files = grouped()
    if max_tokens is not None:
        envelope = envelope_tokens(page.total, offset, limit)
        while hits and envelope + rdx.count_tokens(json.dumps([f.model_dump(exclude_none=True) for f in files], separators=(",", ":"))) > max_tokens:
            hits = hits[: len(hits) * 3 // 4]
            files = grouped()
            truncated = True
    end = offset + len(hits)
    return CodePage(
        total=page.total, offset=offset, limit=limit, next_offset=end if end < page.total else None, limit_clamped=clamped,
        truncated=truncated, revision=getattr(g, "revision", 0), matched_files=page.files, files=files, complete=page.complete,
    )


def codebase_stats_answer(workspace: Workspace) -> Stats:
    return Stats(**workspace.graph().stats())  # type: ignore[arg-type]


def index_status_answer(workspace: Workspace) -> Status:
    # Reads a few of the workspace's fields without its lock (see the module docstring).
    g = workspace._graph
    done, total = workspace._progress
    if g is None:
        return Status(state="failed" if workspace._error else "indexing", indexed_files=done, total_files=total)
    files = len(g.documents) - 1  # Without Ruby's core stub.
    return Status(
        state="ready",
        revision=g.revision,
        files=files,
        # Every file is indexed once ready (progress only counted those parsed again).
        indexed_files=files,
        total_files=files,
        pending_changes=len(workspace.pending),
        last_indexed=workspace.last_indexed,
    )


# Tool name -> its answer, for the surfaces that share them (rdx_web's JSON API).
ANSWERS: dict[str, Callable[..., BaseModel]] = {
    "search_declarations": search_declarations_answer,
    "get_declaration": get_declaration_answer,
    "search_code": search_code_answer,
    "codebase_stats": codebase_stats_answer,
    "index_status": index_status_answer,
}
# Tools that run without the workspace lock (see the module docstring).
UNLOCKED = frozenset({"index_status", "search_code"})


@functools.cache
def _arguments_of(name: str) -> Any:
    return func_metadata(ANSWERS[name], skip_names=["workspace"])


def answer_arguments(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` (strings, lists of strings or JSON values) validated and converted for the
    answer ``name`` exactly as the MCP SDK does for the tool of that name; a bad one raises the
    same ``invalid_argument`` tool error as the MCP server."""
    try:
        return dict(_arguments_of(name).validate_arguments(arguments))
    except ValidationError as exc:
        raise argument_error(name, exc) from None


def argument_error(name: str, exc: ValidationError) -> ToolError:
    """The ``invalid_argument`` tool error for arguments of the tool ``name`` that failed validation."""
    problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors())
    return _error("invalid_argument", f"{name}: {problems}", "fix the named arguments (see the tool's input schema)")


def internal_error(name: str, exc: BaseException | None) -> ToolError:
    """The ``internal`` tool error for an answer that raised something unexpected."""
    return _error("internal", f"{rdx.excerpt(name)} failed: {rdx.excerpt(repr(exc), 300)}", "this is a bug in rdx; other tools still work")


def wire_json(answer: BaseModel) -> Any:
    """An answer's JSON as the MCP server sends it (structured content): aliases, JSON types,
    no null-valued fields inside list items."""
    return _drop_nulls(answer.model_dump(mode="json", by_alias=True))


# Tool name -> the SDK's tool as this process first made it. Its argument model and its input and
# output schemas come from the function's signature, the same for every workspace, and building
# them took nearly all of ``build_server``'s time (about 0.1 s); later servers copy the tool with
# their own workspace's function.
_TOOLS: dict[str, Tool] = {}


def _tool(fn: Callable[..., Any], description: str) -> Tool:
    """The SDK's tool that runs ``fn``, with compact input schemas (pydantic's titles only
    repeat the parameter names: ``compact_schema``)."""
    made = _TOOLS.get(fn.__name__)
    if made is None:
        made = _TOOLS[fn.__name__] = Tool.from_function(fn, description=description)
        compact_schema(made.parameters, output=False)
    return made.model_copy(update={"fn": fn})


def build_server(workspace: Workspace) -> MCPServer:
    """The MCP server with every rdx tool bound to ``workspace``."""

    def locked(fn: Any) -> Any:
        # Tools and the watcher thread share one graph: one at a time.
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with workspace.lock:
                return fn(*args, **kwargs)

        return run

    tools: list[Tool] = []

    def tool(description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tools.append(_tool(fn if fn.__name__ in UNLOCKED else locked(fn), description))
            return fn

        return register

    declaration = _declaration

    def at(call: Any, file_path: str, line: int, column: int) -> Any:
        """A position question; a position outside the file is an invalid argument."""
        try:
            return call(position(file_path), line, column)
        except rdx.InvalidArgumentError as exc:
            raise _error("invalid_argument", str(exc), "pass a line and column that exist in the file (line 1-based, column 0-based)") from None

    language_of = _language_of

    def item(d: rdx.Declaration) -> Item:
        return _item(workspace, d)

    # The tools the JSON API shares (``ANSWERS``): the signature is the answer's without the
    # workspace (tests/test_web.py checks that both give the same schema).
    @tool(
        description="Find declarations of any language, best first: ranked (default) takes a description ('parse one CSV line', "
        "AND/OR/-word, prefix*); exact/prefix/fuzzy match Ruby names."
    )
    def search_declarations(
        query: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)],
        kind: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="Class, Method, ... (Ruby); class, function, ... (others)")] = None,
        match_mode: Annotated[str, Field(pattern="^(ranked|fuzzy|exact|prefix)$")] = "ranked",
        path: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="part of the defining file's path")] = None,
        language: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="ruby, python, typescript, go, rust, ...")] = None,
        dependencies: Annotated[bool, Field(description="include the gems' declarations")] = True,
        limit: Annotated[int, Field(ge=1)] = 20,
        offset: Offset = 0,
        max_tokens: MaxTokens = None,
    ) -> Page:
        return search_declarations_answer(workspace, query, kind, match_mode, path, language, dependencies, limit, offset, max_tokens)

    @tool(description="A declaration: kind, definitions with locations and comments, ancestors, members.")
    def get_declaration(name: Name, max_tokens: MaxTokens = None) -> DeclarationOut:
        return get_declaration_answer(workspace, name, max_tokens)

    @tool(description="Classes and modules that have this one among their ancestors, by name.")
    def get_descendants(name: Name, limit: Annotated[int, Field(ge=1)] = 100, offset: Offset = 0, max_tokens: MaxTokens = None) -> Page:
        g = workspace.graph()
        chunk, meta = page_of(declaration(g, name).descendants, offset, limit, MAX_DESCENDANTS, max_tokens, item)
        return Page(items=chunk, revision=g.revision, **meta)

    @tool(description="Ancestors of a class or module, in Ruby's lookup order.")
    def get_ancestors(name: Name, max_tokens: MaxTokens = None) -> Page:
        g = workspace.graph()
        items = [item(a) for a in declaration(g, name).ancestors]
        return whole(items, g.revision, max_tokens)

    def references(name: str, want: str, offset: int, limit: int, max_tokens: int | None) -> RefPage:
        g = workspace.graph()
        d = declaration(g, name)
        if getattr(d, "language", "ruby") == "ruby" and (d.kind == "Method") != (want == "method"):
            other = "find_method_references" if d.kind == "Method" else "find_constant_references"
            raise _error("invalid_argument", f"{name} is a {d.kind}", f"use {other}")
        # Documented order: by file path (relative to the project), then line, then column.
        found = [(workspace.rel(r.location.path) or r.location.path, r) for r in g.references_to(d)]
        found.sort(key=lambda x: (x[0], x[1].location.start_line, x[1].location.start_column))

        def flat(entry: tuple[str, rdx.Reference]) -> FlatRef:
            path, r = entry
            loc = r.location
            at = f"{loc.start_line}:{loc.start_column}-{loc.end_line}:{loc.end_column}"
            return FlatRef(path=path, ref=RefItem(at=at, name=r.name, certain=r.certain, receiver=r.receiver))

        chunk, meta = page_of(found, offset, limit, MAX_REFERENCES, max_tokens, flat)
        files: list[RefFile] = []
        for f in chunk:
            if not files or files[-1].path != f.path:
                files.append(RefFile(path=f.path, refs=[]))
            files[-1].refs.append(f.ref)
        return RefPage(files=files, revision=g.revision, **meta)

    @tool(description="Where a constant (class, module, constant) is referenced, through aliases; by location. "
                 "Other languages: any declaration's uses.")
    def find_constant_references(name: Name, limit: Annotated[int, Field(ge=1)] = 50, offset: Offset = 0, max_tokens: MaxTokens = None) -> RefPage:
        return references(name, "constant", offset, limit, max_tokens)

    @tool(description="Call sites of a method like Foo#bar(); certain=false when the receiver is unknown. "
                 "Other languages: any declaration's uses.")
    def find_method_references(name: Name, limit: Annotated[int, Field(ge=1)] = 50, offset: Offset = 0, max_tokens: MaxTokens = None) -> RefPage:
        return references(name, "method", offset, limit, max_tokens)

    @tool(description="Declarations defined in one file, in file order.")
    def get_file_declarations(file_path: FilePath, max_tokens: MaxTokens = None) -> Page:
        g = workspace.graph()
        path = file_path if os.path.isabs(file_path) else os.path.join(workspace.root, file_path)
        doc = g.document(path)
        if doc is None:
            raise _error("not_found", f"{rdx.excerpt(file_path)} is not indexed", "pass a path relative to the project root")
        items = []
        for defn in doc.definitions:
            decl = defn.declaration
            if decl is not None:
                items.append(Item(name=decl.name, kind=defn.kind, location=workspace.loc(defn.location), language=language_of(decl)))
        return whole(items, g.revision, max_tokens)

    @tool(description="What a constant written inside a nesting (outermost first, as written) refers to.")
    def resolve_constant(name: Name, nesting: Annotated[list[Name] | None, Field(max_length=MAX_LIST_ITEMS)] = None) -> Item:
        g = workspace.graph()
        try:
            d = g.resolve_constant(name, nesting or [])
        except rdx.InvalidArgumentError as exc:
            raise _error("invalid_argument", str(exc), "pass a constant path such as Foo::Bar") from None
        if d is None:
            inside = rdx.excerpt(" > ".join(nesting)) if nesting else "the top level"
            near = g.suggest(name, nesting=nesting or [])
            raise _error("not_found", f"{rdx.excerpt(name)} does not resolve inside {inside}", "check the nesting" + (f"; did you mean: {', '.join(near)}" if near else ""))
        return item(d)

    def position(file_path: str) -> str:
        return file_path if os.path.isabs(file_path) else os.path.join(workspace.root, file_path)

    @tool(description="Go to definition from a position (line 1-based, column 0-based).")
    def definition_at(
        file_path: FilePath, line: Annotated[int, Field(ge=1)], column: Annotated[int, Field(ge=0)], max_tokens: MaxTokens = None
    ) -> Targets:
        g = workspace.graph()
        target = at(g.definition_at, file_path, line, column)
        if target is None:
            raise _error("not_found", f"nothing to go to at {rdx.excerpt(file_path)}:{line}:{column}", "point at a constant, a method call or a require")
        if not target.certain:
            # A guess by name (the receiver's type is unknown): each method of that name.
            items = [Item(name=n, kind=target.kind, location=workspace.loc(loc)) for n, loc in zip(target.candidates, target.locations, strict=False)]
        else:
            items = [Item(name=target.name, kind=target.kind, location=workspace.loc(loc)) for loc in target.locations]
        return Targets(**whole(items, g.revision, max_tokens).model_dump(), certain=target.certain)

    @tool(description="Name, kind, signature, owner, ancestors and comments at a position.")
    def hover_at(file_path: FilePath, line: Annotated[int, Field(ge=1)], column: Annotated[int, Field(ge=0)]) -> HoverOut:
        g = workspace.graph()
        hover = at(g.hover_at, file_path, line, column)
        if hover is None:
            raise _error("not_found", f"nothing known at {rdx.excerpt(file_path)}:{line}:{column}", "point at a name")
        several = not hover.certain and len(hover.candidates) > 1
        return HoverOut(
            name=hover.name,
            kind=hover.kind,
            owner=hover.owner,
            visibility=hover.visibility,
            definitions=[] if several else [
                DefinitionOut(kind=hover.kind, location=workspace.loc(hover.location), comments=hover.comments, signature=hover.signature)
            ],
            ancestors=hover.ancestors,
            revision=g.revision,
            certain=hover.certain,
            candidates=hover.candidates if several else None,
        )

    @tool(
        description="Grep every file (any language): a literal, or an RE2 regex with regex=true. Lines grouped by file, in path order."
    )
    def search_code(
        pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATTERN_CHARS)],
        regex: bool = False,
        ignore_case: bool = False,
        glob: Annotated[list[Name] | None, Field(max_length=MAX_LIST_ITEMS, description="e.g. ['*.rb', '!test/**']")] = None,
        language: Annotated[Filter | None, Field(description="ruby, markdown, yaml, ...")] = None,
        context: Annotated[int, Field(ge=0, le=10)] = 0,
        limit: Annotated[int, Field(ge=1)] = 50,
        offset: Offset = 0,
        max_tokens: MaxTokens = None,
        timeout: Annotated[float, Field(gt=0, le=MAX_TIMEOUT)] = GREP_TIMEOUT,  # Seconds; then complete=false.
    ) -> CodePage:
        return search_code_answer(workspace, pattern, regex, ignore_case, glob, language, context, limit, offset, max_tokens, timeout)

    @tool(
        description="Call first: a map of the repository's most important declarations (every language), ranked by how the code "
        "uses them, within max_tokens. focus: files you edit or names you care about."
    )
    def repo_map(
        max_tokens: Annotated[int, Field(ge=64, le=65536)] = 2048,
        focus: Annotated[
            list[Annotated[str, Field(max_length=MAX_NAME_CHARS * 4)]] | None,
            Field(max_length=MAX_LIST_ITEMS * 4, description="file paths (relative to the project) or declaration names"),
        ] = None,
        detail: Annotated[str, Field(pattern="^(auto|symbols|files)$")] = "auto",
    ) -> MapOut:
        g = workspace.graph()
        try:
            result = g.repo_map(max_tokens, focus=focus or None, detail=detail)
        except rdx.NotFoundError as exc:
            raise _error("not_found", str(exc), "pass paths of indexed files or names from search_declarations") from None
        return MapOut(
            text=result.text, tokens=result.tokens, declarations=result.declarations, files=result.files, detail=result.detail,
            unmatched=result.unmatched, revision=result.revision,
        )

    @tool(description="Counts of files, definitions, declarations by kind, references.")
    def codebase_stats() -> Stats:
        return codebase_stats_answer(workspace)

    @tool(description="Indexing state, revision, file counts, pending changes.")
    def index_status() -> Status:
        return index_status_answer(workspace)

    _configure_logging()
    return _RdxServer(
        "rdx",
        instructions="Semantic code graph of a Ruby project: declarations (Foo::Bar, Foo#bar(), Foo::<Foo>), ancestors, references.",
        version=rdx.__version__,
        log_level="WARNING",
        tools=tools,
    )
