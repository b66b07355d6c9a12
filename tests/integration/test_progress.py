"""Progress of build and update: the flow reports each shard task as it ends
and its publish steps; the CLI draws a rich bar on a terminal only."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from freshindex.cli import main
from freshindex.flows.progress import listening
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def shards(self, total: int) -> None:
        self.events.append(("shards", total))

    def shard_done(self, files: int, table_bytes: int) -> None:
        assert table_bytes > 0
        self.events.append(("done", files))

    def step(self, name: str) -> None:
        self.events.append(("step", name))


def test_the_flows_report_shards_and_steps(prefect_api: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    recorder = Recorder()
    with listening(recorder):
        assert (
            main(
                [
                    "--repo",
                    str(repo),
                    "--store",
                    store,
                    "build",
                    "--runner",
                    "threads",
                    "--shards",
                    "4",
                ]
            )
            == 0
        )
    kinds = [e[0] for e in recorder.events]
    assert recorder.events[0] == ("shards", 4)
    assert kinds.count("done") == 4
    assert sum(v for k, v in recorder.events if k == "done") == len(SAMPLE_FILES)  # type: ignore[misc]
    assert recorder.events[-2:] == [("step", "validating"), ("step", "publishing")]

    write_files(repo, {"app/extra.py": "def extra():\n    pass\n"})
    commit_all(repo, "one more")
    recorder = Recorder()
    with listening(recorder):
        assert main(["--repo", str(repo), "--store", store, "update"]) == 0
    assert [e[0] for e in recorder.events][-2:] == ["step", "step"]
    assert ("shards", 1) in recorder.events


def _stderr_on_a_terminal(argv: list[str]) -> tuple[int, str]:
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).decode(errors="replace")


def test_a_bar_on_a_terminal_only(prefect_api: str, tmp_path: Path) -> None:
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(300)}
    repo = make_repo(tmp_path / "repo", files)
    cmd = [str(BIN / "freshindex"), "--repo", str(repo), "--store", (tmp_path / "s").as_uri(),
           "build", "--runner", "threads", "--shards", "16"]  # fmt: skip
    code, err = _stderr_on_a_terminal(cmd)
    assert code == 0, err
    assert "MB written" in err and "/16" in err, err
    code, err = _stderr_on_a_terminal([*cmd[:5], "--json", *cmd[5:]])
    assert code == 0 and "MB written" not in err, err
