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
2. every descendant process is sent SIGTERM, and SIGKILL after a grace period;
3. one line on stderr, exit status 143 (128 + SIGTERM).

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
from collections.abc import Callable
from types import FrameType

EXIT_TERMINATED = 128 + signal.SIGTERM
GRACE_SECONDS = 5.0
REPORT_SECONDS = 3.0

_releases: dict[int, Callable[[], None]] = {}
_killed: set[int] = set()


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
    stop_descendants(GRACE_SECONDS)
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


def killed_on_terminate(pid: int) -> Callable[[], None]:
    """Until the returned function is called, a SIGTERM stops process ``pid``
    with SIGKILL rather than SIGTERM: for a helper whose own shutdown would
    write to this command's stderr after its one line."""
    _killed.add(pid)
    return lambda: _killed.discard(pid)


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
    """SIGTERM to every descendant process, SIGKILL to those alive after
    ``grace`` seconds; returns the pids that were found.

    multiprocessing's resource tracker is left alone: it ignores SIGTERM by
    design and exits by itself when this process has gone, after it has
    cleaned up what the other processes left (measured: waiting for it
    cost the whole grace period)."""
    import psutil

    try:
        found = [p for p in psutil.Process().children(recursive=True) if not _tracker(p)]
    except psutil.Error:
        return []
    for proc in found:
        with contextlib.suppress(psutil.Error):
            if proc.pid in _killed:
                proc.kill()
            else:
                proc.terminate()
    _, alive = psutil.wait_procs(found, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)
    return [p.pid for p in found]


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
            client.set_flow_run_state(
                run.id, Crashed(message="freshindex: terminated by SIGTERM"), force=True
            )
