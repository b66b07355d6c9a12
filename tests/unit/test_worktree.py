"""worktreeTree against the article's recipe, with git itself as the oracle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2

from freshindex.query.worktree import scan
from tests.repos import make_repo, recipe_tree, write_files


def test_file_becomes_directory_and_directory_becomes_file(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"x": "file\n", "d/a.py": "a = 1\n", "d/b.py": "b = 1\n", "keep/k.py": "k\n"},
    )
    (repo / "x").unlink()
    write_files(repo, {"x/inner.py": "i = 1\n"})
    shutil.rmtree(repo / "d")
    (repo / "d").write_text("now a file\n")
    state = scan(pygit2.Repository(str(repo)))
    assert state.tree == recipe_tree(repo)


def test_emptied_directory_disappears_and_deep_paths(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a/b/c/d.py": "d\n", "a/b/e.py": "e\n", "z.py": "z\n"})
    (repo / "a" / "b" / "c" / "d.py").unlink()
    write_files(repo, {"n/e/w/deep.py": "x\n"})
    state = scan(pygit2.Repository(str(repo)))
    assert state.tree == recipe_tree(repo)
    assert state.changed == {"a/b/c/d.py": "deleted", "n/e/w/deep.py": "added"}


def test_clean_worktree_is_heads_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\n"})
    r = pygit2.Repository(str(repo))
    state = scan(r)
    assert state.tree == str(r.head.peel(pygit2.Commit).tree_id) and not state.dirty
