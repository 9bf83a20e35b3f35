"""ActiveSupport::Concern as Ruby runs it: a concern's ``ClassMethods`` extend the class that
includes it, and so do those of the concerns it depends on (included in its body) and of the
concerns its ``included do`` block includes into the class, recursively. The oracle is
ActiveSupport itself (``require "active_support/concern"``): each case compares
``Base.ancestors``, ``Base.singleton_class.ancestors`` and the owner of each class method."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import RUBY, build_graph
from test_differential_ruby import ruby_label

ORACLE = """
require "active_support/concern"
require "json"
%s
out = %s.to_h do |name, methods|
  base = Object.const_get(name)
  [name, {
    "ancestors" => base.ancestors.map(&:to_s),
    "singleton" => base.singleton_class.ancestors.map(&:to_s),
    "owners" => methods.to_h { |m| [m, base.respond_to?(m) ? base.method(m).owner.to_s : nil] },
  }]
end
puts JSON.generate(out)
"""

# Each case: the source and, per class to check, the class methods whose owners are compared.
CASES = {
    "class methods of a concern": (
        """
        module Plain
          extend ActiveSupport::Concern
          module ClassMethods; def plain; end; end
        end
        class Base; include Plain; end
        """,
        {"Base": ["plain"]},
    ),
    "included block includes concerns (ActiveRecord::Scoping)": (
        """
        module Scoping
          extend ActiveSupport::Concern
          included do
            include Default
            include Named
          end
          module ClassMethods; def scoping_cm; end; def all; :scoping; end; end
          module Default
            extend ActiveSupport::Concern
            module ClassMethods; def default_cm; end; end
          end
          module Named
            extend ActiveSupport::Concern
            module ClassMethods; def all; end; def named_cm; end; end
          end
        end
        class Record; include Scoping; end
        class Child < Record; end
        """,
        {"Record": ["all", "scoping_cm", "default_cm", "named_cm"], "Child": ["all", "named_cm"]},
    ),
    "dependency included in a concern's body": (
        """
        module Dep
          extend ActiveSupport::Concern
          module ClassMethods; def dep_cm; end; def shared; end; end
        end
        module Top
          extend ActiveSupport::Concern
          include Dep
          module ClassMethods; def top_cm; end; def shared; end; end
        end
        class WithDep; include Top; end
        """,
        {"WithDep": ["dep_cm", "top_cm", "shared"]},
    ),
    "nested: a dependency's included block includes a concern": (
        """
        module Deepest
          extend ActiveSupport::Concern
          module ClassMethods; def deepest; end; end
        end
        module Middle
          extend ActiveSupport::Concern
          included { include Deepest }
          module ClassMethods; def middle; end; end
        end
        module Outer
          extend ActiveSupport::Concern
          include Middle
        end
        class Nested; include Outer; end
        """,
        {"Nested": ["deepest", "middle"]},
    ),
    "included block includes a module with a self.included hook, and extends": (
        """
        module Hooked
          module Extra; def extra; end; end
          def self.included(base)
            base.extend(Extra)
          end
        end
        module Helpers; def helper; end; end
        module Dependent
          extend ActiveSupport::Concern
          included do
            extend Helpers
          end
        end
        module Host
          extend ActiveSupport::Concern
          include Dependent
          included do
            include Hooked
          end
          module ClassMethods; def host; end; end
        end
        class Hosted; include Host; end
        """,
        {"Hosted": ["extra", "helper", "host"]},
    ),
    "cycle between included blocks, and a diamond": (
        """
        module CycleA
          extend ActiveSupport::Concern
          included { include CycleB }
          module ClassMethods; def a_cm; end; end
        end
        module CycleB
          extend ActiveSupport::Concern
          included { include CycleA }
          module ClassMethods; def b_cm; end; end
        end
        module Shared
          extend ActiveSupport::Concern
          module ClassMethods; def shared_cm; end; end
        end
        module Left
          extend ActiveSupport::Concern
          included { include Shared }
        end
        module Right
          extend ActiveSupport::Concern
          include Shared
        end
        class Cyclic; include CycleA; end
        class Diamond; include Right; include Left; end
        """,
        {"Cyclic": ["a_cm", "b_cm"], "Diamond": ["shared_cm"]},
    ),
    "concern included twice along the superclass chain": (
        """
        module Twice
          extend ActiveSupport::Concern
          included { include Inner }
          module Inner
            extend ActiveSupport::Concern
            module ClassMethods; def inner; end; end
          end
        end
        class Parent; include Twice; end
        class Kid < Parent; include Twice; end
        """,
        {"Parent": ["inner"], "Kid": ["inner"]},
    ),
}


def _dedent(text: str) -> str:
    lines = text.split("\n")
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines).strip("\n") + "\n"


def _ask_ruby(source: str, expected: dict[str, list[str]], tmp_path: Path, oracle: str | None = None) -> dict:
    """Run ``oracle`` (default: this file's ORACLE) over ``source``; its last line is JSON."""
    assert RUBY is not None, "ruby is required (make test installs it and ruby-activesupport)"
    probe = tmp_path / "probe.rb"
    probe.write_text((oracle or ORACLE) % (source, json.dumps(expected).replace(":", "=>")))
    proc = subprocess.run([RUBY, str(probe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"ruby failed:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def check_concerns(source: str, classes: dict[str, list[str]], tmp_path: Path) -> None:
    """rdx's ancestors, singleton ancestors and class-method owners equal Ruby's (Ruby's lists
    keep only the modules the fixture defines, plus Object's chain)."""
    source = _dedent(source)
    ruby = _ask_ruby(source, classes, tmp_path)
    g = build_graph({"concerns.rb": "module ActiveSupport; module Concern; end; end\n" + source})
    own = {d.name for d in g.declarations if d.location is not None and d.location.path == "/fixture/concerns.rb"}
    own |= {f"{n}::<{n.split('::')[-1]}>" for n in own} | {"Object", "Kernel", "BasicObject", "Class", "Module"}
    own -= {"ActiveSupport", "ActiveSupport::Concern"}
    for name, methods in classes.items():
        decl = g[name]
        answer = ruby[name]
        chain = [a.name for a in decl.ancestors if a.name in own]
        assert chain == [x for x in map(ruby_label, answer["ancestors"]) if x in own], (name, answer["ancestors"])
        singleton = decl.singleton_class
        assert singleton is not None
        chain = [a.name for a in singleton.ancestors if a.name in own]
        assert chain == [x for x in map(ruby_label, answer["singleton"]) if x in own], (name, answer["singleton"])
        owners = {}
        for m in methods:
            found = singleton.find_member(m + "()")
            owners[m] = found.owner.name if found is not None and found.owner is not None else None
        assert owners == {m: ruby_label(o) if o else None for m, o in answer["owners"].items()}, name
        assert all(owners.values()), f"every listed class method exists in Ruby ({name})"


@pytest.mark.parametrize("case", sorted(CASES))
def test_concern_class_methods_agree_with_ruby(case: str, tmp_path: Path) -> None:
    source, classes = CASES[case]
    check_concerns(source, classes, tmp_path)


# Edits across files: the concern in one, what its included block includes in others.
SPLIT = {
    "file:///inc/as.rb": "module ActiveSupport; module Concern; end; end\n",
    "file:///inc/scoping.rb": "module Scoping\n  extend ActiveSupport::Concern\n  included do\n    include Named\n  end\n  module ClassMethods; def scoping_cm; end; end\nend\n",
    "file:///inc/named.rb": "module Named\n  extend ActiveSupport::Concern\n  module ClassMethods; def all; end; end\nend\n",
    "file:///inc/record.rb": "class Record\n  include Scoping\nend\n",
}
EDITS = [
    ("file:///inc/scoping.rb", "    include Named\n", "    include Named, Other\n"),
    ("file:///inc/named.rb", "  extend ActiveSupport::Concern\n", ""),
    ("file:///inc/named.rb", "module ClassMethods; def all; end; end", "module ClassMethods; def all; end; def none; end; end"),
    ("file:///inc/scoping.rb", "  included do\n    include Named\n  end\n", "  include Named\n"),
]


@pytest.mark.parametrize("edit", range(len(EDITS)))
def test_edits_to_included_concerns_match_a_fresh_graph(edit: int) -> None:
    """Changing what an included block includes, or whether the included module is a concern,
    updates the class's singleton chain as resolving from scratch does."""
    files = dict(SPLIT)
    files["file:///inc/other.rb"] = "module Other\n  extend ActiveSupport::Concern\n  module ClassMethods; def other; end; end\nend\n"
    check_edit(files, EDITS[edit], lambda g: "Named::ClassMethods" in [a.name for a in g["Record"].singleton_class.ancestors])


def check_edit(files: dict[str, str], edit: tuple[str, str, str], before: Callable[[Any], bool]) -> None:
    """``before`` holds of the graph of ``files``; after the edit ``(uri, old, new)`` the graph
    resolved incrementally equals one resolved from scratch."""
    from test_incremental import dump, fresh

    g = fresh(files, core=False)
    assert before(g)
    uri, old, new = edit
    assert old in files[uri]
    files = {**files, uri: files[uri].replace(old, new)}
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files, core=False))


def test_extended_hook_that_includes_a_concern_is_not_followed(tmp_path: Path) -> None:
    """FIXME: ActiveModel::Callbacks' ``def self.extended(base); base.class_eval { include
    ActiveSupport::Callbacks }; end`` extends the class with the concern's ClassMethods in Ruby;
    discovery records neither ``class_eval`` blocks in hooks nor which hook a mixin comes from,
    so rdx leaves it out (ActiveRecord::Base's singleton chain differs from Ruby's only there)."""
    source = _dedent(
        """
        module Cbs
          extend ActiveSupport::Concern
          module ClassMethods; def define_callbacks; end; end
        end
        module ModelCbs
          def self.extended(base)
            base.class_eval do
              include Cbs
            end
          end
        end
        class Model; extend ModelCbs; end
        """
    )
    ruby = _ask_ruby(source, {"Model": ["define_callbacks"]}, tmp_path)
    assert ruby["Model"]["owners"] == {"define_callbacks": "Cbs::ClassMethods"}
    g = build_graph({"concerns.rb": "module ActiveSupport; module Concern; end; end\n" + source})
    single = g["Model"].singleton_class
    assert single is not None and single.find_member("define_callbacks()") is None
