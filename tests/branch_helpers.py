"""What the feature-branch tests share (tests/test_branches.py and
tests/acceptance/test_branch_bases.py): the CLI in process, a thread-runner
build, a canonical dump, and the reference: a from-scratch build of the
worktree as it is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from freshindex.cli import main
from tests.repos import commit_all


def cli(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> tuple[int, str]:
    code = main(["--repo", str(repo), *argv])
    return code, capsys.readouterr().out


def build(capsys: pytest.CaptureFixture[str], repo: Path, store: str) -> str:
    """A 4-shard build on the thread runner; the version it published."""
    code, out = cli(capsys, repo, "--store", store, "--json", "build", "--runner", "threads",
                    "--shards", "4")  # fmt: skip
    assert code == 0, out
    return str(json.loads(out)["version"])


def dump(capsys: pytest.CaptureFixture[str], repo: Path, store: str) -> dict[str, list[str]]:
    out = {}
    for table in ("symbols", "edges"):
        code, text = cli(capsys, repo, "--store", store, "dump", "--table", table, "--no-ids")
        assert code == 0
        out[table] = text.splitlines()[1:]
    return out


def from_scratch(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> dict[str, list[str]]:
    """A fresh build of the worktree as it is: a copy, everything committed."""
    copy = tmp_path / "scratch"
    shutil.copytree(repo, copy, symlinks=True)
    commit_all(copy, "the worktree as it is")
    store = (tmp_path / "scratch-store").as_uri()
    build(capsys, copy, store)
    return dump(capsys, copy, store)
