"""References that Ruby makes without writing a call: operators, element access,
op-assignments, attribute-assignment chains, ``&:sym`` and ``m(k:)`` (rdx.ruby.discover.calls).

Ruby is the oracle: every method of ``Probe`` logs the line it was called from, and the sites
below run once. For each line of ``sites.rb``, the methods rdx reports as called there (among
Probe's) must be the ones Ruby logged, as many times, each located at the text that calls it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conftest import build_graph, run_ruby

from rdx.ruby.discover.parse import discover_source

# Every method a site may call; each logs [line, name] and returns what the sites need.
PROBE = """\
class Probe
  LOG = []
  NAMES = %i[+ - * / % ** == != < <= > >= <=> << >> & | ^ =~ !~ === [] []= ! -@ +@ ~
             x x= n n= y z= m k name]

  def [](*args); log(:[]); end
  def []=(*args); log(:[]=); end

  (NAMES - %i[[] []=]).each do |op|
    define_method(op) { |*args| log(op) }
  end

  private def log(op)
    loc = caller_locations(2, 1)[0]
    LOG << [loc.lineno, op.to_s] if loc.path.end_with?("sites.rb")
    op == :n ? nil : self
  end
end
"""

# One site per line, so that lines tell the sites apart.
SITES = """\
class Site < Probe
  def run(a, b, list)
    a + b
    a - b
    a * b
    a / b
    a % b
    a ** b
    a == b
    a != b
    a < b
    a <= b
    a > b
    a >= b
    a <=> b
    a << b
    a >> b
    a & b
    a | b
    a ^ b
    a =~ b
    a !~ b
    a === b
    a[1]
    a[1] = b
    a[1] += b
    self[2]
    self[2] = b
    !a
    not a
    -a
    +a
    ~a
    [-1, +2.0]
    a && b
    a || b
    a and b
    a or b
    self.x += 1
    a.n ||= b
    a.x &&= b
    a.y.z = b
    x.y.z = b
    self.x = b
    list.map(&:name)
    m(k:)
    { k: }
    k = 1
    m(k:)
    a.x -= b
  end
end
Site.new.run(Site.new, Site.new, [Site.new])
"""

ASK = """\
require_relative "lib/probe"
require_relative "lib/sites"
Probe::LOG.each { |line, name| puts "#{line}\\t#{name}" }
puts "NAMES\\t" + Probe::NAMES.join(" ")
"""


def _ruby_calls(tmp_path: Path) -> tuple[Counter[tuple[int, str]], set[str]]:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "probe.rb").write_text(PROBE)
    (tmp_path / "lib" / "sites.rb").write_text(SITES)
    calls: Counter[tuple[int, str]] = Counter()
    names: set[str] = set()
    for row in run_ruby(ASK, tmp_path).splitlines():
        first, second = row.split("\t")
        if first == "NAMES":
            names = set(second.split())
        else:
            calls[(int(first), second)] += 1
    return calls, names


def _located_text(name: str) -> set[str]:
    """What the source says where a call of ``name`` is located."""
    if name in ("[]", "[]="):
        return {"[1]", "[2]"}
    texts = {name, name.removesuffix("="), name.removesuffix("@")}
    return texts | ({"not"} if name == "!" else set())


def test_operator_and_implicit_calls_match_ruby(tmp_path: Path) -> None:
    calls, names = _ruby_calls(tmp_path)
    assert calls[(3, "+")] == 1 and calls[(24, "[]")] == 1  # The harness sees what it should.
    g = build_graph({"probe.rb": PROBE, "sites.rb": SITES})
    lines = SITES.splitlines()
    found: Counter[tuple[int, str]] = Counter()
    for ref in g.method_references:
        if not ref.location.path.endswith("sites.rb") or ref.name not in names:
            continue
        found[(ref.location.start_line, ref.name)] += 1
        loc = ref.location
        assert loc.start_line == loc.end_line
        text = lines[loc.start_line - 1][loc.start_column : loc.end_column]
        assert text in _located_text(ref.name), (ref.name, loc, text)
    # The last line of SITES runs the sites; its ``new`` calls are not Probe's.
    assert sorted(found.items()) == sorted(calls.items())


def test_references_to_an_operator_include_its_sites() -> None:
    g = build_graph({"probe.rb": PROBE, "sites.rb": SITES})
    where = {(r.location.start_line, r.location.start_column) for r in g.references_to("Probe#[]=()") if r.location.path.endswith("sites.rb")}
    assert {(25, 5), (26, 5), (28, 8)} <= where
    # ``self[2]`` resolves through the receiver's class, exactly.
    exact = [r for r in g.references_to("Probe#[]()") if r.certain and r.location.path.endswith("sites.rb")]
    assert [(r.location.start_line, r.location.start_column) for r in exact] == [(27, 8)]
    # Go to definition from the bracket (what the LSP asks) reaches ``def []``.
    target = g.definition_at("/fixture/sites.rb", 27, 8)
    assert target is not None and target.name == "Probe#[]()"
    assert [loc.start_line for loc in target.locations] == [PROBE.splitlines().index("  def [](*args); log(:[]); end") + 1]


CONSTANTS = """\
module M
  READ = []
  def self.const_missing(name)
    READ << name.to_s
    40
  end
  X += 1
  Y = 5
  Y ||= 6
  M::Z += 2
  W = 3
  H = { W: }
end
"""


def test_op_assignment_of_a_constant_reads_it(tmp_path: Path) -> None:
    """``X += 1`` reads ``X`` (Ruby asks ``const_missing`` for it), ``Y ||= 6`` reads ``Y``
    (its value stays) and ``{ W: }`` reads ``W``; rdx reports each as a reference to the
    constant, at the name."""
    out = run_ruby(CONSTANTS + 'puts M::READ.join(" "), M::X, M::Y, M::Z, M::H[:W]\n', tmp_path).split("\n")
    assert out[:5] == ["X Z", "41", "5", "42", "3"]
    g = build_graph({"c.rb": CONSTANTS})
    lines = CONSTANTS.splitlines()

    def read_at(name: str) -> list[str]:
        return [lines[r.location.start_line - 1][r.location.start_column : r.location.end_column] for r in g.references_to(name)]

    # Each constant Ruby read is referenced where it was read (and only ``Y ||= 6`` reads Y).
    assert read_at("M::X") == ["X"]
    assert read_at("M::Y") == ["Y"] and g.references_to("M::Y")[0].location.start_line == 9
    assert read_at("M::Z") == ["M::Z"]
    # ``{ W: }`` reads W (H holds its value).
    assert read_at("M::W") == ["W"]


# -- directives on an explicit constant receiver (rdx.ruby.discover.receivers) -----------------------

RECEIVERS = """\
class Bar
  def old = 1
  def self.cm = 2
  def self.cm2 = 3
  def gone = 4
  def keep = 5
  X = 1
  Y = 2
end
Bar.alias_method(:new_name, :old)
Bar.send(:alias_method, :other, :old)
Bar.private_constant :X
Bar.send(:private_constant, :Y)
Bar.private_class_method :cm
Bar.private_class_method [:cm2]
Bar.undef_method :gone
Bar.send(:private, :keep)
module Outer
  class Inner
    def z = 1
  end
  Inner.alias_method :zz, :z
end
"""

RECEIVERS_ASK = """\
def methods_of(k) = k.instance_methods(false).map { |m| "#{m}:public" } + k.private_instance_methods(false).map { |m| "#{m}:private" }
puts methods_of(Bar).sort.join(" ")
puts methods_of(Bar.singleton_class).sort.join(" ")
puts Bar.constants.sort.join(" ")
puts methods_of(Outer::Inner).sort.join(" ")
puts (Object.private_instance_methods(false) + Object.instance_methods(false)).grep(/new_name|other|zz/).join(" ")
"""


def _methods_of(decl) -> list[str]:
    return sorted(f"{m.unqualified_name.removesuffix('()')}:{m.visibility}" for m in decl.members if m.kind == "Method" and m.visibility in ("public", "private"))


def test_directives_on_a_constant_receiver_act_on_it(tmp_path: Path) -> None:
    """``Bar.alias_method``, ``Bar.private_constant``, ``Bar.private_class_method``,
    ``Bar.undef_method`` and their ``send`` forms change Bar (or its singleton class), not the
    scope around the call."""
    lines = run_ruby(RECEIVERS + RECEIVERS_ASK, tmp_path).split("\n")
    g = build_graph({"receivers.rb": RECEIVERS})
    assert _methods_of(g["Bar"]) == lines[0].split()
    assert _methods_of(g["Bar"].singleton_class) == lines[1].split()
    assert sorted(m.unqualified_name for m in g["Bar"].members if m.kind == "Constant" and m.visibility == "public") == lines[2].split()
    assert _methods_of(g["Outer::Inner"]) == lines[3].split()
    assert [m.unqualified_name for m in g["Object"].members if m.unqualified_name in ("new_name()", "other()", "zz()")] == lines[4].split()


def test_directives_on_a_constant_receiver_record_it() -> None:
    """Discovery's half of the rule above: each record names the receiver it acts on, sits in
    the scope where that receiver is looked up and is located at the name it declares."""
    result = discover_source("file:///r.rb", RECEIVERS.encode())
    src = RECEIVERS.encode()
    acting = [
        (d.kind, d.name, d.receiver.text, d.self_receiver, d.visibility, src[d.name_start : d.name_end].decode())
        for d in result.definitions
        if d.receiver is not None
    ]
    assert acting == [
        ("MethodAlias", "new_name", "Bar", False, "public", ":new_name"),
        ("MethodAlias", "other", "Bar", False, "public", ":other"),
        ("ConstantVisibility", "X", "Bar", False, "private", ":X"),
        ("ConstantVisibility", "Y", "Bar", False, "private", ":Y"),
        ("MethodVisibility", "cm", "Bar", True, "private", ":cm"),
        ("MethodVisibility", "cm2", "Bar", True, "private", ":cm2"),
        ("MethodVisibility", "gone", "Bar", False, "undefined", ":gone"),
        ("MethodVisibility", "keep", "Bar", False, "private", ":keep"),
        ("MethodAlias", "zz", "Inner", False, "public", ":zz"),
    ]
    inner_alias = next(d for d in result.definitions if d.name == "zz")
    assert result.definitions[inner_alias.parent].name == "Outer"
