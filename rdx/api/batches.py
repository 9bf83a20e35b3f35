"""Discovery split into batches, for indexing one large project on many machines (``rdx fleet``).

``discover_batch`` parses some of a project's source files (the paths ``Graph.plan`` lists) into
per-file results, encoded as one msgpack byte string that any process can carry;
``seed_snapshot`` writes the results of every batch as the snapshot ``Graph.open`` starts warm
from, so the open that follows parses nothing a batch parsed (each file is still checked by size
and mtime, and parsed again when it changed meanwhile), and resolution runs once, over all of
them. Discovery is a pure function of a file's bytes, so the graph equals one indexed in one
process.

Ranked search over many graphs (``rdx fleet`` serving many repositories): ``ranked_statistics``
gives a graph's collection statistics per file path, which the fleet sums over distinct paths
into those of the union; searches made ``scoring_with`` them rank as one index over the union
would and report comparable scores (``rdx.search.ranked``). This module holds no state and
never resolves.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

from rdx.cache.snapshot import SCHEMA_VERSION, Snapshot, discovery_fingerprint, save_snapshot, writer_lock
from rdx.model.records import FileResult
from rdx.search.ranked import CollectionStatistics
from rdx.workspace.files import FileEntry, path_to_uri
from rdx.workspace.pool import discover_files

__all__ = ["discover_batch", "ranked_statistics", "seed_snapshot"]

if TYPE_CHECKING:
    from rdx.api.graph import Graph

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(list[FileResult])


def discover_batch(paths: Iterable[str | os.PathLike[str]]) -> bytes:
    """The discovery results of the files ``paths``, in URI order, encoded for ``seed_snapshot``.
    Runs in this process (one parser); an unreadable or broken file is a result with diagnostics."""
    entries = []
    for p in paths:
        path = os.path.abspath(os.fspath(p))
        entries.append(FileEntry(path, path_to_uri(path)))
    return _encoder.encode(sorted(discover_files(entries, jobs=1), key=lambda r: r.uri))


def seed_snapshot(root: str | os.PathLike[str], cache_dir: str | os.PathLike[str], batches: Iterable[bytes]) -> int:
    """Write into ``cache_dir`` the snapshot of the project at ``root`` that holds the results of
    ``batches`` (``discover_batch``'s), in place of any snapshot there; returns how many
    documents it holds. ``Graph.open(root, cache_dir=cache_dir)`` then starts from it."""
    roots = [os.path.abspath(os.fspath(root))]
    cache = os.fspath(cache_dir)
    os.makedirs(cache, exist_ok=True)
    documents: dict[str, FileResult] = {}
    for batch in batches:
        for result in _decoder.decode(batch):
            documents[result.uri] = result
    ordered = [documents[uri] for uri in sorted(documents)]
    with writer_lock(cache):
        save_snapshot(cache, Snapshot(schema=SCHEMA_VERSION, roots=roots, documents=list(ordered), discovery=discovery_fingerprint()))
    return len(ordered)


def ranked_statistics(graph: Graph) -> dict[str, CollectionStatistics]:
    """The collection statistics of ``graph``'s ranked-search index, per file path (see
    ``SymbolIndex.statistics``); the index is restored or built as a search would."""
    graph.search("statistics", limit=1)  # The index, restored from the cache or built (and saved).
    index = graph._ready().symbol_index
    if index is None:  # Only a search that failed leaves none; nothing to count then.
        return {}
    return index.statistics()
