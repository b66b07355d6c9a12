"""How two commits relate on the commit graph, and what changed between them.

The freshness proof (query/freshness.py) and an update's plan
(tasks/update.py) ask the same two questions of git, so they live below both.
"""

from __future__ import annotations

import enum
from typing import Any

import pygit2

from freshindex.core.tree import storable_path


class Relation(enum.StrEnum):
    EQUAL = "equal"
    ANCESTOR = "ancestor"
    DIVERGED = "diverged"
    UNKNOWN = "unknown"


def relation_of(
    repo: pygit2.Repository, index_commit: str, head: str | None
) -> tuple[Relation, int | None]:
    """(relation, commits HEAD is ahead of the index) — lag only for ``ancestor``/``equal``."""
    if head is None:
        return Relation.UNKNOWN, None
    if index_commit == head:
        return Relation.EQUAL, 0
    try:
        indexed = repo.get(index_commit)
    except ValueError:
        indexed = None
    if indexed is None or not isinstance(indexed, pygit2.Commit):
        return Relation.UNKNOWN, None
    if repo.descendant_of(head, index_commit):
        ahead, _behind = repo.ahead_behind(head, index_commit)
        return Relation.ANCESTOR, int(ahead)
    return Relation.DIVERGED, None


def changed_between(
    repo: pygit2.Repository, old: str, new: str
) -> list[tuple[str, str | None, str]]:
    """Rename-aware diff old..new: (status, old path, new path) per file.

    status is git's letter: A, M, D, R (renamed), T (type change)."""
    old_obj: Any = repo.get(old)
    new_obj: Any = repo.get(new)
    diff = repo.diff(old_obj.peel(pygit2.Tree), new_obj.peel(pygit2.Tree))  # type: ignore[arg-type]
    diff.find_similar(flags=pygit2.GIT_DIFF_FIND_RENAMES)  # type: ignore[arg-type]
    out: list[tuple[str, str | None, str]] = []
    for delta in diff.deltas:
        status = delta.status_char()
        out.append((status, _path(delta.old_file), _path(delta.new_file)))
    return out


def _path(f: Any) -> str:
    return storable_path(f.raw_path.decode("utf-8", "surrogateescape"))
