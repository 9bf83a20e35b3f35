"""Randomized differential tests: generated Ruby programs are loaded by real Ruby and indexed
by rdx; ancestors, singleton-class ancestors and constant lookups at many lexical sites must
agree.

Each seed builds a program of nested and compact namespaces reopened across three files, with
include/prepend/extend (several arguments at once too), superclasses, constants with unique
values, constant aliases and private constants. Probes then reopen namespaces (nested or
compact) and evaluate constant references; Ruby reports what each names, rdx answers through
``Graph.resolve_constant`` with the same lexical nesting.
"""

from __future__ import annotations

import json
import random
import subprocess
from dataclasses import dataclass, field

import pytest
from conftest import RUBY

import rdx

NAMES = ["A", "B", "C", "D", "E"]
METHODS = ["m1", "m2", "m3"]
SEEDS = range(150)


@dataclass
class Namespace:
    path: list[str]
    kind: str  # "class" or "module"
    superclass: str | None = None
    constants: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return "::".join(self.path)


class Program:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.namespaces: dict[str, Namespace] = {}
        self.files: list[list[str]] = [[], [], []]
        self.values: dict[int, str] = {}
        self.next_value = 1000
        self.probes: list[tuple[list[str], str]] = []

    # -- emitting ------------------------------------------------------------------------

    def _opening(self, ns: Namespace, compact_from: int) -> tuple[list[str], list[str], list[str]]:
        """Lines opening ``ns`` (nested down to ``compact_from``, compact after), the nesting as
        written, and the closing lines."""
        opens, nesting = [], []
        for i in range(compact_from):
            parent = self.namespaces["::".join(ns.path[: i + 1])]
            opens.append(f"{parent.kind} {parent.path[-1]}")
            nesting.append(parent.path[-1])
        rest = "::".join(ns.path[compact_from:])
        head = f"{ns.kind} {rest}"
        if ns.superclass and not getattr(ns, "_emitted", False):
            head += f" < ::{ns.superclass}"
        opens.append(head)
        nesting.append(rest)
        return opens, nesting, ["end"] * len(opens)

    def _body(self, ns: Namespace) -> list[str]:
        rng = self.rng
        lines: list[str] = []
        # Only modules created before this namespace may be mixed in, so includes never cycle.
        order = list(self.namespaces)
        mine = order.index(ns.name)
        modules = [m for m in self.namespaces.values() if m.kind == "module" and order.index(m.name) < mine and getattr(m, "_emitted", False)]
        for _ in range(rng.randint(0, 2)):
            if not modules:
                break
            verb = rng.choice(["include", "include", "prepend", "extend"])
            if verb != "extend" and ns.kind == "module" and getattr(ns, "_used", False):
                # rdx links chains as they are at the end of the program; Ruby 3 also propagates
                # a module's later includes into its includers, but without removing duplicates
                # (FIXME, see test_late_include_into_used_module). Keep used modules closed.
                continue
            picked = rng.sample(modules, k=min(len(modules), rng.choice([1, 1, 2])))
            for m in picked:
                m._used = True  # type: ignore[attr-defined]
            lines.append(f"{verb} " + ", ".join(f"::{m.name}" for m in picked))
        for _ in range(rng.randint(0, 2)):
            const = rng.choice(["X", "Y", "Z"])
            if const in ns.constants:
                continue
            value = self.next_value
            self.next_value += 1
            ns.constants[const] = value
            self.values[value] = f"{ns.name}::{const}"
            lines.append(f"{const} = {value}")
            if rng.random() < 0.2:
                lines.append(f"private_constant :{const}")
        for method in rng.sample(METHODS, k=rng.randint(0, 2)):
            lines.append(f"def {method}; end")
        if rng.random() < 0.3:
            lines.append(f"def self.{rng.choice(METHODS)}; end")
        if rng.random() < 0.15 and len(self.namespaces) > 1:
            target = rng.choice([m for m in self.namespaces.values() if getattr(m, "_emitted", False)] or [ns])
            alias = rng.choice(["AL", "AK"])
            if alias not in ns.constants:
                ns.constants[alias] = -1
                lines.append(f"{alias} = ::{target.name}")
        return lines

    def _emit(self, ns: Namespace, file: int) -> None:
        depth = len(ns.path) - 1
        compact_from = self.rng.randint(0, depth)
        opens, _, closes = self._opening(ns, compact_from)
        body = self._body(ns)
        ns._emitted = True  # type: ignore[attr-defined]
        out = self.files[file]
        for i, line in enumerate(opens):
            out.append("  " * i + line)
        out.extend("  " * len(opens) + b for b in body)
        for i in reversed(range(len(closes))):
            out.append("  " * i + "end")

    def build(self) -> None:
        rng = self.rng
        for step in range(rng.randint(6, 12)):
            file = min(2, step * 3 // 12)
            emitted = [n for n in self.namespaces.values() if getattr(n, "_emitted", False)]
            if emitted and rng.random() < 0.3:
                self._emit(rng.choice(emitted), file)  # a reopening, in load order
                continue
            parents = [n for n in emitted if len(n.path) < 3]
            parent = rng.choice(parents) if parents and rng.random() < 0.6 else None
            path = (parent.path if parent else []) + [rng.choice(NAMES)]
            name = "::".join(path)
            if name in self.namespaces:
                self._emit(self.namespaces[name], file)
                continue
            kind = rng.choice(["module", "class"])
            ns = Namespace(path, kind)
            if kind == "class":
                classes = [c for c in emitted if c.kind == "class"]
                if classes and rng.random() < 0.5:
                    ns.superclass = rng.choice(classes).name
            self.namespaces[name] = ns
            self._emit(ns, file)
        self._make_probes()

    def _make_probes(self) -> None:
        rng = self.rng
        sites = [None] + list(self.namespaces.values())
        lines = []
        for site in sites:
            pool = NAMES + ["X", "Y", "Z", "AL", "AK"]
            exprs = [rng.choice(pool) for _ in range(4)]
            exprs += [f"{rng.choice(NAMES)}::{rng.choice(pool)}" for _ in range(2)]
            exprs.append(f"::{rng.choice(NAMES)}")
            if site is None:
                nesting: list[str] = []
                opens, closes = [], []
            else:
                opens, nesting, closes = self._opening(site, rng.randint(0, len(site.path) - 1))
                opens[-1] = opens[-1].split(" < ")[0]
            body = []
            for expr in exprs:
                self.probes.append((nesting, expr))
                body.append(f"PROBES << [{len(self.probes) - 1}, (begin; {expr}; rescue NameError; nil; end)]")
            for i, line in enumerate(opens):
                lines.append("  " * i + line)
            lines.extend("  " * len(opens) + b for b in body)
            for i in reversed(range(len(closes))):
                lines.append("  " * i + "end")
        self.probe_source = "\n".join(lines) + "\n"


RUBY_DRIVER = r"""
PROBES = []
%(requires)s
def label(mod)
  return nil unless mod.is_a?(Module)
  return mod.name if mod.name
  s = mod.inspect
  s =~ /\A#<Class:(.*)>\z/ ? "#{$1}::<#{$1.split('::').last}>" : nil
end
out = { "ancestors" => {}, "singleton" => {}, "probes" => [], "owners" => {} }
%(names)s.each do |n|
  m = Object.const_get(n)
  out["ancestors"][n] = m.ancestors.map { |a| label(a) }
  out["singleton"][n] = m.singleton_class.ancestors.map { |a| label(a) }
  %(methods)s.each do |meth|
    owner = (m.instance_method(meth).owner rescue nil)
    out["owners"]["#{n}##{meth}"] = owner && label(owner)
    sowner = (m.singleton_class.instance_method(meth).owner rescue nil)
    out["owners"]["#{n}.#{meth}"] = sowner && label(sowner)
  end
end
PROBES.each do |id, v|
  out["probes"] << [id, v.is_a?(Module) ? "M:#{v.name}" : (v.is_a?(Integer) ? "I:#{v}" : nil)]
end
puts JSON.generate(out)
"""


def _run(program: Program, tmp_path) -> tuple[dict, rdx.Graph]:
    names = [f"f{i}.rb" for i in range(3)] + ["zz_probe.rb"]
    sources = ["\n".join(f) + "\n" for f in program.files] + [program.probe_source]
    for name, src in zip(names, sources, strict=False):
        (tmp_path / name).write_text(src)
    driver = "require 'json'\n" + RUBY_DRIVER % {
        "requires": "\n".join(f'require_relative "{n}"' for n in names),
        "names": json.dumps(sorted(program.namespaces)),
        "methods": json.dumps(METHODS),
    }
    (tmp_path / "main.rb").write_text(driver)
    proc = subprocess.run([RUBY, "--disable-gems", str(tmp_path / "main.rb")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr + "\n" + "\n".join(sources)
    g = rdx.Graph()
    for name, src in zip(names, sources, strict=False):
        g.index_source(f"file://{tmp_path}/{name}", src)
    g.resolve()
    return json.loads(proc.stdout), g


KNOWN = {"Object", "Kernel", "BasicObject", "Module", "Class", "Object::<Object>", "BasicObject::<BasicObject>"}


def _restrict(chain, names):
    return [a for a in chain if a in names]


# make check runs the first 30 seeds; the rest are marked corpus (make test runs all 150).
@pytest.mark.parametrize("seed", [s if s < 30 else pytest.param(s, marks=pytest.mark.corpus) for s in SEEDS])
def test_random_program_agrees_with_ruby(seed, tmp_path):
    assert RUBY, "ruby is required (make test installs it)"
    program = Program(seed)
    program.build()
    ruby, g = _run(program, tmp_path)
    names = set(program.namespaces) | KNOWN | {f"{n}::<{n.split('::')[-1]}>" for n in program.namespaces}
    for name, chain in ruby["ancestors"].items():
        # ``require "json"`` in the driver adds its own module to Object; compare program modules
        # plus the core chain.
        assert _restrict([a.name for a in g[name].ancestors], names) == _restrict(chain, names), f"ancestors of {name} (seed {seed})"
    for name, chain in ruby["singleton"].items():
        expected = _restrict(chain, names)
        got = _restrict([a.name for a in g[name].singleton_class.ancestors], names)
        assert got == expected, f"singleton ancestors of {name} (seed {seed})"
    for key, owner in ruby["owners"].items():
        ns, sep, method = key.partition("#") if "#" in key else key.partition(".")
        decl = g[ns] if sep == "#" else g[ns].singleton_class
        found = decl.find_member(f"{method}()")
        assert (found.owner.name if found else None) == owner, f"owner of {key} (seed {seed})"
    for pid, value in ruby["probes"]:
        nesting, expr = program.probes[pid]
        decl = g.resolve_constant(expr, nesting)
        if decl is not None and decl.kind == "ConstantAlias":
            decl = decl.target
        if value is None:
            got = None
        elif value.startswith("M:"):
            got = f"M:{decl.name}" if decl is not None else None
        else:
            got = f"I:{next((v for v, n in program.values.items() if decl is not None and n == decl.name), None)}"
        assert got == value, f"probe {expr!r} in {nesting} (seed {seed}): ruby {value}, rdx {decl}"


def test_late_include_into_used_module_is_linked_at_the_end():
    """Ruby 3 propagates ``D.include(A)`` into classes that already prepended ``D`` without
    removing duplicates ([A, D, A] below); so does rdx (tests/test_differential_ruby.py asks Ruby)."""
    g = rdx.Graph()
    g.index_source("file:///late.rb", "module A; end\nmodule D; end\nclass B\n  prepend A, D\nend\nmodule D\n  include A\nend\n")
    g.resolve()
    # Ruby 3.1: B.ancestors.take(4) == [A, D, A, B]
    assert [a.name for a in g["B"].ancestors][:4] == ["A", "D", "A", "B"]
