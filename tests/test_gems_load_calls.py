"""Superclasses and mixins that a call made at load time gives, in the shapes the top-gems
differential found (issue 22): faraday's ``class ProxyOptions < Options.new(:uri, ...)``, where
``Options < Struct`` and ``new`` on a Struct subclass makes a subclass of it
(rdx.ruby.discover.definitions ``_new_of``, ``DefinitionRecord.superclass_new``), while
cucumber's ``class NameFilter < Filter.new(:x)``, ``Filter`` a module with a ``self.new`` of its
own, gives nothing rdx can know. Ruby is the oracle; the anonymous classes Ruby lists (the class
``new`` returned) have no name rdx could give, so both chains are compared without them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rubygen import Program
from test_differential_ruby import check_against_ruby, run_program
from test_incremental import dump, fresh

# ``#<Class:0x000...>`` as ``ruby_label`` spells it.
_ANONYMOUS = re.compile(r"^0x[0-9a-f]+::<0x[0-9a-f]+>$")


def _named_chains_agree(tmp_path: Path, files: dict[str, str], targets: list[str]) -> None:
    ruby, g, _ = run_program(Program(files=files, targets=targets), tmp_path)
    bad = []
    for expr, chain in ruby["A"].items():
        if expr.endswith("singleton_class"):
            continue
        expected = [a for a in chain if not _ANONYMOUS.match(a)]
        decl = g.get(expr)
        got = [a.name for a in decl.ancestors] if decl is not None else None
        if got != expected:
            bad.append(f"{expr}: ruby {expected}, rdx {got}")
    assert not bad, "rdx disagrees with Ruby:\n  " + "\n  ".join(bad)


STRUCT_SUBCLASS_NEW = {
    "options.rb": "module Faraday\n  class Options < Struct\n    def self.from(value) = value\n  end\nend\n",
    "proxy_options.rb": (
        "require_relative 'options'\n"
        "module Faraday\n"
        "  class ProxyOptions < Options.new(:uri, :user, :password)\n"
        "  end\n"
        "  module Request\n"
        "    class Retry\n"
        "      class Options < Faraday::Options.new(:max, :interval)\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "end\n"
    ),
    "filter.rb": (
        "module Filter\n"
        "  def self.new(*attributes) = Class.new { attr_reader(*attributes) }\n"
        "end\n"
        "class NameFilter < Filter.new(:names)\n"
        "end\n"
    ),
}


def test_new_on_a_struct_subclass_as_a_superclass_makes_a_subclass(tmp_path: Path) -> None:
    _named_chains_agree(tmp_path, STRUCT_SUBCLASS_NEW, ["Faraday::ProxyOptions", "Faraday::Request::Retry::Options", "NameFilter"])


# dry-container's Mixin: ``prepend Initializer`` in the ``base.class_eval`` block of its
# ``included`` hook (rdx.ruby.resolve.ancestors ``_deferred_prepends``), as in an ``included do``
# block of a concern; a subclass of the includer inherits the prepended module.
HOOK_PREPEND = {
    "mixin.rb": """
        module Dry
          class Container
            module Mixin
              module Initializer
                def initialize(*args, &block)
                  super
                end
              end
              def self.included(base)
                base.class_eval do
                  extend ::Enumerable
                  prepend Initializer
                  def config; end
                end
              end
            end
            include ::Dry::Container::Mixin
          end
          class Sub < Container; end
        end
    """,
}


def test_a_prepend_in_an_included_hook_prepends_to_the_includer(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, HOOK_PREPEND, targets=["Dry::Container", "Dry::Sub"])


# representable: json.rb requires json/collection.rb, whose Collection includes JSON, before it
# gives JSON its ``included`` hook and includes Hash into it. Ruby runs no hook at Collection's
# include (none is defined yet); Hash's, run when JSON includes Hash, includes Representable into
# JSON, and Ruby 3 propagates both into Collection (rdx.ruby.resolve.ancestors ``_hook_defined``,
# ``_run_late``).
HOOK_DEFINED_LATER = {
    "json.rb": """
        require_relative "hash"
        require_relative "json_collection"
        module Representable
          module JSON
            include Hash
            def self.included(base)
              base.class_eval do
                include Representable
              end
            end
          end
        end
    """,
    "hash.rb": """
        module Representable
          module Hash
            def self.included(base)
              base.class_eval do
                include Representable
              end
            end
          end
        end
    """,
    "json_collection.rb": """
        module Representable::JSON
          module Collection
            include Representable::JSON
          end
        end
        class Song
          include Representable::JSON::Collection
        end
    """,
}


def test_a_hook_defined_after_an_include_does_not_run_for_it(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, HOOK_DEFINED_LATER, targets=["Representable::JSON", "Representable::JSON::Collection", "Song"])


# A module that the include itself loads (``autoload``) has its hook when the include runs.
AUTOLOADED_HOOK = {
    "a.rb": """
        autoload :Tracked, File.join(__dir__, "z.rb")
        class Host
          include Tracked
        end
    """,
    "z.rb": """
        module Helper; end
        module Tracked
          def self.included(base)
            base.include Helper
          end
        end
    """,
}


def test_the_hook_of_a_module_the_include_loads_runs(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, AUTOLOADED_HOOK, targets=["Host"])


# ActiveSupport::TestCase prepends Testing::SetupAndTeardown, whose ``prepended(klass)`` hook
# includes Callbacks and extends ClassMethods; a module's ``extended(base)`` hook runs only when
# it is extended, never when it is included (rdx.ruby.resolve.loadcalls ``hook_run``).
HOOKS_BY_KIND = {
    "hooks.rb": """
        module Callbacks; end
        module Assertions; end
        module SetupAndTeardown
          def self.prepended(klass)
            klass.include Callbacks
            klass.extend ClassMethods
          end
          module ClassMethods; end
        end
        module Ext
          module Inner; end
          def self.extended(base)
            base.class_eval do
              extend Comparable
              include Inner
            end
          end
        end
        class TestCase
          include Assertions
          prepend SetupAndTeardown
        end
        class Host
          include Ext
        end
        module WithIncluded
          module Helper; end
          def self.included(base)
            base.include Helper
          end
        end
        class Extended
          extend WithIncluded
        end
    """,
}


def test_prepended_hooks_run_on_prepend_and_extended_hooks_not_on_include(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, HOOKS_BY_KIND, targets=["TestCase", "Host", "Extended"])


HOOK_FILES = {
    "file:///h/a.rb": "module Helper; end\nmodule Initializer; end\nmodule Mixin\n  def self.included(base)\n    base.class_eval do\n      include Helper\n      prepend Initializer\n    end\n  end\nend\n",
    "file:///h/b.rb": "class Host\n  include Mixin\nend\nclass Sub < Host; end\nclass Other\n  prepend Mixin\nend\n",
}


@pytest.mark.parametrize(
    "edit",
    [
        # The hook becomes another hook: same mixins at the same offsets, other runs.
        lambda t: t.replace("def self.included(base)", "def self.extended(base)"),
        lambda t: t.replace("def self.included(base)", "def self.prepended(base)"),
        lambda t: t.replace("def self.included(base)", "def self.something(base)"),
        # The hook's mixins change.
        lambda t: t.replace("prepend Initializer", "include Initializer"),
        lambda t: t.replace("      include Helper\n", ""),
    ],
)
def test_an_edited_hook_matches_a_fresh_graph(edit) -> None:
    files = dict(HOOK_FILES)
    g = fresh(files)
    files["file:///h/a.rb"] = edit(files["file:///h/a.rb"])
    assert files["file:///h/a.rb"] != HOOK_FILES["file:///h/a.rb"]
    g.index_source("file:///h/a.rb", files["file:///h/a.rb"])
    g.resolve()
    assert dump(g) == dump(fresh(files))


NEW_FILES = {
    "file:///n/a.rb": "class Options < Struct; end\nmodule Factory\n  def self.new(*a) = Class.new\nend\n",
    "file:///n/b.rb": "class ProxyOptions < Options.new(:uri)\n  def x; end\nend\nclass Leaf < ProxyOptions; end\n",
}


@pytest.mark.parametrize(
    ("uri", "old", "new"),
    [
        ("file:///n/b.rb", "< Options.new(:uri)", "< Options"),
        ("file:///n/b.rb", "< Options.new(:uri)", "< Factory.new(:uri)"),
        ("file:///n/a.rb", "class Options < Struct; end", "module Options; end"),
        ("file:///n/a.rb", "class Options < Struct; end", ""),
    ],
)
def test_an_edited_new_superclass_matches_a_fresh_graph(uri: str, old: str, new: str) -> None:
    files = dict(NEW_FILES)
    g = fresh(files)
    assert [a.name for a in g["Leaf"].ancestors][:3] == ["Leaf", "ProxyOptions", "Options"]
    files[uri] = files[uri].replace(old, new)
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))
