"""SIGTERM for a command that builds or updates: stop at once, completely.

SIGTERM is how a cancelled CI job, `docker stop` or a supervisor stops a
command. Its default action killed freshindex but not what freshindex had
started: the embedded Prefect API and the LocalCluster's processes (nannies,
workers, the forkserver) kept running. Raising an exception from the handler
to unwind the command, as Ctrl-C does, was tried and is not dependable: the
exception lands in whatever bytecode runs at that moment. Measured with
Prefect's own SIGTERM bridge, which does exactly that during a flow run: in
one run its exception surfaced inside pydantic's serialisation of a task's
context and came out as a PydanticSerializationError (a traceback, exit 1);
in another it was swallowed: the build went on to the end and exited 0.

So the handler does not unwind; it finishes the process itself:
1. the flow run it interrupts is marked Crashed in the Prefect API, and a
   publish slot it holds is released, so the next build does not wait for
   the slot's lease to run out (best effort, a few seconds at most);
2. Dask nannies in this process are told not to replace workers, and every
   descendant process is frozen, then killed (see stop_descendants);
3. the flow run's task runs still Running or Pending are marked Crashed: their
   workers are gone and would leave them Running for good (best effort too);
4. one line on stderr, exit status 143 (128 + SIGTERM).

Nothing half-built can become current: a version becomes current only by the
conditional put of the pointer after validation, one request that either
happened or did not (the same holds for SIGKILL or a power cut). The staging
files of the interrupted build stay until `freshindex gc` removes them.

While this handler is installed, Prefect's flow engine keeps it (flows/plain.py
asks the engine not to install its bridge over it); a flow run started by a
Prefect runner or worker, where this handler is not installed, keeps
Prefect's bridge and the runner's cancellation.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

EXIT_TERMINATED = 128 + signal.SIGTERM
GRACE_SECONDS = 5.0
REPORT_SECONDS = 3.0
# task runs' states reach the API through its event recorder, which can lag
# (1-2.5 s measured on SQLite): look again until this long after the workers
# stopped, and until two looks in a row find nothing
SWEEP_SECONDS = 1.5

_releases: dict[int, Callable[[], None]] = {}
_own_apis: set[int] = set()
_crashed_runs: list[Any] = []  # the flow run _report_crash marked


def terminate(signum: int, frame: FrameType | None) -> None:
    """The SIGTERM handler of a freshindex command (see the module's text)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM changes nothing
    # nothing this process logs from here is the user's business: a Dask
    # nanny whose worker process is stopped below logs, from its own thread,
    # that the exit status "was already read" (seen for workers spawned as
    # this process's children, which stopping them reaps)
    logging.disable(logging.CRITICAL)
    _in_thread(_report_crash, REPORT_SECONDS)
    for release in list(_releases.values()):
        _in_thread(release, REPORT_SECONDS)
    _no_worker_restarts()
    stop_descendants(GRACE_SECONDS)
    _in_thread(_crash_task_runs, REPORT_SECONDS)
    _release_semaphores()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    # not print(): the main thread may be inside a write to sys.stderr, and the
    # buffered stream refuses a reentrant call
    with contextlib.suppress(OSError):
        os.write(2, b"freshindex: terminated\n")
    os._exit(EXIT_TERMINATED)


def on_terminate(release: Callable[[], None]) -> Callable[[], None]:
    """Until the returned function is called, a SIGTERM calls ``release``
    (in another thread, for at most REPORT_SECONDS) before the process ends."""
    key = id(release)
    _releases[key] = release

    def unregister() -> None:
        _releases.pop(key, None)

    return unregister


def api_started_here(pid: int) -> Callable[[], None]:
    """Until the returned function is called, process ``pid`` is a Prefect API
    this command started: a SIGTERM kills it with the rest of the tree, so
    nothing is reported to it after that."""
    _own_apis.add(pid)
    return lambda: _own_apis.discard(pid)


def _in_thread(fn: Callable[[], None], timeout: float) -> None:
    """Run ``fn`` in a thread for at most ``timeout`` seconds: the signal
    interrupted the main thread wherever it was, possibly inside a client or
    lock of its own. The thread runs in the main thread's context: Prefect
    keeps its settings (the API URL among them) and the flow run there."""
    context = contextvars.copy_context()
    worker = threading.Thread(target=context.run, args=(fn,), name="on-terminate", daemon=True)
    worker.start()
    worker.join(timeout)


def installed() -> bool:
    try:
        return signal.getsignal(signal.SIGTERM) is terminate
    except ValueError:  # not the main thread
        return False


def stop_descendants(grace: float) -> list[int]:
    """Stop every descendant process: freeze the whole tree (SIGSTOP, looking
    again until no new process appears), then SIGKILL it; returns the pids.

    Stopped one by one, the tree changed while it was being stopped (a
    LocalCluster's nannies, which run in this process, replace a worker that
    dies; see _no_worker_restarts). A frozen tree cannot. Nothing in it has
    state worth a graceful exit: the embedded Prefect API and the Dask
    processes keep nothing.

    multiprocessing's resource tracker is left alone: it ignores SIGTERM by
    design and exits by itself when this process has gone, after it has
    cleaned up what the other processes left."""
    import psutil

    frozen: dict[int, psutil.Process] = {}
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            tree = psutil.Process().children(recursive=True)
        except psutil.Error:
            break
        new = [p for p in tree if p.pid not in frozen and not _tracker(p) and _alive(p)]
        if not new:
            break
        for proc in new:
            with contextlib.suppress(psutil.Error):
                proc.suspend()
            frozen[proc.pid] = proc
    for proc in frozen.values():
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(list(frozen.values()), timeout=grace)  # reaps this process's children
    return list(frozen)


def _no_worker_restarts() -> None:
    """Tell this process's Dask nannies (a LocalCluster runs them here) not
    to replace the workers stopped next. Without it, a nanny whose worker
    died started another, and the scheduler, also in this process, gave it
    the shard tasks whose results the dead one held: task runs ran again
    after the flow run was marked Crashed, stayed Running in the API, and
    the new worker outlived the command."""
    nanny = sys.modules.get("distributed.nanny")
    if nanny is None:
        return
    for instance in list(nanny.Nanny._instances):
        with contextlib.suppress(Exception):
            instance.close_gracefully(reason="freshindex: terminated")


def _alive(proc: Any) -> bool:
    import psutil

    try:
        return bool(proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _release_semaphores() -> None:
    """Run multiprocessing's exit finalizers (exitpriority >= 0), as the
    interpreter's exit would: they unlink the named semaphores this process
    made for its cluster's queues and events. Without them the resource
    tracker, at its own exit, printed a warning that it had cleaned up leaked
    semaphores (measured: 12 after a SIGTERM four seconds into the shards)."""
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        _in_thread(lambda: util._run_finalizers(0), GRACE_SECONDS)  # type: ignore[attr-defined]


def _tracker(proc: object) -> bool:
    try:
        return "multiprocessing.resource_tracker" in " ".join(proc.cmdline())  # type: ignore[attr-defined]
    except Exception:
        return False


CRASHED = "freshindex: terminated by SIGTERM"


def _report_crash() -> None:
    """Mark the flow run this process is in as Crashed, if there is one."""
    if "prefect" not in sys.modules:
        return
    try:
        from prefect.context import FlowRunContext

        ctx = FlowRunContext.get()
    except Exception:
        return
    run = getattr(ctx, "flow_run", None)
    if run is None:
        return
    with contextlib.suppress(Exception):
        from prefect.client.orchestration import get_client
        from prefect.states import Crashed

        with get_client(sync_client=True) as client:
            client.set_flow_run_state(run.id, Crashed(message=CRASHED), force=True)
        _crashed_runs.append(run.id)


def _crash_task_runs() -> None:
    """Mark the crashed flow run's task runs still Running or Pending as
    Crashed, once the workers that ran them are stopped. Not when the API is
    this command's own (api_started_here): it is gone already."""
    if not _crashed_runs or _own_apis:
        return
    with contextlib.suppress(Exception):
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.filters import (
            FlowRunFilter,
            FlowRunFilterId,
            TaskRunFilter,
            TaskRunFilterState,
            TaskRunFilterStateType,
        )
        from prefect.client.schemas.objects import StateType
        from prefect.states import Crashed

        unfinished = TaskRunFilter(
            state=TaskRunFilterState(
                type=TaskRunFilterStateType(any_=[StateType.RUNNING, StateType.PENDING])
            )
        )
        of_run = FlowRunFilter(id=FlowRunFilterId(any_=_crashed_runs))
        until = time.monotonic() + SWEEP_SECONDS
        quiet = 0
        with get_client(sync_client=True) as client:
            while quiet < 2 or time.monotonic() < until:
                found = client.read_task_runs(flow_run_filter=of_run, task_run_filter=unfinished)
                for task_run in found:
                    client.set_task_run_state(task_run.id, Crashed(message=CRASHED), force=True)
                quiet = 0 if found else quiet + 1
                time.sleep(0.25)
