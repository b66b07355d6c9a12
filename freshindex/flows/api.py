"""One Prefect API for a command, its flow and every worker.

With no PREFECT_API_URL, each LocalCluster worker started its own temporary
Prefect server (128 trivial tasks: 20-39 s); with one API handed to all of
them, 8-14 s (measured on a 2-core machine). So when none is configured we
use the API `freshindex api start` keeps (flows/kept_api.py), or start
exactly one for the command and export its URL before any worker exists.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from freshindex.core.exceptions import CheckFailed
from freshindex.process import shutdown
from freshindex.process.cache import cache_dir
from freshindex.process.tether import tethered

log = logging.getLogger("freshindex")


# Settings for a Prefect server that records freshindex's runs. Its task-run
# recorder writes each task-run event in its own transaction by default
# (batch size 1): 128 shard tasks make ~400 of them, and on SQLite that cost
# the server ~40 ms of CPU per task, on the cores the workers parse on, and
# held its database for seconds after the shards, so that a concurrency-slot
# request right then failed (503) until the recorder caught up. Batched, one
# flush writes up to 100 events; a state reaches the database within 1 s.
# Measured here (2 cores, 128 shards): server CPU for a 1-file build 5.3 s ->
# 2.6 s, and the 3.5-4.5 s wait for the publish slot after the shards is gone.
# Applied to the server this process starts, to the test and benchmark
# servers, and recommended for `prefect server start` (README, infra/).
SERVER_SETTINGS = {
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_READ_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
}


def server_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a Prefect server process, with SERVER_SETTINGS where unset."""
    return {**SERVER_SETTINGS, **env}


def _ephemeral_floor() -> int:
    """The lowest port the kernel hands out for bind(0) and outgoing
    connections (Linux's ip_local_port_range; 32768 elsewhere)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A port of 127.0.0.1 that is free now, for a server started next.

    Drawn at random below the ephemeral range: a port from bind(0) is an
    ephemeral one, which any outgoing connection (a Dask worker's, an HTTP
    client's) may take in the seconds before a server binds it, and CI saw
    the embedded API exit on "Port ... is already in use" so. Below that
    range only another server choosing the same way can take it."""
    import random
    import socket

    floor = _ephemeral_floor()
    candidates = [random.randrange(10000, floor) for _ in range(32)] if floor > 10001 else []
    for port in [*candidates, 0]:
        with contextlib.closing(socket.socket()) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise CheckFailed("no free port on 127.0.0.1")


def _cache_dir() -> Path:
    path = cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _one_cert_bundle() -> str | None:
    """A CA file with a single certificate, for a plain-http API.

    Prefect builds two API clients per task and each loads the whole CA bundle
    (~75% of a 70-110 ms task, Prefect PR #19106); over http:// no certificate
    is ever checked, so a one-certificate file cuts a task to ~47 ms."""
    target = _cache_dir() / "one-cert.pem"
    if target.exists():
        return str(target)
    try:
        import certifi

        pem = Path(certifi.where()).read_text()
    except (ImportError, OSError):
        return None
    m = re.search(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\n", pem, re.S)
    if not m:
        return None
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(m.group(0))
    os.replace(tmp, target)
    return str(target)


class EmbeddedApi:
    """One ``prefect server start`` for this command, on a free port of
    127.0.0.1: Prefect's own command, so it runs the same API and services a
    user's server does (the task-run recorder among them, with
    SERVER_SETTINGS), without the UI, the scheduler or the late-runs service,
    which a one-command API has no use for. Its output goes to a log file in
    freshindex's cache, named when it fails to start."""

    START_SECONDS = 180.0
    # starts on a new port when Prefect finds its port taken after all
    PORT_TRIES = 3

    def __init__(self) -> None:
        # one log per command (two may run at once); kept only when it failed
        self.log_path = _cache_dir() / f"prefect-server-{os.getpid()}.log"
        self._log = self.log_path.open("wb")
        self.failed = False
        self.tries = 0
        self.unkilled: Callable[[], None] = lambda: None
        self._spawn()

    def _spawn(self) -> None:
        import subprocess
        import sys

        self.tries += 1
        self._log.flush()
        self._log_start = self._log.tell()  # where this try's output begins
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/api"
        cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1"]
        cmd += ["--port", str(port), "--no-ui", "--no-scheduler", "--no-late-runs"]
        cmd += ["--analytics-off", "--log-level", "WARNING"]
        self.process = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=server_environment({**os.environ, "PREFECT_UI_ENABLED": "false"}),
            start_new_session=True,  # a Ctrl-C in the terminal is the command's to handle
            # and it dies with this process, even one that was SIGKILLed
            preexec_fn=tethered(),
        )
        # SIGTERM (process/shutdown.py) kills this server rather than asking
        # it to stop: asked, its task-run recorder, still flushing the events of
        # the shards being cut short, printed tracebacks on this command's
        # stderr (seen in CI). Its SQLite database stays consistent when the
        # process is killed; the lost events are of task runs killed anyway.
        self.unkilled()
        self.unkilled = shutdown.api_started_here(self.process.pid)

    def wait_ready(self) -> None:
        import httpx

        deadline = time.monotonic() + self.START_SECONDS
        with httpx.Client(timeout=2) as http:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    if self._port_taken() and self.tries < self.PORT_TRIES:
                        log.info("the local Prefect API's port was taken; trying another")
                        self._spawn()
                        continue
                    self.failed = True
                    raise CheckFailed(
                        f"the local Prefect API exited with status {self.process.returncode}"
                        f" (its log: {self.log_path})"
                    )
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(f"{self.url}/health").status_code == 200:
                        return
                time.sleep(0.1)
        self.failed = True
        self.stop()
        raise CheckFailed(
            f"the local Prefect API did not start in {self.START_SECONDS:.0f} s"
            f" (its log: {self.log_path})"
        )

    def _port_taken(self) -> bool:
        """Whether this try's server said its port was taken."""
        self._log.flush()
        try:
            with self.log_path.open("rb") as out:
                out.seek(self._log_start)
                return b"already in use" in out.read(65536)
        except OSError:
            return False

    def stop(self) -> None:
        import subprocess

        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        if not self.failed:
            self.log_path.unlink(missing_ok=True)


@contextlib.contextmanager
def prefect_api() -> Iterator[str]:
    """Yield the URL of the one Prefect API this process and its workers use.

    PREFECT_API_URL wins when set (a `prefect server start` or a shared server);
    otherwise one embedded server (EmbeddedApi) is started and stopped after
    the logs are flushed (stopping it first made exits hang ~67 s on "Error
    logging to API")."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    url = os.environ.get("PREFECT_API_URL")
    if not url:
        from freshindex.flows.kept_api import find

        kept = find()
        if kept is not None:
            log.info("using the Prefect API kept by `freshindex api start` at %s", kept.url)
            url = kept.url
    server: EmbeddedApi | None = None
    since = ""
    saved = {k: os.environ.get(k) for k in ("PREFECT_API_URL", "PREFECT_API_SSL_CERT_FILE")}
    if not url:
        log.info(
            "starting one local Prefect API for this run "
            "(`freshindex api start` keeps one across commands)"
        )
        since = datetime.datetime.now(datetime.UTC).isoformat()
        server = EmbeddedApi()
    # imported while the server starts: Prefect's import (~1 s of CPU) and the
    # server's own start overlap instead of following each other
    from prefect.settings import PREFECT_API_SSL_CERT_FILE, PREFECT_API_URL, temporary_settings

    if server is not None:
        try:
            server.wait_ready()
        except BaseException:
            server.unkilled()
            server.stop()
            raise
        url = server.url
    assert url is not None  # given, kept, or just started
    os.environ["PREFECT_API_URL"] = url  # inherited by LocalCluster workers
    updates: dict[Any, Any] = {PREFECT_API_URL: url}
    if url.startswith("http://") and "PREFECT_API_SSL_CERT_FILE" not in os.environ:
        bundle = _one_cert_bundle()
        if bundle:
            os.environ["PREFECT_API_SSL_CERT_FILE"] = bundle
            updates[PREFECT_API_SSL_CERT_FILE] = bundle
    try:
        with temporary_settings(updates=updates):
            try:
                yield url
            finally:  # a failed run's logs too, while the API still answers
                _flush_prefect_logs()
    finally:
        if server is not None:
            server.unkilled()
            _wait_until_recorded(url, since)
            server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _wait_until_recorded(url: str, since: str, timeout: float = 15.0) -> None:
    """Before stopping the embedded server: wait until its task-run recorder has
    written the runs' final states. Task states reach the server as events,
    recorded asynchronously; stopping with events still queued loses them and
    prints the recorder's CancelledError tracebacks. Done when no task run is in
    a running state and the count of task runs is stable between two polls
    (only runs created since this server started: a database reused from an
    earlier, killed run may hold runs that stay Running forever)."""
    import httpx

    ours = {"expected_start_time": {"after_": since}}
    states = {"type": {"any_": ["PENDING", "RUNNING", "SCHEDULED"]}}
    every = {"task_runs": ours}
    running = {"task_runs": {**ours, "state": states}}
    deadline = time.monotonic() + timeout
    last = -1
    with contextlib.suppress(Exception), httpx.Client(base_url=url, timeout=5) as http:
        while time.monotonic() < deadline:
            total = http.post("/task_runs/count", json=every).json()
            busy = http.post("/task_runs/count", json=running).json()
            if busy == 0 and total == last:
                return
            last = total
            time.sleep(0.25)


def _flush_prefect_logs() -> None:
    with contextlib.suppress(Exception):
        from prefect.logging.handlers import APILogWorker

        APILogWorker.drain_all(timeout=5)
