"""Requires of computed paths and ActiveSupport's ``autoload_under`` (issue 22, top gems).

Sequel's ``Sequel.extension :symbol_as`` runs ``extensions.each { |e|
orig_require("sequel/extensions/#{e}") }``: the extension file loads where the call is, before
the rest of the calling file. rdx binds a load-time call with literal arguments to a method
whose body requires a path built from its parameter (``rdx.ruby.evaluate.computed``) and the
load order requires that path there (``LoadOrder.computed``). ``autoload_under "dir" do
autoload :X end`` autoloads ``namespace/dir/x``, ``autoload_at "path" do autoload :X end``
``path`` (ActiveSupport::Autoload). Ruby, loading a miniature gem with the same loader shape,
is the oracle; edits must give what a graph built from scratch gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_ruby
from test_incremental import dump, fresh

import rdx

# A miniature gem with Sequel's loader: core.rb requires an extension by a computed path before
# its ``class Symbol`` body, so the extension's include comes first (lowest) in Symbol's chain.
MINI = {
    "lib/mini.rb": """module Mini
  module MiniMethods
    def extension(*extensions)
      extensions.each { |e| orig_require("mini/extensions/#{e}") }
    end
  end
  extend MiniMethods

  class << self
    alias orig_require require
    private :orig_require

    def plugin(name)
      require "mini/plugins/#{name}.rb"
    end
  end
end
""",
    "lib/mini/extensions/core.rb": """Mini.extension :zeta_alias
module Mini
  module CastMethods; end
end
class Symbol
  include Mini::CastMethods
end
""",
    "lib/mini/extensions/zeta_alias.rb": """module Mini
  module AliasMethods; end
end
class Symbol
  include Mini::AliasMethods
end
""",
    "lib/mini/extensions/blank.rb": """module Mini
  module Blank; end
end
class Symbol
  include Mini::Blank
end
""",
    "lib/mini/plugins/apply.rb": """module Mini
  module Applied; end
end
class Symbol
  include Mini::Applied
end
""",
    "lib/mini/all.rb": """module Mini
  module First; end
  class ::Symbol
    include First
  end
  Mini.extension(:blank, "core")
  Mini.plugin :apply
end
""",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _ruby_chain(tmp_path: Path, files: dict[str, str], script: str, name: str) -> list[str]:
    root = tmp_path / "ruby"
    _write(root, files)
    out = run_ruby(f'$LOAD_PATH.unshift "{root}/lib"\n{script}\nputs {name}.ancestors.select {{ |m| m.name.to_s.start_with?("Mini") }}.join(",")\n', tmp_path)
    return out.strip().split(",")


def _uris(files: dict[str, str]) -> dict[str, str]:
    return {f"file:///gem/{name}": text for name, text in files.items()}


def _mini_chain(g) -> list[str]:  # type: ignore[no-untyped-def]
    return [a.name for a in g["Symbol"].ancestors if a.name.startswith("Mini")]


def test_an_extension_required_by_a_computed_path_loads_where_it_is_called(tmp_path: Path) -> None:
    """all.rb includes First, then ``Mini.extension(:blank, "core")`` loads blank.rb and
    core.rb, which first loads zeta_alias.rb; ``Mini.plugin :apply`` (a positional parameter,
    with a suffix) loads apply.rb. By path order zeta_alias.rb would load after core.rb."""
    ruby = _ruby_chain(tmp_path, MINI, 'require "mini"\nrequire "mini/all"', "Symbol")
    assert ruby == ["Mini::Applied", "Mini::CastMethods", "Mini::AliasMethods", "Mini::Blank", "Mini::First"]
    assert _mini_chain(fresh(_uris(MINI))) == ruby


SEQUEL = Path("/usr/lib/ruby/vendor_ruby/sequel")


@pytest.mark.skipif(not (SEQUEL / "extensions" / "core_extensions.rb").exists(), reason="Debian's ruby-sequel")
def test_sequels_core_extensions_load_symbol_as_first(tmp_path: Path) -> None:
    """Sequel itself: core_extensions.rb runs ``Sequel.extension :symbol_as`` (the method of
    ``SequelMethods``, which ``Sequel`` extends) before ``class Symbol; include ...``, so
    ``AliasMethods`` sits below the modules core_extensions.rb includes."""
    script = f'$LOAD_PATH.unshift "{SEQUEL.parent}"\nrequire "sequel"\nSequel.extension :symbol_aref, :core_extensions\nputs Symbol.ancestors.join(",")\n'
    ruby = run_ruby(script, tmp_path).strip().split(",")
    assert ruby.index("Sequel::SQL::AliasMethods") == ruby.index("Sequel::SQL::CastMethods") + 1
    g = rdx.Graph()
    g.index_all([SEQUEL, SEQUEL.parent / "sequel.rb"], jobs=1)
    g.resolve()
    chain = [a.name for a in g["Symbol"].ancestors]
    # rdx also holds the modules of the extensions Ruby did not load (pg_array_ops...).
    assert [n for n in chain if n in ruby] == ruby


def test_a_call_no_template_binds_requires_nothing(tmp_path: Path) -> None:
    """``Other.extension :zeta_alias`` names no method that requires a computed path: the
    files keep path order (core.rb before zeta_alias.rb), as Ruby loads them one by one."""
    files = {**MINI, "lib/mini/extensions/core.rb": MINI["lib/mini/extensions/core.rb"].replace("Mini.extension", "Other.extension")}
    files["lib/mini/other.rb"] = "module Other\n  def self.extension(*names) = names\nend\n"
    script = 'require "mini"\nrequire "mini/other"\nrequire "mini/extensions/core"\nrequire "mini/extensions/zeta_alias"'
    ruby = _ruby_chain(tmp_path, {k: v for k, v in files.items() if k != "lib/mini/all.rb"}, script, "Symbol")
    assert ruby == ["Mini::AliasMethods", "Mini::CastMethods"]
    g = fresh(_uris({k: v for k, v in files.items() if k not in ("lib/mini/all.rb", "lib/mini/extensions/blank.rb", "lib/mini/plugins/apply.rb")}))
    assert _mini_chain(g) == ruby


EDITS = [
    ("the call is added", "lib/mini/extensions/core.rb", lambda t: t.replace("Mini.extension :zeta_alias\n", ""), lambda t: t),
    ("the call is removed", "lib/mini/extensions/core.rb", lambda t: t, lambda t: t.replace("Mini.extension :zeta_alias\n", "")),
    ("the template changes", "lib/mini.rb", lambda t: t, lambda t: t.replace('orig_require("mini/extensions/#{e}")', 'orig_require("mini/other/#{e}")')),
    ("the alias goes", "lib/mini.rb", lambda t: t, lambda t: t.replace("alias orig_require require\n", "")),
]


@pytest.mark.parametrize(("name", "path", "old", "new"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_matches_a_fresh_graph(name: str, path: str, old, new) -> None:  # type: ignore[no-untyped-def]
    files = _uris(MINI)
    uri = f"file:///gem/{path}"
    files[uri] = old(files[uri])
    g = fresh(files)
    files[uri] = new(files[uri])
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))


def test_an_added_file_that_calls_the_loader_matches_a_fresh_graph() -> None:
    files = _uris({k: v for k, v in MINI.items() if k != "lib/mini/all.rb"})
    g = fresh(files)
    uri = "file:///gem/lib/mini/all.rb"
    files[uri] = MINI["lib/mini/all.rb"]
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))
    del files[uri]
    g.delete_document(uri)
    g.resolve()
    assert dump(g) == dump(fresh(files))


# ActiveSupport::Autoload's path rules, written out (the oracle runs them, rdx reads the calls).
AUTOLOADING = {
    "lib/mylib/autoload.rb": """module Mylib
  module Autoload
    def autoload(const_name, path = @_at_path)
      unless path
        full = [name, @_under_path, const_name.to_s].compact.join("::")
        path = full.gsub("::", "/").gsub(/([a-z\\\\d])([A-Z])/, '\\\\1_\\\\2').downcase
      end
      super(const_name, path)
    end

    def autoload_under(path)
      @_under_path, old = path, @_under_path
      yield
    ensure
      @_under_path = old
    end

    def autoload_at(path)
      @_at_path, old = path, @_at_path
      yield
    ensure
      @_at_path = old
    end
  end
end
""",
    "lib/mylib.rb": """require "mylib/autoload"
module Mylib
  extend Mylib::Autoload
  autoload_under "parts" do
    autoload :SmallWidget
  end
  autoload_at "mylib/at/all" do
    autoload :Gadget
  end
end
""",
    "lib/mylib/parts/small_widget.rb": "module Mylib\n  module SmallWidget; end\nend\nclass Object\n  include Mylib::SmallWidget\nend\n",
    "lib/mylib/at/all.rb": "module Mylib\n  module Gadget; end\nend\nclass Object\n  include Mylib::Gadget\nend\n",
    "lib/mylib/a_user.rb": "USED = [Mylib::Gadget, Mylib::SmallWidget]\nmodule Mylib\n  module User; end\nend\nclass Object\n  include Mylib::User\nend\n",
}


def test_autoload_under_and_autoload_at_name_the_files_that_load(tmp_path: Path) -> None:
    """a_user.rb's first lines reach both autoloaded constants, so Ruby loads all.rb and
    parts/small_widget.rb before a_user.rb includes ``User``. Without the blocks' paths the
    autoloads name mylib/gadget.rb and mylib/small_widget.rb, which do not exist, and path
    order puts a_user.rb first."""
    root = tmp_path / "ruby"
    _write(root, AUTOLOADING)
    out = run_ruby(f'$LOAD_PATH.unshift "{root}/lib"\nrequire "mylib"\nrequire "mylib/a_user"\nputs Object.ancestors.select {{ |m| m.name.to_s.start_with?("Mylib") }}.join(",")\n', tmp_path)
    ruby = out.strip().split(",")
    assert ruby == ["Mylib::User", "Mylib::SmallWidget", "Mylib::Gadget"]
    g = fresh(_uris(AUTOLOADING))
    assert [a.name for a in g["Object"].ancestors if a.name.startswith("Mylib")] == ruby


@pytest.mark.parametrize("edit", [("parts", "other"), ('autoload_at "mylib/at/all"', 'autoload_at "mylib/at/none"')])
def test_an_edit_of_an_autoload_block_matches_a_fresh_graph(edit: tuple[str, str]) -> None:
    files = _uris(AUTOLOADING)
    uri = "file:///gem/lib/mylib.rb"
    g = fresh(files)
    files[uri] = files[uri].replace(*edit)
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))


def test_only_calls_that_could_require_are_recorded() -> None:
    """A load-time call with literal arguments is recorded for the load order, one record per
    argument; ``new``, calls on Ruby's core classes, calls with a block and calls in method
    bodies are not (they change nothing a template could bind, and every record of a document
    is compared when it is edited)."""
    from rdx.ruby.discover.parse import discover_source

    source = b"""Point = Struct.new(:x, :y)
PATTERN = Regexp.escape("a.b")
Mini.extension(:a, "b")
Mini.on_load(:x) { }
def later = Mini.extension(:c)
"""
    doc = discover_source("file:///c.rb", source, "/c.rb")
    assert [(r.path, r.constant, r.deferred) for r in doc.requires if r.constant] == [("a", "Mini.extension", False), ("b", "Mini.extension", False)]
