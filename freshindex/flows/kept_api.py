"""A Prefect API kept running across commands: ``freshindex api start``.

Every build or update with no PREFECT_API_URL starts a server of its own and
stops it at the end: 6-10 s of each command on 2 cores, most of a small
update. On a laptop one server kept between commands pays that once. Its URL
and process id are kept in the cache folder; a command with no
PREFECT_API_URL uses it while it answers its health check, and starts its own
otherwise. It is not tied to any command: `freshindex api stop` ends it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from freshindex.core.exceptions import CheckFailed
from freshindex.flows.api import free_port, server_environment
from freshindex.process.cache import cache_dir

HEALTH_TIMEOUT = 0.5  # a command with no API of its own asks this long, then starts one


@dataclass(frozen=True)
class KeptApi:
    url: str
    pid: int
    log: str


def _state() -> Path:
    return cache_dir("api.json")


def _healthy(url: str, timeout: float = HEALTH_TIMEOUT) -> bool:
    import httpx

    try:
        return httpx.get(f"{url}/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _recorded() -> KeptApi | None:
    """The kept API the cache folder records, answering or not."""
    try:
        return KeptApi(**json.loads(_state().read_text()))
    except (OSError, ValueError, TypeError):
        return None


def find() -> KeptApi | None:
    """The kept API, when one is recorded and answers."""
    kept = _recorded()
    return kept if kept is not None and _healthy(kept.url) else None


def start(port: int | None = None, wait: float = 180.0) -> tuple[KeptApi, bool]:
    """(the kept API, whether this call started it)."""
    found = find()
    if found is not None:
        return found, False
    port = port or free_port()
    url = f"http://127.0.0.1:{port}/api"
    state = _state()
    state.parent.mkdir(parents=True, exist_ok=True)
    log = state.with_name("api.log")
    cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--analytics-off", "--log-level", "WARNING"]
    with log.open("ab") as out:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=server_environment({**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}),
            start_new_session=True,  # kept on purpose: it outlives this command
        )
    deadline = time.monotonic() + wait
    while not _healthy(url, timeout=2):
        if proc.poll() is not None or time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            raise CheckFailed(f"the Prefect API did not start (its log: {log})")
        time.sleep(0.2)
    kept = KeptApi(url, proc.pid, str(log))
    tmp = state.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(kept.__dict__))
    os.replace(tmp, state)
    return kept, True


def stop() -> KeptApi | None:
    """End the kept API (only the process recorded as one); None when none runs."""
    import psutil

    kept = _recorded()
    if kept is None:
        return None
    _state().unlink(missing_ok=True)
    try:
        proc = psutil.Process(kept.pid)
        if "prefect" not in " ".join(proc.cmdline()):  # the pid was reused
            return None
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    except psutil.TimeoutExpired:
        proc.kill()
    except psutil.Error:
        return None
    return kept
