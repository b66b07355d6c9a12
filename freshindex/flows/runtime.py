"""Where flows run: the set-up build, update and serve share (one Prefect
API, a LocalCluster started ahead, the task runner), and running a flow off
the main thread so the command keeps its signal handling."""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from freshindex.flows.api import prefect_api
from freshindex.flows.cluster import EarlyCluster, task_runner
from freshindex.process import shutdown

T = TypeVar("T")


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
