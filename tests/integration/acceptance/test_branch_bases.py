"""Feature branches answered from the nearest published version (query/bases.py).

main has two published versions: v1 at its first commit and v2 (current) at
its tip, twelve files later; the overlay budget is 8 files. A branch forked
at or after v1's commit is within budget of v1 and over budget of v2: its
answers must come from v1 plus an overlay, proven, and equal a from-scratch
build of the same tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freshindex.core.gitrepo import open_repo
from freshindex.service.warm import QueryService
from freshindex.storage import open_store
from tests.branch_helpers import build, cli, dump, from_scratch
from tests.repos import SAMPLE_FILES, commit_all, git, make_repo, write_files

pytestmark = pytest.mark.slow


def status(capsys: pytest.CaptureFixture[str], repo: Path, store: str) -> dict:  # type: ignore[type-arg]
    code, out = cli(capsys, repo, "--store", store, "--json", "status", "--require-fresh")
    doc = json.loads(out)
    doc["exit"] = code
    return doc  # type: ignore[no-any-return]


@pytest.fixture
def two_versions(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str, str, str]:
    """(repo, store, v1, v2): v1 at main's first commit (tagged v1), a commit
    between (tagged between), v2 at main's tip, current."""
    repo = make_repo(
        tmp_path / "repo", {**SAMPLE_FILES, "freshindex.toml": "overlay_budget_files = 8\n"}
    )
    git(repo, "tag", "v1")
    store = (tmp_path / "store").as_uri()
    v1 = build(capsys, repo, store)
    write_files(repo, {"app/between.py": "def between():\n    return 0\n"})
    commit_all(repo, "a commit no version indexes")
    git(repo, "tag", "between")
    write_files(repo, {f"bulk/m{i}.py": f"def bulk{i}():\n    return {i}\n" for i in range(12)})
    commit_all(repo, "main moves twelve files on")
    v2 = build(capsys, repo, store)
    return repo, store, v1, v2


def test_a_branch_forked_from_an_older_version_answers_from_it(
    two_versions: tuple[Path, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store, v1, v2 = two_versions
    git(repo, "checkout", "-q", "-b", "feature", "v1")
    write_files(repo, {"app/feature.py": "from app.models import Model\n\n\ndef on_branch():\n    return Model()\n"})  # fmt: skip
    commit_all(repo, "a feature")
    write_files(repo, {"app/dirty.py": "def not_committed():\n    pass\n"})

    doc = status(capsys, repo, store)
    assert doc["exit"] == 0, doc  # --require-fresh: a base within budget
    assert doc["baseVersion"] == doc["indexVersion"] == v1 and doc["currentVersion"] == v2
    assert doc["relation"] == "ancestor" and doc["freshness"] == "overlay", doc
    assert doc["baseReason"].startswith("nearest published ancestor of HEAD, 1 commit(s) back")

    _, out = cli(capsys, repo, "--store", store, "--json", "defs", "on_branch")
    assert [r["path"] for r in json.loads(out)["results"]] == ["app/feature.py"]
    code, out = cli(capsys, repo, "--store", store, "--json", "defs", "bulk3")
    assert code == 2 and out == ""  # main's only, provably: an unknown target here
    assert dump(capsys, repo, store) == from_scratch(capsys, repo, tmp_path)


def test_a_commit_between_two_versions_and_a_detached_head(
    two_versions: tuple[Path, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store, v1, _v2 = two_versions
    git(repo, "checkout", "-q", "--detach", "between")  # never indexed, one file from v1
    doc = status(capsys, repo, store)
    assert doc["exit"] == 0 and doc["baseVersion"] == v1 and doc["freshness"] == "overlay"
    assert doc["changedFiles"] == 1 and doc["lagCommits"] == 1

    git(repo, "checkout", "-q", "-b", "mid")
    write_files(repo, {"app/mid.py": "from app.between import between\n\n\ndef mid():\n    return between()\n"})  # fmt: skip
    commit_all(repo, "a branch from between the versions")
    doc = status(capsys, repo, store)
    assert doc["baseVersion"] == v1 and doc["lagCommits"] == 2, doc
    _, out = cli(capsys, repo, "--store", store, "--json", "refs", "between")
    refs = json.loads(out)
    assert {r["path"] for r in refs["bound"]} == {"app/mid.py"}, refs  # the import and the call
    assert dump(capsys, repo, store) == from_scratch(capsys, repo, tmp_path)


def test_over_budget_from_every_base_is_partial_never_exact(
    two_versions: tuple[Path, str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store, v1, _v2 = two_versions
    git(repo, "checkout", "-q", "-b", "big", "v1")
    write_files(repo, {f"gen/m{i}.py": f"def g{i}():\n    pass\n" for i in range(10)})
    commit_all(repo, "over the budget of 8 from v1, and further from v2")
    doc = status(capsys, repo, store)
    assert doc["exit"] == 3 and doc["freshness"] == "partial", doc
    assert doc["baseVersion"] == v1  # the closer base, still over budget
    _, out = cli(capsys, repo, "--store", store, "--json", "defs", "g3")
    answer = json.loads(out)
    assert answer["freshness"] == "partial" and answer["complete"] is False
    assert [r["origin"] for r in answer["results"]] == ["source"]


def test_a_rebased_branch_goes_back_to_the_current_version(
    two_versions: tuple[Path, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store, v1, v2 = two_versions
    git(repo, "checkout", "-q", "-b", "feature", "v1")
    write_files(repo, {"app/feature.py": "def rebased_fn():\n    pass\n"})
    commit_all(repo, "a feature")
    assert status(capsys, repo, store)["baseVersion"] == v1
    git(repo, "rebase", "-q", "main")
    doc = status(capsys, repo, store)
    assert doc["baseVersion"] == v2 and doc["relation"] == "ancestor", doc
    assert doc["baseReason"] == "current version, tree diff of 1 file(s)"
    assert dump(capsys, repo, store) == from_scratch(capsys, repo, tmp_path)


def test_a_running_service_follows_a_forced_branch_switch(
    two_versions: tuple[Path, str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store, v1, v2 = two_versions
    service = QueryService(open_repo(repo), open_store(store))
    assert service.status()["baseVersion"] == v2
    assert service.status()["freshness"] == "exact"

    write_files(repo, {"app/service.py": "def half_edited(:\n"})  # a dirty file in the way
    git(repo, "checkout", "-q", "-f", "-b", "feature", "v1")
    write_files(repo, {"app/feature.py": "def on_branch():\n    pass\n"})
    commit_all(repo, "a feature")
    doc = service.query("defs", "on_branch")
    assert doc["baseVersion"] == v1 and doc["freshness"] == "overlay", doc
    assert [r["path"] for r in doc["results"]] == ["app/feature.py"]
    assert v1 in service.bases.loaded()

    git(repo, "checkout", "-q", "-f", "main")
    doc = service.status()
    assert doc["baseVersion"] == v2 and doc["freshness"] == "exact", doc


def test_update_on_a_branch_publishes_to_its_own_pointer_from_the_nearest_version(
    two_versions: tuple[Path, str, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from freshindex.catalog.layout import branch_pointers, read_pointer

    repo, store, v1, v2 = two_versions
    git(repo, "checkout", "-q", "-b", "feature/x", "v1")
    write_files(repo, {"app/feature.py": "from app.models import persist\n\n\ndef f():\n    return persist(1)\n"})  # fmt: skip
    commit_all(repo, "a feature")
    code, out = cli(capsys, repo, "--store", store, "--json", "update", "--runner", "threads")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["mode"] == "incremental" and doc["parentVersion"] == v1, doc
    assert doc["branch"] == "feature/x" and doc["pointer"] == "current@feature%2Fx.json"
    on_branch = doc["version"]
    assert read_pointer(open_store(store)).pointer.version == v2  # type: ignore[union-attr]
    assert branch_pointers(open_store(store))["feature/x"].version == on_branch

    state = status(capsys, repo, store)
    assert state["baseVersion"] == on_branch and state["freshness"] == "exact", state
    assert state["currentVersion"] == v2
    expected = from_scratch(capsys, repo, tmp_path)
    assert dump(capsys, repo, store) == expected

    # gc keeps what the branch needs: its pointer's version, and the files
    # of v1 that version inherits; main's HEAD is answered from v2
    code, out = cli(capsys, repo, "--store", store, "--json", "gc", "--keep", "1")
    report = json.loads(out)
    assert code == 0 and set(report["kept"]) == {v2, on_branch}, report
    assert report["branchBases"] == {"feature/x": on_branch, "main": v2}
    assert dump(capsys, repo, store) == expected
    git(repo, "checkout", "-q", "main")
    assert status(capsys, repo, store)["baseVersion"] == v2
