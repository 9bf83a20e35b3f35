"""The pinned Debian Ruby corpus that corpus-scale tests and the benchmarks index
(``data/debian-corpus.txt``), and the Ruby libraries installed beyond it. Plain Python: the
benchmarks import it too."""

from __future__ import annotations

from pathlib import Path

DEBIAN_CORPUS_LIST = Path(__file__).parent / "data" / "debian-corpus.txt"
DEBIAN_EXTRA_LIST = Path(__file__).parent / "data" / "debian-corpus-extra.txt"

def debian_corpus() -> list[str]:
    """The pinned Debian Ruby corpus (``tests/data/debian-corpus.txt``): every entry named with
    its version, so results do not depend on what else is installed. Fails naming any entry
    that is missing (``make test`` installs them)."""
    return _pinned(DEBIAN_CORPUS_LIST)


def _pinned(listing: Path) -> list[str]:
    import os
    import re
    import warnings

    entries = [line.strip() for line in listing.read_text().splitlines() if line.strip() and not line.startswith("#")]
    out, missing = [], []
    for entry in entries:
        if os.path.exists(entry):
            out.append(entry)
            continue
        # A Debian (security) update may have moved a gem to another version: the same gem
        # stands in, with a warning naming both, so that the list gets updated.
        parent, name = os.path.split(entry)
        gem = re.sub(r"-[0-9][^-]*(\.gemspec)?$", "", name)
        others = sorted(n for n in os.listdir(parent) if re.fullmatch(re.escape(gem) + r"-[0-9][^-]*(\.gemspec)?", n)) if os.path.isdir(parent) and gem != name else []
        if others:
            warnings.warn(f"pinned corpus: {entry} is not installed; using {others[-1]}", stacklevel=2)
            out.append(os.path.join(parent, others[-1]))
        else:
            missing.append(entry)
    assert not missing, f"the pinned Debian Ruby corpus is missing {len(missing)} entries (make system-deps): {missing[:10]}"
    return out


def other_installed_ruby() -> list[str]:
    """Ruby libraries beyond the pinned corpus that every machine with the corpus has too: the
    compiled gems ruby-rails brings (nio4r, nokogiri, oj) and Ruby's sdbm, named with their
    versions in ``data/debian-corpus-extra.txt`` (so a test that adds them measures the same
    thing everywhere, whatever else is installed)."""
    return _pinned(DEBIAN_EXTRA_LIST)


def describe_roots(roots: list[str]) -> str:
    """Roots for a one-line report: the pinned corpus by name, a few others in full."""
    if roots == debian_corpus():
        return f"the pinned Debian corpus ({len(roots)} entries, tests/data/debian-corpus.txt)"
    return ", ".join(roots) if len(roots) <= 4 else ", ".join(roots[:3]) + f" and {len(roots) - 3} more"
