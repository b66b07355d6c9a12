"""The validation task: nothing is published that does not check out.

Checks, in order (the first failure is the reason):
1. every shard reported all its tables, once;
2. every table file in the store has the bytes (sha256) and row count reported;
3. documents rows equal the tree's entries; the symbols and edges counts
   equal the per-document counts the shard recorded;
4. every symbol and edge belongs to a parsed document of this version;
5. reverse edges: each shard's ``refs`` table equals its ``edges``, row for row,
   in reverse-index order (callers of X from edges == the stored reverse index);
6. tombstones are well-formed and no tombstoned path has live rows.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from freshindex.exceptions import NotFound
from freshindex.manifest import TableEntry
from indexer.schema import DocStatus
from indexer.shard import sort_table
from storage import Store
from storage.base import sha256_hex
from tasks.io import decode_parquet


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
    required: Iterable[str] = ("documents", "symbols", "edges", "refs"),
    trusted: frozenset[int] = frozenset(),
) -> ValidationReport:
    """``trusted`` shards are inherited unchanged from a parent version that
    passed this validation: their files are counted from the manifest entries,
    not re-read, so an update costs what changed, not what exists."""
    try:
        counts = _check(store, tables, shards, expected_documents, tuple(required), trusted)
    except _Invalid as err:
        return ValidationReport(False, str(err), {})
    return ValidationReport(True, None, counts)


def _check(
    store: Store,
    tables: list[TableEntry],
    shards: int,
    expected_documents: int,
    required: tuple[str, ...],
    trusted: frozenset[int],
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

    def check(shard: int) -> tuple[Counter[str], Counter[str]]:
        """Load one shard's files and check them: (row totals, skip reasons).
        Threads: reading, hashing, decoding and the Arrow kernels below release
        the GIL, so shards are checked in parallel."""
        ts = {e.table: load(e) for e in by_shard[shard]}
        return _check_shard(shard, ts)

    totals: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    by_shard: dict[int, list[TableEntry]] = {}
    for entry in tables:
        if entry.shard in trusted:
            totals[entry.table] += entry.rows
            for key, n in entry.stats.items():
                if key == "parsed":
                    totals["parsedDocuments"] += n
                else:
                    skipped[key.removeprefix("skipped:")] += n
        else:
            by_shard.setdefault(entry.shard, []).append(entry)
    workers = min(8, 2 * (os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # map: results (and the first failure) in shard order, as a serial check
        for shard_totals, shard_skipped in pool.map(check, sorted(by_shard)):
            totals.update(shard_totals)
            skipped.update(shard_skipped)

    if totals["documents"] != expected_documents:
        raise _Invalid(
            f"{totals['documents']} documents indexed, the tree has {expected_documents} entries"
        )
    return {
        "documents": totals["documents"],
        "symbols": totals["symbols"],
        "edges": totals["edges"],
        "tombstones": totals["tombstones"],
        "parsedDocuments": totals["parsedDocuments"],
        "skippedDocuments": dict(sorted(skipped.items())),
    }


def _check_shard(shard: int, ts: dict[str, pa.Table]) -> tuple[Counter[str], Counter[str]]:
    totals: Counter[str] = Counter({name: t.num_rows for name, t in ts.items()})
    skipped: Counter[str] = Counter()
    docs = ts.get("documents")
    if docs is None:
        return totals, skipped  # an inherited shard of an incremental build has been checked before
    parsed = pc.equal(docs["status"], str(DocStatus.PARSED))
    live = pc.unique(pc.filter(docs["path"], parsed))
    totals["parsedDocuments"] += len(live)
    skipped.update(r for r in pc.filter(docs["reason"], pc.invert(parsed)).to_pylist() if r)
    for name, column in (("symbols", "symbols"), ("edges", "edges")):
        t = ts.get(name)
        if t is None:
            continue
        declared = pc.sum(docs[column]).as_py() or 0
        if declared != t.num_rows:
            raise _Invalid(
                f"shard {shard}: {name} has {t.num_rows} rows, its documents declare {declared}"
            )
        paths = pc.unique(t["path"])
        stray = pc.filter(paths, pc.invert(pc.is_in(paths, value_set=live)))
        if len(stray):
            first = min(stray.to_pylist())
            raise _Invalid(
                f"shard {shard}: {name} rows for {first}, which is not a parsed document"
            )
    if "edges" in ts and "refs" in ts and not sort_table("refs", ts["edges"]).equals(ts["refs"]):
        raise _Invalid(f"shard {shard}: reverse index (refs) disagrees with edges")
    tomb = ts.get("tombstones")
    if tomb is not None and tomb.num_rows:
        if pc.any(pc.equal(pc.utf8_length(tomb["path"]), 0)).as_py():
            raise _Invalid(f"shard {shard}: tombstone with an empty path")
        alive = set(tomb["path"].to_pylist()) & set(docs["path"].to_pylist())
        if alive:
            raise _Invalid(f"shard {shard}: tombstoned path {sorted(alive)[0]} still has live rows")
    return totals, skipped
