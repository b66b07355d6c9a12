"""The ``freshindex`` command. Every expected failure is one line and an exit code:
0 success, 1 a check failed, 2 bad usage or input, 3 not fresh under --require-fresh.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from freshindex import shutdown
from freshindex.exceptions import FreshindexError, NotFresh
from indexer import heap

log = logging.getLogger("freshindex")


# --- output --------------------------------------------------------------------


class Output:
    def __init__(self, as_json: bool):
        self.json = as_json

    def doc(self, value: Any, human: Callable[[], None]) -> None:
        if self.json:
            sys.stdout.write(json.dumps(value, sort_keys=True, default=str) + "\n")
        else:
            human()

    @staticmethod
    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)


# --- context shared by commands ---------------------------------------------------


class Context:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.out = Output(args.json)
        self._repo: Any = None

    @property
    def repo(self) -> Any:
        if self._repo is None:
            from freshindex.gitrepo import open_repo

            self._repo = open_repo(self.args.repo)
        return self._repo

    def store_uri(self) -> str:
        if self.args.store:
            return str(self.args.store)
        if os.environ.get("FRESHINDEX_STORE"):
            return os.environ["FRESHINDEX_STORE"]
        from freshindex.gitrepo import store_default

        return store_default(self.repo)

    def store(self) -> Any:
        from storage import open_store

        return open_store(self.store_uri())


# --- commands ----------------------------------------------------------------------


def cmd_build(ctx: Context) -> int:
    heap.hold()  # until the imports below are done: they make almost no garbage
    from freshindex.gitrepo import resolve_commit

    args = ctx.args
    repo = ctx.repo
    commit = resolve_commit(repo, args.rev)
    uri = ctx.store_uri()
    ctx.store()  # fail fast, before any cluster starts, on a bad or unreachable store
    if args.shards is not None and not 1 <= args.shards <= 4096:
        raise FreshindexError(f"--shards must be between 1 and 4096, not {args.shards}")

    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    started = time.monotonic()
    from flows.runtime import EarlyCluster

    early = None
    if args.runner == "dask" and not args.dask_address:
        early = EarlyCluster(args.workers)  # starts while Prefect is imported below
    try:
        from flows.build import build_flow
        from flows.runtime import prefect_api, state_data, task_runner

        heap.settle()  # the flow process's heap is Prefect's and the scheduler's
        ctx.out.progress(f"building {commit.id} into {uri}")
        with prefect_api() as api_url:
            api_ready = time.monotonic()
            runner = task_runner(args.workers, args.dask_address, args.runner, early)
            state = build_flow.with_options(task_runner=runner)(
                repo=str(Path(repo.path).resolve()),
                store=uri,
                rev=str(commit.id),
                shards=args.shards,
                mirror_url=args.mirror_url,
                return_state=True,
            )
            summary = state_data(state)
    finally:
        if early is not None:
            early.close()
    summary["prefectApi"] = api_url
    summary["wallSeconds"] = round(time.monotonic() - started, 3)
    summary["apiStartSeconds"] = round(api_ready - started, 3)
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
    if status == "published":
        return 0
    raise_check(f"build {status}: {summary.get('reason')}")
    return 1


def cmd_update(ctx: Context) -> int:
    heap.hold()  # until the imports below are done: they make almost no garbage
    from freshindex.gitrepo import resolve_commit

    args = ctx.args
    repo = ctx.repo
    commit = resolve_commit(repo, args.rev)
    uri = ctx.store_uri()
    ctx.store()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    started = time.monotonic()
    from flows.runtime import EarlyCluster

    early = None
    if args.runner == "dask" and not args.dask_address:
        early = EarlyCluster(args.workers)  # as for build: starts while Prefect is imported
    try:
        from flows.runtime import prefect_api
        from flows.update import run_update

        heap.settle()
        ctx.out.progress(f"updating {uri} to {commit.id}")
        with prefect_api() as api_url:
            summary = run_update(
                str(Path(repo.path).resolve()),
                uri,
                str(commit.id),
                _update_runner(args, early),
                args.mirror_url,
            )
    finally:
        if early is not None:
            early.close()
    summary["prefectApi"] = api_url
    summary["wallSeconds"] = round(time.monotonic() - started, 3)
    status = summary.get("outcome")

    def human() -> None:
        if status == "noop":
            print(f"nothing to do: {summary.get('reason')}")
        elif status == "published":
            print(
                f"published {summary['version']} ({summary['mode']}: {summary['modeReason']}; "
                f"{summary['shardsRewritten']} shard(s) rewritten, {summary['wallSeconds']} s)"
            )

    ctx.out.doc(summary, human)
    if status in ("published", "noop"):
        return 0
    raise_check(f"update {status}: {summary.get('reason')}")
    return 1


def _update_runner(args: argparse.Namespace, early: Any = None) -> Any:
    """The task runner of an update: an update touches few shards, so a thread
    pool in this process avoids the cluster start-up unless asked for (or a
    scheduler is given)."""
    from flows.runtime import task_runner

    kind = "dask" if args.dask_address else args.runner
    return task_runner(args.workers, args.dask_address, kind, early)


def raise_check(message: str) -> None:
    from freshindex.exceptions import CheckFailed

    raise CheckFailed(message)


def _answerer(ctx: Context, version: Any, parse_now: bool = True) -> Any:
    from freshindex.answer import evaluate

    return evaluate(
        ctx.repo,
        version,
        use_overlay=not getattr(ctx.args, "no_overlay", False),
        parse_now=parse_now,
    )


def _current(ctx: Context) -> Any:
    from freshindex.reader import IndexVersion

    return IndexVersion.current(ctx.store())


def cmd_status(ctx: Context) -> int:
    from freshindex.exceptions import NoPublishedVersion, VerificationFailed

    problem = None
    try:
        version = _current(ctx)
    except NoPublishedVersion:
        version = None
    except VerificationFailed as err:  # the pointer names a version that does not check out
        version, problem = None, f"current version fails verification: {err}"
    if version is None:
        from freshindex.freshness import basic_envelope
        from freshindex.worktree import scan

        doc = basic_envelope(ctx.repo, None, scan(ctx.repo), []).to_json()
        if problem:
            doc["reasons"] = [problem]
    else:
        doc = _answerer(ctx, version, parse_now=False).envelope.to_json()
        doc["records"] = _record_status(version)

    def human() -> None:
        print(f"freshness: {doc['freshness']} ({doc['relation']})")
        print(f"index:     {doc['indexVersion']} @ {doc['indexCommit']}")
        print(f"head:      {doc['headCommit']}  worktree tree {doc['worktreeTree']}")
        for r in doc["reasons"]:
            print(f"  - {r}")

    if getattr(ctx.args, "check", False) and version is not None:
        from freshindex.health import HealthChecker

        doc["health"] = HealthChecker(version.store).check()
    ctx.out.doc(doc, human)
    if doc.get("health") and not doc["health"]["healthy"]:
        raise_check(f"unhealthy: {doc['health']['problems'][0]}")
    return _fresh_exit(ctx, doc)


def _record_status(version: Any) -> dict[str, Any]:
    """Whether the current version's publication record is signed and verifies."""
    from freshindex import signing
    from storage.catalog import record_for

    record = record_for(version.store, version.manifest.seq)
    if record is None:
        return {
            "signed": False,
            "verified": False,
            "note": "no publication record for the current version",
        }
    verdict = signing.check(record, signing.pinned_public_key())
    note = (
        verdict.reason
        if record.signature
        else "records are unsigned (no FRESHINDEX_SIGNING_KEY when published)"
    )
    return {"signed": bool(record.signature), "verified": verdict.ok, "note": note}


def _fresh_exit(ctx: Context, doc: dict[str, Any]) -> int:
    if getattr(ctx.args, "require_fresh", False) and doc["freshness"] not in ("exact", "overlay"):
        raise NotFresh(
            f"index freshness is {doc['freshness']}: {'; '.join(doc['reasons']) or 'unknown'}"
        )
    return 0


def _query(ctx: Context, kind: str) -> int:
    from freshindex.answer import query_doc

    doc = query_doc(_answerer(ctx, _current(ctx)), kind, ctx.args.name)
    results = doc["results"]

    def human() -> None:
        print(
            f"# {len(results)} {kind} of {ctx.args.name} [{doc['freshness']}] "
            f"index {doc['indexCommit'][:12] if doc['indexCommit'] else '-'}",
            file=sys.stderr,
        )
        for r in doc["reasons"]:
            print(f"#   {r}", file=sys.stderr)
        for r in results:
            label = r.get("qualname") or r.get("caller") or ""
            print(f"{r['path']}:{r['startLine']}:{r['startCol'] + 1}\t{r['kind']}\t{label}")
        if not results and doc["freshness"] in ("partial", "stale"):
            print(
                f"# no {kind} found, but this index is {doc['freshness']}: the list is incomplete",
                file=sys.stderr,
            )

    ctx.out.doc(doc, human)
    return _fresh_exit(ctx, doc)


def cmd_defs(ctx: Context) -> int:
    return _query(ctx, "defs")


def cmd_refs(ctx: Context) -> int:
    return _query(ctx, "refs")


def cmd_dump(ctx: Context) -> int:
    answerer = _answerer(ctx, _current(ctx))
    env = answerer.envelope.to_json()
    # JSON Lines: the envelope first, then one row a line in canonical order.
    sys.stdout.write(json.dumps({"envelope": env, "table": ctx.args.table}, sort_keys=True) + "\n")
    for row in answerer.dump(ctx.args.table, ids=not ctx.args.no_ids):
        sys.stdout.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    return _fresh_exit(ctx, env)


def cmd_verify(ctx: Context) -> int:
    from freshindex.verify import verify_version
    from storage.catalog import read_pointer

    store = ctx.store()
    version = ctx.args.version
    if version is None:
        ptr = read_pointer(store).pointer
        if ptr is None:
            from freshindex.exceptions import NoPublishedVersion

            raise NoPublishedVersion(f"no published index in {store.describe()}: nothing to verify")
        version = ptr.version
    manifest, problems = verify_version(store, version)
    doc = {
        "version": version,
        "ok": not problems,
        "problems": problems,
        "tables": len(manifest.tables),
        "manifestDigest": manifest.manifestDigest,
        "seq": manifest.seq,
    }

    def human() -> None:
        if problems:
            for p in problems:
                print(f"FAIL {version}: {p}")
        else:
            print(f"ok {version}: {len(manifest.tables)} table files, digests and record verified")

    ctx.out.doc(doc, human)
    if problems:
        raise_check(f"version {version} failed verification: {problems[0]}")
    return 0


def cmd_keygen(ctx: Context) -> int:
    from freshindex.signing import generate

    out = Path(ctx.args.out).expanduser()
    priv, pub, kid = generate(out)
    doc = {"privateKey": str(priv), "publicKey": str(pub), "keyId": kid}

    def human() -> None:
        print(f"key {kid}\n  private: {priv} (mode 600): export FRESHINDEX_SIGNING_KEY={priv}")
        print(f"  public:  {pub}: readers pin it with FRESHINDEX_PUBLIC_KEY={pub}")

    ctx.out.doc(doc, human)
    return 0


def cmd_rollback(ctx: Context) -> int:
    from freshindex.rollback import rollback

    result = rollback(ctx.store(), ctx.args.to)
    run_id = _request_rebuild_run(ctx)
    doc = {
        "rebuildRun": run_id,
        "previous": result.previous,
        "current": result.current,
        "generation": result.pointer.generation,
        "rebuildRequest": result.request_key,
    }

    def human() -> None:
        print(
            f"current: {result.current} (was {result.previous}); rebuild requested ({result.request_key})"
        )

    ctx.out.doc(doc, human)
    return 0


def cmd_context(ctx: Context) -> int:
    from freshindex import context as context_pkg

    answerer = _answerer(ctx, _current(ctx))
    doc = answerer.envelope.to_json()
    doc.update(context_pkg.build(answerer, ctx.args.target, ctx.args.budget))

    def human() -> None:
        print(
            f"# context of {ctx.args.target} [{doc['freshness']}]: {len(doc['items'])} item(s), "
            f"{doc['usedTokens']}/{doc['budgetTokens']} tokens, {doc['omitted']} left out",
            file=sys.stderr,
        )
        for item in doc["items"]:
            print(
                f"--- {item['role']} {item['path']}:{item['startLine']}-{item['endLine']} {item.get('name', '')}"
            )
            print(item["text"])

    ctx.out.doc(doc, human)
    return _fresh_exit(ctx, doc)


def cmd_gc(ctx: Context) -> int:
    from freshindex.gc import collect

    report = collect(ctx.store(), keep=ctx.args.keep)
    doc = {
        "kept": report.kept,
        "inProgress": report.in_progress,
        "deletedVersions": report.deleted_versions,
        "deletedKeys": report.deleted_keys,
        "retainedKeys": report.retained_keys,
    }

    def human() -> None:
        print(
            f"kept {len(report.kept)} version(s), deleted {len(report.deleted_versions)} "
            f"({report.deleted_keys} files; {report.retained_keys} still referenced), "
            f"{len(report.in_progress)} build(s) in progress left alone"
        )

    ctx.out.doc(doc, human)
    return 0


def cmd_serve(ctx: Context) -> int:
    from freshindex.service import QueryService, Updater, serve

    args = ctx.args
    store = ctx.store()
    # SIGTERM is how a service is stopped (docker stop, systemd): a clean exit,
    # unwound (the main thread only waits for requests here), so a Prefect API
    # it started stops with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.ExitStack() as stack:
        updater = None
        if args.updates:
            os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
            from flows.runtime import prefect_api

            stack.enter_context(prefect_api())  # one API for the service's life
            early = None
            if args.runner == "dask" and not args.dask_address:
                # one LocalCluster for the service's life, not one per update
                from flows.runtime import EarlyCluster

                early = EarlyCluster(args.workers)
                stack.callback(early.close)
            updater = Updater(ctx.store_uri(), lambda: _update_runner(args, early), args.mirror_url)
        service = QueryService(ctx.repo, store, updater)
        server = serve(service, args.host, args.port)
        stack.callback(server.server_close)
        host, port = str(server.server_address[0]), int(server.server_address[1])
        extra = "; POST /update runs updates here" if updater else ""
        ctx.out.progress(
            f"serving {service.version.manifest.versionId} on http://{host}:{port}{extra}"
        )
        server.serve_forever()
    return 0


def cmd_deployments(ctx: Context) -> int:
    from flows.deployments import serve_all

    if not os.environ.get("PREFECT_API_URL"):
        raise FreshindexError(
            "deployments need a running Prefect API: start `prefect server start` and set PREFECT_API_URL"
        )
    serve_all(str(Path(ctx.repo.path).resolve()), ctx.store_uri(), ctx.args.cron)
    return 0


def _request_rebuild_run(ctx: Context) -> str | None:
    """Start the on-merge update deployment when a Prefect API serves it; the
    request recorded in the store covers every other case."""
    if not os.environ.get("PREFECT_API_URL"):
        return None
    try:
        from prefect.deployments import run_deployment

        run: Any = run_deployment(
            "freshindex-update/on-merge",
            parameters={"repo": str(Path(ctx.repo.path).resolve()), "store": ctx.store_uri()},
            timeout=0,
            as_subflow=False,
        )
    except Exception as err:  # no such deployment, API down: the recorded request remains
        log.info("no rebuild flow run started: %s", err)
        return None
    return str(run.id)


def cmd_versions(ctx: Context) -> int:
    from freshindex import signing
    from storage.catalog import list_versions, read_manifest, read_pointer, read_records

    store = ctx.store()
    current = read_pointer(store).pointer
    public = signing.pinned_public_key()
    records = {r.version: r for r in read_records(store)}
    rows = []
    for version, state in sorted(list_versions(store).items(), reverse=True):
        row: dict[str, Any] = {
            "version": version,
            "state": state,
            "current": bool(current and current.version == version),
        }
        if state in ("complete", "failed"):
            m = read_manifest(store, version)
            row.update(
                sourceCommit=m.sourceCommit,
                seq=m.seq,
                buildKind=m.buildKind,
                createdAt=m.createdAt,
                parentVersion=m.parentVersion,
                reason=m.reason,
            )
        record = records.get(version)
        row["record"] = (
            None
            if record is None
            else {
                "seq": record.seq,
                "signed": bool(record.signature),
                "check": signing.check(record, public).reason,
            }
        )
        rows.append(row)

    def human() -> None:
        for r in rows:
            mark = "*" if r["current"] else " "
            print(
                f"{mark} {r['version']}  {r['state']:<9} seq={r.get('seq', '-')}  {str(r.get('sourceCommit', ''))[:12]}"
            )

    ctx.out.doc({"versions": rows}, human)
    return 0


# --- parser --------------------------------------------------------------------------


def _positive(value: str) -> int:
    try:
        n = int(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from err
    if n < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return n


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2 (argparse prints usage too)
        self.exit(2, f"freshindex: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--repo", default=argparse.SUPPRESS, help="the git repository (any folder inside it)"
    )
    common.add_argument(
        "--store", default=argparse.SUPPRESS, help="file:///abs/path or s3://bucket/prefix"
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="one JSON document on stdout"
    )
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS)

    p = _Parser(prog="freshindex", description=__doc__, parents=[common])
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    b = sub.add_parser("build", parents=[common], help="full build of a revision")
    b.add_argument("--rev", default="HEAD")
    b.add_argument(
        "--shards", type=_positive, default=None, help="default 128 (or freshindex.toml)"
    )
    b.add_argument(
        "--workers", type=_positive, default=None, help="local Dask workers (default: one per core)"
    )
    b.add_argument(
        "--dask-address", default=None, help="use an existing Dask scheduler, tcp://host:8786"
    )
    b.add_argument(
        "--mirror-url",
        default=None,
        help="workers keep their own mirror clone of this URL instead of reading --repo's path",
    )
    b.add_argument(
        "--runner",
        choices=("dask", "threads"),
        default="dask",
        help="threads: run shard tasks in this process (no cluster), for small repositories",
    )
    b.set_defaults(func=cmd_build)

    updating = _Parser(add_help=False)  # how updates run
    updating.add_argument("--workers", type=_positive, default=None)
    updating.add_argument("--dask-address", default=None)
    updating.add_argument("--mirror-url", default=None)
    updating.add_argument(
        "--runner",
        choices=("dask", "threads"),
        default="threads",
        help="default threads: an update rewrites few shards (dask for large batches)",
    )
    u = sub.add_parser(
        "update", parents=[common, updating], help="incremental update to a revision"
    )
    u.add_argument("--rev", default="HEAD")
    u.set_defaults(func=cmd_update)

    s = sub.add_parser("status", parents=[common], help="freshness of the current version")
    s.add_argument("--require-fresh", action="store_true")
    s.add_argument(
        "--check",
        action="store_true",
        help="also run the health checks (pointer, shard files); exit 1 when unhealthy",
    )
    s.set_defaults(func=cmd_status)

    for name, func in (("defs", cmd_defs), ("refs", cmd_refs)):
        q = sub.add_parser(name, parents=[common], help=f"{name} of a symbol")
        q.add_argument("name")
        q.add_argument("--require-fresh", action="store_true")
        q.add_argument("--no-overlay", action="store_true")
        q.set_defaults(func=func)

    d = sub.add_parser("dump", parents=[common], help="every row of a table as sorted JSON Lines")
    d.add_argument(
        "--table", required=True, choices=("symbols", "edges", "documents", "refs", "tombstones")
    )
    d.add_argument("--no-overlay", action="store_true")
    d.add_argument(
        "--no-ids", action="store_true", help="leave out symbol ids (compare with a fresh build)"
    )
    d.add_argument("--require-fresh", action="store_true")
    d.set_defaults(func=cmd_dump)

    v = sub.add_parser("verify", parents=[common], help="recompute every digest of a version")
    v.add_argument("--version", default=None)
    v.set_defaults(func=cmd_verify)

    vs = sub.add_parser("versions", parents=[common], help="published versions, newest first")
    vs.set_defaults(func=cmd_versions)

    cx = sub.add_parser("context", parents=[common], help="a context package for a symbol or file")
    cx.add_argument("target")
    cx.add_argument("--budget", type=_positive, default=2000, help="tokens (~4 bytes each)")
    cx.add_argument("--require-fresh", action="store_true")
    cx.add_argument("--no-overlay", action="store_true")
    cx.set_defaults(func=cmd_context)

    g = sub.add_parser(
        "gc", parents=[common], help="delete versions no longer current, kept or referenced"
    )
    g.add_argument("--keep", type=_positive, default=3)
    g.set_defaults(func=cmd_gc)

    sv = sub.add_parser("serve", parents=[common, updating], help="query service over HTTP")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8321)
    sv.add_argument(
        "--updates",
        action="store_true",
        help="accept POST /update?rev=REV: run updates in this warm process and load them",
    )
    sv.set_defaults(func=cmd_serve)

    dp = sub.add_parser(
        "deployments",
        parents=[common],
        help="serve the nightly, on-merge and manual flows (Prefect)",
    )
    dp.add_argument("--cron", default="0 2 * * *", help="nightly schedule, UTC")
    dp.set_defaults(func=cmd_deployments)

    rb = sub.add_parser("rollback", parents=[common], help="switch current back to a good version")
    rb.add_argument(
        "--to", default=None, help="version id (default: the previous signed, complete one)"
    )
    rb.set_defaults(func=cmd_rollback)

    kg = sub.add_parser("keygen", parents=[common], help="make the key pair that signs records")
    kg.add_argument("--out", default="~/.config/freshindex")
    kg.set_defaults(func=cmd_keygen)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, default in (("repo", "."), ("store", None), ("json", False), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(message)s",
    )
    on_main_thread = threading.current_thread() is threading.main_thread()
    # SIGTERM ends the command and what it started (freshindex/shutdown.py)
    before = signal.signal(signal.SIGTERM, shutdown.terminate) if on_main_thread else None
    try:
        code = int(args.func(Context(args)))
    except FreshindexError as err:
        print(f"freshindex: {'error' if err.exit_code == 2 else 'failed'}: {err}", file=sys.stderr)
        code = err.exit_code
    except KeyboardInterrupt:
        print("freshindex: interrupted", file=sys.stderr)
        code = 130
    except Exception as err:  # a bug: still one line; details with -v
        if args.verbose:
            log.exception("internal error")
        print(f"freshindex: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        code = 1
    finally:
        heap.resume()  # a command that failed while it imported (indexer/heap.py)
        if on_main_thread:  # main() called in a longer-lived process (tests)
            signal.signal(signal.SIGTERM, before)
    sys.stdout.flush()
    return code


def run() -> None:  # pragma: no cover - the console script; tests call main()
    """The `freshindex` command: main(), then a prompt exit.

    Measured on a 10-file update of a 30,000-file repository: 0.6-2 s passed
    between main() returning and the process ending, in the interpreter's
    final teardown (no Python frames on the stack), after the result was
    printed. Everything that must outlive main() is finished explicitly here,
    the way shutdown would: Prefect's queued logs and events are sent (they
    carry the final task-run states), atexit handlers run (logging, temporary
    files, multiprocessing), the standard streams are flushed. Then the
    process exits without the teardown."""
    try:
        code = main()
    except SystemExit as stop:  # argparse usage errors
        code = stop.code if isinstance(stop.code, int) else 2
    if "prefect" in sys.modules:
        with contextlib.suppress(Exception):
            from prefect.events.worker import EventsWorker
            from prefect.logging.handlers import APILogWorker

            APILogWorker.drain_all(timeout=5)
            EventsWorker.drain_all(timeout=5)
    atexit._run_exitfuncs()
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
