"""Validate a staged version, write its manifest once, and move the pointer to it."""

from __future__ import annotations

from dataclasses import dataclass

from prefect import task
from prefect.cache_policies import NO_CACHE

import freshindex
from freshindex.catalog.layout import (
    branch_pointer_key,
    make_pointer,
    manifest_key,
    next_seq,
    now_iso,
    publish,
    swap_pointer,
)
from freshindex.catalog.manifest import (
    BuildKind,
    Counts,
    IndexerInfo,
    Manifest,
    PublicationRecord,
    TableEntry,
    VersionState,
)
from freshindex.catalog.signing import sign, signing_key
from freshindex.core.exceptions import PreconditionFailed, PublishConflict
from freshindex.indexer.languages import grammar_versions, indexer_digest
from freshindex.storage import Store
from freshindex.tasks.lock import RequestedLock, locked
from freshindex.tasks.plan import BuildPlan
from freshindex.tasks.tables import store_for
from freshindex.tasks.validate import ValidationReport, validate_tables


@dataclass(frozen=True)
class Outcome:
    """What finalize did: ``published``, ``failed`` (validation) or ``conflict`` (lost the pointer)."""

    status: str
    version: str
    reason: str | None
    manifest: Manifest


@task(name="validate-version", cache_policy=NO_CACHE)
def validate_version(plan: BuildPlan, tables: list[TableEntry]) -> ValidationReport:
    return validate_tables(store_for(plan.job.store_uri), tables, plan.job.shards, plan.entries)


def indexer_info() -> IndexerInfo:
    return IndexerInfo(name="freshindex", version=freshindex.__version__, digest=indexer_digest())


def make_manifest(
    plan: BuildPlan,
    tables: list[TableEntry],
    report: ValidationReport,
    seq: int,
    build_kind: BuildKind = BuildKind.FULL,
    parent: str | None = None,
    batch: dict[str, object] | None = None,
) -> Manifest:
    job = plan.job
    counts = report.counts or {
        "documents": 0,
        "symbols": 0,
        "edges": 0,
        "summaries": 0,
        "tombstones": 0,
    }
    shards_done = len({t.shard for t in tables})
    return Manifest(
        versionId=job.version,
        sourceCommit=job.commit,
        sourceTree=job.tree,
        parentVersion=parent
        if parent is not None
        else (plan.base.pointer.version if plan.base.pointer else None),
        buildKind=build_kind,
        indexer=indexer_info(),
        grammars=grammar_versions(list(job.config.languages)),
        configDigest=job.config.digest,
        include=list(job.config.include),
        exclude=list(job.config.exclude),
        shards=job.shards,
        completedShards=shards_done,
        state=VersionState.COMPLETE if report.ok else VersionState.FAILED,
        reason=report.reason,
        counts=Counts.model_validate(counts),
        tables=sorted(tables, key=lambda t: (t.shard, t.table)),
        contentDigest="",
        seq=seq,
        submodules=plan.submodules,
        createdAt=now_iso(),
        batch=batch,
    ).with_digests()


def finalize(
    store: Store,
    plan: BuildPlan,
    tables: list[TableEntry],
    report: ValidationReport,
    build_kind: BuildKind = BuildKind.FULL,
    batch: dict[str, object] | None = None,
    parent: str | None = None,
) -> Outcome:
    if not report.ok:
        failed = make_manifest(
            plan, tables, report, seq=0, build_kind=build_kind, parent=parent, batch=batch
        )
        store.put_if_absent(manifest_key(plan.version), failed.to_bytes())
        return Outcome("failed", plan.version, report.reason, failed)
    # a branch's version is not in main's sequence: seq 0, its own pointer, no record
    seq = 0 if plan.branch else next_seq(store, plan.base)
    manifest = make_manifest(
        plan, tables, report, seq=seq, build_kind=build_kind, parent=parent, batch=batch
    )
    try:
        store.put_if_absent(manifest_key(plan.version), manifest.to_bytes())
    except PreconditionFailed:
        return Outcome(
            "conflict", plan.version, f"manifest of {plan.version} already exists", manifest
        )
    if plan.branch:
        try:
            key = branch_pointer_key(plan.branch)
            swap_pointer(store, make_pointer(manifest, plan.base), plan.base, key)
        except PublishConflict as err:
            return Outcome("conflict", plan.version, str(err), manifest)
        return Outcome("published", plan.version, None, manifest)
    record = sign(
        PublicationRecord(
            version=manifest.versionId,
            seq=manifest.seq,
            sourceCommit=manifest.sourceCommit,
            manifestDigest=manifest.manifestDigest,
            parentVersion=manifest.parentVersion,
            buildKind=manifest.buildKind,
            publishedAt=now_iso(),
        ),
        signing_key(),
    )
    try:
        publish(store, manifest, plan.base, record)
    except PublishConflict as err:
        return Outcome("conflict", plan.version, str(err), manifest)
    return Outcome("published", plan.version, None, manifest)


@task(name="publish-version", cache_policy=NO_CACHE)
def publish_version(
    plan: BuildPlan,
    tables: list[TableEntry],
    report: ValidationReport,
    lock: RequestedLock | None = None,
) -> Outcome:
    with locked(plan.job.store_uri, lock):
        return finalize(store_for(plan.job.store_uri), plan, tables, report)
