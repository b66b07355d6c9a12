"""Deployments served against a real `prefect server start`, triggered like CI would."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from freshindex.catalog.layout import read_pointer
from freshindex.cli import main
from freshindex.storage import open_store
from tests.conftest import BIN, stop
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow


def cli(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


def run_deployment(name: str, parameters: dict[str, object]) -> object:
    from prefect.deployments import run_deployment as prefect_run

    deadline = time.monotonic() + 120
    while True:  # the served deployments register a moment after the process starts
        try:
            return prefect_run(
                name, parameters=parameters, timeout=300, poll_interval=1, as_subflow=False
            )
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def wait_registered(name: str, since: datetime, proc: subprocess.Popen[bytes]) -> None:
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + 120
    with get_client(sync_client=True) as client:
        while True:
            assert proc.poll() is None, "freshindex deployments exited"
            with contextlib.suppress(Exception):  # not registered yet
                deployment = client.read_deployment_by_name(name)
                if deployment.updated is not None and deployment.updated >= since:
                    return
            assert time.monotonic() < deadline, f"{name} was never registered"
            time.sleep(0.5)


@pytest.fixture
def served(prefect_api: str, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    assert (
        cli("--repo", str(repo), "--store", store, "build", "--runner", "threads", "--shards", "4")
        == 0
    )
    log = open(tmp_path / "deployments.log", "wb")  # noqa: SIM115
    started = datetime.now(UTC)
    proc = subprocess.Popen(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", store, "deployments"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=dict(os.environ),
    )
    try:
        # registered by this process, not left in the session's API by an
        # earlier test (rollback starts the on-merge run only if it exists)
        wait_registered("freshindex-update/on-merge", started, proc)
        yield repo, store
    finally:
        stop(proc)
        log.close()


def test_on_merge_deployment_moves_the_pointer(served: tuple[Path, str]) -> None:
    repo, store = served
    write_files(repo, {"app/merged.py": "def merged():\n    pass\n"})
    sha = commit_all(repo, "merge")
    # parameters in full: the deployment may still carry another test's defaults
    run = run_deployment(
        "freshindex-update/on-merge", {"repo": str(repo), "store": store, "rev": sha}
    )
    assert run.state is not None and run.state.is_completed(), run.state  # type: ignore[attr-defined]
    pointer = read_pointer(open_store(store)).pointer
    assert pointer is not None
    from freshindex.catalog.layout import read_manifest

    assert read_manifest(open_store(store), pointer.version).sourceCommit == sha


def _corrupt_current(repo: Path, store_uri: str) -> None:
    """Publish, through the real publish path, a version whose rows drift from
    the code (a symbol's line is off by one): counts and digests all check out."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from freshindex.indexer.shard import sort_table
    from freshindex.storage.base import sha256_hex
    from freshindex.tasks.parse import index_shard
    from freshindex.tasks.plan import plan_build
    from freshindex.tasks.publish import finalize
    from freshindex.tasks.tables import decode_parquet, encode_parquet
    from freshindex.tasks.validate import validate_tables

    store = open_store(store_uri)
    plan = plan_build.fn(str(repo), store_uri, "HEAD", 4)
    tables = [t for s in range(4) for t in index_shard(plan.job, s)]
    victim = next(t for t in tables if t.table == "symbols" and t.rows)
    table = decode_parquet(store.get(victim.key).data)
    i = table.schema.get_field_index("start_line")
    table = sort_table(
        "symbols",
        table.set_column(i, "start_line", pc.add(table["start_line"], pa.scalar(1, pa.int32()))),
    )
    data = encode_parquet(table)
    store.put(victim.key, data)
    tables = [
        t.model_copy(update={"bytes": len(data), "sha256": sha256_hex(data)})
        if t.key == victim.key
        else t
        for t in tables
    ]
    report = validate_tables(store, tables, 4, plan.entries)
    assert report.ok
    assert finalize(store, plan, tables, report).status == "published"


def test_nightly_drift_check_fails_on_drift_and_passes_when_clean(served: tuple[Path, str]) -> None:
    repo, store = served
    _corrupt_current(repo, store)
    params = {"repo": str(repo), "store": store}
    run = run_deployment("freshindex-nightly/nightly", params)
    assert run.state is not None and run.state.is_failed()  # type: ignore[attr-defined]
    assert "drift" in (run.state.message or "")  # type: ignore[attr-defined]
    # the from-scratch build replaced the drifted version; tonight again: clean
    run = run_deployment("freshindex-nightly/nightly", params)
    assert run.state is not None and run.state.is_completed(), run.state  # type: ignore[attr-defined]
    assert cli("--repo", str(repo), "--store", store, "verify") == 0


def test_rollback_starts_the_rebuild_flow_run(
    served: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    repo, store = served
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--json", "keygen", "--out", str(tmp_path / "keys")]) == 0
    keys = json.loads(out.getvalue())
    monkeypatch.setenv("FRESHINDEX_SIGNING_KEY", keys["privateKey"])
    monkeypatch.setenv("FRESHINDEX_PUBLIC_KEY", keys["publicKey"])
    # two signed versions, then roll back to the first
    assert (
        cli("--repo", str(repo), "--store", store, "build", "--runner", "threads", "--shards", "4")
        == 0
    )
    first = read_pointer(open_store(store)).pointer.version  # type: ignore[union-attr]
    write_files(repo, {"app/later.py": "def later():\n    pass\n"})
    head = commit_all(repo, "later")
    assert cli("--repo", str(repo), "--store", store, "update") == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert (
            main(["--repo", str(repo), "--store", store, "--json", "rollback", "--to", first]) == 0
        )
    doc = json.loads(out.getvalue())
    assert doc["current"] == first and doc["rebuildRun"]
    # the served on-merge deployment picks the run up and the index reaches HEAD again
    from freshindex.catalog.layout import read_manifest

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        ptr = read_pointer(open_store(store)).pointer
        if ptr is not None and ptr.version != first:
            assert read_manifest(open_store(store), ptr.version).sourceCommit == head
            break
        time.sleep(1)
    else:
        pytest.fail("the requested rebuild never published")
