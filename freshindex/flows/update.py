"""The incremental update flow: plan a batch, rewrite only the touched shards, validate, publish.

Falls back to a full build inside the same flow run when the batch cannot be
applied incrementally (no current version, config/indexer/grammar change,
REV not descending from the indexed commit, a lockfile or workspace config
changed), and to rebuilding the touched shards whole when over budget.
"""

from __future__ import annotations

import contextlib
from typing import Any

from prefect import task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.states import Completed, Failed

from freshindex.catalog.layout import CURRENT, branch_pointer_key
from freshindex.catalog.manifest import BuildKind, TableEntry
from freshindex.flows import progress
from freshindex.flows.build import (
    as_is,
    begin,
    nothing_to_do,
    publish_artifact,
    summarize,
)
from freshindex.flows.plain import plain_flow
from freshindex.ops.rollback import pending_requests
from freshindex.tasks.compat import Sealed
from freshindex.tasks.lock import RequestedLock, locked, requested_lock
from freshindex.tasks.parse import parse_shard
from freshindex.tasks.publish import Outcome, finalize, validate_version
from freshindex.tasks.tables import store_for
from freshindex.tasks.update import Mode, UpdatePlan, inherited_tables, plan_update, update_shard
from freshindex.tasks.validate import ValidationReport, validate_tables


@task(name="validate-update", cache_policy=NO_CACHE)
def validate_update(plan: UpdatePlan, tables: list[TableEntry]) -> ValidationReport:
    job = plan.build.job
    return validate_tables(
        store_for(job.store_uri), tables, job.shards, plan.build.entries, trusted=plan.trusted
    )


@task(name="publish-update", cache_policy=NO_CACHE)
def publish_update(
    plan: UpdatePlan,
    tables: list[TableEntry],
    report: ValidationReport,
    lock: RequestedLock | None = None,
) -> Outcome:
    kind = BuildKind.FULL if plan.mode == Mode.FULL else BuildKind.INCREMENTAL
    batch = {**plan.batch, "mode": plan.mode, "reason": plan.reason}
    store = store_for(plan.build.job.store_uri)
    with locked(plan.build.job.store_uri, lock):
        parent = plan.parent.versionId if plan.parent else None
        outcome = finalize(store, plan.build, tables, report, kind, batch, parent)
    if outcome.status == "published" and not plan.build.branch:
        for key in pending_requests(store):  # a rollback's rebuild request is honoured now
            store.delete(key)
    return outcome


@plain_flow(name="freshindex-update", validate_parameters=False)
def update_flow(
    repo: str | None = None,
    store: str | None = None,
    rev: str = "HEAD",
    mirror_url: str | None = None,
    branch: str | None = None,
) -> Any:
    """An incremental update to ``rev``. ``repo`` and ``store`` default to the
    worker's FRESHINDEX_REPO and FRESHINDEX_STORE (flows/target.py);
    ``branch``: the local branch REV was named by, when the caller resolved
    REV to a commit first (tasks/update.py, plan_update)."""
    run = begin(repo, store)
    if isinstance(run, State):
        return run
    repo, store = run
    # An incremental update holds the publish slot from before it reads the
    # current pointer until it has published: per-merge updates queue instead
    # of losing the pointer's compare-and-swap to one another, and the slot is
    # taken while the server's database is idle. Asked for after the shard
    # tasks, the same request waited ~2.4 s of a 4.3 s 10-file update: a
    # SQLite Prefect server holds writes behind its task-run recorder.
    with requested_lock(store) as lock:
        lock.wait()
        plan = plan_update(repo, store, rev, mirror_url, branch)
        if plan.mode == Mode.NOOP:
            nothing_to_do(plan.reason)
            return Completed(
                message=plan.reason,
                data={
                    "outcome": "noop",
                    "mode": plan.mode,
                    "reason": plan.reason,
                    "version": plan.parent.versionId if plan.parent else None,
                },
            )
        # a full rebuild keeps the slot too, as a build does (flows/build.py)
        return _apply(plan, lock)


def _apply(plan: UpdatePlan, held: RequestedLock | None) -> Any:
    job = plan.build.job
    if plan.mode == Mode.FULL:
        futures = parse_shard.map(unmapped(job), range(job.shards))
        tables = progress.gather(futures)
    else:
        seq = int(plan.batch["seq"])
        # Sealed: the plan carries the parent manifest's table entries; Prefect
        # would walk all of them looking for futures, for every task, and
        # quote() does not survive Dask (tasks/compat.py)
        futures = update_shard.map(unmapped(Sealed(plan)), list(plan.batches), unmapped(seq))
        tables = inherited_tables(plan) + progress.gather(futures)
    with contextlib.nullcontext(held) if held else requested_lock(job.store_uri) as lock:
        progress.step("validating")
        if plan.mode == Mode.FULL:
            report = validate_version(as_is(plan.build), as_is(tables))
        else:
            report = validate_update(as_is(plan), as_is(tables))
        progress.step("publishing")
        outcome = publish_update(as_is(plan), as_is(tables), report, as_is(lock))
    summary = {
        **summarize(outcome),
        "mode": plan.mode,
        "modeReason": plan.reason,
        "shardsRewritten": len(plan.batches) if plan.mode != Mode.FULL else job.shards,
        "batch": plan.batch,
        # a branch other than main's: published to its own pointer, current.json untouched
        "branch": plan.build.branch,
        "pointer": branch_pointer_key(plan.build.branch) if plan.build.branch else CURRENT,
        "parentVersion": plan.parent.versionId if plan.parent else None,
    }
    publish_artifact("freshindex-update", summary)
    if outcome.status != "published":
        return Failed(message=outcome.reason or outcome.status, data=summary)
    return Completed(message=f"published {outcome.version} ({plan.mode})", data=summary)
