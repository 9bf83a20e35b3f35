"""The pinned Debian Ruby corpus that corpus-scale tests and the benchmarks index
(``data/debian-corpus.txt``), and the Ruby libraries installed beyond it. Plain Python: the
benchmarks import it too."""

from __future__ import annotations

from pathlib import Path

DEBIAN_CORPUS_LIST = Path(__file__).parent / "data" / "debian-corpus.txt"
# Where Debian installs Ruby libraries: what is found there beyond the pinned list is "other
# installed gems" (``other_installed_ruby``).
DEBIAN_RUBY_DIRS = (
    "/usr/lib/ruby/vendor_ruby",
    "/usr/share/rubygems-integration/all/gems",
    "/usr/lib/x86_64-linux-gnu/rubygems-integration/3.1.0/gems",
)


def debian_corpus() -> list[str]:
    """The pinned Debian Ruby corpus (``tests/data/debian-corpus.txt``): every entry named with
    its version, so results do not depend on what else is installed. Fails naming any entry
    that is missing (``make test`` installs them)."""
    import os
    import re
    import warnings

    entries = [line.strip() for line in DEBIAN_CORPUS_LIST.read_text().splitlines() if line.strip() and not line.startswith("#")]
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
    """Ruby libraries installed on this machine that the pinned corpus does not name (on a
    fresh CI machine: the compiled gems rdx's corpus leaves out, such as nokogiri and oj)."""
    import os

    pinned = set(debian_corpus())
    out = []
    for base in DEBIAN_RUBY_DIRS:
        if os.path.isdir(base):
            out += [os.path.join(base, n) for n in sorted(os.listdir(base)) if os.path.join(base, n) not in pinned and n != "3.1.0"]
    return out


def describe_roots(roots: list[str]) -> str:
    """Roots for a one-line report: the pinned corpus by name, a few others in full."""
    if roots == debian_corpus():
        return f"the pinned Debian corpus ({len(roots)} entries, tests/data/debian-corpus.txt)"
    return ", ".join(roots) if len(roots) <= 4 else ", ".join(roots[:3]) + f" and {len(roots) - 3} more"
