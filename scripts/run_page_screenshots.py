"""Screenshots of the Prefect run pages a user clicks, for docs/deploying.md.

Starts a Prefect server with its UI on a free port, runs the manual flow
twice on a small repository made here (a full rebuild, then an incremental
run with nothing to do), and has headless Chromium photograph each run's
page: docs/images/run-page-published.png and run-page-noop.png.

    .venv/bin/python scripts/run_page_screenshots.py   # needs chromium (Debian: apt-get install chromium)
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "images"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait(url: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"{url} did not answer")


def shoot(url: str, out: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("no chromium on PATH (Debian: apt-get install chromium)")
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=1400,900", "--virtual-time-budget=20000",
         f"--screenshot={out}", url],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def main() -> None:
    from tests.repos import SAMPLE_FILES, make_repo

    tmp = Path(tempfile.mkdtemp(prefix="freshindex-shots-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PREFECT_HOME": str(tmp / "prefect-home"),
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_API_URL": f"{base}/api",
           "PREFECT_UI_API_URL": f"{base}/api"}  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
         "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait(f"{base}/api/health")
        repo = make_repo(tmp / "repo", SAMPLE_FILES)
        store = (tmp / "store").as_uri()
        runs = subprocess.run(
            [sys.executable, "-c",
             "import sys\n"
             "from freshindex.flows.deployments import manual_flow\n"
             f"a = manual_flow(repo={str(repo)!r}, store={store!r}, full=True, return_state=True)\n"
             f"b = manual_flow(repo={str(repo)!r}, store={store!r}, return_state=True)\n"
             "print(a.state_details.flow_run_id, b.state_details.flow_run_id)\n"],
            env=env, capture_output=True, text=True, check=True, timeout=300,
        ).stdout.split()  # fmt: skip
        OUT.mkdir(parents=True, exist_ok=True)
        time.sleep(3)  # the run's logs and artifacts reach the server
        for run_id, name in zip(runs[-2:], ("published", "noop"), strict=True):
            shoot(f"{base}/runs/flow-run/{run_id}", OUT / f"run-page-{name}.png")
            print(OUT / f"run-page-{name}.png")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
