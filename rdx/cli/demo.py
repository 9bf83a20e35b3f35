"""``rdx demo``: index the built-in example project (Ruby with a Rails-style model, Python,
TypeScript) and answer a few questions about it, through the public API only."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from importlib import resources
from typing import Any

import rdx

__all__ = ["add_demo_parser", "example_root"]


def example_root() -> str:
    return str(resources.files("rdx.data").joinpath("example"))


def _ruby_answers(graph: rdx.Graph, root: str) -> dict[str, Any]:
    product = graph["Shop::Models::Product"]
    return {
        "Shop::Models::Product ancestors": [a.name for a in product.ancestors],
        "Product#price_with_tax() comes from": product.find_member("price_with_tax()").owner.name,  # type: ignore[union-attr]
        "Order#map() comes from": graph["Shop::Models::Order"].find_member("map()").owner.name,  # type: ignore[union-attr]
        "OutOfStock inside Shop::Models::Order resolves to": graph.resolve_constant("OutOfStock", ["Shop", "Models", "Order"]).name,  # type: ignore[union-attr]
        "Shop::Models::Item is an alias of": graph["Shop::Models::Item"].target.name,  # type: ignore[union-attr]
        "Shop::Models::Line members": [m.unqualified_name for m in graph["Shop::Models::Line"].members],
        "Shop::Pricing.format is": graph["Shop::Pricing::<Pricing>#format()"].visibility,
        "Record.create defined at": str(graph["Shop::Models::Record::<Record>#create()"].location),
        "Best match for 'money arithmetic' (ranked search)": graph.search("money arithmetic", limit=1)[0].name,
        "Lines matching 'def total' (grep)": [f"{os.path.relpath(h.path, root)}:{h.line}" for h in graph.grep("def total")],
    }


def _rails_answers(graph: rdx.Graph) -> dict[str, Any]:
    """The Rails-style model: what its macros and db/schema.rb's columns define."""
    review = graph["Review"]
    generated = [(m.unqualified_name.removesuffix("()"), m.definitions[0]) for m in review.members if any(d.signature == "(...)" for d in m.definitions)]
    from_macros = [name for name, d in generated if not d.location.path.endswith("schema.rb")]
    from_schema = [name for name, d in generated if d.location.path.endswith("schema.rb")]
    columns = sorted({name for name in from_schema if f"{name}=" in from_schema and f"{name}?" in from_schema})
    return {
        "Review (a Rails model) gets from its macros": from_macros,
        "Review's columns (db/schema.rb)": f"{', '.join(columns)}: {len(from_schema)} attribute methods (name, name=, name?, name_changed?, ...)",
        "Review's class methods from scope and enum": [m.unqualified_name.removesuffix("()") for m in review.singleton_class.members],  # type: ignore[union-attr]
    }


def _other_languages(graph: rdx.Graph, root: str) -> dict[str, Any]:
    """The demo's polyglot part: a Python package and a TypeScript module, each importing
    between its own files, in the same graph as the Ruby code."""

    def uses(name: str) -> list[str]:
        return [f"{os.path.relpath(r.location.path, root)}:{r.location.start_line}" for r in graph.references_to(name)]

    printer = graph["receipts.printer.Printer"]
    badge = os.path.join(root, "web", "cart.ts")
    target = graph.definition_at(badge, 10, 12)
    return {
        "Python: receipts.printer.Printer members": [m.unqualified_name for m in printer.members],
        "Python: receipts.money.format_cents is called from": uses("receipts.money.format_cents"),
        "TypeScript: formatMoney is called from": uses("formatMoney"),
        "TypeScript: go to definition of formatMoney in web/cart.ts:10:12": str(target.locations[0]) if target else "(none)",
        "Search 'format money' in TypeScript": [d.name for d in graph.search("format money", language="typescript", limit=2)],
    }


def add_demo_parser(sub: Any, index: Callable[..., Any], summarize: Callable[..., Any], emit: Callable[..., None]) -> None:
    p = sub.add_parser("demo", help="index the built-in example project and answer a few questions")
    p.add_argument("--json", action="store_true")

    def run(args: argparse.Namespace) -> int:
        root = example_root()
        graph, problems, t_disc, t_res = index(root, 1, True, False)
        stats, summary = summarize(graph, problems, t_disc, t_res)
        answers = {**_ruby_answers(graph, root), **_rails_answers(graph), **_other_languages(graph, root)}
        if args.json:
            emit(args, {"project": root, "stats": stats, "answers": answers}, "")
            return 0
        lines = [f"rdx demo: the built-in example project at {root}", summary, ""]
        for question, answer in answers.items():
            lines.append(f"{question}: {', '.join(answer) if isinstance(answer, list) else answer}")
        lines += ["", "Try: rdx show Shop::Models::Product --project " + root, f"Browse it: rdx serve {root} (then open http://127.0.0.1:8765/)"]
        emit(args, None, "\n".join(lines))
        return 0

    p.set_defaults(func=run)
