"""Differential testing support: Ruby programs with constant probes, run by real Ruby and
indexed by rdx, plus a seeded generator of random programs.

A program is a set of files (loaded in name order) whose text may contain probe markers
``PROBE(id, EXPR)``. Before Ruby or rdx sees a file, each marker is expanded into
``$p[id] = [(EXPR rescue nil), ::Module.nesting]``: Ruby records what ``EXPR`` names at that
lexical site (``nil`` when it raises NameError) together with the cref chain. Both Ruby and rdx
read the same expanded text, so the constant reference ``EXPR`` sits at a known line and column
in the file rdx indexed.

Constants holding plain values are given their own fully qualified name as a string
(``X = "A::B::X"``), so a value printed by Ruby maps straight back to the rdx declaration.

``generate(seed)`` builds a random program: modules and classes (nested, compact, compact
through a constant alias, ``class ::Top`` inside another namespace) reopened across three
files, superclasses (also BasicObject), include/prepend/extend (several at once, ``extend
self``, ``class << self; include``, a top-level include into Object), value constants, private
constants, constant aliases, methods (def, ``def self.``, ``class << self``, attr_accessor,
module_function, alias_method), and probes in method bodies (run once everything is loaded)
and in class bodies of a last file. Superclass and mixin references are written relatively
where a first Ruby run confirmed the relative name means the intended module.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

__all__ = ["PROBE_RE", "Program", "Probe", "expand_probes", "generate"]

PROBE_RE = re.compile(r"PROBE\((\w+), ([^()]+?)\)")


@dataclass
class Probe:
    id: str
    file: str
    line: int  # 1-based
    column: int  # 0-based byte column of EXPR
    expr: str
    written: list[str] | None = None  # lexical nesting as written, outermost first (if known)


@dataclass
class Program:
    """Files (name -> text with PROBE markers) and what to compare."""

    files: dict[str, str]
    # Constant paths whose ancestors and singleton-class ancestors are compared. A trailing
    # ``.singleton_class`` (repeatable) compares that singleton class instead.
    targets: list[str] = field(default_factory=list)
    # (target, method name): owner and visibility of ``target.instance_method(name)``.
    methods: list[tuple[str, str]] = field(default_factory=list)
    # Ruby statements run after every file is loaded (to execute probes in method bodies).
    calls: list[str] = field(default_factory=list)
    # Probe id -> lexical nesting as written, outermost first (generated programs know it).
    written: dict[str, list[str]] = field(default_factory=dict)


def expand_probes(files: dict[str, str], written: dict[str, list[str]] | None = None) -> tuple[dict[str, str], dict[str, Probe]]:
    """Expand PROBE markers; return the expanded files and the probes by id."""
    out: dict[str, str] = {}
    probes: dict[str, Probe] = {}
    for name, text in files.items():
        lines = []
        for lineno, line in enumerate(text.split("\n"), start=1):
            pieces = []
            pos = 0
            col = 0
            for m in PROBE_RE.finditer(line):
                pid, expr = m.group(1), m.group(2).strip()
                if pid in probes:
                    raise ValueError(f"probe id {pid} used twice")
                before = line[pos : m.start()]
                prefix = f"$p[{pid!r}] = [("
                pieces.append(before + prefix)
                col += len(before.encode()) + len(prefix)
                probes[pid] = Probe(pid, name, lineno, col, expr, (written or {}).get(pid))
                rest = f"{expr} rescue nil), ::Module.nesting]"
                pieces.append(rest)
                col += len(rest.encode())
                pos = m.end()
            pieces.append(line[pos:])
            lines.append("".join(pieces))
        out[name] = "\n".join(lines)
    return out, probes


# -- the random program generator ---------------------------------------------------------

LEAVES = ["A", "B", "C", "D", "E", "F"]
VALUE_CONSTS = ["X", "Y", "Z"]
ALIAS_CONSTS = ["AL", "AK"]
METHODS = ["m1", "m2", "m3", "m4"]
CORE_NAMES = ["Comparable", "Kernel", "Object", "String", "BasicObject"]


@dataclass(eq=False)
class _Ns:
    path: list[str]
    kind: str  # "class" | "module"
    superclass: str | None = None  # fully qualified, or "BasicObject"
    emitted: bool = False
    used: bool = False  # mixed into something (then it gets no further include/prepend)
    consts: dict[str, str] = field(default_factory=dict)  # name -> "value" | "alias:<fqn>"
    private: set[str] = field(default_factory=set)
    mixins: list[str] = field(default_factory=list)  # included/prepended modules
    sealed: bool = False  # no nested namespaces may be added (its constants leak into Object)

    @property
    def name(self) -> str:
        return "::".join(self.path)


class _Gen:
    """One random program. Everything is drawn from ``self.rng`` (seeded), so a seed always
    produces the same text."""

    def __init__(self, seed: int, choose: dict[int, bool] | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.ns: dict[str, _Ns] = {}
        self.order: list[str] = []  # creation order (mixins only go from earlier to later)
        self.files: list[list[str]] = [[], [], []]
        self.calls: list[str] = []
        self.written: dict[str, list[str]] = {}
        self.next_probe = 0
        self.method_no = 0
        # Relative references (superclasses, mixins): pass 1 writes them absolute and records a
        # check of the relative candidate; pass 2 writes the candidate where Ruby confirmed it.
        self.choose = choose
        self.checks = 0

    # -- helpers -------------------------------------------------------------------------

    def emitted(self, kind: str | None = None) -> list[_Ns]:
        return [n for n in (self.ns[k] for k in self.order) if n.emitted and (kind is None or n.kind == kind)]

    def probe_expr(self) -> str:
        rng = self.rng
        pool = LEAVES + VALUE_CONSTS + ALIAS_CONSTS
        known = [(n, c) for n in self.emitted() for c in n.consts]
        if known and rng.random() < 0.35:
            # A name that exists somewhere: unqualified, or through a namespace path.
            owner, const = rng.choice(known)
            if rng.random() < 0.5:
                return const
            return f"{owner.path[-1]}::{const}" if rng.random() < 0.5 else f"{owner.name}::{const}"
        r = rng.random()
        if r < 0.45:
            return rng.choice(pool)
        if r < 0.55:
            return rng.choice(CORE_NAMES + LEAVES)
        if r < 0.8:
            return f"{rng.choice(LEAVES + ALIAS_CONSTS)}::{rng.choice(pool)}"
        if r < 0.9:
            return f"::{rng.choice(LEAVES)}" + (f"::{rng.choice(pool)}" if rng.random() < 0.5 else "")
        if r < 0.95:
            return f"Object::{rng.choice(pool)}"
        return f"{rng.choice(LEAVES)}::{rng.choice(LEAVES + ALIAS_CONSTS)}::{rng.choice(pool)}"

    def new_probe(self, nesting: list[str] | None) -> str:
        pid = f"q{self.next_probe}"
        self.next_probe += 1
        if nesting is not None:
            self.written[pid] = list(nesting)
        return f"PROBE({pid}, {self.probe_expr()})"

    def has_children(self, ns: _Ns) -> bool:
        return any(k.startswith(ns.name + "::") for k in self.ns)

    def closure(self, ns: _Ns) -> list[_Ns]:
        """``ns`` and every module it includes or prepends, transitively."""
        out, todo = [], [ns]
        while todo:
            n = todo.pop()
            if n not in out:
                out.append(n)
                todo.extend(self.ns[m] for m in n.mixins)
        return out

    def alias_path_to(self, target: _Ns) -> str | None:
        """A top-level-reachable constant path (``P::AL``) that is an alias of ``target``."""
        found = []
        for n in self.emitted():
            for c, v in n.consts.items():
                if v == f"alias:{target.name}" and c not in n.private:
                    found.append(f"{n.name}::{c}")
        return self.rng.choice(found) if found else None

    def ref_to(self, target: str) -> tuple[str, str | None]:
        """How to write a reference to namespace ``target`` (fully qualified) here, and the
        pass-1 check line (None in pass 2).

        The candidate is a suffix of the name or a constant alias of it; whether it really
        names ``target`` at this site is left to Ruby: pass 1 records
        ``(CAND rescue nil).equal?(::target)`` there, both when the line runs and at the end
        of the program, and pass 2 uses CAND only where both held.
        """
        rng = self.rng
        path = target.split("::")
        cands = ["::".join(path[i:]) for i in range(len(path))]
        for n in self.emitted():
            for c, v in n.consts.items():
                if v == f"alias:{target}" and c not in n.private:
                    cands += [c, f"{n.name}::{c}", f"{n.path[-1]}::{c}"]
        cand = rng.choice(cands)
        relative = rng.random() < 0.6
        k = self.checks
        self.checks += 1
        absolute = f"::{target}"
        if self.choose is None:
            test = f"(({cand}) rescue nil).equal?({absolute})"
            # Now, and again once everything is loaded (the lambda keeps this cref): rdx sees
            # the final program, so a name that only later means something else is avoided.
            return absolute, f"$chk[{k}] = [{test}, -> {{ {test} }}]" if relative else None
        return (cand if relative and self.choose.get(k) else absolute), None

    # -- emitting a namespace ------------------------------------------------------------

    def opening(self, ns: _Ns, first: bool) -> tuple[list[str], list[str]]:
        """Opening lines of ``ns`` and the nesting as written."""
        rng = self.rng
        depth = len(ns.path)
        opens: list[str] = []
        nesting: list[str] = []
        if depth == 1 and rng.random() < 0.2:
            # ``class ::Top`` from inside some other namespace.
            hosts = [h for h in self.emitted() if h is not ns and len(h.path) == 1]
            if hosts:
                host = rng.choice(hosts)
                opens.append(f"{host.kind} {host.name}")
                nesting.append(host.name)
                written = f"::{ns.name}"
            else:
                written = ns.name
        else:
            split = rng.randint(0, depth - 1)  # path[:split] opened nested, the rest compact
            for i in range(split):
                parent = self.ns["::".join(ns.path[: i + 1])]
                opens.append(f"{parent.kind} {parent.path[-1]}")
                nesting.append(parent.path[-1])
            written = "::".join(ns.path[split:])
            if split == 0 and depth > 1 and rng.random() < 0.35:
                # The parent part through a constant alias: ``class P::AL::Leaf``.
                parent = self.ns["::".join(ns.path[:-1])]
                via = self.alias_path_to(parent)
                if via is not None:
                    written = f"{via}::{ns.path[-1]}"
        head = f"{ns.kind} {written}"
        if first and ns.superclass:
            sup, check = self.ref_to(ns.superclass) if ns.superclass != "BasicObject" else ("::BasicObject", None)
            head += f" < {sup}"
            if check is not None:
                # The superclass expression is evaluated in the enclosing scope.
                opens.append(check)
        opens.append(head)
        nesting.append(written)
        return opens, nesting

    def body(self, ns: _Ns, nesting: list[str]) -> list[str]:
        rng = self.rng
        lines: list[str] = []
        mine = self.order.index(ns.name)
        earlier = [m for m in self.emitted("module") if self.order.index(m.name) < mine]
        for _ in range(rng.randint(0, 2)):
            verb = rng.choice(["include", "include", "prepend", "extend"])
            if verb == "extend" and ns.kind == "module" and rng.random() < 0.25:
                ns.used = True  # its own singleton class now includes it
                lines.append("extend self")
                continue
            if not earlier:
                break
            if verb != "extend" and ns.kind == "module" and ns.used:
                # Ruby 3 propagates later includes into existing includers (with duplicates);
                # see test_late_include_into_prepended_module. Keep used modules closed.
                continue
            picked = rng.sample(earlier, k=min(len(earlier), rng.choice([1, 1, 2])))
            in_singleton = verb == "extend" and rng.random() < 0.3
            if verb != "extend":
                ns.mixins.extend(m.name for m in picked)
            args, checks = [], []
            for m in picked:
                m.used = True
                text, check = self.ref_to(m.name)
                args.append(text)
                if check is not None:
                    checks.append(check)
            if in_singleton:
                # The mixin expression is evaluated with the singleton class as cref.
                lines.append("class << self")
                lines.extend("  " + c for c in checks)
                lines.append(f"  include {', '.join(args)}")
                lines.append("end")
            else:
                lines.extend(checks)
                lines.append(f"{verb} " + ", ".join(args))
        for _ in range(rng.randint(0, 2)):
            c = rng.choice(VALUE_CONSTS)
            if c in ns.consts:
                continue
            ns.consts[c] = "value"
            lines.append(f'{c} = "{ns.name}::{c}"')
            if rng.random() < 0.2:
                ns.private.add(c)
                lines.append(f"private_constant :{c}")
        if rng.random() < 0.3:
            c = rng.choice(ALIAS_CONSTS)
            targets = [t for t in self.emitted() if t is not ns]
            if c not in ns.consts and targets:
                t = rng.choice(targets)
                ns.consts[c] = f"alias:{t.name}"
                lines.append(f"{c} = ::{t.name}")
        lines.extend(self.methods_of(ns))
        # Probes in method bodies run at the end (every file loaded): the method's cref is
        # this lexical site.
        for _ in range(rng.randint(1, 3)):
            self.method_no += 1
            meth = f"probe{self.method_no}"
            style = rng.choice(["self", "instance", "singleton_body"])
            if style == "instance" and ns.kind == "module":
                style = "self"
            if style == "self":
                lines.append(f"def self.{meth}")
                lines.append("  " + self.new_probe(nesting))
                lines.append("end")
                self.calls.append(f"::{ns.name}.{meth}")
            elif style == "instance":
                lines.append(f"def {meth}")
                lines.append("  " + self.new_probe(nesting))
                lines.append("end")
                self.calls.append(f"::{ns.name}.instance_method(:{meth}).bind_call(::{ns.name}.allocate)")
            else:
                # The cref is the singleton class: no "as written" nesting for it.
                lines.append("class << self")
                lines.append(f"  def {meth}")
                lines.append("    " + self.new_probe(None))
                lines.append("  end")
                lines.append("end")
                self.calls.append(f"::{ns.name}.{meth}")
        return lines

    def methods_of(self, ns: _Ns) -> list[str]:
        rng = self.rng
        lines = []
        for _ in range(rng.randint(0, 3)):
            m = rng.choice(METHODS)
            style = rng.random()
            if style < 0.45:
                lines.append(f"def {m}; end")
            elif style < 0.6:
                lines.append(f"def self.{m}; end")
            elif style < 0.7:
                lines.append(f"class << self; def {m}; end; end")
            elif style < 0.8:
                lines.append(f"attr_accessor :{m}")
            elif style < 0.9 and ns.kind == "module":
                lines.append(f"def {m}; end")
                lines.append(f"module_function :{m}")
            else:
                other = rng.choice(METHODS)
                if other != m:
                    lines.append(f"def {other}; end")
                    lines.append(f"alias_method :{m}, :{other}")
        return lines

    def emit(self, ns: _Ns, file: int) -> None:
        first = not ns.emitted
        opens, nesting = self.opening(ns, first)
        ns.emitted = True
        body = self.body(ns, nesting)
        self.files[file].extend(_layout(opens, body))

    def final_probes(self) -> list[str]:
        """Class-body probes after everything is loaded: reopen namespaces and probe there,
        also inside ``class << self``."""
        rng = self.rng
        out: list[str] = []
        for _ in range(rng.randint(2, 4)):
            out.append(self.new_probe([]))
        for ns in self.emitted():
            if rng.random() < 0.3:
                continue
            opens, nesting = self.opening(ns, False)
            body = [self.new_probe(nesting) for _ in range(rng.randint(2, 4))]
            if rng.random() < 0.4:
                body.append("class << self")
                body.extend("  " + self.new_probe(None) for _ in range(2))
                body.append("end")
            out.extend(_layout(opens, body))
        return out

    def build(self) -> Program:
        rng = self.rng
        steps = rng.randint(6, 12)
        for step in range(steps):
            file = min(2, step * 3 // steps)
            emitted = self.emitted()
            modules = [m for m in self.emitted("module") if all(not self.has_children(x) for x in self.closure(m))]
            if modules and file > 0 and not self.files[file] and rng.random() < 0.3:
                # A top-level include: into Object, so into (almost) every chain. The
                # module's constants become visible as top-level ones, so it (and what it
                # includes) must have no nested namespaces, now or later: a later top-level
                # ``class X`` would otherwise reopen its X.
                m = rng.choice(modules)
                m.used = True
                for x in self.closure(m):
                    x.sealed = True
                text, check = self.ref_to(m.name)
                if check is not None:
                    self.files[file].append(check)
                self.files[file].append(f"include {text}")
            if emitted and rng.random() < 0.3:
                self.emit(rng.choice(emitted), file)  # a reopening
                continue
            parents = [n for n in emitted if len(n.path) < 3 and not n.sealed]
            parent = rng.choice(parents) if parents and rng.random() < 0.6 else None
            path = (parent.path if parent else []) + [rng.choice(LEAVES)]
            name = "::".join(path)
            if name in self.ns:
                self.emit(self.ns[name], file)
                continue
            kind = rng.choice(["module", "class"])
            ns = _Ns(path, kind)
            if kind == "class":
                classes = self.emitted("class")
                r = rng.random()
                if classes and r < 0.5:
                    ns.superclass = rng.choice(classes).name
                elif r < 0.58:
                    ns.superclass = "BasicObject"
            self.ns[name] = ns
            self.order.append(name)
            self.emit(ns, file)
        files = {f"f{i}.rb": "\n".join(lines) + "\n" for i, lines in enumerate(self.files)}
        files["zz_probes.rb"] = "\n".join(self.final_probes()) + "\n"
        names = [n.name for n in self.emitted()]
        methods = [(t, m) for t in names for m in METHODS] + [(f"{t}.singleton_class", m) for t in names for m in METHODS]
        return Program(files=files, targets=names, methods=methods, calls=self.calls, written=self.written)


def _layout(opens: list[str], body: list[str]) -> list[str]:
    """Indented lines: ``opens`` (scope openings, and ``$chk`` lines that run in the scope
    opened so far), ``body``, then one ``end`` per opening."""
    out = []
    depth = 0
    for line in opens:
        out.append("  " * depth + line)
        if not line.startswith("$chk"):
            depth += 1
    out.extend("  " * depth + b for b in body)
    for i in reversed(range(depth)):
        out.append("  " * i + "end")
    return out


def generate(seed: int, run_ruby=None) -> Program:
    """The random program for ``seed`` (deterministic).

    With ``run_ruby`` (a callable taking the files and a driver snippet, returning stdout),
    relative superclass and mixin references are used where Ruby confirmed they name the
    intended module; without it every such reference is written absolute (``::A::B``).
    """
    first = _Gen(seed).build()
    if run_ruby is None:
        return _Gen(seed, choose={}).build()
    out = run_ruby(first.files, '$chk.each { |k, (now, later)| puts "#{k} #{now && later.call}" }')
    choose = {}
    for line in out.splitlines():
        k, v = line.split()
        choose[int(k)] = v == "true"
    return _Gen(seed, choose=choose).build()
