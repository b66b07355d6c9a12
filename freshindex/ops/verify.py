"""Recompute every digest of a version and check its publication record."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from freshindex.catalog import signing
from freshindex.catalog.layout import read_manifest, record_for
from freshindex.catalog.manifest import Manifest, VersionState, content_digest, live_counts
from freshindex.core.exceptions import NotFound, VerificationFailed
from freshindex.storage import Store


def verify_version(store: Store, version: str) -> tuple[Manifest, list[str]]:
    """(manifest, problems). An empty problem list means the version checks out."""
    try:
        m = read_manifest(store, version)
    except NotFound as err:
        raise VerificationFailed(
            f"version {version} has no manifest in {store.describe()}"
        ) from err
    problems: list[str] = []
    if m.state != VersionState.COMPLETE:
        problems.append(f"state is {m.state}, not complete")
    if m.compute_manifest_digest() != m.manifestDigest:
        problems.append("manifestDigest does not match the manifest's content")
    if content_digest(m.tables) != m.contentDigest:
        problems.append("contentDigest does not match the table list")
    if m.completedShards != m.shards:
        problems.append(f"{m.completedShards} of {m.shards} shards completed")

    def check(entry_index: int) -> str | None:
        t = m.tables[entry_index]
        try:
            data = store.get(t.key).data
        except NotFound:
            return f"table file {t.key} is missing"
        return t.mismatch(data)

    with ThreadPoolExecutor(max_workers=8) as pool:
        problems.extend(p for p in pool.map(check, range(len(m.tables))) if p)
    sums = live_counts(m.tables)
    for name in ("documents", "symbols", "edges", "summaries", "tombstones"):
        if sums.get(name, 0) != getattr(m.counts, name):
            problems.append(
                f"counts.{name} is {getattr(m.counts, name)}, its tables hold {sums.get(name, 0)}"
            )
    if m.state == VersionState.COMPLETE:
        record = record_for(store, m.seq)
        if record is None:
            problems.append(f"no publication record for seq {m.seq}")
        elif record.version != m.versionId or record.manifestDigest != m.manifestDigest:
            problems.append(f"publication record {m.seq} names another version or digest")
        else:
            public = signing.pinned_public_key()
            verdict = signing.check(record, public)
            if public is not None and not verdict.ok:
                problems.append(verdict.reason)
    return m, problems
