"""Shared test helpers: building graphs from inline multi-file Ruby fixtures, and running Ruby."""

from __future__ import annotations

import ast
import atexit
import gc
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import rdx

RUBY = shutil.which("ruby")

# A test process holds pytest, every test module and the libraries they import, hundreds of
# thousands of objects that each full collection walks again. At the default threshold (a
# collection every 700 net allocations) the collector took about a tenth of make check's time;
# every 10,000 less than half of that, every 100,000 (the objects a test makes mostly die young,
# before a collection sees them) about half again, at the same peak memory. This is the test processes' setting only: the
# rdx commands and servers the tests start keep Python's default, and a test that needs a
# collection runs gc.collect() itself.
gc.set_threshold(100_000, *gc.get_threshold()[1:])


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collection imports every test module and what they import (the MCP server, the language
    server's protocol, Ray...): a few million objects that live until the process ends. With
    the collector off meanwhile and those objects frozen afterwards (``gc.freeze``: no later
    collection walks them again), collecting takes about 1.5 s less CPU per process (make check
    collects in both workers), and the tests' collections walk only what the tests made."""
    gc.disable()
    try:
        yield
    finally:
        gc.collect()  # What the imports left as garbage, once, before the rest is frozen.
        gc.freeze()
        gc.enable()


# pytest-lsp's plugin imports lsprotocol's types (about 0.7 s of CPU). make check's controller,
# which runs no test, goes without it (``-p no:pytest-lsp``, the Makefile): it loaded it before
# starting the workers, so that the workers started that much later. Each worker, which runs the
# language-server tests, registers it again here, as its entry point would have, before the
# command line is parsed (its ``--lsp-devtools`` option included).
LSP_PLUGIN = "pytest-lsp"


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") and pluginmanager.is_blocked(LSP_PLUGIN) and not pluginmanager.has_plugin("pytest_lsp"):
        import pytest_lsp

        pluginmanager.register(pytest_lsp, "pytest_lsp")


def _excluded_marks(config: pytest.Config) -> set[str]:
    """The marks whose tests ``-m`` leaves out whatever their other marks are: the ``X`` of an
    expression made only of ``not X`` terms joined by ``and`` (``-m "not corpus and not slow"``);
    none for any other expression."""
    terms = [t.split() for t in (config.option.markexpr or "").split(" and ")]
    if not all(len(t) == 2 and t[0] == "not" and t[1].isidentifier() for t in terms):
        return set()
    return {t[1] for t in terms}


def _module_marks(path: Path) -> set[str]:
    """The names of the marks a test module's top-level ``pytestmark`` gives all its tests. A
    module whose text never says ``pytestmark`` (most of them) is not parsed: parsing every
    test module took each make check worker about half a second of CPU."""
    try:
        text = path.read_text()
        if "pytestmark" not in text:
            return set()
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return set()
    marks: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark":
                    marks.add(sub.attr)
    return marks


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A module that ``-m`` leaves out whole (``pytestmark = pytest.mark.slow`` under make check)
    is not imported at all: each make check worker would otherwise import it, and what it
    imports (Ray's cluster utilities, the fleet, a language-server client...), only to deselect
    every test in it. Only when the expression is ``not X and not Y...``, where no other mark of a
    test can bring it back."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    excluded = _excluded_marks(config)
    if excluded and excluded & _module_marks(collection_path):
        return True
    return None


def _exit_at_once() -> None:
    """The last step of a make check worker: flush what it wrote and leave without tearing the
    interpreter down. By then the worker has sent every report to the controller and the
    controller has closed its channel; the teardown itself would only free, one by one, the
    millions of objects the test modules and their fixtures left (a few seconds of CPU per
    worker). Registered when this file is imported, so that the exit handlers registered later
    (Ray's, multiprocessing's...) still run before it."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_exit_at_once)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A make check worker's last tests are done: everything still alive is frozen, so that the
    full collections pytest runs when it unconfigures (to report exceptions raised in ``__del__``
    methods) walk nothing. In a worker they took 2 to 3.5 s of CPU together, after its last test
    and before the controller could finish, and whatever they found went unreported anyway: the
    controller stops listening to a worker once it says it has finished, which it does right
    after this hook. Not in a run without workers, where pytest does report what they find."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        gc.freeze()


# Longest modules first. xdist's loadscope hands each worker a whole module at a time, largest
# by number of tests first; the modules with few but long tests (a resident server, a browser, a
# language-server session) then came last, and one worker ran them while the other sat idle. The
# controller records how long each module took (setup, call and teardown of its tests, summed)
# in pytest's cache, under the -m expression of the run, and the next run of the same tier hands
# out the modules longest first; a module not seen yet counts 0.1 s per test. The order changes
# nothing else: each module still runs whole on one worker, in its own order.
# A checkout that has not run the tier yet (no durations in .pytest_cache) takes them from
# tests/check_seconds.json, the durations of the tier's modules as one run measured them: by
# number of tests alone, the modules with few but long tests (the resident server's, the
# language servers', the fleet's) came last, and one worker ran them alone for seconds at the
# end. The cache's durations, once there, replace those of the file.
_SCOPE_SECONDS: dict[str, float] = {}
_RECORDED_SECONDS = Path(__file__).with_name("check_seconds.json")


def _scope(nodeid: str) -> str:
    """The unit loadscope hands out: the test's module (or class). Parameters are left out
    first: xdist's own split, at the last ``::``, made a unit of its own of every test whose
    parameters hold a ``::`` (``[ActiveRecord::Base]``, ``[[::1]:8765]``), which then built its
    module's fixtures again (an indexed workspace, a graph), on the other worker or later."""
    return nodeid.split("[", 1)[0].rsplit("::", 1)[0]


def _seconds_key(config: pytest.Config) -> str:
    return "rdx/scope-seconds/" + (re.sub(r"[^A-Za-z0-9]+", "-", config.option.markexpr or "").strip("-") or "all")


def _recorded_seconds(config: pytest.Config) -> dict[str, float]:
    """The durations tests/check_seconds.json holds for this run's -m expression (none for
    another expression, or when the file cannot be read)."""
    try:
        recorded = json.loads(_RECORDED_SECONDS.read_text()).get(_seconds_key(config), {})
    except (OSError, ValueError, AttributeError):
        return {}
    return {k: float(v) for k, v in recorded.items() if isinstance(v, int | float)} if isinstance(recorded, dict) else {}


def _records_durations(config: pytest.Config) -> bool:
    """Only xdist's controller records, and only whole modules: not a -k, --lf, node-id or -x run."""
    return (
        getattr(config, "cache", None) is not None
        and config.getoption("dist", "no") != "no"
        and not os.environ.get("PYTEST_XDIST_WORKER")
        and not config.option.keyword
        and not any("::" in arg for arg in config.args)
        and not config.getoption("lf", False)
        and not config.getoption("failedfirst", False)
        and not config.getoption("maxfail", 0)
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """loadscope, handing out the modules longest first by the durations the last run recorded."""
    if config.getoption("dist", "no") != "loadscope" or getattr(config, "cache", None) is None:
        return None
    from xdist.scheduler import LoadScopeScheduling

    seconds = {**_recorded_seconds(config), **config.cache.get(_seconds_key(config), {})}

    class LongestFirst(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return _scope(nodeid)

        def _assign_work_unit(self, node: object) -> None:
            if not self.ordered:
                self.ordered = True
                units = sorted(self.workqueue.items(), key=lambda unit: -seconds.get(unit[0], 0.1 * len(unit[1])))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return LongestFirst(config, log)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """The controller adds up each module's setup, call and teardown times as the reports come."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        scope = _scope(report.nodeid)
        _SCOPE_SECONDS[scope] = _SCOPE_SECONDS.get(scope, 0.0) + report.duration


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller stores this run's module durations over the previous run's."""
    if _SCOPE_SECONDS and _records_durations(config):
        key = _seconds_key(config)
        config.cache.set(key, {**config.cache.get(key, {}), **{k: round(v, 2) for k, v in _SCOPE_SECONDS.items()}})


# The rdx commands the tests start answer in their own process, not through a resident server
# each would leave running (tests/test_resident*.py turn it back on for their own commands).
os.environ.setdefault("RDX_NO_DAEMON", "1")

# No Ray cluster starts by accident: outside ``ray.init`` a Ray call such as
# ``ray.get_runtime_context()`` (the fleet's shards ask it for their node) otherwise starts a whole
# local cluster, 15 s or more and a dozen processes that stay until the test process exits.
# Tests that want Ray call ``ray.init`` (tests/test_fleet*.py), which this does not affect; a shard
# built directly by a test then reports no node, as it does outside Ray. Set before Ray is imported
# (it reads the variable once), and inherited by the processes the tests start.
os.environ.setdefault("RAY_ENABLE_AUTO_CONNECT", "0")


def build_graph(files: dict[str, str], core: bool = True) -> rdx.Graph:
    """A resolved graph of ``files`` (name -> source), indexed in name order."""
    import rdx  # Here, not at the top: xdist's controller loads this file too, and runs no test.

    g = rdx.Graph(core=core)
    for name in sorted(files):
        g.index_source(f"file:///fixture/{name}", files[name])
    g.resolve()
    return g


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run_ruby(script: str, tmp_path: Path, timeout: float = 60) -> str:
    """Run ``script`` with the system Ruby and return its stdout (fails the test on error)."""
    assert RUBY is not None, "ruby is required for the differential tests (make test installs it)"
    path = tmp_path / "probe.rb"
    path.write_text(script)
    proc = subprocess.run([RUBY, "--disable-gems", str(path)], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"ruby failed:\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def graph_of():
    return build_graph


@pytest.fixture(scope="session", autouse=True)
def _core_base_of_the_parsed_core() -> None:
    """Each test process resolves Ruby core once, for every small project's full resolve to
    start from (``rdx.ruby.resolve.base``), from the core document of the graph that asks for
    it second. Asked here first by two graphs made in this process, it holds the core document
    every ``rdx.Graph()`` of the process holds, whatever module runs first: a graph opened from
    a snapshot holds a core document of its own, and a base made from that one gave the later
    graphs that document instead: tests/test_incremental.py's dump then shared none of core's
    entries with them, and its test_a_dump_sharing_core_entries_is_the_full_dump failed after
    tests/test_cache.py in one process (it passed in make check only while its module came
    first on its worker)."""
    import rdx

    for name in ("A", "B"):
        g = rdx.Graph()
        g.index_source(f"file:///core_base/{name.lower()}.rb", f"class {name}\nend\n")
        g.resolve()


from corpus import DEBIAN_CORPUS_LIST, debian_corpus, other_installed_ruby  # noqa: E402, F401


@pytest.fixture(scope="session")
def debian_graph(tmp_path_factory: pytest.TempPathFactory) -> rdx.Graph:
    """The pinned Debian Ruby corpus (standard library, Rails, RuboCop...: ``debian_corpus``),
    opened once per test run with a snapshot of its own (tests that only read it share it)."""
    import rdx

    return rdx.Graph.open(debian_corpus(), cache_dir=str(tmp_path_factory.mktemp("debian")))


@contextmanager
def ready_workspace(root: Path, files: dict[str, str]) -> Iterator[object]:
    """An MCP/HTTP ``Workspace`` over ``files`` written under ``root``, indexed and ready."""
    from rdx_mcp import Workspace

    for name, text in files.items():
        write(root / name, text)
    workspace = Workspace(str(root), watch=False).start()
    assert workspace.wait_ready()
    try:
        yield workspace
    finally:
        workspace.stop()


def canonical_state(state) -> dict:
    """Everything a resolved state holds, with document keys replaced by URIs (a state built
    by additions numbers documents differently from one resolved from scratch)."""
    uri = {k: d.uri for k, d in state.documents.items()}
    decls = {}
    for decl_id, r in state.declarations.items():
        decls[decl_id] = (
            r.name, r.unqualified, r.kind, r.owner, r.superclass, r.singleton, r.attached, r.target, r.private, r.visibility,
            sorted(r.members.items()), [(uri[doc], i) for doc, i in r.definitions],
        )
    rows = {name: {uri[k]: list(v) for k, v in getattr(state, name).items()} for name in ("definition_declarations", "constant_targets", "method_receivers")}
    diagnostics = sorted((uri[d.doc], d.code, d.message, d.start, d.end, d.severity) for d in state.diagnostics)
    return {
        "documents": list(uri.values()),
        "declarations": decls,
        "by_name": dict(sorted(state.by_name.items())),
        "ancestors": {k: tuple(v) for k, v in state.ancestors.items()},
        "diagnostics": diagnostics,
        "object_id": state.object_id,
        **rows,
    }


def scratch_state_of(graph: rdx.Graph):
    """The state a resolve from scratch gives for ``graph``'s documents and root order."""
    from rdx.ruby.resolve.driver import Resolver
    from rdx.ruby.resolve.order import LoadOrder, keyed

    order = LoadOrder(graph._store.documents.values(), *graph._root_order())
    return Resolver(keyed(order.ordered)).run()


if os.environ.get("RDX_CORE_BASE_CHECK") == "1":
    # Every full resolve that starts from the resolved core (``rdx.ruby.resolve.base``) is
    # compared with a resolve from scratch of the same documents in the same order.
    def _checked_resolve_on_core(self, roots):
        from rdx.api.graph import Graph

        based = Graph._unchecked_resolve_on_core(self, roots)
        if based is not None and not isinstance(based, str):
            expected = canonical_state(scratch_state_of(self))
            assert canonical_state(based[1]) == expected, "a resolve on the resolved core differs from a resolve from scratch"
        return based

    def _install_core_base_check() -> None:
        from rdx.api.graph import Graph

        Graph._unchecked_resolve_on_core = Graph._resolve_on_core
        Graph._resolve_on_core = _checked_resolve_on_core

    _install_core_base_check()
