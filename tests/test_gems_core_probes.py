"""Load-time probes of Ruby's core that decide a branch (issue 22, the top-gems differential;
rdx.ruby.evaluate.branches with rdx.ruby.evaluate.core_methods): method_source includes
``ReeSourceLocation`` only ``if Proc.method_defined? :__file__`` (REE's method, which no CRuby
has), ``elsif defined?(RUBY_ENGINE) && RUBY_ENGINE =~ /jruby/``, else it defines CRuby's own
methods. ``method_defined?`` on a core class is answered from Ruby's core, ``defined?`` of a
core constant is true, and ``RUBY_ENGINE =~ /re/`` matches the regex against "ruby". Ruby is
the oracle (``check_against_ruby`` compares the targets' ancestors).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_differential_ruby import check_against_ruby

from rdx.ruby.evaluate.core_methods import core_constant, core_method_defined

METHOD_SOURCE = {
    "method_source.rb": """
        module MethodSource
          module ReeSourceLocation; end
          module Other; end
          module SourceLocation
            module MethodExtensions
              if Proc.method_defined? :__file__
                include ReeSourceLocation
              elsif defined?(RUBY_ENGINE) && RUBY_ENGINE =~ /jruby/
                include Other
              else
                def source_location = nil
              end
            end
            module ProcExtensions
              if Proc.method_defined?(:__file__)
                include ReeSourceLocation
              elsif defined?(RUBY_ENGINE) && RUBY_ENGINE =~ /rbx/
                include Other
              end
            end
          end
        end
    """,
    "probes.rb": """
        module Sums; end
        module Engines; end
        module Privates; end
        class Probed
          include Sums if ::Array.method_defined?(:sum)
          include Engines if RUBY_ENGINE =~ /ruby/ && defined?(RUBY_VERSION)
          include Privates if Kernel.public_method_defined?("puts")
          include Comparable unless defined?(::Proc)
        end
    """,
}


def test_core_probes_decide_branches(tmp_path: Path) -> None:
    check_against_ruby(
        tmp_path,
        METHOD_SOURCE,
        targets=["MethodSource::SourceLocation::MethodExtensions", "MethodSource::SourceLocation::ProcExtensions", "Probed"],
    )


@pytest.mark.parametrize(
    ("namespace", "method"),
    [("Proc", "__file__"), ("Proc", "curry"), ("Array", "sum"), ("Array", "each_slice"), ("String", "puts"), ("Object", "frozen?"),
     ("Kernel", "puts"), ("Comparable", "clamp"), ("Proc", "initialize"), ("Integer", "between?"), ("Hash", "to_json")],
)
def test_core_method_defined_is_rubys(namespace: str, method: str) -> None:
    import subprocess

    ruby = subprocess.run(["ruby", "--disable-gems", "-e", f"print {namespace}.method_defined?(:{method})"], capture_output=True, text=True, check=True)
    assert core_method_defined(namespace, method) == (ruby.stdout == "true")


def test_unknown_namespaces_and_constants_stay_unknown() -> None:
    assert core_method_defined("Nokogiri", "x") is None
    assert core_constant("RUBY_ENGINE") and core_constant("::Proc")
    assert not core_constant("Ripper") and not core_constant("Set")
