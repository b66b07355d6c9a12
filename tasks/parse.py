"""The shard task: read one shard's blobs from git, index them, write its Parquet tables."""

from __future__ import annotations

import uuid

from prefect import task
from prefect.cache_policies import NO_CACHE

from freshindex import gitrepo
from freshindex.manifest import TableEntry
from indexer.shard import build_shard_tables
from storage.base import sha256_hex
from storage.catalog import table_key
from tasks.io import encode_parquet, store_for, tree_partition
from tasks.plan import ShardJob

SHARD_TABLES = ("documents", "symbols", "edges", "refs")


def index_shard(job: ShardJob, shard: int) -> list[TableEntry]:
    """Plain function (the task body), callable without Prefect in tests."""
    repo = gitrepo.cached_repo(job.git_dir)
    parts, paths = tree_partition(job.git_dir, job.tree, job.shards)
    tables = build_shard_tables(
        parts[shard],
        lambda oid: gitrepo.read_blob(repo, oid),
        job.config,
        paths,
    )
    store = store_for(job.store_uri)
    # A fresh attempt id per run: a retried or duplicated task never overwrites
    # a file another attempt may already have reported (names are never reused).
    attempt = uuid.uuid4().hex[:10]
    out = []
    for name in SHARD_TABLES:
        data = encode_parquet(tables[name])
        key = table_key(job.version, shard, name, attempt)
        store.put(key, data)
        out.append(
            TableEntry(
                shard=shard,
                table=name,
                key=key,
                rows=tables[name].num_rows,
                bytes=len(data),
                sha256=sha256_hex(data),
            )
        )
    return out


# One task per shard, never per file: each Prefect task costs 50-100 ms of
# API round trips on a Dask worker (shared/reference/prefect-notes.md).
@task(name="parse-shard", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)
def parse_shard(job: ShardJob, shard: int) -> list[TableEntry]:
    return index_shard(job, shard)
