"""Every git read, through pygit2. Nothing here writes to the worktree, the index or refs."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pygit2

from freshindex.core.exceptions import EmptyRepository, NotAGitRepository, UnknownRevision
from freshindex.core.tree import TreeEntry, storable_path


def open_repo(path: str | os.PathLike[str]) -> pygit2.Repository:
    """The repository containing ``path`` (any folder inside it)."""
    p = Path(path)
    if not p.exists():
        raise NotAGitRepository(f"{p} does not exist")
    found = pygit2.discover_repository(str(p.resolve()))
    if found is None:
        raise NotAGitRepository(f"{p.resolve()} is not inside a git repository")
    try:
        return pygit2.Repository(found)
    except pygit2.GitError as err:
        raise NotAGitRepository(f"{found} cannot be opened as a git repository: {err}") from err


@functools.lru_cache(maxsize=8)
def cached_repo(git_dir: str) -> pygit2.Repository:
    """One Repository per worker process and git dir (opening one costs ~1 ms,
    but its object caches are what make 128 shard tasks cheap)."""
    return pygit2.Repository(git_dir)


def resolve_commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    if repo.head_is_unborn and rev in ("HEAD", "@"):
        raise EmptyRepository(
            f"{repo.workdir or repo.path} has no commits yet: commit something, then build"
        )
    try:
        obj = repo.revparse_single(rev)
        commit = obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as err:
        raise UnknownRevision(f"unknown revision {rev!r} in {repo.workdir or repo.path}") from err
    return commit


MAIN_BRANCH_ENV = "FRESHINDEX_MAIN_BRANCH"


def main_branch(repo: pygit2.Repository) -> str | None:
    """The branch current.json follows: $FRESHINDEX_MAIN_BRANCH, else ``main``
    or ``master``, whichever the repository has (None: neither, and every
    update is main's)."""
    named = os.environ.get(MAIN_BRANCH_ENV)
    if named:
        return named
    local = set(repo.branches.local)
    return next((b for b in ("main", "master") if b in local), None)


def branch_of(repo: pygit2.Repository, rev: str) -> str | None:
    """The local branch other than main's that ``rev`` names: a branch name,
    ``refs/heads/NAME``, or HEAD while it is on such a branch. None for
    main's branch, a commit, a tag or a detached HEAD."""
    main = main_branch(repo)
    if main is None:
        return None
    name: str | None = None
    if rev == "HEAD":
        if not repo.head_is_detached and not repo.head_is_unborn:
            name = repo.head.shorthand
    elif rev.startswith("refs/heads/"):
        name = rev.removeprefix("refs/heads/")
    elif rev in repo.branches.local:
        name = rev
    return name if name and name != main else None


def head_commit(repo: pygit2.Repository) -> pygit2.Commit | None:
    if repo.head_is_unborn:
        return None
    return repo.head.peel(pygit2.Commit)


def list_tree(repo: pygit2.Repository, tree_oid: str, sizes: bool = True) -> list[TreeEntry]:
    """Every non-tree entry of a tree, recursively, with git's modes.

    Submodules (mode 160000) and symlinks (120000) are listed like files so the
    index records them; their targets are never followed. ``sizes=False``
    leaves blob sizes at -1 (blob_size() reads one): reading every blob's
    header is most of a listing (0.4 of 0.6 s for 30,000 files), and a shard
    task or an update needs the sizes of the files it indexes only."""
    out: list[TreeEntry] = []
    stack: list[tuple[str, Any]] = [("", repo.get(tree_oid))]
    while stack:
        prefix, tree = stack.pop()
        for entry in tree:
            name = entry.name or ""
            path = f"{prefix}{name}"
            mode = entry.filemode
            if mode == pygit2.GIT_FILEMODE_TREE:
                stack.append((path + "/", repo.get(entry.id)))
                continue
            size = 0
            if mode != pygit2.GIT_FILEMODE_COMMIT:
                size = repo.odb.read_header(entry.id)[1] if sizes else -1
            out.append(TreeEntry(storable_path(path), str(entry.id), int(mode), int(size)))
    out.sort(key=lambda e: e.path)
    return out


def blob_size(repo: pygit2.Repository, oid: str) -> int:
    """A blob's size from its header, without inflating it."""
    return int(repo.odb.read_header(oid)[1])


def symlinks(repo: pygit2.Repository, entries: Iterable[TreeEntry]) -> dict[str, str]:
    """path -> the link's text, for every symlink among ``entries``."""
    out = {}
    for e in entries:
        if e.mode == 0o120000:
            try:
                out[e.path] = read_blob(repo, e.oid).decode("utf-8", "surrogateescape")
            except KeyError:  # not held (a partial clone): a link to nothing known
                continue
    return out


def read_blob(repo: pygit2.Repository, oid: str) -> bytes:
    """A blob's bytes; KeyError when the object database does not hold it
    (a partial clone's), as ``blob_size`` raises pygit2's NotFoundError."""
    blob: Any = repo.get(oid)
    if blob is None:
        raise KeyError(oid)
    return bytes(blob.data)


def small_blobs(
    repo: pygit2.Repository,
    entries: Iterable[TreeEntry],
    wanted: Callable[[str], bool],
    max_files: int,
    max_bytes: int,
    max_total: int,
) -> dict[str, bytes]:
    """The contents of the first ``max_files`` entries whose path is
    ``wanted``, path -> bytes, leaving out any over ``max_bytes`` (its size
    is read before its bytes), and stopping at ``max_total`` bytes in all."""
    out = {}
    total = 0
    for e in [e for e in entries if wanted(e.path)][:max_files]:
        blob = repo.get(e.oid)
        if not isinstance(blob, pygit2.Blob) or blob.size > max_bytes:
            continue
        total += blob.size
        if total > max_total:
            break
        out[e.path] = bytes(blob.data)
    return out


def store_default(repo: pygit2.Repository) -> str:
    """file://<git-dir>/freshindex: inside .git, so the store never dirties the worktree."""
    return Path(repo.path).resolve().joinpath("freshindex").as_uri()


def blob_at(repo: pygit2.Repository, tree_id: str, path: str) -> bytes | None:
    """The bytes of ``path`` in a tree; None when the tree has no blob there."""
    try:
        entry = repo.get(tree_id)[path]  # type: ignore[index]
    except (KeyError, ValueError, TypeError):
        return None
    obj = repo.get(entry.id)
    return obj.data if isinstance(obj, pygit2.Blob) else None
