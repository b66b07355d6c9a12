"""Commands that operate on the store: verify, versions, rollback, gc, keygen."""

from __future__ import annotations

from pathlib import Path

from freshindex.cli.pipeline import request_rebuild_run
from freshindex.cli.session import Context, check_failed
from freshindex.core.exceptions import FreshindexError, NoPublishedVersion


def cmd_verify(ctx: Context) -> int:
    from freshindex.catalog.layout import read_pointer
    from freshindex.ops.verify import verify_version

    store = ctx.store()
    version = ctx.args.version
    if version is None:
        ptr = read_pointer(store).pointer
        if ptr is None:
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
        check_failed(f"version {version} failed verification: {problems[0]}")
    return 0


def cmd_versions(ctx: Context) -> int:
    from freshindex.ops.versions import version_rows

    rows = version_rows(ctx.store())

    def human() -> None:
        print(f"  {'version':<44} {'state':<9} {'seq':>5}  {'commit':<12}  signed  verified")
        for r in rows:
            mark = "*" if r["current"] else " "
            record = r.get("record") or {}
            signed = "yes" if record.get("signed") else "no"
            verified = "yes" if record.get("verified") else "no"
            print(
                f"{mark} {r['version']:<44} {r['state']:<9} {r.get('seq', '-')!s:>5}  "
                f"{str(r.get('sourceCommit', ''))[:12]:<12}  {signed:<6}  {verified}"
            )

    ctx.out.doc({"versions": rows}, human)
    return 0


def cmd_rollback(ctx: Context) -> int:
    from freshindex.ops.rollback import rollback

    result = rollback(ctx.store(), ctx.args.to)
    run_id = request_rebuild_run(ctx)
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


def cmd_gc(ctx: Context) -> int:
    from freshindex.catalog.published import PublishedIndex, branch_bases
    from freshindex.ops.gc import collect

    store = ctx.store()
    bases: dict[str, str] = {}
    if not ctx.args.no_branch_bases:
        try:
            repo = ctx.repo
        except FreshindexError:  # gc of a store from outside any repository
            repo = None
        if repo is not None:
            bases = branch_bases(repo, PublishedIndex(store).refresh())
    report = collect(store, keep=ctx.args.keep, also_keep=set(bases.values()))
    doc = {
        "kept": report.kept,
        "branchBases": bases,
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


def cmd_keygen(ctx: Context) -> int:
    from freshindex.catalog.signing import generate

    out = Path(ctx.args.out).expanduser()
    priv, pub, kid = generate(out)
    doc = {"privateKey": str(priv), "publicKey": str(pub), "keyId": kid}

    def human() -> None:
        print(f"key {kid}\n  private: {priv} (mode 600): export FRESHINDEX_SIGNING_KEY={priv}")
        print(f"  public:  {pub}: readers pin it with FRESHINDEX_PUBLIC_KEY={pub}")

    ctx.out.doc(doc, human)
    return 0
