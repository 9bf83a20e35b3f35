"""The repository map's text: the compact symbol-map format, deterministic to the byte.

```
# rdx map · c class · mod module · m method · sm singleton method · f function · ...
@1/=lib/shop/models/
@1/product.rb ←3
c Shop::Models::Product < Shop::Models::Record +Shop::Pricing :3 ←order.rb,cart.rb+1
  m price_with_tax(rate = 0.2) :10 ←order.rb →round
  const TAX :4 ←"
```

- A legend line, then the path aliases in use (``@N/`` for a directory prefix several listed
  files share, numbered in prefix order), then per file (in path order) a header with ``←N``
  (how many other files use something it defines) and its declarations: namespaces and types
  at the left with their qualified name, superclass (``<``) and mixins or bases (``+``);
  members indented under them; functions of other languages at the left. Each line: kind
  prefix, name, parameters, ``:line``, ``←`` the files that use it most, the project's before
  stubs (``+N`` more), ``→``
  what its body uses most. ``"`` repeats the annotation of the line above.
- Test files are never listed: one last line counts them.

Nothing here ranks or chooses: ``rdx.map.repomap`` decides which declarations appear.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from rdx.map.mapgraph import MapGraph
from rdx.ruby.query.handles import View

__all__ = ["LEGEND", "Entry", "describe", "relocated", "render", "short_path"]

LEGEND = (
    "# rdx map · c class · mod module · m method · sm singleton method · f function · st struct · i interface · t trait"
    " · e enum · const constant · fld field · ty type · s section · :N line · < superclass · + mixins/bases"
    " · ←files using it (+N more) · →what it uses · \" same as above · @N/ path alias"
)
_RUBY_KINDS = {"Class": "c", "Module": "mod", "Method": "m", "Constant": "const", "ConstantAlias": "const"}
_FOREIGN_KINDS = {
    "class": "c", "module": "mod", "namespace": "mod", "struct": "st", "interface": "i", "trait": "t", "enum": "e",
    "function": "f", "method": "m", "constant": "const", "field": "fld", "type": "ty", "section": "s",
}
_TOP_LEVEL_FOREIGN = frozenset({"class", "module", "namespace", "struct", "interface", "trait", "enum", "type", "section"})
_USERS_SHOWN = 2
_CALLS_SHOWN = 3
_MAX_PARAMS = 60


@dataclass
class Entry:
    """One declaration as the map shows it."""

    decl: int
    uri: str
    line: int
    prefix: str
    name: str
    params: str = ""
    # The namespace or type it is shown under (None: at the left).
    parent: int | None = None
    superclass: str | None = None
    mixins: list[str] = field(default_factory=list)
    # What the superclass and mixins name: not repeated among the ``→`` uses.
    shown: frozenset[int] = frozenset()


def _params(text: str | None) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    if not text.startswith("(") or text == "(...)":
        return ""  # ``(...)``: a method a macro or define_method made, parameters unknown.
    return text if len(text) <= _MAX_PARAMS else text[: _MAX_PARAMS - 2] + "…)"


def describe(view: View, graph: MapGraph, decl_id: int) -> Entry | None:
    """How the map shows a declaration (None for what it never shows)."""
    state = view.state
    rec = state.declarations.get(decl_id)
    if rec is not None:
        prefix = _RUBY_KINDS.get(rec.kind)
        if prefix is None or not rec.definitions:
            return None
        key, index = rec.definitions[graph.definition(decl_id)]
        doc = state.documents[key]
        definition = doc.definitions[index]
        line = view.location(key, definition.name_start, definition.name_end).start_line
        if rec.kind == "Method":
            owner = state.declarations.get(rec.owner) if rec.owner is not None else None
            parent = rec.owner
            if owner is not None and owner.kind == "SingletonClass":
                prefix, parent = "sm", owner.attached
            return Entry(decl_id, doc.uri, line, prefix, rec.unqualified.removesuffix("()"), _params(definition.params), parent)
        if rec.kind in ("Class", "Module"):
            direct = graph.direct_ancestors(decl_id)
            superclass = state.declarations[rec.superclass].name if rec.superclass is not None and rec.superclass in direct else None
            mixins = [state.declarations[a].name for a in direct if a != rec.superclass]
            return Entry(decl_id, doc.uri, line, prefix, rec.name, superclass=superclass, mixins=mixins, shown=frozenset(direct))
        return Entry(decl_id, doc.uri, line, prefix, rec.unqualified, parent=rec.owner)
    foreign = view.foreign
    decl = foreign.state.declarations.get(decl_id)
    if decl is None:
        return None
    uri, index = decl.definitions[graph.definition(decl_id)]
    fdoc = foreign.state.files[uri]
    symbol = fdoc.symbols[index]
    holder = foreign.owner_of(decl)
    prefix = _FOREIGN_KINDS.get(decl.kind, decl.kind)
    if decl.kind in _TOP_LEVEL_FOREIGN or holder is None:
        base_ids = foreign.bases_of(decl_id)
        bases = [foreign.state.declarations[b].unqualified for b in base_ids]
        params = _params(symbol.signature) if decl.kind in ("function", "method") else ""
        name = _local_name(decl.name, fdoc.module, decl.separator)
        return Entry(decl_id, uri, symbol.line, prefix, name, params, mixins=bases, shown=frozenset(base_ids))
    return Entry(decl_id, uri, symbol.line, prefix, decl.unqualified, _params(symbol.signature), holder)


def relocated(view: View, entry: Entry, uri: str) -> Entry:
    """The entry as shown in another file that also defines it (a module reopened there, so
    the members defined in that file have their owner above them), at that file's line."""
    line = 0
    rec = view.state.declarations.get(entry.decl)
    if rec is not None:
        for key, index in rec.definitions:
            doc = view.state.documents[key]
            if doc.uri == uri:
                definition = doc.definitions[index]
                line = view.location(key, definition.name_start, definition.name_end).start_line
                break
    else:
        decl = view.foreign.state.declarations.get(entry.decl)
        for other, index in decl.definitions if decl is not None else ():
            if other == uri:
                line = view.foreign.state.files[uri].symbols[index].line
                break
    return replace(entry, uri=uri, line=line, superclass=None, mixins=[], shown=frozenset())


def _local_name(name: str, module: str | None, separator: str) -> str:
    """A name without the module the file header already says (``pkg.mod.Class`` -> ``Class``)."""
    if module and name.startswith(module + separator):
        return name[len(module) + len(separator) :]
    return name


def short_path(path: str, root: str | Sequence[str] | None) -> str:
    """A path relative to the project root that holds it (the longest), else as it is."""
    roots = [root] if isinstance(root, str) else list(root or ())
    for r in sorted(roots, key=len, reverse=True):
        prefix = r.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def _aliases(paths: list[str]) -> dict[str, str]:
    """Directory prefix -> ``@N/`` for prefixes that save characters (shared by files, long),
    numbered in prefix order so the same files get the same aliases."""
    counts: dict[str, int] = {}
    for path in paths:
        directory = os.path.dirname(path)
        while directory and directory != "/":
            counts[directory] = counts.get(directory, 0) + 1
            directory = os.path.dirname(directory)
    chosen: list[str] = []
    # Longest first; a prefix is worth it when it saves more than its definition line costs.
    for prefix in sorted(counts, key=lambda p: (-counts[p] * (len(p) - 3), p)):
        if len(chosen) >= 9 or counts[prefix] < 2 or len(prefix) < 8:
            continue
        if counts[prefix] * (len(prefix) - 3) <= len(prefix) + 6:
            continue
        if any(c.startswith(prefix + "/") for c in chosen):
            continue  # A longer alias already covers these files better.
        chosen.append(prefix)
    return {prefix: f"@{i}/" for i, prefix in enumerate(sorted(chosen), 1)}


def _aliased(path: str, aliases: dict[str, str]) -> str:
    best = max((p for p in aliases if path.startswith(p + "/")), key=len, default=None)
    return aliases[best] + path[len(best) + 1 :] if best is not None else path


def _users(graph: MapGraph, decl: int, uri: str, root: str | Sequence[str] | None) -> str:
    users = graph.used_by.get(decl)
    if not users:
        return ""
    # The project's users first, then stubs' (a gem's RBI subclassing it two hundred times).
    ranked = sorted((u in graph.stub_files, -w, graph.paths[u]) for u, w in users.items() if u != uri)
    if not ranked:
        return ""
    names = [os.path.basename(p) for _, _, p in ranked[:_USERS_SHOWN]]
    more = len(ranked) - len(names)
    return " ←" + ",".join(names) + (f"+{more}" if more else "")


def _calls(graph: MapGraph, decl: int, shown: frozenset[int]) -> str:
    calls = graph.calls.get(decl)
    if not calls:
        return ""
    ranked = sorted(((d, w) for d, w in calls.items() if d not in shown), key=lambda x: (-x[1], x[0]))[:_CALLS_SHOWN]
    if not ranked:
        return ""
    names = [graph.short_name(d) for d, _ in ranked]
    return " →" + ",".join(names)


def render(
    view: View, graph: MapGraph, entries: Iterable[Entry], context: Iterable[Entry], root: str | Sequence[str] | None, tests: int,
    note: str | None = None,
) -> str:
    """The map's text for the chosen ``entries`` plus the ``context`` entries (owners shown
    so members have somewhere to sit, without annotations of their own)."""
    chosen = {e.decl: e for e in entries}
    by_file: dict[str, list[Entry]] = {}
    for entry in chosen.values():
        by_file.setdefault(entry.uri, []).append(entry)
    for entry in context:
        if chosen.get(entry.decl) is None or chosen[entry.decl].uri != entry.uri:
            by_file.setdefault(entry.uri, []).append(entry)
    paths = {uri: short_path(graph.paths[uri], root) for uri in by_file}
    aliases = _aliases(sorted(paths.values()))
    lines = [LEGEND] + ([note] if note else [])
    lines += [f"{alias}={prefix}/" for prefix, alias in sorted(aliases.items(), key=lambda x: x[1])]
    for uri in sorted(by_file, key=lambda u: paths[u]):
        users = graph.file_users(uri)
        lines.append(_aliased(paths[uri], aliases) + (f" ←{users}" if users else ""))
        file_entries = by_file[uri]
        present = {e.decl for e in file_entries}
        tops = sorted((e for e in file_entries if e.parent not in present), key=lambda e: (e.line, e.name))
        members: dict[int, list[Entry]] = {}
        for e in file_entries:
            if e.parent in present:
                assert e.parent is not None
                members.setdefault(e.parent, []).append(e)
        previous = ("", "")
        for top in tops:
            previous = _line(view, graph, lines, top, "", chosen.get(top.decl) is top, root, previous)
            for member in sorted(members.get(top.decl, ()), key=lambda e: (e.line, e.name)):
                previous = _line(view, graph, lines, member, "  ", chosen.get(member.decl) is member, root, previous)
    if tests:
        lines.append(f"# tests: {tests} files, not listed")
    return "\n".join(lines) + "\n"


def _line(
    view: View, graph: MapGraph, lines: list[str], e: Entry, indent: str, annotated: bool, root: str | Sequence[str] | None, previous: tuple[str, str]
) -> tuple[str, str]:
    text = f"{indent}{e.prefix} {e.name}{e.params}" + (f" :{e.line}" if e.line else "")
    if e.superclass:
        text += f" < {e.superclass}"
    if e.mixins:
        text += " +" + ",".join(e.mixins)
    users = _users(graph, e.decl, e.uri, root) if annotated else ""
    calls = _calls(graph, e.decl, e.shown) if annotated else ""
    shown_users = ' ←"' if users and users == previous[0] else users
    shown_calls = ' →"' if calls and calls == previous[1] else calls
    lines.append(text + shown_users + shown_calls)
    return users, calls
