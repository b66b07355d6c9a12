"""Incremental update cost against a full build, on two repository sizes.

For each size (default 3,000 and 30,000 generated Python files): a full build
(128 shards, LocalCluster), then updates of 1, 10, 100 and 500 modified files,
each its own commit, timed end to end (`freshindex update`, thread runner),
all against one running Prefect server.

Usage: python tests/benchmarks/bench_update.py [--sizes 3000 30000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from flows.runtime import server_environment  # noqa: E402
from tests.benchmarks.bench_status import make  # noqa: E402
from tests.conftest import free_port, stop, wait_http  # noqa: E402
from tests.repos import commit_all  # noqa: E402

BIN = Path(sys.executable).parent


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, dict]:  # type: ignore[type-arg]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - t0, json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[3000, 30000])
    ap.add_argument("--changes", type=int, nargs="+", default=[1, 10, 100, 500])
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fi-update-"))
    env = {
        **os.environ,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_HOME": str(work / "prefect"),
        "XDG_CACHE_HOME": str(work / "cache"),
    }
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=server_environment(env),
    )
    print(
        "| files | full build (s) | changed files | update (s) | update / full | mode | shards rewritten |"
    )
    print("|---|---|---|---|---|---|---|")
    try:
        wait_http(f"http://127.0.0.1:{port}/api/health", server, 120, "prefect server")
        env["PREFECT_API_URL"] = f"http://127.0.0.1:{port}/api"
        for n in args.sizes:
            repo = make(work, n)
            fi = [str(BIN / "freshindex"), "--repo", str(repo), "--json"]
            full, _ = timed([*fi, "build"], env)
            files = sorted(p for p in repo.rglob("*.py") if ".git" not in p.parts)
            for k in args.changes:
                for i, p in enumerate(files[:k]):
                    p.write_text(p.read_text() + f"\n\ndef edit_{k}_{i}():\n    return {i}\n")
                commit_all(repo, f"{k} edits")
                wall, doc = timed([*fi, "update"], env)
                print(
                    f"| {n} | {full:.1f} | {k} | {wall:.1f} | {wall / full:.0%} | {doc['mode']} "
                    f"| {doc['shardsRewritten']} |",
                    flush=True,
                )
    finally:
        stop(server)


if __name__ == "__main__":
    main()
