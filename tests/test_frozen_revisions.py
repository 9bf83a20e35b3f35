"""Servers open graphs with the collector frozen (``Graph.open(freeze_gc=True)``): nothing that was
alive at a freeze is ever collected by a cycle collection. A replaced revision must therefore
be freed by reference counting alone, or every keystroke leaks a whole revision (issue 21: about
10 MB per keystroke on the Debian corpus before views broke their cycle with the foreign view)."""

from __future__ import annotations

import gc

import pytest

import rdx


def live_views() -> int:
    gc.unfreeze()  # Frozen objects are not listed; unfreezing moves them back, collecting nothing.
    try:
        return sum(1 for o in gc.get_objects() if type(o).__name__ == "View" and type(o).__module__.startswith("rdx."))
    finally:
        gc.freeze()


# Lists every object of the test process twice: seconds in a worker that has run hundreds of tests.
@pytest.mark.slow
def test_replaced_revisions_are_freed_with_the_collector_frozen(tmp_path):
    for n in range(12):
        (tmp_path / f"k{n}.rb").write_text(f"class K{n} < Base\n  def m; end\nend\n")
    (tmp_path / "tool.py").write_text("def helper():\n    return 1\n")
    g = rdx.Graph.open(tmp_path, freeze_gc=True)
    try:
        g.prepare_queries()
        before = live_views()
        for i in range(30):
            g.index_source(str(tmp_path / "k1.rb"), f"class K1 < Base\n  def m{i % 3}; end\nend\n")
            g.resolve()
            assert g.search("helper")  # Asks the other languages' side of every revision.
            if i % 10 == 9:
                g.prepare_queries()
        assert live_views() <= before + 2
    finally:
        gc.unfreeze()
