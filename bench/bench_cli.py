"""Benchmark: wall time of ``rdx`` commands in-process, through a starting resident server and
through a running one, against Python's own start-up and ``rg`` for grep, all in the same run.

Usage: python bench/bench_cli.py [--repeat N] [--first N] [--project PATH] [--corpus-dir DIR]
Default project: the pinned Debian Ruby corpus (tests/data/debian-corpus.txt), made one
project by an ``rdx.toml`` whose ``load_paths`` are the corpus's roots; ``--project .`` measures
this repository instead (a smaller case).

Each command runs as a process of its own, as a shell runs it, from a script that is what the
console script is (``from rdx_resident.client import main``), with a private runtime directory:
- in-process: ``--no-daemon``, what every command cost before the server (opens the graph
  warm from the snapshot, answers, exits);
- first: no server running; the command starts one and waits for its answer;
- later: the server is running and has built its query indexes (median of ``--repeat`` runs);
- python: ``python -c pass`` with the same interpreter and site (the floor), run next to each
  later run so that the load of a shared machine weighs on both;
- rg: ``rg -n`` over the same roots for the grep pattern (``--no-ignore --hidden``);
- search with a new query each run: ``--repeat`` queries the server has not been asked
  (the repeated search reads what the server remembers of its query), each checked
  against its in-process output; with the server's own time for them (``command`` in its
  log) and ``python -S -c pass`` beside ``python -c pass`` (what the site-packages' ``.pth``
  files cost every command: an editable install's import hook is most of it).
Also printed: what the client imports when the server answers (``-X importtime``) and the
server's memory. Issue 23's target: a later command within 100 ms of wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from corpus import debian_corpus, describe_roots  # noqa: E402

# What pip's console script runs; the path entry lets it run before ``pip install -e .``
# registers rdx_resident.
_SCRIPT = """import sys
sys.path.insert(0, {root!r})
from {module} import main
sys.exit(main())
"""


def _script(directory: str, name: str, module: str) -> str:
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(_SCRIPT.format(root=ROOT, module=module))
    return path


# Ranked searches asked once each, after the repeated one (``search, new query``).
_NEW_QUERIES = [
    "open a socket connection", "format number as currency", "read yaml file", "escape html", "retry on timeout",
    "base64 encode", "compare versions", "deep merge hash", "write a file atomically", "list directory entries",
    "sort by key", "connect to database", "parse command line options", "gzip compress", "current time zone",
]


def _wall(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, bytes]:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, proc.returncode, proc.stdout


def _wait_prepared(py: str, client: str, project: str, env: dict[str, str], cwd: str, seconds: float = 300.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out = subprocess.run([py, client, "daemon", "status", "-p", project, "--json"], env=env, cwd=cwd, stdout=subprocess.PIPE, text=True).stdout
        status = json.loads(out) if out.strip() else None
        if not status or status.get("state") != "ready" or status.get("prepared") == status.get("revision"):
            return
        time.sleep(0.5)


def _corpus_project(directory: str) -> tuple[str, list[str]]:
    roots = debian_corpus()
    project = os.path.join(directory, "debian")
    os.makedirs(os.path.join(project, ".git"), exist_ok=True)
    with open(os.path.join(project, "rdx.toml"), "w") as f:
        f.write("load_paths = [" + ", ".join(json.dumps(r) for r in roots) + "]\ngems = false\n")
    return project, roots


def _position(roots: list[str]) -> str:
    """A constant reference in net/http.rb (the corpus) for ``rdx def``."""
    for root in roots:
        path = os.path.join(root, "net", "http.rb")
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    col = line.find("HTTPResponse")
                    if col >= 0 and not line.lstrip().startswith("#"):
                        return f"{path}:{n}:{col + 1}"
    raise SystemExit("net/http.rb is not in the corpus")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=10, help="runs of each later command (default 10)")
    ap.add_argument("--first", type=int, default=2, help="runs of each first and in-process command (default 2)")
    ap.add_argument("--project", default=None, help="a project directory (default: the pinned Debian corpus)")
    ap.add_argument("--corpus-dir", default=None, help="keep the corpus project (and its index) here, to reuse in a later run (default: a temporary directory)")
    args = ap.parse_args()
    rg = shutil.which("rg")
    # The client's bytecode, as pip writes it on install: with PYTHONDONTWRITEBYTECODE set, every
    # run would compile the client again and the import would be measured at several times its cost.
    import compileall

    compileall.compile_dir(os.path.join(ROOT, "rdx_resident"), quiet=1)
    work = tempfile.mkdtemp(prefix="rdx-bench-cli-")
    run_dir = os.path.join(work, "run")
    os.mkdir(run_dir, 0o700)
    env = {k: v for k, v in os.environ.items() if k != "RDX_NO_DAEMON"}
    env["RDX_RUNTIME_DIR"] = run_dir
    client = _script(work, "rdx", "rdx_resident.client")
    py = sys.executable
    try:
        if args.project is None:
            project, roots = _corpus_project(os.path.abspath(args.corpus_dir) if args.corpus_dir else work)
            print(f"project: {describe_roots(roots)}, through {project}/rdx.toml load_paths")
            commands = [
                ("show", ["show", "Net::HTTP", "-p", project]),
                ("refs", ["refs", "Net::HTTPResponse", "-p", project]),
                ("def", ["def", _position(roots), "-p", project]),
                ("search", ["search", "parse http header", "--limit", "5", "-p", project]),
                ("grep", ["grep", "def request", "-p", project]),
            ]
            grep_roots, pattern = roots, "def request"
        else:
            project = os.path.abspath(args.project)
            print(f"project: {project}")
            commands = [
                ("show", ["show", "Graph", "-p", project, "--json"]),
                ("search", ["search", "open the graph", "--limit", "5", "-p", project]),
                ("grep", ["grep", "def resolve", "-p", project]),
            ]
            grep_roots, pattern = [project], "def resolve"
        t0 = time.perf_counter()
        _wall([py, client, "index", project, "--no-daemon"], env, work)
        print(f"indexed (snapshot written) in {time.perf_counter() - t0:.1f}s")

        def stop() -> None:
            subprocess.run([py, client, "daemon", "stop", "--all"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 30
            while any(n.endswith(".sock") for n in os.listdir(run_dir)) and time.monotonic() < deadline:
                time.sleep(0.05)

        print(f"\n{'command':8} {'in-process':>11} {'first':>8} {'later':>8} {'python':>8} {'later-py':>9} {'in-proc/later':>14}")
        results = {}
        floors = []
        for name, argv in commands:
            inproc = min(_wall([py, client, *argv, "--no-daemon"], env, work)[0] for _ in range(args.first))
            firsts = []
            for _ in range(args.first):
                stop()
                firsts.append(_wall([py, client, *argv], env, work)[0])
            # A command that does not wait for the server it starts (grep reads the text index
            # in the client meanwhile) would time the in-process path below: wait until ready.
            subprocess.run([py, client, "daemon", "start", "-p", project], env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # And until it has built the query indexes, which it does once commands pause (for
            # half a second, under the lock a command waits for): later commands find them built.
            _wait_prepared(py, client, project, env, work)
            # Each later run next to a bare ``python -c pass``, so load that comes and goes on a
            # shared machine weighs on both alike.
            later_runs, floor_runs = [], []
            for _ in range(args.repeat):
                floor_runs.append(_wall([py, "-c", "pass"], env, work)[0])
                later_runs.append(_wall([py, client, *argv], env, work))
            later = statistics.median(t for t, _, _ in later_runs)
            floor = statistics.median(floor_runs)
            floors.append(floor)
            expected = subprocess.run([py, client, *argv, "--no-daemon"], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
            differ = [out for _, _, out in later_runs if out != expected]
            same = not differ
            results[name] = later
            print(
                f"{name:8} {inproc * 1000:9.0f}ms {min(firsts) * 1000:6.0f}ms {later * 1000:6.0f}ms {floor * 1000:6.0f}ms {(later - floor) * 1000:7.0f}ms {inproc / later:13.1f}x"
                + ("" if same else f"  OUTPUT DIFFERS in {len(differ)} runs")
            )
            if differ:
                import difflib

                diff = difflib.unified_diff(expected.decode().splitlines(), differ[0].decode().splitlines(), "in-process", "served", lineterm="", n=1)
                print("\n".join(list(diff)[:12]))
        # A later search with a query the server has not answered before: the repeated one
        # above reads what the server remembers of it (its answer and its BM25 candidate
        # lists), a new one ranks in SQLite and reads its candidates' rows.
        base_argv = dict(commands)["search"]
        fresh_queries = [q for q in _NEW_QUERIES if q != base_argv[1]][: args.repeat]
        later_runs, floor_runs, bare_runs, differ = [], [], [], []
        for query in fresh_queries:
            argv = [base_argv[0], query, *base_argv[2:]]
            floor_runs.append(_wall([py, "-c", "pass"], env, work)[0])
            bare_runs.append(_wall([py, "-S", "-c", "pass"], env, work)[0])
            t, _, out = _wall([py, client, *argv], env, work)
            later_runs.append(t)
            expected = subprocess.run([py, client, *argv, "--no-daemon"], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
            if out != expected:
                differ.append((query, expected, out))
        later, floor = statistics.median(later_runs), statistics.median(floor_runs)
        floors.append(floor)
        results["search, new query"] = later
        print(
            f"search with a new query each run ({len(fresh_queries)} queries): {later * 1000:.0f} ms (python {floor * 1000:.0f} ms, "
            f"later-py {(later - floor) * 1000:.0f} ms, worst {max(later_runs) * 1000:.0f} ms)" + (f"  OUTPUT DIFFERS in {len(differ)} runs" if differ else "")
        )
        served = _server_times(run_dir, "search", len(fresh_queries))
        if served:
            print(
                f"  of which the server's command: median {statistics.median(served):.1f} ms (worst {max(served):.1f}); "
                f"python -S -c pass {statistics.median(bare_runs) * 1000:.0f} ms beside python -c pass {floor * 1000:.0f} ms"
            )
        for query, expected, out in differ[:3]:
            import difflib

            diff = difflib.unified_diff(expected.decode().splitlines(), out.decode().splitlines(), "in-process", "served", lineterm="", n=0)
            print(f"  {query!r}: " + "\n  ".join(list(diff)[2:8]))
        if rg:
            rg_argv = [rg, "--no-config", "-n", "--no-ignore", "--hidden", "-F", "-e", pattern, *grep_roots]
            rg_time = statistics.median(_wall(rg_argv, env, work)[0] for _ in range(args.repeat))
            print(f"\nrg -n {pattern!r}: {rg_time * 1000:.0f} ms; rdx grep through the server: {results['grep'] * 1000:.0f} ms ({results['grep'] / rg_time:.2f}x rg's time)")
        # What the client imports when the server answers.
        argv = commands[0][1]
        proc = subprocess.run([py, "-X", "importtime", client, *argv], env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rows = [line.split("|") for line in proc.stderr.splitlines() if line.startswith("import time:")]
        ours = [(r[2].strip(), int(r[1])) for r in rows if "rdx" in r[2]]
        print("client imports (cumulative µs): " + ", ".join(f"{m} {us}" for m, us in ours))
        status = subprocess.run([py, client, "daemon", "status", "-p", project, "--json"], env=env, cwd=work, stdout=subprocess.PIPE, text=True).stdout
        if status.strip() and status.strip() != "null":
            s = json.loads(status)
            print(f"server: {s.get('memory')} resident, loaded in {s.get('load')}, {s.get('files watched')} files re-checked before each answer by {s.get('re-check')}")
        _recheck_costs(project, args.repeat)
        worst = max(results.values())
        floor = statistics.median(floors)
        print(
            f"\nlater commands: median {statistics.median(results.values()) * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
            f"({max(results, key=results.__getitem__)}; target <= 100 ms; Python alone {floor * 1000:.0f} ms)"
        )
    finally:
        subprocess.run([py, client, "daemon", "stop", "--all"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


def _server_times(run_dir: str, command: str, last: int) -> list[float]:
    """Milliseconds the server spent on the command itself (``command N`` in the lines its log
    has for each answer, ``rdx.cli.resident``) for its last ``last`` answers to ``command``."""
    times: list[float] = []
    for name in os.listdir(run_dir):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(run_dir, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                head, sep, rest = line.partition(f" rdx {command}: ")
                if sep and ", command " in rest:
                    times.append(float(rest.split(", command ", 1)[1].split(";", 1)[0]))
    return times[-last:]


def _recheck_costs(project: str, repeat: int) -> None:
    """The server's re-check before an answer with nothing changed, in this process over the
    project's files: a stat of every file and directory (without inotify) against reading
    inotify's queue (``Freshness.listen``), medians of alternating runs."""
    from rdx.cli.freshness import Freshness
    from rdx.search.text_workspace import walk_every_file
    from rdx.workspace.config import load_config

    config = load_config(project)
    roots = [project, *(p for p in config.load_paths if p != project and os.path.exists(p))]
    files = [e.path for e in walk_every_file([project], config)]
    swept, listening = Freshness(roots), Freshness(roots)
    swept.scan(files)
    listening.scan(files)
    if not listening.listen():
        print("re-check: inotify unavailable here; every answer stats every file")
        return
    listening.sweep()
    stat_ms: list[float] = []
    event_ms: list[float] = []
    for _ in range(max(repeat, 10)):
        for f, out in ((swept, stat_ms), (listening, event_ms)):
            t0 = time.perf_counter()
            f.sweep()
            out.append((time.perf_counter() - t0) * 1000)
    stat, event = statistics.median(stat_ms), statistics.median(event_ms)
    print(f"re-check before an answer, nothing changed ({len(swept.files)} files, {len(swept.dirs)} directories): stat sweep {stat:.1f} ms, inotify {event:.3f} ms ({stat / max(event, 1e-6):.0f}x)")
    listening.close()


if __name__ == "__main__":
    main()
