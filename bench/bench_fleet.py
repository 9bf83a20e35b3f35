"""Benchmark: the fleet (``rdx fleet``, issue 26): indexing throughput in this
process (one after another, the baseline) and on Ray with 1 and 2 workers, fan-out latency of grep and ranked
search over N repositories against the same questions to in-process graphs, and the memory of
the serving actors. Prints one JSON object. It builds its own fleet (generated Ruby
repositories and copies of Debian gems) in a temporary directory and removes it.

Usage: python bench/bench_fleet.py [N] [--shards K] [--serve-only]

``--shards K``: serve from K actors (default: one per Ray node, 1 here); ``--shards N`` is one
repository per actor, as before packing. ``--serve-only``: index in this process only (no Ray
indexing runs), for measuring the fan-out alone.
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


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=20)
    parser.add_argument("--shards", type=int, default=None)
    parser.add_argument("--serve-only", action="store_true")
    args = parser.parse_args(argv)
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
            fleet_t, local_t = [], []
            for _ in range(ROUNDS):
                t = time.perf_counter()
                assert client.get(url).status_code == 200
                fleet_t.append(time.perf_counter() - t)
                t = time.perf_counter()
                for g in graphs.values():
                    local(g)
                local_t.append(time.perf_counter() - t)
            out[f"{label}_fleet_p50_ms"], out[f"{label}_in_process_p50_ms"] = p50(fleet_t), p50(local_t)
            # The median of each iteration's difference: the two are timed back to back, so a
            # burst of load from other processes weighs on both.
            out[f"{label}_overhead_p50_ms"] = p50([f - x for f, x in zip(fleet_t, local_t, strict=True)])
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
