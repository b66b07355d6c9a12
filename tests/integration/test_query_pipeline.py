"""A query is a pipeline, not a conversation: following one ``refs`` request
from the CLI and from an MCP tool, control goes down the modules and never
back up (no module calls a module that called it), no module is on the stack
twice, and the answer modules are entered at most twice. The CLI, HTTP and
MCP serve the same models (query/answers.py), and every HTTP endpoint has a
response schema."""

from __future__ import annotations

import collections
import contextlib
import io
import json
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from freshindex.cli import main
from freshindex.core.gitrepo import open_repo
from freshindex.query import answers
from freshindex.service import QueryService
from freshindex.service import mcp as mcp_tools
from freshindex.storage import open_store
from tests.integration.test_service import serving
from tests.repos import SAMPLE_FILES, build_template

PACKAGE = str(Path(answers.__file__).resolve().parents[1]) + "/"
# the modules that shape the answer: each entered at most twice per request
STAGES = (
    "cli/queries.py",
    "service/mcp.py",
    "service/warm.py",
    "query/answer.py",
    "query/references.py",
    "query/answers.py",
)


class Trace:
    """Module-level calls of freshindex during one request, from
    ``sys.setprofile``: which module called which, how often each was
    entered from another, and the most times one module is on one stack."""

    def __init__(self) -> None:
        self.entries: collections.Counter[str] = collections.Counter()
        self.calls: set[tuple[str, str]] = set()
        self.on_one_stack: collections.Counter[str] = collections.Counter()

    @staticmethod
    def module(frame: FrameType | None) -> str | None:
        name = frame.f_code.co_filename if frame is not None else ""
        return name[len(PACKAGE) :] if name.startswith(PACKAGE) else None

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":  # imports are not the request
            return
        here = self.module(frame)
        if here is None:
            return
        caller = frame.f_back
        while caller is not None and self.module(caller) is None:
            caller = caller.f_back
        above = self.module(caller)
        if above == here:
            return
        self.entries[here] += 1
        if above is not None:
            self.calls.add((above, here))
        stack: list[str] = []
        f: FrameType | None = frame
        while f is not None:
            m = self.module(f)
            if m is not None and (not stack or stack[-1] != m):
                stack.append(m)
            f = f.f_back
        for m, n in collections.Counter(stack).items():
            self.on_one_stack[m] = max(self.on_one_stack[m], n)

    def run(self, fn: Callable[[], Any]) -> Any:
        sys.setprofile(self)
        try:
            return fn()
        finally:
            sys.setprofile(None)

    def check(self) -> None:
        back = sorted((a, b) for a, b in self.calls if (b, a) in self.calls)
        assert back == [], f"modules calling back into their callers: {back}"
        twice = {m: n for m, n in self.on_one_stack.items() if n > 1}
        assert twice == {}, f"modules on one stack more than once: {twice}"
        over = {m: self.entries[m] for m in STAGES if self.entries[m] > 2}
        assert over == {}, f"answer modules entered more than twice: {over}"


@pytest.fixture(scope="module")
def built(prefect_api: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    repo, store = build_template(tmp_path_factory.mktemp("pipeline"), SAMPLE_FILES)
    return repo, store.as_uri()


def _cli_json(*argv: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(argv)) == 0
    return dict(json.loads(out.getvalue()))


def test_a_cli_refs_request_goes_down_the_modules(built: tuple[Path, str]) -> None:
    repo, store = built
    argv = ("--repo", str(repo), "--store", store, "--json", "refs", "persist")
    _cli_json(*argv)  # imports and caches warm, as for any request after the first
    trace = Trace()
    doc = trace.run(lambda: _cli_json(*argv))
    assert doc["boundCount"] >= 2
    trace.check()
    assert trace.entries["query/references.py"] >= 1  # the trace saw the pipeline


def test_an_mcp_refs_request_goes_down_the_modules(built: tuple[Path, str]) -> None:
    repo, store = built
    service = QueryService(open_repo(repo), open_store(store))
    mcp_tools.find_references(service, "persist")
    trace = Trace()
    found = trace.run(lambda: mcp_tools.find_references(service, "persist"))
    assert found.boundCount >= 2
    trace.check()
    assert trace.entries["service/mcp.py"] >= 1


def test_the_cli_http_and_mcp_serve_the_same_models(built: tuple[Path, str]) -> None:
    repo, store = built
    service = QueryService(open_repo(repo), open_store(store))
    cli = _cli_json("--repo", str(repo), "--store", store, "--json", "refs", "persist")
    served = service.answer("refs", {"name": "persist"})
    assert isinstance(served, answers.References)
    # the CLI prints the model HTTP serves
    assert answers.document(served) == cli
    assert answers.References.model_validate(cli) == served
    # the MCP tool's answer is the agent's cut of that model, with the same rows
    agent = mcp_tools.find_references(service, "persist")
    assert agent == served.for_agent(mcp_tools.DEFAULT_LIMIT)
    assert all(isinstance(r, answers.Reference) for r in agent.results)
    assert [(r.path, r.startLine) for r in agent.results] == [
        (r["path"], r["startLine"]) for r in cli["results"]
    ]
    defs = service.answer("defs", {"name": "persist"})
    assert isinstance(defs, answers.Definitions)
    assert mcp_tools.find_definitions(service, "persist").results == [
        answers.Definition.model_validate(
            {k: getattr(d, k) for k in answers.Definition.model_fields}
        )
        for d in defs.results
    ]


def test_every_endpoint_documents_its_response(built: tuple[Path, str]) -> None:
    repo, store = built
    service = QueryService(open_repo(repo), open_store(store))
    with serving(service) as base, urllib.request.urlopen(f"{base}/openapi.json") as r:
        spec = json.load(r)
    assert spec["paths"]
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            ok = op["responses"].get("200", {})
            assert ok.get("content"), f"{method.upper()} {path} has no response schema"
