"""Reading a published version: pointer -> manifest -> Parquet tables.

Only a version whose state is ``complete`` and whose manifest digest checks
may serve queries. S3 table files are fetched once into a content-addressed
local cache (keyed and checked by sha256), so repeated queries read local
files; a cached file that does not match its digest is fetched again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

from freshindex.cache import cache_dir
from freshindex.exceptions import NoPublishedVersion, VerificationFailed
from freshindex.manifest import Manifest, Pointer, VersionState
from indexer.schema import TABLES
from indexer.shard import sort_table
from storage import Store
from storage.base import sha256_hex
from storage.catalog import read_manifest, read_pointer


def cache_root() -> Path:
    return cache_dir("objects")


@dataclass
class IndexVersion:
    store: Store
    manifest: Manifest
    pointer: Pointer | None

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
        return [self._file(t.key, t.sha256) for t in self.manifest.tables if t.table == table]

    def read(
        self, table: str, where: ds.Expression | None = None, columns: Iterable[str] | None = None
    ) -> pa.Table:
        """Rows of a table across all shards, filtered with Parquet statistics."""
        files = self.files(table)
        if not files:
            return TABLES[table].empty_table()
        dataset = ds.dataset(files, schema=TABLES[table], format="parquet")
        return dataset.to_table(filter=where, columns=list(columns) if columns else None)

    def read_sorted(self, table: str) -> pa.Table:
        return sort_table(table, self.read(table))
