"""Running discovery over many files in parallel worker processes.

Workers each own one tree-sitter parser, read and parse a batch of files, and send back the
batch's FileResults encoded as MessagePack bytes: plain data only, nothing tree-sitter crosses
the process boundary. Batches are balanced by size (largest files first) so that one huge file
does not leave the other workers idle at the end.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager

import msgspec

from rdx.discovery.files import FileEntry, content_hash, is_ruby_file, read_source
from rdx.discovery.foreign import discover_foreign
from rdx.discovery.parse import RubyParser
from rdx.model.records import Diagnostic, FileResult

__all__ = ["default_jobs", "discover_file", "discover_files", "discover_source", "paused_gc"]

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(list[FileResult])
_parser: RubyParser | None = None
# Below this many bytes in total, process start-up costs more than it saves.
_INLINE_BYTES = 256 * 1024
_BATCH_BYTES = 512 * 1024


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around allocation-heavy work that makes no cycles.

    Discovery and resolution allocate hundreds of thousands of small objects; the collector
    would otherwise walk them over and over for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _get_parser() -> RubyParser:
    global _parser
    if _parser is None:
        _parser = RubyParser()
    return _parser


def discover_file(entry: FileEntry, parser: RubyParser | None = None) -> FileResult:
    """Read and parse one file; problems become diagnostics on the result."""
    data, size, mtime_ns, diagnostics = read_source(entry.path, ruby=is_ruby_file(os.path.basename(entry.path)))
    if data is None:
        return FileResult(uri=entry.uri, path=entry.path, size=size, mtime_ns=mtime_ns, diagnostics=diagnostics)
    try:
        if is_ruby_file(os.path.basename(entry.path)):
            result = (parser or _get_parser()).discover(entry.uri, data, entry.path)
        else:
            result = discover_foreign(entry.uri, data, entry.path)
    except Exception as exc:  # A bug in rdx must spoil one file, not the index.
        return FileResult(
            uri=entry.uri,
            path=entry.path,
            size=size,
            mtime_ns=mtime_ns,
            diagnostics=diagnostics + [Diagnostic("internal-error", f"rdx failed on this file: {exc!r}")],
        )
    result.mtime_ns = mtime_ns
    # The file's size on disk (what ``Graph.open`` compares), even when Ruby reads less of it.
    result.size = size
    result.content_hash = content_hash(data)
    if diagnostics:
        result.diagnostics = diagnostics + result.diagnostics
    return result


def _work(batch: list[tuple[str, str]]) -> bytes:
    parser = _get_parser()
    with paused_gc():
        results = [discover_file(FileEntry(path, uri), parser) for path, uri in batch]
    for r in results:
        # The parent knows each file's path and URI; paths may not be valid UTF-8, which
        # MessagePack cannot carry, so they stay behind and are put back in the parent.
        r.path = None
    return _encoder.encode(results)


def _batches(entries: list[FileEntry], jobs: int) -> list[list[tuple[str, str]]]:
    sized = []
    for e in entries:
        try:
            size = os.path.getsize(e.path)
        except OSError:
            size = 0
        sized.append((size, e))
    sized.sort(key=lambda x: -x[0])
    total = sum(s for s, _ in sized)
    target = max(min(_BATCH_BYTES, total // (jobs * 8) + 1), 16 * 1024)
    batches: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    current_bytes = 0
    for size, e in sized:
        current.append((e.path, e.uri))
        current_bytes += size
        if current_bytes >= target:
            batches.append(current)
            current, current_bytes = [], 0
    if current:
        batches.append(current)
    return batches


def discover_files(
    entries: list[FileEntry], jobs: int | None = None, progress: Callable[[int], None] | None = None
) -> Iterator[FileResult]:
    """Yield a FileResult for every entry (in no particular order)."""
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    total_bytes = 0
    for e in entries:
        try:
            total_bytes += os.path.getsize(e.path)
        except OSError:
            pass
    if jobs == 1 or len(entries) < 2 or total_bytes < _INLINE_BYTES:
        parser = _get_parser()
        for e in entries:
            with paused_gc():
                result = discover_file(e, parser)
            yield result
            if progress:
                progress(1)
        return
    batches = _batches(entries, jobs)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_work, b): b for b in batches}
        for future in as_completed(futures):
            batch = futures[future]
            with paused_gc():
                decoded = _decoder.decode(future.result())
            for (path, _), result in zip(batch, decoded, strict=False):
                result.path = path
                yield result
            if progress:
                progress(len(batch))


def discover_source(uri: str, data: bytes, path: str | None) -> FileResult:
    """Discovery of one buffer (an editor's unsaved text): Ruby's or another language's."""
    if is_ruby_file(os.path.basename(path or uri)):
        return _get_parser().discover(uri, data, path)
    return discover_foreign(uri, data, path)


def iter_sources(items: Iterable[tuple[str, bytes]]) -> Iterator[FileResult]:
    parser = _get_parser()
    for uri, data in items:
        yield parser.discover(uri, data)
