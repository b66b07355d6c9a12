"""freshindex's three changes to how Prefect runs its flows (flows/plain.py) and
the collector pause around imports (indexer/heap.py)."""

from __future__ import annotations

import gc
import pickle
import signal
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cloudpickle
import pytest
from prefect import flow_engine
from prefect.client.orchestration import get_client
from prefect.logging.handlers import APILogWorker
from prefect.task_runners import ThreadPoolTaskRunner

from freshindex.core import shutdown
from freshindex.flows.build import build_flow
from freshindex.flows.deployments import deployments
from freshindex.flows.plain import (
    HEARTBEATS_UNJOINED,
    SIGTERM_LEFT_TO_COMMANDS,
    PlainFlow,
    plain_flow,
)
from freshindex.flows.update import update_flow
from freshindex.indexer import heap
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


def test_heartbeats_are_sent_and_the_engine_does_not_wait_for_their_thread() -> None:
    # installed on this Prefect: if this fails after an upgrade, see flows/plain.py
    assert HEARTBEATS_UNJOINED
    sent: list[str] = []
    final = threading.Event()
    engine = SimpleNamespace(
        heartbeat_seconds=30,
        _build_heartbeat_event_template=lambda: ({}, []),
        _emit_flow_run_heartbeat=lambda resource, related: sent.append("beat"),
        flow_run=SimpleNamespace(state=SimpleNamespace(is_final=final.is_set)),
        logger=SimpleNamespace(debug=lambda *a, **k: None),
    )
    before = set(threading.enumerate())
    with flow_engine._send_heartbeats(engine):
        (beating,) = set(threading.enumerate()) - before
        while not sent:  # the thread's first heartbeat, at once
            threading.Event().wait(0.01)
    final.set()
    # the context has exited while the thread still sleeps out its step: not joined
    assert beating.is_alive()
    beating.join(timeout=5)
    assert not beating.is_alive()
    assert sent == ["beat"]  # nothing sent after the flow ended


def test_the_engine_keeps_a_commands_sigterm_handler_and_installs_its_own_elsewhere() -> None:
    # installed on this Prefect: if this fails after an upgrade, see flows/plain.py
    assert SIGTERM_LEFT_TO_COMMANDS
    before = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, shutdown.terminate)  # as freshindex.cli.main does
        with flow_engine.capture_sigterm():
            assert signal.getsignal(signal.SIGTERM) is shutdown.terminate
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a flow run under a Prefect runner
        with flow_engine.capture_sigterm():
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # Prefect's bridge
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, before)


def test_collector_is_paused_until_settled_or_resumed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_settled_in", None)  # as in a fresh process
    assert gc.isenabled()
    heap.hold()
    try:
        assert not gc.isenabled()
    finally:
        heap.resume()  # a command that failed before settle()
    assert gc.isenabled()
    heap.hold()
    heap.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    heap.hold()  # settled: a later hold() changes nothing
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
    assert pickle.loads(pickle.dumps(runner)).task_runner._max_workers == 2


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
