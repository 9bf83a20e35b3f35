"""Constants assigned from a load-time conditional (``XImpl = case when on_cruby? then A else B
end; class X < XImpl``) alias the branch CRuby takes (rdx.ruby.evaluate.branches). Ruby is the
oracle: this machine's Ruby is CRuby without the probed optional features, which is the model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import build_graph, run_ruby

import rdx

SOURCE = """
module Env
  def self.on_cruby? = RUBY_ENGINE == "ruby"
  def self.on_jruby? = RUBY_ENGINE == "jruby"
  def self.on_rbx? = false
  def self.c_extensions_loaded? = false
  def self.ruby_version(op, *v) = Gem::Version.new(RUBY_VERSION).send(op, Gem::Version.new(v.join(".")))
end
class MriBase; end
class MutexBase; end
class MonitorBase; end
class JavaBase; end
class PureBase; end

CaseImpl = case
           when Env.on_cruby? && Env.ruby_version(:<=, 1, 9, 3)
             MonitorBase
           when Env.on_cruby? && Env.ruby_version(:>, 1, 9, 3)
             MutexBase
           when Env.on_jruby?
             JavaBase
           else
             warn "unsupported"
             MonitorBase
           end
ProbeImpl = case
            when defined?(JavaThing)
              JavaThing
            when Env.on_cruby? && Env.c_extensions_loaded?
              # An untaken branch may define a class Ruby never creates.
              class CThing < MriBase; end
              CThing
            else
              PureBase
            end
IfImpl = if Env.on_jruby? then JavaBase elsif !Env.on_rbx? then (MriBase) else PureBase end
UnlessImpl = unless RUBY_ENGINE == "ruby" then JavaBase else MutexBase end
TernaryImpl = defined?(JRUBY_VERSION) ? JavaBase : RUBY_VERSION < "1.9" ? MonitorBase : MriBase
EngineImpl = case RUBY_ENGINE
             when "jruby", "truffleruby" then JavaBase
             when "ruby" then MutexBase
             end
NestedImpl = if Env.on_cruby?
               case
               when Env.on_rbx? then JavaBase
               else PureBase
               end
             end

class ViaCase < CaseImpl; end
class ViaProbe < ProbeImpl; end
class ViaIf < IfImpl; end
class ViaUnless < UnlessImpl; end
class ViaTernary < TernaryImpl; end
class ViaEngine < EngineImpl; end
class ViaNested < NestedImpl; end
"""

CLASSES = ("ViaCase", "ViaProbe", "ViaIf", "ViaUnless", "ViaTernary", "ViaEngine", "ViaNested")

ASK = """
%s
%s.each { |n| puts Object.const_get(n).superclass.name }
puts defined?(CThing).inspect
"""


def test_conditional_constants_alias_the_branch_ruby_takes(tmp_path: Path) -> None:
    lines = run_ruby("require 'rubygems'\n" + ASK % (SOURCE, list(CLASSES)), tmp_path).strip().splitlines()
    g = build_graph({"impl.rb": SOURCE})
    assert [g[n].ancestors[1].name for n in CLASSES] == lines[: len(CLASSES)]
    # FIXME (deliberate): classes in untaken branches are indexed (they are source a reader
    # navigates), although Ruby never defines them here.
    assert lines[-1] == "nil" and g.get("CThing") is not None


OPAQUE = """
class A; end
class B; end
FromGlobal = if $stdout.isatty then A else B end
FromEnv = ENV["TERM"] == "dumb" ? A : B
FromLocal = (flag = true) ? A : B
NoBranch = if RUBY_ENGINE == "jruby" then A end
Computed = RUBY_ENGINE == "ruby" ? A.new : B
"""


@pytest.mark.parametrize("name", ["FromGlobal", "FromEnv", "FromLocal", "NoBranch", "Computed"])
def test_conditions_outside_the_model_are_not_guessed(name: str) -> None:
    """A condition reading state (a global, ENV, a local), a conditional whose taken branch is
    nil or not a constant: the constant stays a plain value, never an alias of a guess."""
    g = build_graph({"opaque.rb": OPAQUE})
    assert g[name].definitions[0].kind == "Constant"


CONCURRENT = "/usr/share/rubygems-integration/all/gems/concurrent-ruby-1.1.6/lib/concurrent-ruby"
IMPLEMENTED = (
    "Synchronization::Object", "Synchronization::LockableObject", "Map", "AtomicBoolean", "AtomicFixnum",
    "AtomicReference", "Semaphore", "ThreadLocalVar", "CountDownLatch", "Exchanger", "Set", "Array", "Hash",
    "ThreadPoolExecutor", "SingleThreadExecutor", "Collection::NonConcurrentPriorityQueue",
)


@pytest.mark.skipif(not os.path.isdir(CONCURRENT), reason="Debian's ruby-concurrent is not installed")
def test_concurrent_ruby_superclasses_match_ruby(tmp_path: Path) -> None:
    script = f"""$LOAD_PATH.unshift {CONCURRENT!r}
require "concurrent"
require "concurrent/map"
{list(IMPLEMENTED)}.each {{ |n| puts Concurrent.const_get(n).superclass.name }}
"""
    lines = run_ruby(script, tmp_path).strip().splitlines()
    g = rdx.Graph()
    g.index_all([CONCURRENT])
    g.resolve()
    assert [g[f"Concurrent::{n}"].ancestors[1].name for n in IMPLEMENTED] == lines
