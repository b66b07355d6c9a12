"""One publisher per store at a time, through Prefect's global concurrency limits."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import logging
import threading
from collections.abc import Iterator

log = logging.getLogger("freshindex")

LEASE_SECONDS = 60


@contextlib.contextmanager
def publish_lock(store_uri: str) -> Iterator[None]:
    """One publisher per store at a time (a Prefect global concurrency limit of 1,
    created on first use). The conditional put on current.json stays the last
    line of defence: this only keeps two flows from racing for the pointer."""
    from prefect.concurrency.sync import concurrency

    name = "freshindex-publish-" + hashlib.sha1(store_uri.encode()).hexdigest()[:12]
    try:
        from prefect.client.orchestration import get_client

        with get_client(sync_client=True) as client:
            client.upsert_global_concurrency_limit_by_name(name, 1)
    except Exception as err:  # no API reachable: the conditional put still protects the pointer
        log.warning("publish lock %s unavailable (%s); relying on the conditional put", name, err)
        yield
        return
    # a live holder renews its lease in the background; a killed one blocks the
    # next publisher for at most LEASE_SECONDS (the server's minimum)
    with concurrency(
        name, occupy=1, timeout_seconds=3600, strict=True, lease_duration=LEASE_SECONDS
    ):
        yield


class RequestedLock:
    """The publish lock, requested ahead of publish and held only around it.

    Measured: a slot request made right after a run's tasks finish waited
    1.9 s in the Prefect server's SQLite (its task-run recorder was writing
    those runs' states). The flows request it once their shards are done, in a
    background thread, so the wait overlaps validation; ``held()`` waits for
    the slot, runs the publish and lets the thread release it. Not earlier: a
    flow killed while holding it blocks the next publisher until its lease runs
    out. Semantics are those of publish_lock: one publisher per store; the
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

    def _hold(self) -> None:
        try:
            with publish_lock(self.store_uri):
                self._acquired.set()
                self._release.wait()
        except BaseException as err:  # handed to the publishing thread
            self._error = err
        finally:
            self._acquired.set()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self._acquired.wait()
        if self._error is not None:
            raise self._error
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
