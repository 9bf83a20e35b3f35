"""Load order cases the top-gems differential found (issue 22; rdx.ruby.resolve.order
``split_requires``). Ruby is the oracle: ``check_against_ruby`` requires the files and compares
the targets' ancestors and constants with rdx's.
"""

from __future__ import annotations

from pathlib import Path

from test_differential_ruby import check_against_ruby

# representable: ``class Binding`` requires pipeline_factories.rb in its body, which reopens
# ``Binding`` through a compact name (``module Binding::Factories``); the core class
# ``::Binding`` must not be the one it finds.
REQUIRE_IN_A_CLASS_BODY = {
    "binding.rb": """
        module Representable
          class Binding
            module Deprecatable; end
            include Deprecatable
            require_relative "pipeline_factories"
            include Factories
          end
        end
    """,
    "pipeline_factories.rb": """
        module Representable
          module Binding::Factories
            def pipeline_for(name) = name
          end
        end
    """,
    "representable.rb": """
        require_relative "binding"
        module Representable
          class Binding::Map < Array; end
          module Hash
            class Binding < Representable::Binding; end
          end
        end
    """,
}


def test_a_require_in_a_class_body_reopens_that_class(tmp_path: Path) -> None:
    check_against_ruby(
        tmp_path,
        REQUIRE_IN_A_CLASS_BODY,
        targets=["Representable::Binding", "Representable::Binding::Factories", "Representable::Binding::Map", "Representable::Hash::Binding", "Binding"],
        methods=[("Representable::Binding", "pipeline_for")],
    )


# rack-oauth2's authorize.rb: its classes first (``Request`` includes ``ResponseMode`` in its
# body), then requires of the files that mix more into them (error.rb includes
# ``ErrorMethods``), which Ruby runs after the body: the later include comes first in the chain.
REQUIRES_AFTER_THE_CLASSES = {
    "authorize.rb": """
        module Server
          module ResponseMode; end
          class Authorize
            class Request
              include ResponseMode
            end
          end
        end
        require_relative "code"
        require_relative "error"
    """,
    "code.rb": """
        module Server
          module PKCE; end
          class Authorize
            class Code < Request
              include PKCE
            end
          end
        end
    """,
    "error.rb": """
        module Server
          class Authorize
            module ErrorMethods; end
            Request.include ErrorMethods
          end
        end
    """,
}


def test_requires_after_the_classes_come_after_them(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, REQUIRES_AFTER_THE_CLASSES, targets=["Server::Authorize::Request", "Server::Authorize::Code"])


# A require between two top-level bodies stays ahead of the file: the second body's include
# runs after the required file's.
REQUIRE_BETWEEN_BODIES = {
    "foo.rb": """
        module Foo; end
        require_relative "foo_base"
        module Foo
          include Helpers
        end
    """,
    "foo_base.rb": """
        module Foo
          module Helpers; end
          module Core; end
          include Core
        end
    """,
}


def test_a_require_between_bodies_comes_before_the_file(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, REQUIRE_BETWEEN_BODIES, targets=["Foo"])
