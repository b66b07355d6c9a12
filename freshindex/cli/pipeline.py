"""Commands that run the pipeline: build, update, deployments."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshindex.cli.progress import progress_bar
from freshindex.cli.session import Context, check_failed
from freshindex.core.exceptions import FreshindexError
from freshindex.process import collector

if TYPE_CHECKING:
    from freshindex.flows.run import Kind


def _quiet_dask_client(verbose: bool) -> None:
    """Dask's client logs a lost scheduler connection with a traceback, on a
    handler of its own and at a level its config sets when distributed is
    imported (so after the CLI set up logging): unless -v, only the command's
    one line says what happened (flows/progress.py, ShardFailed)."""
    if verbose:
        return
    import logging

    import distributed  # noqa: F401 - its logging config applies on import

    for name in ("distributed", "distributed.client"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _run(ctx: Context, kind: Kind, doing: str, commit: str, **options: Any) -> dict[str, Any]:
    """One flow run (flows/run.py) on the runtime the arguments ask for,
    announced (``doing``) once that runtime is up, with a progress bar. Its
    summary says the Prefect API it reported to and how long that API and
    the cluster took to start (``apiStartSeconds``)."""
    from freshindex.flows.runtime import flow_runtime

    args = ctx.args
    started = time.monotonic()
    _quiet_dask_client(args.verbose)
    with flow_runtime(args.runner, args.workers, args.dask_address) as runtime:
        api_ready = time.monotonic()
        from freshindex.flows.run import run_pipeline

        collector.settle()  # the flow process's heap is Prefect's and the scheduler's
        ctx.out.progress(doing)
        with progress_bar(not args.json):
            summary = run_pipeline(
                kind,
                str(Path(ctx.repo.path).resolve()),
                ctx.store_uri(),
                commit,
                runtime.task_runner(),
                mirror_url=args.mirror_url,
                **options,
            )
    summary["prefectApi"] = runtime.api_url
    summary["apiStartSeconds"] = round(api_ready - started, 3)
    return summary


def cmd_build(ctx: Context) -> int:
    collector.hold()  # until the imports below are done: they make almost no garbage
    from freshindex.core.gitrepo import resolve_commit

    args = ctx.args
    repo = ctx.repo
    commit = resolve_commit(repo, args.rev)
    uri = ctx.store_uri()
    ctx.store().check_writable()  # fail fast: before any cluster or Prefect API starts
    if args.shards is not None and not 1 <= args.shards <= 4096:
        raise FreshindexError(f"--shards must be between 1 and 4096, not {args.shards}")

    started = time.monotonic()
    summary = _run(
        ctx, "build", f"building {commit.id} into {uri}", str(commit.id), shards=args.shards
    )
    summary["wallSeconds"] = round(time.monotonic() - started, 3)
    status = summary.get("outcome")

    def human() -> None:
        c = summary.get("counts", {})
        if status == "published":
            print(
                f"published {summary['version']}: {c.get('documents')} documents, "
                f"{c.get('symbols')} symbols, {c.get('edges')} edges in {summary['shards']} shards "
                f"({summary['wallSeconds']} s)"
            )

    ctx.out.doc(summary, human)
    if status != "published":
        check_failed(f"build {status}: {summary.get('reason')}")
    return 0


def cmd_update(ctx: Context) -> int:
    collector.hold()  # until the imports below are done: they make almost no garbage
    from freshindex.core.gitrepo import branch_of, resolve_commit

    args = ctx.args
    repo = ctx.repo
    commit = resolve_commit(repo, args.rev)
    uri = ctx.store_uri()
    ctx.store().check_writable()
    started = time.monotonic()
    from freshindex.tasks.mode import Mode, assess

    # nothing to do is decided before Prefect or Dask start: a no-op costs
    # what a status costs, not an API's start (the flow decides again, under
    # the publish slot, when there is work)
    seen = assess(str(Path(repo.path).resolve()), uri, str(commit.id), branch_of(repo, args.rev))
    if seen.mode == Mode.NOOP:
        noop = {
            "outcome": "noop",
            "mode": Mode.NOOP,
            "reason": seen.reason,
            "version": seen.parent.manifest.versionId if seen.parent else None,
            "prefectApi": None,
            "wallSeconds": round(time.monotonic() - started, 3),
        }
        ctx.out.doc(noop, lambda: print(seen.reason))
        return 0
    # an update touches few shards: a thread pool unless --runner dask or a
    # scheduler address asks for a cluster
    doing = f"updating {uri} to {commit.id}"
    summary = _run(ctx, "update", doing, str(commit.id), branch=branch_of(repo, args.rev))
    summary["wallSeconds"] = round(time.monotonic() - started, 3)
    status = summary.get("outcome")

    def human() -> None:
        if status == "noop":
            print(summary.get("reason"))
        elif status == "published":
            print(
                f"published {summary['version']} ({summary['mode']}: {summary['modeReason']}; "
                f"{summary['shardsRewritten']} shard(s) rewritten, {summary['wallSeconds']} s)"
                + (f" to {summary['pointer']}" if summary.get("branch") else "")
            )

    ctx.out.doc(summary, human)
    if status not in ("published", "noop"):
        check_failed(f"update {status}: {summary.get('reason')}")
    return 0


def cmd_deployments(ctx: Context) -> int:
    from freshindex.flows.deployments import serve_all

    if not os.environ.get("PREFECT_API_URL"):
        raise FreshindexError(
            "deployments need a running Prefect API: start `prefect server start` and set PREFECT_API_URL"
        )
    serve_all(str(Path(ctx.repo.path).resolve()), ctx.store_uri(), ctx.args.cron)
    return 0


def request_rebuild_run(ctx: Context) -> str | None:
    """Start the on-merge update deployment when a Prefect API serves it; the
    request recorded in the store covers every other case."""
    if not os.environ.get("PREFECT_API_URL"):
        return None
    import logging

    try:
        from prefect.deployments import run_deployment

        run: Any = run_deployment(
            "freshindex-update/on-merge",
            parameters={"repo": str(Path(ctx.repo.path).resolve()), "store": ctx.store_uri()},
            timeout=0,
            as_subflow=False,
        )
    except Exception as err:  # no such deployment, API down: the recorded request remains
        logging.getLogger("freshindex").info("no rebuild flow run started: %s", err)
        return None
    return str(run.id)


def cmd_api(ctx: Context) -> int:
    """``freshindex api start|stop|status``: the kept Prefect API (flows/kept_api.py)."""
    from freshindex.flows import kept_api

    action = ctx.args.action
    if action == "start":
        kept, started = kept_api.start(ctx.args.port)
        doc = {"url": kept.url, "pid": kept.pid, "started": started, "log": kept.log}

        def human() -> None:
            print(f"{'started' if started else 'already running'}: {kept.url} (pid {kept.pid})")
            print("build and update use it while it runs; other tools want:")
            print(f"export PREFECT_API_URL={kept.url}")
    elif action == "stop":
        stopped = kept_api.stop()
        doc = {"stopped": stopped is not None, "url": stopped.url if stopped else None}

        def human() -> None:
            print(f"stopped {stopped.url}" if stopped else "no kept Prefect API is running")
    else:
        found = kept_api.find()
        doc = {"running": found is not None, "url": found.url if found else None}

        def human() -> None:
            print(f"running: {found.url} (pid {found.pid})" if found else "not running")

    ctx.out.doc(doc, human)
    return 0
