"""Benchmark: the fleet (``rdx fleet``, issue 26): indexing throughput in this
process (one after another, the baseline) and on Ray with 1 and 2 workers, fan-out latency of grep and ranked
search over N repositories against the same questions to in-process graphs, and the memory of
the serving actors; ranked search is timed merged by score (fleet-wide statistics, the
default) and, back to back in each round, merged by interleaving ranks (``search_interleaved_*``,
the rule before). Prints one JSON object. It builds its own fleet (generated Ruby
repositories and copies of Debian gems) in a temporary directory and removes it.

Usage: python bench/bench_fleet.py [N] [--shards K] [--serve-only]
       python bench/bench_fleet.py --judged K [--cache-dir DIR]

``--shards K``: serve from K actors (default: one per Ray node, 1 here); ``--shards N`` is one
repository per actor, as before packing. ``--serve-only``: index in this process only (no Ray
indexing runs), for measuring the fan-out alone.

``--judged K``: the merge rule of ranked search, checked on the judged set of single-project
search (``tests/data/search_judgments.json`` over the pinned Debian corpus, as
``bench/bench_search.py``): the corpus's roots dealt into K graphs (shards, no Ray), each
searched with the fleet-wide statistics and merged by score (as ``rdx_fleet.merge``), against
the same K graphs merged by interleaving ranks, one graph over the whole corpus ranked as usual
(the baseline), and that graph scored with its own statistics (the fleet's rule on one
index). Prints hit@5 and MRR@10 of each, and how often the by-score top ten equals the one
graph's.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

import rdx
from rdx_fleet.cluster import connect
from rdx_fleet.fleet import Fleet
from rdx_fleet.front import build_app
from rdx_fleet.indexing import index_fleet
from rdx_fleet.manifest import load_manifest

GEMS = "/usr/share/rubygems-integration/all/gems"
ROUNDS = 40


def build(base: str, n: int) -> str:
    names = []
    gems = sorted(g for g in os.listdir(GEMS) if os.path.isdir(os.path.join(GEMS, g, "lib")))[: n // 2] if os.path.isdir(GEMS) else []
    for g in gems:
        shutil.copytree(os.path.join(GEMS, g), os.path.join(base, g), symlinks=False)
        names.append(g)
    for i in range(n - len(gems)):
        root = os.path.join(base, f"gen{i:03d}", "lib")
        os.makedirs(root)
        for k in range(40):
            with open(os.path.join(root, f"f{k}.rb"), "w") as f:
                f.write(f"module Gen{i}\n  class C{k}\n    # Parses the input line {k}.\n    def parse_line(s)\n      s.split(',').map(&:strip)\n    end\n"
                        f"    def render_{k}(x)\n      C{(k + 1) % 40}.new.parse_line(x)\n    end\n  end\nend\n")
        names.append(f"gen{i:03d}")
    entries = "".join(f'[[repository]]\nname = "{n}"\npath = "{os.path.join(base, n)}"\n' for n in names)
    path = os.path.join(base, "fleet.toml")
    with open(path, "w") as f:
        f.write(f'store = "store"\n{entries}')
    return path


def p50(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def _statistics(graphs: list[rdx.Graph]) -> rdx.CollectionStatistics:
    """The statistics of ``graphs`` summed over distinct file paths (as the fleet sums them)."""
    by_path: dict[str, rdx.CollectionStatistics] = {}
    for g in graphs:
        for path, stats in rdx.ranked_statistics(g).items():
            by_path.setdefault(path, stats)
    total = rdx.CollectionStatistics()
    for path in sorted(by_path):
        total = total.plus(by_path[path])
    return total


def _scored(g: rdx.Graph, query: str, stats: rdx.CollectionStatistics) -> tuple[list[str], list[tuple[float, str]] | None]:
    """``g``'s top ten for ``query`` scored with ``stats``, and its whole scored ranking (None
    when the answer is not in score order: names first)."""
    scores: dict[str, tuple[float, str]] = {}
    with rdx.scoring_with(stats, scores):
        names = [d.name for d in g.search(query, limit=100)]
    ranking = sorted(((-s, n) for n, (s, _) in scores.items()))
    return names, (ranking if [n for _, n in ranking] == names else None)


def judged(k: int, cache_dir: str | None) -> int:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    from corpus import debian_corpus

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "search_judgments.json"), encoding="utf-8") as f:
        items = json.load(f)
    cache = cache_dir or tempfile.mkdtemp(prefix="rdx-fleet-judged-")
    roots = debian_corpus()
    t = time.perf_counter()
    one = rdx.Graph.open(roots, cache_dir=os.path.join(cache, "one"))
    one.resolve()
    shards = []
    for i in range(k):
        g = rdx.Graph.open(roots[i::k], cache_dir=os.path.join(cache, f"shard{i}"))
        g.resolve()
        shards.append(g)
    opened = time.perf_counter() - t
    fleet_stats, own_stats = _statistics(shards), _statistics([one])
    ranks: dict[str, list[int | None]] = {"one_graph": [], "one_graph_fleet_rule": [], "shards_by_score": [], "shards_interleaved": []}
    same_top10 = 0
    fallbacks = 0
    for item in items:
        wanted = {item["want"], *item.get("also", ())}
        q = item["query"]
        lists: dict[str, list[str]] = {"one_graph": [d.name for d in one.search(q, limit=10)]}
        lists["one_graph_fleet_rule"] = _scored(one, q, own_stats)[0][:10]
        per = [_scored(g, q, fleet_stats) for g in shards]
        if all(r is not None for _, r in per):
            merged = sorted((s, n, i) for i, (_, r) in enumerate(per) for s, n in (r or []))
            seen: list[str] = []
            for _, n, _ in merged:
                if n not in seen:
                    seen.append(n)
            lists["shards_by_score"] = seen[:10]
        else:
            fallbacks += 1
        interleaved: list[str] = []
        for rank in range(100):
            for names, _ in per:
                if rank < len(names) and names[rank] not in interleaved:
                    interleaved.append(names[rank])
        lists["shards_interleaved"] = interleaved[:10]
        lists.setdefault("shards_by_score", lists["shards_interleaved"])
        same_top10 += lists["shards_by_score"] == lists["one_graph_fleet_rule"]
        for key, found in lists.items():
            ranks[key].append(next((i for i, name in enumerate(found) if name in wanted), None))
    out: dict[str, Any] = {"queries": len(items), "shards": k, "open_s": round(opened, 1), "names_first_fallbacks": fallbacks,
                           "by_score_top10_equals_one_graph_fleet_rule": same_top10}
    for key, found in ranks.items():
        out[f"{key}_hit5"] = round(sum(r is not None and r < 5 for r in found) / len(found), 3)
        out[f"{key}_mrr10"] = round(sum(1 / (r + 1) for r in found if r is not None) / len(found), 3)
    out["load_average"] = round(os.getloadavg()[0], 1)
    print(json.dumps(out, indent=1))
    return 0


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=20)
    parser.add_argument("--shards", type=int, default=None)
    parser.add_argument("--serve-only", action="store_true")
    parser.add_argument("--judged", type=int, default=None, metavar="K")
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args(argv)
    if args.judged:
        return judged(args.judged, args.cache_dir)
    n = args.n
    base = tempfile.mkdtemp(prefix="rdx-fleet-bench-")
    out: dict[str, Any] = {"repositories": n}
    try:
        manifest = load_manifest(build(base, n))
        files = sum(len(fs) for r in manifest.repositories for _, _, fs in os.walk(r.path))
        out["files"] = files
        t = time.perf_counter()
        index_fleet(manifest, use_ray=False)
        out["index_sequential_s"] = round(time.perf_counter() - t, 2)
        for workers in () if args.serve_only else (1, 2):
            shutil.rmtree(manifest.store)
            ray = connect(num_cpus=workers)
            t = time.perf_counter()
            index_fleet(manifest)
            out[f"index_ray_{workers}_workers_s"] = round(time.perf_counter() - t, 2)
            if workers == 1:
                ray.shutdown()
        ray = connect(num_cpus=2)
        graphs = {r.name: rdx.Graph.open(r.path, cache_dir=os.path.join(manifest.store, r.name, "CURRENT-bench"), jobs=1) for r in manifest.repositories}
        for g in graphs.values():
            g.resolve()
        from starlette.testclient import TestClient

        fleet = Fleet(manifest, ray, shards=args.shards).start()
        out["shards"] = len({p.shard for p in fleet.actors.values()})
        client = TestClient(build_app(fleet), base_url="http://127.0.0.1")
        for label, url, local in (
            ("grep", "/api/grep?pattern=parse_line", lambda g: g.grep("parse_line", limit=50)),
            ("search", "/api/search?query=parse%20input%20line", lambda g: g.search("parse input line", limit=20)),
        ):
            fleet_t, local_t, interleaved_t = [], [], []
            for _ in range(ROUNDS):
                t = time.perf_counter()
                assert client.get(url).status_code == 200
                fleet_t.append(time.perf_counter() - t)
                if label == "search":  # The same search merged by interleaving ranks, back to back.
                    fleet.score_by_statistics(False)
                    t = time.perf_counter()
                    assert "score" not in client.get(url).json()["items"][0]
                    interleaved_t.append(time.perf_counter() - t)
                    fleet.score_by_statistics(True)
                t = time.perf_counter()
                for g in graphs.values():
                    local(g)
                local_t.append(time.perf_counter() - t)
            out[f"{label}_fleet_p50_ms"], out[f"{label}_in_process_p50_ms"] = p50(fleet_t), p50(local_t)
            # The median of each iteration's difference: the two are timed back to back, so a
            # burst of load from other processes weighs on both.
            out[f"{label}_overhead_p50_ms"] = p50([f - x for f, x in zip(fleet_t, local_t, strict=True)])
            if interleaved_t:
                out[f"{label}_interleaved_fleet_p50_ms"] = p50(interleaved_t)
                out[f"{label}_interleaved_overhead_p50_ms"] = p50([f - x for f, x in zip(interleaved_t, local_t, strict=True)])
                # What merging by score costs over interleaving, paired by round (the two
                # fleet timings sit next to each other, so load moves them together).
                out[f"{label}_by_score_minus_interleaved_p50_ms"] = p50([f - i for f, i in zip(fleet_t, interleaved_t, strict=True)])
        rss = {i["pid"]: i["max_rss_bytes"] for i in fleet.info()}  # One per shard.
        out["actor_max_rss_mb_median"] = round(statistics.median(rss.values()) / 2**20, 1)
        out["load_average"] = round(os.getloadavg()[0], 1)
        decls = sum(int(fleet.store.metadata(r.name, fleet.store.current(r.name) or "")["declarations"]) for r in manifest.repositories)  # type: ignore[call-overload]
        out["declarations"] = decls
        fleet.stop()
        ray.shutdown()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
