"""Where flows run: one Prefect API for the flow and every Dask worker, and the task runner.

Measured here (measured on a 2-core machine): with no PREFECT_API_URL
each LocalCluster worker starts its own temporary Prefect server (128 trivial
tasks: 20-39 s); with one API handed to all of them, 8-14 s. So when none is
configured we start exactly one and export its URL before any worker exists.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from freshindex.core.exceptions import CheckFailed
from freshindex.process import shutdown
from freshindex.process.cache import cache_dir
from freshindex.process.tether import tethered

T = TypeVar("T")
QUIET_DASK_CONFIG = Path(__file__).parent / "dask-quiet"
log = logging.getLogger("freshindex")


# Settings for a Prefect server that records freshindex's runs. Its task-run
# recorder writes each task-run event in its own transaction by default
# (batch size 1): 128 shard tasks make ~400 of them, and on SQLite that cost
# the server ~40 ms of CPU per task, on the cores the workers parse on, and
# held its database for seconds after the shards, so that a concurrency-slot
# request right then failed (503) until the recorder caught up. Batched, one
# flush writes up to 100 events; a state reaches the database within 1 s.
# Measured here (2 cores, 128 shards): server CPU for a 1-file build 5.3 s ->
# 2.6 s, and the 3.5-4.5 s wait for the publish slot after the shards is gone.
# Applied to the server this process starts, to the test and benchmark
# servers, and recommended for `prefect server start` (README, infra/).
SERVER_SETTINGS = {
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_READ_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
}


def server_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a Prefect server process, with SERVER_SETTINGS where unset."""
    return {**SERVER_SETTINGS, **env}


def _free_port() -> int:
    import socket

    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cache_dir() -> Path:
    path = cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _one_cert_bundle() -> str | None:
    """A CA file with a single certificate, for a plain-http API.

    Prefect builds two API clients per task and each loads the whole CA bundle
    (~75% of a 70-110 ms task, Prefect PR #19106); over http:// no certificate
    is ever checked, so a one-certificate file cuts a task to ~47 ms."""
    target = _cache_dir() / "one-cert.pem"
    if target.exists():
        return str(target)
    try:
        import certifi

        pem = Path(certifi.where()).read_text()
    except (ImportError, OSError):
        return None
    m = re.search(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\n", pem, re.S)
    if not m:
        return None
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(m.group(0))
    os.replace(tmp, target)
    return str(target)


def quiet_dask() -> None:
    """Silence the harmless shutdown tracebacks, in this process and every worker."""
    quiet_dask_workers()
    import dask.config

    dask.config.refresh()
    for name, level in (
        ("distributed", logging.WARNING),
        ("distributed.worker", logging.CRITICAL),
        ("distributed.core", logging.CRITICAL),
        ("distributed.batched", logging.CRITICAL),
        ("distributed.comm", logging.CRITICAL),
        ("distributed.nanny", logging.ERROR),
        ("distributed.scheduler", logging.ERROR),
    ):
        logging.getLogger(name).setLevel(level)


def quiet_dask_workers() -> None:
    """The workers' part of quiet_dask(): their Dask config, read from the
    environment they are started (or forked) with."""
    os.environ.setdefault("DASK_CONFIG", str(QUIET_DASK_CONFIG))


class EmbeddedApi:
    """One ``prefect server start`` for this command, on a free port of
    127.0.0.1: Prefect's own command, so it runs the same API and services a
    user's server does (the task-run recorder among them, with
    SERVER_SETTINGS), without the UI, the scheduler or the late-runs service,
    which a one-command API has no use for. Its output goes to a log file in
    freshindex's cache, named when it fails to start."""

    START_SECONDS = 180.0

    def __init__(self) -> None:
        import subprocess
        import sys

        port = _free_port()
        self.url = f"http://127.0.0.1:{port}/api"
        # one log per command (two may run at once); kept only when it failed
        self.log_path = _cache_dir() / f"prefect-server-{os.getpid()}.log"
        self._log = self.log_path.open("wb")
        self.failed = False
        cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1"]
        cmd += ["--port", str(port), "--no-ui", "--no-scheduler", "--no-late-runs"]
        cmd += ["--analytics-off", "--log-level", "WARNING"]
        self.process = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=server_environment({**os.environ, "PREFECT_UI_ENABLED": "false"}),
            start_new_session=True,  # a Ctrl-C in the terminal is the command's to handle
            # and it dies with this process, even one that was SIGKILLed
            preexec_fn=tethered(),
        )

    def wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + self.START_SECONDS
        with httpx.Client(timeout=2) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    self.failed = True
                    raise CheckFailed(
                        f"the local Prefect API exited with status {self.process.returncode}"
                        f" (its log: {self.log_path})"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(f"{self.url}/health").status_code == 200:
                        return
                time.sleep(0.1)
        self.failed = True
        self.stop()
        raise CheckFailed(
            f"the local Prefect API did not start in {self.START_SECONDS:.0f} s"
            f" (its log: {self.log_path})"
        )

    def stop(self) -> None:
        import subprocess

        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        if not self.failed:
            self.log_path.unlink(missing_ok=True)


@contextlib.contextmanager
def prefect_api() -> Iterator[str]:
    """Yield the URL of the one Prefect API this process and its workers use.

    PREFECT_API_URL wins when set (a `prefect server start` or a shared server);
    otherwise one embedded server (EmbeddedApi) is started and stopped after
    the logs are flushed (stopping it first made exits hang ~67 s on "Error
    logging to API")."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from prefect.settings import PREFECT_API_SSL_CERT_FILE, PREFECT_API_URL, temporary_settings

    url = os.environ.get("PREFECT_API_URL")
    server: EmbeddedApi | None = None
    since = ""
    saved = {k: os.environ.get(k) for k in ("PREFECT_API_URL", "PREFECT_API_SSL_CERT_FILE")}
    if not url:
        log.info(
            "starting one local Prefect API for this run (set PREFECT_API_URL to reuse a server)"
        )
        since = datetime.datetime.now(datetime.UTC).isoformat()
        server = EmbeddedApi()
        # SIGTERM (process/shutdown.py) kills this server rather than asking
        # it to stop: asked, its task-run recorder, still flushing the events of
        # the shards being cut short, printed tracebacks on this command's
        # stderr (seen in CI). Its SQLite database stays consistent when the
        # process is killed; the lost events are of task runs killed anyway.
        unkilled = shutdown.api_started_here(server.process.pid)
        try:
            server.wait_ready()
        except BaseException:
            unkilled()
            server.stop()
            raise
        url = server.url
    os.environ["PREFECT_API_URL"] = url  # inherited by LocalCluster workers
    updates: dict[Any, Any] = {PREFECT_API_URL: url}
    if url.startswith("http://") and "PREFECT_API_SSL_CERT_FILE" not in os.environ:
        bundle = _one_cert_bundle()
        if bundle:
            os.environ["PREFECT_API_SSL_CERT_FILE"] = bundle
            updates[PREFECT_API_SSL_CERT_FILE] = bundle
    try:
        with temporary_settings(updates=updates):
            try:
                yield url
            finally:  # a failed run's logs too, while the API still answers
                _flush_prefect_logs()
    finally:
        if server is not None:
            unkilled()
            _wait_until_recorded(url, since)
            server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _wait_until_recorded(url: str, since: str, timeout: float = 15.0) -> None:
    """Before stopping the embedded server: wait until its task-run recorder has
    written the runs' final states. Task states reach the server as events,
    recorded asynchronously; stopping with events still queued loses them and
    prints the recorder's CancelledError tracebacks. Done when no task run is in
    a running state and the count of task runs is stable between two polls
    (only runs created since this server started: a database reused from an
    earlier, killed run may hold runs that stay Running forever)."""
    import httpx

    ours = {"expected_start_time": {"after_": since}}
    states = {"type": {"any_": ["PENDING", "RUNNING", "SCHEDULED"]}}
    every = {"task_runs": ours}
    running = {"task_runs": {**ours, "state": states}}
    deadline = time.monotonic() + timeout
    last = -1
    with contextlib.suppress(Exception), httpx.Client(base_url=url, timeout=5) as http:
        while time.monotonic() < deadline:
            total = http.post("/task_runs/count", json=every).json()
            busy = http.post("/task_runs/count", json=running).json()
            if busy == 0 and total == last:
                return
            last = total
            time.sleep(0.25)


def _flush_prefect_logs() -> None:
    with contextlib.suppress(Exception):
        from prefect.logging.handlers import APILogWorker

        APILogWorker.drain_all(timeout=5)


def local_cluster_kwargs(workers: int | None) -> dict[str, Any]:
    """One single-threaded process per core (tree-sitter holds the GIL while
    parsing, so threads would not run shards in parallel)."""
    return {
        "n_workers": workers or os.cpu_count() or 1,
        "threads_per_worker": 1,
        "processes": True,
        # no dashboard: nothing here serves it. The scheduler still starts its
        # HTTP server (health, metrics): on a free port, since 8787 may be
        # another cluster's (two builds at once printed a 4-line UserWarning)
        "scheduler_kwargs": {"dashboard": False},
        "dashboard_address": ":0",
    }


WORKER_MODULES = ["freshindex.flows.worker_boot"]  # imports what a worker needs, collector paused


def _fork_workers_from_a_server() -> None:
    """Start LocalCluster workers by forking one server process that imported
    WORKER_MODULES once (multiprocessing's forkserver), not by spawning fresh
    interpreters that each import them. The server is single-threaded when it
    forks, so the children start clean; it exits with this process.
    Measured on a stdlib build (2 workers): first shard task at 3.7-4.2 s
    instead of 5.1-5.3 s, worker-side CPU 19.2 s instead of 22.0 s."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return  # no fork on this platform: workers are spawned
    import dask.config
    from distributed.utils import get_mp_context

    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    # Dask sets its own preload list on first use; ours replaces it (it is a
    # subset of what a worker imports anyway)
    get_mp_context().set_forkserver_preload(WORKER_MODULES)


def _start_forkserver() -> None:
    """Start the forkserver now: it imports WORKER_MODULES (~1.7 s of CPU) on
    the other core while this process imports Prefect and distributed, instead
    of after them, when the first nanny asks for a worker process. Measured
    over 5 interleaved pairs of 1-file builds: first shard task at 2.05-2.84 s
    instead of 2.79-3.61 s, build wall median 6.7 s instead of 7.0 s."""
    import multiprocessing
    import multiprocessing.forkserver

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    multiprocessing.get_context("forkserver").set_forkserver_preload(WORKER_MODULES)
    multiprocessing.forkserver.ensure_running()


class EarlyCluster:
    """A LocalCluster started in a background thread as soon as a build knows
    it needs one, while this process is still importing Prefect and creating
    the flow run. Measured: the cluster takes ~3.3 s to start and a worker
    ~2.5 s of CPU to import Prefect, pyarrow and the grammars; the workers are
    forked from one process that imported them (_fork_workers_from_a_server),
    so that import is paid once and overlaps the flow process's own start.
    Workers get their Prefect settings (API URL included) with every task, as
    with any DaskTaskRunner.

    Its scheduler's port is chosen before it starts, so the task runner is a
    plain ``DaskTaskRunner(address=...)`` made at once: its client connects
    when the flow starts (and waits, retrying, for a scheduler still starting),
    and closing the runner leaves the cluster to this object."""

    def __init__(self, workers: int | None) -> None:
        # first: the forkserver's environment (and the resource tracker's) is its workers'
        quiet_dask_workers()
        shutdown.quiet_resource_tracker()
        _start_forkserver()
        quiet_dask()
        self.workers = workers
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.cluster: Any = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._unregister: Callable[[], None] = lambda: None
        threading.Thread(target=self._start, name="early-cluster", daemon=True).start()

    def _start(self) -> None:
        try:
            from distributed import LocalCluster

            _fork_workers_from_a_server()
            self.cluster = LocalCluster(
                **local_cluster_kwargs(self.workers),
                host="127.0.0.1",
                scheduler_port=self.port,
                preload=["freshindex.tasks.parse"],
            )
            # on SIGTERM: no worker is to be replaced once the tree is killed.
            # Scaled to nothing, the nannies close (and stop replacing workers)
            # while the scheduler keeps the flow's futures pending: closed
            # whole, the cluster cancelled them, and the flow run, still
            # going on its thread, reported Failed over the Crashed it is
            self._unregister = shutdown.on_terminate(self._scale_to_nothing)
        except BaseException as err:  # raised where the cluster is first used
            self._error = err
        finally:
            self._done.set()

    def _scale_to_nothing(self) -> None:
        self.cluster.scale(0)

    def check(self) -> None:
        """Raise what stopped the cluster from starting, if it has failed already."""
        if self._done.is_set() and self._error is not None:
            raise self._error

    def close(self) -> None:
        self._done.wait()
        self._unregister()
        cluster, self.cluster = self.cluster, None  # closed once, whoever asks first
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()


def task_runner(
    workers: int | None = None,
    address: str | None = None,
    kind: str = "dask",
    early: EarlyCluster | None = None,
) -> Any:
    """prefect-dask's DaskTaskRunner: an existing scheduler by address, else a
    LocalCluster (``early`` when one was started ahead, see EarlyCluster).

    ``kind="threads"`` runs tasks on a thread pool in this process: no cluster
    start-up, for small updates and for tests that do not claim distribution."""
    if kind == "threads":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=workers or os.cpu_count() or 1)
    quiet_dask()
    from prefect_dask import DaskTaskRunner

    if early is not None:
        early.check()
        address = early.address
    if address:
        return DaskTaskRunner(address=address)
    return DaskTaskRunner(cluster_kwargs=local_cluster_kwargs(workers))


def off_main_thread(call: Callable[[], T]) -> T:
    """Run ``call`` (a flow run) on a thread of its own while this one waits.

    For a flow run, Prefect's flow engine installs a SIGTERM handler that
    raises an exception wherever the process is (measured: once it surfaced
    as a PydanticSerializationError, once it was swallowed and the build went
    on; process/shutdown.py). The engine installs it only on the main
    thread: ``signal.signal`` refuses elsewhere, which it expects. A flow run
    on another thread therefore leaves the command's own handler in place, no
    patch of the engine needed. The waiting main thread is where signals
    arrive: SIGTERM runs the command's handler, and Ctrl-C ends the command
    the same way (shutdown.interrupted, exit 130). The thread runs in this
    thread's context: Prefect keeps its settings there."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["value"] = call()
        except BaseException as err:  # re-raised on the calling thread
            done["error"] = err

    context = contextvars.copy_context()
    runner = threading.Thread(target=context.run, args=(run,), name="flow-run", daemon=True)
    running = shutdown.flow_running_in(context)
    runner.start()
    try:
        runner.join()
    except KeyboardInterrupt:
        shutdown.interrupted()
    finally:
        running()
    if "error" in done:
        raise done["error"]
    return cast(T, done["value"])


def state_data(state: Any) -> dict[str, Any]:
    """The summary a freshindex flow run returned (its final state's data),
    or an error naming why there is none."""
    data = state.result(raise_on_failure=False)
    if isinstance(data, dict):
        return data
    if isinstance(data, BaseException):
        raise data
    return {"outcome": "failed", "reason": state.message}


@dataclass(frozen=True)
class Runtime:
    """Where one command's flows run: the Prefect API they report to, and how
    to make their task runner (a fresh one per flow run, on one cluster)."""

    api_url: str
    kind: str
    workers: int | None
    dask_address: str | None
    early: EarlyCluster | None

    def task_runner(self) -> Any:
        return task_runner(self.workers, self.dask_address, self.kind, self.early)


@contextlib.contextmanager
def flow_runtime(
    runner: str = "dask", workers: int | None = None, dask_address: str | None = None
) -> Iterator[Runtime]:
    """The one set-up that build, update and serve --updates share: Prefect
    logging at WARNING, a LocalCluster started ahead (EarlyCluster: it starts
    while Prefect is imported) unless a scheduler address is given or the
    runner is the thread pool, and one Prefect API for the flow and every
    worker. Everything it started is stopped on the way out."""
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    if dask_address:
        from freshindex.flows.probe import check_workers

        check_workers(dask_address)  # before any flow run: a broken worker ends here
    kind = "dask" if dask_address else runner
    early = EarlyCluster(workers) if kind == "dask" and not dask_address else None
    try:
        with prefect_api() as api_url:
            try:
                yield Runtime(api_url, kind, workers, dask_address, early)
            finally:
                # workers report task states and logs to the API: they stop
                # before it does, or a failed build's workers printed "All
                # connection attempts failed" and "Error logging to API"
                if early is not None:
                    early.close()
    finally:
        if early is not None:
            early.close()  # the API never started
