"""Answering a query the way its freshness allows: the Answerer.

How an answer's freshness is decided is query/evaluation.py:

exact   — indexCommit == HEAD, clean worktree: the index alone.
overlay — HEAD or the worktree differs from the indexed commit (an ancestor,
          or a commit HEAD does not descend from: a feature branch), and the
          tree diff is within budget: index minus shadowed paths, plus the
          changed files parsed now (origin ``overlay``).
partial — over budget, a rebuild-forcing file (lockfile, workspace config)
          changed, or the overlay could not be built: a bounded direct read
          of the worktree for the named target (origin ``source``); lists are
          marked incomplete, never presented as "no callers".
stale   — freshness cannot be proven (the indexed commit is not in the
          repository, config or indexer changed, version fails verification):
          index rows as diagnostics only, marked incomplete.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from freshindex.indexer.bind_csharp import GLOBAL_USING
from freshindex.indexer.languages import C_HEADERS, READS_RECORDED, VALUES_RECORDED
from freshindex.indexer.schema import FACTS, ID_COLUMNS, SORT_KEYS
from freshindex.query import lookup as query
from freshindex.query import references, targets
from freshindex.query.answers import Definitions, References
from freshindex.query.include_rows import CRows
from freshindex.query.link import VARIABLE_KINDS, Linker, table_linker
from freshindex.query.view import RowView


@dataclass
class Answerer(RowView):
    """The view an answer's freshness chose (query/evaluation.py), with its
    envelope, and the linker over it."""

    overlay_seconds: float = 0.0

    @functools.cached_property
    def linker(self) -> Linker:
        """Links edges over this answer's view: overlay rows for a changed
        file, index rows for the rest (query/link.py)."""
        c = CRows(self.version, self.overlay)
        return Linker(
            self.symbols_now,
            self.edges_now,
            self.files_in,
            self.symbols_named,
            include_graph=c.include_graph,
            declared_in=c.declared_in,
            global_usings=functools.cache(
                lambda: self.edges_named(GLOBAL_USING) + self.project_usings()
            ),
        )

    def dump(self, table: str, ids: bool = True) -> list[dict[str, Any]]:
        """Every row of a table as the answer sees it, in canonical order.
        Edges are linked (query/link.py): ``binding`` and ``via`` are what
        this version proves, and ``target_symbol_id`` names the definition."""
        rows = self._rows_now(table)
        if table in ("edges", "refs"):
            documents = (str(d["path"]) for d in self._rows_now("documents"))
            linker = table_linker(self._rows_now("symbols"), rows, documents, self.project_usings())
            for r in rows:
                if r["kind"] in FACTS:  # a fact the linker reads, not a reference
                    continue
                link = linker.link(
                    r["binding"] or "candidate",
                    r["via"] or "",
                    r["resolved_path"],
                    r["target_qualname"],
                    called=r["target"] == query.RETURNED,
                    read=r["kind"] == "use",
                )
                r["binding"], r["via"] = link.binding, link.via
                r["target_symbol_id"] = link.symbol["symbol_id"] if link.symbol else None
        if not ids:
            for r in rows:
                for column in ID_COLUMNS:
                    r.pop(column, None)
        keys = SORT_KEYS[table]
        return sorted(rows, key=lambda r: tuple(r[k] for k in keys))

    def _rows_now(self, table: str) -> list[dict[str, Any]]:
        rows = list(query.dump_rows(self.version, table))
        if self.overlay is None or table not in ("symbols", "edges", "refs"):
            return rows
        kept = [r for r in rows if r["path"] not in self.overlay.shadowed]
        extra = self.overlay.symbols if table == "symbols" else self.overlay.edges
        return kept + [dict(r) for r in extra]


def query_doc(
    answerer: Answerer, kind: str, name: str | None, symbol_id: str | None = None
) -> Definitions | References:
    """The answer of ``defs``/``refs``: the envelope, results, completeness
    (query/answers.py).

    ``name`` is any target query/targets.py accepts; ``symbol_id`` names
    one definition by id instead."""
    doc = answerer.envelope.to_json()
    if kind == "defs":
        doc["results"] = answerer.attach_blobs(
            targets.definitions(answerer, answerer.linker, name, symbol_id)
        )
    else:
        found = references.references(answerer, answerer.linker, name, symbol_id)
        answerer.attach_blobs(found["results"])
        answerer.attach_blobs(found["definitions"])
        doc.update(found)
    # a partial or stale list is never presented as complete: "no callers" is
    # a claim only an exact or overlay answer can make
    doc["complete"] = doc["freshness"] in ("exact", "overlay")
    if kind == "refs":
        # calls of the name the binder could not follow (an unknown receiver,
        # dynamic dispatch): with none bound, the empty list proves nothing
        doc["boundCount"] = len(doc["bound"])
        doc["candidateCount"] = len(doc["candidates"])
        if not doc["bound"] and doc["unfollowedCalls"]:
            doc["complete"] = False
        unread = _unread_variables(doc["definitions"])
        if unread:
            doc["complete"] = False
            doc["reasons"] = [*doc["reasons"], unread]
        unpassed = "" if doc["bound"] or doc.get("dispatch") else _unpassed(doc["definitions"])
        if unpassed:  # "no reference" of a C callback is not "unused"
            doc["complete"] = False
            doc["reasons"] = [*doc["reasons"], unpassed]
        return References.of(doc)
    return Definitions.of(doc)


def _unpassed(definitions: list[dict[str, Any]]) -> str:
    """Why no bound reference to these functions is not "nothing uses
    them": in a language whose rows leave out a function used as a value
    (a C function another file passes as an argument, a Rust module's
    function passed as ``util::parse``), an
    empty list proves no more than that nothing calls them by name. "" if
    every definition is of a language that records such uses, or no
    function."""
    shared = [d for d in definitions if not _file_local(d)]
    what = _left_out(shared, _CALLABLE, VALUES_RECORDED)
    if not what:
        return ""
    return (
        f"no bound reference, and uses of {what} as a value (a function pointer, "
        "a method reference) are not indexed: it may still be used"
    )


_CALLABLE = frozenset({"function", "method"})


def _file_local(d: dict[str, Any]) -> bool:
    """A ``static`` C or C++ function of a source file: only its own file
    can name it, and that file's uses of it as a value are rows."""
    return (
        d.get("language") in ("c", "cpp")
        and d.get("kind") == "function"
        and not d.get("exported")
        and not str(d.get("path", "")).endswith(C_HEADERS)
    )


def _unread_variables(definitions: list[dict[str, Any]]) -> str:
    """Why a list of references to these definitions leaves reads out: a
    variable, constant, field or property of a language whose binder
    records calls, imports and bases but not reads (all but Python's). An
    empty list for a Kotlin property is not "nothing reads it". "" if none."""
    what = _left_out(definitions, VARIABLE_KINDS, READS_RECORDED)
    return f"reads of {what} are not indexed: the list holds its calls only" if what else ""


def _left_out(
    definitions: list[dict[str, Any]], kinds: frozenset[str], recorded: frozenset[str]
) -> str:
    """The definitions of ``kinds`` in languages outside ``recorded``, in
    words ("a c function, a java method"); "" if none."""
    found = sorted(
        {
            (d["kind"], d["language"])
            for d in definitions
            if d.get("kind") in kinds and d.get("language") not in recorded
        }
    )
    return ", ".join(f"a {language} {kind}" for kind, language in found)
