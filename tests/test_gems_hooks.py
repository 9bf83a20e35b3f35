"""Mixins that a module's ``included`` hook applies to its includer, in the shapes the top-gems
differential found (issue 22; rdx.ruby.discover.directives ``_hook_mixins``): the hook defined
in a ``class << self`` body (Thor::Base), and ``include`` in a ``base.class_eval do ... end``
or ``descendant.instance_exec(self) do ... end`` block (representable, adamantium). Ruby is
the oracle: ``check_against_ruby`` compares the ancestors. (Not modelled: adamantium's
``extend mod`` there, with ``mod`` a block parameter bound to the hook's module.)
"""

from __future__ import annotations

from pathlib import Path

from test_differential_ruby import check_against_ruby

HOOKS = {
    "a.rb": """
        module Thorish
          module Invocation; end
          module Shell; end
          module Base
            class << self
              def included(base)
                super(base)
                base.send :include, Invocation
                base.send :include, Shell
              end
            end
          end
          class Command
            include Base
          end
          class Group < Command; end
        end

        module Representable
          module Hash
            module ClassMethods; end
            def self.included(base)
              base.class_eval do
                include Representable
                extend ClassMethods
              end
            end
          end
          module JSON
            include Hash
          end
        end

        module Memoizable; end
        module Adamantium
          module Flat
            def self.included(descendant)
              super
              descendant.instance_exec(self) do |mod|
                include Adamantium
              end
            end
          end
        end
        class Node
          include Adamantium::Flat
        end
    """,
}


def test_hooks_in_a_singleton_class_body_and_eval_blocks_mix_into_the_includer(tmp_path: Path) -> None:
    check_against_ruby(
        tmp_path,
        HOOKS,
        targets=["Thorish::Command", "Thorish::Group", "Representable::JSON", "Node"],
    )
