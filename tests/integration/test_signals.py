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
from collections.abc import Callable
from pathlib import Path

import pytest
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

from freshindex.catalog.layout import read_pointer
from freshindex.storage import open_store
from freshindex.tasks.lock import lock_name
from tests.conftest import alive, descendants, stop
from tests.repos import commit_all, make_repo, write_files

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


def shards_under_way(store_dir: Path) -> Callable[[], bool]:
    """Whether a version not there when asked has its first shard's table
    files: the shard tasks have begun, and others run on the workers when
    the signal lands. Read from the store, not the API: the API learns of a
    task run through its event recorder, which can lag past the end of a
    short build (seen in CI: the build finished while the test waited)."""
    before = set(store_dir.glob("versions/*"))

    def ready() -> bool:
        return any(
            next(version.glob("shards/*/*.parquet"), None) is not None
            for version in set(store_dir.glob("versions/*")) - before
        )

    return ready


def crashed_and_released(store_uri: str) -> None:
    """On the shared API: the command's flow run is Crashed, none of its task
    runs is left Running or Pending, and the publish slot is free."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.sorting import FlowRunSort

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(sort=FlowRunSort.EXPECTED_START_TIME_DESC, limit=20)
        run = next(r for r in runs if r.parameters.get("store") == store_uri)
        tasks = client.read_task_runs(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.id]))
        )
        limit = client.read_global_concurrency_limit_by_name(lock_name(store_uri))
    assert run.state is not None and run.state.type.value == "CRASHED", run.state
    states = {t.state.type.value for t in tasks if t.state is not None}
    assert tasks and not states & {"RUNNING", "PENDING"}, states
    assert limit.active_slots == 0


def terminated(
    argv: list[str],
    env: dict[str, str],
    store_dir: Path,
    ready: Callable[[], bool] = lambda: True,
) -> list[str]:
    """Run a freshindex command, SIGTERM it once its flow has begun (a new
    staging marker) and ``ready()``, and check what every command owes a
    SIGTERM: exit 143, one line, and no process it started left running.
    Its stderr lines."""
    before = set(store_dir.glob("versions/*/staging.json"))
    proc = subprocess.Popen(
        [str(BIN / "freshindex"), *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    try:
        deadline = time.monotonic() + 240
        # the flow has begun and started its Dask cluster (and maybe a Prefect API)
        while (
            not (set(store_dir.glob("versions/*/staging.json")) - before)
            or not (started := descendants(proc.pid))
            or not ready()
        ):
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the flow never started"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
        err = stderr.decode().strip().splitlines()
        assert proc.returncode == 143, err
        # one line, and nothing after it (no warning from a helper process)
        assert [line for line in err if not line.startswith(("building ", "updating "))] == [
            "freshindex: terminated"
        ], err
        deadline = time.monotonic() + 30  # Dask nannies may take a moment to reap
        while (left := [p for p in started if alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not left, f"left running: {left}"
        return err
    finally:
        if proc.poll() is None:
            stop(proc)
        if proc.stderr is not None:
            proc.stderr.close()


def many_files(n: int, body: str = "return fn{j}(x)") -> dict[str, str]:
    return {
        f"pkg{i % 40}/mod{i}.py": f"def fn{i}(x):\n    {body.format(j=i - 1)}\n" for i in range(n)
    }


@pytest.mark.parametrize("api", ["embedded", "shared"])
def test_sigterm_stops_a_build_and_everything_it_started(
    api: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # enough shards and files that the flow is still running when the signal lands
    repo = make_repo(tmp_path / "repo", many_files(1500))
    store_dir = tmp_path / "store"
    store_uri = store_dir.as_uri()
    # embedded: no PREFECT_API_URL, the command starts its own API; either way
    # a local Dask cluster
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    if api == "shared":
        env["PREFECT_API_URL"] = request.getfixturevalue("prefect_api")
    # once shard tasks have begun: the signal must leave their task runs Crashed
    ready = shards_under_way(store_dir)
    terminated(["--repo", str(repo), "--store", store_uri, "build"], env, store_dir, ready)
    assert read_pointer(open_store(store_uri)).pointer is None, "a half-built version was published"
    if api == "shared":
        crashed_and_released(store_uri)


def test_sigterm_stops_an_update(prefect_api: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_files(1500))
    store_dir = tmp_path / "store"
    store_uri = store_dir.as_uri()
    argv = ["--repo", str(repo), "--store", store_uri]
    env = {**os.environ, "PREFECT_API_URL": prefect_api}
    subprocess.run(
        [str(BIN / "freshindex"), *argv, "build", "--runner", "threads"],
        env=env,
        check=True,
        capture_output=True,
    )
    built = read_pointer(open_store(store_uri)).pointer
    write_files(repo, many_files(1500, "return {j} + x"))
    commit_all(repo, "every file changed")
    update = [*argv, "update", "--runner", "dask"]
    terminated(update, env, store_dir, shards_under_way(store_dir))
    after = read_pointer(open_store(store_uri)).pointer
    assert built is not None and after is not None and after.version == built.version, (
        "the update published, or moved the pointer"
    )
    crashed_and_released(store_uri)
    # the index it left is the build's, whole
    verify = subprocess.run(
        [str(BIN / "freshindex"), *argv, "verify"], env=env, capture_output=True
    )
    assert verify.returncode == 0, verify.stderr
