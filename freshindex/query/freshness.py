"""The freshness proof: how the current index version relates to HEAD and the worktree.

Every query answer carries this envelope (docs/contract.md, "The freshness envelope"). The
words are closed sets; a reason is one short sentence saying why freshness is
not ``exact``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import pygit2

from freshindex.catalog.manifest import Manifest
from freshindex.core.history import Relation, changed_between, relation_of
from freshindex.indexer.document import path_problem
from freshindex.query.worktree import WorktreeState


class Freshness(enum.StrEnum):
    EXACT = "exact"
    OVERLAY = "overlay"
    PARTIAL = "partial"
    STALE = "stale"


@dataclass
class Envelope:
    indexVersion: str | None
    indexCommit: str | None
    headCommit: str | None
    worktreeTree: str
    dirty: bool
    relation: Relation
    freshness: Freshness
    lagCommits: int | None
    changedFiles: int
    dirtyFiles: int
    reasons: list[str] = field(default_factory=list)
    submodules: list[dict[str, Any]] = field(default_factory=list)
    # the pointer's version, and why the answer's base was chosen
    # (query/bases.py): they differ from indexVersion on a branch
    currentVersion: str | None = None
    baseReason: str | None = None
    # with a watcher (serve, mcp: query/watch.py): the event seq worktreeTree
    # reflects, and "checkpoint" (reused, proven by a cookie) or "scan"
    worktreeSeq: int | None = None
    worktreeSource: str = "scan"

    def to_json(self) -> dict[str, Any]:
        return {
            "indexVersion": self.indexVersion,
            "indexCommit": self.indexCommit,
            # the version answers start from (query/bases.py): the same as
            # indexVersion, which has always named the version answers use
            "baseVersion": self.indexVersion,
            "baseCommit": self.indexCommit,
            "baseReason": self.baseReason,
            "currentVersion": self.currentVersion,
            "worktreeSeq": self.worktreeSeq,
            "worktreeSource": self.worktreeSource,
            "headCommit": self.headCommit,
            "worktreeTree": self.worktreeTree,
            "dirty": self.dirty,
            "relation": str(self.relation),
            "freshness": str(self.freshness),
            "lagCommits": self.lagCommits,
            "changedFiles": self.changedFiles,
            "dirtyFiles": self.dirtyFiles,
            "reasons": list(self.reasons),
            "submodules": list(self.submodules),
        }


def basic_envelope(
    repo: pygit2.Repository,
    manifest: Manifest | None,
    wt: WorktreeState,
    problems: list[str],
) -> Envelope:
    """The envelope when answers come from the index alone: ``exact`` or ``stale``.

    ``problems`` are reasons found by the caller (indexer, grammar or config
    digests that differ, a version that does not verify): any one makes it stale."""
    reasons = list(problems)
    if manifest is None:
        return Envelope(
            None,
            None,
            wt.head,
            wt.tree,
            wt.dirty,
            Relation.UNKNOWN,
            Freshness.STALE,
            None,
            0,
            len(wt.changed),
            ["no published index version"],
            [s.model_dump() for s in wt.submodules],
        )
    relation, lag = relation_of(repo, manifest.sourceCommit, wt.head)
    changed = 0
    if relation in (Relation.ANCESTOR, Relation.DIVERGED) and wt.head:
        changed = len(changed_between(repo, manifest.sourceCommit, wt.head))
    if relation == Relation.ANCESTOR:
        reasons.append(f"index is {lag} commit(s) behind HEAD ({changed} file(s) changed)")
    elif relation == Relation.DIVERGED:
        reasons.append(
            "indexed commit is not an ancestor of HEAD (a branch or a rewrite): "
            f"{changed} file(s) differ between its tree and HEAD's"
        )
    elif relation == Relation.UNKNOWN:
        reasons.append("indexed commit is not in this repository")
    if wt.changed:
        reasons.append(f"worktree has {len(wt.changed)} uncommitted change(s)")
    for sub in wt.dirty_submodules:
        reasons.append(f"submodule {sub} has uncommitted changes")
    invalid = sorted(p for p in wt.changed if path_problem(p))
    if invalid:
        reasons.append(
            f"HEAD's tree holds {len(invalid)} entry(ies) no worktree can hold, counted as "
            f"absent (invalid-path: {invalid[0]!r})"
        )
    fresh = Freshness.EXACT if not reasons else Freshness.STALE
    if wt.note:  # how the worktree was read; it does not change what was proven
        reasons.append(wt.note)
    return Envelope(
        manifest.versionId,
        manifest.sourceCommit,
        wt.head,
        wt.tree,
        wt.dirty,
        relation,
        fresh,
        lag,
        changed,
        len(wt.changed),
        reasons,
        [s.model_dump() for s in wt.submodules],
    )
