"""Benchmark: latency of go-to-definition, hover and completion through ``rdx lsp`` over stdio,
against the same questions asked of the public API in process, in the same run.

Usage: python bench/bench_lsp.py [--root DIR] [--positions N]
Corpus: Debian's gems directory (Rails, RuboCop and their dependencies), copied to a temporary
directory so that the server's ``.rdx/`` snapshot is its own and the first start is truly cold
(the server indexes one root, the one ``initialize`` names).

Positions: N identifiers (half constants, half method calls after ``.``) picked by regular
expression, with a fixed seed, in RuboCop's cops and ActiveRecord's files; every feature is asked
at the same positions (one character into the identifier: a one-letter prefix for completion).

Printed: time to the first answer after ``initialize`` with no snapshot (cold) and with the
snapshot the cold start wrote (warm); p50/p90 per feature per transport, the stdio/in-process
ratio of the p50s, and how often the two transports gave the same answer. Numbers only: no
assertions on time (the target is a p50 under 20 ms over stdio).
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

import rdx  # noqa: E402

DEFAULT = "/usr/share/rubygems-integration/all/gems"
# Where positions are picked, relative to the gems directory.
SOURCES = ("rubocop-1.*/lib/rubocop/cop/**/*.rb", "activerecord-*/lib/active_record/**/*.rb")
CONSTANT = re.compile(r"(?<![\w:@$])(?:[A-Z]\w*::)*([A-Z]\w*)")
CALL = re.compile(r"[\w)\]]\.([a-z_]\w*[?!]?)")
FEATURES = ("definition", "hover", "completion")
TIMEOUT = 900.0  # Seconds for any one answer (a cold index of the corpus included).


@dataclass(frozen=True)
class Position:
    path: str  # Absolute, in the copy.
    line: int  # 0-based, as LSP counts.
    column: int  # On an ASCII line: the byte column and the UTF-16 one are the same.
    kind: str  # "constant" or "call".
    name: str


def pick_positions(root: str, count: int, seed: int = 0) -> list[Position]:
    """``count`` identifiers from real code: half constants, half calls, outside comments and strings."""
    found: dict[str, list[Position]] = {"constant": [], "call": []}
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            for number, line in enumerate(lines):
                code = line.split("#", 1)[0]
                if not line.isascii() or not code.strip():
                    continue
                for kind, regex in (("constant", CONSTANT), ("call", CALL)):
                    for m in regex.finditer(code):
                        before = code[: m.start(1)]
                        if before.count("'") % 2 or before.count('"') % 2:
                            continue  # Inside a string literal (roughly).
                        found[kind].append(Position(path, number, m.start(1) + 1, kind, m.group(1)))
    rng = random.Random(seed)
    return [p for kind in ("constant", "call") for p in rng.sample(found[kind], count // 2)]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


# -- in process ---------------------------------------------------------------------------------


def ask_in_process(graph: rdx.Graph, feature: str, p: Position) -> Any:
    if feature == "definition":
        return graph.definition_at(p.path, p.line + 1, p.column)
    if feature == "hover":
        return graph.hover_at(p.path, p.line + 1, p.column)
    return graph.completions_at(p.path, p.line + 1, p.column)


def reduce_in_process(feature: str, answer: Any) -> Any:
    """An answer of the public API, reduced to what both transports can be compared on."""
    if feature == "definition":
        # The server leaves out Ruby core's locations (they have no file to open).
        return (
            sorted((loc.path, loc.start_line - 1) for loc in answer.locations if loc.uri.startswith("file://"))
            if answer is not None
            else None
        )
    if feature == "hover":
        return answer.name if answer is not None else None
    return [c.label for c in answer[:200]]  # The server sends the first 200.


def run_in_process(root: str, positions: list[Position]) -> tuple[float, dict[str, list[float]], dict[str, list[Any]]]:
    t0 = time.perf_counter()
    graph = rdx.Graph.open(root)
    graph.resolve()
    opened = time.perf_counter() - t0
    times: dict[str, list[float]] = {f: [] for f in FEATURES}
    answers: dict[str, list[Any]] = {f: [] for f in FEATURES}
    for feature in FEATURES:
        for p in positions:
            t = time.perf_counter()
            answer = ask_in_process(graph, feature, p)
            times[feature].append(time.perf_counter() - t)
            answers[feature].append(reduce_in_process(feature, answer))
    return opened, times, answers


# -- over stdio ---------------------------------------------------------------------------------


def lsp_request(client: LanguageClient, feature: str, p: Position) -> Awaitable[Any]:
    document = lsp.TextDocumentIdentifier(uri=Path(p.path).as_uri())
    where = lsp.Position(line=p.line, character=p.column)
    if feature == "definition":
        return client.text_document_definition_async(lsp.DefinitionParams(text_document=document, position=where))
    if feature == "hover":
        return client.text_document_hover_async(lsp.HoverParams(text_document=document, position=where))
    return client.text_document_completion_async(lsp.CompletionParams(text_document=document, position=where))


def reduce_lsp(feature: str, answer: Any) -> Any:
    """An LSP answer in the shape ``reduce_in_process`` gives."""
    if feature == "definition":
        return sorted((unquote(loc.uri.removeprefix("file://")), loc.range.start.line) for loc in answer) if answer is not None else None
    if feature == "hover":
        return answer.contents.value.split("\n")[1] if answer is not None else None  # The name (and signature) in the first code block.
    return [item.label for item in answer.items] if answer is not None else []


async def drain(stream: asyncio.StreamReader | None) -> None:
    """Read the server's stderr so that a chatty server never blocks on a full pipe."""
    while stream is not None and await stream.read(65536):
        pass


class Server:
    """One ``rdx lsp`` process over stdio, driven by pygls' client."""

    def __init__(self) -> None:
        self.client = LanguageClient("rdx-bench", "1")
        self._drain: asyncio.Task[None] | None = None

    async def start(self, root: str) -> tuple[float, float, float]:
        """(spawn -> initialize answered, initialize sent -> answered, initialize sent -> first answer)."""
        t0 = time.perf_counter()
        await self.client.start_io(sys.executable, "-m", "rdx_lsp")
        process = getattr(self.client, "_server", None)
        self._drain = asyncio.create_task(drain(process.stderr if process is not None else None))
        t1 = time.perf_counter()
        params = lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=Path(root).as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=Path(root).as_uri(), name="gems")],
        )
        await asyncio.wait_for(self.client.initialize_async(params), TIMEOUT)
        t2 = time.perf_counter()
        self.client.initialized(lsp.InitializedParams())
        # Any request waits for the index: ``class Base`` in RuboCop's cop/base.rb.
        base = glob.glob(os.path.join(root, "rubocop-1.*/lib/rubocop/cop/base.rb"))[0]
        first = lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=Path(base).as_uri()), position=lsp.Position(line=33, character=10)
        )
        await asyncio.wait_for(self.client.text_document_definition_async(first), TIMEOUT)
        t3 = time.perf_counter()
        return t2 - t0, t2 - t1, t3 - t1

    async def measure(self, positions: list[Position]) -> tuple[dict[str, list[float]], dict[str, list[Any]]]:
        times: dict[str, list[float]] = {f: [] for f in FEATURES}
        answers: dict[str, list[Any]] = {f: [] for f in FEATURES}
        for feature in FEATURES:
            for p in positions:
                t = time.perf_counter()
                answer = await asyncio.wait_for(lsp_request(self.client, feature, p), TIMEOUT)
                times[feature].append(time.perf_counter() - t)
                answers[feature].append(reduce_lsp(feature, answer))
        return times, answers

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), 60)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), 60)
        if self._drain is not None:
            await self._drain


async def run_stdio(
    root: str, positions: list[Position]
) -> tuple[dict[str, tuple[float, float, float]], dict[str, list[float]], dict[str, list[Any]]]:
    starts = {}
    cold = Server()
    starts["cold"] = await cold.start(root)  # No snapshot yet: the server writes one.
    await cold.stop()
    warm = Server()
    starts["warm"] = await warm.start(root)
    times, answers = await warm.measure(positions)
    await warm.stop()
    return starts, times, answers


def same(feature: str, in_process: Any, over_stdio: Any) -> bool:
    if feature == "hover":
        # The server shows the signature in place of ``()``: compare the names before it.
        return (in_process is None) == (over_stdio is None) and (in_process is None or over_stdio.startswith(in_process.removesuffix("()")))
    return bool(in_process == over_stdio)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=DEFAULT, help="the corpus (copied first; default: Debian's gems)")
    parser.add_argument("--positions", type=int, default=200, help="how many positions (half constants, half calls)")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        sys.exit(f"{args.root} does not exist: run `make system-deps` or pass --root")
    scratch = tempfile.mkdtemp(prefix="rdx-lsp-bench-")
    try:
        root = os.path.join(scratch, "gems")
        t = time.perf_counter()
        shutil.copytree(args.root, root, symlinks=True, ignore=shutil.ignore_patterns(".rdx"))
        print(f"corpus: copy of {args.root} ({time.perf_counter() - t:.1f} s to copy)")
        positions = pick_positions(root, args.positions)
        print(
            f"positions: {len(positions)} ({sum(p.kind == 'constant' for p in positions)} constants, {sum(p.kind == 'call' for p in positions)} calls)"
        )
        starts, stdio_times, stdio_answers = asyncio.run(run_stdio(root, positions))
        for name, (spawned, answered, first) in starts.items():
            print(
                f"  {name:4s} start: initialize answered in {answered * 1000:.0f} ms (the server's boot), "
                f"first answer {first:.2f} s after initialize was sent (spawn to initialize answered: {spawned * 1000:.0f} ms)"
            )
        opened, local_times, local_answers = run_in_process(root, positions)
        print(f"  in process: Graph.open + resolve on the warm snapshot {opened:.2f} s")
        print("latency per request, sequential, warm (ms); overhead = median of stdio minus in-process at the same position")
        print(
            f"{'feature':11s} {'positions':10s} {'in-process p50':>14s} {'p90':>6s} {'stdio p50':>10s} {'p90':>6s} {'ratio':>6s} {'overhead':>8s} {'answered':>9s} {'same':>8s}"
        )
        for feature in FEATURES:
            for kind in ("constant", "call", "all"):
                chosen = [i for i, p in enumerate(positions) if kind in ("all", p.kind)]
                local = [local_times[feature][i] for i in chosen]
                remote = [stdio_times[feature][i] for i in chosen]
                answered = sum(bool(local_answers[feature][i]) for i in chosen)
                agree = sum(same(feature, local_answers[feature][i], stdio_answers[feature][i]) for i in chosen)
                lp50, rp50 = statistics.median(local), statistics.median(remote)
                overhead = statistics.median(r - loc for r, loc in zip(remote, local, strict=True))
                print(
                    f"{feature:11s} {kind + 's' if kind != 'all' else 'all':10s} {lp50 * 1000:14.2f} {percentile(local, 0.9) * 1000:6.2f} "
                    f"{rp50 * 1000:10.2f} {percentile(remote, 0.9) * 1000:6.2f} {rp50 / lp50:5.1f}x {overhead * 1000:8.2f} "
                    f"{answered:5d}/{len(chosen):<3d} {agree:4d}/{len(chosen):<3d}"
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
