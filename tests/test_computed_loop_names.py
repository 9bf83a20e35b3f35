"""Names computed from block-local values in loops over literal lists and hashes
(rdx.ruby.evaluate.unroll): ``StatusMessage.each { |code, message| const_set(message.gsub(/ /, ''),
Class.new(parent)) }`` defines one class per entry, with the parent a ``case code`` picks.
Ruby is the oracle; an iteration whose name rdx cannot compute defines nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import build_graph, run_ruby

SOURCE = """
module Codes
  class Base; end
  class Low < Base; end
  class High < Base; end
  class Odd < Base; end
  TABLE = {
    100 => 'Switching Protocols',   # a comment between entries
    150 => 'Non-Authoritative Info',
    200 => 'request-uri too long',
    301 => 'Moved',
    404 => "Not Found",
    999 => 'Beyond',
  }
  TABLE.each { |code, message|
    next if code == 999
    var_name = message.gsub(/[ \\-]/, '_').upcase
    err_name = message.gsub(/[ \\-]/, '')
    case code
    when 100...200; parent = Low
    when 200..300, 301 then parent = High
    when 404 then parent = Odd
    end
    const_set("RC_#{var_name}", code)
    const_set(err_name, Class.new(parent)) if false
    klass = Class.new(parent)
    const_set(err_name.tr('a-z', 'A-Z').sub('_', ''), klass) unless code == 404
    const_set("Maybe#{code}", 1) if message.size > 8   # String#size is not evaluated: nothing
    const_set("K#{code}", code.to_s)
  }
  %w[alpha beta].each_with_index do |word, i|
    const_set(word.capitalize.to_sym, i)
    const_set("#{word.downcase}_#{i}".upcase, Module.new)
    const_set(word.reverse.capitalize, 1)   # String#reverse is not evaluated: nothing
    const_set(word.gsub(/\\w/, 'X'), 1)      # \\w differs between Ruby and Python: nothing
  end
  {Small: 1, Large: 2}.each_pair do |name, size|
    const_set(name, size)
    case name
    when :Small then const_set("#{name}Only", 1)
    end
  end
end
"""

ASK = """
%s
puts Codes.constants.sort.join(" ")
puts Codes.constants.sort.map { |c| v = Codes.const_get(c); v.is_a?(Module) ? "#{c}:#{v.class}<#{v.is_a?(Class) ? v.superclass.name.split('::').last : '-'}" : nil }.compact.join(" ")
"""


def _rdx_constants(g, owner: str) -> tuple[list[str], list[str]]:
    members = [m for m in g[owner].members if m.kind in ("Class", "Module", "Constant", "ConstantAlias")]
    names = sorted(m.unqualified_name for m in members)
    modules = []
    for m in sorted(members, key=lambda m: m.unqualified_name):
        if m.kind in ("Class", "Module"):
            parent = m.ancestors[1].name.split("::")[-1] if m.kind == "Class" and m.superclass is not None else "-"
            modules.append(f"{m.unqualified_name}:{m.kind}<{parent}")
    return names, modules


# Names Ruby defines from what rdx does not evaluate (String#reverse, a ``\\w`` regex, String#size
# in a condition): rdx defines nothing for them rather than a guess.
NOT_EVALUATED = {"Ahpla", "Ateb", "XXXX", "XXXXX", "Maybe100", "Maybe150", "Maybe200", "Maybe404"}


def test_computed_names_match_ruby(tmp_path: Path) -> None:
    lines = run_ruby(ASK % SOURCE, tmp_path).strip().splitlines()
    g = build_graph({"codes.rb": SOURCE})
    names, modules = _rdx_constants(g, "Codes")
    assert NOT_EVALUATED <= set(lines[0].split())
    assert names == sorted(set(lines[0].split()) - NOT_EVALUATED)
    assert modules == lines[1].split()


WEBRICK = "/usr/share/rubygems-integration/all/gems/webrick-1.8.1/lib"

WEBRICK_ASK = """
$LOAD_PATH.unshift %r
require "webrick/httpstatus"
s = WEBrick::HTTPStatus
puts s.constants.sort.join(" ")
puts s.constants.sort.map { |c| v = s.const_get(c); v.is_a?(Class) ? "#{c}:Class<#{v.superclass.name.split('::').last}" : nil }.compact.join(" ")
"""


@pytest.mark.skipif(not os.path.isdir(WEBRICK), reason="Debian's ruby-webrick is not installed")
def test_webrick_status_classes_match_ruby(tmp_path: Path) -> None:
    lines = run_ruby(WEBRICK_ASK % WEBRICK, tmp_path).strip().splitlines()
    source = Path(WEBRICK, "webrick", "httpstatus.rb").read_text()
    g = build_graph({"httpstatus.rb": source})
    names, modules = _rdx_constants(g, "WEBrick::HTTPStatus")
    assert names == lines[0].split()
    assert modules == lines[1].split()
    assert len(modules) > 50
