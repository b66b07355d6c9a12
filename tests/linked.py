"""Rows of a few in-memory files, extracted and linked as a query would see
them, with no build: the binder and linker tests read these."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from freshindex.indexer.extract import extract
from freshindex.indexer.resolve import PathIndex, wanted
from freshindex.indexer.schema import EDGES, SYMBOLS
from freshindex.query.link import Linker, table_linker
from freshindex.query.lookup import RETURNED

Row = dict[str, Any]


def rows_of(files: dict[str, str | bytes], language: str = "python") -> tuple[list[Row], list[Row]]:
    manifests = {p: _bytes(t) for p, t in files.items() if wanted(p)}
    paths = PathIndex.of_tree(list(files), {}, (), None, manifests)
    symbols: list[Row] = []
    edges: list[Row] = []
    for path, text in files.items():
        if path in manifests:  # read by the path index, not extracted
            continue
        rows = extract(path, language, _bytes(text), paths)
        symbols += [dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols]
        edges += [dict(zip(EDGES.names, r, strict=True)) for r in rows.edges]
    return symbols, edges


def _bytes(text: str | bytes) -> bytes:
    return text.encode() if isinstance(text, str) else text


def linked(files: dict[str, str | bytes], language: str = "python") -> Iterator[tuple[Row, Any]]:
    """Each edge with what the linker makes of its claim (a query.link.Link)."""
    symbols, edges = rows_of(files, language)
    linker = table_linker(symbols, edges)
    for e in edges:
        read = e["kind"] == "use"
        yield (
            e,
            linker.link(
                e["binding"], e["via"], e["resolved_path"], e["target_qualname"], read=read
            ),
        )


def bound_calls(
    files: dict[str, str | bytes], language: str = "python"
) -> Iterator[tuple[Row, list[Row], Linker]]:
    """Each call edge linked as bound, with every definition it may reach."""
    symbols, edges = rows_of(files, language)
    linker = table_linker(symbols, edges)
    for e in edges:
        if e["kind"] != "call":
            continue
        called = e["target"] == RETURNED
        link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"], called)
        if link.binding == "bound" and link.symbol is not None:
            yield e, [link.symbol, *link.others], linker


def call_graph(
    files: dict[str, str | bytes], main: str = "m.py", language: str = "python"
) -> set[str]:
    """Every bound call edge, as ``caller -> callee``: qualnames, prefixed
    with ``path::`` outside ``main``; ``<module>`` for module-level code."""
    out = set()
    for e, reached, _linker in bound_calls(files, language):
        caller = e["source"] or "<module>"
        if e["path"] != main:
            caller = f"{e['path']}::{caller}"
        for row in reached:
            callee = row["qualname"] if row["path"] == main else f"{row['path']}::{row['qualname']}"
            out.add(f"{caller} -> {callee}")
    return out
