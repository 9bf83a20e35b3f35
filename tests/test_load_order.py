"""Document order follows require/require_relative edges, as Ruby's load order would."""

from __future__ import annotations

import pytest
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


def test_placing_added_and_removed_files_keeps_the_load_order_of_a_fresh_walk():
    """``LoadOrder.add``/``remove`` place a file without walking everything again; whenever
    they accept, the keys must order the documents exactly as a fresh load order does."""
    import random

    from rdx.model.records import FileResult, Require
    from rdx.ruby.resolve.order import LoadOrder, keyed, load_order

    names = [f"lib/{d}/{f}.rb" for d in ("a", "b") for f in ("x", "y", "z", "w")]

    def doc(path: str, rng: random.Random) -> FileResult:
        requires = []
        for _ in range(rng.choice([0, 0, 1, 2])):
            other = rng.choice(names)
            if rng.random() < 0.5:
                requires.append(Require(other.split("/", 1)[1].removesuffix(".rb"), False, 0, 0))
            else:
                requires.append(Require("../" + other.split("/")[1] + "/" + other.split("/")[2], True, 0, 0))
        return FileResult(uri="file:///" + path, path="/" + path, requires=requires)

    accepted = 0
    for seed in range(200):
        rng = random.Random(seed)
        present = {p: doc(p, rng) for p in rng.sample(names, 4)}
        order = LoadOrder(present.values())
        keys = {d.uri: k for k, d in keyed(order.ordered).items()}
        for _ in range(6):
            absent = [p for p in names if p not in present]
            if absent and (rng.random() < 0.5 or len(present) < 2):
                path = rng.choice(absent)
                new = doc(path, rng)
                key = order.add(new, keys.get, sorted(keys.values()))
                if key is None:
                    break
                present[path] = new
                keys[new.uri] = key
            else:
                path = rng.choice(sorted(present))
                if not order.remove(present[path].uri):
                    break
                keys.pop(present.pop(path).uri)
            accepted += 1
            fresh = [d.uri for d in load_order(present.values())]
            assert sorted(keys, key=keys.get) == fresh, f"seed {seed}"
    # Files here require each other densely, so many changes are refused (and would be
    # placed by walking everything again); the quick path must still take a good share.
    assert accepted > 200


@pytest.mark.corpus  # 6000 documents and 300,000 keys
def test_document_keys_keep_chain_times_within_the_snapshot_integers():
    """Chain times are ``key << 32 | offset``; with many documents the keys must still let the
    resolved image be written (64-bit integers), and a full resolve exports without error."""
    from rdx.model.records import FileResult
    from rdx.ruby.resolve.driver import Resolver
    from rdx.ruby.resolve.order import MAX_KEY, keyed

    for count in (10, 6000, 300_000):
        keys = list(keyed(FileResult(uri=f"file:///k/{i}.rb", path=None) for i in range(count)))
        assert keys == sorted(keys) and len(set(keys)) == count and keys[-1] <= MAX_KEY
    g = rdx.Graph()
    for i in range(6000):
        g.index_source(f"file:///many/f{i:05d}.rb", f"module M{i % 7}; end\nclass C{i} < Object\n  include M{i % 7}\nend\n")
    g.resolve()
    resolver = g._resolver
    assert isinstance(resolver, Resolver)
    image = resolver.export("fingerprint")  # raised OverflowError when keys were too far apart
    assert len(image.uris) == 6001


PRELUDE = ("error_highlight", "did_you_mean")


def test_gem_prelude_libraries_load_first_in_rubys_order(tmp_path):
    """Ruby 3.1's gem_prelude requires error_highlight, then did_you_mean, before the program
    runs; the core stub does the same, so with both libraries indexed (in the opposite URI
    order) NameError gets DidYouMean::Correctable in front of ErrorHighlight::CoreExt."""
    import subprocess

    assert RUBY
    features = subprocess.run([RUBY, "-e", "puts $LOADED_FEATURES"], capture_output=True, text=True, check=True).stdout.split()
    main = {name: next(f for f in features if f.endswith(f"/{name}.rb")) for name in PRELUDE}
    assert features.index(main["error_highlight"]) < features.index(main["did_you_mean"])
    libdir = main["did_you_mean"].rsplit("/", 1)[0]
    files = [f for f in features if f.startswith(libdir + "/") and ("/error_highlight" in f or "/did_you_mean" in f)]
    g = rdx.Graph()
    g.index_all(sorted(files), jobs=1)  # URI order would put did_you_mean first.
    g.resolve()
    ruby = subprocess.run([RUBY, "-e", "puts NameError.ancestors.join(',')"], capture_output=True, text=True, check=True).stdout.strip().split(",")
    watched = {"DidYouMean::Correctable", "ErrorHighlight::CoreExt", "NameError"}
    assert [a.name for a in g["NameError"].ancestors if a.name in watched] == [a for a in ruby if a in watched]
    assert [a for a in ruby if a in watched] == ["DidYouMean::Correctable", "ErrorHighlight::CoreExt", "NameError"]


def test_the_core_stub_stays_first_when_its_prelude_files_are_indexed(tmp_path):
    """The core stub requires gem_prelude's libraries; they load right after it, not before it
    (Ruby's core exists first), so the core keeps the first document key."""
    from rdx.model.store import CORE_URI
    from rdx.ruby.resolve.order import load_order

    for name in ("error_highlight.rb", "did_you_mean.rb", "app.rb"):
        (tmp_path / name).write_text(f"module M{len(name)}; end\n")
    g = rdx.Graph()
    g.index_all([tmp_path])
    order = [d.uri.rsplit("/", 1)[-1] for d in load_order(g._store.documents.values())]
    assert order[:3] == [CORE_URI.rsplit("/", 1)[-1], "error_highlight.rb", "did_you_mean.rb"]
    g.resolve()
    assert g.stats()["constant_references_resolved"] is not None


# A require in a method body runs when the method is called, not while the file loads: here
# ``lazy`` is never called, so z.rb loads when b.rb requires it, after a.rb.
DEFERRED = {
    "a.rb": 'module M1; end\nclass Object\n  include M1\nend\ndef lazy\n  require_relative "z"\nend\n',
    "b.rb": 'require_relative "z"\n',
    "z.rb": 'module M2; end\nclass Object\n  include M2\nend\n',
}


def test_a_require_in_a_method_body_is_not_followed_while_the_file_loads(tmp_path):
    g = _index_dir(tmp_path, DEFERRED)
    assert RUBY
    out = run_ruby(f'require_relative "{tmp_path}/a"\nrequire_relative "{tmp_path}/b"\nputs Object.ancestors.select {{ |m| m.name =~ /^M/ }}.join(",")\n', tmp_path)
    assert out.strip() == "M2,M1"
    assert [a.name for a in g["Object"].ancestors if a.name in ("M1", "M2")] == ["M2", "M1"]


def _object_mixins(g: rdx.Graph) -> list[str]:
    return [a.name for a in g["Object"].ancestors if a.name.startswith("M")]


def _mixing(name: str) -> str:
    return f"module {name}; end\nclass Object\n  include {name}\nend\n"


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_entry_points_load_first_and_specs_last_as_in_ruby(tmp_path):
    """``rdx.toml``'s ``entry_points`` are walked first, in order, so the files they require
    load in Ruby's order, not in URI order; a project's spec/ loads after its code."""
    project = tmp_path / "app"
    _write(project, {"src/a.rb": _mixing("M1"), "src/b.rb": _mixing("M2"), "spec/support/late.rb": _mixing("M3"), "src/main.rb": 'require_relative "b"\nrequire_relative "a"\n', "rdx.toml": 'entry_points = ["src/main.rb"]\n'})
    assert RUBY
    ruby = run_ruby(f'require_relative "{project}/src/main"\nrequire_relative "{project}/spec/support/late"\nputs Object.ancestors.select {{ |m| m.name =~ /^M/ }}.join(",")\n', tmp_path)
    assert ruby.strip() == "M3,M1,M2"
    g = rdx.Graph.open(project)
    assert _object_mixins(g) == ["M3", "M1", "M2"]
    # Without the entry point, the roots are walked in URI order: a.rb before b.rb.
    (project / "rdx.toml").unlink()
    g = rdx.Graph.open(project)
    assert g.open_stats["resolved"] is False  # The saved graph was ordered by the entry point.
    assert _object_mixins(g) == ["M3", "M2", "M1"]


def test_a_gems_main_file_is_its_entry_point(tmp_path):
    """Without ``entry_points``, a gem's ``lib/NAME.rb`` (for its ``NAME.gemspec``) loads first."""
    project = tmp_path / "mygem"
    _write(project, {
        "mygem.gemspec": 'Gem::Specification.new { |s| s.name = "mygem" }\n',
        "lib/mygem.rb": 'require "mygem/zeta"\nrequire "mygem/alpha"\n',
        "lib/mygem/alpha.rb": _mixing("M1"),
        "lib/mygem/zeta.rb": _mixing("M2"),
        "lib/aaa_first.rb": _mixing("M0"),
    })
    ruby = run_ruby(f'$LOAD_PATH.unshift "{project}/lib"\nrequire "mygem"\nrequire "aaa_first"\nputs Object.ancestors.select {{ |m| m.name =~ /^M/ }}.join(",")\n', tmp_path)
    assert ruby.strip() == "M0,M1,M2"
    assert _object_mixins(rdx.Graph.open(project)) == ["M0", "M1", "M2"]
