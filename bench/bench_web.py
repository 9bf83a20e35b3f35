"""Benchmark: server time of the code browser's pages (``rdx serve``), against the JSON API's
answer to the same question in the same run.

Usage: python bench/bench_web.py [--root DIR] [--cache-dir DIR] [--repeat N]

Opens ``--root`` (default: Debian's ``/usr/lib/ruby/vendor_ruby``, about 2,900 Ruby files of
the corpus, among them mail's 1.46 MB generated parser) as ``rdx serve`` does (a ``Workspace``,
warm from ``--cache-dir`` after the first run) and requests each page ``--repeat`` times
through Starlette's in-process test client, so the times are the server's, without a network
or a browser. Prints per page: p50 and max in ms, the page's size, and, where the JSON API
answers the same question (a search, a declaration), the page's p50 over the API's: what
drawing the page adds. The first file view of a revision is timed on its own. Targets (issue
24): search page <= 50 ms, median file <= 50 ms, the 1.46 MB file <= 500 ms, a declaration
page with its hierarchy picture <= 200 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGETS = {"search": 50.0, "file": 50.0, "big file": 500.0, "declaration": 200.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="/usr/lib/ruby/vendor_ruby", help="the project to serve")
    ap.add_argument("--cache-dir", default="/tmp/rdx-bench-web-cache", help="where its snapshot goes")
    ap.add_argument("--repeat", type=int, default=7, help="requests per page")
    args = ap.parse_args()
    from starlette.testclient import TestClient

    from rdx_mcp import Workspace
    from rdx_web import build_app

    root = os.path.abspath(args.root)
    t0 = time.perf_counter()
    workspace = Workspace(root, cache_dir=args.cache_dir, watch=False).start()
    if not workspace.wait_ready(1800):
        sys.exit(f"{root} was not indexed within 30 minutes")
    print(f"served {root}: ready in {time.perf_counter() - t0:.1f}s")
    client = TestClient(build_app(workspace), base_url="http://127.0.0.1")

    def timed(url: str) -> tuple[float, float, int]:
        times = []
        size = 0
        for _ in range(args.repeat):
            t = time.perf_counter()
            answer = client.get(url)
            times.append((time.perf_counter() - t) * 1000)
            if answer.status_code != 200:
                sys.exit(f"{url}: HTTP {answer.status_code}: {answer.text[:300]}")
            size = len(answer.content)
        return statistics.median(times), max(times), size

    rb = sorted((os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".rb")), key=os.path.getsize)
    median_file = os.path.relpath(rb[len(rb) // 2], root)
    biggest = os.path.relpath(rb[-1], root)
    t = time.perf_counter()
    client.get("/file/" + urllib.parse.quote(median_file))
    print(f"first file view of this revision: {(time.perf_counter() - t) * 1000:.0f} ms")
    declaration = "Mail::Message" if (Path(root) / "mail" / "message.rb").exists() else None
    pages: list[tuple[str, str, str, str | None]] = [
        ("search", "search page, declarations and grep: parse json", "/?q=parse+json", "/api/search?query=parse+json"),
        ("search", "search page, grep with a regex", "/?q=def+%5Cw%2B_json&regex=1&mode=grep", "/api/grep?pattern=def+%5Cw%2B_json"),
        ("search", "search page, declarations only", "/?q=http+request+headers&mode=decl", "/api/search?query=http+request+headers"),
        ("file", f"file view, median file ({median_file})", "/file/" + urllib.parse.quote(median_file), None),
        ("big file", f"file view, largest file ({biggest}, {os.path.getsize(rb[-1]) / 1e6:.2f} MB)", "/file/" + urllib.parse.quote(biggest), None),
    ]
    if declaration:
        quoted = urllib.parse.quote(declaration, safe="")
        pages.append(("declaration", f"declaration page with hierarchy ({declaration})", f"/decl/{quoted}", f"/api/declarations/{quoted}"))
    missed = []
    for kind, label, url, api in pages:
        p50, worst, size = timed(url)
        line = f"{label}: p50 {p50:.0f} ms, max {worst:.0f} ms, {size / 1000:.0f} kB"
        if api is not None:
            api_p50 = timed(api)[0]
            line += f"; JSON API {api_p50:.0f} ms, page/API {p50 / max(api_p50, 0.01):.1f}x"
        target = TARGETS[kind]
        line += f" (target {target:.0f} ms)"
        if p50 > target:
            missed.append(label)
        print(line)
    print("targets: " + ("all met" if not missed else "MISSED for " + "; ".join(missed)))
    workspace.stop()


if __name__ == "__main__":
    main()
