"""Which published version answers for this HEAD: the base with the smallest overlay.

An answer from version V plus an overlay of ``diff(V.sourceTree, worktree)``
is exact for any V, ancestor of HEAD or not: the overlay replaces every path
that differs. So the current pointer is not the only possible base. On a
branch forked before main's latest version, an older published version (the
one at or below the fork point) usually differs from the worktree in a few
files where the current one differs in hundreds: the answer is ``overlay``
instead of ``partial``, or instead of ``stale`` when the current version
cannot serve at all (built by another indexer, say) and an older one can.
This is how Sourcegraph answers for arbitrary commits: the nearest indexed
commit on the commit graph, adjusted by the diff.

Candidates: the current version, and the nearest published version whose
commit is an ancestor of HEAD, found by walking HEAD's history (which passes
through the merge-base with main, then main's own history below it) against
the published commits. Published commits come from the store's publication
records, each read once per machine (PublishedIndex). The candidate whose
tree differs from HEAD's in the fewest files wins; on a tie, the current
version. A candidate the running code cannot use (another indexer, grammar or
configuration, a version gc removed) is passed over with its reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pygit2

from freshindex.catalog.manifest import Manifest
from freshindex.catalog.published import Published, nearest_published_ancestor


@dataclass(frozen=True)
class Base:
    """The version chosen to answer from, and why."""

    version: str
    commit: str
    reason: str
    seconds: float
    head: str | None = None  # the HEAD it was chosen for


def files_between(repo: pygit2.Repository, commit: str, head: str) -> int | None:
    """How many files differ between two commits' trees (None when ``commit``
    is not in this repository)."""
    try:
        old = repo.get(commit)
        new = repo.get(head)
    except ValueError:
        return None
    if not isinstance(old, pygit2.Commit) or not isinstance(new, pygit2.Commit):
        return None
    return len(repo.diff(old.tree, new.tree))


def choose_base(
    repo: pygit2.Repository,
    head: str | None,
    current: Manifest,
    published: Callable[[], list[Published]],
    problem_of: Callable[[str], str | None],
) -> Base:
    """The base for HEAD: the current version, or the nearest published
    ancestor when it is usable and its tree is closer to HEAD's. ``published``
    is called only when HEAD is not the current version's commit.
    ``problem_of(version)`` says why the running code cannot answer from a
    version (None when it can)."""
    started = time.perf_counter()

    def done(version: str, commit: str, reason: str) -> Base:
        return Base(version, commit, reason, time.perf_counter() - started, head)

    if head is None or current.sourceCommit == head:
        return done(current.versionId, current.sourceCommit, "current version, at HEAD")
    current_files = files_between(repo, current.sourceCommit, head)
    here = _current_reason(current_files)
    found = nearest_published_ancestor(repo, head, published())
    if found is None:
        return done(current.versionId, current.sourceCommit, f"{here}; no published ancestor")
    nearest, walked = found
    if nearest.version == current.versionId:
        return done(current.versionId, current.sourceCommit, here)
    problem = problem_of(nearest.version)
    if problem is not None:
        return done(
            current.versionId,
            current.sourceCommit,
            f"{here}; nearest published ancestor {nearest.version} not usable: {problem}",
        )
    nearest_files = files_between(repo, nearest.commit, head)
    current_problem = problem_of(current.versionId)
    if current_problem is None and current_files is not None:
        if nearest_files is None or current_files <= nearest_files:
            return done(current.versionId, current.sourceCommit, here)
        why = f"tree diff of {nearest_files} file(s), the current version's {current_files}"
    else:
        why = f"tree diff of {nearest_files} file(s); current version not usable: {current_problem or here}"
    return done(
        nearest.version,
        nearest.commit,
        f"nearest published ancestor of HEAD, {walked} commit(s) back: {why}",
    )


def _current_reason(files: int | None) -> str:
    if files is None:
        return "current version (its commit is not in this repository)"
    return f"current version, tree diff of {files} file(s)"
