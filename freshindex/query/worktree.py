"""The worktree as git would commit it now: its tree OID, and which paths differ from HEAD.

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
import stat
from dataclasses import dataclass, field
from typing import Any

import pygit2

from freshindex.core.exceptions import BadInput
from freshindex.core.manifest import Submodule
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


def scan(repo: pygit2.Repository) -> WorktreeState:
    """HEAD, the worktree's tree OID, and the paths that differ from HEAD."""
    if repo.is_bare or repo.workdir is None:
        raise BadInput(f"{repo.path} is a bare repository: it has no worktree to compare with")
    head = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit)
    workdir = repo.workdir
    filemode = _config_bool(repo, "core.filemode", True)
    submodule_paths = _submodule_paths(repo)

    status = repo.status(untracked_files="all", ignored=False)
    changed: dict[str, str] = {}
    if not submodule_paths and not any(f & (_WT_CHANGED | _INDEX_CHANGED) for f in status.values()):
        # the common case, clean: HEAD's tree is the worktree's, nothing to build
        tree = str(head.tree_id) if head is not None else str(pygit2.Index().write_tree(repo))
        return WorktreeState(
            head=str(head.id) if head else None,
            head_tree=str(head.tree_id) if head else None,
            tree=tree,
        )
    base = head.tree if head is not None else None
    edits: dict[str, tuple[pygit2.Oid, int] | None] = {}  # path -> new (oid, mode), None: deleted
    dirty_subs: list[str] = []
    for path, flags in sorted(status.items()):
        if path.rstrip("/") in submodule_paths:
            continue  # handled below from the submodule's own HEAD
        if not flags & (_WT_CHANGED | _INDEX_CHANGED):
            continue
        old = _entry(base, path)
        full = os.path.join(workdir, path)
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):  # gone, or its folder is now a file
            if old is not None:
                edits[path] = None
                changed[storable_path(path)] = "deleted"
            continue
        if stat.S_ISDIR(st.st_mode):
            continue  # an untracked nested repository: git add -A would make it a gitlink; not indexed
        mode = _mode_of(st, filemode, old[1] if old else None)
        if mode == pygit2.GIT_FILEMODE_LINK:
            oid = repo.create_blob(os.readlink(full).encode("utf-8", "surrogateescape"))
        else:
            oid = repo.create_blob_fromworkdir(path)  # applies the repo's filters, as git add does
        if old is not None and old[0] == oid and old[1] == mode:
            continue  # stat changed, content and mode did not
        edits[path] = (oid, mode)
        changed[storable_path(path)] = "modified" if old is not None else "added"

    submodules: list[Submodule] = []
    for sub_path in sorted(submodule_paths):
        sub_head, sub_tree, sub_dirty = _submodule_state(repo, sub_path)
        submodules.append(Submodule(path=sub_path, head=sub_head, tree=sub_tree))
        if sub_dirty:
            dirty_subs.append(sub_path)
        if sub_head is not None:
            old = _entry(base, sub_path)
            if old is None or str(old[0]) != sub_head:
                edits[sub_path] = (pygit2.Oid(hex=sub_head), pygit2.GIT_FILEMODE_COMMIT)
                changed[sub_path] = "modified" if old is not None else "added"

    if edits or head is None:
        tree = str(_apply(repo, base, edits) or _empty_tree(repo))
    else:
        tree = str(head.tree_id)
    return WorktreeState(
        head=str(head.id) if head else None,
        head_tree=str(head.tree_id) if head else None,
        tree=tree,
        changed=changed,
        submodules=submodules,
        dirty_submodules=dirty_subs,
    )


def _entry(tree: pygit2.Tree | None, path: str) -> tuple[pygit2.Oid, int] | None:
    if tree is None:
        return None
    try:
        e = tree[path]
    except KeyError:
        return None
    if e.filemode == pygit2.GIT_FILEMODE_TREE:
        return None
    return e.id, int(e.filemode)


def _empty_tree(repo: pygit2.Repository) -> pygit2.Oid:
    return repo.TreeBuilder().write()


def _apply(
    repo: pygit2.Repository,
    tree: pygit2.Tree | None,
    edits: dict[str, tuple[pygit2.Oid, int] | None],
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
