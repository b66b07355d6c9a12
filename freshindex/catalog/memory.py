"""A loaded version's rows in memory, keyed for the lookups queries make.

A warm service (``serve``, ``mcp``) answers many queries from one version.
Reading Parquet per query (a dataset scan with a filter, per shard) cost
~100 ms of a warm ``refs`` at 4,000 files; a query needs only its own rows.
When a service loads a version it builds, once:

- ``symbols`` and ``edges`` as Arrow tables (every live row: bases less
  their masks, plus deltas, as ``TableSet.read`` gives them);
- for each key a query looks up by (a symbol's ``name``, ``path`` and
  ``symbol_id``; an edge's ``target`` and ``path``), the rows grouped by
  key: a dictionary from key to group number and the row numbers of each
  group in one Arrow array (compressed sparse rows), so a lookup is one
  dictionary access and one ``take``;
- each document's blob OID by path.

Built beside the version it replaces and swapped in whole (the service
assigns one object), so a query never sees a mix. Memory: the Arrow tables
plus one Python dictionary of distinct keys per lookup (names and paths,
not rows); ``bench_query.py`` reports the service's RSS.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from freshindex.catalog.reader import TableSet

# table -> the columns a query looks rows up by
KEYS: dict[str, tuple[str, ...]] = {
    "symbols": ("name", "path", "symbol_id"),
    "edges": ("target", "path"),
    "summaries": ("path",),
}


class _Grouped:
    """Row numbers of a table grouped by one column's value."""

    def __init__(self, column: pa.ChunkedArray):
        encoded = pc.dictionary_encode(column).combine_chunks()
        codes = encoded.indices
        values = encoded.dictionary.to_pylist()
        self.group = {v: i for i, v in enumerate(values)}
        # rows in code order (stable: a group keeps the table's order), and
        # where each code's run starts
        self.rows = pc.sort_indices(codes)
        counts = [0] * len(values)
        tally = pc.value_counts(codes)
        for code, n in zip(
            tally.field("values").to_pylist(), tally.field("counts").to_pylist(), strict=True
        ):
            if code is not None:
                counts[code] = n
        self.offsets = [0]
        for n in counts:
            self.offsets.append(self.offsets[-1] + n)

    def rows_of(self, value: Any) -> pa.Array | None:
        g = self.group.get(value)
        if g is None:
            return None
        return self.rows.slice(self.offsets[g], self.offsets[g + 1] - self.offsets[g])


class MemoryIndex:
    def __init__(self, tables: TableSet):
        self.tables: dict[str, pa.Table] = {}
        self.keys: dict[tuple[str, str], _Grouped] = {}
        for table, columns in KEYS.items():
            t = tables.read(table).combine_chunks()
            self.tables[table] = t
            for column in columns:
                self.keys[(table, column)] = _Grouped(t[column])
        docs = tables.read("documents", columns=["path", "blob"])
        self.blob = dict(zip(docs["path"].to_pylist(), docs["blob"].to_pylist(), strict=True))

    def rows(self, table: str, column: str, value: Any) -> pa.Table:
        """The rows of ``table`` whose ``column`` equals ``value``."""
        t = self.tables[table]
        found = self.keys[(table, column)].rows_of(value)
        return t.slice(0, 0) if found is None else t.take(found)

    def blobs(self, paths: Iterable[str]) -> dict[str, str]:
        return {p: self.blob[p] for p in paths if p in self.blob}

    @property
    def nbytes(self) -> int:
        return sum(t.nbytes for t in self.tables.values())
