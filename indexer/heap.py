"""Keep the cyclic garbage collector off the long-lived heap of an indexing process.

Extraction allocates millions of short-lived objects (nodes, row tuples), so
CPython's collector runs thousands of times per shard, and every full
collection walks every object still alive. In a Dask worker that is Prefect,
pydantic, distributed and pyarrow: ~150,000 objects from imports alone.
Measured over the stdlib's 1,790 files with a worker's imports loaded: 2.06 s
of 10.8 s went to collections; with the heap frozen first, 0.21 s. Frozen
objects are never collected (they live for the process anyway); garbage made
later is collected as usual.
"""

from __future__ import annotations

import gc
import threading

_done = False
_lock = threading.Lock()


def settle() -> None:
    """Freeze everything allocated so far, once per process."""
    global _done
    if _done:
        return
    with _lock:
        if not _done:
            gc.freeze()
            _done = True
