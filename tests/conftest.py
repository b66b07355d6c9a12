"""Fixtures against real parts: git repositories made here, one Prefect API server
for the whole session, and moto's S3 server over HTTP on 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from freshindex.flows.api import free_port, server_environment
from tests.repos import SAMPLE_FILES, git, make_repo

BIN = Path(sys.executable).parent


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float, what: str) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not answer on {url} within {timeout} s")


def wait_for_workers(address: str, n: int, timeout: float = 60) -> None:
    """Until the Dask scheduler at ``address`` has ``n`` workers."""
    from distributed import Client

    deadline = time.monotonic() + timeout
    with Client(address, timeout=30) as client:
        while len(client.scheduler_info()["workers"]) < n:
            assert time.monotonic() < deadline, f"{n} worker(s) did not join {address}"
            time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        # every thread's children: a process started from another thread (a
        # Dask cluster started on an event loop) is not the main thread's child
        kids = []
        for children in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                kids += children.read_text().split()
        for k in map(int, kids):
            found.add(k)
            todo.append(k)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def temporary_prefect_servers() -> list[str]:
    """Command lines of Prefect's own temporary API servers running under this
    process: what Prefect starts for a client that does not see an API URL."""
    import psutil

    found = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            cmdline = " ".join(child.cmdline())
            if "prefect.server.api.server:create_app" in cmdline:
                found.append(cmdline)
    return found


@pytest.fixture(scope="session", autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep caches and Prefect's home out of the user's directories."""
    home = tmp_path_factory.mktemp("home")
    saved = dict(os.environ)
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")
    os.environ["PREFECT_HOME"] = str(home / "prefect")
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    os.environ["PREFECT_LOGGING_LEVEL"] = "WARNING"
    os.environ.pop("FRESHINDEX_STORE", None)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="session")
def prefect_api(
    isolated_env: None, s3_server: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One `prefect server start` (SQLite) for the session; every flow, every
    Dask worker and every CLI subprocess reports to it through PREFECT_API_URL.

    It asks for ``s3_server`` so that the AWS variables are set before the
    first flow: LocalCluster workers are forked from a server process that
    keeps the environment it started with (flows/runtime.py), so a build on
    the file store before the variables were set left every later S3 build
    of that test process without credentials."""
    port = free_port()
    log = open(tmp_path_factory.mktemp("prefect") / "server.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**server_environment(os.environ), "PREFECT_UI_ENABLED": "false"},
    )
    url = f"http://127.0.0.1:{port}/api"
    try:
        wait_http(f"{url}/health", proc, 120, "prefect server")
        os.environ["PREFECT_API_URL"] = url
        # Prefect froze its settings when it was imported (at collection, before
        # this fixture ran): in-process clients must see the URL too, or they
        # start an ephemeral server of their own
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield url
    finally:
        # logs still queued for the API go before it stops (else Prefect
        # prints "Error logging to API" as the test process exits)
        from prefect.logging.handlers import APILogWorker

        APILogWorker.drain_all(timeout=5)
        os.environ.pop("PREFECT_API_URL", None)
        stop(proc)
        log.close()


MOTO_SINGLE_THREADED = """
import sys
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple
run_simple("127.0.0.1", int(sys.argv[1]), DomainDispatcherApplication(create_backend_app),
           threaded=False, use_reloader=False)
"""


def _start_moto(threaded: bool) -> tuple[subprocess.Popen[bytes], str]:
    """Start moto on a free port. The port is free when chosen, not when moto
    binds it (a Dask worker of another test may take it in between): a
    server that exits at once is started again on another port."""
    for attempt in range(3):
        port = free_port()
        if threaded:
            cmd = [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)]
        else:
            cmd = [sys.executable, "-c", MOTO_SINGLE_THREADED, str(port)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_http(url + "/", proc, 90, "moto server")
        except RuntimeError:
            stop(proc)
            if attempt == 2:
                raise
            continue
        return proc, url
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def s3_server(isolated_env: None) -> Iterator[str]:
    """moto's standalone S3 server over real HTTP; AWS_* variables point boto3 at it."""
    proc, url = _start_moto(threaded=True)
    os.environ.update(
        AWS_ENDPOINT_URL=url,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing-secret",
        AWS_REGION="us-east-1",
        AWS_DEFAULT_REGION="us-east-1",
    )
    try:
        yield url
    finally:
        stop(proc)
        for k in ("AWS_ENDPOINT_URL",):
            os.environ.pop(k, None)


@pytest.fixture
def serial_s3_server(isolated_env: None) -> Iterator[str]:
    """moto's WSGI app served single-threaded: requests are serialised, so a
    conditional put's check and write cannot interleave (threaded moto lets
    2-5 of 20 racing writers win; this one lets exactly one)."""
    proc, url = _start_moto(threaded=False)
    try:
        yield url
    finally:
        stop(proc)


def new_bucket(endpoint: str) -> str:
    import boto3

    name = f"fi-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=name)
    return name


@pytest.fixture(params=["file", "s3"])
def store_uri(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One fixture over both backends (pyiceberg's catalog fixture, STYLE.md)."""
    if request.param == "file":
        return (tmp_path / "store").as_uri()
    endpoint = request.getfixturevalue("s3_server")
    return f"s3://{new_bucket(endpoint)}/index"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", SAMPLE_FILES)


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    from freshindex.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


__all__ = ["git", "make_repo", "shutil"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/ from the current output instead of comparing",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Compare text with tests/golden/<name>; rewrite it only with --update-golden."""
    update = request.config.getoption("--update-golden")
    root = Path(__file__).parent / "golden"

    def check(name: str, text: str) -> None:
        path = root / name
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return
        assert path.exists(), f"golden file {path} missing: run pytest --update-golden"
        assert text == path.read_text(), (
            f"output differs from {path} (pytest --update-golden to accept)"
        )

    return check
