"""The full build flow: plan, one parse task per shard on Dask, validate, publish.

The flow only wires tasks. Its return value is a plain summary; a failed
validation or a lost publish race makes the flow run Failed (visible in the
Prefect UI) with the reason as the state message, without a traceback.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, TypeVar, cast

from prefect import unmapped
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.schemas.objects import State
from prefect.states import Completed, Failed
from prefect.utilities.annotations import quote

from freshindex.catalog.manifest import TableEntry
from freshindex.core.exceptions import FreshindexError
from freshindex.flows import progress
from freshindex.flows.plain import plain_flow
from freshindex.flows.target import Target, target
from freshindex.ops.metrics import flow_artifact_rows
from freshindex.tasks.lock import requested_lock
from freshindex.tasks.parse import parse_shard
from freshindex.tasks.plan import plan_build
from freshindex.tasks.publish import Outcome, publish_version, validate_version

T = TypeVar("T")


def as_is(value: T) -> T:
    """A task argument Prefect passes through untouched: no walk through its
    contents looking for futures (quote). For plain values only."""
    return cast(T, quote(value))


def publish_artifact(key: str, summary: dict[str, Any]) -> None:
    """The run's numbers as a table on the flow-run page (and in the API),
    and one log line saying what the run did."""
    create_table_artifact(
        key=key,
        table=flow_artifact_rows(summary),
        description=f"{summary.get('outcome')}: {summary.get('version')}",
    )
    say(_story(summary))


def _story(summary: dict[str, Any]) -> str:
    outcome = summary.get("outcome")
    if outcome == "published":
        counts = summary.get("counts") or {}
        mode = summary.get("mode") or summary.get("buildKind") or "full"
        return (
            f"published {summary.get('version')} ({mode}) of {str(summary.get('sourceCommit'))[:12]}: "
            f"{counts.get('documents', 0)} documents, {counts.get('symbols', 0)} symbols, "
            f"{counts.get('edges', 0)} edges"
        )
    return f"{outcome}: {summary.get('reason') or summary.get('modeReason') or ''}".rstrip(": ")


def say(line: str) -> None:
    """One line in the run's log (at INFO: the run page shows it); outside a
    run (tests calling a flow's function) nothing."""
    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    with contextlib.suppress(MissingContextError):
        get_run_logger().info(line)


def quiet_task_runs() -> None:
    """Task runs' own "Finished in state Completed()" lines are not logged at
    INFO: a 128-shard run printed 131 of them and nothing else. Warnings and
    failures still are."""
    logging.getLogger("prefect.task_runs").setLevel(logging.WARNING)


def nothing_to_do(reason: str) -> None:
    """A run that had nothing to do says so on its own page."""
    create_markdown_artifact(key="freshindex-noop", markdown=f"**{reason}**", description=reason)
    say(reason)


def begin(repo: str | None, store: str | None) -> Target | State:
    """The start every deployable flow shares: task-run chatter below INFO,
    then the run's repository and store (flows/target.py), or the Failed
    state, with one line, of a run that names no repository."""
    quiet_task_runs()
    try:
        return target(repo, store)
    except FreshindexError as err:
        say(f"not run: {err}")
        return Failed(message=str(err))


def summarize(outcome: Outcome) -> dict[str, Any]:
    m = outcome.manifest
    return {
        "outcome": outcome.status,
        "version": outcome.version,
        "reason": outcome.reason,
        "sourceCommit": m.sourceCommit,
        "buildKind": m.buildKind,
        "shards": m.shards,
        "completedShards": m.completedShards,
        "counts": m.counts.model_dump(),
        "seq": m.seq,
        "manifestDigest": m.manifestDigest,
        "bytes": sum(t.bytes for t in m.tables),
    }


@plain_flow(name="freshindex-build", log_prints=True, validate_parameters=False)
def build_flow(
    repo: str | None = None,
    store: str | None = None,
    rev: str = "HEAD",
    shards: int | None = None,
    mirror_url: str | None = None,
) -> Any:
    """A full build of ``rev``; ``repo`` and ``store`` default to the
    worker's FRESHINDEX_REPO and FRESHINDEX_STORE (flows/target.py)."""
    run = begin(repo, store)
    if isinstance(run, State):
        return run
    repo, store = run
    # The publish slot is asked for before the shards, in the background, and
    # held until the pointer has moved. Asked for after them, the request met
    # the Prefect server still recording 128 tasks' states: on SQLite the
    # slot increment (a read-then-write transaction) failed with 503 until the
    # recorder was idle, 2.4-4.5 s of a 1-file build even with the recorder
    # batched. The price: a build killed mid-shards keeps the slot until its
    # lease runs out (LEASE_SECONDS), as any Prefect concurrency slot would.
    with requested_lock(store) as lock:
        plan = plan_build(repo, store, rev, shards, mirror_url)
        futures = parse_shard.map(unmapped(plan.job), range(plan.job.shards))
        tables: list[TableEntry] = progress.gather(futures)
        # plain values: Prefect would otherwise walk every table entry looking
        # for futures, per task (measured: ~0.1 s each)
        progress.step("validating")
        report = validate_version(as_is(plan), as_is(tables))
        progress.step("publishing")
        outcome = publish_version(as_is(plan), as_is(tables), report, as_is(lock))
    summary = summarize(outcome)
    publish_artifact("freshindex-build", summary)
    if outcome.status != "published":
        return Failed(message=outcome.reason or outcome.status, data=summary)
    return Completed(message=f"published {outcome.version}", data=summary)
