"""A half-built version never becomes current: killed builds, lost races, failed validation."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from freshindex.catalog.layout import list_versions, read_manifest, read_pointer
from freshindex.cli import main
from freshindex.indexer.shard import sort_table
from freshindex.ops.verify import verify_version
from freshindex.storage import open_store
from freshindex.tasks.parse import index_shard
from freshindex.tasks.plan import plan_build
from freshindex.tasks.publish import finalize
from freshindex.tasks.validate import validate_tables
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow


def _build_threads(repo: Path, store_uri: str, *extra: str) -> str:
    code = main(
        [
            "--repo",
            str(repo),
            "--store",
            store_uri,
            "--json",
            "build",
            "--runner",
            "threads",
            *extra,
        ]
    )
    assert code == 0
    return read_pointer(open_store(store_uri)).pointer.version  # type: ignore[union-attr]


def test_sigkill_mid_build_leaves_previous_version_current(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = dict(SAMPLE_FILES)
    # enough files that 128 shards on one worker take several seconds
    files.update({f"gen/m{i:04d}.py": f"def f{i}():\n    return {i}\n" for i in range(600)})
    repo = make_repo(tmp_path / "repo", files)
    store_uri = (tmp_path / "store").as_uri()
    v1 = _build_threads(repo, store_uri)
    capsys.readouterr()
    write_files(repo, {"app/extra.py": "def extra():\n    pass\n"})
    commit_all(repo, "second")

    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "freshindex"),
            "--repo",
            str(repo),
            "--store",
            store_uri,
            "build",
            "--workers",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    versions_dir = tmp_path / "store" / "versions"
    deadline = time.monotonic() + 240
    written = 0
    while time.monotonic() < deadline and proc.poll() is None:
        new = [d for d in versions_dir.iterdir() if d.name != v1]
        written = sum(1 for d in new for _ in d.glob("shards/*/*.parquet"))
        if written >= 8:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "build finished before it could be killed"
    assert written >= 8
    os.killpg(proc.pid, signal.SIGKILL)  # the flow process and its Dask workers
    proc.wait()

    store = open_store(store_uri)
    assert read_pointer(store).pointer.version == v1  # type: ignore[union-attr]
    _m, problems = verify_version(store, v1)
    assert problems == []
    states = list_versions(store)
    killed = [v for v in states if v != v1]
    assert len(killed) == 1 and states[killed[0]] == "building"  # never complete, never current
    # the store is still usable: the next build publishes (once the killed
    # build's publish slot has come back, after at most about one lease)
    assert _build_threads(repo, store_uri) not in (v1, killed[0])


def test_losing_the_pointer_race_publishes_nothing(prefect_api: str, tmp_path: Path) -> None:
    """Build A reads the pointer, build B publishes meanwhile, A's swap loses."""
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store_uri = (tmp_path / "store").as_uri()
    v0 = _build_threads(repo, store_uri, "--shards", "4")

    plan_a = plan_build.fn(str(repo), store_uri, "HEAD", 4)
    v_b = _build_threads(repo, store_uri, "--shards", "4")  # B wins the pointer
    store = open_store(store_uri)
    tables = [t for s in range(4) for t in index_shard(plan_a.job, s)]
    report = validate_tables(store, tables, 4, plan_a.entries)
    assert report.ok
    outcome = finalize(store, plan_a, tables, report)

    assert outcome.status == "conflict" and "moved" in (outcome.reason or "")
    assert read_pointer(store).pointer.version == v_b  # type: ignore[union-attr]
    assert verify_version(store, v_b)[1] == []
    assert v0 != v_b
    # A's files and manifest stay (immutable) but A has no publication record
    assert read_manifest(store, plan_a.version).state == "complete"
    assert any("record" in p for p in verify_version(store, plan_a.version)[1])


def test_failed_validation_marks_version_failed_and_switches_nothing(
    prefect_api: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store_uri = (tmp_path / "store").as_uri()
    v0 = _build_threads(repo, store_uri, "--shards", "4")
    store = open_store(store_uri)
    plan = plan_build.fn(str(repo), store_uri, "HEAD", 4)
    tables = [t for s in range(4) for t in index_shard(plan.job, s)]
    # corrupt one table file after the shard reported it: its digest no longer matches
    victim = next(t for t in tables if t.table == "symbols" and t.rows)
    store.put(victim.key, store.get(victim.key).data + b"x")
    report = validate_tables(store, tables, 4, plan.entries)
    assert not report.ok and "sha256" in (report.reason or "")
    outcome = finalize(store, plan, tables, report)
    assert outcome.status == "failed"
    assert read_manifest(store, plan.version).state == "failed"
    assert read_pointer(store).pointer.version == v0  # type: ignore[union-attr]


def test_reverse_index_disagreement_fails_validation(prefect_api: str, tmp_path: Path) -> None:
    from freshindex.tasks.tables import decode_parquet, encode_parquet

    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store_uri = (tmp_path / "store").as_uri()
    store = open_store(store_uri)
    plan = plan_build.fn(str(repo), store_uri, "HEAD", 1)
    tables = index_shard(plan.job, 0)
    refs = next(t for t in tables if t.table == "refs")
    broken = sort_table(
        "refs", decode_parquet(store.get(refs.key).data).slice(1)
    )  # drop one reverse edge
    data = encode_parquet(broken)
    store.put(refs.key, data)
    from freshindex.storage.base import sha256_hex

    tables = [
        t.model_copy(
            update={"rows": broken.num_rows, "bytes": len(data), "sha256": sha256_hex(data)}
        )
        if t.key == refs.key
        else t
        for t in tables
    ]
    report = validate_tables(store, tables, 1, plan.entries)
    assert not report.ok and "reverse index" in (report.reason or "")


def test_cli_build_reports_json_and_exit_codes(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    code = main(["--repo", str(repo), "--json", "build", "--runner", "threads", "--shards", "2"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)  # exactly one JSON document on stdout
    assert doc["outcome"] == "published" and doc["shards"] == 2
    # the default store lives inside .git, so the worktree stays clean
    assert (repo / ".git" / "freshindex" / "current.json").exists()
    assert (
        subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        == ""
    )


def test_each_flow_run_writes_a_table_artifact(prefect_api: str, tmp_path: Path) -> None:
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
    from prefect.client.schemas.sorting import ArtifactSort

    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    version = _build_threads(repo, (tmp_path / "store").as_uri(), "--shards", "2")

    async def latest() -> list:  # type: ignore[type-arg]
        async with get_client() as client:
            return await client.read_artifacts(
                artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["freshindex-build"])),
                # newest first: the session's other builds write the same key, and
                # the server's default order (random UUIDs) can push ours past a limit
                sort=ArtifactSort.CREATED_DESC,
                limit=20,
            )

    artifacts = asyncio.run(latest())
    assert any(version in (a.description or "") for a in artifacts)
    table = next(a for a in artifacts if version in (a.description or "")).data
    assert "documents" in json.dumps(table)
