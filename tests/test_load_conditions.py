"""Load-time conditions around mixins and requires (issue 22, found by the top-gems
differential; rdx.ruby.evaluate.branches ``untaken_branches``): Ruby runs one branch of an
``if``/``elsif``/``else`` chain and skips a branch whose condition is false, so the mixins
written there must not reach the graph. Ruby is the oracle: each program is required by
``check_against_ruby``, which compares the targets' ancestors.
"""

from __future__ import annotations

from pathlib import Path

from test_differential_ruby import check_against_ruby

from rdx.ruby.discover.parse import discover_source

# log4r's rollingfileoutputter.rb ends with a demo that runs only as a script.
SCRIPT_GUARD = {
    "log4r.rb": """
        module Log4r
          class Outputter; end
        end
        if __FILE__ == $0
          include Log4r
        end
        class Demo
          include Comparable if $PROGRAM_NAME == __FILE__
          include Enumerable unless File.expand_path($0) == File.expand_path(__FILE__)
        end
    """,
}

# An engine chain whose conditions are all decided: Ruby takes the else branch (and the lone
# ``RUBY_ENGINE == "ruby"`` branch).
ENGINE_CHAIN = {
    "engines.rb": """
        module Engines
          module JRubyOnly; end
          module OldRuby; end
          module Fallback; end
          module Chosen
            if RUBY_ENGINE == "jruby"
              include JRubyOnly
            elsif RUBY_VERSION < "1.9"
              include OldRuby
            else
              include Fallback
            end
          end
          module Lone
            if defined?(JRUBY_VERSION)
              include JRubyOnly
            end
            include Fallback if RUBY_ENGINE == "ruby"
          end
        end
    """,
}

# method_source's source_location.rb: a probe of a method CRuby's Proc lacks, decided from Ruby's
# core (rdx.ruby.evaluate.core_methods; tests/test_gems_core_probes.py).
METHOD_PROBE = {
    "source_location.rb": """
        module MethodSource
          module ReeSourceLocation; end
          module Fallback; end
          module MethodExtensions
            if Proc.method_defined? :__file__
              include ReeSourceLocation
            else
              include Fallback
            end
          end
        end
    """,
}

# sass's multibyte_string_scanner.rb: a superclass per engine, the class reopened after.
ENGINE_SUPERCLASS = {
    "scanner.rb": """
        require "delegate"
        require "strscan"
        module Sass
          module Util
            def self.rbx? = RUBY_ENGINE == "rbx"
          end
        end
        if Sass::Util.rbx?
          class Sass::Util::MultibyteStringScanner < DelegateClass(StringScanner); end
        else
          class Sass::Util::MultibyteStringScanner < StringScanner; end
        end
        class Sass::Util::MultibyteStringScanner
          def check(pattern) = super
        end
    """,
}

# A lone branch with an unknown probe keeps its mixin (it may well be loaded), as before; so
# does a chain (haml's ``if defined?(Ripper) && ...`` with an else: Ripper is loaded).
UNKNOWN_PROBE = {
    "a.rb": """
        require "ripper"
        module Helpers; end
        class Task
          include Helpers if defined?(Helpers)
          if defined?(Ripper) && RUBY_VERSION >= "2.0.0"
            class SyntaxChecker < Ripper; end
          else
            class SyntaxChecker; end
          end
        end
    """,
}


def test_a_script_guard_is_false_in_a_required_file(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, SCRIPT_GUARD, targets=["Object", "Demo", "Log4r::Outputter"])


def test_one_branch_of_an_engine_chain_is_taken(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, ENGINE_CHAIN, targets=["Engines::Chosen", "Engines::Lone"])


def test_a_core_method_probe_is_decided(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, METHOD_PROBE, targets=["MethodSource::MethodExtensions"])


def test_the_superclass_is_the_taken_branch(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, ENGINE_SUPERCLASS, targets=["Sass::Util::MultibyteStringScanner"])


def test_a_lone_branch_with_an_unknown_probe_keeps_its_mixin(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, UNKNOWN_PROBE, targets=["Task", "Task::SyntaxChecker"])


def test_a_require_in_a_script_guard_is_not_followed_at_load_time() -> None:
    source = b'require_relative "b"\nif __FILE__ == $0\n  require_relative "c"\nend\n'
    requires = discover_source("file:///a.rb", source).requires
    assert [(r.path, r.deferred) for r in requires] == [("b", False), ("c", True)]
