"""The Prefect server a benchmark runs its builds and updates against."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from freshindex.flows.api import server_environment
from tests.conftest import free_port, stop, wait_http

BIN = Path(sys.executable).parent


def prefect_server(work: Path) -> tuple[dict[str, str], subprocess.Popen[bytes]]:
    """A Prefect server of the run's own, its home and caches under ``work``,
    with the settings the README recommends, once it answers: the environment
    the run's commands use (PREFECT_API_URL set) and the server, to stop."""
    env = {
        **os.environ,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_HOME": str(work / "prefect"),
        "XDG_CACHE_HOME": str(work / "cache"),
    }
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=server_environment(env),
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/api/health", server, 120, "prefect server")
    except BaseException:
        stop(server)
        raise
    env["PREFECT_API_URL"] = f"http://127.0.0.1:{port}/api"
    return env, server
