"""The HTTP API fuzzed from its own OpenAPI schema by schemathesis, against a
real `freshindex serve` of the sample repository: no server error, every
status code, content type and body as the schema documents it, the service
alive afterwards, and no traceback in its log."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import BIN, free_port, stop, wait_http
from tests.repos import SAMPLE_FILES, make_repo

pytestmark = pytest.mark.slow

CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "unsupported_method",
]


def test_the_http_api_survives_its_own_schema(tmp_path: Path, prefect_api: str) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    built = subprocess.run(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", store, "build",
         "--runner", "threads", "--shards", "4"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(BIN / "freshindex"), "--repo", str(repo), "--store", store, "serve",
             "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/healthz", server, 60, "freshindex serve")  # type: ignore[arg-type]
        fuzz = subprocess.run(
            [str(Path(sys.executable).with_name("schemathesis")), "run", f"{base}/openapi.json",
             "--checks", ",".join(CHECKS), "--phases", "examples,coverage,fuzzing",
             "--max-examples", "250", "--seed", "20261205", "--request-timeout", "20",
             "--no-color"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,  # its cache goes there
        )  # fmt: skip
        report = fuzz.stdout[-4000:]
        assert fuzz.returncode == 0, report
        generated = re.search(r"(\d+) generated", fuzz.stdout)
        assert generated and int(generated.group(1)) >= 1000, report
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as alive:
            assert alive.status == 200
        assert server.poll() is None
    finally:
        stop(server)  # type: ignore[arg-type]
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
