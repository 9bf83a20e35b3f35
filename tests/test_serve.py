"""``rdx serve``: the JSON API over HTTP, in process through Starlette's test client and once
as a real server process on a loopback port."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import ready_workspace, write
from starlette.testclient import TestClient

from rdx_mcp.web import build_app

FILES = {
    "lib/app.rb": "module App\n  # Formats a number as a currency string.\n  def self.money(n); end\n  class Model\n    def save; end\n  end\nend\n",
    "README.md": "# App\nCall App.money to format currency.\n",
}


@pytest.fixture
def client(tmp_path: Path):
    with ready_workspace(tmp_path, FILES) as workspace, TestClient(build_app(workspace), base_url="http://127.0.0.1") as c:
        yield c
    workspace.stop()


def test_grep_search_declarations_and_stats(client: TestClient) -> None:
    grep = client.get("/grep", params={"pattern": "currency", "limit": 1})
    assert grep.status_code == 200
    body = grep.json()
    assert body["total"] == 2 and body["next_offset"] == 1
    assert body["files"] == [{"path": "README.md", "language": "markdown", "lines": [{"line": 2, "column": 25, "text": "Call App.money to format currency."}]}]
    rest = client.get("/grep", params=[("pattern", "currency"), ("glob", "*.rb"), ("glob", "!test/**")]).json()
    assert [f["path"] for f in rest["files"]] == ["lib/app.rb"]
    found = client.get("/search", params={"query": "format money as currency"}).json()
    assert found["items"][0]["name"] == "App::<App>#money()"
    decl = client.get("/declarations/" + urllib.parse.quote("App::Model#save()", safe="")).json()
    assert decl["kind"] == "Method" and decl["owner"] == "App::Model"
    stats = client.get("/stats").json()
    assert stats["documents"] == 2 and stats["declarations"] > 3  # app.rb and README.md (its headings)


def test_bad_parameters_are_400_with_the_error_object(client: TestClient) -> None:
    cases = [
        ("/grep", {"pattern": "(", "regex": "true"}, 400, "invalid_argument"),
        ("/grep", {"pattern": "x", "limit": "many"}, 400, "invalid_argument"),
        ("/grep", {"pattern": "x", "colour": "red"}, 400, "invalid_argument"),
        ("/grep", {}, 400, "invalid_argument"),
        ("/search", {"query": "x", "match_mode": "psychic"}, 400, "invalid_argument"),
        ("/declarations/App::Nope", {}, 404, "not_found"),
    ]
    for path, params, status, kind in cases:
        response = client.get(path, params=params)
        assert response.status_code == status, (path, params, response.text)
        body = response.json()
        assert body["type"] == kind and body["message"] and "suggestion" in body


def test_a_real_server_process_on_loopback(tmp_path: Path) -> None:
    for name, text in FILES.items():
        write(tmp_path / name, text)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "rdx.cli.main", "serve", str(tmp_path), "--port", str(port)], stderr=subprocess.PIPE)
    try:
        body = None
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/grep?pattern=money", timeout=5) as r:
                    body = json.loads(r.read())
                    break
            except urllib.error.HTTPError as exc:
                assert exc.code == 503  # still indexing: the error object says so
                assert json.loads(exc.read())["type"] == "indexing"
                time.sleep(0.05)
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        assert body is not None and body["total"] == 2
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_not_found_answers_suggest_the_intended_declaration_first(tmp_path: Path) -> None:
    files = {"lib/gem.rb": "module Gem\n  class Specification; end\nend\nmodule Spree\n  class Order; end\nend\n"}
    with ready_workspace(tmp_path, files) as workspace, TestClient(build_app(workspace), base_url="http://127.0.0.1") as c:
        for name, first in (("Gem::Specificatoin", "Gem::Specification"), ("Spree::Oder", "Spree::Order")):
            response = c.get("/declarations/" + urllib.parse.quote(name, safe=""))
            body = response.json()
            assert response.status_code == 404 and body["type"] == "not_found"
            assert body["suggestion"].startswith(f"did you mean: {first}"), body
        found = c.get("/search", params={"query": "Gem::Specificatoin", "match_mode": "fuzzy"}).json()
        assert found["items"][0]["name"] == "Gem::Specification"
