"""Overlays: answering for the code as it is now from an index of an older commit.

The index covers ``indexCommit``. What changed since is known exactly, from
git alone (no watcher, so no lost events): the rename-aware diff
``indexCommit..HEAD`` and the worktree's differences from HEAD. Every path
touched by either is *shadowed*: its index rows are dropped, and the file as
it is now (HEAD's blob, or the worktree's bytes) is parsed at query time and
answers with ``origin: overlay``. Deleted files contribute nothing, renamed
files answer under their new path, and line numbers are those of the file
in the worktree now.

Parsed overlay files are cached by content (blob OID, path, indexer digest)
as zstd-compressed JSON, so repeated queries do not re-parse an unchanged file.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
import zstandard

from freshindex.core import gitrepo
from freshindex.core.tree import TreeEntry
from freshindex.indexer import js_modules, resolve
from freshindex.indexer.bind_c import COMPILE_DB
from freshindex.indexer.config import IndexConfig
from freshindex.indexer.document import SNIFF_BYTES, TAIL_BYTES, classify
from freshindex.indexer.extract import FileRows, ParseBudgetExceeded, extract
from freshindex.indexer.languages import indexer_digest
from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.schema import EDGES, SUMMARIES, SYMBOLS, EdgeRow
from freshindex.process.cache import cache_dir
from freshindex.query.freshness import changed_between
from freshindex.query.guard import WorktreeGuard
from freshindex.query.worktree import WorktreeState

# how many summaries overlays computed in this process: an unchanged blob's
# come from the index or the overlay cache, never from summarising again
SUMMARISED: Counter[str] = Counter()


@dataclass
class Overlay:
    shadowed: set[str] = field(default_factory=set)  # paths whose index rows are dropped
    symbols: list[dict[str, object]] = field(default_factory=list)
    edges: list[dict[str, object]] = field(default_factory=list)
    summaries: list[dict[str, object]] = field(default_factory=list)
    documents: list[dict[str, object]] = field(default_factory=list)
    parsed_files: int = 0
    cache_hits: int = 0


@dataclass(frozen=True)
class ChangeSet:
    """Paths that differ between the indexed commit and the worktree now."""

    commit_changes: list[tuple[str, str | None, str]]  # (status, old path, new path)
    dirty: dict[str, str]  # path -> modified | deleted | added

    @property
    def paths(self) -> set[str]:
        out: set[str] = set(self.dirty)
        for _status, old, new in self.commit_changes:
            if old:
                out.add(old)
            out.add(new)
        return out


def change_set(repo: pygit2.Repository, index_commit: str, wt: WorktreeState) -> ChangeSet:
    commits = (
        changed_between(repo, index_commit, wt.head) if wt.head and wt.head != index_commit else []
    )
    return ChangeSet(commits, dict(wt.changed))


def _cache_dir() -> Path:
    return cache_dir("overlay")


def _cached_rows(key: str) -> FileRows | None:
    path = _cache_dir() / key[:2] / f"{key}.json.zst"
    try:
        raw = zstandard.ZstdDecompressor().decompress(path.read_bytes())
    except (OSError, zstandard.ZstdError):
        return None
    data = json.loads(raw)
    try:
        return FileRows(
            [tuple(r) for r in data["symbols"]],
            [EdgeRow(*r) for r in data["edges"]],
            [tuple(r) for r in data.get("summaries", [])],
        )
    except (TypeError, KeyError):  # written by another shape of rows: parse again
        return None


def _store_rows(key: str, rows: FileRows) -> None:
    path = _cache_dir() / key[:2] / f"{key}.json.zst"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(
        {"symbols": rows.symbols, "edges": rows.edges, "summaries": rows.summaries}
    ).encode()
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(zstandard.ZstdCompressor(level=3).compress(body))
    os.replace(tmp, path)


def build_overlay(
    repo: pygit2.Repository, changes: ChangeSet, config: IndexConfig, resolver: PathIndex
) -> Overlay:
    """Parse every changed file as it is now; shadow every changed path.
    ``resolver`` indexes the worktree's paths (worktree_index)."""
    ov = Overlay(shadowed=changes.paths)
    guard = WorktreeGuard.of(repo, config)
    head = gitrepo.head_commit(repo)
    digest = indexer_digest()
    for path in sorted(ov.shadowed):
        data: bytes | None
        mode = 0o100644
        if path in changes.dirty:
            if changes.dirty[path] == "deleted":
                continue
            full = Path(guard.root, path)
            if full.is_symlink():
                mode = 0o120000  # recorded, never followed
                data = b""
            elif guard.refusal(path) is not None:
                # a secret or an invalid name is recorded by classify below
                # from its path alone; anything else refused leads outside
                data = b""
                if classify(path, mode, 0, b"", config)[1] is None:
                    mode = 0o120000
            else:
                try:
                    data = full.read_bytes()
                except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                    continue
        else:
            entry = _tree_entry(head, path)
            if entry is None:
                continue  # deleted (or the old side of a rename)
            oid, mode = entry
            data = gitrepo.read_blob(repo, oid) if mode not in (0o120000, 0o160000) else b""
        language, reason = classify(
            path, mode, len(data), data[:SNIFF_BYTES], config, data[-TAIL_BYTES:]
        )
        blob = str(pygit2.hash(data))
        ov.documents.append(
            {
                "path": path,
                "language": language,
                "status": "skipped" if reason else "parsed",
                "reason": str(reason) if reason else None,
                "blob": None if reason else blob,
            }
        )
        if reason is not None or language is None:
            continue
        # a file's rows depend on its bytes and on the paths its imports may
        # resolve to (indexer/resolve.py): both are in the key
        key = str(pygit2.hash(f"{digest}\0{path}\0{language}\0{blob}\0{resolver.digest}".encode()))
        rows = _cached_rows(key)
        if rows is None:
            try:
                rows = extract(path, language, data, resolver, config.max_parse_work_factor, blob)
            except ParseBudgetExceeded:
                continue
            _store_rows(key, rows)
            ov.parsed_files += 1
            SUMMARISED["summaries"] += len(rows.summaries)
        else:
            ov.cache_hits += 1
        ov.symbols.extend(dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols)
        ov.edges.extend(dict(zip(EDGES.names, r, strict=True)) for r in rows.edges)
        ov.summaries.extend(dict(zip(SUMMARIES.names, r, strict=True)) for r in rows.summaries)
    return ov


def _tree_entry(commit: pygit2.Commit | None, path: str) -> tuple[str, int] | None:
    if commit is None:
        return None
    try:
        entry = commit.tree[path]
    except KeyError:
        return None
    return str(entry.id), int(entry.filemode)


def worktree_paths(repo: pygit2.Repository, wt: WorktreeState) -> list[str]:
    """Paths of the worktree now: HEAD's tree, minus deletions, plus additions."""
    head = gitrepo.head_commit(repo)
    paths = {e.path for e in _head_entries(repo, head)}
    for path, what in wt.changed.items():
        if what == "deleted":
            paths.discard(path)
        else:
            paths.add(path)
    return sorted(paths)


def _head_entries(repo: pygit2.Repository, head: pygit2.Commit | None) -> list[TreeEntry]:
    return gitrepo.list_tree(repo, str(head.tree_id), sizes=False) if head else []


# A warm service answers many queries over one worktree state. Listing HEAD's
# tree and indexing its paths took ~0.65 s of a 1 s query with 10 dirty files
# at 30,000 files (profiled); both depend only on HEAD's tree and the changed
# paths, so the last few states are kept.
_WORKTREE_CACHE: dict[tuple[object, ...], tuple[list[str], PathIndex]] = {}
_WORKTREE_CACHE_SIZE = 4
_WORKTREE_LOCK = threading.Lock()  # the service answers on many threads


def worktree_index(
    repo: pygit2.Repository, wt: WorktreeState, include_paths: tuple[str, ...] = ()
) -> tuple[list[str], PathIndex]:
    """worktree_paths and a PathIndex over them (with C include roots from
    ``include_paths`` and HEAD's compile_commands.json), reused while HEAD's
    tree and the changed paths are the same."""
    key = (repo.path, wt.head_tree, tuple(sorted(wt.changed.items())), include_paths)
    with _WORKTREE_LOCK:
        hit = _WORKTREE_CACHE.get(key)
    if hit is None:
        paths = worktree_paths(repo, wt)
        head = _head_entries(repo, gitrepo.head_commit(repo))
        # HEAD's symlinks (a link added or changed in the worktree is not followed)
        links = {p: t for p, t in gitrepo.symlinks(repo, head).items() if wt.changed.get(p) is None}
        db = next((e for e in head if e.path == COMPILE_DB), None)
        data = gitrepo.read_blob(repo, db.oid) if db is not None else None
        # HEAD's manifests (tsconfig, package.json, Cargo.toml, go.mod): a changed
        # one rebuilds (rebuild_patterns)
        manifests = gitrepo.small_blobs(repo, head, resolve.wanted, *js_modules.BOUNDS)
        hit = (paths, PathIndex.of_tree(paths, links, include_paths, data, manifests))
        with _WORKTREE_LOCK:
            while len(_WORKTREE_CACHE) >= _WORKTREE_CACHE_SIZE:
                _WORKTREE_CACHE.pop(next(iter(_WORKTREE_CACHE)))
            _WORKTREE_CACHE[key] = hit
    return hit
