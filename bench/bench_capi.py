"""Benchmark: per-call overhead of the C ABI against the same calls in Python, same run.

Usage: python bench/bench_capi.py [ROOT NAME] [--iterations N]
(default: rdx's example project and Shop::Models::Product; `make bench` runs it on the Debian
corpus with ActiveRecord::Base when that is installed.)

Builds librdx.so (if needed) and bench/bench_capi.c, which times through the C ABI
``rdx_graph_get_declaration`` (plus the ``rdx_declaration_free`` a C caller must pair with it)
and a walk of the declaration's ancestors with an iterator (each item released). Then times
``Graph.get(name)`` and ``[a for a in decl.ancestors]`` in this interpreter on a graph of the
same files, and prints both and their ratio. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rdx

ROOT = Path(__file__).resolve().parent.parent
BINDINGS = ROOT / "bindings"
EXAMPLE = ROOT / "rdx" / "data" / "example"


def build_program(workdir: Path) -> Path:
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
    return program


def time_c(program: Path, root: str, name: str, iterations: int) -> dict[str, float]:
    proc = subprocess.run([str(program), root, name, str(iterations)], capture_output=True, text=True, env={}, check=False)
    if proc.returncode != 0:
        sys.exit(f"bench_capi failed:\n{proc.stderr}")
    return {key: float(value) for key, value in (item.split("=") for item in proc.stdout.split())}


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
    return {"index_s": index_s, "get_ns": get_ns, "ancestors_ns": walk_ns, "ancestors": len(decl.ancestors)}


def main() -> None:
    parser = argparse.ArgumentParser(description="C ABI per-call overhead against Python")
    parser.add_argument("root", nargs="?", default=str(EXAMPLE))
    parser.add_argument("name", nargs="?", default="Shop::Models::Product")
    parser.add_argument("--iterations", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        program = build_program(Path(tmp))
        c = time_c(program, args.root, args.name, args.iterations)
    py = time_python(args.root, args.name, args.iterations)
    if int(c["ancestors"]) != int(py["ancestors"]):
        sys.exit(f"the C ABI walked {int(c['ancestors'])} ancestors, Python {int(py['ancestors'])}")
    print(f"root {args.root}, {args.name} ({int(py['ancestors'])} ancestors), {args.iterations} iterations")
    print(f"index+resolve: C ABI {c['index_s']:.2f} s, Python {py['index_s']:.2f} s")
    print(f"{'operation':<44}{'C ABI':>12}{'Python':>12}{'ratio':>8}")
    rows = [
        ("get_declaration (one call)", c["get_ns"], py["get_ns"]),
        ("get_declaration + declaration_free", c["get_ns"] + c["free_ns"], py["get_ns"]),
        ("ancestors walk (iterator, items freed)", c["ancestors_ns"], py["ancestors_ns"]),
        ("  per ancestor", c["ancestors_ns"] / c["ancestors"], py["ancestors_ns"] / py["ancestors"]),
    ]
    for label, c_ns, py_ns in rows:
        print(f"{label:<44}{c_ns / 1000:>10.2f}us{py_ns / 1000:>10.2f}us{c_ns / py_ns:>7.1f}x")


if __name__ == "__main__":
    main()
