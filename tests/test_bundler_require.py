"""``Bundler.require`` loads the Gemfile's gems in Gemfile order (issue 22, the load order across
libraries): where several gems mix into ``Object``, the one listed last in the Gemfile lands
first in its chain, whatever their names' alphabetical order. Ruby, with Bundler resolving the
Gemfile (``bundle lock --local``: path gems only, offline), is the oracle.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import write

import rdx
from rdx.model.records import BUNDLER_REQUIRE
from rdx.ruby.discover.parse import discover_source
from rdx.workspace.gems import read_gemfile


def _gem(root: Path, name: str, files: dict[str, str]) -> None:
    base = root / "vendor" / name
    write(base / f"{name}.gemspec", f'Gem::Specification.new {{ |s| s.name = "{name}"; s.version = "1.0.0"; s.summary = "x"; s.authors = ["x"] }}\n')
    for rel, text in files.items():
        write(base / rel, text)


def _mixes_into_object(module: str) -> str:
    return f"module {module}; end\nclass Object; include {module}; end\n"


def _project(root: Path, gemfile: str, application: str) -> Path:
    """A Rails-like project: path gems under vendor/, each mixing one module into Object."""
    _gem(root, "zeta", {"lib/zeta.rb": _mixes_into_object("ZetaExt")})
    _gem(root, "alpha", {"lib/alpha.rb": _mixes_into_object("AlphaExt")})
    _gem(root, "mid-dash", {"lib/mid/dash.rb": _mixes_into_object("MidDashExt")})  # Bundler tries mid/dash
    _gem(root, "beta", {"lib/beta.rb": _mixes_into_object("BetaLoaded"), "lib/beta/custom.rb": _mixes_into_object("BetaCustom")})
    _gem(root, "tester", {"lib/tester.rb": _mixes_into_object("TesterExt")})
    _gem(root, "devtool", {"lib/devtool.rb": _mixes_into_object("DevtoolExt")})
    write(root / "Gemfile", gemfile)
    write(root / "config" / "application.rb", application)
    assert shutil.which("bundle"), "the oracle needs Bundler: make system-deps installs ruby-bundler"
    subprocess.run(["bundle", "lock", "--local"], cwd=root, check=True, capture_output=True, timeout=120, env=_bundle_env(root))
    return root


def _bundle_env(root: Path) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.update(BUNDLE_GEMFILE=str(root / "Gemfile"), BUNDLE_APP_CONFIG=str(root / ".bundle"), HOME=str(root))
    return env


OURS = ("ZetaExt", "AlphaExt", "MidDashExt", "BetaLoaded", "BetaCustom", "TesterExt", "DevtoolExt")


def _ruby_chain(root: Path) -> list[str]:
    script = 'load "config/application.rb"; puts JSON.generate(Object.ancestors.map(&:to_s))'
    out = subprocess.run(["ruby", "-rjson", "-e", script], cwd=root, check=True, capture_output=True, text=True, timeout=120, env=_bundle_env(root))
    return [n for n in json.loads(out.stdout) if n in OURS]


def _rdx_chain(root: Path, tmp: Path, ruby: list[str]) -> list[str]:
    """Object's chain in rdx, on the modules Ruby loaded: rdx reads every file of the project
    as loaded (the gems Bundler does not require too), so the order is what is compared."""
    g = rdx.Graph.open([str(root)], cache_dir=str(tmp / "cache"))
    g.resolve()
    return [a.name for a in g["Object"].ancestors if a.name in ruby]


GEMFILE = """
gem "zeta", path: "vendor/zeta"
gem "mid-dash", path: "vendor/mid-dash"
gem "alpha", path: "vendor/alpha"
gem "beta", path: "vendor/beta", require: "beta/custom"
group :test do
  gem "tester", path: "vendor/tester"
end
gem "devtool", path: "vendor/devtool", require: false
"""

APPLICATION = """
require "bundler/setup"
Bundler.require{groups}
module App
  class Application; end
end
"""


# make check keeps the Gemfile without groups; with groups, and after an edit of the Gemfile,
# run in make test (each runs Ruby with Bundler, a second or more).
@pytest.mark.parametrize("groups", ["", pytest.param("(:default, :test)", marks=pytest.mark.slow)])
def test_gems_load_in_gemfile_order_with_their_groups_and_require_options(tmp_path: Path, groups: str) -> None:
    root = _project(tmp_path / "app", GEMFILE, APPLICATION.format(groups=groups))
    ruby = _ruby_chain(root)
    # Zeta is listed first, so it is included first and sits lowest; alpha (alphabetically
    # first) lands above it; beta's require: names its own file; devtool is never required.
    assert ruby[-1] == "ZetaExt" and "DevtoolExt" not in ruby and "BetaLoaded" not in ruby
    assert ("TesterExt" in ruby) == bool(groups)
    assert _rdx_chain(root, tmp_path, ruby) == ruby


@pytest.mark.slow
def test_gemfile_order_after_an_edit_of_the_gemfile(tmp_path: Path) -> None:
    """The order follows the Gemfile as it is now: reordered, a fresh open answers Ruby's new
    order (the Gemfile is part of what the saved graph depends on)."""
    root = _project(tmp_path / "app", GEMFILE, APPLICATION.format(groups=""))
    first = _rdx_chain(root, tmp_path, _ruby_chain(root))
    lines = GEMFILE.strip().splitlines()
    write(root / "Gemfile", "\n".join([lines[2], lines[1], lines[0], *lines[3:]]) + "\n")
    subprocess.run(["bundle", "lock", "--local"], cwd=root, check=True, capture_output=True, timeout=120, env=_bundle_env(root))
    ruby = _ruby_chain(root)
    assert ruby != first
    assert _rdx_chain(root, tmp_path, ruby) == ruby


def test_the_call_is_recorded_where_it_runs_at_load_time() -> None:
    source = b'Bundler.require(*Rails.groups)\nBundler.require\nBundler.require(:default, "test")\ndef boot; Bundler.require(:x); end\nFoo.require(:y)\n'
    paths = [r.path for r in discover_source("file:///config/application.rb", source).requires]
    assert paths == [BUNDLER_REQUIRE + "(*)", BUNDLER_REQUIRE, BUNDLER_REQUIRE + "(default,test)"]


def test_the_gemfile_reader() -> None:
    gems = read_gemfile(GEMFILE.encode() + b'gem name_from_somewhere\ngem "zeta"\ngem "c", groups: %i[x y], require: %w[c1 c2]\n')
    assert gems == [
        ("zeta", None, ("default",)),
        ("mid-dash", None, ("default",)),
        ("alpha", None, ("default",)),
        ("beta", ("beta/custom",), ("default",)),
        ("tester", None, ("test",)),
        ("devtool", (), ("default",)),
        ("c", ("c1", "c2"), ("x", "y")),
    ]
