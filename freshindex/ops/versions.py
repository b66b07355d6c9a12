"""Read models of the published history: the versions list, and whether the
current version's publication record is signed and verifies."""

from __future__ import annotations

from typing import Any

from freshindex.catalog import signing
from freshindex.catalog.layout import (
    list_versions,
    read_manifest,
    read_pointer,
    read_records,
    record_for,
)
from freshindex.storage import Store


def record_status(store: Store, seq: int | None) -> dict[str, Any]:
    """Whether the publication record of ``seq`` is signed and verifies
    against the pinned public key."""
    record = record_for(store, seq) if seq is not None else None
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


def version_rows(store: Store) -> list[dict[str, Any]]:
    """Every version in the store, newest first, with its manifest's facts and
    its record's check. Reads every record: the whole history, by design."""
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
                "verified": (verdict := signing.check(record, public)).ok,
                "check": verdict.reason,
            }
        )
        rows.append(row)
    return rows
