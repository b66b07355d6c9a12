"""Garbage collection of versions nobody can reach any more.

Kept: the current version, the newest ``keep`` complete versions (by seq),
the versions branch pointers name (`update --rev BRANCH`), the versions
local branches are answered from (``also_keep``: the nearest
published ancestor of each branch's tip, query/bases.py), every table file a kept manifest references (an incremental version points at
its ancestors' untouched shard files), every publication record (the audit
trail), and every version still being built.

"Being built" is known from ``versions/<id>/staging.json``, which a build
writes before its first table file: a version with a staging marker and no
manifest that is younger than ``lease`` (default 6 h, far above the longest
build measured) is a publish in progress and is never touched. An older one
was abandoned (a killed build) and is collected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from freshindex.catalog.layout import (
    VERSIONS,
    branch_pointers,
    list_versions,
    read_manifest,
    read_pointer,
    staging_key,
)
from freshindex.catalog.manifest import VersionState
from freshindex.core.exceptions import NotFound
from freshindex.storage import Store

DEFAULT_LEASE = timedelta(hours=6)


@dataclass
class GcReport:
    kept: list[str] = field(default_factory=list)
    in_progress: list[str] = field(default_factory=list)
    deleted_versions: list[str] = field(default_factory=list)
    deleted_keys: int = 0
    retained_keys: int = 0  # files of deleted versions still referenced by kept ones


def _started(store: Store, version: str) -> datetime | None:
    try:
        body = json.loads(store.get(staging_key(version)).data)
        return datetime.strptime(body["startedAt"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except (NotFound, KeyError, ValueError):
        return None


def collect(
    store: Store,
    keep: int = 3,
    lease: timedelta = DEFAULT_LEASE,
    now: datetime | None = None,
    also_keep: set[str] | None = None,
) -> GcReport:
    now = now or datetime.now(UTC)
    report = GcReport()
    states = list_versions(store)
    current = read_pointer(store).pointer
    complete = []
    for version, state in states.items():
        if state == VersionState.COMPLETE:
            complete.append((read_manifest(store, version).seq, version))
    kept = {v for _seq, v in sorted(complete, reverse=True)[:keep]}
    kept |= {v for v in also_keep or () if states.get(v) == VersionState.COMPLETE}
    kept |= {p.version for p in branch_pointers(store).values()}
    if current is not None:
        kept.add(current.version)
    for version, state in states.items():
        if state == VersionState.BUILDING:
            started = _started(store, version)
            if started is None or now - started < lease:
                report.in_progress.append(version)
    referenced: set[str] = set()
    for version in kept:
        referenced.update(t.key for t in read_manifest(store, version).tables)
    protect = kept | set(report.in_progress)
    for version in sorted(states):
        if version in protect:
            continue
        # table files first, manifest and staging marker last: a gc that dies
        # midway leaves a version still listed, so the next gc finishes it
        keys = sorted(
            store.list(f"{VERSIONS}{version}/"), key=lambda k: (not k.endswith(".parquet"), k)
        )
        for key in keys:
            if key in referenced:
                report.retained_keys += 1
                continue
            store.delete(key)
            report.deleted_keys += 1
        report.deleted_versions.append(version)
    report.kept = sorted(kept)
    return report
