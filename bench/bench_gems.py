"""Benchmark: a Rails-style app whose Gemfile.lock locks every gem Debian's ``ruby-rails``
installs (Rails 6.1 and its dependencies), opened by ``Graph.open``.

Usage: python bench/bench_gems.py [JOBS]   (default: one worker per core)

Printed, all in this run: the number of gems and gem files; the baseline, a bare tree-sitter
parse of the same gem files (read and parse, one process); the first open with an empty gem
cache (locate, parse, cache); a second project opened with the gem cache warm (gems decoded,
not parsed) and its ratio to the baseline; the resolve of that graph; the same project opened
again (its own snapshot and resolved image); and whether ``ActiveRecord::Base`` resolves from
the app's model.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import tree_sitter_ruby  # noqa: E402
from tree_sitter import Language, Parser  # noqa: E402

import rdx  # noqa: E402

GEMS = [
    "actioncable", "actionmailbox", "actionmailer", "actionpack", "actiontext", "actionview", "activejob", "activemodel",
    "activerecord", "activestorage", "activesupport", "railties", "rails", "builder", "concurrent-ruby", "crass", "erubi",
    "globalid", "i18n", "loofah", "mail", "marcel", "mini_mime", "nokogiri", "rack", "rack-test", "rails-dom-testing",
    "rails-html-sanitizer", "thor", "tzinfo", "websocket-extensions", "zeitwerk", "rake", "method_source",
]


def installed_versions() -> dict[str, str]:
    out = subprocess.run(
        ["ruby", "-e", "Gem::Specification.each { |s| puts \"#{s.name} #{s.version}\" }"], capture_output=True, text=True, check=True
    ).stdout
    versions: dict[str, str] = {}
    for line in out.splitlines():
        name, _, version = line.partition(" ")
        versions.setdefault(name, version)
    return versions


def make_app(base: str, versions: dict[str, str]) -> str:
    root = os.path.join(base, f"app{len(os.listdir(base))}")
    os.makedirs(os.path.join(root, "app", "models"))
    specs = "".join(f"    {name} ({versions[name]})\n" for name in GEMS if name in versions)
    with open(os.path.join(root, "Gemfile.lock"), "w") as f:
        f.write("GEM\n  remote: https://rubygems.org/\n  specs:\n" + specs + "\nPLATFORMS\n  ruby\n")
    with open(os.path.join(root, "app", "models", "application_record.rb"), "w") as f:
        f.write("class ApplicationRecord < ActiveRecord::Base\n  self.abstract_class = true\nend\n")
    with open(os.path.join(root, "app", "models", "post.rb"), "w") as f:
        f.write("class Post < ApplicationRecord\n  has_many :comments\n  validates :title, presence: true\nend\n")
    return root


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else None
    if shutil.which("ruby") is None:
        sys.exit("needs ruby and Debian's ruby-rails")
    versions = installed_versions()
    base = tempfile.mkdtemp(prefix="rdx-bench-gems-")
    os.environ["RDX_GEM_CACHE"] = os.path.join(base, "gem-cache")
    try:
        first, cold = timed(lambda: rdx.Graph.open(make_app(base, versions), jobs=jobs))
        paths = [d.path for d in first.documents if d.library and d.path]
        parser = Parser(Language(tree_sitter_ruby.language()))

        def bare() -> int:
            total = 0
            for path in paths:
                with open(path, "rb") as f:
                    total += parser.parse(f.read()).root_node.end_byte
            return total

        size, baseline = timed(bare)
        second_root = make_app(base, versions)
        second, warm_gems = timed(lambda: rdx.Graph.open(second_root, jobs=jobs))
        _, resolve = timed(second.resolve)
        again, reopen = timed(lambda: rdx.Graph.open(second_root, jobs=jobs))
        stats = second.open_stats
        print(f"gems: {stats['gems']} ({len(paths)} files, {size / 1e6:.1f} MB); problems: {[d.code for d in second.diagnostics][:5]}")
        print(f"bare tree-sitter parse of the gem files (1 process): {baseline:.2f} s")
        print(f"first open, empty gem cache (locate, parse, cache):  {cold:.2f} s  ({cold / baseline:.2f}x the bare parse)")
        print(f"another project, warm gem cache ({stats['gems_cached']} cached, {stats['gem_files_parsed']} parsed): {warm_gems:.2f} s  ({warm_gems / baseline:.2f}x the bare parse)")
        print(f"resolve (app + gems, {len(second.declarations)} declarations): {resolve:.2f} s")
        print(f"reopen of that project (snapshot + resolved image: {again.open_stats['resolved']}): {reopen:.2f} s")
        post = again["Post"]
        print(f"Post ancestors resolved through the gems: {[a.name for a in post.ancestors][:4]} ... ({len(post.ancestors)} in all)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
