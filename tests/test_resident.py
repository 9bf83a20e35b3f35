"""The resident server (``rdx_resident`` client, ``rdx.cli.resident`` server): every command it
answers prints byte for byte what the in-process command prints, before and right after edits;
and the server's life: start, reuse, a stale socket, clients racing to start it, a crash, an
idle exit, a configuration change, the opt-outs and the private runtime directory.

The client runs as a real process (``python -m rdx_resident``, what the ``rdx`` console script
runs), with a runtime directory of the test's own; the in-process answer is ``rdx.cli.main.main``
in this process, from the same working directory."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write

from rdx.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "rdx" / "data" / "example"

SMALL = {
    "lib/app.rb": "module App\n  # The base model.\n  class Model\n    def save(validate: true); end\n  end\nend\n",
    "lib/app/user.rb": "module App\n  class User < Model\n    include Comparable\n    def name; end\n    def greet = name.upcase\n  end\nend\n",
    "README.md": "# App\nThe Model saves.\n",
}


class Client:
    """``rdx`` through the resident client, with a private runtime directory."""

    def __init__(self, run_dir: Path, **env: str) -> None:
        self.run_dir = run_dir
        self.env = {k: v for k, v in os.environ.items() if k != "RDX_NO_DAEMON"}
        self.env.update(RDX_RUNTIME_DIR=str(run_dir), PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **env)

    def start(self, *args: str, cwd: Path | str = ROOT, **env: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "rdx_resident", *args], cwd=cwd, env={**self.env, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )

    def run(self, *args: str, cwd: Path | str = ROOT, **env: str) -> tuple[int, bytes, bytes]:
        proc = self.start(*args, cwd=cwd, **env)
        out, err = proc.communicate(timeout=300)
        return proc.returncode, out, err

    def servers(self) -> list[dict[str, str]]:
        code, out, _ = self.run("daemon", "status", "--all", "--json")
        return json.loads(out) if code == 0 else []

    def stop_all(self) -> None:
        pids = [int(s["pid"]) for s in self.servers()]
        self.run("daemon", "stop", "--all")
        for pid in pids:
            _wait_gone(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A server the test's client started and that exited is a zombie until reaped by init.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def client(tmp_path: Path):
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    c = Client(run_dir)
    yield c
    c.stop_all()


@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "small"
    for name, text in SMALL.items():
        write(root / name, text)
    (root / ".git").mkdir()
    return root


def check_same(client: Client, capsys, monkeypatch, cwd: Path, *args: str) -> tuple[int, bytes]:
    """Run ``rdx ARGS`` through the server and in-process from ``cwd``: the same exit status,
    stdout and stderr bytes, and the server did answer it."""
    before = dict(_served(client))
    code, out, err = client.run(*args, cwd=cwd)
    after = dict(_served(client))
    # Answered by the same server, or by a new one (a server gives way when rdx's own code
    # changes, which other work on this checkout may do at any time).
    answered = any(n > before.get(pid, 0) for pid, n in after.items())
    assert answered, f"rdx {' '.join(args)} was not answered by the server: {err!r}"
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    expected = main(list(args))
    exp_out, exp_err = capsys.readouterr()
    assert (code, out.decode(), _same_version(err.decode())) == (expected, exp_out, _same_version(exp_err)), f"rdx {' '.join(args)}"
    return code, out


def _same_version(err: str) -> str:
    """``err`` without the warning that a snapshot was "made by another version of rdx": this
    test process runs the rdx code it imported when it started, a server the code on disk when
    it started, and when other work on this checkout changes discovery in between, each finds
    the other's snapshot of another version and says so. Not a difference of the server's."""
    return "".join(line for line in err.splitlines(keepends=True) if "was made by another version of rdx" not in line)


def _served(client: Client) -> set[tuple[int, int]]:
    """(pid, requests answered) of each server."""
    return {(int(s["pid"]), int(s["requests"])) for s in client.servers()}


def _pids(client: Client) -> set[int]:
    return {int(s["pid"]) for s in client.servers()}


def example_commands(root: Path) -> list[tuple[str, ...]]:
    p = str(root)
    order = f"{root}/lib/shop/models/order.rb"
    return [
        ("show", "Shop::Models::Product", "-p", p),
        ("show", "Shop::Models::Item", "-p", p, "--json"),
        ("show", "Shop::Models::Prodcut", "-p", p),  # an error with suggestions, exit 1
        ("resolve", "OutOfStock", "--nesting", "Shop,Models,Order", "-p", p),
        ("refs", "Shop::Pricing#price_with_tax()", "-p", p),
        ("refs", "Shop::Pricing#price_with_tax()", "-p", p, "--json"),
        ("def", f"{order}:19:16", "-p", p),
        ("def", f"{order}:5:16", "-p", p),
        ("def", f"{root}/lib/shop.rb:99999:0", "-p", p),  # a usage error, exit 2
        ("hover", f"{root}/lib/shop/models/product.rb:17:28", "-p", p),
        ("complete", f"{order}:20:20", "-p", p),
        ("search", "money arithmetic", "--limit", "3", "-p", p),
        ("search", "Prod", "--mode", "prefix", "-p", p, "--json"),
        ("grep", "def total", "-p", p),
        ("grep", "-e", r"def \w+", "-C", "1", "--limit", "3", "-p", p),
        ("grep", "zzqx_nothing", "-p", p),  # no match, exit 1
        ("map", p, "--tokens", "512", "--focus", "python/receipts/printer.py"),
    ]


# make check keeps the same byte-for-byte comparison through the server on a small project
# (test_edits_are_seen_by_the_very_next_command); this one runs 17 commands on the example.
@pytest.mark.slow
def test_every_served_command_prints_what_the_in_process_command_prints(client, capsys, monkeypatch):
    for args in example_commands(EXAMPLE):
        check_same(client, capsys, monkeypatch, ROOT, *args)
    assert len(client.servers()) == 1  # One server for the project, reused by every command.


@pytest.mark.slow
def test_relative_paths_and_grep_from_a_subdirectory(client, small, capsys, monkeypatch):
    lib = small / "lib"
    client.run("daemon", "start", str(small))
    check_same(client, capsys, monkeypatch, lib, "grep", "Model")  # the project is found above lib/
    check_same(client, capsys, monkeypatch, lib, "grep", "model", "-i", "../README.md")
    check_same(client, capsys, monkeypatch, small, "def", "lib/app/user.rb:2:17")
    check_same(client, capsys, monkeypatch, lib, "show", "App::User", "-p", "..")
    assert len(client.servers()) == 1


def test_edits_are_seen_by_the_very_next_command(client, small, capsys, monkeypatch):
    p = str(small)
    check_same(client, capsys, monkeypatch, small, "show", "App::User", "-p", p)
    (pid,) = _pids(client)
    user = small / "lib" / "app" / "user.rb"
    # No pause between the edit and the command: the server re-checks before answering.
    user.write_text(SMALL["lib/app/user.rb"].replace("def name; end", "def name; end\n    def email; end"))
    _, out = check_same(client, capsys, monkeypatch, small, "show", "App::User", "-p", p)
    assert b"email() (Method)" in out
    write(small / "lib" / "app" / "admin.rb", "module App\n  class Admin < User\n    def name; end\n  end\nend\n")
    _, out = check_same(client, capsys, monkeypatch, small, "show", "App::Admin", "-p", p)
    assert b"ancestors: App::Admin > App::User" in out
    write(small / "lib" / "extra" / "deep" / "note.rb", "module App\n  NOTE = 1\nend\n")  # a new directory
    check_same(client, capsys, monkeypatch, small, "show", "App::NOTE", "-p", p)
    check_same(client, capsys, monkeypatch, small, "refs", "App::User", "-p", p)
    check_same(client, capsys, monkeypatch, small, "grep", "NOTE", "-p", p)
    (small / "lib" / "app" / "admin.rb").unlink()
    code, _ = check_same(client, capsys, monkeypatch, small, "show", "App::Admin", "-p", p)
    assert code == 1
    shutil.rmtree(small / "lib" / "extra")
    check_same(client, capsys, monkeypatch, small, "grep", "NOTE", "-p", p)
    check_same(client, capsys, monkeypatch, small, "search", "model", "-p", p)
    assert _pids(client) == {pid}  # all through the same server


def test_a_search_asked_again_and_after_an_edit(client, small, capsys, monkeypatch):
    """The server remembers a ranked search's answer and candidates until the index changes:
    asked again, and asked after an edit that changes the answer, it prints what the
    in-process command prints."""
    p = str(small)
    args = ("search", "greet the user", "-p", p)
    _, first = check_same(client, capsys, monkeypatch, small, *args)
    _, again = check_same(client, capsys, monkeypatch, small, *args)
    assert again == first and b"App::User#greet()" in first
    user = small / "lib" / "app" / "user.rb"
    user.write_text(SMALL["lib/app/user.rb"].replace("def greet = name.upcase", "# Greets the user.\n    def welcome = name.upcase"))
    _, out = check_same(client, capsys, monkeypatch, small, *args)
    assert b"App::User#welcome()" in out and b"greet()" not in out
    check_same(client, capsys, monkeypatch, small, "search", "greet", "-p", p)


@pytest.mark.slow
def test_edits_on_the_example_project(client, tmp_path, capsys, monkeypatch):
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".rdx", "__pycache__"))
    for args in example_commands(root)[:3]:
        check_same(client, capsys, monkeypatch, tmp_path, *args)
    pricing = root / "lib" / "shop" / "pricing.rb"
    pricing.write_text(pricing.read_text().replace("def price_with_tax", "def price_with_vat"))
    for args in example_commands(root):
        check_same(client, capsys, monkeypatch, tmp_path, *args)
    check_same(client, capsys, monkeypatch, tmp_path, "refs", "Shop::Pricing#price_with_vat()", "-p", str(root))


@pytest.mark.slow
def test_the_output_is_the_in_process_programs_byte_for_byte(client, small):
    """Against ``python -m rdx.cli.main`` as a process of its own (its own encoding and
    buffering), stdout and stderr captured apart and together."""
    for args in (("show", "App::User", "-p", str(small)), ("grep", "e", "-p", str(small), "--limit", "1")):
        served = client.run(*args)
        alone = subprocess.run([sys.executable, "-m", "rdx.cli.main", *args], cwd=ROOT, capture_output=True, env=client.env)
        assert served == (alone.returncode, alone.stdout, alone.stderr)
        merged = subprocess.run([sys.executable, "-m", "rdx_resident", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=client.env)
        alone_merged = subprocess.run([sys.executable, "-m", "rdx.cli.main", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=client.env)
        assert merged.stdout == alone_merged.stdout
    assert len(client.servers()) == 1


def test_the_client_imports_nothing_of_rdx_when_the_server_answers(client, small):
    assert client.run("show", "App::User", "-p", str(small))[0] == 0  # the server is up
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "rdx_resident", "show", "App::User", "-p", str(small)],
        cwd=ROOT, capture_output=True, env=client.env, text=True,
    )
    assert proc.returncode == 0 and "App::User (Class)" in proc.stdout
    modules = [line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")]
    heavy = [m for m in modules if m == "rdx" or m.startswith(("rdx.", "tree_sitter", "networkx", "msgspec", "watchfiles", "rich", "argparse"))]
    assert heavy == [] and "rdx_resident.client" in modules


@pytest.mark.slow
def test_start_reuse_status_and_stop(client, small):
    p = str(small)
    code, out, _ = client.run("daemon", "start", p)
    assert code == 0 and b"ready" in out
    (first,) = client.servers()
    assert first["state"] == "ready" and first["project"] == p
    assert client.run("daemon", "start", p)[0] == 0  # already running: the same one
    assert client.run("show", "App::User", "-p", p)[0] == 0
    (again,) = client.servers()
    assert again["pid"] == first["pid"] and int(again["requests"]) > int(first["requests"])
    assert os.stat(client.run_dir).st_mode & 0o777 == 0o700
    assert (os.stat(again["socket"]).st_mode & 0o077) == 0
    code, out, _ = client.run("daemon", "stop", "-p", p)
    assert code == 0 and b"stopped" in out
    assert _wait_gone(int(first["pid"]))
    assert client.run("daemon", "status", p)[0] == 1
    assert not os.path.exists(again["socket"])


@pytest.mark.slow
def test_a_stale_socket_is_replaced(client, small):
    code, _, _ = client.run("daemon", "start", str(small))
    (server,) = client.servers()
    client.stop_all()
    # A socket file nobody listens on, as a crashed server leaves it.
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(server["socket"])
    stale.close()
    assert os.path.exists(server["socket"])
    code, out, _ = client.run("show", "App::User", "-p", str(small))
    assert code == 0 and b"App::User (Class)" in out
    assert len(client.servers()) == 1


@pytest.mark.slow
def test_a_crashed_server_is_replaced_cleanly(client, small, capsys, monkeypatch):
    p = str(small)
    check_same(client, capsys, monkeypatch, small, "show", "App::User", "-p", p)
    (pid,) = _pids(client)
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    check_same(client, capsys, monkeypatch, small, "show", "App::User", "-p", p)
    (new,) = _pids(client)
    assert new != pid


@pytest.mark.slow
def test_a_first_grep_runs_in_process_while_the_server_starts(client, small, capsys, monkeypatch):
    code, out, _ = client.run("grep", "Model", "-p", str(small))
    assert code == 0 and out.count(b"Model") == 3
    (server,) = client.servers()  # started for the commands after it; this one did not wait
    assert server["requests"] == "0"
    # A later grep goes to the server once it is ready (until then it too runs in process: on
    # a loaded machine the server may still be indexing when the next command comes).
    deadline = time.monotonic() + 120
    while client.servers()[0]["state"] == "loading" and time.monotonic() < deadline:
        time.sleep(0.1)
    check_same(client, capsys, monkeypatch, small, "grep", "Model", "-p", str(small))


@pytest.mark.slow
def test_clients_racing_to_start_it_share_one_server(client, small):
    procs = [client.start("show", "App::User", "-p", str(small)) for _ in range(4)]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert {r[2] for r in results} == {0}
    assert len({r[0] for r in results}) == 1 and b"App::User (Class)" in results[0][0]
    (server,) = client.servers()
    assert int(server["requests"]) >= 4


@pytest.mark.slow
def test_several_clients_at_once_are_all_answered(client, small):
    client.run("daemon", "start", str(small))
    commands = [("show", "App::User"), ("refs", "App::Model"), ("grep", "Model"), ("search", "model")] * 3
    procs = [client.start(*c, "-p", str(small)) for c in commands]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    by_command: dict[tuple[str, str], set[bytes]] = {}
    for c, (out, _) in zip(commands, outs, strict=True):
        by_command.setdefault(c, set()).add(out)
    assert all(len(v) == 1 for v in by_command.values())
    (server,) = client.servers()
    assert int(server["requests"]) >= len(commands)


@pytest.mark.slow
def test_an_idle_server_exits(tmp_path, small):
    run_dir = tmp_path / "idle-run"
    run_dir.mkdir(mode=0o700)
    c = Client(run_dir, RDX_DAEMON_IDLE="1.5")
    try:
        assert c.run("show", "App::User", "-p", str(small))[0] == 0
        (server,) = c.servers()
        assert _wait_gone(int(server["pid"]), 30)
        assert c.servers() == [] and not os.path.exists(server["socket"])
    finally:
        c.stop_all()


@pytest.mark.slow
def test_a_configuration_change_gets_a_fresh_server(client, small, capsys, monkeypatch):
    p = str(small)
    client.run("daemon", "start", p)
    check_same(client, capsys, monkeypatch, small, "grep", "Model", "-p", p)
    (pid,) = _pids(client)
    write(small / "rdx.toml", 'exclude = ["README.md"]\n')
    check_same(client, capsys, monkeypatch, small, "show", "App::User", "-p", p)
    assert _pids(client) - {pid}
    _, out = check_same(client, capsys, monkeypatch, small, "grep", "Model", "-p", p)
    assert b"README" not in out
    write(small / "lib" / ".gitignore", "app/\n")
    code, _ = check_same(client, capsys, monkeypatch, small, "show", "App::User", "-p", p)
    assert code == 1  # lib/app/ is ignored now


@pytest.mark.slow  # five commands, each indexing in a process of its own
def test_opting_out_runs_in_process(client, small, capsys, monkeypatch):
    p = str(small)
    for args, env in (
        (("show", "App::User", "-p", p, "--no-daemon"), {}),
        (("show", "App::User", "-p", p), {"RDX_NO_DAEMON": "1"}),
        (("grep", "Model", "-p", p, "--timeout", "0"), {}),  # unbounded work stays in the client
        (("show", "App::User", "-p", p, "--no-cache"), {}),
        (("stats", p), {}),
    ):
        code, out, err = client.run(*args, **env)
        monkeypatch.chdir(ROOT)
        capsys.readouterr()
        expected = main(list(args))
        exp_out, _ = capsys.readouterr()
        assert code == expected and (out.decode() == exp_out or args[0] == "stats")
    assert client.servers() == []


def test_no_server_without_a_private_runtime_directory(tmp_path, small):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    c = Client(shared)
    code, out, _ = c.run("show", "App::User", "-p", str(small))
    assert code == 0 and b"App::User (Class)" in out
    assert list(shared.iterdir()) == []  # no socket, no log: the command ran in-process


def test_the_client_reads_only_what_it_needs_of_the_command_line(small, monkeypatch):
    from rdx_resident.client import plan_command

    monkeypatch.delenv("RDX_NO_DAEMON", raising=False)  # tests/conftest.py sets it for the others
    monkeypatch.chdir(small / "lib")
    p = str(small)
    assert plan_command(["show", "X", "-p", p]) == (p, None)
    assert plan_command(["show", "X", f"--project={p}", "--cache-dir", "c"]) == (p, str(small / "lib" / "c"))
    assert plan_command(["grep", "Model"]) == (p, None)  # the project holding .git above lib/
    assert plan_command(["map", p, "-t", "512"]) == (p, None)
    for argv in (
        ["index", p], ["stats", p], ["show", "X", "--help"], ["show", "X", "--proj", p], ["grep", "-ie", "x"],
        ["show", "X", "-C", "2"], ["grep", "x", "--timeout", "0"], ["show", "X", "-p", "/nonexistent"], ["show", "X", "--no-daemon"],
    ):
        assert plan_command(argv) is None, argv
    write(small / "rdx.toml", "daemon = false\n")
    assert plan_command(["show", "X", "-p", p]) is None


def test_a_request_of_another_protocol_version_gets_no_answer(client, small):
    from rdx_resident import wire

    client.run("daemon", "start", str(small))
    (server,) = client.servers()
    sock = wire.connect(server["socket"])
    assert sock is not None
    frames = wire.ask_frames(sock, b"Q", b"\0".join([b"rdx-resident/0", str(small).encode(), b"show", b"App::User"]))
    sock.close()
    assert frames is not None and frames[-1][0] == b"f"  # the client then runs the command in-process


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to act as another user")
def test_a_peer_of_another_user_gets_nothing(client, small):
    """Defence in depth: even with the directory and the socket opened to everyone, the server
    answers no process of another user (SO_PEERCRED)."""
    import tempfile

    client.run("daemon", "start", str(small))
    (server,) = client.servers()
    # The same socket, reachable by anyone: a hard link in an open directory, mode 0666.
    open_dir = tempfile.mkdtemp(prefix="rdx-peer-")
    os.chmod(open_dir, 0o755)
    link = os.path.join(open_dir, "s")
    os.link(server["socket"], link)
    os.chmod(link, 0o666)
    try:
        probe = (
            "import os, socket, sys\n"
            "os.setgid(65534); os.setuid(65534)\n"
            "s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])\n"
            "payload = b'\\0'.join([b'rdx-resident/1', b'/', b'show', b'App::User'])\n"
            "try:\n"
            "    s.sendall((len(payload) + 1).to_bytes(4, 'big') + b'Q' + payload)\n"
            "    print(len(s.recv(1 << 16)))\n"
            "except (BrokenPipeError, ConnectionResetError):\n"
            "    print(0)\n"
        )
        proc = subprocess.run([sys.executable, "-c", probe, link], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "0"  # the connection closed without a byte of answer
    finally:
        shutil.rmtree(open_dir)
