"""One way to run the pipeline in this process: ``run_pipeline``, a build or
an update flow run on a task runner, under the Prefect API the caller has set
up (flows/api.py), off the main thread (flows/runtime.py, off_main_thread);
its summary is the ``build --json`` or ``update --json`` document.

``freshindex build``, ``freshindex update`` and the warm service's updates
(``serve --updates``, ``request_update``) all run through it."""

from __future__ import annotations

from typing import Any, Literal

from freshindex.flows.runtime import off_main_thread, state_data

Kind = Literal["build", "update"]


def run_pipeline(
    kind: Kind,
    repo: str,
    store: str,
    rev: str,
    runner: Any,
    *,
    shards: int | None = None,
    mirror_url: str | None = None,
    branch: str | None = None,
) -> dict[str, Any]:
    """Run the ``kind`` flow for commit ``rev`` of ``repo`` into ``store`` and
    return its summary. ``shards``: a build's count (the default is the
    manifest's); ``branch``: an update's branch pointer, None for main's."""
    flow: Any
    if kind == "build":
        from freshindex.flows.build import build_flow

        flow = build_flow
        params: dict[str, Any] = {"shards": shards}
    else:
        from freshindex.flows.update import update_flow

        flow = update_flow
        params = {"branch": branch}
    run = flow.with_options(task_runner=runner)
    state = off_main_thread(
        lambda: run(
            repo=repo, store=store, rev=rev, mirror_url=mirror_url, return_state=True, **params
        )
    )
    return state_data(state)
