"""The worktree as git would commit it now: its tree OID, and which paths differ from HEAD.

Over 400 lines as one concept: the full read and the path-limited re-read
share the per-path rules, and must agree with git path for path.

``worktree_tree`` equals the reference article's recipe::

    GIT_INDEX_FILE=tmp git read-tree HEAD; git add -A; git write-tree

but costs about what ``git status`` costs: libgit2's status walk uses the
repository's own index stat cache, so only files whose stat changed are read
and hashed; everything else is reused from HEAD's tree. Nothing is written to
the worktree, to ``.git/index`` or to refs: the tree is HEAD's with the changed paths
applied, rebuilding only the trees along those paths (the tree and blob
objects are written to the object database, as ``git add`` and
``git write-tree`` do; nothing references them).
"""

from __future__ import annotations

import os
import posixpath
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pygit2

from freshindex.catalog.manifest import Submodule
from freshindex.core.exceptions import BadInput, WorktreeMoving
from freshindex.core.tree import storable_path

_WT_CHANGED = (
    pygit2.GIT_STATUS_WT_NEW
    | pygit2.GIT_STATUS_WT_MODIFIED
    | pygit2.GIT_STATUS_WT_DELETED
    | pygit2.GIT_STATUS_WT_TYPECHANGE
    | pygit2.GIT_STATUS_WT_RENAMED
)
_INDEX_CHANGED = (
    pygit2.GIT_STATUS_INDEX_NEW
    | pygit2.GIT_STATUS_INDEX_MODIFIED
    | pygit2.GIT_STATUS_INDEX_DELETED
    | pygit2.GIT_STATUS_INDEX_TYPECHANGE
    | pygit2.GIT_STATUS_INDEX_RENAMED
)


# a file's state against HEAD's tree: (blob or gitlink OID, mode), None: deleted
Edit = tuple[pygit2.Oid, int] | None

# How long an answer waits for a git operation in progress (an index.lock
# younger than LOCK_STALE_SECONDS) to finish before it reads the worktree anyway.
LOCK_WAIT_SECONDS = 0.5
LOCK_STALE_SECONDS = 10.0
# HEAD moved while the worktree was read (a commit or checkout ran): read again
HEAD_RETRIES = 5


@dataclass(frozen=True)
class WorktreeState:
    head: str | None
    head_tree: str | None
    tree: str  # worktreeTree
    changed: dict[str, str] = field(
        default_factory=dict
    )  # path -> "modified" | "deleted" | "added"
    submodules: list[Submodule] = field(default_factory=list)
    dirty_submodules: list[str] = field(default_factory=list)
    # git path -> its state where it differs from HEAD's tree: what a re-hash
    # of a few paths (rehash) starts from
    edits: dict[str, Edit] = field(default_factory=dict, compare=False)
    # how the read went when it was not plain (a git operation in progress)
    note: str | None = field(default=None, compare=False)

    @property
    def dirty(self) -> bool:
        return bool(self.changed) or bool(self.dirty_submodules)


def _mode_of(st: os.stat_result, filemode: bool, old_mode: int | None) -> int:
    if stat.S_ISLNK(st.st_mode):
        return pygit2.GIT_FILEMODE_LINK
    if not filemode and old_mode in (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE):
        return old_mode  # core.filemode=false: git keeps the recorded bit
    if st.st_mode & stat.S_IXUSR:
        return pygit2.GIT_FILEMODE_BLOB_EXECUTABLE
    return pygit2.GIT_FILEMODE_BLOB


def read_worktree(repo: pygit2.Repository, lock_wait: float = LOCK_WAIT_SECONDS) -> WorktreeState:
    """``scan``, once HEAD holds still, and not in the middle of a git operation
    when waiting briefly avoids it.

    An ``index.lock`` is a git command at work (commit, checkout, merge): it
    is not an error. The read waits up to ``lock_wait`` for it to go; a lock
    that stays (or is too old to be live: a crashed command's) is read
    through, and the state says so in ``note``. The worktree tree never
    depends on the index, so the read is right either way; HEAD moving
    during it is what would mix two states, and ``scan`` reads again then."""
    note = await_git_lock(repo, lock_wait)[1]
    state = scan(repo)
    return replace(state, note=note) if note else state


def await_git_lock(repo: pygit2.Repository, wait: float) -> tuple[bool, str | None]:
    """Wait up to ``wait`` seconds while a live ``index.lock`` is held.
    (whether a lock was seen at all, the note when the read goes on under one)."""
    lock = os.path.join(repo.path, "index.lock")
    deadline = time.monotonic() + wait
    seen = False
    while True:
        try:
            age = time.time() - os.stat(lock).st_mtime
        except FileNotFoundError:
            return seen, None
        seen = True
        if age > LOCK_STALE_SECONDS:
            return seen, (
                f"{lock} is {age:.0f} s old (a git command that did not finish?): "
                "the worktree was read regardless"
            )
        if time.monotonic() >= deadline:
            return seen, (
                f"a git operation is in progress ({lock} present): "
                "the worktree was read while it ran"
            )
        time.sleep(0.005)


def scan(repo: pygit2.Repository) -> WorktreeState:
    """HEAD, the worktree's tree OID, and the paths that differ from HEAD.

    HEAD is read before and after the status walk; if a commit or checkout
    moved it in between, the walk compared with one HEAD and the tree would be
    built on the other, so it reads again."""
    if repo.is_bare or repo.workdir is None:
        raise BadInput(f"{repo.path} is a bare repository: it has no worktree to compare with")
    for _ in range(HEAD_RETRIES):
        head = _head(repo)
        state = _scan(repo, head)
        if _head_id(repo) == (str(head.id) if head else None):
            return state
    raise WorktreeMoving(
        f"HEAD of {repo.path} moved during each of {HEAD_RETRIES} reads of the worktree"
    )


def _head(repo: pygit2.Repository) -> pygit2.Commit | None:
    return None if repo.head_is_unborn else repo.head.peel(pygit2.Commit)


def _head_id(repo: pygit2.Repository) -> str | None:
    try:
        return None if repo.head_is_unborn else str(repo.head.target)
    except pygit2.GitError:
        return None


def _scan(repo: pygit2.Repository, head: pygit2.Commit | None) -> WorktreeState:
    filemode = _config_bool(repo, "core.filemode", True)
    submodule_paths = _submodule_paths(repo)

    status = repo.status(untracked_files="all", ignored=False)
    if not submodule_paths and not any(f & (_WT_CHANGED | _INDEX_CHANGED) for f in status.values()):
        # the common case, clean: HEAD's tree is the worktree's, nothing to build
        tree = str(head.tree_id) if head is not None else str(pygit2.Index().write_tree(repo))
        return WorktreeState(
            head=str(head.id) if head else None,
            head_tree=str(head.tree_id) if head else None,
            tree=tree,
        )
    base = head.tree if head is not None else None
    edits: dict[str, Edit] = {}
    for path, flags in sorted(status.items()):
        if path.rstrip("/") in submodule_paths:
            continue  # handled below from the submodule's own HEAD
        _examine(repo, base, path, flags, filemode, edits)

    submodules: list[Submodule] = []
    dirty_subs: list[str] = []
    for sub_path in sorted(submodule_paths):
        sub_head, sub_tree, sub_dirty = _submodule_state(repo, sub_path)
        submodules.append(Submodule(path=sub_path, head=sub_head, tree=sub_tree))
        if sub_dirty:
            dirty_subs.append(sub_path)
        if sub_head is not None:
            old = _entry(base, sub_path)
            if old is None or str(old[0]) != sub_head:
                edits[sub_path] = (pygit2.Oid(hex=sub_head), pygit2.GIT_FILEMODE_COMMIT)
    return _state(repo, head, edits, submodules, dirty_subs)


def _examine(
    repo: pygit2.Repository,
    base: pygit2.Tree | None,
    path: str,
    flags: int,
    filemode: bool,
    edits: dict[str, Edit],
) -> None:
    """Record in ``edits`` how one path of the status walk differs from HEAD's
    tree as ``git add -A`` would see it (nothing when it does not)."""
    if not flags & (_WT_CHANGED | _INDEX_CHANGED):
        return
    old = _entry(base, path)
    full = os.path.join(repo.workdir or "", path)
    try:
        st = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):  # gone, or its folder is now a file
        if old is not None:
            edits[path] = None
        return
    if stat.S_ISDIR(st.st_mode):
        # a tracked file that is now a folder is gone (the folder's files are
        # paths of their own, or ignored); an untracked nested repository
        # would be a gitlink to git add -A, and is not indexed
        if old is not None:
            edits[path] = None
        return
    mode = _mode_of(st, filemode, old[1] if old else None)
    if mode == pygit2.GIT_FILEMODE_LINK:
        oid = repo.create_blob(os.readlink(full).encode("utf-8", "surrogateescape"))
    else:
        oid = repo.create_blob_fromworkdir(path)  # applies the repo's filters, as git add does
    if old is not None and old[0] == oid and old[1] == mode:
        return  # stat changed, content and mode did not
    edits[path] = (oid, mode)


def _state(
    repo: pygit2.Repository,
    head: pygit2.Commit | None,
    edits: dict[str, Edit],
    submodules: list[Submodule] | None = None,
    dirty_subs: list[str] | None = None,
) -> WorktreeState:
    """The state of HEAD's tree with ``edits`` applied."""
    base = head.tree if head is not None else None
    changed: dict[str, str] = {}
    for path, value in edits.items():
        if value is None:
            changed[storable_path(path)] = "deleted"
        else:
            changed[storable_path(path)] = "modified" if _entry(base, path) else "added"
    if edits or head is None:
        tree = str(_apply(repo, base, edits) or _empty_tree(repo))
    else:
        tree = str(head.tree_id)
    return WorktreeState(
        head=str(head.id) if head else None,
        head_tree=str(head.tree_id) if head else None,
        tree=tree,
        changed=dict(sorted(changed.items())),
        submodules=submodules or [],
        dirty_submodules=dirty_subs or [],
        edits=edits,
    )


def rehash(
    repo: pygit2.Repository, previous: WorktreeState, named: Iterable[str], limit: int = 1024
) -> WorktreeState | None:
    """``previous`` with only the ``named`` worktree paths read again: what a
    watcher's events said changed since ``previous`` was read. A named folder
    stands for every file under it, on disk now and in HEAD's tree or
    ``previous`` before (a folder renamed or deleted whole gives one event).

    None when this cannot be done exactly and the caller must ``scan``: HEAD
    is not ``previous``'s, the repository has submodules, a path is in a
    nested repository, or the named folders hold more than ``limit`` paths
    (a new ``node_modules``: the full read skips ignored folders whole)."""
    if repo.workdir is None or previous.submodules or _submodule_paths(repo):
        return None
    head = _head(repo)
    if (str(head.id) if head else None) != previous.head:
        return None
    base = head.tree if head is not None else None
    workdir = repo.workdir
    filemode = _config_bool(repo, "core.filemode", True)
    paths: set[str] = set()
    for name in named:
        paths.add(name)
        full = os.path.join(workdir, name)
        if os.path.isdir(full) and not os.path.islink(full):
            for folder, dirs, files in os.walk(full):
                if ".git" in dirs or ".git" in files:
                    return None  # a nested repository: the full scan decides
                rel = os.path.relpath(folder, workdir).replace(os.sep, "/")
                paths.update(f"{rel}/{f}" for f in files)
                paths.update(f"{rel}/{d}" for d in dirs if os.path.islink(os.path.join(folder, d)))
                if len(paths) > limit:
                    return None
        prefix = name + "/"
        paths.update(p for p in previous.edits if p.startswith(prefix))
        sub = _subtree(base, name)
        if sub is not None:
            paths.update(prefix + p for p in _blob_paths(sub))
        if len(paths) > limit:
            return None
    edits = dict(previous.edits)
    nested: dict[str, bool] = {}
    for path in sorted(paths):
        if _in_nested_repo(workdir, path, nested):
            return None
        edits.pop(path, None)
        try:
            flags = repo.status_file(path)
        except KeyError:  # nowhere: not in HEAD, the index or the worktree
            continue
        except (pygit2.GitError, ValueError):  # a folder, or a name libgit2 refuses
            return None
        _examine(repo, base, path, flags, filemode, edits)
    if _head_id(repo) != previous.head:
        return None  # a commit or checkout ran meanwhile
    return _state(repo, head, edits)


def _subtree(tree: pygit2.Tree | None, path: str) -> pygit2.Tree | None:
    e = _lookup(tree, path)
    return e if isinstance(e, pygit2.Tree) else None


def _blob_paths(tree: pygit2.Tree, prefix: str = "") -> Iterator[str]:
    for e in tree:
        name = prefix + (e.name or "")
        if isinstance(e, pygit2.Tree):
            yield from _blob_paths(e, name + "/")
        else:
            yield name


def _in_nested_repo(workdir: str, path: str, seen: dict[str, bool]) -> bool:
    """Whether a folder above ``path`` (below the worktree's root) holds a
    ``.git``; ``seen`` keeps each folder's answer for the next path."""
    folder = posixpath.dirname(path)
    if not folder:
        return False
    if folder not in seen:
        seen[folder] = os.path.lexists(os.path.join(workdir, folder, ".git")) or _in_nested_repo(
            workdir, folder, seen
        )
    return seen[folder]


def _lookup(tree: pygit2.Tree | None, path: str) -> pygit2.Object | None:
    if tree is None:
        return None
    try:
        return tree[path]
    except KeyError:
        return None


def _entry(tree: pygit2.Tree | None, path: str) -> tuple[pygit2.Oid, int] | None:
    e = _lookup(tree, path)
    if e is None or e.filemode == pygit2.GIT_FILEMODE_TREE:
        return None
    return e.id, int(e.filemode)


def _empty_tree(repo: pygit2.Repository) -> pygit2.Oid:
    return repo.TreeBuilder().write()


def _apply(
    repo: pygit2.Repository,
    tree: pygit2.Tree | None,
    edits: dict[str, Edit],
) -> pygit2.Oid | None:
    """Write ``tree`` with ``edits`` applied, rebuilding only the trees along the
    edited paths (a 50,000-file tree with 10 edits writes ~30 small trees, where
    an in-memory index reads and writes all 50,000 entries). None: empty tree,
    which git drops from its parent as it never records empty directories.

    Trees are written as git's bytes directly, not through a TreeBuilder:
    libgit2's builder takes only UTF-8 names and refuses a name such as
    ``..`` that a crafted tree holds, and a file name may be any bytes (pygit2
    hands them over surrogate-escaped)."""
    entries: dict[bytes, tuple[pygit2.Oid, int]] = {}
    if tree is not None:
        for e in tree:
            entries[_raw(e.name or "")] = (e.id, int(e.filemode))
    direct: dict[str, tuple[pygit2.Oid, int] | None] = {}
    nested: dict[str, dict[str, tuple[pygit2.Oid, int] | None]] = {}
    for path, value in edits.items():
        head, _, rest = path.partition("/")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            direct[head] = value
    # deletions first, then subtrees, then files: a path that changed between
    # file and directory ends with what the worktree has now
    for name, value in direct.items():
        if value is None:
            entries.pop(_raw(name), None)
    for name, sub_edits in nested.items():
        current = entries.get(_raw(name))
        is_tree = current is not None and current[1] == pygit2.GIT_FILEMODE_TREE
        subtree: Any = repo.get(current[0]) if is_tree and current is not None else None
        oid = _apply(repo, subtree, sub_edits)
        if oid is None:
            if is_tree:
                del entries[_raw(name)]
        else:
            entries[_raw(name)] = (oid, pygit2.GIT_FILEMODE_TREE)
    for name, value in direct.items():
        if value is not None:
            entries[_raw(name)] = value
    if not entries:
        return None
    return _write_tree(repo, entries)


def _raw(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


def _write_tree(
    repo: pygit2.Repository, entries: dict[bytes, tuple[pygit2.Oid, int]]
) -> pygit2.Oid:
    """One tree object in git's format: entries sorted as git sorts them (by
    name bytes, a subtree's name compared as if it ended in '/')."""

    def order(item: tuple[bytes, tuple[pygit2.Oid, int]]) -> bytes:
        name, (_oid, mode) = item
        return name + b"/" if mode == pygit2.GIT_FILEMODE_TREE else name

    body = b"".join(
        b"%o %s\0%s" % (mode, name, oid.raw)
        for name, (oid, mode) in sorted(entries.items(), key=order)
    )
    return repo.odb.write(pygit2.GIT_OBJECT_TREE, body)


def _config_bool(repo: pygit2.Repository, key: str, default: bool) -> bool:
    try:
        return bool(repo.config.get_bool(key))
    except (KeyError, pygit2.GitError):
        return default


def _submodule_paths(repo: pygit2.Repository) -> set[str]:
    """Gitlink paths of the repository's index. A submodule needs a .gitmodules
    file, so without one we skip walking every index entry in Python."""
    paths: set[str] = set()
    if not os.path.exists(os.path.join(repo.workdir or "", ".gitmodules")):
        return paths
    try:
        index = repo.index
    except pygit2.GitError:
        return paths
    for entry in index:
        if entry.mode == pygit2.GIT_FILEMODE_COMMIT:
            paths.add(entry.path)
    return paths


def _submodule_state(repo: pygit2.Repository, path: str) -> tuple[str | None, str | None, bool]:
    """(HEAD commit, worktree tree, dirty?) of a checked-out submodule; Nones when absent."""
    full = os.path.join(repo.workdir or "", path)
    found = pygit2.discover_repository(full)
    if found is None or not os.path.exists(os.path.join(full, ".git")):
        return None, None, False
    sub = pygit2.Repository(found)
    state = scan(sub)
    return state.head, state.tree, state.dirty
