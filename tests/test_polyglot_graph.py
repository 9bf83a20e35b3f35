"""Other languages in the graph: declarations, references through imports, navigation, search,
incremental updates and the snapshot, on small multi-file projects of each language."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rdx
from rdx.languages.resolve import build

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/money.py": 'CURRENCY = "EUR"\n\n\ndef format_cents(cents: int) -> str:\n    """Cents as a price."""\n    return f"{cents / 100:.2f}"\n',
    "pkg/sub/__init__.py": "",
    "pkg/sub/printer.py": (
        "from ..money import format_cents\n"
        "from .. import money\n"
        "\n\nclass Base:\n    def hello(self):\n        pass\n\n\n"
        "class Printer(Base):\n"
        '    """Prints receipts."""\n\n'
        "    def line(self, cents: int) -> str:\n"
        "        self.hello()\n"
        "        return format_cents(cents) + money.CURRENCY + money.format_cents(1)\n"
    ),
    "web/money.ts": "export interface Money { cents: number }\nexport function formatMoney(m: Money): string { return String(m.cents) }\n",
    "web/cart.ts": (
        "import { Money, formatMoney } from './money'\n"
        "export class Cart {\n  items: Money[] = []\n  total(): string { return formatMoney(this.items[0]) }\n"
        "  show(): string { return this.total() }\n}\n"
    ),
    "go.mod": "module example.com/shop\n\ngo 1.19\n",
    "util/strings.go": "package util\n\n// Upper makes it loud.\nfunc Upper(s string) string { return s }\n\ntype Box struct{ V int }\n",
    "util/box.go": "package util\n\nfunc (b *Box) Get() int { return b.V }\n\nfunc Use() int { return Upper(\"x\") + 0 }\n",
    "cmd/main.go": 'package main\n\nimport "example.com/shop/util"\n\nfunc main() { util.Upper("a"); var b util.Box; b.Get() }\n',
}


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make(tmp_path, PROJECT)
    return tmp_path


def graph_of(root: Path) -> rdx.Graph:
    g = rdx.Graph()
    g.index_all([str(root)])
    g.resolve()
    return g


def refs(g: rdx.Graph, name: str) -> list[tuple[str, int, str]]:
    return sorted((os.path.basename(r.location.path), r.location.start_line, r.kind) for r in g.references_to(name))


def test_declarations_of_every_language_are_in_the_graph(project: Path) -> None:
    g = graph_of(project)
    printer = g["pkg.sub.printer.Printer"]
    assert (printer.kind, printer.language, printer.unqualified_name) == ("class", "python", "Printer")
    assert printer.comments == ["Prints receipts."]
    assert [m.name for m in printer.members] == ["pkg.sub.printer.Printer.line"]
    assert printer.member("line").definitions[0].signature == "(self, cents: int) -> str"
    assert [a.name for a in printer.ancestors] == ["pkg.sub.printer.Printer", "pkg.sub.printer.Base"]
    assert printer.find_member("hello").name == "pkg.sub.printer.Base.hello"
    # A Go method defined in another file than its type belongs to the type.
    box = g["util.Box"]
    assert [m.name for m in box.members] == ["util.Box.Get", "util.Box.V"]
    assert g["util.Box.Get"].owner == box
    assert g["util.Upper"].comments == ["Upper makes it loud."]
    doc = g.document(str(project / "web/cart.ts"))
    assert doc is not None and doc.language == "typescript"
    assert [(d.kind, d.name) for d in doc.definitions] == [("class", "Cart"), ("method", "total"), ("method", "show")]
    # Ruby is untouched: the core is there, and no other language's name shadows it.
    assert g["Object"].kind == "Class"


def test_references_resolve_through_imports_scopes_and_packages(project: Path) -> None:
    g = graph_of(project)
    assert refs(g, "pkg.money.format_cents") == [("printer.py", 15, "call"), ("printer.py", 15, "call")]
    assert refs(g, "pkg.money.CURRENCY") == []  # An attribute read, not a call: not a reference kind here.
    assert refs(g, "pkg.sub.printer.Base") == [("printer.py", 10, "base")]
    assert refs(g, "pkg.sub.printer.Base.hello") == [("printer.py", 14, "call")]
    assert refs(g, "formatMoney") == [("cart.ts", 4, "call")]
    assert ("cart.ts", 3, "type") in refs(g, "Money")
    assert refs(g, "Cart.total") == [("cart.ts", 5, "call")]
    # Go: a package's files see each other; another package through its import path.
    assert refs(g, "util.Upper") == [("box.go", 5, "call"), ("main.go", 5, "call")]
    assert ("main.go", 5, "type") in refs(g, "util.Box")


def test_definition_and_hover_follow_imports(project: Path) -> None:
    g = graph_of(project)
    printer = project / "pkg/sub/printer.py"
    target = g.definition_at(str(printer), 15, 16)  # format_cents(...)
    assert target is not None and target.name == "pkg.money.format_cents"
    assert target.locations[0].path.endswith("pkg/money.py") and target.locations[0].start_line == 4
    hover = g.hover_at(str(printer), 15, 16)
    assert hover is not None and hover.signature == "(cents: int) -> str" and hover.comments == ["Cents as a price."]
    target = g.definition_at(str(printer), 1, 8)  # the import itself names a file
    assert target is not None and target.kind == "file" and target.locations[0].path.endswith("pkg/money.py")
    main = project / "cmd/main.go"
    target = g.definition_at(str(main), 5, 20)  # util.Upper
    assert target is not None and target.name == "util.Upper"
    assert g.definition_at(str(main), 1, 0) is None


def test_ranked_search_covers_every_language_with_a_filter(project: Path) -> None:
    g = graph_of(project)
    assert [d.name for d in g.search("format cents", language="python")][:1] == ["pkg.money.format_cents"]
    assert [d.name for d in g.search("money", language="typescript")][:2] == ["Money", "formatMoney"]
    assert all(d.language == "go" for d in g.search("upper", language="go"))
    assert [d.name for d in g.search("Printer", kind="class")][:1] == ["pkg.sub.printer.Printer"]
    with pytest.raises(rdx.InvalidArgumentError):
        g.search("x", language="klingon")


def _comparable(state):  # type: ignore[no-untyped-def]
    return (state.declarations, state.by_name, state.symbol_declarations, state.import_targets, state.reference_targets)


def test_incremental_updates_equal_a_full_build(project: Path) -> None:
    g = graph_of(project)
    assert refs(g, "pkg.money.format_cents")  # Computes the foreign side of this revision.
    edits = [
        ("pkg/money.py", PROJECT["pkg/money.py"].replace("format_cents", "format_price")),
        ("util/strings.go", PROJECT["util/strings.go"].replace("Upper", "Lower")),
        ("web/extra.ts", "import { Cart } from './cart'\nexport function make(): Cart { return new Cart() }\n"),
        ("pkg/money.py", PROJECT["pkg/money.py"]),
    ]
    for name, text in edits:
        (project / name).write_text(text)
        g.refresh_paths([str(project / name)])
        g.resolve()
        incremental = g._ready().foreign.state
        documents = list(g._ready().state.documents.values())
        full = build(documents, g._foreign.layout(documents))
        assert _comparable(incremental) == _comparable(full), name
    assert g.get("util.Upper") is None
    assert refs(g, "util.Lower") == []  # The callers still call Upper: unresolved now.
    assert ("extra.ts", 2, "call") in refs(g, "Cart")
    os.remove(project / "web/money.ts")
    g.refresh_paths([str(project / "web/money.ts")])
    assert g.get("formatMoney") is None
    assert g.definition_at(str(project / "web/cart.ts"), 4, 30) is None


def test_the_snapshot_keeps_other_languages(project: Path) -> None:
    first = rdx.Graph.open(str(project))
    names = sorted(d.name for d in first.declarations if getattr(d, "language", "ruby") != "ruby")
    assert (project / ".rdx" / "foreign.msgpack").exists()  # The resolution is saved too.
    second = rdx.Graph.open(str(project))
    assert second.open_stats["parsed"] == 0
    assert sorted(d.name for d in second.declarations if getattr(d, "language", "ruby") != "ruby") == names
    assert refs(second, "util.Upper") == [("box.go", 5, "call"), ("main.go", 5, "call")]
    assert _comparable(second._ready().foreign.state) == _comparable(first._ready().foreign.state)
    # The layout is part of what the saved resolution is for: another module path, other imports.
    (project / "go.mod").write_text("module example.com/other\n")
    third = rdx.Graph.open(str(project))
    assert refs(third, "util.Upper") == [("box.go", 5, "call")]


def test_ambiguous_names_are_not_guessed(tmp_path: Path) -> None:
    make(tmp_path, {
        "a.js": "function helper() {}\n",
        "b.js": "function helper() {}\n",
        "c.js": "import { helper } from './a'\nimport * as b from './b'\nhelper(); b.helper(); unknown()\n",
    })
    g = graph_of(tmp_path)
    assert g.get("helper") is None  # Declared in two files.
    a, b = g.declarations_named("helper")
    assert sorted(os.path.basename(d.location.path) for d in (a, b)) == ["a.js", "b.js"]
    found = {os.path.basename(d.location.path): [r.location.start_column for r in g.references_to(d)] for d in (a, b)}
    assert found == {"a.js": [0], "b.js": [12]}


def test_ruby_is_untouched_by_other_languages(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    ruby = {"lib/app.rb": "module App\n  class Money\n    def format; end\n  end\nend\n", "lib/use.rb": "App::Money.new.format\n"}
    make(project, ruby)
    alone = tmp_path_factory.mktemp("ruby_only")
    make(alone, ruby)
    mixed, only = graph_of(project), graph_of(alone)

    def answers(g: rdx.Graph) -> object:
        ruby_decls = [d for d in g.declarations if getattr(d, "language", "ruby") == "ruby"]
        return sorted((d.name, d.kind, [a.name for a in d.ancestors]) for d in ruby_decls), [
            (r.name, r.location.start_line) for r in g.references_to("App::Money")
        ]

    assert answers(mixed) == answers(only)
    assert all(d.language == "ruby" for d in mixed.documents if d.path and d.path.endswith(".rb"))
