"""The serialised spec objects of a store: manifest, table entry, pointer, publication record.

Frozen pydantic models with one canonical JSON form (sorted keys, no spaces)
over which digests are computed; changed only by copying (``model_copy``).
Field names are the contract's (docs/contract.md), hence camelCase.
"""

from __future__ import annotations

import builtins
import enum
import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer


class VersionState(enum.StrEnum):
    BUILDING = "building"
    COMPLETE = "complete"
    FAILED = "failed"


class BuildKind(enum.StrEnum):
    FULL = "full"
    INCREMENTAL = "incremental"


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def canonical(self, exclude: set[str] | None = None) -> bytes:
        return canonical_json(self.model_dump(mode="json", exclude=exclude))


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class TableEntry(_Spec):
    """One Parquet file of a version (or inherited from its parent, unchanged)."""

    shard: int
    table: str
    key: str  # store key, e.g. versions/<id>/shards/007/symbols-<attempt>.parquet
    rows: int
    bytes: int
    sha256: str  # hex digest of the file's bytes
    # documents tables only: parsed count and skip reasons, so a version that
    # inherits this file can count them without reading it
    stats: dict[str, int] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _omit_empty_stats(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Added after the first manifests were written: omitted when empty so
        # that entries written before it existed keep their canonical form and
        # their manifests keep verifying.
        data: dict[str, Any] = handler(self)
        if not data.get("stats"):
            data.pop("stats", None)
        return data

    def mismatch(self, data: builtins.bytes) -> str | None:
        """Why ``data`` is not this table file, or None: the one table check
        that verify, health and the reader share."""
        if len(data) != self.bytes:
            return f"table file {self.key} has {len(data)} bytes, its manifest says {self.bytes}"
        if hashlib.sha256(data).hexdigest() != self.sha256:
            return f"table file {self.key} does not match its sha256"
        return None


class Counts(_Spec):
    documents: int
    symbols: int
    edges: int
    tombstones: int
    summaries: int = 0  # one per symbol; absent from versions built before the table
    parsedDocuments: int = 0
    skippedDocuments: dict[str, int] = Field(default_factory=dict)


class IndexerInfo(_Spec):
    name: str
    version: str
    digest: str


class Submodule(_Spec):
    path: str
    head: str | None
    tree: str | None


class Manifest(_Spec):
    formatVersion: int = 1
    versionId: str
    sourceCommit: str
    sourceTree: str
    parentVersion: str | None
    buildKind: BuildKind
    indexer: IndexerInfo
    grammars: dict[str, str]
    configDigest: str
    include: list[str]
    exclude: list[str]
    shards: int
    completedShards: int
    state: VersionState
    reason: str | None = None  # why a version failed
    counts: Counts
    tables: list[TableEntry]
    contentDigest: str
    manifestDigest: str = ""
    seq: int
    submodules: list[Submodule] = Field(default_factory=list)
    createdAt: str
    batch: dict[str, Any] | None = None  # the change batch of an incremental build

    def with_digests(self) -> Manifest:
        """A copy whose contentDigest and manifestDigest are computed from its fields."""
        m = self.model_copy(update={"contentDigest": content_digest(self.tables)})
        return m.model_copy(update={"manifestDigest": m.compute_manifest_digest()})

    def compute_manifest_digest(self) -> str:
        return sha256_digest(self.canonical(exclude={"manifestDigest"}))

    def to_bytes(self) -> bytes:
        return self.canonical() + b"\n"


def content_digest(tables: list[TableEntry]) -> str:
    """Digest over every table file's identity and content, in canonical order."""
    items = sorted((t.shard, t.table, t.key, t.rows, t.sha256) for t in tables)
    return sha256_digest(canonical_json(items))


class Pointer(_Spec):
    """current.json. ``generation`` only grows and ``nonce`` is per writer, so no
    two pointer bodies are ever byte-identical (the ETag A -> B -> A trap)."""

    version: str
    manifestKey: str
    manifestDigest: str
    seq: int
    generation: int
    nonce: str
    writer: str
    updatedAt: str
    reason: str = "publish"  # publish | rollback

    def to_bytes(self) -> bytes:
        return self.canonical() + b"\n"


class PublicationRecord(_Spec):
    """records/<seq>.json, written put-if-absent: the proof a version was published."""

    version: str
    seq: int
    sourceCommit: str
    manifestDigest: str
    parentVersion: str | None
    buildKind: BuildKind
    publishedAt: str
    keyId: str | None = None
    signature: str | None = None  # base64 Ed25519 over canonical(exclude signature)

    def signed_payload(self) -> bytes:
        return self.canonical(exclude={"signature"})

    def to_bytes(self) -> bytes:
        return self.canonical() + b"\n"


def live_counts(tables: Iterable[TableEntry]) -> Counter[str]:
    """The rows a version's tables hold, by table, from their entries alone:
    base files plus deltas, less what masks hide (they record it in their
    stats), and documents' ``parsed`` / ``skipped:<reason>`` stats."""
    out: Counter[str] = Counter()
    for e in tables:
        if e.table == "masks":
            out.subtract(e.stats)
            continue
        out[e.table.removeprefix("delta-")] += e.rows
        if e.table in ("documents", "delta-documents"):
            out.update(e.stats)
    return out
