"""The watcher behind a service's worktree proof (query/watch.py), on a real
repository with real file-system events.

The invariant checked throughout: every answer's ``worktreeTree`` equals the
article's recipe (``read-tree HEAD; add -A; write-tree``) computed at that
moment, whether the answer reused the watcher's checkpoint or scanned."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from freshindex.core.gitrepo import open_repo
from freshindex.query.watch import Watcher
from freshindex.service.core import QueryService
from freshindex.storage import open_store
from tests.repos import (
    SAMPLE_FILES,
    build_template,
    commit_all,
    copy_built,
    git,
    recipe_tree,
    write_files,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, prefect_api: str) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("watch"), SAMPLE_FILES)


@pytest.fixture
def served(template: tuple[Path, Path], tmp_path: Path) -> Iterator[tuple[Path, QueryService]]:
    repo, store = copy_built(template, tmp_path)
    service = QueryService(open_repo(repo), open_store(store), watch=True)
    try:
        yield repo, service
    finally:
        service.close()


def proven(repo: Path, service: QueryService) -> dict[str, Any]:
    doc = service.status()
    assert doc["worktreeTree"] == recipe_tree(repo), doc
    return doc


def test_nothing_changed_reuses_the_checkpoint_and_any_change_is_seen(
    served: tuple[Path, QueryService],
) -> None:
    repo, service = served
    first = proven(repo, service)
    assert first["worktreeSource"] == "scan" and first["freshness"] == "exact"
    again = proven(repo, service)
    assert again["worktreeSource"] == "checkpoint"  # proven by a cookie, no rescan
    assert again["worktreeSeq"] is not None

    write_files(repo, {"app/models.py": "def persist(obj):\n    return None\n"})
    edited = proven(repo, service)  # no sleep: the cookie orders the edit before the answer
    assert edited["worktreeSource"] == "scan" and edited["dirty"] is True
    assert edited["worktreeSeq"] > again["worktreeSeq"]
    assert proven(repo, service)["worktreeSource"] == "checkpoint"

    commit_all(repo, "an edit committed")
    committed = proven(repo, service)
    assert committed["worktreeSource"] == "scan" and committed["dirty"] is False
    assert service.watcher is not None and service.watcher.recrawls["git"] >= 1


def test_lost_watcher_events_never_pass_for_a_verified_state(
    served: tuple[Path, QueryService],
) -> None:
    """The watcher is killed; then edits, a delete, a rename and a branch
    switch. No answer may reuse a checkpoint it can no longer prove."""
    repo, service = served
    proven(repo, service)
    assert proven(repo, service)["worktreeSource"] == "checkpoint"
    watcher = service.watcher
    assert watcher is not None
    watcher.stop()  # as good as a crashed or suspended watcher: no more events
    write_files(repo, {"app/new.py": "def new():\n    pass\n"})
    (repo / "web" / "dom.js").unlink()
    (repo / "app" / "service.py").rename(repo / "app" / "services.py")
    git(repo, "checkout", "-q", "-b", "elsewhere")
    doc = proven(repo, service)
    assert doc["worktreeSource"] == "scan" and doc["freshness"] in ("overlay", "partial")
    assert doc["dirty"] is True
    assert watcher.recrawls["stopped"] >= 1


def test_a_watch_that_does_not_answer_the_cookie_is_a_recrawl(
    served: tuple[Path, QueryService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events queued or dropped: the cookie does not come back in time."""
    repo, service = served
    proven(repo, service)
    watcher = service.watcher
    assert watcher is not None
    monkeypatch.setattr(watcher, "SYNC_SECONDS", 0.0)  # a cookie that never returns in time
    write_files(repo, {"app/models.py": "def persist(obj):\n    return 2\n"})
    doc = proven(repo, service)
    assert doc["worktreeSource"] == "scan" and watcher.recrawls["sync-timeout"] >= 1


def test_random_edits_commits_and_checkouts_interleaved_with_answers(
    template: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, store = copy_built(template, tmp_path)
    git(repo, "branch", "other")
    service = QueryService(open_repo(repo), open_store(store), watch=True)
    rng = random.Random(20261204)
    reused = 0
    try:
        for step in range(150):
            files = sorted(
                p.relative_to(repo).as_posix()
                for p in repo.rglob("*")
                if p.is_file() and ".git" not in p.parts
            )
            op = rng.choice(
                ["edit", "edit", "add", "delete", "rename", "commit", "checkout", "none"]
            )
            if op == "edit" and files:
                write_files(repo, {rng.choice(files): f"x = {step}\n"})
            elif op == "add":
                write_files(
                    repo, {f"gen/d{rng.randrange(5)}/f{step}.py": f"def f{step}():\n    pass\n"}
                )
            elif op == "delete" and files:
                (repo / rng.choice(files)).unlink()
            elif op == "rename" and files:
                src = repo / rng.choice(files)
                dst = repo / "moved" / f"{step}-{src.name}"
                dst.parent.mkdir(exist_ok=True)
                src.rename(dst)
            elif op == "commit":
                commit_all(repo, f"step {step}")
            elif op == "checkout":
                branch = rng.choice(["main", "other"])
                commit_all(repo, f"before checkout {step}")
                git(repo, "checkout", "-q", branch)
            doc = proven(repo, service)
            reused += doc["worktreeSource"] == "checkpoint"
            if op == "none" and doc["worktreeSource"] == "scan":
                assert proven(repo, service)["worktreeSource"] == "checkpoint"
    finally:
        service.close()
    assert reused > 0


def test_a_plain_call_without_a_watcher_scans(template: tuple[Path, Path], tmp_path: Path) -> None:
    repo, store = copy_built(template, tmp_path)
    service = QueryService(open_repo(repo), open_store(store))
    doc = service.status()
    assert service.watcher is None and doc["worktreeSource"] == "scan"
    assert doc["worktreeSeq"] is None and doc["worktreeTree"] == recipe_tree(repo)


def test_a_bare_repository_cannot_be_watched(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "bare.git"))
    with pytest.raises(ValueError, match="bare"):
        Watcher(open_repo(tmp_path / "bare.git"))
    shutil.rmtree(tmp_path / "bare.git")


def test_a_worktree_moved_under_the_service_is_unknown_and_unhealthy(
    served: tuple[Path, QueryService],
) -> None:
    repo, service = served
    assert proven(repo, service)["freshness"] == "exact"
    moved = repo.with_name("moved-away")
    repo.rename(moved)
    doc = service.status()  # an answer that proves nothing, not an error
    assert doc["relation"] == "unknown" and doc["freshness"] == "stale", doc
    assert "is gone" in doc["reasons"][0]
    code, health = service.healthz()
    assert code == 503 and any("is gone" in p for p in health["problems"])
    from freshindex.core.exceptions import WorktreeGone

    with pytest.raises(WorktreeGone, match="is gone"):  # a query: one line over HTTP/MCP
        service.query("defs", "persist")
    moved.rename(repo)  # back: the service never went down
    assert proven(repo, service)["freshness"] == "exact"
    assert service.healthz()[0] == 200
