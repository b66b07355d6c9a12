"""Scheduled and triggered flows: nightly rebuild with a drift check, per-merge update, manual rebuild.

``freshindex deployments --repo R --store S`` serves all three against the
Prefect API in PREFECT_API_URL (on a laptop: ``prefect server start``, SQLite).
In production, ``prefect.yaml`` at the repository root registers the same
entrypoints on a process work pool.

Nightly: a from-scratch build of REV whose canonical dump (symbols, edges,
documents, without ids) is compared with the current, incrementally
maintained version of the same commit. Any difference fails the run, with a
markdown artifact listing the first differing rows; the from-scratch build is
published in its place either way, so drift never survives a night.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from prefect import task, unmapped
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State
from prefect.states import Completed, Failed

from freshindex.catalog.layout import read_pointer
from freshindex.catalog.manifest import TableEntry
from freshindex.catalog.reader import IndexVersion, TableSet
from freshindex.flows import progress
from freshindex.flows.build import begin, build_flow, publish_artifact, summarize
from freshindex.flows.plain import plain_flow
from freshindex.flows.update import update_flow
from freshindex.indexer.schema import ID_COLUMNS
from freshindex.storage import Store
from freshindex.tasks.lock import publish_lock
from freshindex.tasks.parse import parse_shard
from freshindex.tasks.plan import plan_build
from freshindex.tasks.publish import finalize, validate_version
from freshindex.tasks.tables import store_for

DRIFT_TABLES = ("symbols", "edges", "documents")
DRIFT_ROWS_SHOWN = 20


def canonical_rows(store: Store, tables: list[TableEntry], table: str) -> list[str]:
    """The rows ``dump --no-ids`` prints for these table files, as sorted JSON lines."""
    t = TableSet(store, tables).read_sorted(table)
    t = t.drop_columns([c for c in t.column_names if c in ID_COLUMNS])
    return [json.dumps(r, sort_keys=True, ensure_ascii=False) for r in t.to_pylist()]


def digest(rows: list[str]) -> str:
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


@task(name="drift-check", cache_policy=NO_CACHE)
def drift_check(
    store_uri: str, current: str | None, fresh_tables: list[TableEntry], commit: str
) -> dict[str, Any]:
    store = store_for(store_uri)
    if current is None:
        return {"checked": False, "reason": "no current version to compare"}
    version = IndexVersion.load(store, current)
    if version.manifest.sourceCommit != commit:
        return {
            "checked": False,
            "reason": f"current version is at {version.manifest.sourceCommit[:12]}, built {commit[:12]}",
        }
    diffs: dict[str, Any] = {}
    for table in DRIFT_TABLES:
        old = canonical_rows(store, version.manifest.tables, table)
        new = canonical_rows(store, fresh_tables, table)
        if digest(old) != digest(new):
            only_old = sorted(set(old) - set(new))[:DRIFT_ROWS_SHOWN]
            only_new = sorted(set(new) - set(old))[:DRIFT_ROWS_SHOWN]
            diffs[table] = {
                "current": len(old),
                "fresh": len(new),
                "onlyCurrent": only_old,
                "onlyFresh": only_new,
            }
    return {"checked": True, "drift": bool(diffs), "tables": diffs, "current": current}


def drift_markdown(result: dict[str, Any]) -> str:
    lines = [f"# Index drift in {result['current']}", ""]
    for table, d in result["tables"].items():
        lines += [
            f"## {table}: {d['current']} rows incrementally, {d['fresh']} from scratch",
            "",
            "Only in the current (incremental) version:",
            "```",
        ]
        lines += d["onlyCurrent"] or ["(none)"]
        lines += ["```", "", "Only in the from-scratch build:", "```"]
        lines += d["onlyFresh"] or ["(none)"]
        lines += ["```", ""]
    return "\n".join(lines)


@plain_flow(name="freshindex-nightly", validate_parameters=False)
def nightly_flow(
    repo: str | None = None, store: str | None = None, rev: str = "HEAD", shards: int | None = None
) -> Any:
    """A full rebuild of ``rev`` compared with the current version of the same
    commit; ``repo`` and ``store`` default to the worker's environment."""
    run = begin(repo, store)
    if isinstance(run, State):
        return run
    repo, store = run
    current = read_pointer(store_for(store)).pointer
    plan = plan_build(repo, store, rev, shards)
    futures = parse_shard.map(unmapped(plan.job), range(plan.job.shards))
    tables = progress.gather(futures)
    report = validate_version(plan, tables)
    drift = (
        drift_check(store, current.version if current else None, tables, plan.job.commit)
        if report.ok
        else {}
    )
    with publish_lock(store):
        outcome = finalize(store_for(store), plan, tables, report)
    summary = {**summarize(outcome), "drift": drift}
    publish_artifact("freshindex-nightly", summary)
    if drift.get("drift"):
        create_markdown_artifact(
            key="freshindex-drift",
            markdown=drift_markdown(drift),
            description=f"drift found in {drift['current']}",
        )
        return Failed(
            message=f"drift: {', '.join(drift['tables'])} differ from a fresh build; replaced by "
            f"{outcome.version}",
            data=summary,
        )
    if outcome.status != "published":
        return Failed(message=outcome.reason or outcome.status, data=summary)
    return Completed(message=f"published {outcome.version}; no drift", data=summary)


@plain_flow(name="freshindex-manual", validate_parameters=False)
def manual_flow(
    repo: str | None = None, store: str | None = None, rev: str = "HEAD", full: bool = False
) -> Any:
    """The Run button in the Prefect UI: a full rebuild or an incremental update
    of REV, run as this flow run itself (not a subflow), so the page the user
    clicked holds its outcome, its artifact and its log line."""
    if full:
        return build_flow.fn(repo=repo, store=store, rev=rev)
    return update_flow.fn(repo=repo, store=store, rev=rev)


def deployments(repo: str, store: str, cron: str = "0 2 * * *") -> list[Any]:
    from prefect.schedules import Cron

    params = {"repo": repo, "store": store}
    return [
        nightly_flow.to_deployment(
            name="nightly",
            schedules=[Cron(cron, timezone="UTC")],
            parameters=params,
            description="nightly full rebuild with a drift check",
        ),
        update_flow.to_deployment(
            name="on-merge",
            parameters=params,
            description="incremental update to the merged commit (parameter rev)",
        ),
        manual_flow.to_deployment(
            name="manual",
            parameters={**params, "rev": "HEAD", "full": False},
            description="manual rebuild: full or incremental",
        ),
    ]


def serve_all(repo: str, store: str, cron: str = "0 2 * * *") -> None:
    from prefect import serve

    # limit=2: a nightly rebuild and a merge update may overlap; the publish
    # lock serialises their pointer swaps
    serve(
        *deployments(repo, store, cron),
        limit=2,
        pause_on_shutdown=False,
        print_starting_message=True,
    )
