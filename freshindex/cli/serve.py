"""The long-running commands: serve (HTTP, with MCP at /mcp) and mcp (stdio)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from freshindex.cli.session import Context
from freshindex.core.exceptions import BadInput


def _service(ctx: Context, stack: contextlib.ExitStack) -> Any:
    """The warm QueryService, with an Updater when --updates asks for one: one
    Prefect API, and with --runner dask one LocalCluster, for the process's
    life, not one per update."""
    import pyarrow as pa

    from freshindex.service import QueryService, Updater

    # A long-running service holds one loaded version for hours: its Arrow
    # buffers go to the system allocator. With Arrow's default (mimalloc)
    # what loading a version freed stayed resident: measured over HTTP on
    # 7,069 kernel files, 491 MB against 420 MB, defs p50 the same.
    pa.set_memory_pool(pa.system_memory_pool())
    args = ctx.args
    store = ctx.store()
    updater = None
    if args.updates:
        from freshindex.flows.runtime import flow_runtime

        runtime = stack.enter_context(flow_runtime(args.runner, args.workers, args.dask_address))
        updater = Updater(ctx.store_uri(), runtime.task_runner, args.mirror_url)
    service = QueryService(ctx.repo, store, updater, watch=not args.no_watch)
    stack.callback(service.close)
    return service


def cmd_serve(ctx: Context) -> int:
    from freshindex.service.http import is_loopback, serve

    args = ctx.args
    token = os.environ.get("FRESHINDEX_TOKEN") or None
    if args.updates and token is None and not is_loopback(args.host):
        raise BadInput(
            f"--updates on {args.host} needs FRESHINDEX_TOKEN: without a token only "
            "a loopback address may accept writes"
        )
    # SIGTERM is how a service is stopped (docker stop, systemd): a clean exit,
    # unwound, so a Prefect API it started stops with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.ExitStack() as stack:
        service = _service(ctx, stack)
        server = serve(service, args.host, args.port, token)
        stack.callback(server.server_close)
        host, port = str(server.server_address[0]), int(server.server_address[1])
        extra = "; POST /update runs updates here" if service.updater else ""
        auth = "bearer token required" if token else "no token: reads only off loopback"
        ctx.out.progress(
            f"serving {service.version.manifest.versionId} on http://{host}:{port} "
            f"(MCP at /mcp, OpenAPI at /docs; {auth}){extra}"
        )
        server.serve_forever()
    return 0


def cmd_mcp(ctx: Context) -> int:
    """The MCP server on stdin/stdout, for an agent's config. stdout carries
    only the protocol: everything else this process says goes to stderr."""
    if ctx.args.print_config:
        print(json.dumps(mcp_config(ctx, ctx.args.print_config), indent=2))
        return 0
    from freshindex.service.mcp import build_server

    with contextlib.ExitStack() as stack:
        service = _service(ctx, stack)
        ctx.out.progress(
            f"freshindex MCP server on stdio: {service.version.manifest.versionId} of "
            f"{service.repo_path}"
        )
        build_server(service).run("stdio")
    return 0


def mcp_config(ctx: Context, host: str) -> dict[str, Any]:
    """The server entry an agent host needs: this interpreter by absolute
    path (a host started elsewhere has another PATH, and may not find a
    `freshindex` on it), the repository, and the store when it is not the
    default."""
    args = ["-m", "freshindex", "--repo", str(Path(ctx.repo.workdir or ctx.repo.path).resolve())]
    if ctx.args.store:
        args += ["--store", ctx.args.store]
    entry: dict[str, Any] = {"command": sys.executable, "args": [*args, "mcp"]}
    if host == "vscode":
        return {"servers": {"freshindex": {"type": "stdio", **entry}}}
    return {"mcpServers": {"freshindex": entry}}
