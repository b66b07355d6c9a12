"""The validation task: nothing is published that does not check out.

Checks, in order (the first failure is the reason):
1. every shard reported all its tables, once;
2. every table file in the store has the bytes (sha256) and row count reported;
3. documents rows equal the tree's entries; the symbols and edges counts
   equal the per-document counts the shard recorded, and there is one
   summary per symbol;
4. every symbol, edge and summary belongs to a parsed document of this version;
5. reverse edges: each shard's ``refs`` table equals its ``edges``, row for row,
   in reverse-index order (callers of X from edges == the stored reverse index);
6. tombstones are well-formed and no tombstoned path has live rows;
7. a shard with a delta (indexer/schema.py) has all of it; its masks name
   base paths only and declare the counts they hide; no path is live in both
   its base and its delta; the delta passes checks 3-5 on its own.

Files inherited byte for byte from a parent version that passed these checks
(``trusted``) are counted from their manifest entries, not re-read.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from freshindex.catalog.manifest import TableEntry, live_counts
from freshindex.core.exceptions import NotFound
from freshindex.indexer.schema import BASE_TABLES, DELTA_TABLES, DocStatus
from freshindex.indexer.shard import doc_counts, sort_table
from freshindex.storage import Store
from freshindex.storage.base import sha256_hex
from freshindex.tasks.tables import decode_parquet


@dataclass(frozen=True)
class ValidationReport:
    ok: bool
    reason: str | None
    counts: dict[str, object]


class _Invalid(Exception):
    pass


def validate_tables(
    store: Store,
    tables: list[TableEntry],
    shards: int,
    expected_documents: int,
    required: Iterable[str] = BASE_TABLES,
    trusted: frozenset[tuple[str, str]] = frozenset(),
) -> ValidationReport:
    """``trusted``: (key, sha256) of files inherited unchanged from a parent version
    that passed this validation. A shard made of trusted files only is counted
    from its manifest entries, so an update costs what changed, not what exists."""
    try:
        counts = _check(store, tables, shards, expected_documents, tuple(required), trusted)
    except _Invalid as err:
        return ValidationReport(False, str(err), {})
    return ValidationReport(True, None, counts)


LAYER_TABLES = (*DELTA_TABLES, "masks")


def _check(
    store: Store,
    tables: list[TableEntry],
    shards: int,
    expected_documents: int,
    required: tuple[str, ...],
    trusted: frozenset[tuple[str, str]],
) -> dict[str, object]:
    seen = Counter((t.shard, t.table) for t in tables)
    dupes = [k for k, n in seen.items() if n > 1]
    if dupes:
        raise _Invalid(f"shard {dupes[0][0]} reported table {dupes[0][1]} twice")
    missing = [(s, t) for s in range(shards) for t in required if (s, t) not in seen]
    if missing:
        raise _Invalid(
            f"{len(missing)} shard table(s) missing, first: shard {missing[0][0]} {missing[0][1]}"
        )
    by_shard: dict[int, dict[str, TableEntry]] = {}
    for entry in tables:
        by_shard.setdefault(entry.shard, {})[entry.table] = entry
    for shard, entries in sorted(by_shard.items()):
        layers = [t for t in LAYER_TABLES if t in entries]
        if layers and len(layers) != len(LAYER_TABLES):
            absent = next(t for t in LAYER_TABLES if t not in entries)
            raise _Invalid(f"shard {shard} has a partial delta: no {absent} table")

    def load(entry: TableEntry) -> pa.Table:
        try:
            data = store.get(entry.key).data
        except NotFound as err:
            raise _Invalid(f"table file {entry.key} is missing from the store") from err
        if sha256_hex(data) != entry.sha256:
            raise _Invalid(f"table file {entry.key} does not match its sha256")
        t = decode_parquet(data)
        if t.num_rows != entry.rows:
            raise _Invalid(
                f"table file {entry.key} has {t.num_rows} rows, manifest says {entry.rows}"
            )
        return t

    def check(shard: int) -> Counter[str]:
        """Load one shard's files and check them. Threads: reading, hashing,
        decoding and the Arrow kernels below release the GIL, so shards are
        checked in parallel."""
        entries = by_shard[shard]
        # a delta is checked against its base's documents (a small file)
        wanted = {"documents", "delta-documents", "masks"}
        ts = {
            name: load(e)
            for name, e in entries.items()
            if (e.key, e.sha256) not in trusted or name in wanted
        }
        return _check_shard(shard, entries, ts)

    totals: Counter[str] = Counter()
    to_check = []
    for shard, entries in by_shard.items():
        if all((e.key, e.sha256) in trusted for e in entries.values()):
            totals.update(live_counts(entries.values()))
        else:
            to_check.append(shard)
    workers = min(8, 2 * (os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # map: results (and the first failure) in shard order, as a serial check
        for shard_totals in pool.map(check, sorted(to_check)):
            totals.update(shard_totals)

    if totals["documents"] != expected_documents:
        raise _Invalid(
            f"{totals['documents']} documents indexed, the tree has {expected_documents} entries"
        )
    skipped = {
        k.removeprefix("skipped:"): n for k, n in totals.items() if k.startswith("skipped:") and n
    }
    return {
        "documents": totals["documents"],
        "symbols": totals["symbols"],
        "edges": totals["edges"],
        "summaries": totals["summaries"],
        "tombstones": totals["tombstones"],
        "parsedDocuments": totals["parsed"],
        "skippedDocuments": dict(sorted(skipped.items())),
    }


def _check_rows(
    shard: int,
    docs: pa.Table,
    ts: dict[str, pa.Table],
    entries: dict[str, TableEntry],
    prefix: str,
) -> None:
    """Checks 3-5 for one layer (base, or the delta with prefix "delta-")."""
    parsed = pc.equal(docs["status"], str(DocStatus.PARSED))
    live = pc.unique(pc.filter(docs["path"], parsed))
    # one summary per symbol: the documents' symbol counts declare both
    for column, declared_by in (
        ("symbols", "symbols"),
        ("edges", "edges"),
        ("summaries", "symbols"),
    ):
        name = prefix + column
        t = ts.get(name)
        rows = t.num_rows if t is not None else entries[name].rows
        declared = pc.sum(docs[declared_by]).as_py() or 0
        if declared != rows:
            raise _Invalid(
                f"shard {shard}: {name} has {rows} rows, its documents declare {declared}"
            )
        if t is None:
            continue  # trusted: checked when its version was published
        paths = pc.unique(t["path"])
        stray = pc.filter(paths, pc.invert(pc.is_in(paths, value_set=live)))
        if len(stray):
            first = min(stray.to_pylist())
            raise _Invalid(
                f"shard {shard}: {name} rows for {first}, which is not a parsed document"
            )
    edges, refs = ts.get(prefix + "edges"), ts.get(prefix + "refs")
    if edges is not None and refs is not None and not sort_table("refs", edges).equals(refs):
        raise _Invalid(f"shard {shard}: reverse index ({prefix}refs) disagrees with {prefix}edges")


def _check_shard(
    shard: int, entries: dict[str, TableEntry], ts: dict[str, pa.Table]
) -> Counter[str]:
    docs = ts["documents"]
    _check_rows(shard, docs, ts, entries, "")
    live_docs = docs
    totals = doc_counts(docs)
    if "masks" in ts:
        delta_docs, masks = ts["delta-documents"], ts["masks"]
        _check_rows(shard, delta_docs, ts, entries, "delta-")
        masked = pc.is_in(docs["path"], value_set=masks["path"])
        hidden = pc.sum(masked).as_py() or 0
        if hidden != masks.num_rows:
            raise _Invalid(f"shard {shard}: masks name paths its base documents do not have")
        hidden_counts = doc_counts(docs.filter(masked))
        declared = Counter({k: n for k, n in entries["masks"].stats.items() if n})
        if +hidden_counts != declared:
            raise _Invalid(f"shard {shard}: masks declare other counts than the rows they hide")
        live_docs = docs.filter(pc.invert(masked))
        both = pc.is_in(delta_docs["path"], value_set=live_docs["path"])
        if pc.any(both).as_py():
            first = min(pc.filter(delta_docs["path"], both).to_pylist())
            raise _Invalid(f"shard {shard}: {first} is live in both its base and its delta")
        totals.subtract(hidden_counts)
        totals.update(doc_counts(delta_docs))
        live_docs = pa.concat_tables([live_docs, delta_docs])
    tomb = ts.get("tombstones")
    if tomb is not None and tomb.num_rows:
        totals["tombstones"] += tomb.num_rows
        if pc.any(pc.equal(pc.utf8_length(tomb["path"]), 0)).as_py():
            raise _Invalid(f"shard {shard}: tombstone with an empty path")
        alive = set(tomb["path"].to_pylist()) & set(live_docs["path"].to_pylist())
        if alive:
            raise _Invalid(f"shard {shard}: tombstoned path {sorted(alive)[0]} still has live rows")
    return totals
