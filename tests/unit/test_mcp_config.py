"""`freshindex mcp --print-config`: an agent host's MCP entry that works from
anywhere: the interpreter by absolute path, the repository, and the store."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path

from freshindex.cli import main
from tests.repos import make_repo


def _config(*argv: str) -> dict[str, object]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


def test_the_printed_config_runs_from_another_folder(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
    store = (tmp_path / "store").as_uri()
    doc = _config("--repo", str(repo / "."), "--store", store, "mcp", "--print-config")
    entry = doc["mcpServers"]["freshindex"]  # type: ignore[index]
    assert Path(entry["command"]).is_absolute()
    assert entry["args"][-1] == "mcp" and store in entry["args"]
    # the same interpreter and arguments, from elsewhere, with no PATH at all
    done = subprocess.run(
        [entry["command"], *entry["args"][:-1], "status"],
        cwd=tmp_path, env={"HOME": str(tmp_path)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "no published index" in done.stdout + done.stderr


def test_vscode_has_its_own_shape(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    doc = _config("--repo", str(repo), "mcp", "--print-config", "vscode")
    server = doc["servers"]["freshindex"]  # type: ignore[index]
    assert server["type"] == "stdio" and server["args"][:2] == ["-m", "freshindex"]
