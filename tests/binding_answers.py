"""The Python API's answers on the bindings' fixture, which the C ABI and the Ruby wrapper
must reproduce exactly.

``answers(fixture)`` is imported by ``tests/test_capi.py``; the Ruby tests run this file as a
script (``python tests/binding_answers.py FIXTURE``) and read the JSON it prints. Keeping the
questions here (names, nestings, searches, the broken document) means the three languages are
asked the same things. Uses only the public ``rdx`` API.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec

import rdx

# Declarations the tests describe in full (bindings/c/test_capi.c lists the same names).
NAMES = [
    "Shop",
    "Shop::Models::Product",
    "Shop::Models::Record",
    "Shop::Models::Order",
    "Shop::Pricing",
    "Shop::Comparable",
    "Shop::OutOfStock",
    "Shop::Models::Item",
    "Shop::Models::Product#label()",
    # Other languages through the same calls: a Python class, a TypeScript function.
    "receipts.printer.Printer",
    "formatMoney",
]

RESOLVES = [
    ("OutOfStock", ["Shop", "Models::Order"]),
    ("Record", ["Shop", "Models::Order"]),
    ("Models::Record", ["Shop"]),
    ("Record", []),
]

# (query, match mode, kind or None, limit or 0 for none)
SEARCHES = [(q, mode, None, 10) for mode in ("fuzzy", "prefix", "exact", "ranked") for q in ("Prod", "Shop::Models::Product", "label")] + [
    ("label", "fuzzy", "Method", 0)
]

GREPS = [("def ", {}), ("price|label", {"regex": True, "glob": "*.rb", "context": 1, "limit": 3})]


def _grep(graph: rdx.Graph, pattern: str, options: dict[str, object]) -> dict[str, object]:
    page = graph.grep(pattern, **options)  # type: ignore[arg-type]
    return json.loads(msgspec.json.encode({"total": page.total, "files": page.files, "offset": page.offset, "complete": page.complete, "hits": list(page)}))


MEMBER_LOOKUPS = [("Shop::Models::Product", "id()"), ("Shop::Models::Product", "label()"), ("Shop::Models::Order", "nothing()")]

# Indexed after everything else, for the diagnostics.
BROKEN_URI = "file:///broken.rb"
BROKEN_SOURCE = "class Broken\n  def x(\nend\nFoo::Missing\n"


def _name(decl: rdx.Declaration | None) -> str | None:
    return decl.name if decl is not None else None


def describe(decl: rdx.Declaration) -> dict[str, Any]:
    singleton = decl.singleton_class
    return {
        "name": decl.name,
        "kind": decl.kind,
        "unqualified_name": decl.unqualified_name,
        "id": decl.id,
        "owner": _name(decl.owner),
        "ancestors": [a.name for a in decl.ancestors],
        "descendants": [d.name for d in decl.descendants],
        "members": [m.name for m in decl.members],
        "singleton_class": _name(singleton),
        "singleton_ancestors": [a.name for a in singleton.ancestors] if singleton is not None else [],
        "definitions": [
            {
                "kind": d.kind,
                "name": d.name,
                "location": str(d.location),
                "comments": d.comments,
                "declaration": _name(d.declaration),
            }
            for d in decl.definitions
        ],
    }


def fixture_graph(fixture: str) -> rdx.Graph:
    graph = rdx.Graph()
    problems = graph.index_all([fixture], jobs=1)
    assert problems == [], problems
    graph.resolve()
    return graph


def answers(fixture: str) -> dict[str, Any]:
    graph = fixture_graph(fixture)
    out: dict[str, Any] = {
        "fixture": fixture,
        "error_codes": [
            {"name": cls.code.name, "value": int(cls.code), "class": cls.__name__}
            for cls in (
                rdx.InvalidArgumentError,
                rdx.NotFoundError,
                rdx.InvalidHandleError,
                rdx.IOFailureError,
                rdx.EncodingFailureError,
                rdx.NotResolvedError,
                rdx.InternalError,
            )
        ],
        "declarations": {name: describe(graph[name]) for name in NAMES},
        "constant_references": [[r.name, str(r.location), _name(r.declaration)] for r in graph.constant_references],
        "method_references": [[r.name, str(r.location), _name(r.receiver), _name(r.method)] for r in graph.method_references],
        "resolve_constant": [[name, nesting, _name(graph.resolve_constant(name, nesting))] for name, nesting in RESOLVES],
        "search": [
            [q, mode, kind, limit, [d.name for d in graph.search(q, kind=kind, match_mode=mode, limit=limit or None)]]
            for q, mode, kind, limit in SEARCHES
        ],
        "grep": [[pattern, options, _grep(graph, pattern, options)] for pattern, options in GREPS],
        "find_member": [[name, member, _name(graph[name].find_member(member))] for name, member in MEMBER_LOOKUPS],
        "all_declarations": sorted(d.name for d in graph.declarations),
        "broken_uri": BROKEN_URI,
        "broken_source": BROKEN_SOURCE,
    }
    out["syntax_errors"] = len(graph.index_source(BROKEN_URI, BROKEN_SOURCE))
    out["diagnostics"] = [
        [d.code, d.severity, d.path, str(d.location) if d.location is not None else None, d.message] for d in graph.diagnostics
    ]
    return out


if __name__ == "__main__":
    json.dump(answers(sys.argv[1]), sys.stdout)
