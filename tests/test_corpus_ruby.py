"""Differential test on real code: Ruby loads the Debian corpus (stdlib, Rails, RuboCop) and
reports the ancestors of every named module it defined there; rdx indexes exactly the files
Ruby loaded and must agree, with the ancestors restricted to modules defined in the corpus.

What rdx cannot see statically is listed here, each with its reason; everything else must match.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import rdx

PROBE = Path(__file__).parent / "data" / "corpus_probe.rb"
CORPUS_ROOTS = ("/usr/lib/ruby", "/usr/share/rubygems-integration")

# Loads the whole Debian Ruby corpus in Ruby and rdx: the full tier only (make test).
pytestmark = pytest.mark.corpus

# Modules that the corpus mixes in with code rdx does not evaluate.
# None left: ``[Object, Array, ...].reverse_each { |klass| klass.prepend(ToJsonWithActiveSupportEncoder) }``
# is unrolled (rdx.ruby.evaluate.loops), and the load-time calls ``ActiveSupport::Dependencies.hook!``
# (Loadable, Blamable, ModuleConstMissing) and did_you_mean's ``correct_error NameError, ...``
# (Correctable) are inlined (rdx.ruby.evaluate.loadtime): those modules are compared like any other.
DYNAMIC_MIXINS: set[str] = set()
# Namespaces whose classes get their superclass from a constant chosen at load time
# (``FooImplementation = case ... end; class Foo < FooImplementation``) or from const_set.
DYNAMIC_PREFIXES = ("Arel::Nodes::",)
# Modules built by ``include SomeModule.new(...)`` (a module instance, not a constant).
DYNAMIC_INSTANCE_MIXINS = {"ActiveModel::Type::Helpers::AcceptsMultiparameterTime::InstanceMethods"}
# Classes whose chains Ruby builds with code rdx does not run. FIXME entries, each with its cause.
# ToJsonWithActiveSupportEncoder is prepended to both Object and Enumerable: whether Ruby keeps one
# copy or two in a class that includes Enumerable depends on whether the include ran before the
# prepend (load order), which rdx does not model (every file counts as loaded).
_TWICE_PREPENDED = "a module prepended to Object and to Enumerable appears once or twice by load order"
KNOWN_DIFFERENT = {
    "ActionController::MiddlewareStack": _TWICE_PREPENDED,
    # Since autoloads load at their first reference (rdx.ruby.resolve.order), callbacks.rb
    # (``autoload :Callbacks``) comes after object/json.rb, which prepends the encoder.
    "ActiveSupport::Callbacks::CallbackChain": _TWICE_PREPENDED,
    "ActiveSupport::Dependencies::WatchStack": _TWICE_PREPENDED,
    "ActiveSupport::DescendantsTracker::DescendantsArray": _TWICE_PREPENDED,
    "ActiveSupport::Gzip::Stream": _TWICE_PREPENDED,
    "Mail::Header": _TWICE_PREPENDED,
    "Mime::Mimes": _TWICE_PREPENDED,
    "ActiveRecord::Base": "Generated*Methods modules are Module.new'd inside methods",
    "TZInfo::DateTimeWithOffset": "DateTime is defined by the date C extension, which rdx cannot read",
    "Test::Unit::TestCase": "handlers are included from a self.included hook",
    "Thor": "Thor::Base.included(base) calls base.send(:include, ...)",
}
# Constants Ruby creates with const_set, Struct.new("Name") or in files tree-sitter-ruby cannot parse.
KNOWN_MISSING_PREFIXES = (
    "Resolv::DNS::Resource::IN::", "OpenSSL::Digest::", "Struct::",
    "ActiveRecord::Base::Generated", "ActionController::Base::HelperMethods", "ActionMailer::Base::HelperMethods",
    "ActionMailer::Rescuable::ClassMethods",
    "RuboCop::AST::Builder",  # FIXME: tree-sitter-ruby 0.23 fails on the file's hash literal.
)
# FIXME: mixins applied to one class from several files land in load order, which rdx does not
# know (it orders documents by path). Same modules, different order, at most this many classes.
MAX_LOAD_ORDER_DIFFERENCES = 5
# Ruby 3.1's gem_prelude requires error_highlight before did_you_mean, and so does rdx's core
# stub (rdx/data/core.rb), which comes first in load order: NameError's chain has Correctable
# before ErrorHighlight::CoreExt as in Ruby. FIXME: one pair is still loaded the wrong way round.
# Ruby loads active_support/core_ext/module/concerning.rb (through active_support/all, which the
# probe requires first) before active_support/dependencies.rb (an autoload, first touched later;
# its last line runs ``hook!``), so Module has ModuleConstMissing before Module::Concerning, which
# every singleton class's chain shows. rdx walks roots in URI order, and actionpack's
# abstract_controller/helpers.rb (``require "active_support/dependencies"``) sorts before
# activesupport's own files: dependencies.rb comes first. Walking activesupport's roots before
# actionpack's would fix it (checked), but no general rule gives that order: ordering libraries
# (gem directories) by their cross-library requires meets cycles in this corpus (the stdlib and
# vendor_ruby require gems: mail.rb requires mini_mime, and ``require "readline"`` matches thor's
# line_editor/readline.rb by suffix), so only the program's entry point, which rdx does not
# know, decides. The assertions put the pair in Ruby's order; the figure without skips counts
# it as it is.
LOAD_ORDER_SWAPS = (
    ("Module::Concerning", "ActiveSupport::Dependencies::ModuleConstMissing"),
)


def _as_loaded(chain: list[str]) -> list[str]:
    """``chain`` with each pair of LOAD_ORDER_SWAPS, where adjacent in rdx's order, swapped."""
    out = list(chain)
    for first, second in LOAD_ORDER_SWAPS:
        for i in range(len(out) - 1):
            if out[i] == first and out[i + 1] == second:
                out[i], out[i + 1] = second, first
    return out


@pytest.fixture(scope="module")
def ruby_and_rdx(tmp_path_factory):
    ruby = shutil.which("ruby")
    assert ruby, "ruby is required (make test installs it)"
    assert any(os.path.isdir(r) for r in CORPUS_ROOTS), "the Debian corpus is required (make system-deps)"
    features = tmp_path_factory.mktemp("corpus") / "features.txt"
    proc = subprocess.run(
        [ruby, str(PROBE)], capture_output=True, text=True, timeout=300, env={**os.environ, "FEATURES_OUT": str(features)}
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    files = features.read_text().split()
    g = rdx.Graph()
    problems = g.index_all(files)
    g.resolve()
    return rows, files, g, problems


def _expected_mismatch(name: str, ruby_chain: list[str], rdx_chain: list[str]) -> bool:
    if name.startswith(DYNAMIC_PREFIXES):
        return True
    differing = set(ruby_chain) ^ set(rdx_chain)
    involved = differing | {a for a in ruby_chain if a.startswith(DYNAMIC_PREFIXES)}
    return bool(involved & DYNAMIC_INSTANCE_MIXINS) or any(a.startswith(DYNAMIC_PREFIXES) for a in involved)


def test_ruby_loaded_a_real_corpus(ruby_and_rdx):
    rows, files, g, problems = ruby_and_rdx
    assert len(rows) > 2500 and len(files) > 1500
    names = {r["name"] for r in rows}
    for expected in ("ActiveRecord::Base", "ActionController::Base", "RuboCop::Cop::Base", "Set", "OptionParser"):
        assert expected in names


def test_ancestors_match_ruby_on_the_corpus(ruby_and_rdx):
    rows, _, g, _ = ruby_and_rdx
    corpus = {r["name"] for r in rows} - DYNAMIC_MIXINS
    matched = 0
    unexpected = []
    order_only = []
    static_matched = 0
    explained = 0
    for row in rows:
        name = row["name"]
        ruby_chain = [a for a in row["ancestors"] if a in corpus]
        decl = g.get(name)
        if decl is None:
            if not name.startswith(DYNAMIC_PREFIXES + KNOWN_MISSING_PREFIXES):
                unexpected.append(f"{name}: missing in rdx (defined in {row['file']})")
            continue
        rdx_chain = _as_loaded([a.name for a in decl.ancestors if a.name in corpus])
        if rdx_chain == ruby_chain:
            matched += 1
            static_matched += not name.startswith(DYNAMIC_PREFIXES + KNOWN_MISSING_PREFIXES)
        elif sorted(rdx_chain) == sorted(ruby_chain):
            order_only.append(name)
        elif name in KNOWN_DIFFERENT or _expected_mismatch(name, ruby_chain, rdx_chain):
            explained += not name.startswith(DYNAMIC_PREFIXES + KNOWN_MISSING_PREFIXES)
        else:
            unexpected.append(f"{name}: ruby {ruby_chain[:8]} rdx {rdx_chain[:8]}")
    assert unexpected == []
    assert len(order_only) <= MAX_LOAD_ORDER_DIFFERENCES, order_only
    static = [r for r in rows if not r["name"].startswith(DYNAMIC_PREFIXES + KNOWN_MISSING_PREFIXES)]
    # Every module outside the dynamic namespaces matches, but for the explained cases above.
    # Every module outside the dynamic namespaces either matches or is explained above.
    assert static_matched + explained + len(order_only) >= len(static), (static_matched, explained, len(order_only), len(static))
    assert explained <= 20, explained
    print(f"corpus: {matched} of {len(rows)} modules match Ruby exactly; {static_matched} of {len(static)} outside dynamic namespaces")
    # The figure without skipping anything: the dynamic mixins count like any other module.
    every = {r["name"] for r in rows}
    unskipped = swapped = 0
    for row in rows:
        decl = g.get(row["name"])
        if decl is not None:
            ours, theirs = [a.name for a in decl.ancestors if a.name in every], [a for a in row["ancestors"] if a in every]
            unskipped += ours == theirs
            swapped += _as_loaded(ours) == theirs
    print(f"corpus without skips: {unskipped} of {len(rows)} modules match Ruby exactly ({swapped} with LOAD_ORDER_SWAPS)")
    # Issue 14 asked for at least 97% without skipping anything; 3,590 of 3,632 (98.8%) matched
    # when it closed. The Debian corpus is fixed, so a drop is a regression.
    assert unskipped >= 0.985 * len(rows), (unskipped, len(rows))


def test_key_framework_classes_match_exactly(ruby_and_rdx):
    rows, _, g, _ = ruby_and_rdx
    corpus = {r["name"] for r in rows} - DYNAMIC_MIXINS
    by_name = {r["name"]: r for r in rows}
    for name in ("RuboCop::Cop::Base", "ActiveModel::Model", "ActiveSupport::Logger", "Rake::Task", "ActiveRecord::Relation",
                 "ActionView::Base", "ActiveJob::Base", "ActionDispatch::Request", "OptionParser::Switch::NoArgument"):
        if name not in by_name:
            continue
        ruby_chain = [a for a in by_name[name]["ancestors"] if a in corpus]
        assert [a.name for a in g[name].ancestors if a.name in corpus] == ruby_chain, name


def test_singleton_class_ancestors_mostly_match_ruby(ruby_and_rdx):
    """``Foo.singleton_class.ancestors``: extend, ``class << self``, superclass singletons, and
    ActiveSupport::Concern's ClassMethods. FIXME: ``def self.included(base) base.extend(X)``
    hooks (Singleton, Rails::Initializable, ...) and load-order-dependent extends still differ."""
    rows, _, g, _ = ruby_and_rdx
    corpus = {r["name"] for r in rows} - DYNAMIC_MIXINS
    names = corpus | {f"{n}::<{n.split('::')[-1]}>" for n in corpus} | {"Class", "Module", "Object", "Kernel", "BasicObject"}
    considered = matched = 0
    for row in rows:
        decl = g.get(row["name"])
        if decl is None or row["name"].startswith(DYNAMIC_PREFIXES) or row["name"] in KNOWN_DIFFERENT:
            continue
        considered += 1
        ruby_chain = [a for a in row["singleton_ancestors"] if a in names]
        rdx_chain = _as_loaded([a.name for a in decl.singleton_class.ancestors if a.name in names])
        matched += rdx_chain == ruby_chain
    print(f"corpus singleton classes: {matched} of {considered} match Ruby")
    assert matched / considered > 0.94
