"""Constants looked up while a file loads, before the file that defines them has loaded
(issue 22, the top-gems differential): pry's ``class LastException < BasicObject`` is read
before pry/basic_object.rb defines ``Pry::BasicObject``, so its superclass is ``::BasicObject``;
liquid's ``TranslationError = Class.new(StandardError)`` in ``Liquid::I18n`` is read before
liquid/errors.rb defines ``Liquid::StandardError``. ``Lookup.defined_after`` passes over a
constant every definition of which comes later in load order (further down the same file, or
in a file loaded later), unless the file requires, before the lookup, files that load after it
yet run inside its body (``order.loads_others_before``). Ruby is the oracle
(``check_against_ruby`` requires the files in name order); edits must give what a graph built
from scratch gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_differential_ruby import check_against_ruby
from test_incremental import dump, fresh

LATER_FILES = {
    "a_main.rb": """
        require_relative "pry/last_exception"
        require_relative "liquid/i18n"
        require_relative "pry/basic_object"
        require_relative "liquid/errors"
    """,
    "pry/last_exception.rb": """
        class Pry
          class LastException < BasicObject
            def wrapped = 1
          end
        end
    """,
    "pry/basic_object.rb": """
        class Pry
          class BasicObject < BasicObject
            include ::Kernel
          end
        end
    """,
    "liquid/i18n.rb": """
        module Liquid
          class I18n
            TranslationError = Class.new(StandardError)
          end
        end
    """,
    "liquid/errors.rb": """
        module Liquid
          class Error < ::StandardError; end
          StandardError = Class.new(Error)
          class Later < StandardError; end
        end
    """,
}


def test_a_constant_defined_in_a_file_loaded_later_is_not_there_yet(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, LATER_FILES, targets=["Pry::LastException", "Pry::BasicObject", "Liquid::I18n::TranslationError", "Liquid::Later"])


# The controls: a file that a class body requires runs before the rest of that body although
# it comes after the file in load order (``split_requires``), and an autoloaded constant loads
# its file at its first reference: both define the constant before the lookup.
LOADED_INSIDE = {
    "a_main.rb": """
        $LOAD_PATH.unshift(__dir__)
        class Base; end
        module Kit
          class Widget
            require_relative "kit/base"
            class Part < Base; end
          end
          autoload :Base, "kit/top_base"
          class Tool < Base; end
        end
    """,
    "kit/base.rb": """
        module Kit
          class Widget
            class Base; end
          end
        end
    """,
    "kit/top_base.rb": """
        module Kit
          class Base; end
        end
    """,
}


def test_files_loaded_inside_a_body_or_autoloaded_are_there(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, LOADED_INSIDE, targets=["Kit::Widget::Part", "Kit::Tool"])


def _files(files: dict[str, str]) -> dict[str, str]:
    return {f"file:///o/{name}": "\n".join(line[8:] for line in text.strip("\n").splitlines()) + "\n" for name, text in files.items()}


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        # The file defining the constant loads first now.
        ("a_main.rb", 'require_relative "pry/last_exception"\n', ""),
        ("a_main.rb", 'require_relative "liquid/errors"\n', ""),
        # The later definition goes, or another one comes in an earlier file.
        ("pry/basic_object.rb", "  class BasicObject < BasicObject\n    include ::Kernel\n  end\n", ""),
        ("pry/last_exception.rb", "class Pry\n", "class Pry\n  class BasicObject < BasicObject; end\n"),
        # A definition further down, and one required inside the body before the lookup.
        ("pry/last_exception.rb", "  end\nend\n", "  end\n  class BasicObject < BasicObject; end\nend\n"),
        ("pry/last_exception.rb", "class Pry\n", 'class Pry\n  require_relative "basic_object"\n'),
        ("liquid/i18n.rb", "  class I18n\n", '  require_relative "errors"\n  class I18n\n'),
    ],
)
def test_an_edit_matches_a_fresh_graph(name: str, old: str, new: str) -> None:
    files = _files(LATER_FILES)
    g = fresh(files)
    assert [a.name for a in g["Pry::LastException"].ancestors][:2] == ["Pry::LastException", "BasicObject"]
    uri = f"file:///o/{name}"
    assert old in files[uri]
    files[uri] = files[uri].replace(old, new)
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))


def test_an_added_file_matches_a_fresh_graph() -> None:
    files = _files(LATER_FILES)
    g = fresh(files)
    for uri, text in [("file:///o/0.rb", "class Pry\n  class BasicObject < BasicObject; end\nend\n"), ("file:///o/z.rb", "module Liquid\n  StandardError = 1\nend\n")]:
        files[uri] = text
        g.index_source(uri, text)
        g.resolve()
        assert dump(g) == dump(fresh(files))


def test_a_require_moved_into_the_body_matches_a_fresh_graph() -> None:
    """A require of a file loaded already, moved into the class body ahead of the lookup: the
    order stays, but which later files may run before the lookup is read from where the
    file's requires stand (``order.loads_others_before``)."""
    files = _files(LATER_FILES)
    files["file:///o/a_main.rb"] = 'require_relative "pry/version"\n' + files["file:///o/a_main.rb"]
    files["file:///o/pry/version.rb"] = "class Pry\n  VERSION = 1\nend\n"
    uri = "file:///o/pry/last_exception.rb"
    files[uri] = 'require_relative "version"\n' + files[uri]
    g = fresh(files)
    files[uri] = files[uri].replace('require_relative "version"\nclass Pry\n', 'class Pry\n  require_relative "version"\n')
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))


# Files no require connects (rspec-mocks' any_instance.rb requires its files in a loop rdx does
# not read): their order is a guess (URI order), so a definition in the later one still counts.
UNCONNECTED = {
    "file:///u/a.rb": "module Mocks\n  class StubChain; end\n  module AnyInstance\n    class ExpectChainChain < StubChain; end\n  end\nend\n",
    "file:///u/b.rb": "module Mocks\n  module AnyInstance\n    class StubChain; end\n  end\nend\n",
}


def test_files_no_require_connects_keep_every_definition() -> None:
    g = fresh(UNCONNECTED)
    assert [a.name for a in g["Mocks::AnyInstance::ExpectChainChain"].ancestors][:2] == ["Mocks::AnyInstance::ExpectChainChain", "Mocks::AnyInstance::StubChain"]


@pytest.mark.parametrize("require", ['require_relative "b"\n', 'module Mocks\n  require_relative "b"\nend\n'])
def test_a_require_that_connects_two_files_matches_a_fresh_graph(require: str) -> None:
    files = dict(UNCONNECTED)
    g = fresh(files)
    files["file:///u/a.rb"] += require
    g.index_source("file:///u/a.rb", files["file:///u/a.rb"])
    g.resolve()
    assert dump(g) == dump(fresh(files))
    assert [a.name for a in g["Mocks::AnyInstance::ExpectChainChain"].ancestors][1] == "Mocks::StubChain"
