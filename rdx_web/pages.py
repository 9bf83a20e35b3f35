"""The pages for people: search, file view, declaration page, go-to-definition, map and
directory listings, rendered with Jinja2 (autoescaped) from the public ``rdx`` API. It owns
what each page shows and how its parameters are checked; the request guard, the JSON API and
the drawing live in ``guard``, ``api`` and ``pictures``.

Every page is bounded: parameters are validated (a bad one is a 400 page saying which and
why, never a traceback), lists are paged (``PAGE_SIZES``), grep has a time budget, highlighting
has one (``rdx_web.source``), and paths are checked twice: the normalized path must be inside
the project root, and so must its real path (a symlink that leaves the root is refused, 403);
the bytes are then read by ``Graph.read_project_file``, which applies the same rule and never
opens a device or a FIFO.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

import rdx
from rdx_mcp import Workspace
from rdx_web.pictures import dependency_svg, hierarchy_svg
from rdx_web.references import ReferenceIndex
from rdx_web.source import HIGHLIGHT_BUDGET, Link, char_columns, render

__all__ = ["PAGE_SIZES", "page_routes"]

HERE = Path(__file__).parent
PAGE_SIZES = {"declarations": 20, "grep": 50, "references": 200, "members": 300, "listing": 1000}
MAX_QUERY = 1000  # Characters of a search box; the JSON API's own limits are larger.
SEARCH_CAP = 100  # Declarations a search counts and pages through (the MCP tool's and JSON API's cap).
GREP_TIMEOUT = 2.0  # Seconds a grep may take for a page; the page then says it is partial.
LINK_BUDGET = 0.15  # Seconds spent resolving a file's calls; later ones resolve on click.
COUNT_BUDGET = 0.06  # Seconds spent counting a file's definitions' references (counts are kept per revision).
PICTURES = 256  # Hierarchy pictures kept.
BIG_FILE = 512 << 10  # Bytes from which a file gets smaller budgets (its lines alone take time).
_HIDDEN_DIRS = {".git", ".rdx", ".hg", ".svn", "__pycache__", "node_modules"}


class PageError(Exception):
    """A request that cannot be answered: its status, a one-sentence message, what to do."""

    def __init__(self, status: int, message: str, suggestion: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.suggestion = suggestion


@lru_cache(maxsize=65536)
def decl_url(name: str) -> str:
    return "/decl/" + urllib.parse.quote(name, safe="")


def file_url(rel: str, line: int | None = None) -> str:
    return "/file/" + urllib.parse.quote(rel) + (f"#L{line}" if line else "")


@dataclass
class Site:
    """What every page needs: the workspace, the templates, the per-revision references."""

    workspace: Workspace
    env: Environment
    references: ReferenceIndex = field(default_factory=ReferenceIndex)
    # Reference counts by declaration name, for the revision in ``counted`` (a count is asked
    # for each definition of every file viewed: counting again is what costs).
    counts: dict[str, int] = field(default_factory=dict)
    counted: int = -1
    # Hierarchy pictures by (revision, name), the most recent ``PICTURES`` of them: ``dot``
    # takes tens of milliseconds, and an answer for a revision never changes.
    pictures: OrderedDict[tuple[int, str], str] = field(default_factory=OrderedDict)

    def picture(self, graph: rdx.Graph, decl: rdx.Declaration) -> str:
        key = (graph.revision, decl.name)
        svg = self.pictures.get(key)
        if svg is None:
            svg = self.pictures[key] = hierarchy_svg(decl, decl_url)
            while len(self.pictures) > PICTURES:
                self.pictures.popitem(last=False)
        return svg

    def reference_count(self, graph: rdx.Graph, decl: rdx.Declaration, deadline: float) -> int | None:
        """How many references ``decl`` has, or None when not known and past ``deadline``.
        The caller holds the workspace lock."""
        if self.counted != graph.revision:
            self.counts, self.counted = {}, graph.revision
        found = self.counts.get(decl.name)
        if found is None and time.perf_counter() < deadline:
            found = self.counts[decl.name] = len(graph.references_to(decl))
        return found

    @property
    def root(self) -> str:
        return self.workspace.root

    def rel(self, path: str | None) -> str | None:
        """A location's path relative to the root, or None when it is not a file of the root
        (Ruby's core stub, a gem elsewhere): such places are shown, never linked."""
        if not path or "://" in path:
            return None
        rel = self.workspace.rel(path)
        if rel is None or os.path.isabs(rel) or rel.startswith(".."):
            return None
        return rel.replace(os.sep, "/")

    def where(self, loc: rdx.Location | None) -> dict[str, Any]:
        """A location for a template: its text and, inside the root, its URL."""
        if loc is None:
            return {"text": "", "url": None}
        rel = self.rel(loc.path)
        shown = rel if rel is not None else loc.path.replace("rdx-core:///", "core: ")
        return {"text": f"{shown}:{loc.start_line}", "url": file_url(rel, loc.start_line) if rel is not None else None, "path": rel, "line": loc.start_line}

    def target_url(self, decl: rdx.Declaration) -> str:
        """Where a link to ``decl`` goes: its one definition's line in the project, else its page."""
        defs = decl.definitions
        if len(defs) == 1:
            rel = self.rel(defs[0].location.path)
            if rel is not None:
                return file_url(rel, defs[0].location.start_line)
        return decl_url(decl.name)

    def graph(self) -> rdx.Graph:
        try:
            return self.workspace.graph()
        except Exception as exc:  # The workspace's "indexing" or "index_failed" tool error.
            text = str(exc)
            raise PageError(503, "the project is still being indexed" if "indexing" in text or "still" in text else text, "this page refreshes by itself") from None

    def page(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(root=self.root, **values)
        return HTMLResponse(html, status_code=status)


# -- parameters ----------------------------------------------------------------------------

def _flag(params: Any, name: str) -> bool:
    value = params.get(name, "")
    if value not in ("", "0", "1", "true", "false", "on", "off"):
        raise PageError(400, f"{name} must be true or false, got {rdx.excerpt(value)}", f"use {name}=1 or leave it out")
    return value in ("1", "true", "on")


def _int(params: Any, name: str, default: int, low: int, high: int) -> int:
    value = params.get(name)
    if value in (None, ""):
        return default
    try:
        n = int(value)
    except ValueError:
        raise PageError(400, f"{name} must be an integer, got {rdx.excerpt(value)}", f"give {name} between {low} and {high}") from None
    if not low <= n <= high:
        raise PageError(400, f"{name} must be between {low} and {high}, got {n}", f"give {name} between {low} and {high}")
    return n


def _text(params: Any, name: str, limit: int = MAX_QUERY) -> str:
    value = params.get(name, "") or ""
    if len(value) > limit:
        raise PageError(400, f"{name} is {len(value)} characters long, more than the {limit} allowed", f"shorten {name}")
    if "\x00" in value:
        raise PageError(400, f"{name} contains a NUL character", f"remove it from {name}")
    return value


def project_path(root: str, rel: str) -> str:
    """The absolute path of ``rel`` under ``root``, refused (403) when it or its real path
    leaves the root."""
    if "\x00" in rel or len(rel) > 4096:
        raise PageError(400, "the path is not a valid file path", "use a path relative to the project root")
    rel = rel.strip("/")
    path = os.path.normpath(os.path.join(root, rel))
    inside = path == root or path.startswith(root.rstrip(os.sep) + os.sep)
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if not inside or not (real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)):
        raise PageError(403, f"{rdx.excerpt(rel)} is outside the project root", "only files under the project root are served")
    return path


# -- search ----------------------------------------------------------------------------------

@dataclass
class SearchForm:
    q: str = ""
    mode: str = "all"  # all, decl or grep
    regex: bool = False
    case: bool = False  # True: case-sensitive grep; declarations ignore it.
    glob: str = ""
    lang: str = ""
    path: str = ""
    kind: str = ""
    offset: int = 0

    def query(self, **changes: Any) -> str:
        values = {**self.__dict__, **changes}
        pairs = [(k, ("1" if v else "") if isinstance(v, bool) else str(v)) for k, v in values.items()]
        return urllib.parse.urlencode([(k, v) for k, v in pairs if v and not (k == "mode" and v == "all") and not (k == "offset" and v == "0")])


def _search_form(params: Any) -> SearchForm:
    mode = params.get("mode") or "all"
    if mode not in ("all", "decl", "grep"):
        raise PageError(400, f"mode must be all, decl or grep, got {rdx.excerpt(mode)}", "leave mode out to search both")
    lang = _text(params, "lang", 40)
    if lang and not re.fullmatch(r"[a-z+#]+", lang):
        raise PageError(400, f"lang must be a language name such as ruby or python, got {rdx.excerpt(lang)}", "leave lang out for every language")
    return SearchForm(
        q=_text(params, "q"), mode=mode, regex=_flag(params, "regex"), case=_flag(params, "case"), glob=_text(params, "glob", 300),
        lang=lang, path=_text(params, "path", 300), kind=_text(params, "kind", 40), offset=_int(params, "offset", 0, 0, 100_000),
    )


def _mark(text: str, start_byte: int, end_byte: int) -> Markup:
    start, end = char_columns(text, [start_byte, end_byte])
    esc = Markup.escape
    return esc(text[:start]) + Markup("<mark>") + esc(text[start:end]) + Markup("</mark>") + esc(text[end:])


def search_results(site: Site, form: SearchForm) -> dict[str, Any]:
    """The declarations and grep sections for ``form``; an error in one is shown in it."""
    out: dict[str, Any] = {"form": form, "declarations": None, "grep": None, "decl_error": None, "grep_error": None, "revision": None}
    if not form.q.strip():
        return out
    if form.mode in ("all", "decl") and not form.regex:
        try:
            graph = site.graph()
            with site.workspace.lock:  # The graph moves only under this lock (the MCP server takes it too).
                out["revision"] = graph.revision
                size = PAGE_SIZES["declarations"]
                # The ranked search's best ``SEARCH_CAP`` (as the JSON API's total): beyond them
                # a match says little; more than that is shown as "100+".
                found = graph.search(form.q, kind=form.kind or None, path=form.path or None, language=form.lang or None, limit=SEARCH_CAP)
                items = []
                for d in found[form.offset : form.offset + size]:
                    comments = d.comments
                    items.append({"name": d.name, "kind": d.kind, "url": site.target_url(d), "page": decl_url(d.name),
                                  "where": site.where(d.location), "doc": comments[0].lstrip("#/ *") if comments else ""})
                out["declarations"] = {"items": items, "more": len(found) > form.offset + size, "total": len(found), "capped": len(found) >= SEARCH_CAP,
                                       "first": form.offset + 1, "last": form.offset + len(items),
                                       "next": form.query(offset=form.offset + size), "prev": form.query(offset=max(0, form.offset - size)) if form.offset else None}
        except rdx.RdxError as exc:
            out["decl_error"] = str(exc)
        except PageError as exc:
            out["decl_error"] = exc.message
    if form.mode in ("all", "grep"):
        try:
            searcher = site.workspace.text()
        except Exception:
            out["grep_error"] = "the project is still being indexed"
            return out
        try:
            size = PAGE_SIZES["grep"]
            globs = [g for g in form.glob.split() if g]
            page = searcher.grep(
                form.q, regex=form.regex, ignore_case=not form.case, glob=globs or None, language=form.lang or None,
                path=[os.path.join(site.root, form.path)] if form.path else None, limit=size, offset=form.offset, timeout=GREP_TIMEOUT,
            )
        except rdx.RdxError as exc:
            out["grep_error"] = str(exc)
            return out
        files: list[dict[str, Any]] = []
        for hit in page.hits:
            rel = rdx.display_path(site.rel(hit.path) or hit.path)  # A name that is not UTF-8 as \xff escapes.
            if not files or files[-1]["path"] != rel:
                files.append({"path": rel, "url": file_url(rel), "language": hit.language, "lines": []})
            files[-1]["lines"].append({"line": hit.line, "url": file_url(rel, hit.line), "html": _mark(hit.text, hit.column, hit.end_column)})
        out["grep"] = {
            "files": files, "total": page.total, "file_count": page.files, "complete": page.complete, "first": form.offset + 1,
            "last": form.offset + len(page.hits),
            "next": form.query(offset=form.offset + size) if form.offset + size < page.total else None,
            "prev": form.query(offset=max(0, form.offset - size)) if form.offset else None,
        }
    return out


# -- file view -------------------------------------------------------------------------------

def _ref_links(site: Site, graph: rdx.Graph, path: str, lines: list[str], budget: float) -> dict[int, list[Link]]:
    links: dict[int, list[Link]] = {}
    goto_path = urllib.parse.quote(site.rel(path) or "", safe="/")
    deadline = time.perf_counter() + budget
    targets: dict[str, rdx.Declaration | None] = {}  # Other languages' uses, by declaration name.
    for ref in site.references.of(graph, path):
        handle = ref.handle
        link: tuple[str, str, str] | None = None
        goto = f"/goto?path={goto_path}&line={ref.line}&col={ref.start}"
        if isinstance(handle, rdx.Use):
            name = handle.declaration or ""
            if name not in targets:
                targets[name] = graph.get(name)
            decl = targets[name]
            if decl is not None:
                link = (site.target_url(decl), "ref", f"{decl.kind} {decl.name}")
        elif isinstance(handle, rdx.ConstantReference):
            decl = handle.declaration
            if decl is not None:
                link = (site.target_url(decl), "ref", f"{decl.kind} {decl.name}")
        elif time.perf_counter() > deadline:
            link = (goto, "ref lazy", f"{handle.name}: resolved when followed")
        elif handle.receiver is None:
            link = (goto, "ref uncertain", f"{handle.name}: the receiver's type is unknown; any method of that name")
        else:
            method = handle.method
            if method is not None:
                link = (site.target_url(method), "ref", f"{method.kind} {method.name}")
        if link is None or ref.line > len(lines):
            continue
        start, end = char_columns(lines[ref.line - 1], [ref.start, ref.end])
        links.setdefault(ref.line, []).append(Link(start, end, link[0], link[1], link[2]))
    return links


def _definitions(
    site: Site, graph: rdx.Graph, path: str, lines: list[str], links: dict[int, list[Link]], budget: float
) -> tuple[list[dict[str, Any]], dict[int, list[dict[str, Any]]]]:
    """The file's definitions as links to their pages, and per line, their reference counts."""
    document = graph.document(path)
    if document is None:
        return [], {}
    outline: list[dict[str, Any]] = []
    counts: dict[int, list[dict[str, Any]]] = {}
    deadline = time.perf_counter() + budget
    for definition in document.definitions:
        decl = definition.declaration
        if decl is None:
            continue
        loc = definition.name_location
        line = loc.start_line
        count = site.reference_count(graph, decl, deadline)
        outline.append({"name": decl.name, "kind": definition.kind, "line": line, "url": decl_url(decl.name)})
        counts.setdefault(line, []).append({"name": decl.name, "count": count, "url": decl_url(decl.name) + "#references"})
        if loc.start_line == loc.end_line and line <= len(lines):
            start, end = char_columns(lines[line - 1], [loc.start_column, loc.end_column])
            links.setdefault(line, []).append(Link(start, end, decl_url(decl.name), "def", f"{decl.kind} {decl.name}: its page"))
    return outline, counts


def file_page(site: Site, rel: str) -> HTMLResponse:
    path = project_path(site.root, rel)
    if os.path.isdir(path):
        return listing_page(site, path)
    graph = site.graph()
    data = graph.read_project_file(path)
    if data is None:
        if not os.path.exists(path):
            raise PageError(404, f"{rdx.excerpt(rel)} does not exist", "check the path, or search for the file's name")
        raise PageError(403, f"{rdx.excerpt(rel)} cannot be shown (not a regular file of the project, or over the size limit)", "open another file")
    rel = site.rel(path) or rel
    crumbs = _crumbs(rel)
    if b"\x00" in data[:8192]:
        return site.page("file.html", rel=rel, crumbs=crumbs, binary=True, size=len(data), revision=graph.revision)
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = text.split("\n")
    big = len(data) > BIG_FILE
    with site.workspace.lock:
        revision = graph.revision
        links = _ref_links(site, graph, path, lines, LINK_BUDGET / 3 if big else LINK_BUDGET)
        outline, counts = _definitions(site, graph, path, lines, links, COUNT_BUDGET / 3 if big else COUNT_BUDGET)
    badges = {
        n: "".join(
            f' <a class="refcount" href="{Markup.escape(c["url"])}" title="references to {Markup.escape(c["name"])}">'
            + (f'{c["count"]} ref{"s" if c["count"] != 1 else ""}' if c["count"] is not None else "refs") + "</a>"
            for c in found
        )
        for n, found in counts.items()
    }
    rendered = render(os.path.basename(path), text, links, HIGHLIGHT_BUDGET / 3 if big else HIGHLIGHT_BUDGET, badges)
    return site.page(
        "file.html", rel=rel, crumbs=crumbs, binary=False, size=len(data), source=Markup("".join(rendered.lines)), lines=len(lines),
        language=rendered.language, partial=rendered.partial, outline=outline, revision=revision,
    )


def _crumbs(rel: str) -> list[dict[str, str]]:
    parts = [p for p in rel.split("/") if p]
    return [{"name": p, "url": "/file/" + urllib.parse.quote("/".join(parts[: i + 1]))} for i, p in enumerate(parts)]


def listing_page(site: Site, path: str) -> HTMLResponse:
    real_root = os.path.realpath(site.root)
    entries = []
    with os.scandir(path) as it:
        for entry in it:
            if entry.name in _HIDDEN_DIRS:
                continue
            real = os.path.realpath(entry.path)
            if not (real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)):
                continue  # A symlink out of the root is not listed.
            entries.append((not entry.is_dir(), entry.name))
            if len(entries) >= PAGE_SIZES["listing"]:
                break
    rel = site.rel(path) or ""
    items = [{"name": name + ("" if is_file else "/"), "url": "/file/" + urllib.parse.quote(f"{rel}/{name}".strip("/"))} for is_file, name in sorted(entries)]
    return site.page("listing.html", rel=rel, crumbs=_crumbs(rel), items=items, truncated=len(entries) >= PAGE_SIZES["listing"])


# -- declaration page ------------------------------------------------------------------------

NAMESPACES = ("Class", "Module", "SingletonClass")


def _context_lines(site: Site, graph: rdx.Graph, paths: Iterable[str]) -> Callable[[str, int], str]:
    cache: dict[str, list[str] | None] = {}

    def line(path: str, n: int) -> str:
        if path not in cache:
            data = graph.read_project_file(path) if site.rel(path) is not None else None
            cache[path] = data.decode("utf-8", "replace").split("\n") if data is not None else None
        found = cache[path]
        return found[n - 1].strip()[:300] if found is not None and 0 < n <= len(found) else ""

    return line


def declaration_page(site: Site, name: str, params: Any) -> HTMLResponse:
    if not name or len(name) > 1000:
        raise PageError(400, "a declaration name is 1 to 1000 characters long", "search for it instead")
    offset = _int(params, "refs", 0, 0, 10_000_000)
    graph = site.graph()
    with site.workspace.lock:
        decl = graph.get(name)
        if decl is None:
            named = graph.declarations_named(name)
            if len(named) > 1:
                items = [{"name": d.name, "kind": d.kind, "where": site.where(d.location), "url": site.target_url(d)} for d in named]
                return site.page("choose.html", title=name, items=items, revision=graph.revision)
            suggestions = graph.suggest(name)
            raise PageError(404, f"no declaration is named {rdx.excerpt(name)}", ("did you mean " + ", ".join(suggestions) + "?") if suggestions else "search for it")
        revision = graph.revision
        definitions = [
            {"kind": d.kind, "where": site.where(d.location), "comments": "\n".join(c.lstrip("#/* ").rstrip() for c in d.comments), "signature": d.signature}
            for d in decl.definitions
        ]
        own = [{"name": m.unqualified_name, "kind": m.kind, "url": decl_url(m.name), "where": site.where(m.location)} for m in decl.members[: PAGE_SIZES["members"]]]
        inherited = []
        picture = None
        ancestors = []
        if decl.kind in NAMESPACES:
            for ancestor in decl.ancestors[1:]:
                members = [m for m in ancestor.members if m.kind == "Method"]
                if members:
                    inherited.append({"owner": ancestor.name, "url": decl_url(ancestor.name), "count": len(members),
                                      "members": [{"name": m.unqualified_name, "url": decl_url(m.name)} for m in members[: PAGE_SIZES["members"]]]})
            ancestors = [{"name": a.name, "url": decl_url(a.name)} for a in decl.ancestors]
            try:
                picture = Markup(site.picture(graph, decl))
            except (OSError, ValueError, subprocess.SubprocessError) as exc:
                picture = None
                definitions.append({"kind": "note", "where": {"text": f"the hierarchy picture could not be drawn: {exc}", "url": None}, "comments": "", "signature": None})
        descendants = [{"name": d.name, "url": decl_url(d.name)} for d in decl.descendants[:200]] if decl.kind in NAMESPACES else []
        descendant_count = len(decl.descendants) if decl.kind in NAMESPACES else 0
        refs = graph.references_to(decl)
        size = PAGE_SIZES["references"]
        page_refs = refs[offset : offset + size]
        context = _context_lines(site, graph, (r.location.path for r in page_refs))
        by_file: list[dict[str, Any]] = []
        for r in page_refs:
            where = site.where(r.location)
            path = where.get("path") or r.location.path
            if not by_file or by_file[-1]["path"] != path:
                by_file.append({"path": path, "url": file_url(where["path"]) if where.get("path") else None, "refs": []})
            by_file[-1]["refs"].append({"line": r.location.start_line, "url": where["url"], "text": context(r.location.path, r.location.start_line), "certain": r.certain})
        owner = decl.owner
        return site.page(
            "declaration.html", decl={"name": decl.name, "kind": decl.kind, "origin": decl.origin, "visibility": decl.visibility if decl.kind == "Method" else None},
            owner={"name": owner.name, "url": decl_url(owner.name)} if owner is not None and owner.name != decl.name else None,
            definitions=definitions, own=own, inherited=inherited, picture=picture, ancestors=ancestors, descendants=descendants,
            descendant_count=descendant_count, references=by_file, ref_total=len(refs), ref_first=offset + 1, ref_last=offset + len(page_refs),
            ref_next=f"?refs={offset + size}#references" if offset + size < len(refs) else None,
            ref_prev=f"?refs={max(0, offset - size)}#references" if offset else None, revision=revision,
        )


# -- go to definition ------------------------------------------------------------------------

def goto_page(site: Site, params: Any) -> Response:
    rel = _text(params, "path", 4096)
    line = _int(params, "line", 1, 1, 10_000_000)
    col = _int(params, "col", 0, 0, 10_000_000)
    path = project_path(site.root, rel)
    graph = site.graph()
    with site.workspace.lock:
        try:
            target = graph.definition_at(path, line, col)
        except rdx.InvalidArgumentError as exc:
            raise PageError(400, str(exc), "follow a link from a file view") from None
        if target is None:
            raise PageError(404, f"rdx knows no definition at {rdx.excerpt(rel)}:{line}:{col}", "search for the name instead")
        names = target.candidates or [target.name] * len(target.locations)
        places: list[dict[str, Any]] = [{"name": n, "where": site.where(loc), "url": decl_url(n)} for n, loc in zip(names, target.locations, strict=False)]
    only = places[0]["where"]["url"] if len(places) == 1 else None
    if only:  # One candidate, even a guess: go there.
        return RedirectResponse(only, status_code=303)
    return site.page("choose.html", title=target.name, items=places, uncertain=not target.certain, revision=graph.revision)


# -- map ---------------------------------------------------------------------------------------

_KINDS = {"c", "mod", "m", "sm", "f", "st", "i", "t", "e", "const", "fld", "ty", "s"}
_MAP_ENTRY = re.compile(r"(.+?) :(\d+)(.*)$")  # A declaration's line of the map, after its kind.


def map_page(site: Site, params: Any) -> HTMLResponse:
    tokens = _int(params, "tokens", 2048, 256, 16384)
    focus = _text(params, "focus", 500)
    deps = params.get("deps") or "files"
    if deps not in ("files", "namespaces"):
        raise PageError(400, f"deps must be files or namespaces, got {rdx.excerpt(deps)}", "leave deps out for files")
    graph = site.graph()
    with site.workspace.lock:
        repo_map = graph.repo_map(max_tokens=tokens, focus=focus or None)
    aliases: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    legend = ""
    current: str | None = None  # The file whose declarations follow.
    for raw in repo_map.text.split("\n"):
        if raw.startswith("#"):
            legend += raw.lstrip("# ") + "\n"
            continue
        m = re.match(r"(@\d+/)=(.*)$", raw)
        if m:
            aliases[m.group(1)] = m.group(2)
            continue
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        first, _, rest = raw.strip().partition(" ")
        if first in _KINDS and rest:
            # "NAME[(signature)] :LINE tail": the name may hold spaces (a signature); its
            # line in the file above follows.
            m = _MAP_ENTRY.match(rest)
            name, line, tail = (m.group(1), int(m.group(2)), m.group(3)) if m else (rest, None, "")
            url = decl_url(name) if indent == 0 and graph.get(name) else None
            if url is None and current is not None and line is not None:
                url = file_url(current, line)  # A member, or a name the graph spells otherwise: its line.
            rows.append({"kind": first, "name": name, "tail": f":{line}{tail}" if line is not None else tail, "indent": indent // 2, "url": url})
        else:
            path, _, tail = raw.strip().partition(" ")
            for alias, prefix in aliases.items():
                if path.startswith(alias):
                    path = prefix + path[len(alias) :]
            current = path
            rows.append({"file": path, "url": file_url(path), "tail": tail})
    ranked = [r["file"] for r in rows if "file" in r]
    focus_file = _focus_file(site, graph, focus)
    picture = None
    if ranked or focus_file:
        with site.workspace.lock:
            if focus_file is not None:
                # Around one file: what it uses and what uses it, whatever their rank.
                edges = _focus_edges(site, graph, focus_file)
                files = [focus_file] + sorted({f for pair in edges for f in pair} - {focus_file})
            else:
                files = ranked[: MAP_FILES * 2 if deps == "namespaces" else MAP_FILES]
                edges = _file_edges(site, graph, files, set(files))
            nodes, center = files, focus_file
            link: Callable[[str], str] = file_url
            if deps == "namespaces":
                spaces = {f: _namespace_of(site, graph, f) for f in files}
                grouped: dict[tuple[str, str], int] = {}
                for (src, dst), count in edges.items():
                    pair = (spaces[src], spaces[dst])
                    if pair[0] != pair[1]:
                        grouped[pair] = grouped.get(pair, 0) + count
                nodes = list(dict.fromkeys(spaces[f] for f in files))
                edges, center = grouped, spaces[focus_file] if focus_file else None
                link = _namespace_url(graph)
        try:
            picture = Markup(dependency_svg(nodes, edges, link, kind=deps[:-1], focus=center)) if edges or center else None
        except (OSError, ValueError, subprocess.SubprocessError):
            picture = None
    return site.page("map.html", rows=rows, tokens=tokens, focus=focus, legend=legend, revision=repo_map.revision, picture=picture,
                     deps=deps, focus_file=focus_file, stats={"tokens": repo_map.tokens, "declarations": repo_map.declarations, "files": repo_map.files})


MAP_FILES = 30  # Files of the dependency picture: the map's best ranked (twice as many, grouped by namespace).
NAMESPACE_DEPTH = 2  # Segments of a namespace in the grouped picture: Mail::Fields, not Mail::Fields::ToField.


def _focus_file(site: Site, graph: rdx.Graph, focus: str) -> str | None:
    """``focus`` when it names an indexed file of the project (relative path), else None."""
    if not focus or "\x00" in focus:
        return None
    rel = focus.strip().strip("/")
    try:
        path = project_path(site.root, rel)
    except PageError:
        return None
    with site.workspace.lock:
        return site.rel(path) if graph.document(path) is not None else None


def _namespace_of(site: Site, graph: rdx.Graph, rel: str) -> str:
    """The namespace a file belongs to, for the grouped picture: the one most of its classes and
    modules are in (their names cut to ``NAMESPACE_DEPTH`` segments), else for a file of
    another language or without one, its directory (``dir/``). The caller holds the lock."""
    document = graph.document(os.path.join(site.root, rel))
    counts: dict[str, int] = {}
    for definition in document.definitions if document is not None else ():
        decl = definition.declaration
        if decl is not None and decl.kind in ("Class", "Module") and getattr(decl, "language", "ruby") == "ruby":
            key = "::".join(decl.name.split("::")[:NAMESPACE_DEPTH])
            counts[key] = counts.get(key, 0) + 1
    if counts:
        return max(counts, key=lambda k: (counts[k], -len(k)))
    return (os.path.dirname(rel) or ".") + "/"


def _namespace_url(graph: rdx.Graph) -> Callable[[str], str]:
    def url(node: str) -> str:
        if node.endswith("/"):
            return file_url(node.rstrip("/")) if node != "./" else "/file/"
        return decl_url(node) if graph.get(node) is not None else "/?" + urllib.parse.urlencode({"q": node, "mode": "decl"})

    return url


def _use_target(graph: rdx.Graph, handle: Any, deadline: float) -> rdx.Declaration | None:
    """What a reference of a file reaches: a constant's declaration, another language's use's,
    or a call's method when its receiver is known (within ``deadline``)."""
    if isinstance(handle, rdx.Use):
        return graph.get(handle.declaration or "")
    if isinstance(handle, rdx.ConstantReference):
        return handle.declaration
    if time.perf_counter() < deadline and handle.receiver is not None:
        return handle.method
    return None


def _file_edges(site: Site, graph: rdx.Graph, files: list[str], wanted: set[str] | None) -> dict[tuple[str, str], int]:
    """How often each of ``files`` references what another file defines (one of ``wanted``, or
    any file of the project): constants, other languages' uses, and the calls whose method is
    known (within ``LINK_BUDGET``). The caller holds the lock."""
    edges: dict[tuple[str, str], int] = {}
    deadline = time.perf_counter() + LINK_BUDGET
    for src in files:
        for ref in site.references.of(graph, os.path.join(site.root, src)):
            target = _use_target(graph, ref.handle, deadline)
            if target is None:
                continue
            places = [site.rel(d.location.path) for d in target.definitions[:8]]
            if src in places:
                continue  # A namespace the file opens itself (``Shop`` in ``Shop::Money``): no use of another file.
            for dst in places:
                if dst is not None and (wanted is None or dst in wanted):
                    edges[(src, dst)] = edges.get((src, dst), 0) + 1
    return edges


def _focus_edges(site: Site, graph: rdx.Graph, focus: str) -> dict[tuple[str, str], int]:
    """The files ``focus`` uses and those that use what it defines (each declaration's
    references, within ``LINK_BUDGET``), at most ``MAP_FILES`` of each, the most used first.
    The caller holds the lock."""
    out = _file_edges(site, graph, [focus], None)
    incoming: dict[tuple[str, str], int] = {}
    document = graph.document(os.path.join(site.root, focus))
    deadline = time.perf_counter() + LINK_BUDGET
    seen: set[str] = set()
    for definition in document.definitions if document is not None else ():
        decl = definition.declaration
        if decl is None or decl.name in seen or time.perf_counter() > deadline:
            continue
        seen.add(decl.name)
        places = {site.rel(d.location.path) for d in decl.definitions}
        for ref in graph.references_to(decl):
            src = site.rel(ref.location.path)
            if src is not None and src not in places:  # As in ``_file_edges``: not its own namespaces.
                incoming[(src, focus)] = incoming.get((src, focus), 0) + 1
    best = sorted(out.items(), key=lambda e: -e[1])[:MAP_FILES] + sorted(incoming.items(), key=lambda e: -e[1])[:MAP_FILES]
    return dict(best)


# -- routes ------------------------------------------------------------------------------------

def page_routes(workspace: Workspace) -> list[BaseRoute]:
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=select_autoescape(default=True, default_for_string=True), trim_blocks=True, lstrip_blocks=True)
    env.globals.update(decl_url=decl_url, file_url=file_url, version=rdx.__version__)
    site = Site(workspace, env)
    styles = HtmlFormatter(style="friendly").get_style_defs(".src")
    static = {name: (HERE / "static" / name).read_bytes() for name in ("style.css", "app.js")}
    types = {"css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"}

    def guarded(fn: Callable[..., Response]) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            try:
                return await run_in_threadpool(fn, request)
            except PageError as exc:
                return site.page("error.html", status=exc.status, message=exc.message, suggestion=exc.suggestion,
                                 refresh=exc.status == 503)

        return handle

    def search(request: Request) -> Response:
        form = _search_form(request.query_params)
        return site.page("search.html", **search_results(site, form))

    def results(request: Request) -> Response:
        form = _search_form(request.query_params)
        return site.page("results.html", **search_results(site, form))

    def file(request: Request) -> Response:
        return file_page(site, request.path_params.get("path", ""))

    def declaration(request: Request) -> Response:
        return declaration_page(site, request.path_params["name"], request.query_params)

    def goto(request: Request) -> Response:
        return goto_page(site, request.query_params)

    def repo_map(request: Request) -> Response:
        return map_page(site, request.query_params)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "pygments.css":
            return Response(styles, media_type=types["css"])
        if name not in static:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(static[name], media_type=types[name.rsplit(".", 1)[1]], headers={"Cache-Control": "no-cache"})

    return [
        Route("/", guarded(search), methods=["GET"]),
        Route("/results", guarded(results), methods=["GET"]),
        Route("/file", guarded(file), methods=["GET"]),
        Route("/file/{path:path}", guarded(file), methods=["GET"]),
        Route("/decl/{name:path}", guarded(declaration), methods=["GET"]),
        Route("/goto", guarded(goto), methods=["GET"]),
        Route("/map", guarded(repo_map), methods=["GET"]),
        Route("/static/{name}", asset, methods=["GET"]),
    ]
