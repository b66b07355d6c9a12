"""A shard: which files belong to it, and the Arrow tables its files produce.

Pure: tree entries and blob bytes in, Arrow tables out. The task layer reads
the bytes from git and writes the tables to storage.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable

import pyarrow as pa
import pyarrow.compute as pc

from freshindex.core.tree import TreeEntry
from freshindex.indexer.config import IndexConfig
from freshindex.indexer.document import SNIFF_BYTES, TAIL_BYTES, classify, count_lines
from freshindex.indexer.extract import ParseBudgetExceeded, extract
from freshindex.indexer.resolve import Resolver
from freshindex.indexer.schema import SORT_KEYS, TABLES, DocStatus, SkipReason


def shard_of(path: str, shards: int) -> int:
    """Stable shard number of a path: the same on every machine and every run,
    so an incremental update rewrites exactly the shards its paths hash to."""
    digest = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shards


def partition(entries: Iterable[TreeEntry], shards: int) -> list[list[TreeEntry]]:
    out: list[list[TreeEntry]] = [[] for _ in range(shards)]
    for e in entries:
        out[shard_of(e.path, shards)].append(e)
    return out


def build_shard_tables(
    entries: list[TreeEntry],
    read_blob: Callable[[str], bytes],
    config: IndexConfig,
    resolve: Resolver | None,
    size_of: Callable[[str], int] | None = None,
) -> dict[str, pa.Table]:
    """Index every entry of one shard. Never raises for a file's content: a file
    that cannot be indexed becomes a skipped document with its reason, and
    one whose blob is not in the object database (``read_blob`` or
    ``size_of`` raise KeyError) is skipped as missing.
    ``size_of(oid)``: the size of an entry listed without one."""
    docs: list[tuple] = []
    symbols: list[tuple] = []
    edges: list[tuple] = []
    summaries: list[tuple] = []
    for e in sorted(entries, key=lambda x: x.path):
        try:
            if e.size < 0:
                # a submodule's commit is not in this repository: size 0
                size = 0 if e.mode == 0o160000 else _size(e.oid, read_blob, size_of)
                e = TreeEntry(e.path, e.oid, e.mode, size)
            needs_bytes = e.mode not in (0o120000, 0o160000) and e.size <= config.max_file_bytes
            data = read_blob(e.oid) if needs_bytes else b""
        except KeyError:  # read_blob's and size_of's word for an object not held
            docs.append(_missing(e))
            continue
        head = data[:SNIFF_BYTES]
        language, reason = classify(e.path, e.mode, e.size, head, config, data[-TAIL_BYTES:])
        n_sym = n_edge = 0
        if reason is None and language is not None:
            try:
                rows = extract(e.path, language, data, resolve, config.max_parse_work_factor, e.oid)
            except ParseBudgetExceeded:
                reason = SkipReason.PARSE_BUDGET
            else:
                symbols.extend(rows.symbols)
                edges.extend(rows.edges)
                summaries.extend(rows.summaries)
                n_sym, n_edge = len(rows.symbols), len(rows.edges)
        docs.append(
            (
                e.path,
                e.oid,
                e.mode,
                language,
                e.size,
                count_lines(data) if data else 0,
                str(DocStatus.SKIPPED if reason else DocStatus.PARSED),
                str(reason) if reason else None,
                n_sym,
                n_edge,
            )
        )
    tables = {
        "documents": rows_to_table("documents", docs),
        "symbols": rows_to_table("symbols", symbols),
        "edges": rows_to_table("edges", edges),
        "summaries": rows_to_table("summaries", summaries),
    }
    tables["refs"] = sort_table("refs", tables["edges"])
    return tables


def doc_counts(docs: pa.Table) -> Counter[str]:
    """What a set of document rows stands for: documents, their symbol, edge
    and summary rows, parsed documents and skips by reason ("skipped:<reason>")."""
    out: Counter[str] = Counter()
    if docs.num_rows == 0:
        return out
    out["documents"] = docs.num_rows
    for column in ("symbols", "edges"):
        out[column] = pc.sum(docs[column]).as_py() or 0
    out["summaries"] = out["symbols"]  # one per definition
    for status, reason in zip(docs["status"].to_pylist(), docs["reason"].to_pylist(), strict=True):
        out["parsed" if status == str(DocStatus.PARSED) else f"skipped:{reason}"] += 1
    return out


def _missing(e: TreeEntry) -> tuple:
    """The documents row of an entry whose blob is not held."""
    size = max(e.size, 0)
    return (
        e.path,
        e.oid,
        e.mode,
        None,
        size,
        0,
        str(DocStatus.SKIPPED),
        str(SkipReason.MISSING),
        0,
        0,
    )


def _size(oid: str, read_blob: Callable[[str], bytes], size_of: Callable[[str], int] | None) -> int:
    return size_of(oid) if size_of else len(read_blob(oid))


def rows_to_table(table: str, rows: list[tuple]) -> pa.Table:
    """A table of row tuples in the schema's column order, sorted. Arrow reads
    the tuples as structs itself, with no transposition into columns in
    Python first (which cost a shard of the kernel 2-4 % more)."""
    schema = TABLES[table]
    if not rows:
        return schema.empty_table()
    structs = pa.array(rows, type=pa.struct(list(schema)))
    return sort_table(table, pa.Table.from_struct_array(structs))


def sort_table(table: str, t: pa.Table) -> pa.Table:
    """The canonical order of a table: what dump prints and digests are taken over."""
    if t.num_rows == 0:
        return t
    idx = pc.sort_indices(t, sort_keys=[(k, "ascending") for k in SORT_KEYS[table]])
    return t.take(idx)


def empty_table(table: str) -> pa.Table:
    return TABLES[table].empty_table()
