"""The rows an answer sees: the index's, minus the files the overlay shadows,
plus the overlay's; or, for a partial answer, what a bounded read of the
worktree finds. Reference grouping (query/references.py) and context
expansion read rows through this view and never call back into the
Answerer that chose it (query/answer.py)."""

from __future__ import annotations

import difflib
import functools
import posixpath
from dataclasses import dataclass
from typing import Any

import pygit2

from freshindex.catalog.reader import IndexVersion
from freshindex.core.exceptions import PathRefused
from freshindex.indexer import msbuild
from freshindex.indexer.config import IndexConfig
from freshindex.indexer.document import SNIFF_BYTES, TAIL_BYTES, classify
from freshindex.indexer.extract import ParseBudgetExceeded, extract
from freshindex.indexer.schema import EDGES, FACTS, SYMBOLS
from freshindex.query import lookup as query
from freshindex.query.freshness import Envelope, Freshness
from freshindex.query.guard import WorktreeGuard
from freshindex.query.overlay import Overlay, worktree_index
from freshindex.query.worktree import WorktreeState

# A partial answer reads at most this many candidate files (those whose bytes
# contain the name), so an over-budget query stays bounded on a large repo.
SOURCE_SCAN_MAX_FILES = 2000


@dataclass
class RowView:
    repo: pygit2.Repository
    version: IndexVersion
    envelope: Envelope
    overlay: Overlay | None
    config: IndexConfig
    wt: WorktreeState

    @functools.cached_property
    def guard(self) -> WorktreeGuard:
        """The gate of every worktree read an answer makes (query/guard.py)."""
        return WorktreeGuard.of(self.repo, self.config)

    @property
    def freshness(self) -> Freshness:
        return self.envelope.freshness

    def defs(self, name: str) -> list[dict[str, Any]]:
        if self.freshness == Freshness.PARTIAL:
            return self._source_scan(name, "defs")
        results = query.defs(self.version, name)
        if self.overlay is None:
            return results
        bare, qualified = query.split_name(name)
        return self._with_overlay(
            results,
            [
                query.symbol_result(s, "overlay")
                for s in self.overlay.symbols
                if s["name"] == bare
                and (
                    not qualified
                    or s["qualname"] == qualified
                    or str(s["qualname"]).endswith("." + qualified)
                )
            ],
        )

    @functools.cached_property
    def _prefetched(self) -> dict[str, list[dict[str, Any]]]:
        return {}  # bare name -> the index's refs results, read ahead by prefetch_refs

    def prefetch_refs(self, names: list[str]) -> None:
        """Read the index's references of many bare names at once, for the
        ``refs`` calls that follow (a cold read per name costs a pass over
        every shard's file); nothing to do when the rows are in memory."""
        if self.freshness == Freshness.PARTIAL or self.version.memory is not None:
            return
        wanted = sorted({n for n in names if n not in self._prefetched})
        if len(wanted) > 1:
            self._prefetched.update(query.refs_any(self.version, wanted))

    def refs(self, name: str) -> list[dict[str, Any]]:
        if self.freshness == Freshness.PARTIAL:
            return self._source_scan(name, "refs")
        ahead = self._prefetched.get(name)
        # copies: a caller links its rows in place
        results = [dict(r) for r in ahead] if ahead is not None else query.refs(self.version, name)
        if self.overlay is None:
            return results
        bare, _ = query.split_name(name)
        return self._with_overlay(
            results,
            [
                query.edge_result(e, "overlay")
                for e in self.overlay.edges
                if e["target"] == bare and e["kind"] not in FACTS
            ],
        )

    def _with_overlay(
        self, indexed: list[dict[str, Any]], parsed_now: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Index results less the files the overlay shadows, plus the
        overlay's own, in file order."""
        assert self.overlay is not None
        kept = [r for r in indexed if r["path"] not in self.overlay.shadowed] + parsed_now
        return sorted(kept, key=lambda r: (r["path"], r["startLine"], r["startCol"]))

    def rows_now(self, table: str, path: str) -> list[dict[str, Any]]:
        """A file's ``symbols``, ``edges`` or ``summaries`` rows as the answer
        sees it: the overlay's for a changed file (none if deleted), else the index's."""
        if self.overlay is not None and path in self.overlay.shadowed:
            rows: list[dict[str, Any]] = getattr(self.overlay, table)
            return [r for r in rows if r["path"] == path]
        return self.version.rows_of(table, path)

    def origin_of(self, path: str) -> str:
        return "overlay" if self.overlay is not None and path in self.overlay.shadowed else "index"

    def files_in(self, folder: str) -> list[str]:
        """The files directly in ``folder`` as the answer sees them (a file
        the overlay deleted is listed and has no rows)."""
        files = set(self.version.paths_in(folder))
        if self.overlay is not None:
            files.update(
                str(d["path"])
                for d in self.overlay.documents
                if posixpath.dirname(str(d["path"])) == folder
            )
        return sorted(files)

    def symbols_named(self, name: str) -> list[dict[str, Any]]:
        """Every definition of a name as the answer sees it (for C linkage)."""
        return self._named("symbols", "name", name)

    def edges_named(self, target: str) -> list[dict[str, Any]]:
        """Every edge row filed under a target as the answer sees it (C#'s
        ``global using`` rows, for the linker)."""
        return self._named("edges", "target", target)

    def project_usings(self) -> list[dict[str, Any]]:
        """The global using rows of the C# project files as the answer sees
        them (indexer/msbuild.py): the blob this version recorded, or for a
        file the overlay shadows, the worktree's (none if deleted)."""
        shadowed = self.overlay.shadowed if self.overlay is not None else set()
        out: list[dict[str, Any]] = []
        ending = (msbuild.PROJECT_SUFFIX, *msbuild.SHARED_FILES)
        indexed = [p for p in self.version.paths_ending(ending) if msbuild.is_project_file(p)]
        for path, oid in sorted(
            self.version.blobs(p for p in indexed if p not in shadowed).items()
        ):
            try:
                blob = self.repo[oid]
            except (KeyError, ValueError):
                continue  # an object this clone does not have: the project's usings are unread
            if isinstance(blob, pygit2.Blob):
                out += msbuild.project_usings(path, blob.data)
        for path in sorted(p for p in shadowed if msbuild.is_project_file(p)):
            try:
                out += msbuild.project_usings(path, self.guard.read_bytes(path))
            except (OSError, PathRefused):
                continue  # deleted, or not to be read
        return out

    def _named(self, table: str, column: str, value: str) -> list[dict[str, Any]]:
        shadowed = self.overlay.shadowed if self.overlay is not None else set()
        rows = [
            r
            for r in self.version.lookup(table, column, value).to_pylist()
            if r["path"] not in shadowed
        ]
        if self.overlay is not None:
            rows += [r for r in getattr(self.overlay, table) if r[column] == value]
        return rows

    def symbols_now(self, path: str) -> list[dict[str, Any]]:
        return self.rows_now("symbols", path)

    def edges_now(self, path: str) -> list[dict[str, Any]]:
        return self.rows_now("edges", path)

    def edges_in(self, path: str) -> list[dict[str, Any]]:
        """Every edge of one file as it is now, as results."""
        shadowed = self.overlay is not None and path in self.overlay.shadowed
        return [
            query.edge_result(e, "overlay" if shadowed else "index")
            for e in self.edges_now(path)
            if e["kind"] not in FACTS
        ]

    def attach_blobs(self, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Give each result its ``blob``: the git OID of the bytes its lines were
        computed from. An index row's file is unchanged since the indexed
        commit (a changed one is shadowed), so its documents row names it; an
        overlay or source row carries the hash of what was parsed now."""
        need = {r["path"] for r in results if r.get("origin") == "index"}
        blobs = self.version.blobs(need) if need else {}
        parsed = {d["path"]: d.get("blob") for d in self.overlay.documents} if self.overlay else {}
        for r in results:
            if r.get("origin") == "index":
                r["blob"] = blobs.get(r["path"])
            elif r.get("origin") == "overlay":
                r["blob"] = parsed.get(r["path"])
        return results

    def symbol_at(self, path: str, line: int) -> dict[str, Any] | None:
        """The innermost definition whose span holds ``line`` of ``path`` as
        it is now (overlay rows for a changed file, index rows otherwise)."""
        rows: list[dict[str, Any]]
        if self.overlay is not None and path in self.overlay.shadowed:
            rows = [s for s in self.overlay.symbols if s["path"] == path]
        elif self.freshness in (Freshness.EXACT, Freshness.OVERLAY):
            rows = self.version.symbols_of(path)
        else:  # the index's lines may not be the worktree's: the file parsed now
            rows = self._parsed_now(path)
        holding = [r for r in rows if r["start_line"] <= line <= r["end_line"]]
        if not holding:
            return None
        return min(holding, key=lambda r: r["end_line"] - r["start_line"])

    def _parsed_now(self, path: str) -> list[dict[str, Any]]:
        """A file's definitions as the worktree holds it now (a partial or
        stale answer's own reading of one file); [] when it cannot be read."""
        data = worktree_bytes(self.repo, self.config, path)
        if data is None:
            return []
        language, reason = classify(
            path, 0o100644, len(data), data[:SNIFF_BYTES], self.config, data[-TAIL_BYTES:]
        )
        if reason is not None or language is None:
            return []
        try:
            rows = extract(path, language, data, None, self.config.max_parse_work_factor)
        except ParseBudgetExceeded:
            return []
        return [dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols]

    def _source_scan(self, name: str, kind: str) -> list[dict[str, Any]]:
        """Direct reads of worktree files that contain the name (bounded)."""
        bare, qualified = query.split_name(name)
        needle = bare.encode()
        out: list[dict[str, Any]] = []
        read = 0
        for path in worktree_index(self.repo, self.wt, self.config.include_paths)[0]:
            if read >= SOURCE_SCAN_MAX_FILES:
                self.envelope.reasons.append(
                    f"source scan stopped after {SOURCE_SCAN_MAX_FILES} candidate files"
                )
                break
            if self.guard.refusal(path) is not None:
                continue  # secret, invalid, or leads outside the repository
            full = self.guard.path(path)
            if full.is_symlink() or not full.is_file():
                continue
            if full.stat().st_size > self.config.max_file_bytes:
                continue
            data = full.read_bytes()
            if needle not in data:
                continue
            language, reason = classify(
                path, 0o100644, len(data), data[:SNIFF_BYTES], self.config, data[-TAIL_BYTES:]
            )
            if reason is not None or language is None:
                continue
            read += 1
            blob = str(pygit2.hash(data))
            try:
                rows = extract(path, language, data, None, self.config.max_parse_work_factor)
            except ParseBudgetExceeded:
                continue
            if kind == "defs":
                for r in rows.symbols:
                    s = dict(zip(SYMBOLS.names, r, strict=True))
                    if s["name"] == bare and (
                        not qualified or str(s["qualname"]).endswith(qualified)
                    ):
                        out.append({**query.symbol_result(s, "source"), "blob": blob})
            else:
                for r in rows.edges:
                    e = dict(zip(EDGES.names, r, strict=True))
                    if e["target"] == bare and e["kind"] not in FACTS:
                        out.append({**query.edge_result(e, "source"), "blob": blob})
        return out

    def by_id(self, symbol_id: str) -> list[dict[str, Any]]:
        """The definitions with one symbol id, as ``defs`` results."""
        shadowed = self.overlay.shadowed if self.overlay else set()
        rows = self.version.lookup("symbols", "symbol_id", symbol_id).to_pylist()
        out = [query.symbol_result(r, "index") for r in rows if r["path"] not in shadowed]
        if self.overlay is not None:
            out += [
                query.symbol_result(s, "overlay")
                for s in self.overlay.symbols
                if s["symbol_id"] == symbol_id
            ]
        return out

    def nearest_names(self, target: str, n: int = 5) -> list[str]:
        """Defined names that look like ``target`` (difflib's ratio), qualified
        when the target was: what the user probably meant."""
        bare, qualified = query.split_name(target)
        column = "qualname" if qualified else "name"
        names = set(self.version.read("symbols", columns=[column])[column].to_pylist())
        if self.overlay is not None:
            names.update(str(s[column]) for s in self.overlay.symbols)
        want = qualified or bare
        return difflib.get_close_matches(want, sorted(str(x) for x in names if x), n=n, cutoff=0.6)


def worktree_bytes(repo: pygit2.Repository, config: IndexConfig, path: str) -> bytes | None:
    """A file's bytes in the worktree now, through the guard; None when absent
    or refused (a refused file counts as changed: it cannot be read)."""
    guard = WorktreeGuard.of(repo, config)
    if guard.refusal(path) is not None:
        return None
    full = guard.path(path)
    try:
        return full.read_bytes() if full.is_file() and not full.is_symlink() else None
    except OSError:
        return None
