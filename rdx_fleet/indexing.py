"""``rdx fleet index``: one Ray task per repository builds its snapshot and publishes it in the
store (``rdx_fleet.store``); a repository whose commit has a snapshot already is skipped, a
changed one starts warm from a copy of its current snapshot. A large repository indexed cold
(more than ``split_files`` source files) is discovered by several tasks, one per batch of
files (``rdx.discover_batch``), whose results the one task that resolves receives
(``rdx.seed_snapshot``). A task killed midway leaves only a ``.tmp-*`` directory, never a
published snapshot, and Ray runs it again. A repository that takes gems from others
(``rdx_fleet.links``) is keyed by their commits too, and opened with those gems taken from
their checkouts. It owns the tasks and the driver loop; it never serves.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec

import rdx
from rdx_fleet.cluster import connect
from rdx_fleet.links import link_commit, links_of, local_gems_of, python_roots_of, taking_gems
from rdx_fleet.manifest import Manifest, Repository
from rdx_fleet.store import Store, commit_of

__all__ = ["LINKED_DIR", "IndexResult", "build_snapshot", "fleet_commits", "index_fleet", "plan_batches"]

# Where a snapshot keeps the graph of its repository opened with the package directories of
# the repositories it imports by Python (``rdx_fleet.links.python_roots_of``).
LINKED_DIR = "linked"

# A repository indexed cold with more source files than this is discovered in batches of this
# many files, one Ray task each (a few seconds of parsing per task on one core).
SPLIT_FILES = 2000


class IndexResult(msgspec.Struct, kw_only=True):
    """What indexing one repository did: ``indexed`` or ``unchanged``."""

    name: str
    commit: str
    status: str
    seconds: float = 0.0
    parsed: int = 0
    reused: int = 0
    declarations: int = 0
    documents: int = 0
    snapshot_bytes: int = 0
    batches: int = 0  # Discovery tasks (0: discovered by the task that resolved).


def _dir_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def build_snapshot(
    repo: Repository, store_root: str, commit: str, jobs: int | None = 1, crash_marker: str | None = None,
    gems: dict[str, str] | None = None, python_roots: list[str] | None = None, *batches: bytes,
) -> IndexResult:
    """Index ``repo`` at ``commit`` into the store (the body of the Ray task; runs anywhere
    that sees the checkout and the store), taking ``gems`` (name -> checkout) from other
    repositories and starting from the discovery ``batches`` when given. With
    ``python_roots`` (other repositories' package directories it imports), the graph of the
    repository with those roots beside it is built too, in ``LINKED_DIR`` of the snapshot. ``crash_marker``, a
    test's fault injection: when that file exists, it is removed and the process dies after
    writing half a snapshot."""
    store = Store(store_root)
    if store.has(repo.name, commit):
        return IndexResult(name=repo.name, commit=commit, status="unchanged")
    start = time.perf_counter()
    tmp = store.scratch(repo.name, commit, store.current(repo.name))
    try:
        if batches:
            rdx.seed_snapshot(repo.path, tmp, batches)
        with taking_gems(gems or {}):
            graph = rdx.Graph.open(repo.path, cache_dir=tmp, jobs=jobs)
        if crash_marker is not None and os.path.exists(crash_marker):
            os.remove(crash_marker)
            os._exit(1)  # A worker lost mid-build: the snapshot is half written in tmp.
        graph.resolve()
        graph.save()
        if python_roots:
            with taking_gems(gems or {}):
                linked = rdx.Graph.open([repo.path, *python_roots], cache_dir=os.path.join(tmp, LINKED_DIR), jobs=jobs)
            linked.resolve()
            linked.save()
        stats: dict[str, Any] = dict(graph.stats())
        opened: dict[str, Any] = dict(graph.open_stats)
        result = IndexResult(
            name=repo.name, commit=commit, status="indexed", seconds=time.perf_counter() - start,
            parsed=int(opened.get("parsed", 0)), reused=int(opened.get("reused", 0)),
            declarations=int(stats["declarations"]), documents=int(stats["documents"]), snapshot_bytes=_dir_bytes(tmp), batches=len(batches),
        )
        store.publish(repo.name, commit, tmp, {**msgspec.to_builtins(result), "path": repo.path, "revision": graph.revision})
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return result


def fleet_commits(manifest: Manifest) -> dict[str, str]:
    """Each repository's store key: its commit (``commit_of``), and for one that takes gems
    from other repositories, their commits too (``link_commit``), so a change in B alone
    builds a new snapshot of A."""
    commits = {repo.name: commit_of(repo.path) for repo in manifest.repositories}
    links = links_of(manifest)
    return {n: link_commit(c, [commits[link.target] for link in links if link.source == n]) for n, c in commits.items()}


def plan_batches(path: str, split_files: int) -> list[list[str]]:
    """The source files ``Graph.open(path)`` would index, in batches of ``split_files`` (one
    batch, or none, means: do not split)."""
    paths, _, _ = rdx.Graph.plan(path)
    if len(paths) <= split_files:
        return []
    return [paths[i : i + split_files] for i in range(0, len(paths), split_files)]


def index_fleet(
    manifest: Manifest,
    *,
    use_ray: bool = True,
    address: str | None = None,
    progress: Callable[[IndexResult, int, int], None] | None = None,
    crash_marker: str | None = None,
    max_retries: int = 3,
    split_files: int = SPLIT_FILES,
) -> list[IndexResult]:
    """Index every repository of ``manifest``: with Ray, one task each (retried when its
    worker dies; a large one cold in batches, see the module docstring), else one after
    another in this process. Results in name order."""
    store = Store(manifest.store)
    os.makedirs(store.root, exist_ok=True)
    for repo in manifest.repositories:
        store.sweep(repo.name)  # Leftovers of crashed builds; no build of this fleet runs now.
    commits = fleet_commits(manifest)
    links = links_of(manifest)
    gems = local_gems_of(manifest, links)
    roots = python_roots_of(manifest, links)
    results: list[IndexResult] = []
    total = len(manifest.repositories)
    if not use_ray:
        for repo in manifest.repositories:
            results.append(build_snapshot(repo, store.root, commits[repo.name], 1, crash_marker, gems.get(repo.name), roots.get(repo.name)))
            if progress:
                progress(results[-1], len(results), total)
    elif all(store.has(repo.name, commits[repo.name]) for repo in manifest.repositories):
        for repo in manifest.repositories:  # Nothing to build: no need for a cluster.
            results.append(IndexResult(name=repo.name, commit=commits[repo.name], status="unchanged"))
            if progress:
                progress(results[-1], len(results), total)
    else:
        ray = connect(address)
        task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(build_snapshot)
        discover = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(rdx.discover_batch)
        pending: dict[Any, str] = {}
        for repo in manifest.repositories:
            commit = commits[repo.name]
            cold = not store.has(repo.name, commit) and store.current(repo.name) is None
            # The batches' results go to the resolving task as arguments: Ray hands it the
            # bytes once every batch is done, without passing through this driver.
            batches = [discover.remote(b) for b in plan_batches(repo.path, split_files)] if cold else []
            pending[task.remote(repo, store.root, commit, 1, crash_marker, gems.get(repo.name), roots.get(repo.name), *batches)] = repo.name
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                name = pending.pop(ref)
                try:
                    results.append(ray.get(ref))
                except Exception as exc:
                    raise rdx.InternalError(f"indexing repository {rdx.excerpt(name)} failed: {rdx.excerpt(str(exc), 300)}") from None
                if progress:
                    progress(results[-1], len(results), total)
    for result in results:
        if result.status == "unchanged" and store.current(result.name) != result.commit:
            store.set_current(result.name, result.commit)  # Back to a commit indexed before.
    return sorted(results, key=lambda r: r.name)


def print_progress(result: IndexResult, done: int, total: int) -> None:
    """One line per repository on stderr: what happened and the overall count."""
    split = f" in {result.batches} discovery tasks" if result.batches else ""
    what = "unchanged" if result.status == "unchanged" else f"{result.documents} files ({result.parsed} parsed{split}), {result.declarations} declarations, {result.seconds:.2f}s"
    print(f"[{done}/{total}] {result.name} @ {result.commit[:12]}: {what}", file=sys.stderr)
