"""The command line: every command, flag and default (docs/contract.md lists
the ones users rely on)."""

from __future__ import annotations

import argparse
from typing import Any

from freshindex.cli import ops, pipeline, queries, serve

DESCRIPTION = (
    "freshindex: a code index that proves which version of the code each answer belongs to"
)


def _positive(value: str) -> int:
    try:
        n = int(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from err
    if n < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return n


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2 (argparse prints usage too)
        self.exit(2, f"freshindex: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "--repo", default=argparse.SUPPRESS, help="the git repository (any folder inside it)"
    )
    common.add_argument(
        "--store", default=argparse.SUPPRESS, help="file:///abs/path or s3://bucket/prefix"
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="one JSON document on stdout"
    )
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS)

    p = _Parser(prog="freshindex", description=DESCRIPTION, parents=[common])
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    b = sub.add_parser("build", parents=[common], help="full build of a revision")
    b.add_argument("--rev", default="HEAD")
    b.add_argument(
        "--shards", type=_positive, default=None, help="default 128 (or freshindex.toml)"
    )
    b.add_argument(
        "--workers", type=_positive, default=None, help="local Dask workers (default: one per core)"
    )
    b.add_argument(
        "--dask-address", default=None, help="use an existing Dask scheduler, tcp://host:8786"
    )
    b.add_argument(
        "--mirror-url",
        default=None,
        help="workers keep their own mirror clone of this URL instead of reading --repo's path",
    )
    b.add_argument(
        "--runner",
        choices=("dask", "threads"),
        default="dask",
        help="threads: run shard tasks in this process (no cluster), for small repositories",
    )
    b.set_defaults(func=pipeline.cmd_build)

    watching = _Parser(add_help=False)
    watching.add_argument(
        "--no-watch",
        action="store_true",
        help="rescan the worktree for every answer instead of watching it (query/watch.py)",
    )

    updating = _Parser(add_help=False)  # how updates run
    updating.add_argument("--workers", type=_positive, default=None)
    updating.add_argument("--dask-address", default=None)
    updating.add_argument("--mirror-url", default=None)
    updating.add_argument(
        "--runner",
        choices=("dask", "threads"),
        default="threads",
        help="default threads: an update rewrites few shards (dask for large batches)",
    )
    u = sub.add_parser(
        "update", parents=[common, updating], help="incremental update to a revision"
    )
    u.add_argument("--rev", default="HEAD")
    u.set_defaults(func=pipeline.cmd_update)

    s = sub.add_parser("status", parents=[common], help="freshness of the current version")
    s.add_argument("--require-fresh", action="store_true")
    s.add_argument(
        "--check",
        action="store_true",
        help="also run the health checks (pointer, shard files); exit 1 when unhealthy",
    )
    s.set_defaults(func=queries.cmd_status)

    for name, func in (("defs", queries.cmd_defs), ("refs", queries.cmd_refs)):
        q = sub.add_parser(name, parents=[common], help=f"{name} of a symbol")
        q.add_argument(
            "name",
            nargs="?",
            help="NAME, Qualified.name, module.path.Qualified.name, or path:line",
        )
        q.add_argument("--id", dest="symbol_id", help="the symbolId of one definition")
        q.add_argument("--require-fresh", action="store_true")
        q.add_argument("--no-overlay", action="store_true")
        q.set_defaults(func=func)

    d = sub.add_parser("dump", parents=[common], help="every row of a table as sorted JSON Lines")
    d.add_argument(
        "--table",
        required=True,
        choices=("symbols", "edges", "documents", "refs", "summaries", "tombstones"),
    )
    d.add_argument("--no-overlay", action="store_true")
    d.add_argument(
        "--no-ids", action="store_true", help="leave out symbol ids (compare with a fresh build)"
    )
    d.add_argument("--require-fresh", action="store_true")
    d.set_defaults(func=queries.cmd_dump)

    v = sub.add_parser("verify", parents=[common], help="recompute every digest of a version")
    v.add_argument("--version", default=None)
    v.set_defaults(func=ops.cmd_verify)

    vs = sub.add_parser("versions", parents=[common], help="published versions, newest first")
    vs.set_defaults(func=ops.cmd_versions)

    cx = sub.add_parser(
        "context",
        parents=[common],
        help="a context package for a symbol, a file, or the changes in progress",
    )
    cx.add_argument("target", nargs="?", help="NAME, Qualified.name, path:line, or a file path")
    cx.add_argument("--budget", type=_positive, default=2000, help="tokens (~4 bytes each)")
    cx.add_argument(
        "--changed",
        action="store_true",
        help="the worktree's uncommitted changes (with --since, also the commits after REV)",
    )
    cx.add_argument("--since", metavar="REV", help="also the commits after REV")
    cx.add_argument(
        "--tokenizer",
        metavar="MODULE:FUNCTION",
        help="count tokens with this function of a string (default: a 4-bytes estimate)",
    )
    cx.add_argument("--require-fresh", action="store_true")
    cx.add_argument("--no-overlay", action="store_true")
    cx.set_defaults(func=queries.cmd_context)

    g = sub.add_parser(
        "gc", parents=[common], help="delete versions no longer current, kept or referenced"
    )
    g.add_argument("--keep", type=_positive, default=3, help="the newest N versions by seq")
    g.add_argument(
        "--no-branch-bases",
        action="store_true",
        help="do not also keep the version each local branch of --repo is answered from",
    )
    g.set_defaults(func=ops.cmd_gc)

    sv = sub.add_parser(
        "serve", parents=[common, updating, watching], help="query service over HTTP, MCP at /mcp"
    )
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8321)
    sv.add_argument(
        "--updates",
        action="store_true",
        help="accept POST /update?rev=REV: run updates in this warm process and load them",
    )
    sv.set_defaults(func=serve.cmd_serve)

    mc = sub.add_parser(
        "mcp", parents=[common, updating, watching], help="MCP server on stdio, for coding agents"
    )
    mc.add_argument(
        "--updates", action="store_true", help="offer the request_update tool (runs updates here)"
    )
    mc.add_argument(
        "--print-config",
        nargs="?",
        const="mcpServers",
        choices=["mcpServers", "vscode"],
        help="print an agent host's MCP configuration for this repository and exit: "
        "mcpServers (Claude Desktop, Claude Code, Cursor; the default) or vscode",
    )
    mc.set_defaults(func=serve.cmd_mcp)

    dp = sub.add_parser(
        "deployments",
        parents=[common],
        help="serve the nightly, on-merge and manual flows (Prefect)",
    )
    dp.add_argument("--cron", default="0 2 * * *", help="nightly schedule, UTC")
    dp.set_defaults(func=pipeline.cmd_deployments)

    ap = sub.add_parser(
        "api", parents=[common], help="keep one Prefect API running across commands (a laptop's)"
    )
    ap.add_argument("action", choices=["start", "stop", "status"])
    ap.add_argument("--port", type=_positive, default=None, help="start: its port (default: free)")
    ap.set_defaults(func=pipeline.cmd_api)

    rb = sub.add_parser("rollback", parents=[common], help="switch current back to a good version")
    rb.add_argument(
        "--to", default=None, help="version id (default: the previous signed, complete one)"
    )
    rb.set_defaults(func=ops.cmd_rollback)

    kg = sub.add_parser("keygen", parents=[common], help="make the key pair that signs records")
    kg.add_argument("--out", default="~/.config/freshindex")
    kg.set_defaults(func=ops.cmd_keygen)
    return p
