"""The long-running command: serve."""

from __future__ import annotations

import contextlib
import signal
import sys

from freshindex.cli.context import Context


def cmd_serve(ctx: Context) -> int:
    from freshindex.service import QueryService, Updater, serve

    args = ctx.args
    store = ctx.store()
    # SIGTERM is how a service is stopped (docker stop, systemd): a clean exit,
    # unwound (the main thread only waits for requests here), so a Prefect API
    # it started stops with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.ExitStack() as stack:
        updater = None
        if args.updates:
            from freshindex.flows.runtime import flow_runtime

            # one Prefect API, and with --runner dask one LocalCluster, for the
            # service's life, not one per update
            runtime = stack.enter_context(
                flow_runtime(args.runner, args.workers, args.dask_address)
            )
            updater = Updater(ctx.store_uri(), runtime.task_runner, args.mirror_url)
        service = QueryService(ctx.repo, store, updater)
        server = serve(service, args.host, args.port)
        stack.callback(server.server_close)
        host, port = str(server.server_address[0]), int(server.server_address[1])
        extra = "; POST /update runs updates here" if updater else ""
        ctx.out.progress(
            f"serving {service.version.manifest.versionId} on http://{host}:{port}{extra}"
        )
        server.serve_forever()
    return 0
