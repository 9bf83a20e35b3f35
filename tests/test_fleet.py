"""The fleet (issue 26) on one machine: ``ray.init`` with 2 CPUs, 24 repositories (Debian Ruby
gems copied as separate repositories, generated ones, and ``app``, which locks three gems other
repositories build: ``widgets`` through a PATH source, ``gears`` through a GIT source naming
the fleet's git repository, ``bolts`` from rubygems, matched by its gemspec's name and version).
They are served from 3 shards. Fleet answers must equal the union of each repository's own
``rdx.Graph`` answers (opened as the fleet opens it); cross-repository go-to-definition and
ancestors must be what Ruby, loading them all, says. Ray starts once for the module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

# Ray's start and a fleet of actors take a minute and more: make test runs these, make check the
# fleet's units (tests/test_fleet_units.py).
pytestmark = pytest.mark.slow

import rdx  # noqa: E402
from rdx_fleet.cluster import connect  # noqa: E402
from rdx_fleet.fleet import Fleet  # noqa: E402
from rdx_fleet.front import build_app  # noqa: E402
from rdx_fleet.indexing import index_fleet  # noqa: E402
from rdx_fleet.links import links_of, local_gems_of, taking_gems  # noqa: E402
from rdx_fleet.manifest import load_manifest  # noqa: E402
from rdx_fleet.store import Store  # noqa: E402

GEMS = "/usr/share/rubygems-integration/all/gems"
DEBIAN = ["sorted_set-1.0.3", "sync-0.5.0", "erubi-1.9.0", "raabro-1.4.0", "tty-cursor-0.7.1", "connection_pool-2.2.5",
          "multipart-post-2.0.0", "tty-which-0.5.0", "timecop-0.9.6"]
GENERATED = 11

WIDGETS = {
    "widgets.gemspec": """\
        Gem::Specification.new do |spec|
          spec.name = "widgets"
          spec.version = "0.1.0"
          spec.files = ["lib/widgets.rb"]
          spec.require_paths = ["lib"]
        end
        """,
    "lib/widgets.rb": """\
        module Widgets
          class Gear
            def spin(times)
              times * 2
            end
          end
        end
        """,
}
GEARS = {
    "gears.gemspec": 'Gem::Specification.new do |spec|\n  spec.name = "gears"\n  spec.version = "0.2.0"\nend\n',
    "lib/gears.rb": """\
        module Gears
          class Base
            def turn
              :base
            end
          end

          module Greased
            def oil
              :oil
            end
          end
        end
        """,
}
BOLTS = {
    "bolts.gemspec": 'require_relative "lib/bolts/version"\nGem::Specification.new do |spec|\n  spec.name = "bolts"\n  spec.version = Bolts::VERSION\nend\n',
    "lib/bolts/version.rb": 'module Bolts\n  VERSION = "0.3.0"\nend\n',
    "lib/bolts.rb": """\
        require "bolts/version"

        module Bolts
          module Fastener
            def fasten
              :tight
            end
          end
        end
        """,
}


def app_files(gears_url: str) -> dict[str, str]:
    return {
        "Gemfile": f'source "https://rubygems.org"\ngem "widgets", path: "../widgets"\ngem "gears", git: "{gears_url}"\ngem "bolts"\n',
        "Gemfile.lock": "PATH\n  remote: ../widgets\n  specs:\n    widgets (0.1.0)\n\n"
                        f"GIT\n  remote: {gears_url}\n  revision: 0123456789abcdef0123456789abcdef01234567\n  specs:\n    gears (0.2.0)\n\n"
                        "GEM\n  remote: https://rubygems.org/\n  specs:\n    bolts (0.3.0)\n\n"
                        "PLATFORMS\n  ruby\n\nDEPENDENCIES\n  bolts\n  gears!\n  widgets!\n\nBUNDLED WITH\n   2.3.15\n",
        "lib/app.rb": """\
            require "widgets"

            module App
              def self.run
                Widgets::Gear.new.spin(3)
              end
            end

            require "gears"
            require "bolts"

            module App
              class Motor < Gears::Base
                include Bolts::Fastener
                include Gears::Greased

                def go
                  turn
                  fasten
                end
              end
            end
            """,
    }


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))


def generated(i: int) -> dict[str, str]:
    return {
        f"lib/gen{i}/engine.rb": f"""\
            module Gen{i}
              class Engine
                def start_engine(fuel)
                  Helper.new.ignite(fuel)
                end
              end
            end
            """,
        f"lib/gen{i}/helper.rb": f"""\
            module Gen{i}
              # Lights the fuel (shared word: ignite).
              class Helper
                def ignite(fuel)
                  fuel.to_s
                end
              end
            end
            """,
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("fleet")
    names: dict[str, Path] = {}
    for gem in DEBIAN:
        if os.path.isdir(os.path.join(GEMS, gem)):
            shutil.copytree(os.path.join(GEMS, gem), base / gem, symlinks=False)
            names[gem] = base / gem
    for i in range(GENERATED):
        write(base / f"gen{i:02d}", generated(i))
        names[f"gen{i:02d}"] = base / f"gen{i:02d}"
    write(base / "widgets", WIDGETS)
    write(base / "bolts", BOLTS)
    origin = base / "origins" / "gears"  # A git repository the manifest clones.
    write(origin, GEARS)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "gears"]):
        subprocess.run(["git", *args], cwd=origin, check=True, capture_output=True, env=env)
    write(base / "app", app_files(str(origin)))
    names["widgets"], names["bolts"], names["app"] = base / "widgets", base / "bolts", base / "app"
    entries = "".join(f'[[repository]]\nname = "{n}"\npath = "{p}"\n' for n, p in sorted(names.items()))
    entries += f'[[repository]]\nname = "gears"\ngit = "{origin}"\n'
    names["gears"] = base / "store" / ".checkouts" / "gears"
    (base / "fleet.toml").write_text(f'store = "store"\n{entries}')
    return {"base": base, "manifest": str(base / "fleet.toml"), "repos": names}


@pytest.fixture(scope="module")
def ray_local() -> Any:
    r = connect(num_cpus=2)
    yield r
    r.shutdown()


@pytest.fixture(scope="module")
def indexed(world: dict[str, Any], ray_local: Any) -> dict[str, Any]:
    manifest = load_manifest(world["manifest"])
    seen: list[tuple[str, int, int]] = []
    results = index_fleet(manifest, progress=lambda r, done, total: seen.append((r.name, done, total)))
    return {**world, "manifest_obj": manifest, "results": results, "progress": seen}


@pytest.fixture(scope="module")
def served(indexed: dict[str, Any], ray_local: Any) -> Any:
    from starlette.testclient import TestClient

    fleet = Fleet(indexed["manifest_obj"], ray_local, shards=3).start()  # Several repositories per shard.
    client = TestClient(build_app(fleet), base_url="http://127.0.0.1")
    yield fleet, client
    info = fleet.info()
    copies = [i["copy"] for i in info]
    assert copies and all(os.path.isdir(c) for c in copies)
    # One shard dies for good before the fleet stops: it cannot close, so stop sweeps its node.
    ray.kill(fleet.actors[info[0]["repository"]].handle, no_restart=True)
    fleet.stop()
    assert not [c for c in copies if os.path.exists(c)]  # No copy of a snapshot is left behind.


@pytest.fixture(scope="module")
def graphs(indexed: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, rdx.Graph]:
    """Each repository's own graph, the oracle of the fleet's answers, opened as the fleet
    opens it (gems other repositories build taken from their checkouts)."""
    cache = tmp_path_factory.mktemp("single")
    gems = local_gems_of(indexed["manifest_obj"], links_of(indexed["manifest_obj"]))
    out = {}
    for name, path in sorted(indexed["repos"].items()):
        with taking_gems(gems.get(name, {})):
            g = rdx.Graph.open(str(path), cache_dir=str(cache / name), jobs=1)
        g.resolve()
        out[name] = g
    return out


def get(client: Any, url: str, status: int = 200) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == status, response.text
    return dict(response.json())


# Indexing.

def test_every_repository_is_indexed_once_and_published_whole(indexed: dict[str, Any]) -> None:
    results = indexed["results"]
    assert len(results) == len(indexed["repos"]) >= 20
    assert {r.status for r in results} == {"indexed"}
    assert [d for _, d, _ in indexed["progress"]] == list(range(1, len(results) + 1))
    store = Store(indexed["manifest_obj"].store)
    for r in results:
        assert store.current(r.name) == r.commit
        assert store.has(r.name, r.commit)
        assert store.metadata(r.name, r.commit)["declarations"] == r.declarations
        assert not [e for e in os.listdir(os.path.join(store.root, r.name)) if e.startswith(".tmp-")]


def test_an_unchanged_fleet_is_skipped(indexed: dict[str, Any]) -> None:
    again = index_fleet(indexed["manifest_obj"])
    assert {r.status for r in again} == {"unchanged"}
    assert [r.commit for r in again] == [r.commit for r in indexed["results"]]


def test_a_large_repository_is_discovered_in_batches_then_resolved_once(indexed: dict[str, Any], graphs: dict[str, rdx.Graph], tmp_path: Path) -> None:
    name = max((n for n in indexed["repos"] if n in DEBIAN), key=lambda n: len(rdx.Graph.plan(str(indexed["repos"][n]))[0]), default="gen00")
    path = indexed["repos"][name]
    (tmp_path / "one.toml").write_text(f'store = "store"\n[[repository]]\nname = "{name}"\npath = "{path}"\n')
    manifest = load_manifest(str(tmp_path / "one.toml"))
    files = len(rdx.Graph.plan(str(path))[0])
    [result] = index_fleet(manifest, split_files=2)
    assert result.batches == -(-files // 2) >= 2 and result.parsed == 0  # Every file discovered by a batch task.
    g = rdx.Graph.open(str(path), cache_dir=Store(manifest.store).snapshot_dir(name, result.commit), jobs=1)
    assert g.open_stats["parsed"] == 0
    g.resolve()
    one = graphs[name]  # Indexed by one process.
    assert sorted((d.name, str(d.kind), str(d.location)) for d in g.declarations) == sorted((d.name, str(d.kind), str(d.location)) for d in one.declarations)
    assert sorted(map(repr, g.constant_references)) == sorted(map(repr, one.constant_references))
    assert sorted(map(repr, g.method_references)) == sorted(map(repr, one.method_references))


def test_app_is_linked_by_path_git_and_gemspec(indexed: dict[str, Any]) -> None:
    links = links_of(indexed["manifest_obj"])
    assert [(link.source, link.target, link.gem, link.how) for link in links] == [
        ("app", "bolts", "bolts", "gemspec"), ("app", "gears", "gears", "git"), ("app", "widgets", "widgets", "path"),
    ]
    results = {r.name: r for r in indexed["results"]}
    assert "+" in results["app"].commit and "+" not in results["bolts"].commit  # Keyed by its links' commits too.


# Answers equal the union of the single-project answers.

def all_grep_lines(client: Any, pattern: str, page: int) -> tuple[int, list[tuple[str, str, int, int]]]:
    lines: list[tuple[str, str, int, int]] = []
    offset: int | None = 0
    total = -1
    while offset is not None:
        body = get(client, f"/api/grep?pattern={pattern}&limit={page}&offset={offset}")
        total = body["total"]
        lines += [(f["repository"], f["path"], x["line"], x["column"]) for f in body["files"] for x in f["lines"]]
        offset = body["next_offset"]
    return total, lines


@pytest.mark.parametrize("pattern", ["def ", "ignite", "require"])
def test_grep_equals_the_union_in_repository_path_line_order(served: Any, graphs: dict[str, rdx.Graph], pattern: str) -> None:
    _, client = served
    expected = []
    for name, g in sorted(graphs.items()):
        root = os.path.realpath(served[0].manifest.get(name).path)
        page = g.grep(pattern, limit=100000)
        for h in page:
            rel = os.path.relpath(os.path.realpath(h.path), root)
            expected.append((name, rel, h.line, h.column))
    total, lines = all_grep_lines(client, pattern, 7)  # Pages of 7: exact global paging.
    assert total == len(expected)
    assert lines == expected
    assert [(r, p) for r, p, *_ in lines] == sorted((r, p) for r, p, *_ in lines)


def test_search_by_name_equals_the_union(served: Any, graphs: dict[str, rdx.Graph]) -> None:
    _, client = served
    for name in ("Gen3::Helper", "Widgets::Gear", "Gen7::Engine#start_engine()"):
        body = get(client, f"/api/search?query={name.replace('#', '%23')}&match_mode=exact&limit=100")
        got = sorted((i["repository"], i["name"], i["location"]) for i in body["items"])
        expected = []
        for repo, g in graphs.items():
            for d in g.search(name, match_mode="exact"):
                path = os.path.realpath(d.location.path)
                if path.startswith(os.path.realpath(str(served[0].manifest.get(repo).path)) + os.sep):
                    expected.append((repo, d.name, f"{os.path.relpath(path, os.path.realpath(served[0].manifest.get(repo).path))}:"
                                     f"{d.location.start_line}:{d.location.start_column}-{d.location.end_line}:{d.location.end_column}"))
        assert got == sorted(expected)
        assert body["total"] == len(got)


@pytest.fixture(scope="module")
def union(indexed: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> rdx.Graph:
    """One graph opened over every repository of the fleet: the oracle of ranked search."""
    g = rdx.Graph.open([str(p) for _, p in sorted(indexed["repos"].items())], cache_dir=str(tmp_path_factory.mktemp("union")), jobs=1)
    g.resolve()
    return g


def union_statistics(g: rdx.Graph) -> rdx.CollectionStatistics:
    total = rdx.CollectionStatistics()
    for stats in rdx.ranked_statistics(g).values():
        total = total.plus(stats)
    return total


RANKED = ["ignite fuel", "start engine with fuel", "spin gear", "freeze time travel", "pool of connections timeout", "sorted set add element"]


def test_fleet_statistics_are_the_union_graphs(served: Any, union: rdx.Graph, graphs: dict[str, rdx.Graph]) -> None:
    """The fleet's statistics (summed over distinct paths) are the union graph's, but for one
    thing: a namespace two repositories both declare (``TTY`` in tty-cursor and tty-which) is
    one declaration of the union and one of each repository in the fleet (each lists its own)."""
    fleet, _ = served
    mine = union_statistics(union)
    declared: dict[str, int] = {}
    for name, g in graphs.items():
        root = os.path.realpath(fleet.manifest.get(name).path) + os.sep
        for d in g.declarations:
            if d.location is not None and os.path.realpath(d.location.path).startswith(root) and str(d.kind) != "SingletonClass":
                declared[d.name] = declared.get(d.name, 0) + 1
    extra = sum(n - 1 for n in declared.values())
    assert [n for n, k in declared.items() if k > 1] == ["TTY"]
    assert fleet.statistics.rows == mine.rows + extra and set(fleet.statistics.documents) == set(mine.documents)
    assert all(0 <= n - mine.documents[t] <= extra for t, n in fleet.statistics.documents.items())


@pytest.mark.parametrize("query", RANKED)
def test_ranked_search_by_score_equals_one_graph_over_the_union(served: Any, union: rdx.Graph, query: str) -> None:
    """Every shard scores with the fleet's statistics, so the fleet's ranking is the union
    graph's scored with its own (``scoring_with``: the same rule, without the BM25-place
    nudge, which is not comparable across indexes; see docs/fleet.md). Pages of 7 are pages
    of the whole list, totals exact, the answer the same every time."""
    fleet, client = served
    scores: dict[str, tuple[float, str]] = {}
    with rdx.scoring_with(union_statistics(union), scores):
        expected = [d.name for d in union.search(query, limit=100)]
    # The scores themselves, with the fleet's statistics (one row more than the union's: TTY).
    with rdx.scoring_with(fleet.statistics, scores):
        assert [d.name for d in union.search(query, limit=100)] == expected
    url = f"/api/search?query={query.replace(' ', '%20')}"
    whole = get(client, f"{url}&limit=100")
    assert [i["name"] for i in whole["items"]] == expected
    assert [round(i["score"], 9) for i in whole["items"]] == [round(scores[n][0], 9) for n in expected]
    assert whole["total"] == len(expected) and get(client, f"{url}&limit=100") == whole
    pages: list[dict[str, Any]] = []
    for offset in range(0, whole["total"] + 7, 7):
        page = get(client, f"{url}&limit=7&offset={offset}")
        assert page["total"] == whole["total"]
        pages += page["items"]
    assert pages == whole["items"]
    for item in whole["items"]:  # Each where it lies: the repository whose files define it.
        if item["repository"] is not None:
            assert (Path(fleet.manifest.get(item["repository"]).path) / item["location"].split(":")[0]).is_file()


def test_ranked_search_by_score_filters_by_repository(served: Any) -> None:
    _, client = served
    body = get(client, "/api/search?query=ignite%20fuel&limit=30")
    repos = [i["repository"] for i in body["items"]]
    assert {f"gen{i:02d}" for i in range(GENERATED)} <= set(repos)
    scores = [i["score"] for i in body["items"]]
    assert scores == sorted(scores, reverse=True)
    only = get(client, "/api/search?query=ignite%20fuel&repository=gen04&repository=gen05")
    assert {i["repository"] for i in only["items"]} == {"gen04", "gen05"}
    assert get(client, "/api/search?query=x&repository=nope", 404)["type"] == "not_found"


def test_ranked_search_pages_are_the_pages_of_the_whole_interleave(served: Any) -> None:
    """A query not answered in score order (here ``dependencies=false``, which drops some; a
    name-like word that lists names first) is merged by rank: each repository sends only what
    a page needs (then more where the page reaches past it): the pages, concatenated, must be
    the interleave of every repository's whole list."""
    _, client = served
    for query in ("ignite fuel", "spin gear"):
        url = f"/api/search?query={query.replace(' ', '%20')}&dependencies=false"
        assert "score" not in get(client, f"{url}&limit=5")["items"][0]
        whole = get(client, f"{url}&limit=100")
        pages: list[dict[str, Any]] = []
        for offset in range(0, whole["total"] + 5, 7):
            page = get(client, f"{url}&limit=7&offset={offset}")
            assert page["total"] == whole["total"]
            pages += page["items"]
        assert pages == whole["items"][: len(pages)] and len(pages) == min(whole["total"], 100)


def test_references_equal_the_union_and_cross_repositories(served: Any, graphs: dict[str, rdx.Graph]) -> None:
    _, client = served
    for name in ("Gen2::Helper", "Widgets::Gear", "Gears::Base", "Bolts::Fastener"):
        body = get(client, f"/api/references/{name}")
        got = sorted((r["repository"], r["path"], r["at"]) for r in body["items"])
        expected = set()
        for g in graphs.values():
            if g.get(name) is None:
                continue
            for ref in g.references_to(name):
                loc = ref.location
                path = os.path.realpath(loc.path)
                owner = next(n for n, p in graphs.items() if path.startswith(os.path.realpath(str(served[0].manifest.get(n).path)) + os.sep))
                rel = os.path.relpath(path, os.path.realpath(served[0].manifest.get(owner).path))
                expected.add((owner, rel, f"{loc.start_line}:{loc.start_column}-{loc.end_line}:{loc.end_column}"))
        assert got == sorted(expected)
    assert [r["repository"] for r in get(client, "/api/references/Widgets::Gear")["items"]] == ["app"]


def test_definition_in_one_repository_lands_in_the_other_where_ruby_says(served: Any, indexed: dict[str, Any]) -> None:
    _, client = served
    body = get(client, "/api/definition?repository=app&path=lib/app.rb&line=5&column=24")  # spin
    [target] = body["items"]
    assert target["repository"] == "widgets" and body["repository"] == "app"
    repos = indexed["repos"]
    out = ruby_loading_all(repos, 'p Widgets::Gear.instance_method(:spin).source_location; p Object.const_source_location("Widgets::Gear")')
    method_file, method_line = out[0]
    assert (os.path.realpath(method_file), int(target["location"].split(":")[1])) == (os.path.realpath(repos["widgets"] / target["location"].split(":")[0]), method_line)
    gear = get(client, "/api/definition?repository=app&path=lib/app.rb&line=5&column=15")["items"][0]
    const_file, const_line = out[1]
    assert gear["repository"] == "widgets" and os.path.realpath(repos["widgets"] / gear["location"].split(":")[0]) == os.path.realpath(const_file)
    assert int(gear["location"].split(":")[1]) == const_line
    hover = get(client, "/api/hover?repository=app&path=lib/app.rb&line=5&column=15")
    assert hover["name"] == "Widgets::Gear" and hover["definitions"][0]["repository"] == "widgets"


def ruby_loading_all(repos: dict[str, Path], script: str) -> list[Any]:
    """What Ruby says, with every repository's lib on the load path and app required."""
    ruby = shutil.which("ruby")
    assert ruby is not None, "ruby is the oracle (make system-deps installs it)"
    flags = [x for name in ("gears", "bolts", "widgets", "app") for x in ("-I", str(repos[name] / "lib"))]
    out = subprocess.run([ruby, *flags, "-e", f'require "json"; require "app"; {script}'], capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_git_and_gemspec_gems_come_from_their_repositories_as_ruby_loads_them(served: Any, indexed: dict[str, Any]) -> None:
    _, client = served
    repos = indexed["repos"]
    ancestors, turn, fasten, base = ruby_loading_all(repos, (
        "puts App::Motor.ancestors.take_while { |a| a != Object }.map(&:to_s).to_json; "
        "puts Gears::Base.instance_method(:turn).source_location.to_json; "
        "puts Bolts::Fastener.instance_method(:fasten).source_location.to_json; "
        'puts Object.const_source_location("Gears::Base").to_json'
    ))
    motor = get(client, "/api/declarations/App::Motor")["items"]
    assert [i["repository"] for i in motor] == ["app"]
    got = motor[0]["ancestors"]
    assert got[: got.index("Object")] == ancestors  # The mixins and superclass from gears and bolts, in Ruby's order.

    def lands(url: str, repo: str, where: list[Any]) -> None:
        [target] = get(client, url)["items"]
        path, line = target["location"].split(":")[:2]
        assert target["repository"] == repo
        assert (os.path.realpath(repos[repo] / path), int(line)) == (os.path.realpath(where[0]), where[1])

    lands("/api/definition?repository=app&path=lib/app.rb&line=13&column=24", "gears", base)  # Gears::Base (GIT source).
    lands("/api/definition?repository=app&path=lib/app.rb&line=18&column=6", "gears", turn)
    lands("/api/definition?repository=app&path=lib/app.rb&line=19&column=6", "bolts", fasten)  # bolts (gemspec match).
    for name, kind in (("Gears::Base", "constant"), ("Bolts::Fastener", "constant"), ("Bolts::Fastener#fasten()", "method")):
        refs = get(client, f"/api/references/{name.replace('#', '%23')}?kind={kind}")["items"]
        assert {(r["repository"], r["path"]) for r in refs} == {("app", "lib/app.rb")}, name
    # Each declaration once, from its own repository's shard.
    assert [i["repository"] for i in get(client, "/api/declarations/Gears::Base")["items"]] == ["gears"]
    assert [i["repository"] for i in get(client, "/api/declarations/Bolts::Fastener")["items"]] == ["bolts"]


def test_declarations_map_stats_and_errors(served: Any, graphs: dict[str, rdx.Graph]) -> None:
    fleet, client = served
    body = get(client, "/api/declarations/Gen5::Engine")
    assert [(i["repository"], i["name"]) for i in body["items"]] == [("gen05", "Gen5::Engine")]
    assert [i["repository"] for i in get(client, "/api/declarations/Widgets::Gear")["items"]] == ["widgets"]
    assert get(client, "/api/declarations/Nope::Nothing", 404)["type"] == "not_found"
    assert "Gen1" in get(client, "/api/map?repository=gen01&max_tokens=256")["text"]
    assert get(client, "/api/map", 400)["type"] == "invalid_argument"
    stats = get(client, "/api/stats")
    assert stats["repositories"] == len(graphs)
    assert stats["declarations"] == sum(g.stats()["declarations"] for g in graphs.values())
    assert get(client, "/api/grep?pattern=x&bogus=1", 400)["type"] == "invalid_argument"
    assert client.get("/api/stats", headers={"host": "evil.example"}).status_code == 421  # The Host guard of rdx serve.


def test_the_mcp_tools_answer_as_the_http_api(served: Any) -> None:
    import asyncio

    from rdx_fleet.front import FleetAPI
    from rdx_fleet.mcp import build_fleet_server

    fleet, client = served
    server = build_fleet_server(FleetAPI(fleet))

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return dict(asyncio.run(server.call_tool(tool, arguments)).structured_content)

    grep = call("search_code", {"pattern": "ignite", "limit": 9, "offset": 4})
    assert {k: grep[k] for k in ("total", "files")} == {k: v for k, v in get(client, "/api/grep?pattern=ignite&limit=9&offset=4").items() if k in ("total", "files")}
    target = call("definition_at", {"repository": ["app"], "file_path": "lib/app.rb", "line": 5, "column": 15})
    assert target["items"][0]["repository"] == "widgets"
    refs = call("find_constant_references", {"name": "Widgets::Gear"})
    assert [(r["repository"], r["path"]) for r in refs["items"]] == [("app", "lib/app.rb")]
    assert [i["repository"] for i in call("get_declaration", {"name": "Gen4::Helper"})["items"]] == ["gen04"]


# Re-indexing while serving, and faults.

def test_a_repository_reindexed_while_serving_is_swapped_in(served: Any, indexed: dict[str, Any]) -> None:
    fleet, client = served
    before = get(client, "/api/grep?pattern=flywheel")
    assert before["total"] == 0
    old_commit = fleet.actors["gen09"][1]
    (indexed["repos"]["gen09"] / "lib/gen9/flywheel.rb").write_text("module Gen9\n  class Flywheel\n  end\nend\n")
    results = {r.name: r for r in index_fleet(indexed["manifest_obj"])}
    assert results["gen09"].status == "indexed" and results["gen09"].parsed == 1 and results["gen09"].reused == 2  # Warm.
    assert {r.status for n, r in results.items() if n != "gen09"} == {"unchanged"}
    assert fleet.refresh() == ["gen09"]
    after = get(client, "/api/grep?pattern=flywheel&ignore_case=true")
    assert [(f["repository"], f["path"]) for f in after["files"]] == [("gen09", "lib/gen9/flywheel.rb")]
    assert after["revisions"]["gen09"]["commit"] == results["gen09"].commit != old_commit
    assert os.path.isdir(Store(indexed["manifest_obj"].store).snapshot_dir("gen09", old_commit))  # The old one stays whole.


def test_a_change_in_a_gem_repository_alone_reindexes_the_repository_that_locks_it(served: Any, indexed: dict[str, Any]) -> None:
    import asyncio

    fleet, client = served
    bolts = indexed["repos"]["bolts"] / "lib/bolts.rb"
    bolts.write_text(bolts.read_text().replace("    def fasten", "    def tighten\n      :more\n    end\n\n    def fasten"))
    results = {r.name: r for r in index_fleet(indexed["manifest_obj"])}
    assert {n for n, r in results.items() if r.status == "indexed"} == {"app", "bolts"}
    assert fleet.refresh() == ["app", "bolts"]
    seen = asyncio.run(fleet.call("app", "get_declaration", {"name": "Bolts::Fastener#tighten()"}))
    assert seen["ok"]["definitions"][0]["repository"] == "bolts"  # app's graph took the new bolts.
    assert get(client, "/api/definition?repository=app&path=lib/app.rb&line=19&column=6")["items"][0]["location"].startswith("lib/bolts.rb:9:")


def test_an_actor_killed_while_serving_restarts_from_its_snapshot(served: Any) -> None:
    fleet, client = served
    expected = get(client, "/api/grep?pattern=ignite&repository=gen03")
    before = fleet.info()[list(fleet.actors).index("gen03")]
    pid = before["pid"]
    assert os.path.isdir(before["copy"])
    ray.kill(fleet.actors["gen03"][0], no_restart=False)
    answers = []
    for _ in range(1200):  # In flight: a retryable 503 or the right answer, never a wrong one.
        response = client.get("/api/grep?pattern=ignite&repository=gen03")
        answers.append(response.status_code)
        if response.status_code == 200:
            body = response.json()
            assert body["files"] == expected["files"] and body["total"] == expected["total"]
            break
        assert response.status_code == 503 and response.json()["type"] == "unavailable"
        import time

        time.sleep(0.1)
    assert answers[-1] == 200
    after = fleet.info()[list(fleet.actors).index("gen03")]
    assert after["pid"] != pid and os.path.isdir(after["copy"])
    assert not os.path.exists(before["copy"])  # The restarted shard removed what its dead process left.


def test_a_worker_killed_while_indexing_is_retried_without_a_half_snapshot(indexed: dict[str, Any]) -> None:
    manifest = indexed["manifest_obj"]
    (indexed["repos"]["gen01"] / "lib/gen1/extra.rb").write_text("module Gen1\n  EXTRA = 1\nend\n")
    marker = indexed["base"] / "crash-once"
    marker.write_text("")
    results = {r.name: r for r in index_fleet(manifest, crash_marker=str(marker))}
    assert not marker.exists()  # One attempt died...
    assert results["gen01"].status == "indexed"  # ...and Ray ran it again.
    store = Store(manifest.store)
    assert store.current("gen01") == results["gen01"].commit and store.has("gen01", results["gen01"].commit)
    g = rdx.Graph.open(str(indexed["repos"]["gen01"]), cache_dir=store.snapshot_dir("gen01", results["gen01"].commit))
    assert g.open_stats["parsed"] == 0 and g.get("Gen1::EXTRA") is not None


def test_an_unreachable_cluster_is_a_clear_error(indexed: dict[str, Any]) -> None:
    (indexed["repos"]["gen02"] / "lib/gen2/more.rb").write_text("module Gen2\nend\n")  # Something to index.
    done = subprocess.run(
        [sys.executable, "-m", "rdx.cli.main", "fleet", "index", indexed["manifest"], "--address", "127.0.0.1:9"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1
    assert "cannot reach the Ray cluster at '127.0.0.1:9'" in done.stderr
