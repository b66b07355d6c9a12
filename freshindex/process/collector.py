"""Keep the cyclic garbage collector off the long-lived heap of an indexing process.

Extraction allocates millions of short-lived objects (nodes, row tuples), so
CPython's collector runs thousands of times per shard, and every full
collection walks every object still alive. In a Dask worker that is Prefect,
pydantic, distributed and pyarrow: ~150,000 objects from imports alone.
Measured over the stdlib's 1,790 files with a worker's imports loaded: 2.06 s
of 10.8 s went to collections; with the heap frozen first, 0.21 s. Frozen
objects are never collected (they live for the process anyway); garbage made
later is collected as usual.

The imports themselves make the same objects and almost no garbage: importing
Prefect and the update flow ran 342 collections (0.19 s of 1.66 s) that freed
~5,000 objects of 135,000. ``hold()`` pauses the collector until ``settle()``.

Settled, the youngest generation is collected every 20,000 allocations
instead of CPython's 700. A shard's rows are tuples that all survive until
its tables are built; collecting them young, again and again, was 2.4 % of a
shard's CPU (kernel shards, interleaved A/B in one process). Garbage cycles
still go, a few thousand allocations later.
"""

from __future__ import annotations

import gc
import os
import threading

YOUNG_THRESHOLD = 20_000

_settled_in: int | None = None  # pid: a forked child freezes its own heap again
_held = False
_lock = threading.Lock()


def hold() -> None:
    """Pause the collector while a process imports what it keeps; ``settle()``
    (or ``resume()``, on the way out of a failed command) resumes it."""
    global _held
    with _lock:
        if _settled_in != os.getpid() and gc.isenabled():
            gc.disable()
            _held = True


def resume() -> None:
    """Resume a held collector without freezing (a command that failed early)."""
    global _held
    with _lock:
        if _held:
            gc.enable()
            _held = False


def settle() -> None:
    """Freeze everything allocated so far, once per process, and resume a held
    collector."""
    global _settled_in, _held
    if _settled_in == os.getpid():
        return
    with _lock:
        if _settled_in != os.getpid():
            gc.freeze()
            _, middle, old = gc.get_threshold()
            gc.set_threshold(YOUNG_THRESHOLD, middle, old)
            _settled_in = os.getpid()
        if _held:
            gc.enable()
            _held = False
