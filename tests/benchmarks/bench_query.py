"""Warm query latency of the service against `git grep`, at several sizes.

For each size (generated repositories of N small Python files, as in
bench_status.py), builds an index, loads one warm QueryService, and times,
clean and with 10 dirty files:

- ``/defs`` and ``/refs`` in process (QueryService.answer) and over HTTP
  (the FastAPI/uvicorn service on 127.0.0.1), p50 and p99, with the
  worktree watcher of serve/mcp (query/watch.py);
- ``/status`` over HTTP and in process; in process also right after a
  one-file edit (the watcher re-hashes that path) and without a watcher
  (a full read per answer, as a CLI call makes);
- ``git grep -w NAME`` started as a new process, the peer an agent would
  otherwise use;

and the service process's RSS. Not a test: it prints a markdown table.

Usage: python tests/benchmarks/bench_query.py [--sizes 4000 30000] [--repeat 40]
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from freshindex.core.gitrepo import open_repo  # noqa: E402
from freshindex.service import QueryService, serve  # noqa: E402
from freshindex.storage import open_store  # noqa: E402
from tests.benchmarks.bench_status import make  # noqa: E402
from tests.benchmarks.report import timed_build  # noqa: E402


def timings(
    fn: Callable[[], object], repeat: int, before: Callable[[int], object] | None = None
) -> tuple[float, float]:
    """(p50, p99) in milliseconds, after one warm-up call; ``before(i)`` runs
    untimed ahead of each sample."""
    fn()
    samples = []
    for i in range(repeat):
        if before is not None:
            before(i)
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return statistics.median(samples), p99


def fmt(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.1f} / {pair[1]:.1f}"


def measure(n: int, root: Path, repeat: int) -> list[tuple[str, str, str]]:
    repo = make(root, n)
    store = (root / f"store-{n}").as_uri()
    build_s = timed_build(repo, store)
    service = QueryService(open_repo(repo), open_store(store))
    # the same service with the worktree watcher serve and mcp start (query/watch.py)
    watched = QueryService(open_repo(repo), open_store(store), watch=True)
    server = serve(watched, "127.0.0.1", 0)  # as `freshindex serve` runs: with the watcher
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def new_connection(path: str) -> Callable[[], bytes]:
        """A new connection per call (curl, a script)."""

        def get() -> bytes:
            with urllib.request.urlopen(base + path, timeout=60) as resp:
                return bytes(resp.read())

        return get

    def keep_alive(path: str) -> Callable[[], bytes]:
        """One connection kept open for the row's calls (an agent's HTTP
        client, MCP over HTTP); a new one per row, as uvicorn closes a
        connection idle for 5 s."""
        kept = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)

        def get() -> bytes:
            kept.request("GET", path)
            return kept.getresponse().read()

        return get

    def grep(name: str) -> Callable[[], object]:
        return lambda: subprocess.run(
            ["git", "-C", str(repo), "grep", "-w", name], capture_output=True, check=False
        )

    rows = [("build (s)", f"{build_s:.1f}", "")]
    for state in ("clean", "10 dirty"):
        if state == "10 dirty":
            for i in range(10):
                p = next(repo.glob(f"pkg{i:03d}/sub*/mod*.py"))
                p.write_text(p.read_text() + f"\n\ndef dirty{i}():\n    return f{i}(1)\n")
        edited = next(repo.glob("pkg020/sub*/mod*.py"))  # none of the 10 dirty files

        def edit(i: int, path: Path = edited) -> None:  # one file changed before the answer
            path.write_text(path.read_text() + f"\n# edit {i}\n")

        # (what is measured, the call, what runs untimed before each call)
        measured: list[tuple[str, Callable[[], object], Callable[[int], object] | None]] = [
            ("defs in process", lambda: watched.answer("defs", {"name": "f123"}), None),
            ("refs in process", lambda: watched.answer("refs", {"name": "g7"}), None),
            ("/defs over HTTP", new_connection("/defs?name=f123"), None),
            ("/refs over HTTP", new_connection("/refs?name=g7"), None),
            ("/status over HTTP", new_connection("/status"), None),
            ("/defs over HTTP, kept connection", keep_alive("/defs?name=f123"), None),
            ("/status over HTTP, kept connection", keep_alive("/status"), None),
            ("status in process", watched.status, None),
            ("status without a watcher (full read)", service.status, None),
            ("status after a 1-file edit (re-hash)", watched.status, edit),
            ("git grep -w f123", grep("f123"), None),
            ("git grep -w g7", grep("g7"), None),
        ]
        for label, call, before in measured:  # in this order: the edit row dirties a file
            rows.append((f"{state}: {label} p50/p99 (ms)", fmt(timings(call, repeat, before)), ""))
        subprocess.run(["git", "-C", str(repo), "checkout", "-q", "--", str(edited)], check=True)
    rows.append(("service RSS (MB)", f"{psutil.Process().memory_info().rss / 1e6:.0f}", ""))
    server.shutdown()
    server.server_close()
    watched.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[4000, 30000])
    ap.add_argument("--repeat", type=int, default=40)
    args = ap.parse_args()
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    results: dict[int, list[tuple[str, str, str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            results[n] = measure(n, Path(tmp), args.repeat)
    names = [r[0] for r in results[args.sizes[0]]]
    print("| measure | " + " | ".join(f"{n:,} files" for n in args.sizes) + " |")
    print("|---|" + "---|" * len(args.sizes))
    for i, name in enumerate(names):
        print(f"| {name} | " + " | ".join(results[n][i][1] for n in args.sizes) + " |")


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("query"):
        main()
