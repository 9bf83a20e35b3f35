"""Load-time calls on ``self`` in a class body of a singleton method the class inherits
(issue 22, top gems): Liquid's ``class Render < Tag; disable_tags "include"; end`` runs
``Tag``'s ``class << self; def disable_tags(*tag_names) ... prepend(Disabler) end``, defined in
another file, with ``self`` the subclass: Render's chain starts with ``Tag::Disabler``.

The rule (``rdx.ruby.evaluate.loadfacts`` ``_inherited_call``, ``LoadCalls._find_callee``): a
call on nothing in a class body, of a method the file does not define and Ruby's ``Class`` does
not have, runs the singleton method of the first class in the class's chain that has one
(singleton methods are inherited by subclasses, not through modules); its mixins apply to the
calling class. A splat parameter takes the extra arguments (``MethodEffects.rest``). Ruby is
the oracle; edits must give what a graph built from scratch gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_differential_ruby import check_against_ruby
from test_incremental import dump, fresh

LIQUID = {
    "a_tag.rb": """
        module Liquid
          class Tag
            class << self
              def disable_tags(*tag_names)
                @disabled_tags ||= []
                @disabled_tags.concat(tag_names)
                prepend(Disabler)
              end
            end
          end
        end
    """,
    "b_disabler.rb": """
        module Liquid
          class Tag
            module Disabler
              def render = super
            end
          end
        end
    """,
    "c_render.rb": """
        module Liquid
          class Render < Tag
            disable_tags "include"
          end
          class Deeper < Render
            disable_tags "x", "y"
          end
        end
    """,
    "d_marks.rb": """
        module Marked; end
        class Base
          def self.mark(kind) = include(Marked)
        end
        class Middle < Base; end
        class Leaf < Middle
          mark :leaf
        end
        class Own < Base
          def self.mark(kind) = kind
        end
    """,
    "e_own.rb": """
        class Own
          mark :own
        end
        module Helpers
          def self.mark(kind) = include(Marked)
        end
        class Plain
          include Helpers
          def self.mark(kind) = nil
          mark :plain
        end
    """,
}


def test_a_class_body_call_runs_the_singleton_method_its_superclass_defines(tmp_path: Path) -> None:
    """Render and Deeper prepend Disabler (Deeper twice: once, as Ruby keeps it); Leaf gets
    Marked through Base's ``mark``, two classes up; Own's own ``mark`` has no mixin and hides
    Base's; Plain's ``mark`` is its own, not the singleton method of the module it includes."""
    check_against_ruby(tmp_path, LIQUID, targets=["Liquid::Render", "Liquid::Deeper", "Leaf", "Own", "Plain"])


MACROS = {
    "a_base.rb": """
        module Tagging; end
        module Tree; end
        class Record
          def self.acts_as_taggable
            include Tagging
          end
          def self.acts_as_tree
            self.wire_tree
          end
          def self.wire_tree
            include Tree
          end
        end
    """,
    "b_models.rb": """
        class Post < Record
          acts_as_taggable
        end
        class Node < Record
          self.acts_as_tree
        end
        class Shadowed < Record
          acts_as_taggable = 1
          acts_as_taggable
        end
    """,
}


def test_a_macro_written_as_a_bare_word_or_on_self_runs_too(tmp_path: Path) -> None:
    """``acts_as_taggable`` with no arguments and no parentheses is a call (tree-sitter reads an
    identifier: the walk knows it is no local), and so is ``self.acts_as_tree``; after a local
    of that name is assigned, the word reads the local and runs nothing."""
    check_against_ruby(tmp_path, MACROS, targets=["Post", "Node", "Shadowed"])


EDITS = [
    ("the call goes", "c_render.rb", lambda t: t.replace('    disable_tags "include"\n', "")),
    ("the method stops prepending", "a_tag.rb", lambda t: t.replace("prepend(Disabler)", "nil")),
    ("the superclass changes", "d_marks.rb", lambda t: t.replace("class Middle < Base", "class Middle")),
    ("a macro without a template is added", "e_own.rb", lambda t: t.replace("  mark :own\n", "  mark :own\n  has_many :items\n")),
]


@pytest.mark.parametrize(("name", "path", "edit"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_matches_a_fresh_graph(name: str, path: str, edit) -> None:  # type: ignore[no-untyped-def]
    import textwrap

    files = {f"file:///liq/{n}": textwrap.dedent(t).lstrip() for n, t in LIQUID.items()}
    g = fresh(files)
    uri = f"file:///liq/{path}"
    files[uri] = edit(files[uri])
    g.index_source(uri, files[uri])
    g.resolve()
    assert dump(g) == dump(fresh(files))


def test_a_macro_without_a_template_keeps_the_update_incremental() -> None:
    """A class-body call that no method with mixins answers (``has_many :items``) is not a
    reason for a full resolve when it changes."""
    import textwrap

    files = {f"file:///liq/{n}": textwrap.dedent(t).lstrip() for n, t in LIQUID.items()}
    uri = "file:///liq/f_model.rb"
    files[uri] = "class Model < Base\n  has_many :items\n  def a = 1\nend\n"
    g = fresh(files)
    files[uri] = files[uri].replace("has_many :items", "has_many :things")
    g.index_source(uri, files[uri])
    g.resolve()
    assert g.last_resolve == "incremental", g.last_fallback
    assert dump(g) == dump(fresh(files))
