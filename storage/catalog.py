"""The store layout, and the only code that moves the current pointer.

```
current.json                                   the pointer (compare-and-swap only)
records/<seq:012d>.json                        publication records (put-if-absent)
versions/<id>/staging.json                     written when a build starts (gc lease)
versions/<id>/shards/<NNN>/<table>-<attempt>.parquet   immutable table files
versions/<id>/manifest.json                    written once, after every table exists
```

Publishing follows Iceberg and zoekt: immutable files first under names never
reused, the manifest put-if-absent, the pointer by compare-and-swap on the etag
this build read when it started, and the winner's signed record last. A crash at any step leaves the
previous pointer, and so the previous complete version, serving.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import ValidationError

from freshindex.exceptions import (
    CommitStateUnknown,
    NotFound,
    PreconditionFailed,
    PublishConflict,
    VerificationFailed,
)
from freshindex.manifest import Manifest, Pointer, PublicationRecord, VersionState
from storage.base import Store

CURRENT = "current.json"
RECORDS = "records/"
VERSIONS = "versions/"


def manifest_key(version: str) -> str:
    return f"{VERSIONS}{version}/manifest.json"


def staging_key(version: str) -> str:
    return f"{VERSIONS}{version}/staging.json"


def table_key(version: str, shard: int, table: str, attempt: str) -> str:
    return f"{VERSIONS}{version}/shards/{shard:03d}/{table}-{attempt}.parquet"


def record_key(seq: int) -> str:
    return f"{RECORDS}{seq:012d}.json"


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_version_id(commit: str) -> str:
    """Sortable by time, never reused: UTC time, the commit, and a random suffix."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    return f"{stamp}-{commit[:12]}-{uuid.uuid4().hex[:6]}"


def writer_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class PointerState:
    """The pointer as read, with the etag a later compare-and-swap must match."""

    pointer: Pointer | None
    etag: str | None


def read_pointer(store: Store) -> PointerState:
    try:
        blob = store.get(CURRENT)
    except NotFound:
        return PointerState(None, None)
    try:
        return PointerState(Pointer.model_validate_json(blob.data), blob.etag)
    except ValidationError as err:
        raise VerificationFailed(f"{CURRENT} in {store.describe()} is not a valid pointer") from err


def read_manifest(store: Store, version: str) -> Manifest:
    blob = store.get(manifest_key(version))
    try:
        return Manifest.model_validate_json(blob.data)
    except ValidationError as err:
        raise VerificationFailed(f"manifest of version {version} does not parse") from err


def write_staging(store: Store, version: str, info: dict[str, object]) -> None:
    body = {
        "version": version,
        "state": VersionState.BUILDING,
        "startedAt": now_iso(),
        "writer": writer_id(),
        **info,
    }
    store.put_if_absent(staging_key(version), json.dumps(body, sort_keys=True).encode())


def read_records(store: Store) -> list[PublicationRecord]:
    out = []
    for key in store.list(RECORDS):
        if key.endswith(".json"):
            try:
                out.append(PublicationRecord.model_validate_json(store.get(key).data))
            except ValidationError:
                continue  # a corrupt record proves nothing; verify reports it
    return sorted(out, key=lambda r: r.seq)


def record_for(store: Store, seq: int) -> PublicationRecord | None:
    try:
        return PublicationRecord.model_validate_json(store.get(record_key(seq)).data)
    except (NotFound, ValidationError):
        return None


def next_seq(store: Store, base: PointerState) -> int:
    seqs = [
        int(k.rsplit("/", 1)[1].split(".")[0]) for k in store.list(RECORDS) if k.endswith(".json")
    ]
    return max([0, *seqs, base.pointer.seq if base.pointer else 0]) + 1


def list_versions(store: Store) -> dict[str, str]:
    """version id -> state, from the manifests and staging markers present.

    A version with a staging marker and no manifest is ``building`` (or was
    abandoned by a killed build: it never became current either way)."""
    states: dict[str, str] = {}
    for key in store.list(VERSIONS):
        parts = key.split("/")
        if len(parts) != 3:
            continue
        version, name = parts[1], parts[2]
        if name == "manifest.json":
            try:
                states[version] = read_manifest(store, version).state
            except VerificationFailed:
                states[version] = "corrupt"
        elif name == "staging.json":
            states.setdefault(version, VersionState.BUILDING)
    return states


def swap_pointer(store: Store, new: Pointer, expected: PointerState) -> str:
    """Compare-and-swap current.json from ``expected`` to ``new``.

    Raises PublishConflict naming the pointer that won when it moved meanwhile."""
    try:
        return store.put_if_match(CURRENT, new.to_bytes(), expected.etag)
    except PreconditionFailed as err:
        winner = read_pointer(store).pointer
        was = expected.pointer.version if expected.pointer else "nothing"
        now = f"{winner.version} (seq {winner.seq}, by {winner.writer})" if winner else "nothing"
        raise PublishConflict(
            f"current pointer moved since it was read: expected {was}, now {now}; not switched"
        ) from err


def make_pointer(manifest: Manifest, base: PointerState, reason: str = "publish") -> Pointer:
    generation = (base.pointer.generation if base.pointer else 0) + 1
    return Pointer(
        version=manifest.versionId,
        manifestKey=manifest_key(manifest.versionId),
        manifestDigest=manifest.manifestDigest,
        seq=manifest.seq,
        generation=generation,
        nonce=uuid.uuid4().hex,
        writer=writer_id(),
        updatedAt=now_iso(),
        reason=reason,
    )


def publish(
    store: Store, manifest: Manifest, base: PointerState, record: PublicationRecord
) -> Pointer:
    """Pointer then record, for a manifest already written put-if-absent.

    ``base`` is the pointer this build read before it started: if anyone moved
    it since, the swap loses and this version stays complete but unpublished
    (no record). Only the swap's winner writes the record at its seq, so seqs
    are unique without a lock; a crash between the two leaves a current
    version without a record, which ``verify`` and ``status`` report."""
    pointer = make_pointer(manifest, base)
    swap_pointer(store, pointer, base)
    try:
        store.put_if_absent(record_key(record.seq), record.to_bytes())
    except PreconditionFailed as err:
        raise CommitStateUnknown(
            f"pointer switched to {manifest.versionId} but record seq {record.seq} is taken; run verify"
        ) from err
    return pointer
