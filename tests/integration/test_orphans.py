"""A build that is SIGKILLed leaves nothing running: not its embedded Prefect
API (started in a session of its own), not its Dask scheduler, workers or
forkserver. Each process it started is found afterwards by the marker in its
environment, which every child inherits, and by the build's session."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from freshindex.storage import open_store
from tests.conftest import BIN
from tests.repos import make_repo

pytestmark = pytest.mark.slow

MARK = "FRESHINDEX_TEST_MARK"


def _started_by(mark: str, session: int) -> list[str]:
    """Live processes carrying ``mark`` in their environment or in ``session``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            state, sid = stat.rsplit(")", 1)[1].split()[0], int(stat.rsplit(")", 1)[1].split()[4])
            environ = (entry / "environ").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not ours to read
        if state == "Z":
            continue
        if f"{MARK}={mark}".encode() in environ.split(b"\0") or sid == session:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            found.append(f"{entry.name}: {cmdline[:120].decode(errors='replace')}")
    return found


@pytest.mark.parametrize("kill_at", ["api-starting", "shards", "publish"])
def test_a_sigkilled_build_leaves_no_process(tmp_path: Path, kill_at: str) -> None:
    files: dict[str, str | bytes] = {
        f"pkg{i // 40}/m{i}.py": f"def f{i}():\n    return g{i}()\n\n\ndef g{i}():\n    return {i}\n"
        for i in range(800)
    }
    repo = make_repo(tmp_path / "repo", files)
    store = (tmp_path / "store").as_uri()
    mark = uuid.uuid4().hex
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update({MARK: mark, "PREFECT_HOME": str(tmp_path / "prefect-home")})
    said = tmp_path / "build.stderr"
    cmd = [str(BIN / "freshindex"), "-v", "--repo", str(repo), "--store", store, "build",
           "--shards", "32", "--workers", "1"]  # fmt: skip
    with said.open("wb") as err:
        build = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
        )
    s = open_store(store)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and build.poll() is None:
            text = said.read_text(errors="replace")
            if kill_at == "api-starting" and "starting one local Prefect API" in text:
                time.sleep(1.0)  # the server process exists, and is not ready yet
                break
            if kill_at == "shards" and any("/shards/" in k for k in s.list("versions/")):
                break
            if kill_at == "publish" and "publish slot" in text:
                break
            time.sleep(0.05)
        assert build.poll() is None, f"the build ended before {kill_at}: {said.read_text()}"
        assert _started_by(mark, build.pid), "nothing found to check"
    finally:
        build.send_signal(signal.SIGKILL)  # the command alone, as the OOM killer does
        build.wait()
    deadline = time.monotonic() + 10
    left = _started_by(mark, build.pid)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = _started_by(mark, build.pid)
    try:
        assert left == [], f"alive 10 s after the SIGKILL at {kill_at}: {left}"
    finally:
        for line in left:  # leave no orphan to the rest of the suite either
            pid = int(line.split(":", 1)[0])
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
