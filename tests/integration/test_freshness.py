"""The freshness proof: status, worktreeTree, overlays, partial and stale answers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pygit2
import pytest

from freshindex.cli import main
from freshindex.query.worktree import scan
from tests.repos import SAMPLE_FILES, commit_all, git, make_repo, recipe_tree, write_files

pytestmark = pytest.mark.slow


def cli(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["--repo", str(repo), "--json", *argv])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() else {})


@pytest.fixture
def indexed(prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    files = dict(SAMPLE_FILES)
    files["freshindex.toml"] = "overlay_budget_files = 5\n"
    files[".gitignore"] = "build/\n"
    repo = make_repo(tmp_path / "repo", files)
    assert main(["--repo", str(repo), "build", "--runner", "threads", "--shards", "4"]) == 0
    capsys.readouterr()
    return repo


def test_clean_worktree_is_exact(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = cli(capsys, indexed, "status", "--require-fresh")
    assert code == 0
    assert doc["freshness"] == "exact" and doc["relation"] == "equal" and doc["dirty"] is False
    assert doc["worktreeTree"] == recipe_tree(indexed) == git(indexed, "rev-parse", "HEAD^{tree}")
    assert doc["lagCommits"] == 0 and doc["reasons"] == []


def test_new_commits_within_budget_answer_from_an_overlay(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # delete a function, add one, rename a file
    write_files(
        indexed,
        {
            "app/models.py": '"""Models."""\n\n\nclass Model:\n    pass\n\n\ndef brand_new():\n    return 2\n'
        },
    )
    git(indexed, "mv", "web/dom.js", "web/render.js")
    commit_all(indexed, "change")
    assert cli(capsys, indexed, "status")[0] == 0
    _, doc = cli(capsys, indexed, "status")
    assert (
        doc["freshness"] == "overlay" and doc["relation"] == "ancestor" and doc["lagCommits"] == 1
    )
    assert doc["changedFiles"] == 2
    code, d = cli(capsys, indexed, "defs", "persist")
    assert code == 2 and d == {}  # no ghost of the deleted function: nothing defines it
    _, d = cli(capsys, indexed, "defs", "brand_new")
    assert [(r["path"], r["startLine"], r["origin"]) for r in d["results"]] == [
        ("app/models.py", 8, "overlay")
    ]
    _, d = cli(capsys, indexed, "defs", "render")
    assert [(r["path"], r["origin"]) for r in d["results"]] == [("web/render.js", "overlay")]
    _, d = cli(capsys, indexed, "refs", "persist")
    # the import and call in app/service.py are still there (unchanged file, from
    # the index); the call inside the rewritten models.py is gone
    assert {(r["path"], r["startLine"], r["origin"]) for r in d["results"]} == {
        ("app/service.py", 1, "index"),
        ("app/service.py", 8, "index"),
    }
    assert d["complete"] is True


def test_dirty_worktree_overlay(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (indexed / "app" / "service.py").write_text("def only_now():\n    pass\n")  # modified
    (indexed / "web" / "users.ts").unlink()  # deleted
    (indexed / "app" / "fresh.py").write_text("\n\ndef untracked_fn():\n    pass\n")  # untracked
    (indexed / "build").mkdir()
    (indexed / "build" / "ignored.py").write_text("def ignored_fn():\n    pass\n")  # ignored
    code, doc = cli(capsys, indexed, "status")
    assert code == 0
    assert doc["freshness"] == "overlay" and doc["dirty"] is True and doc["dirtyFiles"] == 3
    assert doc["worktreeTree"] == recipe_tree(indexed)
    _, d = cli(capsys, indexed, "defs", "untracked_fn")
    assert [(r["path"], r["startLine"], r["origin"]) for r in d["results"]] == [
        ("app/fresh.py", 3, "overlay")
    ]
    _, d = cli(capsys, indexed, "defs", "only_now")
    assert [r["origin"] for r in d["results"]] == ["overlay"]
    for gone in ("make_service", "getUser", "ignored_fn"):  # deleted, or in an ignored file
        code, d = cli(capsys, indexed, "defs", gone)
        assert code == 2 and d == {}, gone
    # the overlay cache makes a second query reuse the parsed files
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "freshindex" / "overlay"
    assert any(cache.rglob("*.json.zst"))


def test_worktree_tree_matches_recipe_for_modes_links_and_staging(indexed: Path) -> None:
    repo = pygit2.Repository(str(indexed))
    (indexed / "app" / "models.py").chmod(0o755)  # chmod +x
    os.symlink("app/models.py", indexed / "link.py")  # a symlink
    write_files(indexed, {"staged.py": "x = 1\n"})
    git(indexed, "add", "staged.py")  # staged but uncommitted
    state = scan(repo)
    assert state.tree == recipe_tree(indexed)
    assert set(state.changed) == {"app/models.py", "link.py", "staged.py"}
    # nothing was written to the repository's own index or refs
    assert git(indexed, "diff", "--cached", "--name-only") == "staged.py"


def test_over_budget_is_partial_and_never_claims_no_callers(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_files(indexed, {f"more/m{i}.py": f"def f{i}():\n    persist(1)\n" for i in range(8)})
    commit_all(indexed, "many files")
    code, d = cli(capsys, indexed, "refs", "persist")
    assert d["freshness"] == "partial" and any("budget" in r for r in d["reasons"])
    assert d["complete"] is False
    assert {r["origin"] for r in d["results"]} == {"source"}
    assert len([r for r in d["results"] if r["path"].startswith("more/")]) == 8
    code, _ = cli(capsys, indexed, "refs", "persist", "--require-fresh")
    assert code == 3
    # a path:line target is read from the file now: a partial package, not a refusal
    code, pkg = cli(capsys, indexed, "context", "app/models.py:9", "--budget", "2000")
    assert code == 0 and pkg["freshness"] == "partial"
    assert pkg["targets"][0]["name"] == "persist"
    target = pkg["items"][0]
    assert (target["tier"], target["origin"]) == ("target", "source")
    assert target["text"].startswith("def persist")


def test_lockfile_change_forces_partial(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(indexed, {"go.mod": "module example.com/x\n"})
    _, d = cli(capsys, indexed, "defs", "Model")
    assert d["freshness"] == "partial" and any("go.mod" in r for r in d["reasons"])
    assert [r["origin"] for r in d["results"]] == ["source"]


def test_diverged_branch_answers_from_the_tree_diff(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Index plus an overlay of diff(index tree, worktree) is exact for any
    indexed commit the repository has: a diverged branch within budget is
    overlay (tests/test_branches.py compares it with a fresh build)."""
    git(indexed, "checkout", "-q", "--orphan", "other")
    commit_all(indexed, "unrelated history")
    code, d = cli(capsys, indexed, "defs", "Model")
    assert d["freshness"] == "overlay" and d["relation"] == "diverged" and d["complete"] is True
    code, _ = cli(capsys, indexed, "status", "--require-fresh")
    assert code == 0


def test_unknown_commit_is_stale(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    git(repo, "checkout", "-q", "-b", "doomed")
    write_files(repo, {"x.py": "def x():\n    pass\n"})
    commit_all(repo, "to be lost")
    assert main(["--repo", str(repo), "build", "--runner", "threads", "--shards", "2"]) == 0
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-D", "doomed")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    capsys.readouterr()
    _, d = cli(capsys, repo, "status")
    assert d["relation"] == "unknown" and d["freshness"] == "stale"


def test_config_change_is_stale(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (indexed / "freshindex.toml").write_text("overlay_budget_files = 7\n")
    _, d = cli(capsys, indexed, "status")
    assert d["freshness"] == "stale" and any("configuration" in r for r in d["reasons"])


def test_dirty_submodule_is_reported_not_folded_in(
    indexed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = make_repo(tmp_path / "subsrc", {"lib.py": "def lib():\n    pass\n"})
    git(
        indexed,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(sub),
        "vendor/sub",
    )
    commit_all(indexed, "add submodule")
    (indexed / "vendor" / "sub" / "lib.py").write_text("def changed():\n    pass\n")
    _, d = cli(capsys, indexed, "status")
    assert [s["path"] for s in d["submodules"]] == ["vendor/sub"]
    assert any("submodule vendor/sub" in r for r in d["reasons"])
    assert d["worktreeTree"] == recipe_tree(indexed)


def test_a_version_failing_verification_is_stale(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = indexed / ".git" / "freshindex"
    manifest = next(store.glob("versions/*/manifest.json"))
    manifest.write_text(manifest.read_text().replace('"shards":4', '"shards":5'))
    code, doc = cli(capsys, indexed, "status", "--require-fresh")
    assert code == 3
    assert doc["freshness"] == "stale" and "fails verification" in doc["reasons"][0]


def test_a_version_bump_in_a_manifest_keeps_the_overlay(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A manifest forces a rebuild only when it changes what the index reads:
    a version bump or a pin is overlaid; a package root is not."""
    pyproject = '[project]\nname = "shop"\nversion = "1.0"\ndependencies = ["a==1"]\n'
    repo = make_repo(
        tmp_path / "r", {"pyproject.toml": pyproject, "shop/a.py": "def a():\n    return 1\n"}
    )
    assert cli(capsys, repo, "build", "--runner", "threads", "--shards", "2")[0] == 0
    write_files(repo, {"pyproject.toml": pyproject.replace("1.0", "1.1").replace("a==1", "a==2")})
    commit_all(repo, "release 1.1")
    write_files(repo, {"package-lock.json": '{"lockfileVersion": 3}\n'})  # a lockfile, dirty
    _, doc = cli(capsys, repo, "defs", "a")
    assert doc["freshness"] == "overlay", doc["reasons"]
    write_files(repo, {"pyproject.toml": pyproject + '[tool.setuptools.package-dir]\n"" = "src"\n'})
    _, doc = cli(capsys, repo, "status")
    assert doc["freshness"] == "partial" and any("pyproject.toml" in r for r in doc["reasons"])
    commit_all(repo, "src layout")
    code, out = cli(capsys, repo, "update")  # an update rebuilds for the package root
    assert code == 0 and out["mode"] == "full", out
