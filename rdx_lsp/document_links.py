"""``textDocument/documentLink``: the path of each ``require``, ``require_relative`` and
``load`` in a Ruby buffer links to the file rdx resolved it to (the project's files and the
indexed gems'; the same answer as go-to-definition on the call). A path rdx cannot place (a
gem that is not indexed, a computed path) gets no link. The calls are found in the buffer's
syntax tree with a cursor walk.

Gem source comments link too: ``# source://activesupport/7.0.4/lib/active_support/core_ext/object/blank.rb#L18``
(what Tapioca writes above each declaration of a gem's RBI file; the version may be empty,
then the RBI file's name gives it, as in ``activesupport@7.0.4.rbi``; ``#18`` for the line is
read too) links to that file of the indexed gem, at that line (``file:///...blank.rb#L18``, the form
editors open at the line). The gem's files are the documents rdx indexed for it
(``Document.library``, ``name-version``): the version written when it is indexed, else the
version indexed; a gem file a distribution moved (``lib/`` dropped, as Debian's
``vendor_ruby`` does) is found by the rest of its path. In a ``Gemfile`` (or ``gems.rb``), the
name in each ``gem "name"`` links to the gem's main file (``lib/name.rb``,
``lib/name/with/dashes.rb``, or ``active_record.rb`` for ``activerecord``) when rdx indexed
the gem."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types as lsp

import rdx
from rdx_lsp.server import RdxLanguageServer, uri_path
from rdx_lsp.syntax import parse_ruby

__all__ = ["GemFiles", "gem_declarations", "register", "require_paths", "source_comments"]

# ``source://NAME/VERSION/PATH#LLINE`` in a comment (after a ``#`` on its line).
_SOURCE = re.compile(rb"source://([A-Za-z0-9_.\-]+)/([^/\s]*)/([^\s#]+)(?:#L?(\d+))?")
# The version in an RBI file's name (``activesupport@7.0.4.rbi``), for comments that omit it.
_RBI_VERSION = re.compile(r"@([\d.]+)\.rbi\Z")
_LIBRARY = re.compile(r"(.+)-(\d[^-]*(?:-[a-z0-9_]+)?)\Z")


def source_comments(source: bytes) -> list[tuple[int, int, int, str, str, str, int | None]]:
    """Each gem source comment of a buffer: (row, start and end byte columns of the
    ``source://`` text, gem name, version (maybe empty), path in the gem, line or None)."""
    out: list[tuple[int, int, int, str, str, str, int | None]] = []
    if b"source://" not in source:
        return out
    for row, line in enumerate(source.split(b"\n")):
        hash_at = line.find(b"#")
        if hash_at < 0 or b"source://" not in line:
            continue
        for m in _SOURCE.finditer(line, hash_at):
            name, version, path, number = (g.decode("utf-8", "replace") if g is not None else None for g in m.groups())
            out.append((row, m.start(), m.end(), name or "", version or "", path or "", int(number) if number else None))
    return out


class GemFiles:
    """The indexed files of each gem (by name, then version), from the graph's documents."""

    def __init__(self, documents: list[rdx.Document]) -> None:
        self.by_gem: dict[str, dict[str, list[str]]] = {}
        for doc in documents:
            library = doc.library
            if library is None or doc.path is None:
                continue
            m = _LIBRARY.match(library)
            name, version = (m.group(1), m.group(2)) if m else (library, "")
            self.by_gem.setdefault(name, {}).setdefault(version, []).append(doc.path)

    def main(self, name: str) -> str | None:
        """The main file of gem ``name`` (its newest indexed version): ``lib/name.rb``, the file
        a dashed name requires (``net-http`` is ``net/http.rb``), else the shortest path of a
        file named like the gem without its underscores (``activerecord``: ``active_record.rb``)."""
        versions = self.by_gem.get(name)
        if not versions:
            return None
        paths = versions[sorted(versions, reverse=True)[0]]
        for suffix in (f"/{name}.rb", f"/{name.replace('-', '/')}.rb"):
            found = [p for p in paths if p.endswith(suffix)]
            if found:
                return min(found, key=len)
        plain = name.replace("-", "").replace("_", "")
        found = [p for p in paths if p.rsplit("/", 1)[-1].removesuffix(".rb").replace("_", "") == plain]
        return min(found, key=len) if found else None

    def find(self, name: str, version: str, path: str) -> str | None:
        """The indexed file of gem ``name`` at ``path`` in it (the given version's if indexed)."""
        versions = self.by_gem.get(name)
        if not versions:
            return None
        order = ([version] if version in versions else []) + sorted((v for v in versions if v != version), reverse=True)
        suffixes = ["/" + path.lstrip("/")]
        if path.startswith("lib/"):
            suffixes.append("/" + path[len("lib/") :])
        for suffix in suffixes:
            for v in order:
                found = sorted(p for p in versions[v] if p.endswith(suffix))
                if found:
                    return min(found, key=len)
        return None

_REQUIRES = frozenset({b"require", b"require_relative", b"load"})


def _literal_calls(tree, names: frozenset[bytes]):  # type: ignore[no-untyped-def]
    """(method node, string content node) of each call without a receiver to one of
    ``names`` whose first argument is a plain one-piece string literal, in source order."""
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None  # A cursor always stands on a node.
        if node.type == "call" and node.child_by_field_name("receiver") is None:
            method = node.child_by_field_name("method")
            args = node.child_by_field_name("arguments")
            if method is not None and method.text in names and args is not None and args.named_child_count >= 1:
                first = args.named_children[0]
                content = first.named_children if first.type == "string" else []
                if len(content) == 1 and content[0].type == "string_content":
                    yield method, content[0]
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def require_paths(tree) -> list[tuple[int, int, int, int, int]]:  # type: ignore[no-untyped-def]
    """(row, start column, end column) of the literal path of each require-like call without a
    receiver, then the (row, column) of the method's name; columns in bytes."""
    return [
        (c.start_point.row, c.start_point.column, c.end_point.column, method.start_point.row, method.start_point.column)
        for method, c in _literal_calls(tree, _REQUIRES)
        if c.start_point.row == c.end_point.row
    ]


def gem_declarations(tree) -> list[tuple[int, int, int, str]]:  # type: ignore[no-untyped-def]
    """(row, start column, end column, name) of the literal name of each ``gem "name", ...``
    call without a receiver (a Gemfile's), columns in bytes."""
    return [
        (c.start_point.row, c.start_point.column, c.end_point.column, c.text.decode("utf-8", "replace"))
        for _, c in _literal_calls(tree, frozenset({b"gem"}))
        if c.text
    ]


def register(server: RdxLanguageServer) -> None:
    # The gems' files, per graph revision (built only for a buffer with a source comment).
    gems: dict[str, tuple[int, GemFiles]] = {}

    def gem_files(graph: rdx.Graph) -> GemFiles:
        found = gems.get("it")
        if found is None or found[0] != graph.revision:
            found = gems["it"] = (graph.revision, GemFiles(graph.documents))
        return found[1]

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK, lsp.DocumentLinkOptions(resolve_provider=False))
    async def document_links(ls: RdxLanguageServer, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink] | None:
        graph = await ls.ready()
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is None or ls.language(uri) != "ruby":
            return None
        lines = ls.lines()
        out = []
        source = ls.source(uri)
        # A tooltip (the target's path) only for clients that say they show one.
        capability = ls.client_capabilities.text_document.document_link if ls.client_capabilities.text_document else None
        tooltips = bool(capability and capability.tooltip_support)
        comments = source_comments(source)
        named = _RBI_VERSION.search(path)
        for row, start, end, name, version, gem_path, number in comments:
            file = gem_files(graph).find(name, version or (named.group(1) if named else ""), gem_path)
            if file is None:
                continue
            link = Path(file).as_uri() + (f"#L{number}" if number else "")
            span = lsp.Range(lines.position(uri, path, row + 1, start), lines.position(uri, path, row + 1, end))
            out.append(lsp.DocumentLink(range=span, target=link, tooltip=file if tooltips else None))
        if path.endswith(("/Gemfile", "/gems.rb")):
            for row, start, end, name in gem_declarations(parse_ruby(uri, source)):
                main = gem_files(graph).main(name)
                if main is not None:
                    span = lsp.Range(lines.position(uri, path, row + 1, start), lines.position(uri, path, row + 1, end))
                    out.append(lsp.DocumentLink(range=span, target=Path(main).as_uri(), tooltip=main if tooltips else None))
        for row, start, end, method_row, method_column in require_paths(parse_ruby(uri, source)):
            try:
                target = graph.definition_at(path, method_row + 1, method_column)
            except rdx.InvalidArgumentError:
                continue  # The buffer changed since it was indexed.
            if target is None or target.kind != "Document" or not target.locations:
                continue
            found = target.locations[0].uri
            span = lsp.Range(lines.position(uri, path, row + 1, start), lines.position(uri, path, row + 1, end))
            out.append(lsp.DocumentLink(range=span, target=found, tooltip=target.locations[0].path if tooltips else None))
        return sorted(out, key=lambda link: (link.range.start.line, link.range.start.character))
