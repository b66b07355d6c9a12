"""Answering defs, refs and dump from a published version.

Pure over an IndexVersion: the CLI and the HTTP service add the freshness
envelope around what these return.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from freshindex.catalog.reader import IndexVersion
from freshindex.indexer import chains
from freshindex.indexer.schema import FACTS, ID_COLUMNS

DUMP_TABLES = ("symbols", "edges", "documents", "refs", "summaries", "tombstones")
# the name a call of a returned value is filed under (``make()()``, ``@d(x)``):
# which definition it reaches is known only when linked (indexer/flow_python.py)
RETURNED = chains.CALL
# Columns that carry identity rather than content: a full build cannot know
# the rename history an incremental one carried ids through.


def split_name(name: str) -> tuple[str, str | None]:
    """``Model.save`` -> ("save", "Model.save"); ``get_user`` -> ("get_user", None).

    ``::`` (Rust) and ``#`` (Java docs) are accepted as separators too."""
    norm = name.replace("::", ".").replace("#", ".").strip(".")
    if "." in norm:
        return norm.rsplit(".", 1)[1], norm
    return norm, None


def _qual_filter(t: pa.Table, column: str, qualified: str) -> pa.Table:
    q = t[column]
    mask = pc.or_(pc.equal(q, qualified), pc.ends_with(q, "." + qualified))
    return t.filter(mask)


def defs(version: IndexVersion, name: str) -> list[dict[str, Any]]:
    bare, qualified = split_name(name)
    t = version.lookup("symbols", "name", bare)
    if qualified:
        t = _qual_filter(t, "qualname", qualified)
    rows = sorted(t.to_pylist(), key=lambda r: (r["path"], r["start_line"], r["start_col"]))
    return [symbol_result(r, "index") for r in rows]


def refs(version: IndexVersion, name: str) -> list[dict[str, Any]]:
    """The references filed under a name (not the rows of FACTS: what a
    holder holds, what a header declares)."""
    bare, _qualified = split_name(name) if name != RETURNED else (name, None)
    return _references(version.lookup("edges", "target", bare).to_pylist())


def refs_any(version: IndexVersion, names: list[str]) -> dict[str, list[dict[str, Any]]]:
    """``refs`` of several bare names from one read: name -> its results."""
    out: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    for r in version.lookup_any("edges", "target", names).to_pylist():
        if r["target"] in out:
            out[r["target"]].append(r)
    return {n: _references(rows) for n, rows in out.items()}


def _references(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Edge rows as results, in file order, less the rows of FACTS."""
    kept = sorted(
        (r for r in rows if r["kind"] not in FACTS),
        key=lambda r: (r["path"], r["start_line"], r["start_col"]),
    )
    return [edge_result(r, "index") for r in kept]


def symbol_result(r: dict[str, Any], origin: str) -> dict[str, Any]:
    return {
        "path": r["path"],
        "name": r["name"],
        "kind": r["kind"],
        "startLine": r["start_line"],
        "startCol": r["start_col"],
        "endLine": r["end_line"],
        "endCol": r["end_col"],
        "origin": origin,
        "qualname": r["qualname"],
        "container": r["container"],
        "language": r["language"],
        "exported": r["exported"],
        "nameLine": r["name_line"],
        "nameCol": r["name_col"],
        "symbolId": r["symbol_id"],
    }


def edge_result(r: dict[str, Any], origin: str) -> dict[str, Any]:
    return {
        "path": r["path"],
        "name": r["target"],
        "kind": r["kind"],
        "startLine": r["start_line"],
        "startCol": r["start_col"],
        "endLine": r["end_line"],
        "endCol": r["end_col"],
        "origin": origin,
        "caller": r["source"],
        "module": r["module"],
        "resolvedPath": r["resolved_path"],
        "language": r["language"],
        # the claim its file's rules make; query/references.py links it
        "binding": r.get("binding") or "candidate",
        "via": r.get("via") or "",
        "targetQualname": r.get("target_qualname"),
        "alias": r.get("alias"),
    }


def dump_rows(version: IndexVersion, table: str, ids: bool = True) -> Iterator[dict[str, Any]]:
    """Every row of a table, in canonical order (stable across builds of one tree)."""
    t = version.read_sorted(table)
    if not ids:
        t = t.drop_columns([c for c in t.column_names if c in ID_COLUMNS])
    for batch in t.to_batches(max_chunksize=4096):
        yield from batch.to_pylist()
