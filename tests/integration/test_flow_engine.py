"""How freshindex runs Prefect flows: plain parameters and pickling by reference
(flows/plain.py), flow runs off the main thread (flows/runtime.py), and the
collector pause around imports (process/collector.py)."""

from __future__ import annotations

import gc
import pickle
import signal
from pathlib import Path
from typing import Any

import cloudpickle
import pytest
from prefect.client.orchestration import get_client
from prefect.logging.handlers import APILogWorker
from prefect.task_runners import ThreadPoolTaskRunner

from freshindex.flows.build import build_flow
from freshindex.flows.deployments import deployments
from freshindex.flows.plain import PlainFlow, plain_flow
from freshindex.flows.runtime import off_main_thread
from freshindex.flows.update import update_flow
from freshindex.process import collector, shutdown
from freshindex.tasks.parse import parse_shard
from freshindex.tasks.update import update_shard


@plain_flow(name="freshindex-test-plain", validate_parameters=False)
def echo(repo: str, shards: int | None = None, full: bool = False) -> dict[str, Any]:
    return {"repo": repo, "shards": shards, "full": full}


def test_plain_parameters_are_recorded_as_given(prefect_api: str) -> None:
    state = echo("/src/mono", None, True, return_state=True)  # type: ignore[call-overload]
    assert state.is_completed()
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(state.state_details.flow_run_id)
    assert run.parameters == {"repo": "/src/mono", "shards": None, "full": True}
    APILogWorker.drain_all(timeout=5)  # before the session's server stops, as the CLI does


def test_other_parameters_still_go_through_prefects_encoder() -> None:
    params = {"repo": Path("/src/mono"), "tags": ("a", "b"), "n": 3}
    assert echo.serialize_parameters(params) == {"repo": "/src/mono", "tags": ["a", "b"], "n": 3}


def test_with_options_keeps_the_plain_flow() -> None:
    runner = build_flow.with_options(task_runner=ThreadPoolTaskRunner(max_workers=2))
    assert isinstance(runner, PlainFlow)
    assert runner.serialize_parameters({"repo": "r", "shards": 4}) == {"repo": "r", "shards": 4}


@plain_flow(name="freshindex-test-handler", validate_parameters=False)
def sigterm_handler_seen() -> str:
    handler = signal.getsignal(signal.SIGTERM)
    return "ours" if handler is shutdown.terminate else repr(handler)


def test_a_flow_run_off_the_main_thread_keeps_the_commands_sigterm_handler(
    prefect_api: str,
) -> None:
    before = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, shutdown.terminate)  # as freshindex.cli.main does
        assert off_main_thread(sigterm_handler_seen) == "ours"
        # on the main thread Prefect's engine installs its own bridge for the
        # run: what off_main_thread avoids. If this fails, Prefect no longer
        # does (flows/runtime.py can call flows on the main thread again)
        assert sigterm_handler_seen() != "ours"
        assert signal.getsignal(signal.SIGTERM) is shutdown.terminate  # given back
    finally:
        signal.signal(signal.SIGTERM, before)


def test_off_main_thread_returns_and_raises_as_the_call_would() -> None:
    assert off_main_thread(lambda: 41 + 1) == 42

    def fails() -> None:
        raise ValueError("from the flow thread")

    with pytest.raises(ValueError, match="from the flow thread"):
        off_main_thread(fails)


def test_collector_is_paused_until_settled_or_resumed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "_settled_in", None)  # as in a fresh process
    assert gc.isenabled()
    collector.hold()
    try:
        assert not gc.isenabled()
    finally:
        collector.resume()  # a command that failed before settle()
    assert gc.isenabled()
    collector.hold()
    collector.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    collector.hold()  # settled: a later hold() changes nothing
    assert gc.isenabled()


def test_flows_and_shard_tasks_pickle_by_reference() -> None:
    # plain pickle is what distributed tries first; by value (cloudpickle) a
    # submission cost 6.4 ms and 26 kB instead of ~2 ms and 18 kB
    runner = build_flow.with_options(task_runner=ThreadPoolTaskRunner(max_workers=2))
    for obj in (build_flow, update_flow, runner, parse_shard, update_shard):
        data = pickle.dumps(obj)
        assert b"cloudpickle" not in data and len(data) < 4000
        back = pickle.loads(data)
        assert type(back) is type(obj) and back.fn is obj.fn and back.name == obj.name
    assert isinstance(pickle.loads(pickle.dumps(runner)).task_runner, ThreadPoolTaskRunner)


def test_a_flow_made_from_a_local_function_still_pickles() -> None:
    def local(repo: str) -> str:
        return repo

    flow = plain_flow(name="freshindex-test-local")(local)
    back = cloudpickle.loads(cloudpickle.dumps(flow))
    assert back.fn("r") == "r"


def test_deployments_find_flows_by_their_own_names() -> None:
    # paths are relative to the working directory; the names must be the flows'
    entrypoints = [d.entrypoint for d in deployments("/src/mono", "file:///tmp/store")]
    assert [e.rsplit("/", 1)[-1] for e in entrypoints] == [
        "deployments.py:nightly_flow",
        "update.py:update_flow",
        "deployments.py:manual_flow",
    ]
