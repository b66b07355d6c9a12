"""Reading a published version: pointer -> manifest -> Parquet tables.

Only a version whose state is ``complete`` and whose manifest digest checks
may serve queries, and only while its table files check out:

- before it serves, every table file must exist with the size its manifest
  gives;
- every answer checks every file's content (``TableSet.verified``): a stat
  per file while nothing changed, a hash when it did (catalog/integrity.py);
- a version loaded into memory (``in_memory``, the warm service) answers
  from rows read from files that were checked as they were read; a file it
  reads later is checked then. Its answers do not stat every file again
  (640 stats, 3.8 ms of a 4.6 ms warm ``status`` at 4,000 files); damage to
  the store under a running service shows on ``/healthz`` and ``verify``.

S3 table files are fetched once into a content-addressed local cache (keyed
and checked by sha256), so repeated queries read local files.
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from freshindex.catalog.integrity import local_file_problem, missing_or_resized
from freshindex.catalog.layout import read_manifest, read_pointer
from freshindex.catalog.manifest import Manifest, Pointer, TableEntry, VersionState
from freshindex.catalog.memory import MemoryIndex, plain
from freshindex.core.exceptions import NoPublishedVersion, NotFound, VerificationFailed
from freshindex.indexer.schema import BASE_TABLES, TABLES, delta_of
from freshindex.indexer.shard import shard_of, sort_table
from freshindex.process.cache import cache_dir
from freshindex.storage import Store


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

    @functools.cached_property
    def _local_paths(self) -> dict[str, str | None]:
        """Each table file's path in a local store (None in S3), made once:
        every answer checks every file (verified)."""
        return {t.key: self.store.local_path(t.key) for t in self.tables}

    def _file(self, entry: TableEntry) -> str:
        """A local path of the table file, its digest checked (once per process)."""
        local = self._local_paths.get(entry.key) or self.store.local_path(entry.key)
        if local is not None:
            problem = local_file_problem(entry, local)
            if problem:
                raise VerificationFailed(problem)
            return local
        path = cache_root() / entry.sha256[:2] / f"{entry.sha256}.parquet"
        if path.exists():
            return str(path)  # content-addressed: checked when it was fetched
        try:
            data = self.store.get(entry.key).data
        except NotFound as err:
            raise VerificationFailed(f"table file {entry.key} is missing") from err
        mismatch = entry.mismatch(data)
        if mismatch:
            raise VerificationFailed(mismatch)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return str(path)

    def files(self, table: str) -> list[str]:
        return [self._file(t) for t in self.tables if t.table == table]

    def check_present(self) -> None:
        """Every table file exists with its manifest's size (VerificationFailed
        otherwise): one listing per version folder the tables live in."""
        problems = missing_or_resized(self.store, self.tables)
        if problems:
            raise VerificationFailed(problems[0])

    def verified(self) -> None:
        """Check every table file against the manifest: a local one hashed
        only when its stat changed, a fetched one when it is fetched."""
        for t in self.tables:
            self._file(t)

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

    def read_whole(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """Every live row of a table, each file read whole (no dataset, no
        filter pushed down): for a few small files, such as one shard's,
        several times faster than ``read``."""
        parts = [_whole(f, columns) for f in self.files(table)]
        if table in BASE_TABLES and parts and len(self.masked):
            parts = [t.filter(pc.invert(pc.is_in(t["path"], self.masked))) for t in parts]
        if table in BASE_TABLES:
            parts += [_whole(f, columns) for f in self.files(delta_of(table))]
        if not parts:
            empty = TABLES[table].empty_table()
            return empty.select(columns) if columns else empty
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts)

    def read_sorted(self, table: str) -> pa.Table:
        return sort_table(table, self.read(table))


class IndexVersion(TableSet):
    """A published version: its manifest, checked, and its tables."""

    def __init__(self, store: Store, manifest: Manifest, pointer: Pointer | None):
        super().__init__(store, manifest.tables)
        self.manifest = manifest
        self.pointer = pointer
        self.memory: MemoryIndex | None = None

    def verified(self) -> None:
        if self.memory is None:
            super().verified()
        # else: the rows in memory came from files checked as they were read

    def in_memory(self, previous: IndexVersion | None = None) -> IndexVersion:
        """Load the rows queries look up into memory (catalog/memory.py): for a
        warm service; a one-shot CLI query reads only what it needs.
        ``previous``: the version loaded before, whose unchanged shards are
        taken as they are."""
        if self.memory is None:
            self.memory = MemoryIndex(self, previous.memory if previous is not None else None)
        return self

    def select(
        self, table: str, where: ds.Expression, columns: list[str] | None = None
    ) -> pa.Table:
        """Rows of a table matching an expression: filtered in memory when loaded."""
        if self.memory is not None and table in self.memory.tables:
            t = self.memory.tables[table].filter(where)
            return plain(table, t.select(columns) if columns else t)
        return self.read(table, where=where, columns=columns)

    def lookup(self, table: str, column: str, value: str) -> pa.Table:
        """Rows of ``symbols``, ``edges`` or ``summaries`` whose ``column``
        equals ``value``: from memory when loaded, else from Parquet (a path
        reads only its shard; an edge target reads the ``refs`` reverse
        index, sorted by target, so row groups are skipped)."""
        if self.memory is not None:
            return self.memory.rows(table, column, value)
        where = ds.field(column) == value
        if column == "path":
            return self._shards_of([value]).read(table, where=where)
        return self._matching(table, column, where)

    def lookup_any(self, table: str, column: str, values: list[str]) -> pa.Table:
        """``lookup`` of several values in one read of the Parquet files: a cold
        query that asks for hundreds of names (the classes whose calls run a
        constructor) reads the table once, not once per name."""
        return self._matching(table, column, ds.field(column).isin(values))

    def _matching(self, table: str, column: str, where: ds.Expression) -> pa.Table:
        """Rows matching a filter on a column other than ``path``: an edge
        target from the ``refs`` reverse index, sorted by target."""
        if table == "edges" and column == "target":
            return self.read("refs", where=where)
        return self.read(table, where=where)

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
        loaded = cls(store, manifest, pointer)
        loaded.check_present()
        return loaded

    def _shards_of(self, paths: Iterable[str]) -> TableSet:
        """The tables of the shards ``paths`` hash to (a path lives in one)."""
        mine = {shard_of(p, self.manifest.shards) for p in paths}
        return TableSet(self.store, [t for t in self.tables if t.shard in mine])

    def rows_of(self, table: str, path: str) -> list[dict[str, Any]]:
        """One file's rows of a table."""
        return self.lookup(table, "path", path).to_pylist()

    def symbols_of(self, path: str) -> list[dict[str, Any]]:
        return self.rows_of("symbols", path)

    def edges_of(self, path: str) -> list[dict[str, Any]]:
        return self.rows_of("edges", path)

    @functools.cached_property
    def _folders(self) -> dict[str, list[str]]:
        """folder -> the documents directly in it (made when first asked)."""
        if self.memory is not None:
            paths: Iterable[str] = self.memory.blob
        else:
            paths = self.read("documents", columns=["path"])["path"].to_pylist()
        folders: dict[str, list[str]] = {}
        for path in paths:
            folders.setdefault(posixpath.dirname(path), []).append(path)
        return folders

    def paths_ending(self, suffix: str | tuple[str, ...]) -> list[str]:
        """Every document whose path ends with ``suffix`` (or one of them: C#'s
        project files)."""
        return sorted(p for paths in self._folders.values() for p in paths if p.endswith(suffix))

    def paths_in(self, folder: str) -> list[str]:
        """The documents directly in ``folder`` ("" for the root): a Go package."""
        return self._folders.get(folder, [])

    def blobs(self, paths: Iterable[str]) -> dict[str, str]:
        """path -> blob OID from the documents table, reading only the shards
        the paths hash to (every shard of a version has one documents file)."""
        wanted = sorted(set(paths))
        if not wanted:
            return {}
        if self.memory is not None:
            return self.memory.blobs(wanted)
        found = self._shards_of(wanted).read(
            "documents", where=ds.field("path").isin(wanted), columns=["path", "blob"]
        )
        return dict(zip(found["path"].to_pylist(), found["blob"].to_pylist(), strict=True))


def _whole(path: str, columns: list[str] | None) -> pa.Table:
    return pq.ParquetFile(path).read(columns=columns, use_threads=False)
