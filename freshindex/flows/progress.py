"""Progress of the build or update flow running in this process.

A flow reports where it is (its shard tasks as they finish, then the
validation and publish steps) to the listener the command installed, if
any: ``freshindex build`` and ``update`` install a rich progress bar on a
terminal (cli/progress.py). A flow run by a Prefect worker has no listener;
its numbers are in the run's table artifact either way.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from prefect.futures import PrefectFuture, as_completed

from freshindex.catalog.manifest import TableEntry
from freshindex.core.exceptions import CheckFailed


class ShardFailed(CheckFailed):
    """A shard task failed after its retries, or its cluster went away (a
    lost scheduler cancels every pending future): the build stops there,
    publishes nothing, and says which shard and why in one line."""

    def __init__(self, shard: int, err: BaseException):
        reason = str(err).strip().splitlines()[0] if str(err).strip() else ""
        lost = "the connection to the Dask scheduler was lost: " if _lost(err) else ""
        super().__init__(f"shard {shard}: {lost}{type(err).__name__}: {reason}")


def _lost(err: BaseException) -> bool:
    """A failure of the cluster rather than of the task: a closed comm, or a
    future cancelled with its client (which is how Dask reports both)."""
    from concurrent.futures import CancelledError

    from distributed.comm import CommClosedError

    return isinstance(err, (CommClosedError, CancelledError))


class Listener(Protocol):
    def shards(self, total: int) -> None: ...
    def shard_done(self, files: int, table_bytes: int) -> None: ...
    def step(self, name: str) -> None: ...


_lock = threading.Lock()
_listener: Listener | None = None


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send this process's flow progress to ``listener`` while in the block."""
    global _listener
    with _lock:
        before, _listener = _listener, listener
    try:
        yield
    finally:
        with _lock:
            _listener = before


def step(name: str) -> None:
    if _listener is not None:
        _listener.step(name)


def gather(futures: Sequence[PrefectFuture[Any]]) -> list[TableEntry]:
    """Every shard task's table entries, in shard order, reporting each task
    as it finishes (whatever the order)."""
    if _listener is not None:
        _listener.shards(len(futures))
    done: dict[int, list[TableEntry]] = {}
    index = {id(f): i for i, f in enumerate(futures)}
    for future in as_completed(list(futures)):
        try:
            entries = list(future.result())
        except Exception as err:  # a task that failed for good, or a lost cluster
            raise ShardFailed(index[id(future)], err) from err
        done[index[id(future)]] = entries
        if _listener is not None:
            files = sum(t.rows for t in entries if t.table.endswith("documents"))
            _listener.shard_done(files, sum(t.bytes for t in entries))
    return [t for i in range(len(futures)) for t in done[i]]
