"""Roll back the index, not the source code: one compare-and-swap to a provably good version.

A rollback target must be ``complete``, pass ``verify`` (every digest), and
have a publication record signed by the pinned key: an unsigned or badly
signed record is never last-good. The new pointer body carries a generation
higher than any before it, so a rollback never recreates an earlier pointer
byte for byte (which would let a stale ``If-Match`` succeed). Nothing here
touches the worktree or git refs.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from freshindex.catalog import signing
from freshindex.catalog.layout import (
    make_pointer,
    now_iso,
    read_pointer,
    record_for,
    records_before,
    swap_pointer,
)
from freshindex.catalog.manifest import Pointer
from freshindex.core.exceptions import BadInput, CheckFailed
from freshindex.ops.verify import verify_version
from freshindex.storage import Store

REQUESTS = "requests/"


@dataclass(frozen=True)
class RollbackResult:
    previous: str
    current: str
    pointer: Pointer
    request_key: str


def choose_target(store: Store, current: Pointer, requested: str | None) -> str:
    """The version to switch to: ``requested``, else the newest validly signed
    record's version published before the current one (below its seq)."""
    if requested:
        return requested
    public = signing.pinned_public_key()
    for r in records_before(store, current.seq):
        if r.version != current.version and signing.check(r, public).ok:
            return r.version
    raise CheckFailed("no earlier version with a validly signed publication record to roll back to")


def rollback(store: Store, requested: str | None = None) -> RollbackResult:
    base = read_pointer(store)
    if base.pointer is None:
        raise BadInput(f"no current version in {store.describe()}: nothing to roll back")
    target = choose_target(store, base.pointer, requested)
    if target == base.pointer.version:
        raise BadInput(f"{target} is already current")
    manifest, problems = verify_version(store, target)
    if problems:
        raise CheckFailed(f"refusing to roll back to {target}: {problems[0]}")
    record = record_for(store, manifest.seq)
    if record is None or record.version != target:
        raise CheckFailed(f"refusing to roll back to {target}: it has no publication record")
    verdict = signing.check(record, signing.pinned_public_key())
    if not verdict.ok:
        raise CheckFailed(f"refusing to roll back to {target}: {verdict.reason}")
    pointer = make_pointer(manifest, base, reason="rollback")
    swap_pointer(store, pointer, base)  # PublishConflict (exit 1) names the winner
    request_key = request_rebuild(
        store, manifest.sourceCommit, f"rolled back from {base.pointer.version}"
    )
    return RollbackResult(base.pointer.version, target, pointer, request_key)


def request_rebuild(store: Store, since_commit: str, reason: str) -> str:
    """A recorded request the next ``update`` honours (and removes)."""
    key = f"{REQUESTS}rebuild-{now_iso().replace(':', '')}-{uuid.uuid4().hex[:6]}.json"
    body = {"kind": "rebuild", "since": since_commit, "reason": reason, "requestedAt": now_iso()}
    store.put_if_absent(key, json.dumps(body, sort_keys=True).encode())
    return key


def pending_requests(store: Store) -> list[str]:
    return [k for k in store.list(REQUESTS) if k.endswith(".json")]
