"""The shard task: read one shard's blobs from git, index them, write its Parquet tables."""

from __future__ import annotations

import uuid

import pyarrow as pa
from prefect import task
from prefect.cache_policies import NO_CACHE

from freshindex.catalog.layout import table_key
from freshindex.catalog.manifest import TableEntry
from freshindex.core import gitrepo
from freshindex.indexer.shard import build_shard_tables, doc_counts
from freshindex.process import collector
from freshindex.storage.base import sha256_hex
from freshindex.tasks.plan import ShardJob
from freshindex.tasks.source import tree_partition, worker_git_dir
from freshindex.tasks.tables import encode_parquet, store_for


def index_shard(job: ShardJob, shard: int) -> list[TableEntry]:
    """Plain function (the task body), callable without Prefect in tests."""
    collector.settle()
    git_dir = worker_git_dir(job.git_dir, job.commit, job.mirror_url)
    repo = gitrepo.cached_repo(git_dir)
    parts, paths = tree_partition(git_dir, job.tree, job.shards, job.config.include_paths)
    tables = build_shard_tables(
        parts[shard],
        lambda oid: gitrepo.read_blob(repo, oid),
        job.config,
        paths,
        lambda oid: gitrepo.blob_size(repo, oid),
    )
    return write_shard(job, shard, tables)


def document_stats(docs: pa.Table) -> dict[str, int]:
    """{"parsed": n, "skipped:<reason>": n, ...} of a documents table."""
    counts = doc_counts(docs)
    return {k: n for k, n in sorted(counts.items()) if k == "parsed" or k.startswith("skipped:")}


def write_shard(
    job: ShardJob,
    shard: int,
    tables: dict[str, pa.Table],
    stats: dict[str, dict[str, int]] | None = None,
) -> list[TableEntry]:
    """Write a shard's tables under a fresh attempt id and describe them.
    Documents tables get their document stats; ``stats`` adds others'.

    A fresh attempt id per run: a retried or duplicated task never overwrites
    a file another attempt may already have reported (names are never reused)."""
    store = store_for(job.store_uri)
    attempt = uuid.uuid4().hex[:10]
    out = []
    for name, table in tables.items():
        data = encode_parquet(table)
        key = table_key(job.version, shard, name, attempt)
        store.put(key, data)
        out.append(
            TableEntry(
                shard=shard,
                table=name,
                key=key,
                rows=table.num_rows,
                bytes=len(data),
                sha256=sha256_hex(data),
                stats=document_stats(table)
                if name in ("documents", "delta-documents")
                else (stats or {}).get(name, {}),
            )
        )
    return out


# One task per shard, never per file: each Prefect task costs 50-100 ms of
# API round trips on a Dask worker (measured on a 2-core machine).
# The task wraps index_shard itself, which is importable by its own name, so
# pickle ships it by reference (see flows/plain.py, "Pickling").
parse_shard = task(name="parse-shard", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)(
    index_shard
)
