"""A loaded version's rows in memory, keyed for the lookups queries make.

A warm service (``serve``, ``mcp``) answers many queries from one version.
Reading Parquet per query (a dataset scan with a filter, per shard) cost
~100 ms of a warm ``refs`` at 4,000 files; a query needs only its own rows.
When a service loads a version it builds, per shard, once:

- ``symbols``, ``edges`` and ``summaries`` as Arrow tables (every live row:
  the base less its masks, plus the delta, as ``TableSet.read`` gives them);
- for each key a query looks up by (a symbol's ``name``, ``path`` and
  ``symbol_id``; an edge's ``target`` and ``path``), the rows grouped by
  key: a dictionary from key to group number and the row numbers of each
  group in one Arrow array (compressed sparse rows), so a lookup is one
  dictionary access and one ``take`` per shard that has the key;
- each document's blob OID by path.

A shard whose table files are the same (key and digest) in the version
loaded before is taken from it as it is: after an update that rewrote a few
shards, only those are read and grouped again (the whole kernel's 5.9 M edge
rows are not). Built beside the version it replaces and swapped in whole
(the service assigns one object), so a query never sees a mix. Memory: the
Arrow tables plus one Python dictionary of distinct keys per lookup and
shard (names and paths, not rows); ``bench_query.py`` reports the service's
RSS.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from freshindex.indexer.schema import TABLES

if TYPE_CHECKING:
    from freshindex.catalog.manifest import TableEntry
    from freshindex.catalog.reader import TableSet

# table -> the columns a query looks rows up by
KEYS: dict[str, tuple[str, ...]] = {
    "symbols": ("name", "path", "symbol_id"),
    "edges": ("target", "path"),
    "summaries": ("path",),
}
# grouped on the first lookup, not at load: ids are asked for rarely, and
# their dictionary is the largest (one entry per symbol)
LAZY_KEYS = frozenset({("symbols", "symbol_id")})
# columns held dictionary-encoded in memory: few distinct values repeated
# over many rows (paths, kinds, the rule that bound an edge). Measured on
# the kernel: 1.1 GB of 2.6 GB of tables. Rows leave decoded (``plain``).
ENCODED: dict[str, tuple[str, ...]] = {
    "symbols": ("path", "container", "kind", "language"),
    "edges": (
        "path", "source", "module", "kind", "language", "resolved_path", "target_qualname",
        "binding", "via", "alias",
    ),
    "summaries": ("path", "blob", "kind", "language"),
}  # fmt: skip


def plain(table: str, rows: pa.Table) -> pa.Table:
    """Rows with the table's own column types (dictionary columns decoded)."""
    schema = pa.schema([TABLES[table].field(name) for name in rows.column_names])
    return rows.cast(schema)


class _Grouped:
    """Row numbers of a table grouped by one column's value."""

    def __init__(self, column: pa.ChunkedArray):
        encoded = pc.dictionary_encode(column).combine_chunks()
        codes = encoded.indices
        # interned: a name or path is one object in every shard's dictionary
        values = [sys.intern(v) for v in encoded.dictionary.to_pylist()]
        self.group = {v: i for i, v in enumerate(values)}
        # rows in code order (stable: a group keeps the table's order), as
        # 32-bit row numbers, and where each code's run starts, in a packed
        # array: on the kernel, Python lists and 64-bit numbers here cost
        # about 150 MB
        rows = pc.sort_indices(codes)
        self.rows = rows.cast(pa.uint32()) if len(rows) < 2**32 else rows
        counts = [0] * len(values)
        tally = pc.value_counts(codes)
        for code, n in zip(
            tally.field("values").to_pylist(), tally.field("counts").to_pylist(), strict=True
        ):
            if code is not None:
                counts[code] = n
        self.offsets = array("q", [0])
        total = 0
        for n in counts:
            total += n
            self.offsets.append(total)

    def rows_of(self, value: Any) -> pa.Array | None:
        g = self.group.get(value)
        if g is None:
            return None
        return self.rows.slice(self.offsets[g], self.offsets[g + 1] - self.offsets[g])


class _Part:
    """One shard's live rows and their groupings."""

    def __init__(self, tables: TableSet):
        self.tables: dict[str, pa.Table] = {}
        self.keys: dict[tuple[str, str], _Grouped] = {}
        for table, columns in KEYS.items():
            t = tables.read_whole(table).combine_chunks()
            for column in columns:
                if (table, column) not in LAZY_KEYS:
                    self.keys[(table, column)] = _Grouped(t[column])
            for column in ENCODED[table]:
                i = t.schema.get_field_index(column)
                t = t.set_column(i, column, pc.dictionary_encode(t[column]))
            self.tables[table] = t
        docs = tables.read_whole("documents", columns=["path", "blob"])
        self.blob = dict(zip(docs["path"].to_pylist(), docs["blob"].to_pylist(), strict=True))

    def rows(self, table: str, column: str, value: Any) -> pa.Table | None:
        grouped = self.keys.get((table, column))
        if grouped is None:
            grouped = self.keys[(table, column)] = _Grouped(self.tables[table][column])
        found = grouped.rows_of(value)
        return None if found is None else self.tables[table].take(found)


# what identifies a shard's rows: its table files, by key and digest
_Identity = tuple[tuple[str, str, str], ...]


class MemoryIndex:
    def __init__(self, tables: TableSet, previous: MemoryIndex | None = None):
        """``previous``: the index of the version loaded before, whose
        shards with the same files are reused."""
        from freshindex.catalog.reader import TableSet

        by_shard: dict[int, list[TableEntry]] = {}
        for entry in tables.tables:
            by_shard.setdefault(entry.shard, []).append(entry)
        before = previous.parts if previous is not None else {}
        self.parts: dict[_Identity, _Part] = {}
        self.reused = 0
        for _shard, entries in sorted(by_shard.items()):
            identity = tuple(sorted((e.table, e.key, e.sha256) for e in entries))
            part = before.get(identity)
            if part is None:
                part = _Part(TableSet(tables.store, entries))
            else:
                self.reused += 1
            self.parts[identity] = part
        self.blob: dict[str, str] = {}
        for part in self.parts.values():
            self.blob.update(part.blob)
        self.tables = _Concatenated(list(self.parts.values()))

    def rows(self, table: str, column: str, value: Any) -> pa.Table:
        """The rows of ``table`` whose ``column`` equals ``value``."""
        found = [
            t for part in self.parts.values() if (t := part.rows(table, column, value)) is not None
        ]
        if not found:
            return self.tables.empty(table)
        return plain(table, found[0] if len(found) == 1 else pa.concat_tables(found))

    def blobs(self, paths: Iterable[str]) -> dict[str, str]:
        return {p: self.blob[p] for p in paths if p in self.blob}

    @property
    def nbytes(self) -> int:
        return sum(t.nbytes for part in self.parts.values() for t in part.tables.values())


class _Concatenated:
    """Every shard's rows of a table as one table (zero-copy, made once per
    table when a query scans a whole table)."""

    def __init__(self, parts: list[_Part]):
        self._parts = parts
        self._made: dict[str, pa.Table] = {}

    def __contains__(self, table: object) -> bool:
        return table in KEYS

    def __getitem__(self, table: str) -> pa.Table:
        found = self._made.get(table)
        if found is None:
            shards = [p.tables[table] for p in self._parts]
            found = pa.concat_tables(shards) if shards else TABLES[table].empty_table()
            self._made[table] = found
        return found

    def empty(self, table: str) -> pa.Table:
        return TABLES[table].empty_table()
