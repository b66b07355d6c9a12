"""Flows with plain parameters, pickled by reference.

Parameters. Prefect records a flow run's parameters through FastAPI's
``jsonable_encoder``, importing FastAPI for it on a process's first flow run:
0.12-0.14 s of a 2.8 s incremental update, before the flow starts.
freshindex's flows take strings, integers, booleans and None, which need no
encoding; anything else still goes through Prefect's encoder (a public
method of Flow, overridden in a subclass).

Pickling. Every shard task submitted to Dask carries its flow (in the task's
context). Distributed pickles a submission with plain pickle first, which
takes a function by reference only when its module attribute of that name is
the function; under a decorator that name is the Flow (or Task), so the
attempt fails, is tried again, and the submission goes to cloudpickle, which
ships the function's code by value (scanning sys.modules for its imports).
Measured on a 128-shard build: 6.4 ms and 26 kB per submission, 0.82 s of the
flow process's CPU. A plain flow pickles its function as a reference to the
flow its module defines (Prefect's deployments still find the flow by the
function's own name, so the function cannot be renamed instead); shard tasks
wrap functions importable by their own names (tasks/parse.py).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect import Flow

P = ParamSpec("P")
R = TypeVar("R")

_PLAIN = (str, int, float, bool, type(None))


class PlainFlow(Flow[P, R]):
    def serialize_parameters(self, parameters: dict[str, Any]) -> dict[str, Any]:
        if all(type(v) in _PLAIN for v in parameters.values()):
            return dict(parameters)
        return super().serialize_parameters(parameters)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its function by reference (see "Pickling" above): the
        flow its module defines under the function's name, when that flow
        holds this very function."""
        fn = self.fn
        module, name = fn.__module__, fn.__qualname__
        found = getattr(sys.modules.get(module), name, None)
        if getattr(found, "fn", None) is not fn:
            return (_blank, (type(self),), dict(self.__dict__))
        ref = _FunctionOf(module, name)
        return (_blank, (type(self),), {k: ref if v is fn else v for k, v in self.__dict__.items()})

    def with_options(self, **options: Any) -> PlainFlow[P, R]:
        new = super().with_options(**options)
        new.__class__ = PlainFlow  # Prefect's with_options always builds a Flow
        return new  # type: ignore[return-value]


def plain_flow(**options: Any) -> Callable[[Callable[P, R]], PlainFlow[P, R]]:
    """``@flow(**options)`` for a flow with plain parameters."""

    def wrap(fn: Callable[P, R]) -> PlainFlow[P, R]:
        return PlainFlow(fn=fn, **options)

    return wrap


def _blank(cls: type[PlainFlow[Any, Any]]) -> PlainFlow[Any, Any]:
    return cls.__new__(cls)


def _flow_function(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name).fn


class _FunctionOf:
    """Stands for a plain flow's function in its pickled state; unpickles as
    the function, found through the flow its module defines."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (_flow_function, (self.module, self.name))
