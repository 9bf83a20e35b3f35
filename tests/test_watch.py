"""``rdx watch`` picks up edits, new files and deletions without a restart."""

from __future__ import annotations

import selectors
import subprocess
import sys
from pathlib import Path

import rdx


def _line(proc: subprocess.Popen, timeout: float = 30.0) -> str:
    """The next line of output, failing (not hanging) when none comes in time."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    assert sel.select(timeout), "rdx watch printed nothing in time"
    return proc.stdout.readline()


def _until(proc: subprocess.Popen, text: str) -> str:
    """Read update lines until one contains ``text`` (one edit may arrive as several batches)."""
    for _ in range(10):
        line = _line(proc)
        if text in line:
            return line
        assert line.startswith("updated"), line
    raise AssertionError(f"no update line with {text!r}")


def test_watch_reports_each_update(tmp_path: Path):
    (tmp_path / "a.rb").write_text("class A; end\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rdx.cli.main", "watch", str(tmp_path), "--debounce", "50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )
    try:
        first = _line(proc)
        assert "watching" in first and "1 files indexed" in first, first
        assert _line(proc).strip() == "ready"
        (tmp_path / "b.rb").write_text("class B < A; end\n")
        assert _until(proc, "updated 1 and removed 0 files")
        (tmp_path / "a.rb").unlink()
        assert _until(proc, "updated 0 and removed 1 files")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # The snapshot it left behind describes the final files.
    g = rdx.Graph.open(tmp_path)
    assert g.open_stats["parsed"] == 0 and g.open_stats["reused"] == 1
    assert "B" in g and g["A"].kind == "Todo"  # B's superclass is now only a placeholder
