"""``rdx serve`` in a real browser: Debian's headless Chromium driven by selenium, given both
paths (/usr/bin/chromium, /usr/bin/chromedriver) so that nothing is downloaded. One fast smoke
test (search by intent, click, land on the line); the rest is marked slow. Screenshots of each
page go to $RDX_ARTIFACTS (default: a directory under the system's temporary directory)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import write

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from rdx_web import build_app  # noqa: E402

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
EXAMPLE = Path(__file__).resolve().parent.parent / "rdx" / "data" / "example"
ARTIFACTS = Path(os.environ.get("RDX_ARTIFACTS", os.path.join(tempfile.gettempdir(), "rdx-artifacts")))

pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)), reason="Debian's chromium and chromium-driver (make system-deps)")


def _serve(root: Path, cache: Path | None = None, watch: bool = True, ready: float = 120) -> Iterator[str]:
    import uvicorn

    from rdx_mcp import Workspace

    workspace = Workspace(str(root), cache_dir=str(cache or root.parent / "cache"), watch=watch).start()
    assert workspace.wait_ready(ready)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(workspace, port=port), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(400):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        workspace.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("browser") / "example"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".rdx"))
    write(root / "lib" / "probe.rb", "# <script>window.pwned = 1</script>\nPROBE = \"<img src=x onerror='window.pwned=2'>\"\n")
    write(root / "lib" / "shop" / "loud.rb", "module Shop\n  module Loud\n  end\n  class Parrot < Models::Record\n    prepend Loud\n    include Pricing\n  end\nend\n")
    for base in _serve(root):
        yield base, root


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver: webdriver.Chrome, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def wait(driver: webdriver.Chrome, seconds: float = 20) -> WebDriverWait:
    return WebDriverWait(driver, seconds)


def test_search_by_intent_click_and_land_on_the_definition_line(site, browser) -> None:
    base, _ = site
    browser.get(base + "/")
    box = browser.find_element(By.ID, "q")
    box.send_keys("money arithmetic")
    first = wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, ".decl-hit a.decl-name")))
    assert first.text == "Shop::Pricing"
    assert "q=money+arithmetic" in browser.current_url  # Typing kept the page and wrote the URL.
    shot(browser, "search")
    first.click()
    wait(browser).until(EC.url_contains("/file/lib/shop/pricing.rb#L3"))
    target = browser.execute_script("return document.querySelector(':target').id")
    assert target == "L3"
    assert "module Pricing" in browser.find_element(By.ID, "L3").text
    shot(browser, "file")


@pytest.mark.slow
def test_click_a_call_land_on_the_method_and_count_its_references(site, browser) -> None:
    base, _ = site
    browser.get(base + "/file/lib/shop/models/product.rb")
    call = browser.find_element(By.CSS_SELECTOR, '#L17 a.ref[title="Method Shop::Pricing#price_with_tax()"]')
    call.click()
    wait(browser).until(EC.url_contains("/file/lib/shop/pricing.rb#L6"))
    assert "def price_with_tax" in browser.find_element(By.ID, "L6").text
    badge = browser.find_element(By.CSS_SELECTOR, "#L6 a.refcount")
    assert badge.text == "2 refs"
    badge.click()
    wait(browser).until(EC.presence_of_element_located((By.ID, "ref-total")))
    assert browser.find_element(By.ID, "ref-total").text == "2"
    assert len(browser.find_elements(By.CSS_SELECTOR, ".ref-line")) == 2
    shot(browser, "references")


@pytest.mark.slow
def test_the_hierarchy_picture_shows_prepends_and_includes_in_rubys_order(site, browser) -> None:
    base, _ = site
    browser.get(base + "/decl/Shop%3A%3AParrot")
    nodes = browser.find_elements(By.CSS_SELECTOR, "#hierarchy svg g.node")
    chain = [(n.get_attribute("class").split()[-1], n.find_element(By.CSS_SELECTOR, "text").text) for n in nodes]
    ancestors = [name for how, name in chain if how in ("rel_prepend", "rel_self", "rel_include", "rel_superclass")]
    # Ruby: Shop::Parrot.ancestors
    assert ancestors[:5] == ["Shop::Loud", "Shop::Parrot", "Shop::Pricing", "Shop::Models::Record", "Object"]
    shot(browser, "declaration")
    browser.find_element(By.CSS_SELECTOR, "#hierarchy svg g.node.rel_superclass a").click()
    wait(browser).until(EC.url_contains("/decl/Shop%3A%3AModels%3A%3ARecord"))


@pytest.mark.slow
def test_grep_regex_matches_are_highlighted_and_a_probe_stays_text(site, browser) -> None:
    base, root = site
    browser.get(base + "/?mode=grep&regex=1&case=1&q=" + "def+%5Cw%2B%5C%28")
    marks = wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".grep-line mark"))
    assert all(re.fullmatch(r"def \w+\(", m.text) for m in marks)
    if shutil.which("rg"):
        import subprocess

        out = subprocess.run(["rg", "-c", r"def \w+\(", "."], cwd=root, capture_output=True, text=True).stdout
        assert int(browser.find_element(By.ID, "grep-total").text) == sum(int(line.rsplit(":", 1)[1]) for line in out.splitlines())
    shot(browser, "grep")
    browser.get(base + "/file/lib/probe.rb")
    assert "<script>window.pwned = 1</script>" in browser.find_element(By.ID, "L1").text
    assert browser.execute_script("return window.pwned === undefined")
    browser.get(base + "/file/lib/..%2f..%2f..%2f..%2fetc/passwd")  # A browser would resolve a plain "..".
    assert "outside the project root" in browser.find_element(By.CSS_SELECTOR, ".message").text
    browser.get(base + "/map")
    shot(browser, "map")


@pytest.mark.slow
def test_a_file_edited_on_disk_reloads_with_the_new_text(site, browser) -> None:
    base, root = site
    write(root / "lib" / "edited.rb", "class BeforeEdit\nend\n")
    for _ in range(200):
        browser.get(base + "/file/lib/edited.rb")
        if browser.find_elements(By.ID, "L1") and "BeforeEdit" in browser.find_element(By.ID, "L1").text:
            break
        time.sleep(0.1)
    write(root / "lib" / "edited.rb", "class AfterEdit\nend\n")
    # The page polls /api/status and reloads itself when the revision moves.
    wait(browser, 60).until(lambda d: "AfterEdit" in d.find_element(By.ID, "L1").text)


VENDOR_RUBY = Path("/usr/lib/ruby/vendor_ruby")
SEQUEL_SYMBOL = VENDOR_RUBY / "sequel" / "extensions" / "symbol_aref.rb"


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # The Debian corpus as it is installed, read only: the cache goes to a temporary directory.
    yield from _serve(VENDOR_RUBY, cache=tmp_path_factory.mktemp("vendor-cache"), watch=False, ready=900)


def _ruby_ancestors(script: str) -> list[str]:
    import subprocess

    out = subprocess.run(["ruby", "-I", str(VENDOR_RUBY), "-e", script + "; puts X.ancestors.map(&:to_s)"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return out.split()


def _picture_chain(browser: webdriver.Chrome) -> list[tuple[str, str]]:
    """(relation, name) of the hierarchy picture's ancestor nodes, top to bottom."""
    nodes = browser.find_elements(By.CSS_SELECTOR, "#hierarchy svg g.node")
    chain = [(n.get_attribute("class").split()[-1], n.find_element(By.CSS_SELECTOR, "text").text) for n in nodes]
    return [(how, name) for how, name in chain if how in ("rel_prepend", "rel_self", "rel_include", "rel_superclass")]


@pytest.mark.corpus
@pytest.mark.skipif(not SEQUEL_SYMBOL.exists() or shutil.which("ruby") is None, reason="the Debian Ruby corpus and Ruby (make system-deps)")
def test_the_debian_corpus_in_a_browser(corpus_site, browser) -> None:
    """On /usr/lib/ruby/vendor_ruby: search by intent, click, land on the definition line; the
    hierarchy pictures of a class with a prepend and includes, and of one with includes, in
    Ruby's order (Ruby, loading the same files, is the oracle)."""
    base = corpus_site
    browser.get(base + "/")
    browser.find_element(By.ID, "q").send_keys("levenshtein distance between two strings")
    first = wait(browser, 60).until(EC.element_to_be_clickable((By.CSS_SELECTOR, ".decl-hit a.decl-name")))
    assert first.text == "Gem::Text#levenshtein_distance()"
    shot(browser, "corpus-search")
    first.click()
    wait(browser, 60).until(EC.url_contains("/file/rubygems/text.rb#L"))
    line = browser.execute_script("return document.querySelector(':target').id")
    assert line.startswith("L") and "def levenshtein_distance" in browser.find_element(By.ID, line).text
    lines = (VENDOR_RUBY / "rubygems" / "text.rb").read_text().split("\n")
    assert line == f"L{next(i for i, x in enumerate(lines, 1) if 'def levenshtein_distance' in x)}"
    shot(browser, "corpus-file")

    # A class with includes only: Mail::Field (Comparable, Mail::Utilities...).
    browser.get(base + "/decl/Mail%3A%3AField")
    chain = _picture_chain(browser)
    ruby = _ruby_ancestors('require "mail"; X = Mail::Field')
    shown = [name for _, name in chain]
    # Ruby loaded one library; the picture merges every reopening of the corpus (Object's
    # core extensions of other gems): the same order on the names both know, and every
    # ancestor Ruby names is drawn.
    assert [n for n in shown if n in ruby] == ruby
    assert ("rel_include", "Comparable") in chain and ("rel_include", "Mail::Utilities") in chain
    shot(browser, "corpus-declaration-includes")

    # A prepend and includes: Sequel's symbol_aref prepends Sequel::SymbolAref to Symbol, and
    # core_extensions includes eight modules into it.
    browser.get(base + "/decl/Symbol")
    chain = _picture_chain(browser)
    shown = [name for _, name in chain]
    ruby = _ruby_ancestors("require \"sequel\"; Sequel.extension :symbol_aref, :core_extensions; X = Symbol")
    assert chain[:2] == [("rel_prepend", "Sequel::SymbolAref"), ("rel_self", "Symbol")]
    assert set(ruby) <= set(shown)
    # core_extensions.rb calls `Sequel.extension :symbol_as` (a require of a computed path,
    # rdx.ruby.evaluate.computed) before its `class Symbol` body, so symbol_as.rb loads first
    # and AliasMethods comes after CastMethods, as in Ruby. (Refinements are not a cause:
    # `refine Symbol do include ... end` changes no ancestors in rdx, as in Ruby;
    # tests/test_mixins_in_blocks.py.)
    assert [n for n in shown if n in ruby] == ruby
    assert all(how == "rel_include" for how, name in chain if name.startswith("Sequel::SQL::"))
    shot(browser, "corpus-declaration-prepend")


@pytest.mark.slow
def test_map_toggles_namespaces_and_draws_around_a_focus_file(site, browser) -> None:
    base, _ = site
    browser.get(base + "/?mode=decl&q=price")
    assert int(wait(browser).until(lambda d: d.find_element(By.ID, "decl-total")).text) > 0
    browser.get(base + "/map")
    member = browser.find_element(By.CSS_SELECTOR, '.map-decl.indent-1 a[href="/file/lib/shop/pricing.rb#L6"]')
    assert member.text == "price_with_tax()"
    browser.find_element(By.LINK_TEXT, "namespaces").click()
    wait(browser).until(EC.url_contains("deps=namespaces"))
    labels = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#dependencies svg g.node text")]
    assert "Shop::Models" in labels
    shot(browser, "map-namespaces")
    browser.get(base + "/map?focus=lib/shop/pricing.rb")
    focus = browser.find_element(By.CSS_SELECTOR, "#dependencies svg g.node.focus text")
    assert focus.text == "lib/shop/pricing.rb"
    shot(browser, "map-focus")
    browser.get(base + "/map")
    browser.find_element(By.CSS_SELECTOR, '.map-decl.indent-1 a[href="/file/lib/shop/pricing.rb#L6"]').click()
    wait(browser).until(EC.url_contains("/file/lib/shop/pricing.rb#L6"))
