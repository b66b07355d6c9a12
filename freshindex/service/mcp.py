"""freshindex on the Model Context Protocol: the tools coding agents call, every
answer led by the certificate of the version it belongs to.

Built on the official SDK's ``MCPServer``: stdio for agent configs
(``freshindex --repo R mcp``), and the streamable-HTTP app that ``serve``
mounts at ``/mcp``. Tools run in the SDK's worker threads over one warm
``QueryService`` (the loaded version, its health and metrics). An expected
failure (an unknown name, a path outside the repository, an index that cannot
answer) is a ``ToolError``: one line for the model, no traceback, and the
server keeps serving.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from freshindex.core.exceptions import FreshindexError
from freshindex.query.answers import (
    AgentContext,
    AgentStatus,
    DefinitionList,
    Definitions,
    ReferenceList,
    References,
    SourceLines,
    UpdateResult,
)
from freshindex.service.warm import QueryService

# What a model must know to use the answers; part of every tool's description.
FRESHNESS_GUIDE = (
    "Every answer starts with a certificate. freshness 'exact': the index is HEAD and "
    "the worktree is clean, trust it. 'overlay': the index plus every file changed since, "
    "parsed now, trust it. 'partial': too much changed, results come from reading a few "
    "files and are incomplete; read the source before concluding something is absent. "
    "'stale': the version cannot be proven (an unknown commit, configuration or indexer "
    "changed, a failed check); diagnostics only, read the source. 'reasons' say why an "
    "answer is not exact. Lines are 1-based, of the worktree as it is now; 'blob' is the "
    "git OID of the bytes a result was computed from."
)
MAX_NAME = 512
MAX_PATH = 4096
MAX_SOURCE_LINES = 2000
# results a lookup returns unless asked for more: a common name in a large
# repository has thousands of references, more than a model's context holds
DEFAULT_LIMIT = 200
MAX_LIMIT = 5000
Limit = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_LIMIT,
        description="at most this many results (bound first); 'omitted' says how many more",
    ),
]
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def _answering(fn: Any) -> Any:
    """Run a tool body; an expected failure becomes one ToolError line."""
    try:
        return fn()
    except FreshindexError as err:
        raise ToolError(str(err)) from err
    except (OSError, ValueError) as err:
        raise ToolError(f"{type(err).__name__}: {err}") from err


# every tool, as (function, how it is offered); build_server binds each to a
# QueryService. A tool is a module-level function of (service, arguments).
TOOLS: list[tuple[Callable[..., Any], dict[str, Any]]] = []


def tool(
    updates: bool = False, **offered: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Record a tool; ``updates``: offered only by a service that runs updates."""

    def record(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS.append((fn, {**offered, "updates": updates}))
        return fn

    return record


def _bound(fn: Callable[..., Any], service: QueryService) -> Callable[..., Any]:
    """``fn`` with its service given: the signature and type hints the SDK reads
    (for the input and output schemas) are fn's, less the service."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(service, *args, **kwargs)

    hints = typing.get_type_hints(fn, include_extras=True)  # resolved here, where they are named
    sig = inspect.signature(fn)
    params = [p.replace(annotation=hints[p.name]) for p in list(sig.parameters.values())[1:]]
    call.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=hints["return"]
    )
    call.__annotations__ = {k: v for k, v in hints.items() if k != "service"}
    return call


@tool(
    description="The freshness of the index against HEAD and the worktree now. " + FRESHNESS_GUIDE,
    annotations=READ_ONLY,
)
def index_status(service: QueryService) -> AgentStatus:
    return _answering(service.envelope).agent_status()


@tool(
    description="Where a symbol is defined. name: a bare name (get_user) or a qualified "
    "one (Model.save); path_hint: keep definitions whose path contains it. " + FRESHNESS_GUIDE,
    annotations=READ_ONLY,
)
def find_definitions(
    service: QueryService,
    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME)],
    path_hint: Annotated[str | None, Field(max_length=MAX_PATH)] = None,
    limit: Limit = DEFAULT_LIMIT,
) -> DefinitionList:
    found = _answering(lambda: service.ask("defs", name))
    assert isinstance(found, Definitions)
    return found.for_agent(limit, path_hint)


@tool(
    description="The places that use a symbol (calls, imports, inheritance, type uses, "
    "uses as a value). symbol: a bare name, a qualified name (Model.save, "
    "pkg.models.Model.save), or path:line of its definition. Results bound to the "
    "definition come first, then calls of a method it overrides (dynamic dispatch: they run it "
    "when the receiver is of its class), then candidates (name-matched, not provable), then "
    "external ones; each says its binding and how it was bound. " + FRESHNESS_GUIDE,
    annotations=READ_ONLY,
)
def find_references(
    service: QueryService,
    symbol: Annotated[str, Field(min_length=1, max_length=MAX_PATH)],
    limit: Limit = DEFAULT_LIMIT,
) -> ReferenceList:
    found = _answering(lambda: service.ask("refs", symbol))
    assert isinstance(found, References)
    return found.for_agent(limit)


@tool(
    description="A context package: start from a symbol, a file path, or changed=true (the "
    "worktree's uncommitted changes, plus the commits after `since`), and get the targets, "
    "the public contracts they use or are used by, callers, callees, tests, configuration "
    "and recent commit subjects, in that priority, cut to fit budget_tokens (estimated at 4 "
    "bytes a token). A body that does not fit is replaced by its summary; what is left out "
    "is listed with the reason. The text content is the package as markdown, within the "
    "budget plus at most 150 tokens of heading; the structured content gives every "
    "fragment's path, lines, blob and origin. " + FRESHNESS_GUIDE,
    annotations=READ_ONLY,
)
def get_context(
    service: QueryService,
    target: Annotated[str | None, Field(max_length=MAX_PATH)] = None,
    budget_tokens: Annotated[int, Field(ge=1, le=200_000)] = 2000,
    changed: bool = False,
    since: Annotated[str | None, Field(max_length=MAX_NAME)] = None,
) -> AgentContext:
    found = _answering(lambda: service.package(target, budget_tokens, changed, since))
    # the bodies once: in the markdown, the text a model reads (at most the
    # budget plus the package's heading); the structured package locates them
    return CallToolResult(  # type: ignore[return-value]
        content=[TextContent(type="text", text=found.markdown or "")],
        structured_content=found.for_agent().model_dump(mode="json"),
    )


@tool(
    description="Lines of a file of the repository as they are in the worktree now, "
    f"with the file's blob OID (at most {MAX_SOURCE_LINES} lines). Paths outside the "
    "repository and secret files are refused.",
    annotations=READ_ONLY,
)
def read_source(
    service: QueryService,
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH)],
    start_line: Annotated[int, Field(ge=1)] = 1,
    end_line: Annotated[int | None, Field(ge=1)] = None,
) -> SourceLines:
    return _answering(lambda: service.source(path, start_line, end_line, MAX_SOURCE_LINES))


@tool(
    updates=True,
    description="Run an incremental update of the index to rev (default HEAD; it must "
    "already be in the repository) and load it. Slow: seconds.",
    annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True),
)
def request_update(
    service: QueryService,
    rev: Annotated[str, Field(min_length=1, max_length=MAX_NAME)] = "HEAD",
) -> UpdateResult:
    doc = _answering(lambda: service.update(rev))
    return UpdateResult(
        outcome=str(doc.get("outcome")),
        loaded=doc.get("loaded"),
        version=doc.get("version"),
        mode=doc.get("mode"),
        reason=doc.get("modeReason") or doc.get("reason"),
    )


def build_server(service: QueryService) -> MCPServer:
    """The MCP server over a warm QueryService."""
    server: MCPServer = MCPServer(
        "freshindex",
        instructions=(
            "freshindex: definitions, references, context and source of this repository, "
            "each answer with a proof of the code version it belongs to. " + FRESHNESS_GUIDE
        ),
        log_level="WARNING",
    )
    for fn, offered in TOOLS:
        options = {k: v for k, v in offered.items() if k != "updates"}
        if offered["updates"] and service.updater is None:
            continue
        server.tool(name=fn.__name__, **options)(_bound(fn, service))
    return server
