"""``rdx serve``'s pages for people (rdx_web), over HTTP in process (Starlette's test client)
and once through a real server thread with urllib: search, file view links, declaration page
and its hierarchy picture, grep against ripgrep, escaping, paths, parameters, redirects of the
JSON API's old paths, and a file edited on disk."""

from __future__ import annotations

import ast
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ready_workspace, write
from starlette.testclient import TestClient

import rdx
from rdx_web import build_app

ROOT = Path(__file__).resolve().parent.parent

FILES = {
    "lib/app.rb": (
        "module Loud\n  def speak; end\nend\n"
        "module Polite\n  def greet; end\nend\n"
        "module Traits\nend\n"
        "class Animal\n  include Traits\nend\n"
        "# A dog that barks and greets.\n"
        "class Dog < Animal\n  prepend Loud\n  include Polite\n  extend Traits\n\n  def bark\n    greet\n    speak\n  end\nend\n"
        "class Puppy < Dog\nend\n"
    ),
    "lib/use.rb": "def walk(dog)\n  Dog.new.bark\n  dog.bark\nend\n",
    "lib/xss.rb": "# <script>alert('pwned')</script>\nX = \"<img src=x onerror=alert(1)>\"\n",
    "README.md": "# App\nDogs bark. dog barks: bark bark.\n",
}
DOG = "Dog"


class _Links(HTMLParser):
    """Every element with its attributes, and the text of <a> links by href."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self.scripts.append(dict(attrs))


def parse(html: str) -> _Links:
    p = _Links()
    p.feed(html)
    return p


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("web")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("the secret\n")
    with ready_workspace(root, FILES) as workspace:
        os.symlink(outside / "secret.txt", root / "lib" / "leak.txt")
        with TestClient(build_app(workspace), base_url="http://127.0.0.1") as client:
            yield root, workspace, client


def test_search_page_finds_a_declaration_by_intent_and_links_to_its_line(project) -> None:
    _, _, client = project
    response = client.get("/", params={"q": "dog that barks", "mode": "decl"})
    assert response.status_code == 200
    html = response.text
    first = re.search(r'<a class="decl-name" href="([^"]+)">([^<]+)</a>', html)
    assert first is not None and first.group(2) == "Dog"
    assert first.group(1) == "/file/lib/app.rb#L13"  # Its one definition, at its line.
    # The query stays in the form, for bookmarks; the fragment endpoint answers the same.
    assert 'value="dog that barks"' in html
    assert "Dog" in client.get("/results", params={"q": "dog that barks", "mode": "decl"}).text


def test_grep_with_a_regex_highlights_ripgreps_lines(project) -> None:
    root, _, client = project
    html = client.get("/", params={"q": r"ba+rk\b", "regex": "1", "case": "1", "mode": "grep"}).text
    shown = sorted((path, int(line)) for path, line in re.findall(r'href="/file/([^"#]+)#L(\d+)">\d+</a>', html))
    marked = re.findall(r"<mark>([^<]*)</mark>", html)
    assert marked and all(re.fullmatch(r"ba+rk", m) for m in marked)
    assert shutil.which("rg") is not None, "ripgrep is the oracle (make system-deps installs it)"
    out = subprocess.run(["rg", "-n", "--no-heading", r"ba+rk\b", "."], cwd=root, capture_output=True, text=True).stdout
    expected = sorted((p.removeprefix("./"), int(n)) for p, n, _ in (line.split(":", 2) for line in out.splitlines()))
    assert shown == expected


def test_file_view_links_calls_and_constants_to_their_definitions(project) -> None:
    _, _, client = project
    html = client.get("/file/lib/use.rb").text
    # Dog.new.bark: the constant and the method, both resolved, link to their lines.
    line2 = re.search(r'<span id="L2">(.*?)\n</span>', html).group(1)
    assert 'href="/file/lib/app.rb#L13"' in line2 and 'title="Class Dog"' in line2
    assert 'href="/file/lib/app.rb#L18" title="Method Dog#bark()"' in line2
    # dog.bark: the receiver's type is unknown, so the link is marked and resolves on click.
    line3 = re.search(r'<span id="L3">(.*?)\n</span>', html).group(1)
    goto = re.search(r'<a class="ref uncertain" href="([^"]+)"', line3).group(1)
    answer = client.get(goto.replace("&amp;", "&"), follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/file/lib/app.rb#L18"


POLYGLOT = {
    "web/money.ts": "export interface Money {\n  cents: number;\n}\n\nexport function formatMoney(m: Money): string {\n  return `${m.cents}`;\n}\n",
    "web/cart.ts": (
        'import { Money, formatMoney } from "./money";\n\nexport class Cart {\n  constructor(private items: Money[]) {}\n'
        "  total(): string {\n    return formatMoney(this.items[0]);\n  }\n}\n"
    ),
    "py/money.py": "def format_money(cents):\n    return str(cents)\n",
    "py/cart.py": "from py.money import format_money\n\n\nclass Cart:\n    def total(self):\n        return format_money(1) + undefined_name()\n",
}


def _line(html: str, n: int) -> str:
    found = re.search(rf'<span id="L{n}">(.*?)\n</span>', html)
    assert found is not None, n
    return found.group(1)


def test_other_languages_names_link_to_their_definitions(tmp_path: Path) -> None:
    """A TypeScript or Python file's calls and types that the graph resolved link to their
    definition's line, as Ruby's do; what did not resolve stays text."""
    with ready_workspace(tmp_path, POLYGLOT) as workspace, TestClient(build_app(workspace), base_url="http://127.0.0.1") as client:
        ts = client.get("/file/web/cart.ts").text
        assert re.search(r'<a class="ref" href="/file/web/money.ts#L1" title="interface Money">(<span class="\w+">)?Money(</span>)?</a>', _line(ts, 4))
        assert re.search(r'<a class="ref" href="/file/web/money.ts#L5" title="function formatMoney">(<span class="\w+">)?formatMoney(</span>)?</a>', _line(ts, 6))
        assert 'class="def" href="/decl/Cart"' in _line(ts, 3)  # Definitions still link to their pages.
        py = client.get("/file/py/cart.py").text
        line6 = _line(py, 6)
        assert re.search(r'<a class="ref" href="/file/py/money.py#L1" title="function [\w.]*format_money">(<span class="\w+">)?format_money(</span>)?</a>', line6)
        assert "undefined_name" in line6 and not re.search(r"undefined_name(</span>)?</a>", line6)
        # Following a link lands on the definition's line, whose name links to its page.
        money = client.get("/file/web/money.ts").text
        assert 'class="def" href="/decl/formatMoney"' in _line(money, 5)


def test_definitions_show_their_reference_counts(project) -> None:
    _, _, client = project
    html = client.get("/file/lib/app.rb").text
    bark = re.search(r'<span id="L18">(.*?)\n</span>', html).group(1)
    assert 'class="def" href="/decl/Dog%23bark%28%29"' in bark
    assert re.search(r'class="refcount" href="/decl/Dog%23bark%28%29#references"[^>]*>2 refs</a>', bark)
    page = client.get("/decl/" + urllib.parse.quote("Dog#bark()", safe="")).text
    assert re.search(r'<span class="n" id="ref-total">2</span>', page)
    assert "Dog.new.bark" in page  # A line of context per reference.


def test_declaration_page_draws_the_hierarchy_in_rubys_order(project) -> None:
    _, _, client = project
    response = client.get("/decl/Dog")
    assert response.status_code == 200
    html = response.text
    svg = html[html.index("<svg") : html.index("</svg>")]
    # Nodes in document order are the ancestors in linearization order (Ruby: Dog.ancestors).
    titles = re.findall(r'<g id="node\d+" class="node rel_(\w+)">\s*<title>n\d+</title>\s*<g id="a_node\d+"><a xlink:href="([^"]+)"', svg)
    chain = [(how, urllib.parse.unquote(href.removeprefix("/decl/"))) for how, href in titles]
    ancestors = [(how, name) for how, name in chain if how not in ("extend", "descendant")]
    assert ancestors[:6] == [("prepend", "Loud"), ("self", "Dog"), ("include", "Polite"), ("superclass", "Animal"), ("include", "Traits"), ("superclass", "Object")]
    assert ("extend", "Dog::<Dog>") in chain and ("extend", "Traits") in chain and ("descendant", "Puppy") in chain
    assert "A dog that barks and greets." in html
    assert re.search(r'<summary>from <a href="/decl/Polite">Polite</a>', html)  # Inherited members, folded.


def test_a_script_in_a_source_file_renders_as_text(project) -> None:
    _, _, client = project
    response = client.get("/file/lib/xss.rb")
    html = response.text
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in html or "&lt;script&gt;alert('pwned')&lt;/script&gt;" in html
    assert [s.get("src") for s in parse(html).scripts] == ["/static/app.js"]  # Ours only.
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp
    grep = client.get("/", params={"q": "<script>", "mode": "grep"}).text
    assert "<script>alert" not in grep and "<mark>&lt;script&gt;</mark>" in grep


@pytest.mark.parametrize(
    ("target", "status"),
    [
        ("/file/%2e%2e/%2e%2e/etc/passwd", 403),
        ("/file/lib/%2e%2e/%2e%2e/x", 403),
        ("/file/lib/leak.txt", 403),  # A symlink that leaves the root.
        ("/file/lib/nothing.rb", 404),
        ("/goto?path=../x.rb&line=1&col=0", 403),
        ("/goto?path=lib/use.rb&line=0&col=0", 400),
        ("/goto?path=lib/use.rb&line=99&col=0", 400),
        ("/?q=x&offset=-1", 400),
        ("/?q=x&mode=psychic", 400),
        ("/?q=x&regex=maybe", 400),
        ("/decl/No%3A%3ASuch", 404),
        ("/map?tokens=5", 400),
        ("/no/such/page", 404),
    ],
)
def test_bad_paths_and_parameters_are_clear_pages(project, target: str, status: int) -> None:
    _, _, client = project
    response = client.get(target, follow_redirects=False)
    assert response.status_code == status, response.text[:500]
    assert "Traceback" not in response.text and "the secret" not in response.text
    assert '<p class="message">' in response.text


def test_an_invalid_regex_is_said_in_the_results(project) -> None:
    _, _, client = project
    response = client.get("/", params={"q": "(", "regex": "1", "mode": "grep"})
    assert response.status_code == 200 and '<p class="error-inline">' in response.text


def test_the_old_json_paths_redirect_under_api(project) -> None:
    _, _, client = project
    for old in ("/grep?pattern=bark&limit=1", "/search?query=dog", "/stats", "/status", "/declarations/Dog%23bark%28%29"):
        response = client.get(old, follow_redirects=False)
        assert response.status_code == 307 and response.headers["location"] == "/api" + old
        assert client.get(old).json() == client.get("/api" + old).json()
    assert client.get("/api/declarations/Dog%23bark%28%29").json()["owner"] == "Dog"


# (API path, the MCP tool and its arguments as an MCP client would send them): answers, paging,
# token cuts and every kind of error (validation, unknown name, a bad regex, an unknown parameter).
API_AS_MCP = [
    ("/api/search?query=dog+that+barks", "search_declarations", {"query": "dog that barks"}),
    ("/api/search?query=a&limit=2&offset=1&kind=Class", "search_declarations", {"query": "a", "limit": 2, "offset": 1, "kind": "Class"}),
    ("/api/search?query=Do&match_mode=prefix&max_tokens=40", "search_declarations", {"query": "Do", "match_mode": "prefix", "max_tokens": 40}),
    ("/api/search?query=dog&dependencies=false", "search_declarations", {"query": "dog", "dependencies": False}),
    ("/api/search?query=x&limit=abc", "search_declarations", {"query": "x", "limit": "abc"}),
    ("/api/search?query=x&match_mode=bad", "search_declarations", {"query": "x", "match_mode": "bad"}),
    ("/api/search?query=", "search_declarations", {"query": ""}),
    ("/api/declarations/Dog", "get_declaration", {"name": "Dog"}),
    ("/api/declarations/Dog?max_tokens=60", "get_declaration", {"name": "Dog", "max_tokens": 60}),
    ("/api/declarations/Dgo", "get_declaration", {"name": "Dgo"}),
    ("/api/declarations/Dog%23bark%28%29", "get_declaration", {"name": "Dog#bark()"}),
    ("/api/grep?pattern=bark", "search_code", {"pattern": "bark"}),
    ("/api/grep?pattern=b.rk&regex=true&ignore_case=1&glob=*.rb&glob=!lib/use.rb&context=1&limit=2&offset=1", "search_code",
     {"pattern": "b.rk", "regex": True, "ignore_case": True, "glob": ["*.rb", "!lib/use.rb"], "context": 1, "limit": 2, "offset": 1}),
    ("/api/grep?pattern=(&regex=true", "search_code", {"pattern": "(", "regex": True}),
    ("/api/grep?pattern=bark&timeout=0", "search_code", {"pattern": "bark", "timeout": 0}),
    ("/api/stats", "codebase_stats", {}),
    ("/api/status", "index_status", {}),
]


def test_the_json_api_answers_as_the_mcp_tools(project) -> None:
    """The JSON API builds its answers with the functions behind the MCP tools, not through the
    MCP server: the same JSON for the same question, errors included."""
    import asyncio
    import json

    from mcp.server.mcpserver.exceptions import ToolError

    from rdx_mcp import build_server

    _, workspace, client = project
    server = build_server(workspace)
    for url, tool, arguments in API_AS_MCP:
        response = client.get(url)
        try:
            expected = asyncio.run(server.call_tool(tool, arguments)).structured_content
            assert response.status_code == 200, url
        except ToolError as exc:
            text = str(exc)
            expected = json.loads(text[text.index("{") :])
            assert response.status_code in (400, 404), url
        body = response.json()
        if tool == "index_status":
            assert body.pop("last_indexed") and expected.pop("last_indexed")
        assert body == expected, url


def test_rdx_web_reads_no_private_name_of_the_workspace() -> None:
    """Pages and the JSON API take the workspace's public ``lock``, never ``_lock`` and friends."""
    for path in sorted((ROOT / "rdx_web").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                assert not (isinstance(node.value, ast.Name) and node.value.id in ("workspace", "ws")), (path, node.attr)
                assert not (isinstance(node.value, ast.Attribute) and node.value.attr == "workspace"), (path, node.attr)


def test_directory_listing_and_map(project) -> None:
    _, _, client = project
    listing = client.get("/file/lib").text
    assert 'href="/file/lib/app.rb"' in listing and "leak.txt" not in listing
    page = client.get("/map").text
    assert 'href="/file/lib/app.rb"' in page and 'href="/decl/Dog"' in page
    # The dependency picture: lib/use.rb uses lib/app.rb (Dog, Dog#bark).
    svg = page[page.index('id="dependencies"') :]
    svg = svg[: svg.index("</svg>")]
    assert 'xlink:href="/file/lib/use.rb"' in svg and 'xlink:href="/file/lib/app.rb"' in svg
    assert "lib/use.rb uses lib/app.rb" in svg


NAMESPACED = {
    "lib/shop/money.rb": "module Shop\n  module Money\n    def self.format(cents)\n      cents.to_s\n    end\n  end\nend\n",
    "lib/shop/models/order.rb": (
        "module Shop\n  module Models\n    class Order\n      def total\n        Shop::Money.format(1)\n      end\n\n"
        "      def line\n        Line.new\n      end\n    end\n  end\nend\n"
    ),
    "lib/shop/models/line.rb": "module Shop\n  module Models\n    class Line\n      def price\n        Shop::Money.format(2)\n      end\n    end\n  end\nend\n",
    "lib/report.rb": "class Report\n  def run\n    Shop::Models::Order.new.total\n  end\nend\n",
    "lib/other.rb": "class Other\n  def self.alone; end\nend\n",
}


def _picture(html: str) -> tuple[list[str], list[str], dict[str, str]]:
    """The dependency picture's node labels, edge tooltips and node links."""
    svg = html[html.index('id="dependencies"') :]
    svg = svg[: svg.index("</svg>")]
    nodes = re.findall(r'<g id="\w+" class="node [^"]*">.*?<a xlink:href="([^"]+)"[^>]*>.*?<text[^>]*>([^<]*)</text>', svg, re.S)
    edges = re.findall(r'<a xlink:title="([^"]+ uses [^"]+) \(\d+\)"', svg)
    return [label for _, label in nodes], [e.replace("&#45;", "-") for e in edges], {label: url for url, label in nodes}


def test_search_map_members_and_dependency_pictures(tmp_path: Path) -> None:
    """The declarations found are counted; the map's member lines link to their lines; the
    dependency picture is drawn by file or by namespace, for the project or around one file."""
    with ready_workspace(tmp_path, NAMESPACED) as workspace, TestClient(build_app(workspace), base_url="http://127.0.0.1") as client:
        total = len(workspace.graph().search("shop", limit=100))
        found = client.get("/", params={"q": "shop", "mode": "decl"}).text
        assert total > 0 and re.search(rf'<p class="count">1–{min(total, 20)} of <span id="decl-total">{total}</span> declarations</p>', found)

        page = client.get("/map").text
        # "m total :4" under lib/shop/models/order.rb, "sm format(cents) :3" under money.rb.
        assert re.search(r'<a href="/file/lib/shop/models/order.rb#L4">total\(\)</a>', page)
        assert re.search(r'<a href="/file/lib/shop/money.rb#L3">format\(cents\)</a>', page)
        nodes, edges, _ = _picture(page)
        assert "lib/report.rb uses lib/shop/models/order.rb" in edges and "lib/shop/models/line.rb uses lib/shop/money.rb" in edges
        assert "lib/other.rb" not in nodes  # Nothing uses it and it uses nothing.

        spaces = client.get("/map", params={"deps": "namespaces"}).text
        assert '<strong class="on">namespaces</strong>' in spaces and 'href="/map?tokens=2048&amp;focus=&amp;deps=files">files</a>' in spaces
        nodes, edges, links = _picture(spaces)
        assert sorted(edges) == ["Report uses Shop::Models", "Shop::Models uses Shop"]
        assert links["Shop::Models"] == "/decl/Shop%3A%3AModels"

        around = client.get("/map", params={"focus": "lib/shop/models/order.rb"}).text
        nodes, edges, _ = _picture(around)
        assert sorted(nodes) == ["lib/report.rb", "lib/shop/models/line.rb", "lib/shop/models/order.rb", "lib/shop/money.rb"]
        assert sorted(edges) == [
            "lib/report.rb uses lib/shop/models/order.rb",
            "lib/shop/models/order.rb uses lib/shop/models/line.rb",
            "lib/shop/models/order.rb uses lib/shop/money.rb",
        ]
        assert 'class="node file focus"' in around
        assert client.get("/map", params={"deps": "modules"}).status_code == 400


def test_a_file_edited_on_disk_shows_its_new_text(tmp_path: Path) -> None:
    """Through a real server thread (uvicorn) and urllib, with the workspace watching."""
    import uvicorn

    from rdx_mcp import Workspace

    write(tmp_path / "lib" / "a.rb", "class First\nend\n")
    workspace = Workspace(str(tmp_path)).start()
    assert workspace.wait_ready()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(workspace, port=port), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        with urllib.request.urlopen(base + "/file/lib/a.rb") as r:
            before = r.read().decode()
        assert "First" in before
        revision = int(re.search(r'data-revision="(\d+)"', before).group(1))
        write(tmp_path / "lib" / "a.rb", "class Second\nend\n")
        after = before
        for _ in range(600):  # The watcher applies the change within a few ticks.
            with urllib.request.urlopen(base + "/api/status") as r:
                status = r.read().decode()
            if f'"revision":{revision}' not in status:
                with urllib.request.urlopen(base + "/file/lib/a.rb") as r:
                    after = r.read().decode()
                break
            time.sleep(0.05)
        assert "Second" in after and "First" not in after
        request = urllib.request.Request(base + "/", headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code == 421
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        workspace.stop()


def test_rdx_web_uses_only_the_public_api() -> None:
    public = set(rdx.__all__)
    for path in sorted((ROOT / "rdx_web").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and (node.module == "rdx" or node.module.startswith("rdx.")):
                assert node.module == "rdx" and {a.name for a in node.names} <= public, path
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("rdx.") for a in node.names), path


VENDOR_RUBY = Path("/usr/lib/ruby/vendor_ruby")
BIG_FILE = "mail/parsers/address_lists_parser.rb"  # 1.46 MB of generated Ragel parser.


@pytest.mark.corpus
@pytest.mark.skipif(not (VENDOR_RUBY / BIG_FILE).exists(), reason="Debian's ruby-mail (the corpus, make system-deps)")
def test_the_debian_corpus_pages(tmp_path: Path) -> None:
    from rdx_mcp import Workspace

    workspace = Workspace(str(VENDOR_RUBY), cache_dir=str(tmp_path / "cache"), watch=False).start()
    try:
        assert workspace.wait_ready(900)
        with TestClient(build_app(workspace), base_url="http://127.0.0.1") as client:
            big = client.get("/file/" + BIG_FILE)
            assert big.status_code == 200
            lines = (VENDOR_RUBY / BIG_FILE).read_bytes().count(b"\n") + 1
            assert f'id="L{lines}"' in big.text  # Every line, with its anchor, even past the highlighting budget.
            assert 'class="def" href="/decl/Mail%3A%3AParsers%3A%3AAddressListsParser"' in big.text
            page = client.get("/decl/Mail%3A%3AMessage")
            assert page.status_code == 200 and "<svg" in page.text
            assert re.search(r'<span class="n" id="ref-total">\d+</span>', page.text)
            found = client.get("/", params={"q": "parse an email address list", "mode": "decl"}).text
            assert "Mail::" in found
            grep = client.get("/", params={"q": r"def \w+_header\b", "regex": "1", "mode": "grep"})
            assert grep.status_code == 200 and "<mark>def " in grep.text
    finally:
        workspace.stop()


def test_the_shared_answers_take_the_mcp_tools_parameters(project) -> None:
    """The JSON API validates against each answer's signature and MCP against its tool's: the
    two give the same input schema, so they accept and refuse the same arguments."""
    import asyncio

    from mcp.server.mcpserver.utilities.func_metadata import func_metadata

    from rdx_mcp import build_server
    from rdx_mcp.models import compact_schema
    from rdx_mcp.server import ANSWERS

    _, workspace, _ = project
    tools = {t.name: t for t in asyncio.run(build_server(workspace).list_tools())}
    for name, answer in ANSWERS.items():
        schema = func_metadata(answer, skip_names=["workspace"]).arg_model.model_json_schema(by_alias=True)
        compact_schema(schema, output=False)
        assert schema == tools[name].input_schema, name
