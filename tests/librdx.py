"""Helpers of the binding tests: build librdx.so once per session and compile C programs
against it with gcc (the same commands bindings/README.md shows)."""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINDINGS = ROOT / "bindings"
FIXTURE = ROOT / "rdx" / "data" / "example"
GCC = shutil.which("gcc")
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", f"-I{BINDINGS}"]


@functools.cache
def build_library() -> Path:
    """bindings/build/librdx.so, built (or found up to date) by the script `make capi` runs."""
    proc = subprocess.run([sys.executable, str(BINDINGS / "build_capi.py")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"building librdx failed:\n{proc.stdout}\n{proc.stderr}"
    path = Path(proc.stdout.strip().splitlines()[-1])
    assert path == BINDINGS / "build" / "librdx.so" and path.exists()
    return path


def compile_c(source: Path, output: Path, library_dir: Path, rpath: bool = True) -> Path:
    """Compile and link ``source`` against librdx in ``library_dir``; with ``rpath`` the program
    finds the library by itself, otherwise it needs LD_LIBRARY_PATH."""
    assert GCC is not None, "gcc is required for the C ABI tests"
    command = [GCC, *CFLAGS, str(source), f"-L{library_dir}", "-lrdx", "-o", str(output)]
    if rpath:
        command.append(f"-Wl,-rpath,{library_dir}")
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"gcc failed:\n{' '.join(command)}\n{proc.stderr}"
    return output


def run_clean(command: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run with an empty environment (plus ``env``): the library must need nothing else."""
    return subprocess.run(command, capture_output=True, text=True, env=env or {}, timeout=timeout)
