"""Document order follows require/require_relative edges, as Ruby's load order would."""

from __future__ import annotations

from conftest import RUBY, run_ruby

import rdx


def _index_dir(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    g = rdx.Graph()
    assert g.index_all([tmp_path], jobs=1) == []
    g.resolve()
    return g


FILES = {
    "a.rb": 'require_relative "z"\nmodule M2; end\nclass Foo\n  include M2\nend\n',
    "z.rb": 'module M1; end\nclass Foo\n  include M1\nend\n',
    "lib/app/b.rb": 'require "app/c"\nclass Bar < Base; end\n',
    "lib/app/c.rb": 'class Base; end\nclass Bar < Base; end\n',
}


def test_required_file_is_loaded_first(tmp_path):
    g = _index_dir(tmp_path, FILES)
    # a.rb requires z.rb, so Foo includes M1 first, then M2 (which then comes first in the chain).
    assert [a.name for a in g["Foo"].ancestors][:3] == ["Foo", "M2", "M1"]
    # Feature requires resolve by path suffix: c.rb is loaded before b.rb.
    assert [d.location.path.rsplit("/", 1)[1] for d in g["Bar"].definitions] == ["c.rb", "b.rb"]


def test_agrees_with_ruby(tmp_path):
    g = _index_dir(tmp_path, {k: v for k, v in FILES.items() if "/" not in k})
    assert RUBY
    out = run_ruby(f'require_relative "{tmp_path}/a"\nputs Foo.ancestors.take(3).join(",")\n', tmp_path)
    assert out.strip() == ",".join(a.name for a in g["Foo"].ancestors[:3])
