"""`freshindex api start` keeps one Prefect API across commands: a build or
update with no PREFECT_API_URL uses it instead of starting its own, and
`freshindex api stop` ends it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import BIN
from tests.repos import commit_all, make_repo, write_files

pytestmark = pytest.mark.slow


def test_commands_share_the_kept_api(tmp_path: Path, s3_server: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # where the kept API is recorded
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "freshindex"), *argv], env=env, capture_output=True,
                              text=True, timeout=300)  # fmt: skip

    started = cli("--json", "api", "start")
    assert started.returncode == 0, started.stderr
    kept = json.loads(started.stdout)
    try:
        assert kept["started"] is True
        again = json.loads(cli("--json", "api", "start").stdout)
        assert again["started"] is False and again["url"] == kept["url"]
        repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
        store = (tmp_path / "store").as_uri()
        built = cli("-v", "--repo", str(repo), "--store", store, "--json", "build",
                    "--runner", "threads", "--shards", "2")  # fmt: skip
        assert built.returncode == 0, built.stderr
        assert json.loads(built.stdout)["prefectApi"] == kept["url"]
        assert "starting one local Prefect API" not in built.stderr
        write_files(repo, {"b.py": "def b():\n    return 2\n"})
        commit_all(repo, "b")
        updated = cli("--repo", str(repo), "--store", store, "--json", "update")
        assert updated.returncode == 0, updated.stderr
        doc = json.loads(updated.stdout)
        assert doc["outcome"] == "published" and doc["prefectApi"] == kept["url"]
    finally:
        stopped = json.loads(cli("--json", "api", "stop").stdout)
    assert stopped["stopped"] is True
    assert json.loads(cli("--json", "api", "status").stdout)["running"] is False
