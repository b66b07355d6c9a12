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
   the slot's lease to run out (best effort, a few seconds at most); the
   LocalCluster this command started is scaled to no worker, so that its
   nannies close and stop replacing workers (on_terminate: each within a
   few seconds);
2. every descendant process is frozen, then killed (see stop_descendants);
3. the flow run's task runs still Running or Pending are marked Crashed: their
   workers are gone and would leave them Running for good (best effort too);
4. one line on stderr, exit status 143 (128 + SIGTERM).

Ctrl-C during a flow run ends the command the same way, with exit status 130
(``interrupted``).

Nothing half-built can become current: a version becomes current only by the
conditional put of the pointer after validation, one request that either
happened or did not (the same holds for SIGKILL or a power cut). The staging
files of the interrupted build stay until `freshindex gc` removes them.

While this handler is installed, the command runs its flows off the main
thread (flows/runtime.py, off_main_thread), where Prefect's flow engine does
not install its own SIGTERM bridge; a flow run started by a Prefect runner or
worker, where this handler is not installed, keeps Prefect's bridge and the
runner's cancellation.

Named semaphores that this process's cluster queues hold are unlinked by
multiprocessing's resource tracker once this process has gone: that is the
tracker's job, and the warning it prints about them is filtered
(quiet_resource_tracker), since nothing is left behind.
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
EXIT_INTERRUPTED = 128 + signal.SIGINT
GRACE_SECONDS = 5.0
REPORT_SECONDS = 3.0
# task runs' states reach the API through its event recorder, which can lag
# (1-2.5 s measured on SQLite): look again until this long after the workers
# stopped, and until two looks in a row find nothing
SWEEP_SECONDS = 1.5

_releases: dict[int, Callable[[], None]] = {}
_own_apis: set[int] = set()
_crashed_runs: list[Any] = []  # the flow run _report_crash marked
_flow_contexts: list[contextvars.Context] = []  # where flow runs are under way


def terminate(signum: int, frame: FrameType | None) -> None:
    """The SIGTERM handler of a freshindex command (see the module's text)."""
    _finish(EXIT_TERMINATED, "terminated")


def interrupted() -> None:
    """Ctrl-C while a flow runs on another thread: end as SIGTERM does."""
    _finish(EXIT_INTERRUPTED, "interrupted")


def _finish(status: int, word: str) -> None:
    with contextlib.suppress(ValueError):  # not the main thread
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM changes nothing
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    # nothing this process logs from here is the user's business: a Dask
    # nanny whose worker process is stopped below logs, from its own thread,
    # that the exit status "was already read" (seen for workers spawned as
    # this process's children, which stopping them reaps)
    logging.disable(logging.CRITICAL)
    _in_thread(lambda: _report_crash(f"freshindex: {word}"), REPORT_SECONDS)
    for release in list(_releases.values()):
        _in_thread(release, REPORT_SECONDS)
    stop_descendants(GRACE_SECONDS)
    _in_thread(lambda: _crash_task_runs(f"freshindex: {word}"), REPORT_SECONDS)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    # not print(): the main thread may be inside a write to sys.stderr, and the
    # buffered stream refuses a reentrant call
    with contextlib.suppress(OSError):
        os.write(2, f"freshindex: {word}\n".encode())
    os._exit(status)


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


def flow_running_in(context: contextvars.Context) -> Callable[[], None]:
    """Until the returned function is called, a flow run is under way in
    ``context`` on another thread (flows/runtime.py, off_main_thread): what
    runs on a SIGTERM sees Prefect's flow run and settings as they are there."""
    _flow_contexts.append(context)
    return lambda: _flow_contexts.remove(context)


def _in_thread(fn: Callable[[], None], timeout: float) -> None:
    """Run ``fn`` in a thread for at most ``timeout`` seconds: the signal
    interrupted the main thread wherever it was, possibly inside a client or
    lock of its own. The thread runs in a copy of the running flow's context
    (else the main thread's): Prefect keeps its settings (the API URL among
    them) and the flow run there."""
    context = _flow_contexts[-1].copy() if _flow_contexts else contextvars.copy_context()
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
    dies, unless it is closing). A frozen tree cannot. Nothing in it has
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


def _alive(proc: Any) -> bool:
    import psutil

    try:
        return bool(proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def quiet_resource_tracker() -> None:
    """Filter the resource tracker's warning about semaphores it unlinks for
    a process that ended without unlinking them (this one, after a SIGTERM:
    measured, 12 of its cluster's queues). The tracker is a child started
    with this environment; the filter names only its own message."""
    entry = "ignore:resource_tracker:UserWarning"
    current = os.environ.get("PYTHONWARNINGS", "")
    if entry not in current.split(","):
        os.environ["PYTHONWARNINGS"] = f"{current},{entry}" if current else entry


def _tracker(proc: object) -> bool:
    try:
        return "multiprocessing.resource_tracker" in " ".join(proc.cmdline())  # type: ignore[attr-defined]
    except Exception:
        return False


def _report_crash(message: str) -> None:
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
            client.set_flow_run_state(run.id, Crashed(message=message), force=True)
        _crashed_runs.append(run.id)


def _crash_task_runs(message: str) -> None:
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
                    client.set_task_run_state(task_run.id, Crashed(message=message), force=True)
                quiet = 0 if found else quiet + 1
                time.sleep(0.25)
