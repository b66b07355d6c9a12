"""One publisher per store at a time, through Prefect's global concurrency limits.

The slot's count lives in the Prefect database; its lease lives in the memory
of the API server that granted it. A holder killed together with an embedded
API (``build`` without PREFECT_API_URL starts one and the SIGKILL takes both)
leaves a count of 1 that no server will ever expire: every later publisher
waited for good. So a holder also stamps a Prefect variable
(``<lock name>-holder``: lease id, host, pid, time) every STAMP_SECONDS, and a
publisher refused for longer than ORPHAN_SECONDS without a fresh stamp resets
the slot's count through the public API and takes it. A holder that is alive
keeps its stamp fresh, and if a stalled one were ever overtaken, the
compare-and-swap on current.json still lets only one of them publish.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from freshindex.process import shutdown

log = logging.getLogger("freshindex")

LEASE_SECONDS = 60
# how often a holder renews its lease and stamps its variable; a slot with no
# stamp newer than ORPHAN_SECONDS, refused for as long, is orphaned. Comparing
# the stamp's wall time across hosts assumes clocks within a few seconds.
STAMP_SECONDS = 10.0
ORPHAN_SECONDS = 3 * STAMP_SECONDS + 5


def lock_name(store_uri: str) -> str:
    return "freshindex-publish-" + hashlib.sha1(store_uri.encode()).hexdigest()[:12]


@contextlib.contextmanager
def publish_lock(store_uri: str, timeout: float = 3600.0) -> Iterator[None]:
    """One publisher per store at a time (a Prefect global concurrency limit of 1,
    created on first use, held through a lease). The conditional put on
    current.json stays the last line of defence: this only keeps two flows from
    racing for the pointer.

    A live holder renews its lease and its stamp in the background; a killed
    one blocks the next publisher for at most LEASE_SECONDS (the server's
    minimum) while the server that granted it runs, else about ORPHAN_SECONDS."""
    from prefect.client.orchestration import get_client

    name = lock_name(store_uri)
    with contextlib.ExitStack() as stack:
        try:
            client = stack.enter_context(get_client(sync_client=True))
            client.upsert_global_concurrency_limit_by_name(name, 1)
        except Exception as err:  # no API: the conditional put still protects the pointer
            log.warning(
                "publish lock %s unavailable (%s); relying on the conditional put", name, err
            )
            client = None
        if client is None:
            yield
            return
        lease = _acquire(client, name, time.monotonic() + timeout)
        _stamp(client, name, lease)
        stop = threading.Event()
        renewer = threading.Thread(
            target=contextvars.copy_context().run,
            args=(_renew, client, name, lease, stop),
            name="publish-lock-lease",
            daemon=True,
        )
        renewer.start()
        try:
            yield
        finally:
            stop.set()
            renewer.join()
            # the slot first: on SIGTERM the handler gives this a few seconds at most
            client.release_concurrency_slots_with_lease(lease)
            with contextlib.suppress(Exception):  # a stale stamp only ever delays recovery
                client.delete_variable_by_name(_holder(name))


def _acquire(client: Any, name: str, deadline: float) -> UUID:
    """Take the slot, asking again soon on 423 (held) and 503 (busy).

    Measured against `prefect server start` (SQLite) with Prefect's default
    settings: right after a flow's 128 shard tasks end, the increment comes
    back 503 after ~2 s, for as long as the task-run recorder is still
    inserting their states (the increment reads the limit, then updates it in
    a deferred transaction; each recorder commit in between invalidates its
    snapshot). Prefect's `concurrency()` retries through its client, which
    then sleeps 2 s, then 4 s: a free slot took 2.4-6.8 s to get. Asked again
    after 0.1-0.5 s, it is granted as soon as the recorder is idle (0-4 s).
    With the recorder batched (flows/api.py SERVER_SETTINGS, used by every
    server freshindex starts) the first request is granted."""
    import httpx
    from prefect.settings import PREFECT_CLIENT_MAX_RETRIES, temporary_settings

    pause = 0.1
    refused_since = time.monotonic()
    while True:
        try:
            with temporary_settings(updates={PREFECT_CLIENT_MAX_RETRIES: 0}):
                response = client.increment_concurrency_slots_with_lease(
                    names=[name], slots=1, mode="concurrency", lease_duration=LEASE_SECONDS
                )
            return UUID(response.json()["lease_id"])
        except httpx.HTTPStatusError as err:
            code = err.response.status_code
            if code not in (423, 429, 502, 503, 504):
                raise
            hint = err.response.headers.get("Retry-After")
            wait = min(float(hint), 2.0) if code == 423 and hint else pause
            if code == 423 and _orphaned(client, name, refused_since):
                _reset(client, name)
                refused_since = time.monotonic()
                continue
        except httpx.TransportError:
            wait = pause
        if time.monotonic() + wait > deadline:
            raise TimeoutError(f"publish lock {name} not granted in time (held by another flow?)")
        time.sleep(wait)
        pause = min(pause * 1.5, 0.5)


def _renew(client: Any, name: str, lease: UUID, stop: threading.Event) -> None:
    renewed = time.monotonic()
    while not stop.wait(STAMP_SECONDS):
        try:
            if time.monotonic() - renewed >= LEASE_SECONDS / 3:
                client.renew_concurrency_lease(lease, LEASE_SECONDS)
                renewed = time.monotonic()
            _stamp(client, name, lease)
        except Exception as err:  # the conditional put still protects the pointer
            log.warning("publish lock lease %s not renewed: %s", lease, err)


def _holder(name: str) -> str:
    return f"{name}-holder"


def _stamp(client: Any, name: str, lease: UUID) -> None:
    """Say, where the next publisher looks, that this holder is alive."""
    from prefect.client.schemas.actions import VariableCreate, VariableUpdate

    value = {"lease": str(lease), "host": socket.gethostname(), "pid": os.getpid(),
             "at": time.time()}  # fmt: skip
    try:
        if client.read_variable_by_name(_holder(name)) is None:
            with contextlib.suppress(Exception):  # a racer created it meanwhile: update
                client.create_variable(VariableCreate(name=_holder(name), value=value))
                return
        client.update_variable(VariableUpdate(name=_holder(name), value=value))
    except Exception as err:  # without a stamp a waiter only recovers later
        log.warning("publish lock %s: holder stamp not written: %s", name, err)


def _orphaned(client: Any, name: str, refused_since: float) -> bool:
    """Whether the slot we are refused is held by nobody alive: no stamp newer
    than ORPHAN_SECONDS, and refused at least that long."""
    if time.monotonic() - refused_since < ORPHAN_SECONDS:
        return False
    try:
        variable = client.read_variable_by_name(_holder(name))
    except Exception:  # cannot tell: keep waiting
        return False
    if variable is None or not isinstance(variable.value, dict):
        return True
    return bool(time.time() - float(variable.value.get("at", 0)) > ORPHAN_SECONDS)


def _reset(client: Any, name: str) -> None:
    from prefect.client.schemas.actions import GlobalConcurrencyLimitUpdate

    log.warning(
        "publish slot %s held with no live holder for over %.0f s (a killed build?): resetting it",
        name,
        ORPHAN_SECONDS,
    )
    client.update_global_concurrency_limit(name, GlobalConcurrencyLimitUpdate(active_slots=0))
    with contextlib.suppress(Exception):
        client.delete_variable_by_name(_holder(name))


class RequestedLock:
    """The publish lock, requested ahead of publish and held until it is done.

    Builds request it as they start, in a background thread, while the
    server's database is quiet (flows/build.py); incremental updates take it
    before they read the current pointer (flows/update.py); ``held()`` waits
    for the slot, runs the publish and lets the thread release it. A flow
    killed while holding it blocks the next publisher until its lease runs
    out (LEASE_SECONDS, Prefect's minimum) or, when the API that granted it
    died too, until the slot is found orphaned (ORPHAN_SECONDS). Semantics are those of publish_lock: one publisher per store; the
    conditional put stays the last line of defence. A flow that never
    publishes releases it in ``close()``."""

    def __init__(self, store_uri: str) -> None:
        self.store_uri = store_uri
        self._acquired = threading.Event()
        self._release = threading.Event()
        self._error: BaseException | None = None
        # the thread runs in the caller's context: Prefect keeps its settings (the
        # API URL among them) in context variables, which a bare thread would not
        # see, and its client would start a temporary server of its own
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._hold,), name="publish-lock", daemon=True
        )
        self._thread.start()
        # SIGTERM: give the slot back (or the request up) before the process
        # ends, instead of leaving the slot to its lease (process/shutdown.py)
        self._unregister = shutdown.on_terminate(self._on_terminate)

    def _on_terminate(self) -> None:
        self._release.set()
        self._thread.join()

    def _hold(self) -> None:
        try:
            with publish_lock(self.store_uri):
                log.info("publish slot for %s held by this build", self.store_uri)
                self._acquired.set()
                self._release.wait()
        except BaseException as err:  # handed to the publishing thread
            self._error = err
        finally:
            self._acquired.set()

    def wait(self) -> None:
        """Block until the slot is held (raises what the request raised)."""
        self._acquired.wait()
        if self._error is not None:
            raise self._error

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.wait()
        try:
            yield
        finally:
            self.close()

    def close(self) -> None:
        """Release (or, still queued, give up). A flow that fails while another
        holds the lock waits at most 30 s here; a slot granted after that is
        held by the lease until it expires (LEASE_SECONDS)."""
        self._release.set()
        self._thread.join(timeout=30)
        self._unregister()


@contextlib.contextmanager
def requested_lock(store_uri: str) -> Iterator[RequestedLock]:
    lock = RequestedLock(store_uri)
    try:
        yield lock
    finally:
        lock.close()


def locked(store_uri: str, lock: RequestedLock | None) -> contextlib.AbstractContextManager[None]:
    """The requested lock when the flow made one, else a fresh publish_lock."""
    return lock.held() if lock is not None else publish_lock(store_uri)
