"""A real Dask cluster: `dask scheduler` and two `dask worker` processes on 127.0.0.1."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from freshindex.cli import main
from tests.conftest import BIN, free_port, new_bucket, stop, wait_for_workers
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue() if code else out.getvalue()


@pytest.fixture
def cluster(prefect_api: str, s3_server: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    # Dask's default config, as a user starts them
    env = {k: v for k, v in os.environ.items() if k != "DASK_CONFIG"}
    procs = [
        subprocess.Popen(
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--dashboard-address",
                ":0",  # its HTTP server runs anyway: not on another cluster's 8787
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    for i in range(2):
        procs.append(
            subprocess.Popen(
                [
                    str(BIN / "dask"),
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                    "--local-directory",
                    str(tmp_path / f"w{i}"),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    try:
        wait_for_workers(address, 2)
        yield address
    finally:
        for p in reversed(procs):
            stop(p)


def _hiding(folder: Path) -> list[str]:
    """A command prefix that runs a process in a mount namespace of its own
    where ``folder`` is an empty tmpfs: it cannot read anything the test put
    there (the flow's repository among them)."""
    import shutil

    probe = ["unshare", "--mount", "--propagation", "private", "true"]
    if not shutil.which("unshare") or subprocess.run(probe, capture_output=True).returncode:
        pytest.skip("hiding the flow's files from a worker needs unshare --mount (root)")
    mount = 'mount -t tmpfs none "$0" && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, str(folder)]


@pytest.fixture
def remote_cluster(prefect_api: str, s3_server: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A scheduler and two workers that share nothing with the flow but the
    network: each worker sees this test's folder (the flow's repository, its
    store, the served mirror) as an empty one, and has its own HOME and
    working directory and an environment of PATH, HOME and the S3
    credentials only (no Prefect home, cache or mirror folder of ours); the
    repository is served by `git daemon` from a separate bare clone. Yields
    the scheduler's address and the mirror's git:// URL."""
    import shutil
    import tempfile

    prefix = _hiding(tmp_path)
    port, git_port = free_port(), free_port()
    address = f"tcp://127.0.0.1:{port}"
    mirrors = tmp_path / "served"
    mirrors.mkdir()
    homes = Path(tempfile.mkdtemp(prefix="fi-remote-"))  # outside the hidden folder
    env = {k: v for k, v in os.environ.items() if k.startswith("AWS_")}
    env["PATH"] = os.environ["PATH"]
    procs = [
        subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--no-dashboard", "--dashboard-address", ":0"],
            env={**env, "HOME": str(homes)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ),
        subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={mirrors}",
             "--listen=127.0.0.1", f"--port={git_port}", str(mirrors)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ),
    ]  # fmt: skip
    try:
        for i in range(2):
            home = homes / f"w{i}"
            (home / "work").mkdir(parents=True)
            procs.append(
                subprocess.Popen(
                    [*prefix, str(BIN / "dask"), "worker", address, "--nthreads", "1",
                     "--no-dashboard", "--name", f"remote{i}"],
                    env={**env, "HOME": str(home)}, cwd=home / "work",
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip
        wait_for_workers(address, 2)
        yield address, f"git://127.0.0.1:{git_port}/mirror.git"
    finally:
        for p in reversed(procs):
            stop(p)
        shutil.rmtree(homes, ignore_errors=True)


def dumps(repo: Path, store: str) -> dict[str, list[str]]:
    out = {}
    for table in ("symbols", "edges", "documents"):
        code, text = run("--repo", str(repo), "--store", store, "dump", "--table", table)
        assert code == 0
        out[table] = text.splitlines()[1:]
    return out


@pytest.mark.parametrize("mode", ["shared-path", "remote"])
def test_build_and_update_on_an_existing_cluster_equal_local_ones(
    request: pytest.FixtureRequest, s3_server: str, tmp_path: Path, mode: str
) -> None:
    """shared-path: workers read the flow's git directory. remote: workers
    that cannot read it, with their own HOME, read blobs only from a mirror
    served over git:// (remote_cluster)."""
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    s3_store = f"s3://{new_bucket(s3_server)}/index"
    extra: list[str] = []
    if mode == "remote":
        cluster, mirror_url = request.getfixturevalue("remote_cluster")
        served = tmp_path / "served" / "mirror.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(served)], check=True)
        extra = ["--mirror-url", mirror_url]
    else:
        cluster = request.getfixturevalue("cluster")
    code, out = run(
        "--repo", str(repo), "--store", s3_store, "build", "--dask-address", cluster,
        "--shards", "8", *extra,
    )  # fmt: skip
    assert code == 0, out
    local = (tmp_path / "local").as_uri()
    code, out = run(
        "--repo", str(repo), "--store", local, "build", "--runner", "threads", "--shards", "8"
    )  # fmt: skip
    assert code == 0, out
    assert dumps(repo, s3_store) == dumps(repo, local)

    # an update's shard tasks on the cluster: its plan reaches the workers
    # whole (Sealed: quote() did not survive Dask, tasks/compat.py)
    (repo / "app" / "models.py").rename(repo / "app" / "storage.py")
    write_files(
        repo,
        {
            "app/extra.py": "from app.storage import persist\n\n\ndef extra():\n    return persist(2)\n"
        },
    )
    commit_all(repo, "a rename and a new caller")
    if mode == "remote":
        subprocess.run(["git", "-C", str(repo), "push", "-q", str(served), "main"], check=True)
    code, out = run(
        "--repo", str(repo), "--store", s3_store, "--json", "update", "--dask-address", cluster,
        *extra,
    )  # fmt: skip
    assert code == 0, out
    assert json.loads(out)["mode"] == "incremental"
    code, out = run("--repo", str(repo), "--store", local, "update", "--runner", "threads")
    assert code == 0, out
    assert dumps(repo, s3_store) == dumps(repo, local)


def test_a_worker_that_cannot_import_freshindex_fails_the_build_at_once(
    prefect_api: str, tmp_path: Path
) -> None:
    """A `dask worker` whose environment lacks freshindex (here: this venv's
    packages without their path files, so without the editable install)
    used to leave the build waiting for ever. It now ends in one line
    naming the worker, before any flow run."""
    import sysconfig

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "DASK_CONFIG"}
    site = sysconfig.get_path("purelib")
    bare_worker = (
        f"import sys; sys.path.append({site!r}); sys.argv[0] = 'dask'; "
        "from dask.cli import run_cli; run_cli()"
    )
    procs: list[subprocess.Popen[bytes]] = []
    scheduler = [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                 "--no-dashboard", "--dashboard-address", ":0"]  # fmt: skip
    worker = [sys.executable, "-S", "-c", bare_worker, "worker", address, "--nthreads", "1",
              "--no-dashboard"]  # fmt: skip
    starts = [(scheduler, None), (worker, tmp_path)]
    try:
        for argv, cwd in starts:  # each started inside the try: none outlives a failure
            procs.append(
                subprocess.Popen(
                    argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
            )
        wait_for_workers(address, 1)
        repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
        started = time.monotonic()
        out = subprocess.run(
            [str(BIN / "freshindex"), "--repo", str(repo), "--store", (tmp_path / "s").as_uri(),
             "build", "--dask-address", address, "--shards", "4"],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert time.monotonic() - started < 120
        assert out.returncode == 1, out.stderr
        lines = [line for line in out.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
        assert "cannot run freshindex's shard tasks" in lines[0]
        assert "No module named 'freshindex'" in lines[0]
        assert not (tmp_path / "s").exists() or not any((tmp_path / "s").rglob("manifest.json"))
    finally:
        for p in reversed(procs):
            stop(p)


@contextlib.contextmanager
def build_under_way(
    cluster: str, tmp_path: Path, written: int
) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """A 1,500-file build on the cluster, as a process of its own, handed
    over once ``written`` table files are in its store (shard tasks are
    running); killed if still running when the block ends."""
    files: dict[str, str | bytes] = {
        f"pkg{i % 20}/m{i}.py": f"def f{i}():\n    return g{i}()\n\n\ndef g{i}():\n    return {i}\n"
        for i in range(1500)
    }
    repo = make_repo(tmp_path / "repo", files)
    store = tmp_path / "store"
    build = subprocess.Popen(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", store.as_uri(), "build",
         "--dask-address", cluster, "--shards", "64"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and build.poll() is None:
            if len(list(store.rglob("*.parquet"))) >= written:
                break
            time.sleep(0.05)
        assert build.poll() is None, "the build ended before the fault could be injected"
        yield build, repo, store
    finally:
        if build.poll() is None:
            build.kill()
            build.communicate()


def test_a_worker_killed_mid_build_leaves_the_build_to_the_others(
    cluster: str, tmp_path: Path
) -> None:
    """SIGKILL one of two `dask worker` processes while shard tasks run: Dask
    hands its tasks to the other, and the build publishes what a local build
    of the same tree publishes."""
    import signal

    import psutil

    with build_under_way(cluster, tmp_path, 20) as (build, repo, store):
        victim = next(
            p
            for p in psutil.process_iter(["cmdline"])
            if "worker" in (p.info["cmdline"] or []) and "w0" in (p.info["cmdline"] or [])
        )
        for child in victim.children(recursive=True):  # the nanny's worker process
            child.send_signal(signal.SIGKILL)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        killed_at = len(list(store.rglob("*.parquet")))
        _out, err = build.communicate(timeout=300)
    assert build.returncode == 0, err
    assert "Traceback" not in err
    assert killed_at < 64 * 5, "every shard was written before the kill"
    local = (tmp_path / "local").as_uri()
    code, _ = run(
        "--repo", str(repo), "--store", local, "build", "--runner", "threads", "--shards", "64"
    )
    assert code == 0
    assert dumps(repo, store.as_uri()) == dumps(repo, local)


def test_a_scheduler_lost_mid_build_ends_it_clearly(cluster: str, tmp_path: Path) -> None:
    """SIGKILL the scheduler while shard tasks run: the build ends within a
    bounded time, exit 1, one line naming the shard and the cause, and
    nothing is published."""
    import signal

    import psutil

    with build_under_way(cluster, tmp_path, 10) as (build, _repo, store):
        scheduler = next(
            p
            for p in psutil.process_iter(["cmdline"])
            if "scheduler" in (p.info["cmdline"] or [])
            and cluster.rsplit(":", 1)[1] in p.info["cmdline"]
        )
        scheduler.send_signal(signal.SIGKILL)
        started = time.monotonic()
        _out, err = build.communicate(timeout=300)
        waited = time.monotonic() - started
    assert build.returncode == 1, err
    assert "Traceback" not in err, err
    assert waited < 120, waited
    assert not list(store.rglob("manifest.json")), "a version was published"
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 2, err  # "building ...", then why it stopped
    assert lines[1].startswith("freshindex: failed: shard "), err
    assert "the connection to the Dask scheduler was lost" in lines[1], err


# A build's own LocalCluster, started the way the CLI starts it: distributed
# imported first (its logging), the cluster after
LOCAL_CLUSTER_CONFIG = """
import distributed, dask.config
from freshindex.flows.cluster import EarlyCluster

if __name__ == "__main__":
    early = EarlyCluster(1)
    with distributed.Client(early.address) as client:
        client.wait_for_workers(1)
        seen = client.run(dask.config.get, "distributed.worker.profile.enabled")
        print(list(seen.values()), client.run(dask.config.get, "distributed.worker.memory.spill"))
    early.close()
"""


def test_a_builds_own_workers_run_with_its_dask_config(tmp_path: Path) -> None:
    """The workers take their nanny's config: with Dask imported before the
    CLI pointed DASK_CONFIG at freshindex's file, they once ran with Dask's
    defaults, the statistical profiler sampling every shard task 100 times a
    second for a dashboard nothing serves."""
    script = tmp_path / "local_cluster.py"
    script.write_text(LOCAL_CLUSTER_CONFIG)
    env = {k: v for k, v in os.environ.items() if k != "DASK_CONFIG"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    profile, spill = out.stdout.strip().split(" ", 1)
    assert profile == "[False]"
    assert "False" in spill and "True" not in spill
