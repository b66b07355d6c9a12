"""The MCP server, through the SDK's own client: `freshindex mcp` as its own
process over stdio, and `serve`'s /mcp over HTTP. Every tool on a clean, a
dirty (edited, deleted and untracked files) and a one-commit-ahead worktree,
each certificate checked against `freshindex status` and the reference
article's worktree-tree recipe; bad input answered with tool errors while the
server stays up; tokens and path escapes refused."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from freshindex.cli import main
from freshindex.core.gitrepo import open_repo
from freshindex.query.rendering import OVERHEAD_TOKENS
from freshindex.query.tokens import DEFAULT_COUNTER
from freshindex.service import QueryService
from freshindex.service.http import serve
from freshindex.storage import open_store
from tests.conftest import BIN
from tests.integration.test_service import serving
from tests.repos import SAMPLE_FILES, commit_all, git, make_repo, recipe_tree, write_files

pytestmark = pytest.mark.slow

TOOLS = {"index_status", "find_definitions", "find_references", "get_context", "read_source"}


def cli_status(repo: Path, store: str) -> dict[str, Any]:
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--repo", str(repo), "--store", store, "--json", "status"]) == 0
    return dict(json.loads(out.getvalue()))


@pytest.fixture
def built(prefect_api: str, tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", {**SAMPLE_FILES, ".env": "TOKEN=do-not-print\n"})
    store = (tmp_path / "store").as_uri()
    argv = ["--repo", str(repo), "--store", store, "build", "--runner", "threads", "--shards", "4"]
    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        assert main(argv) == 0
    return repo, store


@contextlib.asynccontextmanager
async def stdio_session(repo: Path, store: str, errlog: Any) -> AsyncIterator[ClientSession]:
    keep = ("XDG_CACHE_HOME", "PREFECT_HOME", "PREFECT_API_URL", "PREFECT_SERVER_ANALYTICS_ENABLED")
    params = StdioServerParameters(
        command=str(BIN / "freshindex"),
        args=["--repo", str(repo), "--store", store, "mcp"],
        env={k: os.environ[k] for k in keep if k in os.environ},
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def hash_object(repo: Path, path: str) -> str:
    return git(repo, "hash-object", "--", path)


async def check_every_tool(session: ClientSession, repo: Path, store: str, state: str) -> None:
    status = await call(session, "index_status")
    cert = status["certificate"]
    assert list(cert) == ["freshness", "indexCommit", "headCommit", "worktreeTree", "reasons"]
    expected = cli_status(repo, store)
    for key in ("freshness", "indexCommit", "headCommit", "worktreeTree"):
        assert cert[key] == expected[key], (state, key)
    assert cert["worktreeTree"] == recipe_tree(repo), state
    assert cert["freshness"] == ("exact" if state == "clean" else "overlay"), cert

    defs = await call(session, "find_definitions", name="persist")
    assert defs["certificate"] == cert and defs["complete"]
    assert [(r["path"], r["startLine"]) for r in defs["results"]] == [("app/models.py", 9)]
    for r in defs["results"]:  # the bytes its lines came from are the worktree's now
        assert r["blob"] == hash_object(repo, r["path"]), r
    qualified = await call(session, "find_definitions", name="Model.save")
    assert [r["qualname"] for r in qualified["results"]] == ["Model.save"]
    hinted = await call(session, "find_definitions", name="persist", path_hint="web/")
    assert hinted["results"] == []

    refs = await call(session, "find_references", symbol="persist")
    assert refs["results"] and all(
        r["blob"] == hash_object(repo, r["path"]) for r in refs["results"]
    )
    by_line = await call(session, "find_references", symbol="app/models.py:9")
    assert by_line["results"] == refs["results"]
    assert refs["omitted"] == 0
    # a limit keeps the first results (bound first) and says how many it left out
    one = await call(session, "find_references", symbol="persist", limit=1)
    assert len(refs["results"]) > 1 and one["results"] == refs["results"][:1]
    assert one["omitted"] == len(refs["results"]) - 1

    context = await call(session, "get_context", target="persist", budget_tokens=400)
    assert context["usedTokens"] <= 400 and context["items"]
    for item in context["items"]:
        assert item["blob"] == hash_object(repo, item["path"])
        assert "text" not in item  # the bodies are in the text content, once
    # the text a model reads keeps the budget, plus the package's heading
    for budget in (200, 300, 500, 800, 1200, 2000, 3500, 6000, 10000, 20000):
        result = await session.call_tool(
            "get_context", {"target": "persist", "budget_tokens": budget}
        )
        text = "".join(getattr(c, "text", "") for c in result.content)
        assert text.startswith("# Context: ") and len(result.content) == 1
        assert DEFAULT_COUNTER.count(text) <= budget + OVERHEAD_TOKENS, budget

    source = await call(session, "read_source", path="app/models.py", start_line=1, end_line=3)
    assert source["blob"] == hash_object(repo, "app/models.py")
    assert source["text"] == "\n".join((repo / "app/models.py").read_text().splitlines()[:3])

    if state != "clean":
        added = await call(session, "find_definitions", name="brand_new")
        assert [(r["path"], r["origin"]) for r in added["results"]] == [("app/fresh.py", "overlay")]
        gone = await call(session, "find_definitions", name="UserService")
        assert all(r["path"] != "java/com/example/UserService.java" for r in gone["results"])


def change_worktree(repo: Path) -> None:
    """Edited, deleted and untracked files."""
    models = repo / "app/models.py"
    models.write_text(models.read_text() + "\n\ndef edited_now():\n    return persist(0)\n")
    (repo / "java/com/example/UserService.java").unlink()
    write_files(
        repo,
        {
            "app/fresh.py": "from app.models import persist\n\n\ndef brand_new():\n    return persist(2)\n"
        },
    )


async def refusals(session: ClientSession) -> None:
    """Bad input: one-line tool errors, never a leak, and the server stays up."""
    # refused by freshindex: one line each
    refused: list[tuple[str, dict[str, Any]]] = [
        ("read_source", {"path": "/etc/passwd"}),
        ("read_source", {"path": "../../../../etc/passwd"}),
        ("read_source", {"path": ".env"}),
        ("get_context", {"target": "../../../../etc/passwd"}),
        ("find_references", {"symbol": "app/models.py:99999"}),
        ("read_source", {"path": "app/models.py", "start_line": 10_000}),
        ("read_source", {"path": "app/models.py", "start_line": 5, "end_line": 2}),
    ]
    # malformed arguments, refused by the SDK against the input schema
    malformed: list[tuple[str, dict[str, Any]]] = [
        ("find_definitions", {"name": "x" * 100_000}),
        ("find_definitions", {"name": 12}),
        ("find_definitions", {}),
        ("get_context", {"target": "persist", "budget_tokens": -5}),
        ("find_references", {"symbol": "persist", "limit": 0}),
    ]
    for tool, args in refused + malformed:
        result = await session.call_tool(tool, args)
        assert result.is_error, (tool, args, result)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert "Traceback" not in text and "root:x" not in text and "do-not-print" not in text
        if (tool, args) in refused:
            assert len(text.splitlines()) == 1, text
    with contextlib.suppress(MCPError):  # an unknown tool: a tool error or a protocol error
        result = await session.call_tool("no_such_tool", {})
        assert result.is_error
    tools = {t.name for t in (await session.list_tools()).tools}
    assert tools == TOOLS  # no request_update without --updates
    await call(session, "index_status")  # still serving


def test_stdio_server_every_tool_in_three_states(built: tuple[Path, str], tmp_path: Path) -> None:
    repo, store = built

    async def scenario() -> None:
        with open(tmp_path / "server.err", "w") as errlog:
            async with stdio_session(repo, store, errlog) as session:
                await check_every_tool(session, repo, store, "clean")
                change_worktree(repo)
                await check_every_tool(session, repo, store, "dirty")
                commit_all(repo, "one ahead")
                await check_every_tool(session, repo, store, "ahead")
                await refusals(session)

    asyncio.run(scenario())
    assert "Traceback" not in (tmp_path / "server.err").read_text()


def _http(base: str, path: str, method: str = "GET", token: str | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(base + path, method=method, data=b"" if method == "POST" else None)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def _over_http(
    base: str, token: str | None, scenario: Callable[[ClientSession], Awaitable[None]]
) -> None:
    async def run() -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await scenario(session)

    asyncio.run(run())


def test_http_mcp_and_rest_behind_a_token(
    built: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, store = built
    service = QueryService(open_repo(repo), open_store(store))
    server = serve(service, "127.0.0.1", 0, token="s3cret-token")
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert _http(base, "/status")[0] == 401
        assert _http(base, "/status", token="wrong")[0] == 401
        assert _http(base, "/mcp", "POST")[0] == 401
        code, body = _http(base, "/status", token="s3cret-token")
        assert code == 200 and json.loads(body)["freshness"] == "exact"
        assert _http(base, "/docs", token="s3cret-token")[0] == 200
        code, body = _http(base, "/context?target=../../../../etc/passwd", token="s3cret-token")
        assert code == 400 and b"root:x" not in body

        async def scenario(session: ClientSession) -> None:
            await check_every_tool(session, repo, store, "clean")
            await refusals(session)

        _over_http(base, "s3cret-token", scenario)
    finally:
        server.shutdown()
        server.server_close()


def test_without_a_token_writes_only_on_loopback(built: tuple[Path, str]) -> None:
    repo, store = built
    with serving(QueryService(open_repo(repo), open_store(store))) as base:
        assert _http(base, "/reload", "POST")[0] == 200
        _over_http(base, None, lambda s: call(s, "index_status"))  # type: ignore[arg-type, return-value]
    service = QueryService(open_repo(repo), open_store(store))
    server = serve(service, "0.0.0.0", 0)  # reached here through loopback only
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        code, body = _http(base, "/reload", "POST")
        assert code == 403 and b"FRESHINDEX_TOKEN" in body
        assert _http(base, "/status")[0] == 200
    finally:
        server.shutdown()
        server.server_close()
    out = subprocess.run(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", store, "serve",
         "--host", "0.0.0.0", "--updates"],
        capture_output=True, text=True, timeout=60,
        env={k: v for k, v in os.environ.items() if k != "FRESHINDEX_TOKEN"},
    )  # fmt: skip
    assert out.returncode == 2 and "FRESHINDEX_TOKEN" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_request_update_with_updates_loads_the_new_version(built: tuple[Path, str]) -> None:
    from freshindex.flows.cluster import task_runner
    from freshindex.service import Updater

    repo, store = built
    updater = Updater(store, lambda: task_runner(None, None, "threads"))
    write_files(repo, {"app/merged.py": "def merged_fn():\n    return 1\n"})
    commit_all(repo, "a merge")

    async def scenario(session: ClientSession) -> None:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools == TOOLS | {"request_update"}
        before = await call(session, "find_definitions", name="merged_fn")
        assert before["certificate"]["freshness"] == "overlay"
        done = await call(session, "request_update")
        assert done["outcome"] == "published" and done["loaded"] == done["version"]
        after = await call(session, "find_definitions", name="merged_fn")
        assert after["certificate"]["freshness"] == "exact"
        assert [(r["path"], r["origin"]) for r in after["results"]] == [("app/merged.py", "index")]
        bad = await session.call_tool("request_update", {"rev": "no-such-rev"})
        assert bad.is_error and "unknown revision" in bad.content[0].text  # type: ignore[union-attr]

    with serving(QueryService(open_repo(repo), open_store(store), updater)) as base:
        _over_http(base, None, scenario)
