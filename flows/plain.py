"""How freshindex's flows run under Prefect's flow engine: two fixed costs of
every flow run removed, and SIGTERM left to freshindex's commands.

1. Parameters. Prefect records a flow run's parameters through FastAPI's
   ``jsonable_encoder``, importing FastAPI for it on a process's first flow
   run: 0.12-0.14 s of a 2.8 s incremental update, before the flow starts.
   freshindex's flows take strings, integers, booleans and None, which need no
   encoding; anything else still goes through Prefect's encoder.
2. The heartbeat thread. Prefect 3.9 sends flow-run heartbeats (every 180 s
   by default, for zombie-run detection) from a thread that sleeps in 1 s
   steps and looks at its stop flag between them; the flow engine sets the flag
   and joins the thread, so every flow run ended 0-1 s after its final state
   was set (measured on 10-file updates: 0.04-1.03 s, a third of the update's
   wall on a bad draw). Heartbeats are kept, at the same interval; the engine
   no longer waits for the thread, which sees the flag within a second and
   exits without sending anything more (Prefect's own async engine stops it
   the same way: ``join_on_exit=False``).
3. SIGTERM. The flow engine installs a SIGTERM handler for the run that raises
   an exception wherever the process is; measured during a build, that
   exception became a PydanticSerializationError once and was swallowed once
   (freshindex/core/shutdown.py). When a freshindex command has installed its own
   handler (freshindex.core.shutdown.terminate), the engine leaves it in place;
   anywhere else (a flow run started by a Prefect runner or worker) it installs
   its own as before, with the runner's cancellation.

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

import contextlib
import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from prefect import Flow, flow_engine

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


def _unjoined_heartbeats() -> bool:
    """Install the heartbeat change (2. above) on the engine it was measured on;
    True when installed. A Prefect whose helper has another shape is left as
    it is (tests/test_flow_engine.py notices)."""
    original = getattr(flow_engine, "_send_heartbeats", None)
    if original is None or getattr(original, "_freshindex", False):
        return original is not None
    if list(inspect.signature(original).parameters) != ["engine", "join_on_exit"]:
        return False

    @contextlib.contextmanager
    def send_heartbeats(engine: Any, join_on_exit: bool = True) -> Iterator[None]:
        with original(engine, join_on_exit=False):
            yield

    send_heartbeats._freshindex = True  # type: ignore[attr-defined]
    flow_engine._send_heartbeats = send_heartbeats
    return True


HEARTBEATS_UNJOINED = _unjoined_heartbeats()


def _sigterm_left_to_commands() -> bool:
    """Install the SIGTERM change (3. above); True when installed."""
    original = getattr(flow_engine, "capture_sigterm", None)
    if original is None or getattr(original, "_freshindex", False):
        return original is not None
    from freshindex.core import shutdown

    @contextlib.contextmanager
    def capture_sigterm() -> Iterator[None]:
        if shutdown.installed():
            yield
        else:
            with original():
                yield

    capture_sigterm._freshindex = True  # type: ignore[attr-defined]
    flow_engine.capture_sigterm = capture_sigterm
    return True


SIGTERM_LEFT_TO_COMMANDS = _sigterm_left_to_commands()
