"""Load order cases the top-gems differential found (issue 22; rdx.ruby.resolve.order
``split_requires``). Ruby is the oracle: ``check_against_ruby`` requires the files and compares
the targets' ancestors and constants with rdx's.
"""

from __future__ import annotations

import glob
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


# ``autoload`` loads its file at the first load-time reference of the constant, not where it is
# written, nor in path order: Zmixer is reached first, so its mixin into Object lands first
# (lowest), and Amixer's above it. ``Never`` is registered but never reached while loading.
# The main file sorts first, so the harness's ``require_relative`` of every file loads it
# first, as a program's entry point would be.
AUTOLOADS = {
    "a_app.rb": """
        $LOAD_PATH.unshift(__dir__)
        module App
          autoload :Zmixer, "zmixer"
          autoload :Amixer, "amixer"
          module Deep
            autoload :Inner, "inner"
          end
        end
        class Thing
          include App::Zmixer
        end
        module App
          class Other
            include Amixer
            def later = Deep::Inner
          end
          module Deep
            class Uses
              include Inner
            end
          end
        end
    """,
    "amixer.rb": """
        module App::Amixer; end
        module AExt; end
        class Object
          include AExt
        end
    """,
    "inner.rb": """
        module App::Deep::Inner; end
        module IExt; end
        class Object
          include IExt
        end
    """,
    "zmixer.rb": """
        module App::Zmixer; end
        module ZExt; end
        class Object
          include ZExt
        end
    """,
}


def test_autoloaded_files_load_at_their_first_reference(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, AUTOLOADS, targets=["Object", "Thing", "App::Other", "App::Deep::Uses"])


# ActiveSupport::Autoload's ``autoload :Name`` (Rails' own files): the path is the qualified
# name underscored (``mylib/zeta``), inside ``eager_autoload do`` too.
AS_AUTOLOADS = {
    "a_lib.rb": """
        $LOAD_PATH.unshift(__dir__)
        $LOAD_PATH.unshift(*Dir["/usr/share/rubygems-integration/all/gems/{activesupport,concurrent-ruby,i18n}-*/lib{,/concurrent-ruby}"])
        require "active_support/dependencies/autoload"
        module Mylib
          extend ActiveSupport::Autoload
          autoload :Zeta
          eager_autoload do
            autoload :HTMLAlpha
          end
        end
        class Thing
          include Mylib::Zeta
          include Mylib::HTMLAlpha
        end
    """,
    "mylib/html_alpha.rb": """
        module Mylib::HTMLAlpha; end
        module AExt; end
        class Object
          include AExt
        end
    """,
    "mylib/zeta.rb": """
        module Mylib::Zeta; end
        module ZExt; end
        class Object
          include ZExt
        end
    """,
}


def test_activesupport_autoloads_derive_their_paths(tmp_path: Path) -> None:
    assert glob.glob("/usr/share/rubygems-integration/all/gems/activesupport-*/lib"), "needs Debian's ruby-activesupport (make system-deps)"
    check_against_ruby(tmp_path, AS_AUTOLOADS, targets=["Object", "Thing"])


def test_an_edit_that_reaches_another_autoload_moves_files_as_a_fresh_graph_would() -> None:
    """Which file an autoload pulls in, and where, follows the load-time references: an edit
    that makes a file reach another autoloaded constant first (without touching any require)
    reorders the files as a graph built from scratch orders them."""
    from test_incremental import dump

    import rdx

    files = {name: "\n".join(line[8:] for line in text.strip("\n").splitlines()) + "\n" for name, text in AUTOLOADS.items()}
    edited = files["a_app.rb"].replace("include App::Zmixer", "include App::Amixer")
    assert edited != files["a_app.rb"]
    g = rdx.Graph()
    for name in sorted(files):
        g.index_source(f"file:///p/{name}", files[name])
    g.resolve()
    before = [a.name for a in g["Object"].ancestors][:4]
    g.index_source("file:///p/a_app.rb", edited)
    g.resolve()
    fresh = rdx.Graph()
    for name in sorted(files):
        fresh.index_source(f"file:///p/{name}", edited if name == "a_app.rb" else files[name])
    fresh.resolve()
    assert [a.name for a in fresh["Object"].ancestors][:4] != before  # the edit does move files
    assert dump(g) == dump(fresh)
