"""The one gate every read of a worktree file passes, for any answer.

The CLI, the HTTP service, the MCP server, context packages, overlays and the
source scan read files of the worktree to answer. Each such read goes through
``WorktreeGuard``: the path is taken relative to the worktree, must not be
absolute or hold a ``..`` (or any other segment indexing refuses as
``invalid-path``), must not name a file indexing skips as ``secret``, and,
with every symlink resolved, must still be inside the worktree and still not
a secret. Indexing (indexer/document.py) and answering share these two
definitions, so nothing an answer prints was refused by the build.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

import pygit2

from freshindex.core.exceptions import PathRefused
from freshindex.indexer.config import IndexConfig
from freshindex.indexer.document import path_problem


@dataclass(frozen=True)
class WorktreeGuard:
    root: str  # the worktree's real path (symlinks resolved)
    config: IndexConfig

    @classmethod
    def of(cls, repo: pygit2.Repository, config: IndexConfig) -> WorktreeGuard:
        return cls(os.path.realpath(repo.workdir or "."), config)

    def relative(self, path: str) -> str:
        """A user's path as a clean repository-relative one, or PathRefused.

        ``./a//b`` becomes ``a/b``; an absolute path or any ``..`` segment is
        refused as it is given, before anything is resolved."""
        if not path or "\0" in path:
            raise PathRefused("an empty or malformed path is not a file of the repository")
        if path.startswith(("/", "\\")) or os.path.isabs(path):
            raise PathRefused(
                f"{path!r} is an absolute path: give a path relative to the repository"
            )
        if ".." in path.replace("\\", "/").split("/"):
            raise PathRefused(f"{path!r} leaves the repository ('..' is not allowed)")
        clean = posixpath.normpath(path)
        self.check(clean)
        return clean

    def refusal(self, rel: str) -> str | None:
        """Why the repository-relative ``rel`` may not be read, or None."""
        problem = path_problem(rel)
        if problem:
            return f"{rel!r} is not a readable repository path ({problem})"
        if self.config.is_secret(rel):
            return f"{rel!r} is a secret file: never read for an answer"
        real = os.path.realpath(os.path.join(self.root, rel))
        if real != self.root and not real.startswith(self.root + os.sep):
            return f"{rel!r} resolves outside the repository (through a symlink)"
        target = os.path.relpath(real, self.root).replace(os.sep, "/")
        if target != rel and self.config.is_secret(target):
            return f"{rel!r} leads to a secret file ({target})"
        if target != rel and path_problem(target):
            return f"{rel!r} leads into {target!r}, which is not a readable repository path"
        return None

    def check(self, rel: str) -> None:
        reason = self.refusal(rel)
        if reason:
            raise PathRefused(reason)

    def path(self, rel: str) -> Path:
        """The file to read for ``rel``; PathRefused when it may not be read."""
        self.check(rel)
        return Path(self.root, rel)

    def read_bytes(self, rel: str) -> bytes:
        return self.path(rel).read_bytes()
