"""Directory globs that require files (issue 22, the top-gems differential): ActiveSupport's
core_ext.rb is ``Dir.glob(File.expand_path("core_ext/*.rb", __dir__)).sort.each do |path|
require path end``, so core_ext/object/json.rb (which prepends ``ToJsonWithActiveSupportEncoder``
to ``Object`` and ``Enumerable``) loads before callbacks.rb, which ActiveSupport autoloads later:
``CallbackChain``'s ``include Enumerable`` then skips the encoder that ``Object`` has already.
Without the glob, rdx read callbacks.rb first (URI order). rdx.ruby.evaluate.globs reads the
pattern; rdx.ruby.resolve.order requires the files it matches, in name order. Ruby is the
oracle (``check_against_ruby`` requires the files in name order); edits must give what a
graph built from scratch gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_differential_ruby import check_against_ruby
from test_incremental import dump, fresh

from rdx.ruby.discover.parse import RubyParser

GLOBBED = {
    "a_all.rb": """
        Dir.glob(File.expand_path("core/*.rb", __dir__)).sort.each do |path|
          require path
        end
    """,
    "callbacks.rb": """
        class CallbackChain
          include Enumerable
        end
    """,
    "core/json.rb": """
        module ToJson; end
        [Enumerable, Object].reverse_each { |k| k.prepend(ToJson) }
    """,
    "core/later.rb": """
        module Later; end
        class Object
          include Later
        end
    """,
}


def test_a_glob_requires_the_files_it_lists_in_name_order(tmp_path: Path) -> None:
    check_against_ruby(tmp_path, GLOBBED, targets=["CallbackChain", "Object"])


@pytest.mark.parametrize(
    ("source", "pattern"),
    [
        ('Dir.glob(File.expand_path("core_ext/*.rb", __dir__)).sort.each do |path|\n  require path\nend\n', "core_ext/*.rb"),
        ('Dir["#{__dir__}/x/*.rb"].each { |f| require f }\n', "x/*.rb"),
        ('Dir.glob(File.join(__dir__, "y/*.rb")).each { |f| require f }\n', "y/*.rb"),
        ('Dir.glob(File.expand_path("../z/*.rb", __FILE__)).each { |f| require_relative f }\n', "z/*.rb"),
        # Not read: a recursive glob, a pattern from elsewhere, another block parameter.
        ('Dir.glob(File.expand_path("**/*.rb", __dir__)).each { |f| require f }\n', None),
        ("Dir.glob(PATTERN).each { |f| require f }\n", None),
        ('Dir.glob(File.expand_path("x/*.rb", __dir__)).each_with_index { |f, i| require i }\n', None),
    ],
)
def test_glob_patterns_read(source: str, pattern: str | None) -> None:
    requires = RubyParser().discover("file:///t/a.rb", source.encode(), "/t/a.rb").requires
    assert [r.path for r in requires] == ([pattern] if pattern else [])


def _files() -> dict[str, str]:
    return {f"file:///g/{name}": "\n".join(line[8:] for line in text.strip("\n").splitlines()) + "\n" for name, text in GLOBBED.items()}


def test_a_file_the_glob_lists_added_or_removed_matches_a_fresh_graph() -> None:
    files = _files()
    g = fresh(files)
    added = [
        ("file:///g/core/b_more.rb", "module More; end\n"),
        ("file:///g/other/c.rb", "module Other; end\n"),
        ("file:///g/core/c_more.rb", "module More2; end\nclass Object\n  include More2\nend\n"),
    ]
    for uri, text in added:
        files[uri] = text
        g.index_source(uri, text)
        g.resolve()
        assert dump(g) == dump(fresh(files))
    for uri in ["file:///g/core/b_more.rb", "file:///g/core/later.rb", "file:///g/core/c_more.rb"]:
        del files[uri]
        g.delete_document(uri)
        g.resolve()
        assert dump(g) == dump(fresh(files))
