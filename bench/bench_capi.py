"""Benchmark: per-call overhead of the C ABI against the same calls in Python, same run.

Usage: python bench/bench_capi.py [ROOT NAME] [--iterations N]
(default: rdx's example project and Shop::Models::Product; `make bench` runs it on the Debian
corpus with ActiveRecord::Base when that is installed.)

Builds librdx.so (if needed) and bench/bench_capi.c, which times through the C ABI
``rdx_graph_get_declaration`` (plus the ``rdx_declaration_free`` a C caller must pair with it),
a walk of the declaration's ancestors with an iterator (each item released), the same walk
fetching each item's name, and the batch calls ``rdx_declaration_ancestor_names`` and
``rdx_declaration_member_names`` (one call and one ``rdx_string_array_free`` for the list),
members also item by item. Then times the same in this interpreter (``Graph.get(name)``,
``[a for a in decl.ancestors]``, ``[a.name for a in decl.ancestors]``, ...) on a graph of the
same files, and, when ``ruby`` is installed, the Ruby binding's ``decl.ancestors.map(&:name)``
against ``decl.ancestor_names``. Prints every time, the C ABI against Python, and the batch
calls against the walks they replace. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import rdx

ROOT = Path(__file__).resolve().parent.parent
BINDINGS = ROOT / "bindings"
EXAMPLE = ROOT / "rdx" / "data" / "example"

# The Ruby half: per-item objects (each a handle, released by its finalizer) against one call.
RUBY_SCRIPT = """
require "rdx"
root, name, n = ARGV[0], ARGV[1], Integer(ARGV[2])
graph = Rdx::Graph.new
graph.index_all([root])
graph.resolve
decl = graph[name] or abort("no declaration #{name}")
raise "names differ" unless decl.ancestors.map(&:name) == decl.ancestor_names
raise "names differ" unless decl.members.map(&:name) == decl.member_names
def time_ns(n)
  (n / 10 + 1).times { yield }
  GC.start
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  n.times { yield }
  (Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - start).fdiv(n)
end
puts "ancestor_names_iter_ns=#{time_ns(n) { decl.ancestors.map(&:name) }}"
puts "ancestor_names_batch_ns=#{time_ns(n) { decl.ancestor_names }}"
puts "member_names_iter_ns=#{time_ns(n) { decl.members.map(&:name) }}"
puts "member_names_batch_ns=#{time_ns(n) { decl.member_names }}"
"""


def build_program(workdir: Path) -> tuple[Path, Path]:
    proc = subprocess.run([sys.executable, str(BINDINGS / "build_capi.py")], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"building librdx failed:\n{proc.stderr}")
    library = Path(proc.stdout.strip().splitlines()[-1])
    gcc = shutil.which("gcc") or sys.exit("gcc is required")
    program = workdir / "bench_capi"
    subprocess.run(
        [gcc, "-O2", "-std=c11", f"-I{BINDINGS}", str(ROOT / "bench" / "bench_capi.c"), f"-L{library.parent}", "-lrdx",
         f"-Wl,-rpath,{library.parent}", "-o", str(program)],
        check=True,
    )  # fmt: skip
    return program, library


def time_c(program: Path, root: str, name: str, iterations: int) -> dict[str, float]:
    proc = subprocess.run([str(program), root, name, str(iterations)], capture_output=True, text=True, env={}, check=False)
    if proc.returncode != 0:
        sys.exit(f"bench_capi failed:\n{proc.stderr}")
    return {key: float(value) for key, value in (item.split("=") for item in proc.stdout.split())}


def time_ruby(library: Path, root: str, name: str, iterations: int) -> dict[str, float] | None:
    ruby = shutil.which("ruby")
    if ruby is None:
        return None
    env = {"RDX_LIB": str(library), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [ruby, f"-I{BINDINGS / 'ruby' / 'lib'}", "-e", RUBY_SCRIPT, root, name, str(iterations)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"the Ruby benchmark failed:\n{proc.stderr}")
    return {key: float(value) for key, value in (item.split("=") for item in proc.stdout.split())}


def _time_ns(function: Callable[[], object], iterations: int) -> float:
    for _ in range(iterations // 10 + 1):
        function()
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        function()
    return (time.perf_counter_ns() - t0) / iterations


def time_python(root: str, name: str, iterations: int) -> dict[str, float]:
    graph = rdx.Graph()
    t0 = time.perf_counter()
    graph.index_all([root])
    graph.resolve()
    index_s = time.perf_counter() - t0
    get = graph.get
    for _ in range(iterations // 10 + 1):
        get(name)
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        get(name)
    get_ns = (time.perf_counter_ns() - t0) / iterations
    decl = graph[name]
    for _ in range(iterations // 10 + 1):
        [a for a in decl.ancestors]  # noqa: C416 - the walk a caller does, item by item
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        [a for a in decl.ancestors]  # noqa: C416
    walk_ns = (time.perf_counter_ns() - t0) / iterations
    return {
        "index_s": index_s,
        "get_ns": get_ns,
        "ancestors_ns": walk_ns,
        "ancestors": len(decl.ancestors),
        "ancestor_names_ns": _time_ns(lambda: [a.name for a in decl.ancestors], iterations),
        "members": len(decl.members),
        "member_names_ns": _time_ns(lambda: [m.name for m in decl.members], iterations),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="C ABI per-call overhead against Python")
    parser.add_argument("root", nargs="?", default=str(EXAMPLE))
    parser.add_argument("name", nargs="?", default="Shop::Models::Product")
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--no-ruby", action="store_true", help="skip the Ruby binding's rows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        program, library = build_program(Path(tmp))
        c = time_c(program, args.root, args.name, args.iterations)
    py = time_python(args.root, args.name, args.iterations)
    for what in ("ancestors", "members"):
        if int(c[what]) != int(py[what]):
            sys.exit(f"the C ABI saw {int(c[what])} {what}, Python {int(py[what])}")
    rb = None if args.no_ruby else time_ruby(library, args.root, args.name, min(args.iterations, 2000))
    ancestors, members = int(py["ancestors"]), int(py["members"])
    print(f"root {args.root}, {args.name} ({ancestors} ancestors, {members} members), {args.iterations} iterations")
    print(f"index+resolve: C ABI {c['index_s']:.2f} s, Python {py['index_s']:.2f} s")
    print(f"{'operation':<48}{'C ABI':>12}{'Python':>12}{'ratio':>8}")
    rows = [
        ("get_declaration (one call)", c["get_ns"], py["get_ns"]),
        ("get_declaration + declaration_free", c["get_ns"] + c["free_ns"], py["get_ns"]),
        ("ancestors walk (iterator, items freed)", c["ancestors_ns"], py["ancestors_ns"]),
        ("  per ancestor", c["ancestors_ns"] / ancestors, py["ancestors_ns"] / ancestors),
        ("ancestor names, item by item (iterator + name)", c["ancestor_names_iter_ns"], py["ancestor_names_ns"]),
        ("ancestor names, batch (ancestor_names)", c["ancestor_names_batch_ns"], py["ancestor_names_ns"]),
        ("  per ancestor, batch", c["ancestor_names_batch_ns"] / ancestors, py["ancestor_names_ns"] / ancestors),
        ("member names, item by item (iterator + name)", c["member_names_iter_ns"], py["member_names_ns"]),
        ("member names, batch (member_names)", c["member_names_batch_ns"], py["member_names_ns"]),
    ]
    for label, c_ns, py_ns in rows:
        print(f"{label:<48}{c_ns / 1000:>10.2f}us{py_ns / 1000:>10.2f}us{c_ns / py_ns:>7.1f}x")
    print("batch call against the item-by-item walk it replaces (same answer):")
    speedups = [
        ("C ABI, ancestor names", c["ancestor_names_iter_ns"], c["ancestor_names_batch_ns"]),
        ("C ABI, member names", c["member_names_iter_ns"], c["member_names_batch_ns"]),
    ]
    if rb is not None:
        speedups += [
            ("Ruby, ancestors.map(&:name) -> ancestor_names", rb["ancestor_names_iter_ns"], rb["ancestor_names_batch_ns"]),
            ("Ruby, members.map(&:name) -> member_names", rb["member_names_iter_ns"], rb["member_names_batch_ns"]),
        ]
    for label, before_ns, after_ns in speedups:
        print(f"  {label:<46}{before_ns / 1000:>10.2f}us -> {after_ns / 1000:>8.2f}us{before_ns / after_ns:>7.1f}x faster")


if __name__ == "__main__":
    main()
