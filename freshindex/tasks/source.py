"""What a task reads: the commit being indexed, its tree listing, the
shards' partition of it, its path index and its configuration.

A Dask worker process runs many shard tasks; opening the repository (or its
mirror) and listing the tree once per process instead of once per task keeps
per-task overhead near Prefect's own.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import pygit2

from freshindex.core import gitrepo
from freshindex.core.exceptions import UnknownRevision
from freshindex.core.tree import TreeEntry
from freshindex.indexer import js_modules, resolve
from freshindex.indexer.bind_c import COMPILE_DB
from freshindex.indexer.config import CONFIG_FILE, IndexConfig, parse_config
from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.shard import partition
from freshindex.process.cache import cache_dir

_mirror_lock = threading.Lock()


def mirror_root() -> Path:
    if os.environ.get("FRESHINDEX_MIRROR_DIR"):
        return Path(os.environ["FRESHINDEX_MIRROR_DIR"])
    return cache_dir("mirrors")


def worker_git_dir(git_dir: str, commit: str, mirror_url: str | None) -> str:
    """The git directory this worker reads blobs from.

    Shared path (default): the flow's own git dir, which every worker must see
    at the same path. Mirror: a bare clone per worker host, fetched until it
    holds ``commit`` — for clusters whose workers share no filesystem."""
    if not mirror_url:
        return git_dir
    path = mirror_root() / (hashlib.sha1(mirror_url.encode()).hexdigest()[:16] + ".git")
    with _mirror_lock:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
            pygit2.clone_repository(mirror_url, str(tmp), bare=True)
            os.replace(tmp, path)
        repo = pygit2.Repository(str(path))
        if commit not in repo:
            repo.remotes["origin"].fetch(["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
            gitrepo.cached_repo.cache_clear()
        if commit not in pygit2.Repository(str(path)):
            raise UnknownRevision(
                f"mirror of {mirror_url} does not have commit {commit} after a fetch"
            )
    return str(path)


# One listing per tree and process. Shard tasks on a thread pool call these
# at the same moment; lru_cache alone would let each of them list a 30,000-entry
# tree and build its path index under the GIL (measured on a 10-file update
# of 30,000 files: the listing ran three times). The planner's listing is
# the same call, so on the thread runner the shard tasks reuse it.
_tree_lock = threading.Lock()


@functools.lru_cache(maxsize=4)
def _listing(git_dir: str, tree: str) -> tuple[TreeEntry, ...]:
    # sizes are read per shard, by the task that indexes the files
    return tuple(gitrepo.list_tree(gitrepo.cached_repo(git_dir), tree, sizes=False))


@functools.lru_cache(maxsize=4)
def _partition(
    git_dir: str, tree: str, shards: int, include_paths: tuple[str, ...]
) -> tuple[list[list[TreeEntry]], PathIndex]:
    entries = _listing(git_dir, tree)
    repo = gitrepo.cached_repo(git_dir)
    return partition(entries, shards), path_index(repo, entries, include_paths)


def path_index(
    repo: pygit2.Repository, entries: Sequence[TreeEntry], include_paths: tuple[str, ...]
) -> PathIndex:
    """The tree's paths, its links, its C include roots, and its JavaScript
    aliases and workspace packages."""
    db = next((e for e in entries if e.path == COMPILE_DB), None)
    return PathIndex.of_tree(
        [e.path for e in entries],
        gitrepo.symlinks(repo, entries),
        include_paths,
        gitrepo.read_blob(repo, db.oid) if db is not None else None,
        gitrepo.small_blobs(repo, entries, resolve.wanted, *js_modules.BOUNDS),
    )


def tree_entries(git_dir: str, tree: str) -> list[TreeEntry]:
    with _tree_lock:
        return list(_listing(git_dir, tree))


def tree_partition(
    git_dir: str, tree: str, shards: int, include_paths: tuple[str, ...] = ()
) -> tuple[list[list[TreeEntry]], PathIndex]:
    with _tree_lock:
        return _partition(git_dir, tree, shards, include_paths)


def config_at(repo: pygit2.Repository, commit: pygit2.Commit) -> IndexConfig:
    """freshindex.toml as it is in ``commit`` (defaults when absent)."""
    try:
        entry = commit.tree[CONFIG_FILE]
    except KeyError:
        return parse_config(None)
    return parse_config(gitrepo.read_blob(repo, str(entry.id)))
