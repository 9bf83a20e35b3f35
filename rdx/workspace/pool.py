"""Running discovery over many files in parallel worker processes.

Workers each own one tree-sitter parser, read and parse a batch of files, and send back the
batch's FileResults encoded as MessagePack bytes: plain data only, nothing tree-sitter crosses
the process boundary. Batches are balanced by size (largest files first) so that one huge file
does not leave the other workers idle at the end.

Workers never outlive the process that started them: each asks the kernel for SIGKILL when its
parent dies (``prctl(PR_SET_PDEATHSIG)`` on Linux) and also watches its parent's pid from a
thread, for other systems and for the moment between the fork and that request. Each worker's
address space is capped (``RDX_WORKER_MEMORY``, 4 GiB above what it inherits by default), so a
file that would take all the machine's memory fails alone, as a ``MemoryError`` caught per
file; a worker that dies anyway (killed, crashed) spoils only its own files: the batches left
are run again file by file, and a file that kills a worker on its own becomes a
``worker-died`` diagnostic.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from rdx.languages.discover import discover_foreign, prepare_foreign
from rdx.model.records import Diagnostic, FileResult
from rdx.ruby.discover.erb import is_erb_file, ruby_of_template, view_receivers
from rdx.ruby.discover.parse import RubyParser
from rdx.workspace.files import FileEntry, content_hash, is_ruby_file, read_source

__all__ = ["default_jobs", "discover_file", "discover_files", "discover_source", "paused_gc"]

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(list[FileResult])
_parser: RubyParser | None = None
# Below this many bytes in total, process start-up costs more than it saves.
_INLINE_BYTES = 256 * 1024
_BATCH_BYTES = 512 * 1024
# How much address space a worker may take beyond what it inherits from its parent at fork.
DEFAULT_WORKER_MEMORY = 4 * 1024**3
_PR_SET_PDEATHSIG = 1


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
    ruby = is_ruby_file(os.path.basename(entry.path))
    data, size, mtime_ns, diagnostics = read_source(entry.path, ruby=ruby, roots=entry.roots)
    if data is None:
        return FileResult(uri=entry.uri, path=entry.path, size=size, mtime_ns=mtime_ns, diagnostics=diagnostics)
    try:
        if is_erb_file(entry.path):
            result = view_receivers((parser or _get_parser()).discover(entry.uri, ruby_of_template(data), entry.path))
        elif ruby:
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


def worker_memory_budget() -> int | None:
    """Bytes of address space a worker may add to what it inherits (``RDX_WORKER_MEMORY``, in
    bytes or with a K/M/G suffix; ``0`` or ``none`` for no cap)."""
    text = os.environ.get("RDX_WORKER_MEMORY", "").strip().lower()
    if not text:
        return DEFAULT_WORKER_MEMORY
    if text in {"0", "none", "off"}:
        return None
    scale = {"k": 1024, "m": 1024**2, "g": 1024**3}.get(text[-1], 1)
    try:
        return int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        return DEFAULT_WORKER_MEMORY


def _watch_parent(parent: int) -> None:
    """End this worker when its parent is gone (re-parented to init or a subreaper)."""
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(0.5)


def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (Linux), looked up once per process: in the parent before a fork, its
    workers inherit it rather than each importing ctypes and loading libc (a few ms each)."""
    global _prctl_function
    if _prctl_function is None and sys.platform.startswith("linux"):
        try:
            import ctypes

            _prctl_function = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            pass
    return _prctl_function


_prctl_function: Callable[..., int] | None = None


def _init_worker(parent: int, budget: int | None) -> None:
    """Runs first in every worker: tie its life to the parent's and cap its memory."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # The parent may have died before the request above: that would never fire now.
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="rdx-parent-watch", daemon=True).start()
    if budget is not None:
        try:
            import resource

            with open("/proc/self/statm") as f:
                inherited = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = inherited + budget
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            if soft == resource.RLIM_INFINITY or soft > limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        except (OSError, ValueError, ImportError):
            pass  # Not Linux, or no /proc: the worker runs uncapped.


# One file of a batch: path, URI and the roots its real path must be inside (``FileEntry``).
_Item = tuple[str, str, tuple[str, ...]]


def _work(batch: list[_Item]) -> bytes:
    parser = _get_parser()
    with paused_gc():
        results = [discover_file(FileEntry(path, uri, roots=roots), parser) for path, uri, roots in batch]
    for r in results:
        # The parent knows each file's path and URI; paths may not be valid UTF-8, which
        # MessagePack cannot carry, so they stay behind and are put back in the parent.
        r.path = None
    return _encoder.encode(results)


def _sizes(entries: list[FileEntry]) -> list[int]:
    """Each file's size, for balancing batches only: the walk's (an entry with its modification
    time has its status from the walk), else asked of the file system (0 when that fails)."""
    sizes = []
    for e in entries:
        size = e.size
        if not e.mtime_ns:
            try:
                size = os.path.getsize(e.path)
            except OSError:
                size = 0
        sizes.append(size)
    return sizes


def _batches(entries: list[FileEntry], jobs: int, sizes: list[int] | None = None) -> list[list[_Item]]:
    sized = list(zip(_sizes(entries) if sizes is None else sizes, entries, strict=True))
    sized.sort(key=lambda x: -x[0])
    total = sum(s for s, _ in sized)
    target = max(min(_BATCH_BYTES, total // (jobs * 8) + 1), 16 * 1024)
    batches: list[list[_Item]] = []
    current: list[_Item] = []
    current_bytes = 0
    for size, e in sized:
        current.append((e.path, e.uri, e.roots))
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
    sizes = _sizes(entries) if jobs > 1 and len(entries) > 1 else []
    total_bytes = sum(sizes)
    if jobs == 1 or len(entries) < 2 or total_bytes < _INLINE_BYTES:
        parser = _get_parser()
        for e in entries:
            with paused_gc():
                result = discover_file(e, parser)
            yield result
            if progress:
                progress(1)
        return
    # The process pool's names, imported now (``__getattr__``) or as a test replaced them.
    this = sys.modules[__name__]
    multiprocessing, ProcessPoolExecutor, as_completed, BrokenProcessPool = (getattr(this, name) for name in _PROCESS_POOL)
    batches = _batches(entries, jobs, sizes)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    if "fork" in methods:
        # What each worker would make before its first file of another language (its
        # compiled query, the native runner's check), made once here and inherited at the fork.
        prepare_foreign(e.path for e in entries)
        _prctl()
    initargs = (os.getpid(), worker_memory_budget())
    # Each round runs what is left in a fresh pool. A worker that dies breaks its pool and
    # every batch still in it; the second round runs those files one per task, and what is
    # still left runs file by file, each alone in its pool, so only a file that kills a worker
    # by itself is lost, as a diagnostic.
    pending = batches
    for per_file in (False, True):
        if not pending:
            return
        if per_file:
            pending = [[item] for batch in pending for item in batch]
        done: set[int] = set()
        try:
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker, initargs=initargs) as pool:
                futures = {pool.submit(_work, batch): i for i, batch in enumerate(pending)}
                for future in as_completed(futures):
                    i = futures[future]
                    with paused_gc():
                        decoded = _decoder.decode(future.result())
                    done.add(i)
                    yield from _with_paths(pending[i], decoded)
                    if progress:
                        progress(len(pending[i]))
        except BrokenProcessPool:
            pass
        pending = [batch for i, batch in enumerate(pending) if i not in done]
    for batch in pending:
        try:
            with ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_init_worker, initargs=initargs) as pool:
                encoded = pool.submit(_work, batch).result()
            with paused_gc():
                yield from _with_paths(batch, _decoder.decode(encoded))
        except BrokenProcessPool:
            path, uri, _ = batch[0]
            yield FileResult(
                uri=uri,
                path=path,
                diagnostics=[Diagnostic("worker-died", "the worker process parsing this file died (out of memory or killed); skipped")],
            )
        if progress:
            progress(len(batch))


_PROCESS_POOL = ("multiprocessing", "ProcessPoolExecutor", "as_completed", "BrokenProcessPool")


def __getattr__(name: str) -> Any:
    """The process pool's names (``multiprocessing``, ``concurrent.futures``' process pool),
    imported at their first use and then kept in this module: most processes (a language
    server on a small project, a command, a test's graph) never start a worker, and the
    imports cost tens of milliseconds. A name set already (by a test's monkeypatch) stays."""
    if name not in _PROCESS_POOL:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    names = globals()
    for key, value in zip(_PROCESS_POOL, (multiprocessing, ProcessPoolExecutor, as_completed, BrokenProcessPool), strict=True):
        names.setdefault(key, value)
    return names[name]


def _with_paths(batch: list[_Item], decoded: list[FileResult]) -> Iterator[FileResult]:
    for (path, _, _), result in zip(batch, decoded, strict=False):
        result.path = path
        yield result


def discover_source(uri: str, data: bytes, path: str | None) -> FileResult:
    """Discovery of one buffer (an editor's unsaved text): Ruby's (an ERB template's Ruby) or
    another language's."""
    if is_erb_file(path or uri):
        return view_receivers(_get_parser().discover(uri, ruby_of_template(data), path))
    if is_ruby_file(os.path.basename(path or uri)):
        return _get_parser().discover(uri, data, path)
    return discover_foreign(uri, data, path)


def iter_sources(items: Iterable[tuple[str, bytes]]) -> Iterator[FileResult]:
    parser = _get_parser()
    for uri, data in items:
        yield parser.discover(uri, data)
