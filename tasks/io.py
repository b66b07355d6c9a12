"""Per-process caches and Parquet encoding shared by the tasks.

A Dask worker process runs many shard tasks; opening the store (a boto3
client costs ~50 ms), the repository and the tree listing once per process
instead of once per task keeps per-task overhead near Prefect's own.
"""

from __future__ import annotations

import functools
import io

import pyarrow as pa
import pyarrow.parquet as pq

from freshindex import gitrepo
from indexer.resolve import PathIndex
from indexer.shard import TreeEntry, partition
from storage import Store, open_store


@functools.lru_cache(maxsize=8)
def store_for(uri: str) -> Store:
    return open_store(uri)


@functools.lru_cache(maxsize=4)
def tree_partition(git_dir: str, tree: str, shards: int) -> tuple[list[list[TreeEntry]], PathIndex]:
    repo = gitrepo.cached_repo(git_dir)
    entries = gitrepo.list_tree(repo, tree)
    return partition(entries, shards), PathIndex(e.path for e in entries)


# Row groups of 16k rows: small enough that `refs NAME` skips most of a shard
# by min/max statistics on the sorted target column, large enough that a
# shard's file stays one or two row groups.
ROW_GROUP_ROWS = 16_384


def encode_parquet(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(
        table,
        buf,
        compression="zstd",
        row_group_size=ROW_GROUP_ROWS,
        write_statistics=True,
    )
    return buf.getvalue()


def decode_parquet(data: bytes) -> pa.Table:
    return pq.read_table(io.BytesIO(data))
