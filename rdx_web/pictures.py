"""Pictures of the graph as SVG, drawn by Graphviz's ``dot`` (Debian's ``graphviz``, through
the ``graphviz`` package), to be inlined in a page. It owns the drawing: what each node and
edge says, never the graph (it reads declarations through the public API).

The hierarchy picture of a namespace: its ancestors in Ruby's linearization order, top to
bottom, each edge saying how the next one came in (``prepend``, ``include``, ``superclass``),
the singleton side to the right (its ``extend``s), and its descendants below, with how many.
Every node is a link to its declaration page. Node ids are ours (``n0``...), labels go through
``graphviz.escape`` and Graphviz escapes them again in its SVG, so no name is ever markup.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import graphviz  # type: ignore[import-untyped]

import rdx

__all__ = ["MAX_DESCENDANTS", "Relation", "ancestry", "hierarchy_svg"]

MAX_DESCENDANTS = 12  # Drawn below the declaration; the page lists them all.
MAX_ANCESTORS = 60  # A chain is rarely longer than 30 (ActiveRecord::Base's is 80: cut).
DOT_TIMEOUT = 10.0

_COLOURS = {"self": "#1f6feb", "prepend": "#c2410c", "include": "#15803d", "superclass": "#475569", "extend": "#7c3aed", "module": "#15803d"}


@dataclass(frozen=True)
class Relation:
    """An ancestor and how it is in the chain: ``self``, ``prepend``, ``include`` or
    ``superclass``; ``via`` is the namespace whose definition wrote the mixin when not the
    declaration itself."""

    declaration: rdx.Declaration
    how: str
    via: str | None = None


def _last(name: str) -> str:
    return name.rsplit("::", 1)[-1]


def _mixins(decl: rdx.Declaration) -> list[rdx.Mixin]:
    found: list[rdx.Mixin] = []
    for definition in decl.definitions:
        try:
            found += definition.mixins
        except (AttributeError, NotImplementedError):
            break
    return found


def ancestry(decl: rdx.Declaration) -> list[Relation]:
    """``decl``'s ancestors in Ruby's order, each with how it came in: a class after the
    declaration is a superclass; a module is the prepend or include of the first namespace
    of the chain (the declaration first) whose definitions mix it in by that name."""
    chain = decl.ancestors[:MAX_ANCESTORS]
    written = {a.name: _mixins(a) for a in chain if a.kind in ("Class", "Module", "SingletonClass")}
    relations: list[Relation] = []
    for ancestor in chain:
        if ancestor.name == decl.name:
            relations.append(Relation(ancestor, "self"))
            continue
        if ancestor.kind == "Class":
            relations.append(Relation(ancestor, "superclass"))
            continue
        how, via = "include", None
        for owner in [decl.name] + [a.name for a in chain if a.name != decl.name]:
            hit = next((m for m in written.get(owner, []) if m.kind in ("prepend", "include") and _last(m.name) == ancestor.unqualified_name), None)
            if hit is not None:
                how, via = hit.kind, (owner if owner != decl.name else None)
                break
        relations.append(Relation(ancestor, how, via))
    return relations


def _svg(dot: graphviz.Digraph) -> str:
    out = subprocess.run(["dot", "-Tsvg"], input=dot.source.encode("utf-8"), capture_output=True, timeout=DOT_TIMEOUT, check=True).stdout
    text = out.decode("utf-8", "replace")
    return text[text.index("<svg") :]  # Without the XML prolog and doctype, for inlining.


def hierarchy_svg(decl: rdx.Declaration, url: Callable[[str], str]) -> str:
    """The hierarchy picture of ``decl`` (see the module docstring); ``url`` maps a declaration
    name to its page. Raises ``OSError`` or ``subprocess.SubprocessError`` when ``dot`` fails."""
    dot = graphviz.Digraph("hierarchy", graph_attr={"rankdir": "TB", "bgcolor": "transparent", "nodesep": "0.35", "ranksep": "0.35"})
    dot.attr("node", shape="box", style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize="11", color="#94a3b8")
    dot.attr("edge", fontname="Helvetica", fontsize="9", color="#94a3b8", arrowsize="0.6")
    ids: dict[str, str] = {}  # Node ids by name ("s:" and the name on the singleton side).

    def node(d: rdx.Declaration, how: str, note: str = "") -> str:
        # The singleton side has nodes of its own: a module both included and extended shows twice.
        key = ids.setdefault(("s:" if how == "extend" else "") + d.name, f"n{len(ids)}")
        colour = _COLOURS.get(how, "#475569")
        label = d.name + (f"\n{note}" if note else "")
        dot.node(
            key, graphviz.escape(label), URL=url(d.name), tooltip=graphviz.escape(f"{d.kind} {d.name}"), color=colour,
            penwidth="2" if how == "self" else "1", fontcolor="#0f172a", **{"class": f"rel_{how}"},
        )
        return key

    relations = ancestry(decl)
    previous: str | None = None
    for rel in relations:
        note = {"self": "", "superclass": "superclass"}.get(rel.how, rel.how + (f" (via {_last(rel.via)})" if rel.via else ""))
        key = node(rel.declaration, rel.how, note)
        if previous is not None:
            dot.edge(previous, key)
        previous = key
    singleton = decl.singleton_class if decl.kind in ("Class", "Module") else None
    if singleton is not None:
        extended = [m for m in _mixins(decl) if m.kind == "extend"]
        skey = node(singleton, "extend", "singleton class")
        with dot.subgraph() as same:
            same.attr(rank="same")
            same.node(ids[decl.name])
            same.node(skey)
        dot.edge(ids[decl.name], skey, style="dashed", arrowhead="none", label="singleton")
        names = {_last(m.name) for m in extended}
        for ancestor in singleton.ancestors[1:MAX_ANCESTORS]:
            if ancestor.kind == "Module" and ancestor.unqualified_name in names:
                ekey = node(ancestor, "extend", "extend")
                dot.edge(skey, ekey, style="dashed")
    descendants = decl.descendants if decl.kind in ("Class", "Module") else []
    for d in descendants[:MAX_DESCENDANTS]:
        dot.edge(node(d, "descendant"), ids[decl.name], style="dotted")
    if len(descendants) > MAX_DESCENDANTS:
        dot.node("more", graphviz.escape(f"… and {len(descendants) - MAX_DESCENDANTS} more descendants"), shape="plaintext", style="")
        dot.edge("more", ids[decl.name], style="invis")
    return _svg(dot)


def dependency_svg(
    nodes: list[str], edges: dict[tuple[str, str], int], url: Callable[[str], str], kind: str = "file", focus: str | None = None
) -> str:
    """Which of ``nodes`` (files relative to the root, or namespaces: ``kind``; best ranked
    first) use which: an edge from a node to the node that defines what it references, as
    thick as the number of references. Nodes without an edge are left out, except ``focus``,
    which is drawn in the declaration's colour. Every node links to ``url`` of it."""
    dot = graphviz.Digraph("dependencies", graph_attr={"rankdir": "LR", "bgcolor": "transparent", "nodesep": "0.25", "ranksep": "0.6"})
    dot.attr("node", shape="box", style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize="10", color="#94a3b8")
    dot.attr("edge", color="#94a3b8", arrowsize="0.6")
    linked = {f for pair in edges for f in pair} | ({focus} if focus else set())
    ids = {f: f"f{i}" for i, f in enumerate(f for f in nodes if f in linked)}
    for f, key in ids.items():
        extra = {"color": _COLOURS["self"], "penwidth": "2"} if f == focus else {}
        dot.node(key, graphviz.escape(f), URL=url(f), tooltip=graphviz.escape(f), **{"class": kind + (" focus" if f == focus else "")}, **extra)
    for (src, dst), count in sorted(edges.items()):
        if src in ids and dst in ids:
            dot.edge(ids[src], ids[dst], penwidth=str(min(4.0, 0.8 + count / 4)), tooltip=graphviz.escape(f"{src} uses {dst} ({count})"))
    return _svg(dot)
