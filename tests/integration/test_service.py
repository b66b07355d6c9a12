"""The HTTP query service: answers, /healthz catching silent failures, /metrics; and gc."""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from freshindex.catalog.layout import list_versions, read_manifest, read_pointer
from freshindex.cli import main
from freshindex.core.gitrepo import open_repo
from freshindex.ops.gc import collect
from freshindex.service import QueryService, serve
from freshindex.storage import open_store
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow


def cli(*argv: str) -> int:
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


def get(base: str, path: str, method: str = "GET") -> tuple[int, bytes]:
    req = urllib.request.Request(base + path, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


@pytest.fixture
def served(prefect_api: str, tmp_path: Path, store_uri: str) -> Iterator[tuple[Path, str, str]]:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    assert (
        cli(
            "--repo",
            str(repo),
            "--store",
            store_uri,
            "build",
            "--runner",
            "threads",
            "--shards",
            "4",
        )
        == 0
    )
    write_files(
        repo,
        {
            "app/extra.py": "from app.models import persist\n\n\ndef extra():\n    return persist(1)\n"
        },
    )
    commit_all(repo, "second")
    assert cli("--repo", str(repo), "--store", store_uri, "update") == 0
    with serving(QueryService(open_repo(repo), open_store(store_uri))) as base:
        yield repo, store_uri, base


@contextlib.contextmanager
def serving(service: QueryService) -> Iterator[str]:
    """The service on a free port, in a thread; its base URL."""
    server = serve(service, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_queries_and_metrics(served) -> None:  # type: ignore[no-untyped-def]
    repo, _store_uri, base = served
    code, body = get(base, "/defs?name=persist")
    doc = json.loads(body)
    assert (
        code == 200 and doc["freshness"] == "exact" and doc["results"][0]["path"] == "app/models.py"
    )
    code, body = get(base, "/refs?name=persist")
    assert {r["path"] for r in json.loads(body)["results"]} >= {"app/service.py", "app/extra.py"}
    code, body = get(base, "/context?target=persist&budget=200")
    ctx = json.loads(body)
    assert code == 200 and ctx["items"][0]["role"] == "definition" and ctx["usedTokens"] <= 200
    (repo / "app" / "models.py").write_text("def persist(obj):\n    return obj\n")  # dirty: overlay
    assert json.loads(get(base, "/defs?name=persist")[1])["freshness"] == "overlay"
    write_files(repo, {"go.mod": "module x\n"})  # forces partial
    code, body = get(base, "/refs?name=persist&require_fresh=1")
    assert code == 409
    code, body = get(base, "/metrics")
    text = body.decode()
    assert code == 200
    for metric in (
        "freshindex_index_lag_commits 0.0",
        "freshindex_incremental_queue_age_seconds 0.0",
        "freshindex_update_fallbacks",
        "freshindex_tombstones 0.0",
        'freshindex_queries_total{freshness="exact",kind="defs"} 1.0',
        'freshindex_query_fallbacks_total{kind="refs"} 1.0',
        "freshindex_freshness_rejections_total 1.0",
        "freshindex_overlay_parse_seconds_count 1.0",
        'freshindex_last_build_duration_seconds{kind="incremental"}',
        'freshindex_last_rows_written{kind="full"}',
    ):
        assert metric in text, metric
    rows = [line for line in text.splitlines() if line.startswith("freshindex_last_rows_written")]
    assert all(float(line.split()[-1]) > 0 for line in rows)


def test_healthz_catches_missing_shards_and_a_pointer_moved_behind_its_back(served) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, base = served
    code, body = get(base, "/healthz")
    assert code == 200 and json.loads(body)["healthy"] is True
    store = open_store(store_uri)
    m = read_manifest(store, read_pointer(store).pointer.version)  # type: ignore[union-attr]
    victim = next(t for t in m.tables if t.rows)
    data = store.get(victim.key).data
    store.delete(victim.key)
    code, body = get(base, "/healthz")
    assert code == 503 and "missing" in json.loads(body)["problems"][0]
    store.put(victim.key, data)
    assert get(base, "/healthz")[0] == 200
    # another build publishes: the service still has the old version loaded
    write_files(repo, {"app/third.py": "def third():\n    pass\n"})
    commit_all(repo, "third")
    assert cli("--repo", str(repo), "--store", store_uri, "update") == 0
    code, body = get(base, "/healthz")
    assert code == 503 and any("loaded" in p for p in json.loads(body)["problems"])
    assert get(base, "/reload", "POST")[0] == 200
    assert get(base, "/healthz")[0] == 200
    # status --check runs the same checks from the command line
    assert cli("--repo", str(repo), "--store", store_uri, "status", "--check") == 0


def test_gc_keeps_current_and_referenced_while_queries_run(served) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, base = served
    for i in range(3):
        write_files(repo, {f"app/n{i}.py": f"def n{i}():\n    pass\n"})
        commit_all(repo, f"n{i}")
        assert cli("--repo", str(repo), "--store", store_uri, "update") == 0
    assert get(base, "/reload", "POST")[0] == 200
    store = open_store(store_uri)
    before = list_versions(store)
    errors: list[int] = []
    stop = threading.Event()

    def query_loop() -> None:
        while not stop.is_set():
            code, _ = get(base, "/defs?name=persist")
            if code != 200:
                errors.append(code)

    t = threading.Thread(target=query_loop)
    t.start()
    try:
        report = collect(store, keep=1)
    finally:
        stop.set()
        t.join()
    assert errors == []
    current = read_pointer(store).pointer.version  # type: ignore[union-attr]
    assert report.kept == [current] and len(report.deleted_versions) == len(before) - 1
    assert report.retained_keys > 0  # inherited shard files of the full build survive
    assert cli("--repo", str(repo), "--store", store_uri, "verify") == 0
    assert json.loads(get(base, "/defs?name=persist")[1])["results"]


def test_http_json_keeps_a_file_name_that_is_not_utf8() -> None:
    """orjson refuses surrogate-escaped names; the answer falls back to json,
    which escapes them so a client gets the exact name back."""
    from freshindex.service.http import _json

    name = b"bad\xff.py".decode("utf-8", "surrogateescape")
    response = _json(200, {"path": name, "b": 1, "a": [1.5, None]})
    body = bytes(response.body)
    assert body.endswith(b"\n") and json.loads(body) == {"a": [1.5, None], "b": 1, "path": name}
    fast = bytes(_json(200, {"b": 1, "a": "x"}).body)
    assert fast == b'{"a":"x","b":1}\n'  # orjson, keys sorted


def test_the_service_socket_lets_asyncio_turn_nagle_off() -> None:
    """asyncio sets TCP_NODELAY only on IPPROTO_TCP sockets, and accepted
    connections take the listening socket's proto: with proto 0 each answer
    after the first on a kept-alive connection (an agent's HTTP client, MCP
    over HTTP) waited ~40 ms for a delayed ACK (bench_query.py)."""
    import socket

    from freshindex.service.http import ServiceServer

    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    server = ServiceServer(app, "127.0.0.1", 0)
    try:
        assert server.socket.proto == socket.IPPROTO_TCP
    finally:
        server.server_close()


@pytest.mark.parametrize("target", ["nonexistent.py", "README", "a.b.c", "\x00"])
def test_a_context_target_that_names_nothing_is_a_400_not_a_crash(
    served: tuple[Path, str, str], target: str
) -> None:
    """A context target that names no definition and no file used to reach
    pyarrow with an untyped empty value set: a 500 and a traceback in the log."""
    from urllib.parse import quote

    _repo, _store, base = served
    code, body = get(base, f"/context?target={quote(target)}")
    assert code == 400, body
    assert "no definition named" in json.loads(body)["error"]


def test_docs_pages_need_no_network(served: tuple[Path, str, str]) -> None:
    """/docs and /redoc load their scripts from the service itself."""
    import re

    _repo, _store, base = served
    for page in ("/docs", "/redoc"):
        code, body = get(base, page)
        html = body.decode()
        assert code == 200 and "cdn" not in html.lower(), html[:500]
        assets = re.findall(r'(?:src|href)="(/[^"]+\.(?:js|css))"', html)
        assert assets, html[:500]
        for asset in assets:
            status, content = get(base, asset)
            assert status == 200 and len(content) > 1000, asset
