"""Issue 22: ``rdx lsp`` reports indexing with ``$/progress``: a begin, reports of the files
parsed ("120/300 files", with a percentage), throttled, and an end. The throttle alone, then a
server session driven by pytest-lsp's client on a project of a few hundred files."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from rdx_lsp.server import IndexingProgress

# -- the throttle ------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def check_throttle(ticks: list[tuple[float, int, int]], expected: list[tuple[int, int]], interval: float = 0.2) -> None:
    """``ticks``: (seconds since the last tick, files in the batch just parsed, total);
    ``Graph.open`` calls back with running counts (done so far, total); ``expected``: the
    (done, total) reports sent."""
    clock = Clock()
    sent: list[tuple[int, int]] = []
    progress = IndexingProgress(lambda done, total: sent.append((done, total)), interval=interval, clock=clock)
    done = 0
    for wait, parsed, total in ticks:
        clock.now += wait
        done += parsed
        progress(done, total)
    assert sent == expected


def test_the_first_batch_then_at_most_every_interval_and_the_last() -> None:
    check_throttle(
        [(0.0, 38, 300), (0.05, 38, 300), (0.1, 38, 300), (0.1, 38, 300), (0.3, 38, 300), (0.01, 38, 300), (0.01, 38, 300), (0.01, 34, 300)],
        [(38, 300), (152, 300), (190, 300), (300, 300)],
    )


def test_file_by_file_parsing_is_not_reported_per_file() -> None:
    # A file every 1/1024 s (exact in binary, as is the interval): a report every 256 files.
    check_throttle([(1 / 1024, 1, 1000)] * 1000, [(1, 1000), (257, 1000), (513, 1000), (769, 1000), (1000, 1000)], interval=0.25)


def test_nothing_to_parse_reports_nothing() -> None:
    check_throttle([], [])


# -- a server session --------------------------------------------------------------------------

FILES = 300


def many_files(root: Path) -> Path:
    """A project of ``FILES`` Ruby files, about 1.5 kB each (over the size under which
    discovery parses in-process: batches go to worker processes)."""
    for i in range(FILES):
        path = root / "lib" / f"part{i // 50}" / f"thing{i}.rb"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    def step{j}(x)\n      Thing{(i + 1) % FILES}.new.step{j}(x + {j})\n    end\n\n" for j in range(20))
        path.write_text(f"class Thing{i}\n  # Thing number {i}.\n{body}end\n")
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rdx_lsp"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    await lsp_client.shutdown_session()


@pytest.mark.slow  # a server indexing 300 files through worker processes; the throttle's tests above stay in make check
@pytest.mark.asyncio
async def test_indexing_reports_files_between_begin_and_end(client: LanguageClient, tmp_path: Path) -> None:
    root = many_files(tmp_path / "project")
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), "project")])
    )
    # Any request waits for the index; the end of its progress was sent before the answer.
    first = root / "lib/part0/thing0.rb"
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(first.as_uri())))
    assert symbols is not None and [s.name for s in symbols] == ["Thing0"]
    values = client.progress_reports.get("rdx-indexing", [])
    assert isinstance(values[0], lsp.WorkDoneProgressBegin) and isinstance(values[-1], lsp.WorkDoneProgressEnd)
    assert values[-1].message is not None and values[-1].message.endswith(" files")
    reports = [v for v in values[1:-1] if isinstance(v, lsp.WorkDoneProgressReport)]
    assert len(reports) == len(values) - 2
    counted = [(int(m.group(1)), int(m.group(2)), r.percentage) for r in reports if r.message and (m := re.fullmatch(r"(\d+)/(\d+) files", r.message))]
    assert len(counted) >= 2, reports  # The first batch and the last at least.
    done = [c[0] for c in counted]
    assert done == sorted(set(done)) and done[-1] == FILES  # Counts that only increase, to all files.
    assert {c[1] for c in counted} == {FILES}
    percentages = [c[2] for c in counted]
    assert percentages == sorted(percentages) and percentages[-1] == 100
    assert all(p == 100 * d // FILES for d, _, p in counted)
    assert len(counted) < FILES // 10  # Throttled: not a report per file or per batch.
    # After the files: resolution, then the end.
    assert reports[-1].message == "resolving"
