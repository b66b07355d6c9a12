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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, unquote

from pydantic import ValidationError

from freshindex.catalog.manifest import Manifest, Pointer, PublicationRecord, VersionState
from freshindex.core.exceptions import (
    CommitStateUnknown,
    NotFound,
    PreconditionFailed,
    PublishConflict,
    VerificationFailed,
)
from freshindex.storage.base import Store

CURRENT = "current.json"
BRANCH_POINTERS = "current@"  # current@<branch, %-quoted>.json: a branch's own pointer
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


def branch_pointer_key(branch: str) -> str:
    """The pointer of a branch's versions (`update --rev BRANCH`, README
    "Branches"): main's stays current.json."""
    return f"{BRANCH_POINTERS}{quote(branch, safe='')}.json"


def read_pointer(store: Store, key: str = CURRENT) -> PointerState:
    try:
        blob = store.get(key)
    except NotFound:
        return PointerState(None, None)
    try:
        return PointerState(Pointer.model_validate_json(blob.data), blob.etag)
    except ValidationError as err:
        raise VerificationFailed(f"{key} in {store.describe()} is not a valid pointer") from err


def branch_pointers(store: Store) -> dict[str, Pointer]:
    """branch -> its pointer, for every branch pointer in the store (one LIST);
    one that does not parse is left out (verify reports the store's state)."""
    out: dict[str, Pointer] = {}
    for key in store.list(BRANCH_POINTERS):
        if "/" in key or not key.endswith(".json"):
            continue
        try:
            pointer = read_pointer(store, key).pointer
        except VerificationFailed:
            continue
        if pointer is not None:
            out[unquote(key[len(BRANCH_POINTERS) : -len(".json")])] = pointer
    return out


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


def record_seq(key: str) -> int | None:
    """The seq a ``records/<seq>.json`` key names (None for anything else there)."""
    name = key.rsplit("/", 1)[-1]
    stem = name.removesuffix(".json")
    return int(stem) if stem != name and stem.isdigit() else None


def _record_keys(store: Store, after_seq: int = 0) -> list[tuple[int, str]]:
    """(seq, key) of the records with seq > ``after_seq``, in seq order: one
    LIST from there (names are zero-padded, so key order is seq order)."""
    start = record_key(after_seq) if after_seq > 0 else None
    found = ((record_seq(k), k) for k in store.list(RECORDS, start_after=start))
    return [(seq, k) for seq, k in found if seq is not None and seq > after_seq]


def read_many_records(store: Store, keys: list[str]) -> list[PublicationRecord]:
    """The valid records among ``keys``, read eight at a time (one GET each
    is a round trip to S3), in seq order. A corrupt or vanished record proves
    nothing and is left out; verify reports it."""

    def one(key: str) -> PublicationRecord | None:
        try:
            return PublicationRecord.model_validate_json(store.get(key).data)
        except (NotFound, ValidationError):
            return None

    if len(keys) > 1:
        with ThreadPoolExecutor(max_workers=8) as pool:
            found = list(pool.map(one, keys))
    else:
        found = [one(k) for k in keys]
    return sorted((r for r in found if r is not None), key=lambda r: r.seq)


def read_records(store: Store) -> list[PublicationRecord]:
    return read_many_records(store, [key for _seq, key in _record_keys(store)])


def record_for(store: Store, seq: int) -> PublicationRecord | None:
    try:
        return PublicationRecord.model_validate_json(store.get(record_key(seq)).data)
    except (NotFound, ValidationError):
        return None


def records_before(store: Store, seq: int) -> Iterator[PublicationRecord]:
    """The valid records with a seq below ``seq``, newest first, each read only
    when the caller asks for the next (a search for last-good usually stops
    at the first)."""
    for below, _key in reversed(_record_keys(store)):
        if below < seq and (record := record_for(store, below)) is not None:
            yield record


def newest_record(store: Store, at_least: int) -> PublicationRecord | None:
    """The valid record with the highest seq >= ``at_least``.

    Lists only from ``at_least`` on, so asking from the pointer's seq costs one
    LIST page and a GET however many versions were ever published."""
    for seq, _key in reversed(_record_keys(store, at_least - 1)):
        record = record_for(store, seq)
        if record is not None:
            return record
    return None


def next_seq(store: Store, base: PointerState) -> int:
    """One above every seq in use: the pointer's, and any record's after it (a
    writer that won the pointer and then lost it, or versions published after
    the one a rollback went back to). Records below the pointer's seq cannot
    raise the answer, so they are not listed."""
    floor = base.pointer.seq if base.pointer else 0
    return max([floor, *(seq for seq, _key in _record_keys(store, floor))]) + 1


class RecordTail:
    """Each publication record read once, as it appears.

    Records are append-only and immutable (gc keeps them), so a long-lived
    reader (the service's /metrics) lists only the keys after the last seq it
    has read through, and GETs only records it has not seen. A seq can appear
    late (a writer that swapped the pointer after another writer's swap but
    wrote its record first) or never (a crash between swap and record, which
    verify reports), so ``through`` stops at the first gap and the seqs seen
    beyond it are remembered."""

    def __init__(self) -> None:
        self.through = 0
        self._beyond: set[int] = set()

    def new(self, store: Store) -> list[PublicationRecord]:
        keys = []
        for seq, key in _record_keys(store, self.through):
            if seq not in self._beyond:
                self._beyond.add(seq)  # listed, so written; records are never rewritten
                keys.append(key)
        while self.through + 1 in self._beyond:
            self.through += 1
            self._beyond.discard(self.through)
        return read_many_records(store, keys)


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


def swap_pointer(store: Store, new: Pointer, expected: PointerState, key: str = CURRENT) -> str:
    """Compare-and-swap the pointer at ``key`` (current.json) from ``expected`` to ``new``.

    Raises PublishConflict naming the pointer that won when it moved meanwhile."""
    try:
        return store.put_if_match(key, new.to_bytes(), expected.etag)
    except PreconditionFailed as err:
        winner = read_pointer(store, key).pointer
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
