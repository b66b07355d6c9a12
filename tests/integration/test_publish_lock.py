"""The per-store publish lock (a Prefect global concurrency limit) against the
session's real `prefect server start`."""

from __future__ import annotations

import contextvars
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

# Prefect imported at collection, before the session's API URL is set: its
# root settings have no URL, as in the CLI's embedded-server path (the server
# starts after Prefect is imported). Threads that do not carry the flow's
# context fall back to those root settings.
import prefect.settings  # noqa: F401
import pytest

from freshindex.cli import main
from freshindex.tasks.lock import (
    LEASE_SECONDS,
    ORPHAN_SECONDS,
    RequestedLock,
    lock_name,
    publish_lock,
)
from tests.conftest import temporary_prefect_servers
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow

HOLDER = """
import sys
from freshindex.tasks.lock import publish_lock
with publish_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


def start_holder(store: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, store],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def active_slots(api: str, name: str) -> int:
    limits = httpx.post(f"{api}/v2/concurrency_limits/filter", json={}).json()
    return next(int(lim["active_slots"]) for lim in limits if lim["name"] == name)


@pytest.fixture
def held(prefect_api: str) -> Iterator[RequestedLock]:
    """A flow's requested lock on store A, granted and held."""
    lock = RequestedLock("s3://bucket/store-a")
    entered = threading.Event()
    release = threading.Event()

    def publisher() -> None:
        with lock.held():
            entered.set()
            release.wait()

    thread = threading.Thread(target=contextvars.copy_context().run, args=(publisher,))
    thread.start()
    assert entered.wait(30)
    try:
        yield lock
    finally:
        release.set()
        thread.join(30)


def test_the_lock_lives_on_the_flows_api(prefect_api: str, held: RequestedLock) -> None:
    # the requesting thread sees the flow's API URL: a bare thread would have
    # started a temporary server of its own and excluded nobody
    assert active_slots(prefect_api, lock_name("s3://bucket/store-a")) == 1


def test_second_publisher_of_a_store_waits_and_other_stores_do_not(
    prefect_api: str, held: RequestedLock
) -> None:
    granted = threading.Event()

    def second() -> None:
        with publish_lock("s3://bucket/store-a"):
            granted.set()

    # threads carry the test's context (the API URL), as the flow's do
    waiter = threading.Thread(target=contextvars.copy_context().run, args=(second,), daemon=True)
    waiter.start()
    with publish_lock("s3://bucket/store-b"):  # another store: no wait
        pass
    assert not granted.wait(1.5), "two publishers held the same store's lock"
    held.close()
    assert granted.wait(30), "the lock was not handed on after release"
    waiter.join(30)
    assert active_slots(prefect_api, lock_name("s3://bucket/store-a")) == 0


def test_waiting_past_the_timeout_is_an_error(prefect_api: str, held: RequestedLock) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="not granted"), publish_lock("s3://bucket/store-a", 1.0):
        pass
    assert time.monotonic() - started < 10


def test_an_in_process_build_takes_the_lock_on_its_own_api(
    prefect_api: str, tmp_path: Path
) -> None:
    """The flow's lock thread must report to the flow's API. A thread without
    the flow's context variables once started a temporary server of its own
    (so the lock excluded nobody, and every build paid a server start)."""
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    argv = ["--repo", str(repo), "--store", store, "--json", "build", "--runner", "threads"]
    assert main(argv) == 0
    assert temporary_prefect_servers() == []
    assert active_slots(prefect_api, lock_name(store)) == 0  # created there, released


def test_updates_for_one_merge_queue_on_the_lock_instead_of_conflicting(
    prefect_api: str, tmp_path: Path
) -> None:
    """Two per-merge runs for the same commit (a retried CI job) at once: an
    incremental update holds the slot from before it reads the pointer, so
    the second plans against the first's version and has nothing to do,
    rather than losing the pointer's compare-and-swap."""
    from freshindex.catalog.layout import read_manifest, read_pointer
    from freshindex.storage import open_store

    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    assert main(["--repo", str(repo), "--store", store, "build", "--runner", "threads"]) == 0
    write_files(repo, {"app/merged.py": "def merged():\n    pass\n"})
    rev = commit_all(repo, "merge")
    cmd = [str(Path(sys.executable).parent / "freshindex"), "--repo", str(repo)]
    cmd += ["--store", store, "--json", "update", "--rev", rev]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    results = [(p.returncode, out) for p, out in zip(procs, outputs, strict=True)]
    assert [code for code, _ in results] == [0, 0]
    outcomes = sorted(json.loads(out)["outcome"] for _, out in results)
    assert outcomes == ["noop", "published"]
    current = read_pointer(open_store(store)).pointer.version  # type: ignore[union-attr]
    assert read_manifest(open_store(store), current).sourceCommit == rev


def test_a_killed_holder_blocks_for_one_lease_and_a_live_one_keeps_the_slot(
    prefect_api: str,
) -> None:
    """Against the real server: a SIGKILLed holder's slot comes back once its
    stamp is ORPHAN_SECONDS old (before its lease of LEASE_SECONDS runs out;
    nobody could release it); a live holder renews and stamps, and still
    holds its slot after more than a lease."""
    killed = start_holder("s3://bucket/killed")
    live = start_holder("s3://bucket/live")
    live_since = started = time.monotonic()
    try:
        killed.kill()
        killed.communicate()  # reaps it and closes its pipes
        with publish_lock("s3://bucket/killed", timeout=LEASE_SECONDS * 3):
            waited = time.monotonic() - started
        # the killed holder stamped before `started` (when it printed "held")
        assert ORPHAN_SECONDS * 0.8 < waited < LEASE_SECONDS * 1.5
        # past one lease since the live holder took its slot: only renewal
        # can have kept it
        time.sleep(max(0.0, live_since + LEASE_SECONDS + 5 - time.monotonic()))
        assert active_slots(prefect_api, lock_name("s3://bucket/live")) == 1
        with pytest.raises(TimeoutError), publish_lock("s3://bucket/live", timeout=1.0):
            pass
        live.communicate("")  # closes stdin: the holder releases and exits
        assert live.returncode == 0
        assert active_slots(prefect_api, lock_name("s3://bucket/live")) == 0
    finally:
        for proc in (killed, live):
            if proc.poll() is None:
                proc.kill()
            proc.communicate()  # closes its pipes, whatever failed above
