"""A workaround for an upstream bug (the other is indexer/ts_compat.py).

prefect-dask passes Prefect's annotations to Dask as they are, and Prefect's
annotations are tuples (``quote(x)`` is a one-item tuple subclass). Dask
rebuilds every tuple it finds in a task's arguments, so a ``quote(plan)``
arrived on the worker as nested plain tuples and the task got a tuple instead
of its plan (``update --runner dask`` failed on it). Upstream:
https://github.com/prefect-archive/prefect-dask/issues/43 (closed unfixed,
"waiting on a change in Dask itself"). tests/test_compat.py checks that the
bug is still there: when it fails, ``quote()`` works on Dask and Sealed can go.

Why a shard task's argument needs quoting at all: Prefect walks every
argument looking for futures (dataclasses, lists and dicts, to the leaves),
per submitted task. An update's plan carries the parent manifest's table
entries: ~1.4M visits per shard task, 10 s of a 128-shard update. A Sealed
value is neither walked by Prefect nor rebuilt by Dask, because it is none
of the collections either looks into; the task takes the value out with
``unseal``.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Sealed(Generic[T]):
    """A task argument passed through Prefect and Dask untouched."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Sealed({type(self.value).__name__})"


def unseal(value: Sealed[T] | T) -> T:
    """The value inside a Sealed argument; any other argument as it is
    (the same task is called directly, unsealed, by tests and thread runs)."""
    return value.value if isinstance(value, Sealed) else value
