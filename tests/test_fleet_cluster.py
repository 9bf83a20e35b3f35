"""The fleet on a two-node ``ray.cluster_utils.Cluster`` (both nodes on this machine, sharing
the store): indexing tasks and serving actors are placed on both nodes, and when a node is
lost its actors are restarted on the other from their snapshots and answer as before.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")

# Ray's start and a fleet of actors take a minute and more: make test runs these, make check the
# fleet's units (tests/test_fleet_units.py).
pytestmark = pytest.mark.slow
from ray.cluster_utils import Cluster  # noqa: E402

from rdx_fleet.fleet import Fleet  # noqa: E402
from rdx_fleet.front import build_app  # noqa: E402
from rdx_fleet.indexing import index_fleet  # noqa: E402
from rdx_fleet.manifest import load_manifest  # noqa: E402

REPOS = 6


@pytest.fixture(scope="module")
def cluster() -> Any:
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    side = c.add_node(num_cpus=1)
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    c.wait_for_nodes()
    yield c, side
    ray.shutdown()
    c.shutdown()


def make_fleet(base: Path) -> str:
    entries = ""
    for i in range(REPOS):
        root = base / f"r{i}" / "lib"
        root.mkdir(parents=True)
        (root / "thing.rb").write_text(f"module R{i}\n  class Thing\n    def turn_wheel\n      :r{i}\n    end\n  end\nend\n")
        entries += f'[[repository]]\nname = "r{i}"\npath = "{base / f"r{i}"}"\n'
    (base / "fleet.toml").write_text(f'store = "store"\n{entries}')
    return str(base / "fleet.toml")


def test_placement_on_two_nodes_and_node_loss(cluster: Any, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    c, side = cluster
    manifest = load_manifest(make_fleet(tmp_path))
    assert {r.status for r in index_fleet(manifest)} == {"indexed"}
    fleet = Fleet(manifest, ray).start()
    try:
        client = TestClient(build_app(fleet), base_url="http://127.0.0.1")
        expected = client.get("/api/grep?pattern=turn_wheel").json()
        assert expected["total"] == REPOS and [f["repository"] for f in expected["files"]] == [f"r{i}" for i in range(REPOS)]
        nodes = {i["repository"]: i["node"] for i in fleet.info()}
        assert len(set(nodes.values())) == 2  # Spread over both nodes.
        lost = sorted(n for n, node in nodes.items() if node == side.node_id)
        assert lost
        c.remove_node(side)
        body: dict[str, Any] = {}
        for _ in range(600):  # Until Ray has restarted the lost actors on the head node.
            response = client.get("/api/grep?pattern=turn_wheel")
            if response.status_code == 200:
                body = response.json()
                break
            assert response.status_code == 503 and response.json()["type"] == "unavailable"
            time.sleep(0.2)
        assert body["files"] == expected["files"] and body["total"] == expected["total"]
        assert {i["node"] for i in fleet.info()} == {c.head_node.node_id}
    finally:
        fleet.stop()
