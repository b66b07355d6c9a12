"""The Dask side of a run: a LocalCluster started ahead of the flow (its
workers forked from one server that imported what they need), Dask's
logging kept quiet, and the task runner a flow runs its shard tasks on."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from freshindex.flows.api import free_port
from freshindex.process import shutdown

QUIET_DASK_CONFIG = Path(__file__).parent / "dask-quiet"


def quiet_dask() -> None:
    """Silence the harmless shutdown tracebacks, in this process and every worker.

    A LocalCluster's worker takes the config of the process its nanny runs in
    (this one), not the files it could read itself. Dask fixes the folders it
    reads when it is first imported, and the CLI imports it before this runs:
    a plain ``refresh()`` never saw DASK_CONFIG, and the workers ran with
    Dask's defaults (the statistical profiler on, spilling on)."""
    quiet_dask_workers()
    import dask.config

    dask.config.refresh(paths=config_paths())
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


def config_paths() -> list[str]:
    """The folders Dask reads config from, DASK_CONFIG's as of now included
    (last, so it wins, as when it is set before Dask is imported)."""
    import dask.config

    extra = os.environ.get("DASK_CONFIG")
    return [p for p in dask.config.paths if p != extra] + ([extra] if extra else [])


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
        self.port = free_port()
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
