"""Reading a published version: pointer -> manifest -> Parquet tables.

Only a version whose state is ``complete`` and whose manifest digest checks
may serve queries. S3 table files are fetched once into a content-addressed
local cache (keyed and checked by sha256), so repeated queries read local
files; a cached file that does not match its digest is fetched again.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

from freshindex.core.cache import cache_dir
from freshindex.core.exceptions import NoPublishedVersion, VerificationFailed
from freshindex.core.manifest import Manifest, Pointer, TableEntry, VersionState
from freshindex.indexer.schema import BASE_TABLES, TABLES, delta_of
from freshindex.indexer.shard import sort_table
from freshindex.storage import Store
from freshindex.storage.base import sha256_hex
from freshindex.storage.catalog import read_manifest, read_pointer


def cache_root() -> Path:
    return cache_dir("objects")


@dataclass
class TableSet:
    """The table files of one version (published or staged) and their rows.

    A shard's rows are its base file's rows whose path is not in its
    ``masks``, plus its delta file's rows (indexer/schema.py). Paths hash to
    one shard, so one set of masked paths filters every shard's base."""

    store: Store
    tables: list[TableEntry]

    def _file(self, key: str, sha256: str) -> str:
        local = self.store.local_path(key)
        if local is not None:
            return local
        path = cache_root() / sha256[:2] / f"{sha256}.parquet"
        if path.exists():
            return str(path)
        data = self.store.get(key).data
        if sha256_hex(data) != sha256:
            raise VerificationFailed(f"{key} does not match its sha256 in the manifest")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return str(path)

    def files(self, table: str) -> list[str]:
        return [self._file(t.key, t.sha256) for t in self.tables if t.table == table]

    @functools.cached_property
    def masked(self) -> pa.Array:
        """Every shard's masked base paths (empty when no shard has a delta)."""
        files = self.files("masks")
        if not files:
            return pa.array([], pa.string())
        t = ds.dataset(files, schema=TABLES["masks"], format="parquet").to_table()
        return t["path"].combine_chunks()

    def read(
        self, table: str, where: ds.Expression | None = None, columns: Iterable[str] | None = None
    ) -> pa.Table:
        """Rows of a table across all shards, filtered with Parquet statistics."""
        schema = TABLES[table]
        cols = list(columns) if columns else None
        parts = []
        base = self.files(table)
        if base:
            where_base = where
            if table in BASE_TABLES and len(self.masked):
                live = ~ds.field("path").isin(self.masked)
                where_base = live if where is None else where & live
            dataset = ds.dataset(base, schema=schema, format="parquet")
            parts.append(dataset.to_table(filter=where_base, columns=cols))
        delta = self.files(delta_of(table)) if table in BASE_TABLES else []
        if delta:
            dataset = ds.dataset(delta, schema=schema, format="parquet")
            parts.append(dataset.to_table(filter=where, columns=cols))
        if not parts:
            empty = schema.empty_table()
            return empty.select(cols) if cols else empty
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts)

    def read_sorted(self, table: str) -> pa.Table:
        return sort_table(table, self.read(table))


class IndexVersion(TableSet):
    """A published version: its manifest, checked, and its tables."""

    def __init__(self, store: Store, manifest: Manifest, pointer: Pointer | None):
        super().__init__(store, manifest.tables)
        self.manifest = manifest
        self.pointer = pointer

    @classmethod
    def current(cls, store: Store) -> IndexVersion:
        state = read_pointer(store)
        if state.pointer is None:
            raise NoPublishedVersion(
                f"no published index in {store.describe()}: run `freshindex build` first"
            )
        return cls.load(store, state.pointer.version, state.pointer)

    @classmethod
    def load(cls, store: Store, version: str, pointer: Pointer | None = None) -> IndexVersion:
        manifest = read_manifest(store, version)
        if manifest.state != VersionState.COMPLETE:
            raise VerificationFailed(f"version {version} is {manifest.state}, not complete")
        if manifest.compute_manifest_digest() != manifest.manifestDigest:
            raise VerificationFailed(
                f"version {version}: manifest digest does not match its content"
            )
        if pointer is not None and pointer.manifestDigest != manifest.manifestDigest:
            raise VerificationFailed(
                f"current.json names digest {pointer.manifestDigest}, manifest has another"
            )
        return cls(store, manifest, pointer)
