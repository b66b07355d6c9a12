"""Feature branches get proven answers: version V plus an overlay of
diff(V's tree, the worktree) is exact for any V that is in the repository,
ancestor of HEAD or not, because the overlay replaces every path that differs.
Each scenario is compared with a from-scratch build of the same tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.branch_helpers import build, cli, dump, from_scratch
from tests.repos import SAMPLE_FILES, commit_all, git, make_repo, write_files

pytestmark = pytest.mark.slow


@pytest.fixture
def main_history(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """main: fork point, then a commit that moves a function; indexed at main's tip."""
    repo = make_repo(
        tmp_path / "repo", {**SAMPLE_FILES, "freshindex.toml": "overlay_budget_files = 8\n"}
    )
    git(repo, "branch", "fork-point")
    write_files(
        repo,
        {
            "app/extra.py": "from app.models import persist\n\n\ndef on_main():\n    return persist(1)\n"
        },
    )
    commit_all(repo, "main moves on")
    store = (tmp_path / "store").as_uri()
    build(capsys, repo, store)
    return repo, store


def test_branch_forked_before_the_indexed_commit(
    main_history: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store = main_history
    git(repo, "checkout", "-q", "-b", "feature", "fork-point")
    write_files(
        repo,
        {
            "app/feature.py": "from app.models import Model\n\n\ndef on_branch():\n    return Model()\n"
        },
    )
    commit_all(repo, "a feature")
    write_files(repo, {"app/dirty.py": "def not_committed():\n    pass\n"})  # and a dirty file

    code, out = cli(capsys, repo, "--store", store, "--json", "status", "--require-fresh")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["relation"] == "diverged" and doc["freshness"] == "overlay", doc
    assert doc["baseCommit"] == doc["indexCommit"] and doc["baseVersion"] == doc["indexVersion"]
    assert any("not an ancestor" in r for r in doc["reasons"]), doc["reasons"]

    code, out = cli(capsys, repo, "--store", store, "--json", "defs", "on_branch")
    assert [r["path"] for r in json.loads(out)["results"]] == ["app/feature.py"]
    code, out = cli(capsys, repo, "--store", store, "--json", "defs", "on_main")
    assert code == 2 and out == ""  # gone on this branch, provably: an unknown target
    assert dump(capsys, repo, store) == from_scratch(capsys, repo, tmp_path)


def test_rebased_branch_and_detached_head(
    main_history: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store = main_history
    git(repo, "checkout", "-q", "-b", "feature", "fork-point")
    write_files(repo, {"app/feature.py": "def rebased_fn():\n    pass\n"})
    commit_all(repo, "a feature")
    git(repo, "rebase", "-q", "main")  # now a descendant of the indexed commit
    git(repo, "checkout", "-q", "--detach", "HEAD~0")
    code, out = cli(capsys, repo, "--store", store, "--json", "status")
    doc = json.loads(out)
    assert code == 0 and doc["relation"] == "ancestor" and doc["freshness"] == "overlay"
    assert dump(capsys, repo, store) == from_scratch(capsys, repo, tmp_path)


def test_a_branch_over_budget_is_partial_never_exact(
    main_history: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store = main_history
    git(repo, "checkout", "-q", "-b", "big", "fork-point")
    write_files(repo, {f"gen/m{i}.py": f"def g{i}():\n    pass\n" for i in range(20)})
    commit_all(repo, "over the budget of 8")
    _, out = cli(capsys, repo, "--store", store, "--json", "defs", "g3")
    doc = json.loads(out)
    assert doc["freshness"] == "partial" and doc["complete"] is False
    assert [r["origin"] for r in doc["results"]] == ["source"]
    code, _ = cli(capsys, repo, "--store", store, "status", "--require-fresh")
    assert code == 3
