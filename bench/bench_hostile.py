"""Benchmark: what hostile input costs, against ordinary input of the same size, in the same run.

Usage: python bench/bench_hostile.py [--memory-limit-gb 4]

Printed, each as time and peak RSS of a fresh ``rdx index --no-cache`` (a child process under
an address-space limit, so a regression fails here instead of taking the machine down):
- nesting: 20,000 and 100,000 nested ``module M`` (260 KB, 1.3 MB), and 2,000 nested beside a
  ``db/schema.rb``, each against a flat file of the same size (as many sibling modules);
- regex: grep for ``(.*){1000}`` and ``((.*){30}){30}`` (RE2, no captures) against ``.*``,
  which matches the same lines, over the same project, and a 1 MB pattern (refused at once);
and the ratio of each hostile case to its baseline. Linear cost means ratios near 1.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

import rdx  # noqa: E402

SCHEMA = 'ActiveRecord::Schema.define(version: 1) do\n  create_table "ms" do |t|\n    t.string "name"\n  end\nend\n'


def nested(depth: int) -> str:
    return "module M\n" * depth + "  X = 1\n" + "end\n" * depth


def flat(depth: int) -> str:
    """As many modules as ``nested(depth)``, side by side, padded to the same size."""
    text = "module M\nend\n" * depth
    return text + "#" * max(0, len(nested(depth)) - len(text) - 1) + "\n"


def index_cost(files: dict[str, str], limit_bytes: int) -> tuple[float, float, str]:
    """(seconds, peak RSS MB, outcome) of ``rdx index --no-cache`` on a project of ``files``."""
    project = tempfile.mkdtemp(prefix="rdx-hostile-")
    try:
        for rel, text in files.items():
            path = os.path.join(project, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "rdx.cli.main", "index", "--no-cache", "--jobs", "1", project],
            preexec_fn=cap, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONPATH=ROOT),
        )
        assert proc.stdout is not None
        output = proc.stdout.read().decode("utf-8", "replace")
        # wait4 gives this child's own peak RSS (and its waited-for children's).
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        outcome = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
        if "too-deep" in output:
            outcome += ", too-deep reported"
        return seconds, usage.ru_maxrss / 1024, outcome
    finally:
        shutil.rmtree(project, ignore_errors=True)


def grep_cost(root: str, pattern: str, regex: bool) -> tuple[float, str]:
    search = rdx.TextSearch.open(root, cache_dir=tempfile.mkdtemp(prefix="rdx-hostile-cache-"))
    search.grep("warm up")
    start = time.perf_counter()
    try:
        page = search.grep(pattern, regex=regex, timeout=30)
        outcome = f"{page.total} lines, complete={page.complete}"
    except rdx.InvalidArgumentError as exc:
        outcome = f"refused: {str(exc)[:60]}"
    return time.perf_counter() - start, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-limit-gb", type=float, default=4.0)
    args = parser.parse_args()
    limit = int(args.memory_limit_gb * 1024**3)
    print("nesting (rdx index --no-cache, one worker; peak RSS of the child)")
    cases = [
        ("20,000 nested modules", {"lib/deep.rb": nested(20_000)}, {"lib/deep.rb": flat(20_000)}),
        ("100,000 nested modules", {"lib/deep.rb": nested(100_000)}, {"lib/deep.rb": flat(100_000)}),
        (
            "2,000 nested + db/schema.rb",
            {"lib/deep.rb": nested(2_000), "db/schema.rb": SCHEMA},
            {"lib/deep.rb": flat(2_000), "db/schema.rb": SCHEMA},
        ),
    ]
    for name, hostile, baseline in cases:
        b_time, b_rss, b_out = index_cost(baseline, limit)
        h_time, h_rss, h_out = index_cost(hostile, limit)
        print(
            f"  {name:30} {h_time:6.2f} s {h_rss:7.0f} MB ({h_out})   flat baseline {b_time:6.2f} s {b_rss:7.0f} MB"
            f"   time ratio {h_time / b_time:4.2f}"
        )
    print("regex (grep over rdx/, warm, 30 s budget)")
    root = os.path.join(ROOT, "rdx")
    literal_time, literal_out = grep_cost(root, "def ", False)
    print(f"  {'literal `def `':30} {literal_time * 1000:8.1f} ms ({literal_out})")
    # The fair baseline of a pattern that matches every line is one that matches every line.
    base_time, base_out = grep_cost(root, ".*", True)
    print(f"  {'regex `.*` (baseline)':30} {base_time * 1000:8.1f} ms ({base_out})")
    for pattern in ["(.*){1000}", "((.*){30}){30}", "a" * (1 << 20)]:
        t, out = grep_cost(root, pattern, True)
        shown = pattern if len(pattern) < 40 else f"{len(pattern)}-byte pattern"
        print(f"  {shown:30} {t * 1000:8.1f} ms ({out})   ratio {t / base_time:6.1f}")


if __name__ == "__main__":
    main()
