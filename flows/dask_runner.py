"""The Dask task runner for shard tasks: prefect-dask with a cheaper submit.

Imported only when a Dask runner is asked for (it pulls in distributed), and a
module of its own so that the class pickles by reference when Prefect ships a
flow's context to the workers.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import threading
import uuid
from typing import Any

from prefect_dask import DaskTaskRunner
from prefect_dask.task_runners import PrefectDaskFuture

# Settings shipping for shard tasks. prefect-dask serialises the whole context
# for every submitted task and every worker re-validates it; measured here per
# task: 104 ms to dump the settings in the flow process and 146 ms (profiled;
# ~50 ms bare) to rebuild them from the dict on the worker, against a task body
# of ~12 ms. A running flow's settings do not change, so the dump is made once
# per settings object, and each worker process rebuilds it once per distinct
# dump. The worker still builds Settings from the same dict in its own
# environment, exactly as Prefect does; only the repetition is gone.
_shipping = contextvars.ContextVar("freshindex_shipping_settings", default=False)
_dump_cache: dict[str, tuple[Any, Any, dict[str, Any]]] = {}
_dump_lock = threading.Lock()
_hydrated: dict[str, Any] = {}


def _hydrate_settings(key: str, data: dict[str, Any]) -> Any:
    """Unpickled on a worker: the Settings for this dump, built once per process."""
    settings = _hydrated.get(key)
    if settings is None:
        from prefect.settings import Settings

        settings = _hydrated[key] = Settings(**data)
    return settings


class _ShippedSettings:
    """The settings dict of a context dump; unpickles as a ready Settings object."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        blob = json.dumps(data, sort_keys=True, default=str).encode()
        self.key = hashlib.sha256(blob).hexdigest()

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:
        return (_hydrate_settings, (self.key, self.data))


def _ship_settings_once() -> None:
    """Wrap SettingsContext.serialize so that, while a ShardTaskRunner submits,
    it returns a cached dump whose settings part hydrates once per worker.
    Every other caller (bundles, subprocess flow runs) gets Prefect's own
    result. Idempotent."""
    from prefect.context import SettingsContext

    original = SettingsContext.serialize
    if getattr(original, "_freshindex", False):
        return

    def serialize(self: Any, include_secrets: bool = True) -> dict[str, Any]:
        if not _shipping.get():
            return original(self, include_secrets=include_secrets)
        key = f"{id(self)}:{include_secrets}"
        with _dump_lock:
            hit = _dump_cache.get(key)
            if hit is not None and hit[0] is self and hit[1] is self.settings:
                return hit[2]
        data = original(self, include_secrets=include_secrets)
        shipped = {**data, "settings": _ShippedSettings(data["settings"])}
        with _dump_lock:
            _dump_cache.clear()  # one live entry: the running flow's settings
            _dump_cache[key] = (self, self.settings, shipped)
        return shipped

    serialize._freshindex = True  # type: ignore[attr-defined]
    SettingsContext.serialize = serialize  # type: ignore[method-assign]


# One map() call submits many tasks of one running flow: its engine context
# (flow run, flow, parameters, result store) is the same for all of them, but
# Prefect dumps it per task, and the result store's dump computes a pydantic
# JSON schema each time (profiled: ~15% of the flow process's GIL time during
# a 128-shard submission). While a map() submits, the first dump is reused.
_batch: contextvars.ContextVar[dict[int, dict[str, Any]] | None] = contextvars.ContextVar(
    "freshindex_engine_context_dumps", default=None
)


def _dump_engine_context_once_per_map() -> None:
    from prefect.context import EngineContext

    original = EngineContext.serialize
    if getattr(original, "_freshindex", False):
        return

    def serialize(self: Any, include_secrets: bool = True) -> dict[str, Any]:
        cache = _batch.get()
        if cache is None:
            return original(self, include_secrets=include_secrets)
        key = hash((id(self), include_secrets))
        if key not in cache:
            cache[key] = original(self, include_secrets=include_secrets)
        return cache[key]

    serialize._freshindex = True  # type: ignore[attr-defined]
    EngineContext.serialize = serialize  # type: ignore[method-assign]


class Quoted:
    """A ``quote()``d task parameter on its way through dask.

    Prefect's annotations are namedtuples, and dask rebuilds every tuple it
    finds in a task's arguments from its items: ``quote(plan)`` arrived on the
    worker as ``quote(((plan,),))`` and the task got a tuple (prefect-dask#43;
    ``update --runner dask`` failed on it). And prefect-dask walks into
    annotations looking for futures. A plain object is passed through
    untouched by both; the worker quotes the value again, so its task engine
    does not walk it either."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __reduce__(self) -> tuple[Any, ...]:
        return (Quoted, (self.value,))


def _pack_quoted(parameters: dict[str, Any]) -> dict[str, Any]:
    from prefect.utilities.annotations import quote

    return {k: Quoted(v.unquote()) if isinstance(v, quote) else v for k, v in parameters.items()}


def _unpack_quoted(parameters: dict[str, Any]) -> dict[str, Any]:
    from prefect.utilities.annotations import quote

    return {k: quote(v.value) if isinstance(v, Quoted) else v for k, v in parameters.items()}


def run_prefect_task(**kwargs: Any) -> Any:
    """What a worker runs for one submitted Prefect task: the task engine.
    A module-level function, so it pickles by reference; prefect-dask wraps
    each task in a closure made per submission, which cloudpickle serialises
    by value, scanning sys.modules for every one (~10% of the flow process's
    GIL time on a 128-shard build)."""
    from prefect.task_engine import run_task_async, run_task_sync

    kwargs["parameters"] = _unpack_quoted(kwargs["parameters"])

    if kwargs["task"].isasync:
        return asyncio.run(run_task_async(**kwargs))
    return run_task_sync(**kwargs)


class ShardTaskRunner(DaskTaskRunner):  # type: ignore[misc]
    """DaskTaskRunner with a cheaper per-task submission (README: 128
    trivial tasks on 2 workers). Removed: the settings dump and re-validation
    per task (see _ship_settings_once) and dask's tokenisation of the task
    and its context (19 ms per task in the flow process); each submission
    carries a fresh task-run id, so a content key could never deduplicate
    anything and a random key (pure=False) is equivalent."""

    def __init__(self, *args: Any, early: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._early = early  # flows.runtime.EarlyCluster: a LocalCluster started ahead

    def __getstate__(self) -> dict[str, Any]:
        # the flow (and with it this runner) travels with every task's context;
        # the cluster handle is for this process only
        return {**self.__dict__, "_early": None}

    def duplicate(self) -> Any:
        twin = super().duplicate()
        twin._early = self._early
        return twin

    @property
    def client(self) -> Any:
        if self._client is None and self._cluster is None and self._early is not None:
            self._cluster = self._early.get()  # connected to, not owned: its starter closes it
        return DaskTaskRunner.client.fget(self)  # type: ignore[attr-defined]

    def __enter__(self) -> Any:
        _ship_settings_once()
        _dump_engine_context_once_per_map()
        return super().__enter__()

    def map(self, task: Any, parameters: dict[str, Any], wait_for: Any = None) -> Any:
        token = _batch.set({})
        try:
            return super().map(task, parameters, wait_for)
        finally:
            _batch.reset(token)

    def submit(  # type: ignore[override]
        self,
        task: Any,
        parameters: dict[str, Any],
        wait_for: Any = None,
        dependencies: Any = None,
    ) -> Any:
        if not self._started:
            raise RuntimeError("The task runner must be started before submitting work.")
        # prefect_dask.client.PrefectDaskClient.submit, with run_prefect_task
        # in place of its per-call closure
        from distributed import Client, Future
        from prefect.context import serialize_context
        from prefect.utilities.engine import collect_task_run_inputs_sync

        # quote()d values first: prefect-dask's _optimize_futures walks into
        # annotations, and an update's plan (the parent manifest's entries)
        # cost ~1.4M visits per shard task (10 s of a 128-shard update)
        parameters = self._optimize_futures(_pack_quoted(parameters))
        wait_for = self._optimize_futures(wait_for) if wait_for else None
        task_run_id = uuid.uuid4()
        inputs = {
            k: collect_task_run_inputs_sync(v, future_cls=Future) for k, v in parameters.items()
        }
        if dependencies:
            inputs = {k: v.union(dependencies.get(k, set())) for k, v in inputs.items()}
        token = _shipping.set(True)
        try:
            context = serialize_context(
                asset_ctx_kwargs={
                    "task": task,
                    "task_run_id": task_run_id,
                    "task_inputs": inputs,
                    "copy_to_child_ctx": True,
                }
            )
        finally:
            _shipping.reset(token)
        future = Client.submit(
            self.client,
            run_prefect_task,
            key=f"{task.name}-{task_run_id.hex}",
            pure=False,
            task=task,
            task_run_id=task_run_id,
            wait_for=wait_for,
            return_type="state",
            parameters=parameters,
            dependencies=inputs,
            context=context,
        )
        return PrefectDaskFuture[Any](wrapped_future=future, task_run_id=task_run_id)
