"""SIGTERM (a cancelled CI job, `docker stop`, `kill`) stops a build at once:
one line, exit 143, nothing published, no process the command started (its
Prefect API, its Dask cluster) left running, and on a shared Prefect API the
flow run marked Crashed and the publish slot given back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from storage import open_store
from storage.catalog import read_pointer
from tasks.lock import lock_name
from tests.conftest import alive, descendants, stop
from tests.repos import make_repo

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


def flow_run_and_slots(store_uri: str) -> tuple[Any, int]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.sorting import FlowRunSort

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(sort=FlowRunSort.EXPECTED_START_TIME_DESC, limit=20)
        run = next(r for r in runs if r.parameters.get("store") == store_uri)
        limit = client.read_global_concurrency_limit_by_name(lock_name(store_uri))
    return run, limit.active_slots


@pytest.mark.parametrize("api", ["embedded", "shared"])
def test_sigterm_stops_a_build_and_everything_it_started(
    api: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # enough shards and files that the flow is still running when the signal lands
    files = {
        f"pkg{i % 40}/mod{i}.py": f"def fn{i}(x):\n    return fn{i - 1}(x)\n" for i in range(1500)
    }
    repo = make_repo(tmp_path / "repo", files)
    store_dir = tmp_path / "store"
    store_uri = store_dir.as_uri()
    # embedded: no PREFECT_API_URL, the command starts its own API; either way
    # a local Dask cluster
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    if api == "shared":
        env["PREFECT_API_URL"] = request.getfixturevalue("prefect_api")
    proc = subprocess.Popen(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", store_uri, "build"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + 240
        while not list(store_dir.glob("versions/*/staging.json")):  # the flow has begun
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the build never started"
            time.sleep(0.05)
        started = descendants(proc.pid)
        assert started, "the embedded Prefect API and the Dask cluster are child processes"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
        err = stderr.decode().strip().splitlines()
        assert proc.returncode == 143, err
        # one line, and nothing after it (no warning from a helper process)
        assert [line for line in err if not line.startswith("building ")] == [
            "freshindex: terminated"
        ], err
        assert read_pointer(open_store(store_uri)).pointer is None, (
            "a half-built version was published"
        )
        deadline = time.monotonic() + 30  # Dask nannies may take a moment to reap
        while (left := [p for p in started if alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not left, f"left running: {left}"
        if api == "shared":
            run, slots = flow_run_and_slots(store_uri)
            assert run.state.type.value == "CRASHED", run.state
            assert slots == 0, err
    finally:
        if proc.poll() is None:
            stop(proc)
        if proc.stderr is not None:
            proc.stderr.close()
