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

    def load(entry: TableEntry) -> tuple[TableEntry, pa.Table]:
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
        return entry, t

    by_shard: dict[int, dict[str, pa.Table]] = {}
    totals: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for entry in tables:
        if entry.shard in trusted:
            totals[entry.table] += entry.rows
            for key, n in entry.stats.items():
                if key == "parsed":
                    totals["parsedDocuments"] += n
                else:
                    skipped[key.removeprefix("skipped:")] += n
    with ThreadPoolExecutor(max_workers=8) as pool:
        for entry, t in pool.map(load, [t for t in tables if t.shard not in trusted]):
            by_shard.setdefault(entry.shard, {})[entry.table] = t

    for shard, ts in sorted(by_shard.items()):
        docs = ts.get("documents")
        for name, t in ts.items():
            totals[name] += t.num_rows
        if docs is None:
            continue  # an inherited shard of an incremental build has been checked before
        parsed = pc.equal(docs["status"], str(DocStatus.PARSED))
        live_paths = set(pc.filter(docs["path"], parsed).to_pylist())
        totals["parsedDocuments"] += len(live_paths)
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
            stray = set(t["path"].to_pylist()) - live_paths
            if stray:
                raise _Invalid(
                    f"shard {shard}: {name} rows for {sorted(stray)[0]}, which is not a parsed document"
                )
        if (
            "edges" in ts
            and "refs" in ts
            and not sort_table("refs", ts["edges"]).equals(ts["refs"])
        ):
            raise _Invalid(f"shard {shard}: reverse index (refs) disagrees with edges")
        tomb = ts.get("tombstones")
        if tomb is not None and tomb.num_rows:
            if pc.any(pc.equal(pc.utf8_length(tomb["path"]), 0)).as_py():
                raise _Invalid(f"shard {shard}: tombstone with an empty path")
            alive = set(tomb["path"].to_pylist()) & set(docs["path"].to_pylist())
            if alive:
                raise _Invalid(
                    f"shard {shard}: tombstoned path {sorted(alive)[0]} still has live rows"
                )
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
