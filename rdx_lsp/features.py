"""The LSP features of ``rdx lsp``, each a thin adapter over the public ``rdx`` API: positions
in, ``rdx`` answers out, converted to lsprotocol types (see ``positions.py`` for columns)."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcInvalidParams

import rdx
from rdx_lsp.positions import Lines
from rdx_lsp.server import RdxLanguageServer, uri_path

__all__ = ["register"]

_SYMBOL_KINDS = {
    "Class": lsp.SymbolKind.Class, "Module": lsp.SymbolKind.Module, "Method": lsp.SymbolKind.Method,
    "SingletonMethod": lsp.SymbolKind.Method, "Constant": lsp.SymbolKind.Constant, "ConstantAlias": lsp.SymbolKind.Constant,
    "AttrReader": lsp.SymbolKind.Property, "AttrWriter": lsp.SymbolKind.Property, "AttrAccessor": lsp.SymbolKind.Property,
    "MethodAlias": lsp.SymbolKind.Method, "GlobalVariable": lsp.SymbolKind.Variable, "GlobalVariableAlias": lsp.SymbolKind.Variable,
    "class": lsp.SymbolKind.Class, "struct": lsp.SymbolKind.Struct, "interface": lsp.SymbolKind.Interface,
    "trait": lsp.SymbolKind.Interface, "enum": lsp.SymbolKind.Enum, "function": lsp.SymbolKind.Function,
    "method": lsp.SymbolKind.Method, "constant": lsp.SymbolKind.Constant, "field": lsp.SymbolKind.Field,
    "type": lsp.SymbolKind.TypeParameter, "module": lsp.SymbolKind.Module, "namespace": lsp.SymbolKind.Namespace,
    "section": lsp.SymbolKind.String,
}
_COMPLETION_KINDS = {
    "Class": lsp.CompletionItemKind.Class, "Module": lsp.CompletionItemKind.Module, "Method": lsp.CompletionItemKind.Method,
    "Constant": lsp.CompletionItemKind.Constant, "ConstantAlias": lsp.CompletionItemKind.Constant,
}
_NAMESPACES = frozenset({"Class", "Module", "class", "struct", "interface", "trait", "enum"})
_SKIPPED_SYMBOLS = frozenset({"InstanceVariable", "ClassVariable", "GlobalVariable", "SingletonClass"})
_CONSTANT_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")
# documentSymbol nests symbols at most this deep; deeper ones are listed flat under the symbol
# at this depth. pygls encodes results with cattrs, which recurses about five frames per level
# (RecursionError near 190 levels), and real Ruby nests about 10 deep (docs/architecture.md).
MAX_SYMBOL_DEPTH = 64
_METHOD_NAME = re.compile(r"[a-z_][A-Za-z0-9_]*[?!=]?\Z")


class JsonRpcRequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid and the server refuses it (with why)."""

    CODE = -32803
    MESSAGE = "Request failed"


def _kind(kind: str) -> lsp.SymbolKind:
    return _SYMBOL_KINDS.get(kind, lsp.SymbolKind.Variable)


async def _at(ls: RdxLanguageServer, uri: str, position: lsp.Position) -> tuple[rdx.Graph, Lines, str, int, int]:
    """The graph, the request's lines and the rdx position (path, line, byte column). A request
    whose document was edited while it waited for the index is answered ContentModified: its
    position is about text that no longer exists."""
    version = ls.versions.get(uri, 0)
    graph = await ls.ready()
    if ls.versions.get(uri, 0) != version:
        raise JsonRpcContentModified(f"{uri} changed while the request waited; ask again")
    path = uri_path(uri)
    if path is None:
        raise JsonRpcInvalidParams(f"rdx serves file:// documents only, not {uri!r}")
    lines = ls.lines()
    line, column = lines.to_rdx(uri, path, position)
    return graph, lines, path, line, column


def _asked(call: Any, path: str, line: int, column: int, nothing: Any = None) -> Any:
    """A position question; a position the indexed document does not have (past its end:
    the text may have changed since the client computed it) names nothing."""
    try:
        return call(path, line, column)
    except rdx.InvalidArgumentError:
        return nothing


async def _declaration(ls: RdxLanguageServer, uri: str, position: lsp.Position) -> tuple[rdx.Graph, Lines, rdx.Declaration | None]:
    """The graph, the request's lines and the declaration named at the position (or None)."""
    graph, lines, path, line, column = await _at(ls, uri, position)
    return graph, lines, _asked(graph.declaration_at, path, line, column)


def _decl_locations(lines: Lines, decl: rdx.Declaration) -> list[lsp.Location]:
    return [lines.location(d.name_location) for d in decl.definitions if d.uri.startswith("file://")]


def _direct_supertypes(decl: rdx.Declaration) -> list[rdx.Declaration]:
    """The superclass and the modules a namespace itself mixes in (not what those bring)."""
    chain = decl.ancestors[1:]
    superclass = decl.superclass
    if superclass is not None and superclass in chain:
        return chain[: chain.index(superclass) + 1]
    return chain if decl.kind not in ("Class",) else chain[:1]


def _hover_markdown(hover: rdx.Hover) -> str:
    title = hover.name
    if hover.signature and not title.endswith(hover.signature):
        title = (title[:-2] if title.endswith("()") else title) + hover.signature
    parts = [f"```\n{title}\n```", f"*{hover.kind}*" + (f" in `{hover.owner}`" if hover.owner else "")]
    if not hover.certain:
        # The guess definition_at makes too: the call's receiver has no known type.
        parts.append("*uncertain*: the receiver's type is unknown; " + (
            "one of " + ", ".join(f"`{c}`" for c in hover.candidates[:12]) if len(hover.candidates) > 1 else "the only method of that name"
        ))
    if hover.ancestors:
        parts.append("ancestors: " + " > ".join(f"`{a}`" for a in hover.ancestors[:12]))
    if hover.comments:
        parts.append("\n".join(c.lstrip("#").strip() for c in hover.comments))
    return "\n\n".join(parts)


def register(server: RdxLanguageServer) -> None:  # noqa: C901 - one registration per feature
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: RdxLanguageServer, params: lsp.InitializeParams) -> None:
        root = None
        if params.workspace_folders:
            root = uri_path(params.workspace_folders[0].uri)
        if root is None and params.root_uri:
            root = uri_path(params.root_uri)
        root = root or params.root_path
        if root is None:
            raise JsonRpcInvalidParams("rdx lsp needs a workspace folder or rootUri")
        ls.initialization_options = params.initialization_options
        ls.start_indexing(root)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: RdxLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.open_documents.add(params.text_document.uri)
        await ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: RdxLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.versions[uri] = ls.versions.get(uri, 0) + 1
        await ls.changed(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: RdxLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        await ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: RdxLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.open_documents.discard(uri)
        ls.oversized.pop(uri, None)
        ls.extra_diagnostics.pop(uri, None)
        if ls.graph is not None and (path := uri_path(uri)) is not None:
            ls.graph.refresh_paths([path])  # The file on disk again (or gone).

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched(ls: RdxLanguageServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        await ls.ready()
        ls.files_changed([change.uri for change in params.changes])

    async def definition(ls: RdxLanguageServer, params: lsp.TextDocumentPositionParams) -> list[lsp.Location] | None:
        graph, lines, path, line, column = await _at(ls, params.text_document.uri, params.position)
        target = _asked(graph.definition_at, path, line, column)
        if target is None:
            for provider in ls.definition_providers:
                found: list[lsp.Location] | None = await provider(ls, params)
                if found:
                    return found
            return None
        return [lines.location(loc) for loc in target.locations if loc.uri.startswith("file://")]

    server.feature(lsp.TEXT_DOCUMENT_DEFINITION)(definition)
    server.feature(lsp.TEXT_DOCUMENT_DECLARATION)(definition)

    @server.feature(lsp.TEXT_DOCUMENT_TYPE_DEFINITION)
    async def type_definition(ls: RdxLanguageServer, params: lsp.TypeDefinitionParams) -> list[lsp.Location] | None:
        graph, lines, decl = await _declaration(ls, params.text_document.uri, params.position)
        if decl is None:
            return None
        if decl.kind == "ConstantAlias" and decl.target is not None:
            decl = decl.target
        if decl.kind not in _NAMESPACES:
            return None  # rdx knows the types of constants naming namespaces, not of values.
        return _decl_locations(lines, decl)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: RdxLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        graph, lines, decl = await _declaration(ls, params.text_document.uri, params.position)
        if decl is None:
            return None
        found = [lines.location(r.location) for r in graph.references_to(decl) if r.location.uri.startswith("file://")]
        if params.context.include_declaration:
            found = _decl_locations(lines, decl) + found
        return found

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    async def highlight(ls: RdxLanguageServer, params: lsp.DocumentHighlightParams) -> list[lsp.DocumentHighlight] | None:
        uri = params.text_document.uri
        graph, lines, decl = await _declaration(ls, uri, params.position)
        if decl is None:
            return None
        out = [lsp.DocumentHighlight(range=lines.range(d.name_location), kind=lsp.DocumentHighlightKind.Write) for d in decl.definitions if d.uri == uri]
        out += [lsp.DocumentHighlight(range=lines.range(r.location), kind=lsp.DocumentHighlightKind.Read) for r in graph.references_to(decl) if r.location.uri == uri]
        return out

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: RdxLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        graph, _, path, line, column = await _at(ls, params.text_document.uri, params.position)
        found = _asked(graph.hover_at, path, line, column)
        if found is None:
            for provider in ls.hover_providers:
                answer: lsp.Hover | None = await provider(ls, params)
                if answer is not None:
                    return answer
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=_hover_markdown(found)))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[".", ":", "@"], resolve_provider=True))
    async def completion(ls: RdxLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        graph, _, path, line, column = await _at(ls, params.text_document.uri, params.position)
        items = [
            lsp.CompletionItem(label=c.label, kind=_COMPLETION_KINDS.get(c.kind, lsp.CompletionItemKind.Variable), detail=c.detail, data={"name": c.detail})
            for c in _asked(graph.completions_at, path, line, column, [])[:200]
        ]
        for provider in ls.completion_providers:
            items += await provider(ls, params)
        return lsp.CompletionList(is_incomplete=len(items) >= 200, items=items)

    @server.feature(lsp.COMPLETION_ITEM_RESOLVE)
    async def completion_resolve(ls: RdxLanguageServer, item: lsp.CompletionItem) -> lsp.CompletionItem:
        graph = await ls.ready()
        name = item.data.get("name") if isinstance(item.data, dict) else None
        decl = graph.get(name) if isinstance(name, str) else None
        if decl is not None:
            summary = decl.summary(members=False)
            signature = next((d.signature for d in summary.definitions if d.signature), None)
            text = "\n".join(c.lstrip("#").strip() for c in decl.comments)
            name = summary.name.removesuffix("()") if signature else summary.name
            header = f"```\n{name}{signature or ''}\n```"
            item.documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=header + (f"\n\n{text}" if text else ""))
        return item

    async def document(ls: RdxLanguageServer, uri: str) -> rdx.Document | None:
        graph = await ls.ready()
        path = uri_path(uri)
        return graph.document(path) if path is not None else None

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(ls: RdxLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
        doc = await document(ls, params.text_document.uri)
        if doc is None:
            return None
        return _nest(ls.lines(), [d for d in doc.definitions if d.kind not in _SKIPPED_SYMBOLS])

    @server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    async def folding(ls: RdxLanguageServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange] | None:
        doc = await document(ls, params.text_document.uri)
        if doc is None:
            return None
        spans = sorted({(d.location.start_line - 1, d.location.end_line - 1) for d in doc.definitions if d.location.end_line > d.location.start_line})
        return [lsp.FoldingRange(start_line=a, end_line=b) for a, b in spans]

    @server.feature(lsp.WORKSPACE_SYMBOL)
    async def workspace_symbol(ls: RdxLanguageServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.SymbolInformation]:
        graph = await ls.ready()
        if not params.query.strip():
            return []
        lines = ls.lines()
        out = []
        for decl in graph.search(params.query, limit=100):
            loc = decl.location
            if loc is None or not loc.uri.startswith("file://"):
                continue
            owner = decl.owner
            # The name as it reads in its owner, which is the container (clients show both).
            name = (decl.unqualified_name if owner is not None else decl.name).removesuffix("()")
            out.append(lsp.SymbolInformation(name=name, kind=_kind(decl.kind), location=lines.location(loc), container_name=owner.name if owner else None))
        return out

    @server.feature(lsp.TEXT_DOCUMENT_IMPLEMENTATION)
    async def implementation(ls: RdxLanguageServer, params: lsp.ImplementationParams) -> list[lsp.Location] | None:
        graph, lines, decl = await _declaration(ls, params.text_document.uri, params.position)
        if decl is None:
            return None
        if decl.kind in _NAMESPACES:
            return [loc for d in decl.descendants if d != decl for loc in _decl_locations(lines, d)]
        owner = decl.owner
        if owner is None:
            return None
        # Methods overriding this one: the same name defined in a descendant of its owner.
        out = []
        for descendant in owner.descendants:
            member = descendant.member(decl.unqualified_name) if descendant != owner else None
            if member is not None:
                out += _decl_locations(lines, member)
        return out

    _type_hierarchy(server)
    _rename(server)


def _nest(lines: Lines, definitions: list[rdx.Definition]) -> list[lsp.DocumentSymbol]:
    """Definitions as a tree by range containment (outermost first, in source order), at most
    MAX_SYMBOL_DEPTH deep: a deeper symbol is listed beside the deepest ones, as a child of the
    symbol one level up."""
    items = sorted(definitions, key=lambda d: ((loc := d.location).start_line, loc.start_column, -loc.end_line, -loc.end_column))
    roots: list[lsp.DocumentSymbol] = []
    stack: list[tuple[rdx.Location, lsp.DocumentSymbol]] = []
    for d in items:
        loc = d.location
        symbol = lsp.DocumentSymbol(
            name=d.name, kind=_kind(d.kind), range=lines.range(loc), selection_range=lines.range(d.name_location), detail=d.signature, children=[]
        )
        while stack and (stack[-1][0].end_line, stack[-1][0].end_column) < (loc.end_line, loc.end_column):
            stack.pop()
        (stack[-1][1].children if stack else roots).append(symbol)  # type: ignore[union-attr]
        if len(stack) + 1 < MAX_SYMBOL_DEPTH:  # Its children would still be within the limit.
            stack.append((loc, symbol))
    return roots


def _type_hierarchy(server: RdxLanguageServer) -> None:
    def item(lines: Lines, decl: rdx.Declaration) -> lsp.TypeHierarchyItem | None:
        definitions = [d for d in decl.definitions if d.uri.startswith("file://")]
        if not definitions:
            return None
        d = definitions[0]
        return lsp.TypeHierarchyItem(
            name=decl.name, kind=_kind(decl.kind), uri=d.uri, range=lines.range(d.location), selection_range=lines.range(d.name_location),
            data={"name": decl.name},
        )

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY)
    async def prepare(ls: RdxLanguageServer, params: lsp.TypeHierarchyPrepareParams) -> list[lsp.TypeHierarchyItem] | None:
        graph, lines, decl = await _declaration(ls, params.text_document.uri, params.position)
        if decl is None or decl.kind not in _NAMESPACES:
            return None
        found = item(lines, decl)
        return [found] if found is not None else None

    async def related(ls: RdxLanguageServer, data: Any, up: bool) -> list[lsp.TypeHierarchyItem] | None:
        graph = await ls.ready()
        name = data.get("name") if isinstance(data, dict) else None
        decl = graph.get(name) if isinstance(name, str) else None
        if decl is None:
            return None
        lines = ls.lines()
        found = _direct_supertypes(decl) if up else [d for d in decl.descendants if d != decl and decl in _direct_supertypes(d)]
        return [x for d in found if (x := item(lines, d)) is not None]

    @server.feature(lsp.TYPE_HIERARCHY_SUPERTYPES)
    async def supertypes(ls: RdxLanguageServer, params: lsp.TypeHierarchySupertypesParams) -> list[lsp.TypeHierarchyItem] | None:
        return await related(ls, params.item.data, True)

    @server.feature(lsp.TYPE_HIERARCHY_SUBTYPES)
    async def subtypes(ls: RdxLanguageServer, params: lsp.TypeHierarchySubtypesParams) -> list[lsp.TypeHierarchyItem] | None:
        return await related(ls, params.item.data, False)


def _renamable(decl: rdx.Declaration | None) -> rdx.Declaration:
    """The declaration, when rename may change it; else RequestFailed saying why not."""
    if decl is None:
        raise JsonRpcRequestFailed("nothing to rename here: point at a constant or a method")
    if decl.kind not in ("Class", "Module", "Constant", "Method"):
        raise JsonRpcRequestFailed(f"rdx renames Ruby constants and methods, not a {decl.kind}")
    if getattr(decl, "origin", "project") == "dependency":
        raise JsonRpcRequestFailed(f"not renaming {decl.name}: it is defined by one of the project's gems")
    if getattr(decl, "origin", "project") == "core":
        raise JsonRpcRequestFailed(f"not renaming {decl.name}: it is defined in Ruby's core")
    return decl


def _rename(server: RdxLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(ls: RdxLanguageServer, params: lsp.PrepareRenameParams) -> lsp.PrepareRenamePlaceholder | None:
        """The name under the cursor and its text, when rename would go ahead (the checks that
        need every reference, such as name-only calls, wait for the rename itself)."""
        uri = params.text_document.uri
        graph, lines, path, line, column = await _at(ls, uri, params.position)
        decl = _renamable(_asked(graph.declaration_at, path, line, column))
        old = decl.unqualified_name.removesuffix("()")
        at = (line, column)
        for use in ls.uses(uri):
            loc = use.location
            if (loc.start_line, loc.start_column) <= at <= (loc.end_line, loc.end_column) and lines.text(loc).endswith(old):
                # Only the last name of a path (``Foo::Bar``'s ``Bar``), as rename changes it.
                start = rdx.Location(loc.path, loc.start_line, loc.end_column - len(old.encode()), loc.end_line, loc.end_column, loc.uri)
                return lsp.PrepareRenamePlaceholder(range=lines.range(start), placeholder=old)
        return None

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    async def rename(ls: RdxLanguageServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        graph, lines, decl = await _declaration(ls, params.text_document.uri, params.position)
        decl = _renamable(decl)
        old = decl.unqualified_name.removesuffix("()")
        new = params.new_name
        pattern = _CONSTANT_NAME if decl.kind != "Method" else _METHOD_NAME
        if not pattern.match(new) or (decl.kind == "Method") != (not new[:1].isupper()):
            raise JsonRpcInvalidParams(f"{new!r} is not a valid name for a {decl.kind}")
        refs = graph.references_to(decl)
        unsure = [r for r in refs if not r.certain]
        if unsure:
            where = ", ".join(str(r.location) for r in unsure[:3])
            raise JsonRpcRequestFailed(
                f"not renaming {decl.name}: {len(unsure)} call(s) match only by name and may be other methods ({where}); rename those by hand"
            )
        spans = [d.name_location for d in decl.definitions] + [r.location for r in refs]
        changes: dict[str, list[lsp.TextEdit]] = {}
        for loc in spans:
            if not loc.uri.startswith("file://"):
                raise JsonRpcRequestFailed(f"not renaming {decl.name}: it is defined in Ruby's core")
            text = lines.text(loc)
            if not text.endswith(old):
                raise JsonRpcRequestFailed(f"not renaming {decl.name}: cannot find {old!r} at {loc}")
            # A constant path (``Foo::Bar``) keeps its qualifier: only the last name changes.
            start = rdx.Location(loc.path, loc.start_line, loc.end_column - len(old.encode()), loc.end_line, loc.end_column, loc.uri)
            changes.setdefault(loc.uri, []).append(lsp.TextEdit(range=lines.range(start), new_text=new))
        return lsp.WorkspaceEdit(changes=changes)
