"""Manifest canonical form and digests (pure: no storage)."""

from __future__ import annotations

import json

from freshindex.catalog.manifest import (
    BuildKind,
    Counts,
    IndexerInfo,
    Manifest,
    TableEntry,
    VersionState,
    content_digest,
)


def manifest(tables: list[TableEntry]) -> Manifest:
    return Manifest(
        versionId="v1",
        sourceCommit="a" * 40,
        sourceTree="b" * 40,
        parentVersion=None,
        buildKind=BuildKind.FULL,
        indexer=IndexerInfo(name="freshindex", version="0", digest="sha256:x"),
        grammars={"python": "tree-sitter-python==0"},
        configDigest="sha256:c",
        include=["**"],
        exclude=[],
        shards=1,
        completedShards=1,
        state=VersionState.COMPLETE,
        counts=Counts(documents=1, symbols=0, edges=0, tombstones=0),
        tables=tables,
        contentDigest="",
        seq=1,
        createdAt="t",
    ).with_digests()


def test_digest_survives_a_json_round_trip() -> None:
    m = manifest(
        [
            TableEntry(
                shard=0,
                table="documents",
                key="k",
                rows=1,
                bytes=2,
                sha256="s",
                stats={"parsed": 1},
            )
        ]
    )
    again = Manifest.model_validate_json(m.to_bytes())
    assert again.compute_manifest_digest() == m.manifestDigest == again.manifestDigest
    assert again.contentDigest == content_digest(again.tables)


def test_entries_written_before_stats_existed_still_verify() -> None:
    m = manifest([TableEntry(shard=0, table="symbols", key="k", rows=1, bytes=2, sha256="s")])
    stored = json.loads(m.to_bytes())
    assert "stats" not in stored["tables"][0]  # empty stats are not written
    assert Manifest.model_validate(stored).compute_manifest_digest() == m.manifestDigest


def test_canonical_form_is_sorted_and_compact() -> None:
    body = manifest([]).to_bytes()
    assert body.endswith(b"\n") and b": " not in body
    keys = list(json.loads(body))
    assert keys == sorted(keys)
