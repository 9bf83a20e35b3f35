"""``Foo.define_method(:m) { }``, ``Foo.attr_accessor :a`` (and ``attr_reader``/``attr_writer``/
``attr``) and the same through ``Foo.send``, called outside Foo's body at load time: public
instance methods of Foo (rdx.ruby.discover.receivers). Ruby is the oracle."""

from __future__ import annotations

from pathlib import Path

from conftest import build_graph, run_ruby

SOURCE = """
module Outer
  class Foo
    def own; end
  end
  class Bar; end
end

Outer::Foo.define_method(:direct) { 1 }
Outer::Foo.send(:define_method, :sent) { 2 }
Outer::Foo.public_send(:define_method, "by_string") { 3 }
Outer::Foo.attr_accessor :both
Outer::Foo.attr_reader :read_only, :other_read
Outer::Foo.attr_writer :write_only
Outer::Foo.send(:attr_accessor, :sent_attr)
Outer::Foo.__send__(:attr_reader, :hidden_send)

module Outer
  Bar.define_method(:from_outer) { }
  Bar.attr :plain
  %i[one two].each { |n| Bar.define_method("#{n}_loop") { } }
  def self.setup
    Bar.define_method(:only_when_called) { }   # in a method body: not at load time
  end
end
"""

ASK = """
%s
[Outer::Foo, Outer::Bar].each do |k|
  puts "#{k.name}:#{k.public_instance_methods(false).sort.join(',')}:#{k.singleton_methods(false).sort.join(',')}"
end
"""


def _bare(name: str) -> str:
    return name.split("(")[0]


def _rdx(g, name: str) -> str:
    decl = g[name]
    public = sorted(_bare(m.unqualified_name) for m in decl.members if m.kind == "Method" and m.visibility == "public")
    single = decl.singleton_class
    singles = sorted(_bare(m.unqualified_name) for m in single.members if m.kind == "Method") if single is not None else []
    return f"{name}:{','.join(public)}:{','.join(singles)}"


def test_explicit_receiver_definers_define_instance_methods(tmp_path: Path) -> None:
    expected = run_ruby(ASK % SOURCE, tmp_path).splitlines()
    g = build_graph({"definers.rb": SOURCE})
    assert [_rdx(g, "Outer::Foo"), _rdx(g, "Outer::Bar")] == expected


def test_incremental_edits_match_a_fresh_graph() -> None:
    from test_incremental import dump, fresh

    files = {
        "file:///defs/a.rb": "class Foo\n  def own; end\nend\nclass Other; end\n",
        "file:///defs/b.rb": "Foo.define_method(:made) { }\nFoo.attr_reader :seen\n",
    }
    g = fresh(files, core=False)
    assert "Foo#made()" in g and "Foo#seen()" in g
    edits = [
        ("file:///defs/b.rb", "Foo.define_method(:made) { }\nFoo.send(:attr_writer, :seen)\nOther.define_method(:more) { }\n"),
        ("file:///defs/a.rb", "class Foo\n  def own; end\nend\nFoo.define_method(:early) { }\n"),
        ("file:///defs/a.rb", "class Foo\n  def own; end\nend\nclass Other; end\n"),
    ]
    for uri, text in edits:
        files[uri] = text
        g.index_source(uri, text)
        g.resolve()
        assert dump(g) == dump(fresh(files, core=False))
    assert "Other#more()" in g and "Foo#seen=()" in g
