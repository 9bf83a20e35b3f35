"""``rdx watch`` picks up edits, new files and deletions without a restart."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import rdx


def test_watch_reports_each_update(tmp_path: Path):
    (tmp_path / "a.rb").write_text("class A; end\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rdx.cli", "watch", str(tmp_path), "--exit-after", "2", "--debounce", "50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        first = proc.stdout.readline()
        assert "watching" in first and "1 files indexed" in first, first + proc.stderr.read()
        time.sleep(0.5)
        (tmp_path / "b.rb").write_text("class B < A; end\n")
        line = proc.stdout.readline()
        assert "updated 1 and removed 0 files" in line, line
        time.sleep(0.3)
        (tmp_path / "a.rb").unlink()
        line = proc.stdout.readline()
        assert "updated 0 and removed 1 files" in line, line
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    # The snapshot it left behind describes the final files.
    g = rdx.Graph.open(tmp_path)
    assert g.open_stats["parsed"] == 0 and g.open_stats["reused"] == 1
    assert "B" in g and g["A"].kind == "Todo"  # B's superclass is now only a placeholder
