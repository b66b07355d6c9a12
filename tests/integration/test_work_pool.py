"""The production path as infra/README.md describes it, with real processes:
the session's `prefect server start`, `prefect work-pool create --type
process`, `prefect deploy --all` from this repository's prefect.yaml, and
`prefect worker start` with the repository and an S3 store (moto over HTTP)
in its environment. Nightly, on-merge (with rev) and manual (full and not)
each publish or say why not, on the run the user would click."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from freshindex.catalog.layout import read_pointer
from freshindex.storage import open_store
from tests.conftest import BIN, new_bucket, stop
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
POOL = "freshindex"  # as prefect.yaml names it


def prefect(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "prefect"), "--no-prompt", *argv],
        cwd=cwd, capture_output=True, text=True, timeout=180, env=dict(os.environ),
    )  # fmt: skip


@pytest.fixture
def worker(prefect_api: str, s3_server: str, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = f"s3://{new_bucket(s3_server)}/index"
    made = prefect("work-pool", "create", POOL, "--type", "process", "--overwrite")
    assert made.returncode == 0, made.stdout + made.stderr
    deployed = prefect("deploy", "--all")
    assert deployed.returncode == 0, deployed.stdout + deployed.stderr
    log = tmp_path / "worker.log"
    env = {**os.environ, "FRESHINDEX_REPO": str(repo), "FRESHINDEX_STORE": store}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(BIN / "prefect"), "worker", "start", "--pool", POOL, "--limit", "1"],
            cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        yield repo, store
    finally:
        stop(proc)
        text = log.read_text(errors="replace")
        assert "Traceback" not in text, text[-3000:]


def run(name: str, **parameters: Any) -> Any:
    from prefect.deployments import run_deployment

    return run_deployment(name, parameters=parameters, timeout=300, poll_interval=1)


def story(flow_run: Any) -> tuple[str, list[str]]:
    """What the run's own page shows: its state message and its artifacts' keys."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run.id]))
        )
    return flow_run.state.message or "", sorted(a.key or "" for a in artifacts)


def test_prefect_yaml_deployments_run_on_a_process_worker(worker: tuple[Path, str]) -> None:
    repo, store = worker
    s = open_store(store)

    nightly = run("freshindex-nightly/nightly-pool")
    assert nightly.state.is_completed(), nightly.state.message
    first = read_pointer(s).pointer
    assert first is not None and story(nightly)[1] == ["freshindex-nightly"]

    write_files(repo, {"app/models.py": "def persist(obj):\n    return obj\n"})
    sha = commit_all(repo, "merge")
    merged = run("freshindex-update/on-merge-pool", rev=sha)
    assert merged.state.is_completed(), merged.state.message
    moved = read_pointer(s).pointer
    assert moved is not None and moved.version != first.version
    assert "published" in merged.state.message

    noop = run("freshindex-manual/manual-pool")  # incremental, nothing new
    assert noop.state.is_completed()
    message, keys = story(noop)
    assert message.startswith(f"nothing to do: {sha} is already indexed"), message
    assert keys == ["freshindex-noop"]  # on the run itself, not on a subflow

    full = run("freshindex-manual/manual-pool", full=True)
    assert full.state.is_completed(), full.state.message
    assert story(full)[1] == ["freshindex-build"]
    assert read_pointer(s).pointer.version != moved.version  # type: ignore[union-attr]


def test_a_deployment_with_no_repository_fails_in_one_line(
    prefect_api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from freshindex.flows.update import update_flow

    monkeypatch.delenv("FRESHINDEX_REPO", raising=False)
    state = update_flow(return_state=True)
    assert state.is_failed()
    assert state.message == (
        "no repository: pass the `repo` parameter or set FRESHINDEX_REPO in the worker's environment"
    )
