"""Benchmark: the memory of a graph opened warm and prepared as the servers hold it.

Usage: python bench/bench_memory.py [--copies K] [--work DIR] [--jobs N] [PATH ...]

Corpus, copies and caches as ``bench_typing.py`` (whose child process makes sure the cache
holds the snapshot, the resolved image and the query indexes for this rdx code). Then two
child processes each open the graph as the MCP server and ``rdx watch`` do
(``Graph.open(..., freeze_gc=True)``, then ``prepare_queries()``) and report their RSS after
each step:

- ``baseline``: as before issue 23's compact tables, in that process: the declarations'
  records decoded with every value an object of its own (``rdx.model.store._Sharing`` off),
  the documents sharing only their calls' and definitions' names (``DocumentSharing`` cut
  back to that), and the name search's token strings cached per name rather than per name
  segment (``rdx.search.names``);
- ``now``: as the servers run.

Printed: RSS after the open and after ``prepare_queries`` for both, the difference, the peak
(the process's high-water mark, ``VmHWM``, after ``prepare_queries``: what the machine must have
for the open and the preparing) with the step the sampled peak was in (the innermost rdx
functions of the main thread, sampled every 0.1 s), and the targets (issue 23: a prepared
10-copy graph at most 3 GB; issue 21: under 4 GB, its peak included). ``--trace`` also prints
each ``now`` sample where the step changed (RSS, its anonymous and file-backed parts, the step).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_edits import describe_roots  # noqa: E402
from bench_typing import corpus_and_cache  # noqa: E402

TARGETS_MB = {"issue 23": 3 * 1024, "issue 21": 4 * 1024}


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _status_mb(*fields: str) -> dict[str, float]:
    """Fields of /proc/self/status given in kB (``VmHWM``, ``RssAnon``, ``RssFile``), in MiB."""
    found: dict[str, float] = {}
    with open("/proc/self/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in fields:
                found[name] = int(value.split()[0]) / 1024
    return found


class Sampler:
    """Samples the RSS every ``interval`` seconds in a thread, with the innermost rdx functions
    the main thread is in: where the peak is (``peak``), and the steps (``trace``)."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.main = threading.get_ident()
        self.samples: list[tuple[float, float, float, float, str]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _step(self) -> str:
        frame = sys._current_frames().get(self.main)  # noqa: SLF001
        names: list[str] = []
        while frame is not None and len(names) < 3:
            path = frame.f_code.co_filename
            if f"{os.sep}rdx{os.sep}" in path:
                names.append(f"{os.path.splitext(os.path.basename(path))[0]}.{frame.f_code.co_name}")
            frame = frame.f_back
        return " < ".join(names)

    def _run(self) -> None:
        t0 = time.perf_counter()
        while not self.stopped.wait(self.interval):
            parts = _status_mb("RssAnon", "RssFile")
            self.samples.append((time.perf_counter() - t0, _rss_mb(), parts.get("RssAnon", 0.0), parts.get("RssFile", 0.0), self._step()))

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join()

    def peak(self) -> tuple[float, str]:
        """The highest sampled RSS and the step it was in."""
        if not self.samples:
            return 0.0, ""
        top = max(self.samples, key=lambda s: s[1])
        return top[1], top[4]

    def trace(self) -> list[str]:
        """One line per sample where the innermost step changed."""
        lines, last = [], None
        for t, rss, anon, file, step in self.samples:
            head = step.split(" < ")[0]
            if head != last:
                lines.append(f"{t:7.1f}s {rss:7.0f} MiB (anon {anon:.0f}, file {file:.0f})  {step}")
                last = head
        return lines


def _turn_sharing_off() -> None:
    """In this process: the values issue 23's compact tables share, each an object of its own again."""
    from msgspec.structs import force_setattr

    import rdx.model.store as store
    from rdx.search import names

    store._Sharing.share = lambda self, record: None  # type: ignore[method-assign]  # noqa: SLF001

    def names_only(self: store.DocumentSharing, doc: store.FileResult) -> store.FileResult:
        share = self.strings.setdefault
        for call in doc.method_refs:
            force_setattr(call, "name", share(call.name, call.name))
            if call.receiver_text is not None:
                force_setattr(call, "receiver_text", share(call.receiver_text, call.receiver_text))
        for d in doc.definitions:
            d.name = share(d.name, d.name)
            if d.params is not None:
                d.params = share(d.params, d.params)
        return doc

    store.DocumentSharing.share = names_only  # type: ignore[method-assign]
    by_name: dict[str, str] = {}

    def token_string(name: str) -> str:
        found = by_name.get(name)
        if found is None:
            found = by_name[name] = " ".join(names._tokens(name))  # noqa: SLF001
        return found

    names._token_string = token_string  # noqa: SLF001


def measure(roots: list[str], cache: str, jobs: int, baseline: bool, trace: bool) -> None:
    """Child process: open warm, prepare, print the RSS after each step as JSON (and, with
    ``trace``, the sampled steps before it)."""
    import rdx

    if baseline:
        _turn_sharing_off()
    report: dict[str, float] = {"start": _rss_mb()}
    t0 = time.perf_counter()
    g = rdx.Graph.open(roots, cache_dir=cache, jobs=jobs, freeze_gc=True)
    t1, c1 = time.perf_counter(), time.process_time()
    report["open"], report["open_s"] = _rss_mb(), t1 - t0
    with Sampler() as sampler:
        g.prepare_queries()
    report["prepared"], report["prepare_s"], report["prepare_cpu_s"] = _rss_mb(), time.perf_counter() - t1, time.process_time() - c1
    report["peak"] = _status_mb("VmHWM").get("VmHWM", float("nan"))
    report["peak_sampled"], report["peak_step"] = sampler.peak()  # type: ignore[assignment]
    report["resolved"] = bool(g.open_stats.get("resolved"))
    if trace:
        print("\n".join(sampler.trace()))
    print(json.dumps(report))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--copies", type=int, default=0, help="benchmark on K wrapped copies of the corpus")
    ap.add_argument("--work", default="/tmp/rdx-bench-work", help="where the copies corpus and the caches go")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--trace", action="store_true", help="print the RSS of each step of prepare_queries (now), sampled every 0.1 s")
    ap.add_argument("--only-now", action="store_true", help="measure as the servers run only (no baseline process)")
    ap.add_argument("--measure", choices=("baseline", "now"), help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.setrecursionlimit(10000)
    if args.measure:
        measure(args.paths, args.cache, args.jobs, args.measure == "baseline", args.trace)
        return
    # The same corpus and cache as bench_typing.py.
    roots, cache = corpus_and_cache(args.paths, args.copies, args.work)
    typing = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_typing.py")
    child = subprocess.run(
        [sys.executable, typing, "--prepare-only", cache, "--jobs", str(args.jobs), *roots], capture_output=True, text=True
    )
    if child.returncode != 0:
        sys.exit(f"preparing the cache failed:\n{child.stderr}")
    made = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"corpus {describe_roots(roots)}: {made['documents']} documents, {made['declarations']} declarations; cache {cache}")

    results: dict[str, dict[str, float]] = {}
    for mode in ("now",) if args.only_now else ("baseline", "now"):
        trace = ["--trace"] if args.trace and mode == "now" else []
        run = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--measure", mode, *trace, "--cache", cache, "--jobs", str(args.jobs), *roots],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"measuring ({mode}) failed:\n{run.stderr}")
        lines = run.stdout.rstrip().splitlines()
        if trace:
            print("prepare_queries, sampled (now):", *lines[:-1], sep="\n  ")
        results[mode] = json.loads(lines[-1])
    now = results["now"]
    base = results.get("baseline")
    print(f"{'RSS (MiB)':36s}" + (f" {'baseline':>10s}" if base else "") + f" {'now':>10s}" + (f" {'change':>10s}" if base else ""))
    for step, label in (("open", "after Graph.open (warm)"), ("prepared", "after prepare_queries"), ("peak", "peak (VmHWM), open + prepare")):
        if base:
            print(f"{label:36s} {base[step]:10.0f} {now[step]:10.0f} {now[step] - base[step]:+10.0f}")
        else:
            print(f"{label:36s} {now[step]:10.0f}")
    print(f"sampled peak of prepare_queries (now): {now['peak_sampled']:.0f} MiB in {now['peak_step'] or '?'}")
    print(
        (f"prepare_queries time: baseline {base['prepare_s']:.1f}s ({base['prepare_cpu_s']:.1f}s CPU), " if base else "prepare_queries time: ")
        + f"now {now['prepare_s']:.1f}s ({now['prepare_cpu_s']:.1f}s CPU)"
    )
    for issue, limit in TARGETS_MB.items():
        if args.copies == 10:
            verdict = "met" if now["prepared"] <= limit else "not met"
            print(f"target ({issue}): prepared 10-copy RSS <= {limit} MiB: {now['prepared']:.0f} MiB, {verdict}")
        else:
            print(f"target ({issue}): prepared RSS <= {limit} MiB on 10 copies (run with --copies 10)")
    if args.copies == 10:
        limit = TARGETS_MB["issue 21"]
        verdict = "met" if now["peak"] < limit else "not met"
        print(f"target (issue 21): peak RSS of a 10-copy warm open + prepare_queries < {limit} MiB: {now['peak']:.0f} MiB, {verdict}")


if __name__ == "__main__":
    main()
