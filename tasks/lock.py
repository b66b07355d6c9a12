"""One publisher per store at a time, through Prefect's global concurrency limits."""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Iterator

log = logging.getLogger("freshindex")


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
    with concurrency(name, occupy=1, timeout_seconds=3600, strict=True):
        yield
