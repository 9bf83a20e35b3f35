"""ActiveSupport::Concern's ``class_methods do ... end``: the block is ``module_eval``'d in the
concern's ``ClassMethods`` (created when absent), so its methods, accessors, aliases and
visibility belong to ``<Concern>::ClassMethods`` and extend every class including the concern,
merged with an explicit ``module ClassMethods``. The oracle is ActiveSupport itself: each case
compares the singleton ancestors, and the owner and visibility of each class method, with Ruby."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import RUBY, build_graph
from test_concerns import _ask_ruby as ask_concern_oracle
from test_concerns import _dedent, check_edit
from test_differential_ruby import ruby_label

ORACLE = """
require "active_support/concern"
require "json"
%s
out = %s.to_h do |name, methods|
  single = Object.const_get(name).singleton_class
  [name, {
    "singleton" => single.ancestors.map(&:to_s),
    "methods" => methods.to_h do |m|
      vis = if single.private_method_defined?(m) then "private"
            elsif single.protected_method_defined?(m) then "protected"
            elsif single.public_method_defined?(m) then "public"
            end
      [m, vis && [single.instance_method(m).owner.to_s, vis]]
    end,
  }]
end
puts JSON.generate(out)
"""

CASES = {
    "class_methods block: def, attr_accessor, private def, bare protected, alias": (
        """
        module Special
          extend ActiveSupport::Concern
          class_methods do
            def find_special; end
            attr_accessor :config
            private def hidden; end
            alias_method :find_alias, :find_special
            protected
            def guarded; end
          end
        end
        class Klass; include Special; end
        """,
        {"Klass": ["find_special", "config", "config=", "hidden", "find_alias", "guarded"]},
    ),
    "class_methods block and an explicit module ClassMethods merge": (
        """
        module Both
          extend ActiveSupport::Concern
          module ClassMethods; def explicit; end; def shared; :explicit; end; end
          class_methods do
            def from_block; end
            def shared; :block; end
          end
        end
        class Merged; include Both; end
        """,
        {"Merged": ["explicit", "from_block", "shared"]},
    ),
    "class_methods block first, module ClassMethods reopened after": (
        """
        module Later
          extend ActiveSupport::Concern
          class_methods { def first; end }
          module ClassMethods; def second; end; end
        end
        class Reopened; include Later; end
        """,
        {"Reopened": ["first", "second"]},
    ),
    "concern included through another concern, and through an included block": (
        """
        module Inner
          extend ActiveSupport::Concern
          class_methods do
            def inner_cm; end
            def overridden; end
          end
        end
        module Deferred
          extend ActiveSupport::Concern
          class_methods { def deferred_cm; end }
        end
        module Outer
          extend ActiveSupport::Concern
          include Inner
          included { include Deferred }
          class_methods do
            def outer_cm; end
            def overridden; end
          end
        end
        class Host; include Outer; end
        class HostKid < Host; end
        """,
        {"Host": ["inner_cm", "deferred_cm", "outer_cm", "overridden"], "HostKid": ["inner_cm", "overridden"]},
    ),
}


def _ask_ruby(source: str, expected: dict[str, list[str]], tmp_path: Path) -> dict:
    return ask_concern_oracle(source, expected, tmp_path, ORACLE)


@pytest.mark.parametrize("case", sorted(CASES))
def test_class_methods_blocks_agree_with_ruby(case: str, tmp_path: Path) -> None:
    source, classes = CASES[case]
    source = _dedent(source)
    ruby = _ask_ruby(source, classes, tmp_path)
    g = build_graph({"concerns.rb": "module ActiveSupport; module Concern; end; end\n" + source})
    own = {d.name for d in g.declarations if d.location is not None and d.location.path == "/fixture/concerns.rb"}
    own |= {f"{n}::<{n.split('::')[-1]}>" for n in own} | {"Object", "Kernel", "BasicObject", "Class", "Module"}
    own -= {"ActiveSupport", "ActiveSupport::Concern"}
    for name, methods in classes.items():
        single = g[name].singleton_class
        assert single is not None
        answer = ruby[name]
        chain = [a.name for a in single.ancestors if a.name in own]
        assert chain == [x for x in map(ruby_label, answer["singleton"]) if x in own], (name, answer["singleton"])
        got = {}
        for m in methods:
            found = single.find_member(m + "()")
            got[m] = [found.owner.name, found.visibility] if found is not None and found.owner is not None else None
        assert got == {m: [ruby_label(v[0]), v[1]] if v else None for m, v in answer["methods"].items()}, name
        assert all(got.values()), f"every listed class method exists in Ruby ({name})"


def test_constants_in_the_block_are_looked_up_around_it(tmp_path: Path) -> None:
    """``module_eval`` with a block keeps the lexical scope of the block: ``X`` in the block is
    the concern's ``X``, and ``ClassMethods::Y`` is not reachable as ``Y`` (a NameError)."""
    source = _dedent(
        """
        X = :top
        module Scoped
          extend ActiveSupport::Concern
          X = :scoped
          module ClassMethods; Y = 1; end
          class_methods do
            def read_x; X; end
            def read_y; Y; end
          end
        end
        class User; include Scoped; end
        puts JSON.generate([User.read_x.to_s, (User.read_y rescue "NameError")])
        """
    )
    probe = tmp_path / "scoped.rb"
    probe.write_text('require "active_support/concern"\nrequire "json"\n' + source)
    proc = subprocess.run([RUBY or "ruby", str(probe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == ["scoped", "NameError"]
    g = build_graph({"c.rb": "module ActiveSupport; module Concern; end; end\n" + source})
    targets = {}
    for ref in g.constant_references:
        if ref.name in ("X", "Y") and ref.location.start_line > 6:
            targets[ref.name] = ref.declaration.name if ref.declaration is not None else None
    assert targets == {"X": "Scoped::X", "Y": None}


SPLIT = {
    "file:///cm/as.rb": "module ActiveSupport; module Concern; end; end\n",
    "file:///cm/special.rb": "module Special\n  extend ActiveSupport::Concern\n  class_methods do\n    def find_special; end\n  end\nend\n",
    "file:///cm/explicit.rb": "module Special\n  module ClassMethods; def explicit; end; end\nend\n",
    "file:///cm/klass.rb": "class Klass\n  include Special\nend\n",
}
EDITS = [
    ("file:///cm/special.rb", "    def find_special; end\n", "    def find_special; end\n    private\n    def hidden; end\n"),
    ("file:///cm/special.rb", "  class_methods do\n    def find_special; end\n  end\n", ""),
    ("file:///cm/special.rb", "class_methods do", "included do"),
    ("file:///cm/explicit.rb", "def explicit; end", "def explicit; end; def find_special; end"),
    ("file:///cm/special.rb", "  extend ActiveSupport::Concern\n", ""),
]


@pytest.mark.parametrize("edit", range(len(EDITS)))
def test_edits_to_class_methods_blocks_match_a_fresh_graph(edit: int) -> None:
    """Editing a ``class_methods`` block (adding members, removing it, turning it into another
    block) updates the class's singleton members as resolving from scratch does."""
    check_edit(dict(SPLIT), EDITS[edit], lambda g: g["Klass"].singleton_class.find_member("find_special()") is not None)
