"""Which kind of update a revision needs: nothing, an incremental batch, shard
rebuilds, or a full build, and why.

Decided from git and the store's pointer and manifest alone, without Prefect
or Dask, so `freshindex update` can say "nothing to do" at the cost of a
`status` before it starts either (the flow decides again under the publish
slot, where the answer counts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pygit2

from freshindex.catalog.layout import PointerState, branch_pointer_key, read_pointer
from freshindex.catalog.published import PublishedIndex, nearest_published_ancestor
from freshindex.catalog.reader import IndexVersion
from freshindex.core import gitrepo
from freshindex.core.exceptions import FreshindexError
from freshindex.core.history import Relation, changed_between, relation_of
from freshindex.indexer.config import IndexConfig
from freshindex.indexer.languages import grammar_versions, indexer_digest
from freshindex.indexer.manifests import resolution_changed
from freshindex.storage import Store
from freshindex.tasks.source import config_at
from freshindex.tasks.tables import store_for


class Mode:
    NOOP = "noop"
    INCREMENTAL = "incremental"
    SHARD_REBUILD = "shard-rebuild"
    FULL = "full"


@dataclass(frozen=True)
class Assessment:
    """What an update to ``commit`` starts from, and the mode it needs."""

    repo: pygit2.Repository
    commit: pygit2.Commit
    config: IndexConfig
    store: Store
    base: PointerState
    parent: IndexVersion | None
    branch: str | None
    mode: str
    reason: str
    changes: list[tuple[str, str | None, str]] = field(default_factory=list)


def assess(
    repo_path: str, store_uri: str, rev: str = "HEAD", branch: str | None = None
) -> Assessment:
    """``branch``: the branch other than main's that REV names, as the caller
    saw it before resolving REV to a commit; else found from REV here."""
    repo = gitrepo.open_repo(repo_path)
    commit = gitrepo.resolve_commit(repo, rev)
    config = config_at(repo, commit)
    store = store_for(store_uri)
    base = read_pointer(store)
    parent = IndexVersion.load(store, base.pointer.version, base.pointer) if base.pointer else None
    branch = branch or gitrepo.branch_of(repo, rev)
    if branch is not None and parent is not None:
        # a branch other than main's: its versions go to its own pointer, from
        # the nearest published version its commit descends from
        base = read_pointer(store, branch_pointer_key(branch))
        parent = _branch_parent(repo, store, str(commit.id), parent)
    relation = Relation.UNKNOWN
    changes: list[tuple[str, str | None, str]] = []
    if parent is not None:
        relation, _lag = relation_of(repo, parent.manifest.sourceCommit, str(commit.id))
        if relation == Relation.ANCESTOR:
            changes = changed_between(repo, parent.manifest.sourceCommit, str(commit.id))
    touched = {p for _s, old, new in changes for p in (old, new) if p}
    forcing = sorted(
        p
        for p in touched
        if config.forces_rebuild(p)
        and (
            parent is None
            or resolution_changed(
                p,
                gitrepo.blob_at(repo, parent.manifest.sourceTree, p),
                gitrepo.blob_at(repo, str(commit.tree_id), p),
            )
        )
    )
    if parent is not None and touched:
        # a symlink added, removed or retargeted can change what every import
        # through it resolves to (indexer/resolve.py): rebuild rather than guess
        links = _symlinks_among(repo, (parent.manifest.sourceTree, str(commit.tree_id)), touched)
        forcing += [f"{p} (a symlink)" for p in links]
    mode, reason = decide(parent, config, relation, len(touched), forcing)
    return Assessment(repo, commit, config, store, base, parent, branch, mode, reason, changes)


def _symlinks_among(repo: Any, trees: tuple[str, ...], paths: set[str]) -> list[str]:
    """The paths that are symlinks in either tree."""
    found = set()
    for tree_id in trees:
        tree: Any = repo.get(tree_id)
        for p in paths:
            try:
                if tree[p].filemode == 0o120000:
                    found.add(p)
            except KeyError:
                continue
    return sorted(found)


def decide(
    parent: IndexVersion | None,
    config: IndexConfig,
    relation: Relation,
    changed: int,
    forcing: list[str],
) -> tuple[str, str]:
    if parent is None:
        return Mode.FULL, "no current version to update from"
    m = parent.manifest
    if m.indexer.digest != indexer_digest():
        return Mode.FULL, "indexer changed since the current version was built"
    running = grammar_versions(sorted(m.grammars.keys() - {"tree-sitter"}))
    if any(running.get(k) != v for k, v in m.grammars.items()):
        return Mode.FULL, "a grammar version changed"
    if m.configDigest != config.digest:
        return Mode.FULL, "freshindex.toml changed"
    if relation == Relation.EQUAL:
        return Mode.NOOP, f"nothing to do: {m.sourceCommit} is already indexed ({m.versionId})"
    if relation != Relation.ANCESTOR:
        return Mode.FULL, f"REV does not descend from the indexed commit ({relation})"
    if forcing:
        return Mode.FULL, f"{forcing[0]} changed: it changes how other files resolve"
    if changed > config.overlay_budget_files:
        return (
            Mode.SHARD_REBUILD,
            f"{changed} changed files exceed the budget of {config.overlay_budget_files}",
        )
    return Mode.INCREMENTAL, f"{changed} changed file(s) within budget"


def _branch_parent(repo: Any, store: Any, commit: str, current: IndexVersion) -> IndexVersion:
    """The version a branch's update starts from: the nearest published
    ancestor of ``commit`` (main's versions or the branch's own), when the
    running code can update from it; else main's current version (which
    decide() then turns into a full build if the branch does not descend
    from it)."""
    found = nearest_published_ancestor(repo, commit, PublishedIndex(store).refresh())
    if found is None or found[0].version == current.manifest.versionId:
        return current
    try:
        return IndexVersion.load(store, found[0].version)
    except FreshindexError:
        return current
