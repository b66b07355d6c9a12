"""`serve --updates`: POST /update runs the update flow in the warm service and
loads what it published; updates queue one at a time; off unless asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from freshindex.catalog.layout import read_pointer
from freshindex.core.gitrepo import open_repo
from freshindex.flows.cluster import task_runner
from freshindex.ops.metrics import Metrics
from freshindex.service import QueryService, Updater
from freshindex.storage import open_store
from tests.conftest import (
    alive,
    cmdline,
    descendants,
    free_port,
    stop,
    temporary_prefect_servers,
    wait_http,
)
from tests.integration.test_service import cli, get, serving
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


def built(tmp_path: Path, store_uri: str) -> Path:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    argv = ["--repo", str(repo), "--store", store_uri]
    assert cli(*argv, "build", "--runner", "threads", "--shards", "4") == 0
    return repo


@pytest.fixture
def warm(prefect_api: str, tmp_path: Path, store_uri: str) -> Iterator[tuple[Path, str, str]]:
    repo = built(tmp_path, store_uri)
    updater = Updater(store_uri, lambda: task_runner(None, None, "threads"))
    with serving(QueryService(open_repo(repo), open_store(store_uri), updater)) as base:
        yield repo, store_uri, base
    # updates run in request threads, and must report to the session's API:
    # Prefect starts a temporary server in this process for a client that
    # does not see the API's URL
    assert temporary_prefect_servers() == []


def store_gauges(exposition: bytes) -> list[str]:
    names = ("freshindex_update_fallbacks", "freshindex_tombstones", "freshindex_last_")
    return [line for line in exposition.decode().splitlines() if line.startswith(names)]


def current(store_uri: str) -> str:
    return read_pointer(open_store(store_uri)).pointer.version  # type: ignore[union-attr]


def test_post_update_publishes_and_the_service_answers_from_it(warm) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, base = warm
    before = current(store_uri)
    write_files(repo, {"app/merged.py": "def merged_fn():\n    return 1\n"})
    commit_all(repo, "a merge")
    # committed but not indexed: the answer says so (an overlay of the commit)
    doc = json.loads(get(base, "/defs?name=merged_fn")[1])
    assert doc["freshness"] != "exact" and doc["indexVersion"] == before

    text = get(base, "/metrics")[1].decode()  # the service has folded the full build's record
    assert 'freshindex_last_rows_written{kind="full"}' in text
    assert 'freshindex_last_rows_written{kind="incremental"}' not in text

    code, body = get(base, "/update", "POST")
    doc = json.loads(body)
    assert code == 200, doc
    assert doc["outcome"] == "published" and doc["mode"] == "incremental"
    # the scrape folds only the new record in, and agrees with one that reads them all
    fresh = Metrics()
    fresh.refresh(open_store(store_uri), None)
    assert store_gauges(get(base, "/metrics")[1]) == store_gauges(fresh.exposition())
    assert 'freshindex_last_rows_written{kind="incremental"}' in fresh.exposition().decode()
    assert doc["version"] == doc["loaded"] == current(store_uri) != before
    assert doc["shardsRewritten"] == 1 and doc["wallSeconds"] > 0

    doc = json.loads(get(base, "/defs?name=merged_fn")[1])
    assert doc["freshness"] == "exact" and doc["indexVersion"] == current(store_uri)
    assert [r["path"] for r in doc["results"]] == ["app/merged.py"]
    assert get(base, "/healthz")[0] == 200  # loaded == current: no reload needed

    code, body = get(base, "/update?rev=HEAD", "POST")  # nothing new: a no-op, still 200
    assert code == 200 and json.loads(body)["outcome"] == "noop"
    code, body = get(base, "/update?rev=no-such-rev", "POST")
    assert code == 400 and "unknown revision" in json.loads(body)["error"]
    text = get(base, "/metrics")[1].decode()
    assert 'freshindex_service_updates_total{outcome="published"} 1.0' in text
    assert 'freshindex_service_updates_total{outcome="noop"} 1.0' in text
    # the index the service built is the one `freshindex update` would have built
    assert cli("--repo", str(repo), "--store", store_uri, "verify") == 0


@pytest.mark.parametrize("store_uri", ["file"], indirect=True)
def test_concurrent_posts_run_one_at_a_time(warm) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, base = warm
    write_files(repo, {"app/a.py": "def a_fn():\n    pass\n"})
    commit_all(repo, "a")
    results: list[dict] = []  # type: ignore[type-arg]

    def post() -> None:
        code, body = get(base, "/update", "POST")
        results.append({"code": code, **json.loads(body)})

    threads = [threading.Thread(target=post) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # one published; the other waited for it, then found nothing to do
    assert sorted(r["outcome"] for r in results) == ["noop", "published"], results
    assert all(r["code"] == 200 for r in results)
    noop = next(r for r in results if r["outcome"] == "noop")
    assert noop["version"] == noop["loaded"] == current(store_uri)


@pytest.mark.parametrize("store_uri", ["file"], indirect=True)
def test_updates_are_off_unless_asked_for(prefect_api: str, tmp_path: Path, store_uri: str) -> None:
    repo = built(tmp_path, store_uri)
    with serving(QueryService(open_repo(repo), open_store(store_uri))) as base:
        code, body = get(base, "/update", "POST")
        assert code == 403 and "--updates" in json.loads(body)["error"]
        assert get(base, "/nothing", "POST")[0] == 404


@pytest.mark.parametrize("store_uri", ["file"], indirect=True)
def start_serve(repo: Path, store_uri: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """`freshindex serve --updates` as a user starts it, with no
    PREFECT_API_URL (its own embedded Prefect API); once it answers."""
    port = free_port()
    argv = ["--repo", str(repo), "--store", store_uri, "serve", "--updates", "--port", str(port)]
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    proc = subprocess.Popen(
        [str(BIN / "freshindex"), *argv, *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/healthz", proc, 180, "freshindex serve")
    except BaseException:
        stop(proc)
        raise
    return proc, base


def stopped(proc: subprocess.Popen[bytes]) -> str:
    """Stop the service if still running; its stderr."""
    stop(proc)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return err


def test_cli_serve_updates(prefect_api: str, tmp_path: Path, store_uri: str) -> None:
    """The command as a user starts it: its own process and its own embedded
    Prefect API, an update on POST and the new version served; SIGTERM stops
    the service and the API it started."""
    repo = built(tmp_path, store_uri)
    proc, base = start_serve(repo, store_uri)
    try:
        (repo / "app" / "models.py").unlink()
        commit_all(repo, "delete models")
        code, body = get(base, "/update", "POST")
        doc = json.loads(body)
        assert code == 200 and doc["outcome"] == "published", doc
        assert get(base, "/defs?name=persist")[0] == 400  # nothing defines it any more
        started = descendants(proc.pid)
        # one Prefect API: the update ran in a request thread, and reported to
        # the API the service started, not to a temporary one of its own
        apis = [p for p in started if "prefect server start" in cmdline(p)]
        assert len(apis) == 1, [cmdline(p) for p in started]
        proc.terminate()
        assert proc.wait(timeout=60) == 0
        assert not [p for p in started if alive(p)], "left running"
    finally:
        err = stopped(proc)
    assert "POST /update runs updates here" in err


@pytest.mark.parametrize("store_uri", ["file"], indirect=True)
def test_cli_serve_updates_keeps_one_local_cluster(
    prefect_api: str, tmp_path: Path, store_uri: str
) -> None:
    """With --runner dask, the service starts one LocalCluster and every
    update runs on it (a cluster per update cost its start-up each merge)."""
    repo = built(tmp_path, store_uri)
    proc, base = start_serve(repo, store_uri, "--runner", "dask")
    try:
        seen = []
        for i in range(2):
            write_files(repo, {f"app/merge{i}.py": f"def merge{i}():\n    return {i}\n"})
            commit_all(repo, f"merge {i}")
            code, body = get(base, "/update", "POST")
            assert code == 200 and json.loads(body)["outcome"] == "published", body
            seen.append(
                {p for p in descendants(proc.pid) if "prefect server start" not in cmdline(p)}
            )
        assert len(seen[0]) >= 2, "the cluster's worker processes run between updates"
        assert seen[0] == seen[1], "a second cluster was started"
        proc.terminate()
        assert proc.wait(timeout=60) == 0
        deadline = time.monotonic() + 30  # forked workers may take a moment to reap
        while (left := [p for p in seen[0] if alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not left, f"the cluster was left running: {[cmdline(p) for p in left]}"
    finally:
        stopped(proc)
