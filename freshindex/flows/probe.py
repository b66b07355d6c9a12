"""Before a build or update sends shard tasks to an existing Dask cluster: can
every worker run them, with the same indexer?

A worker whose environment cannot import freshindex fails to deserialise
the task message itself, inside Dask's comm layer; the scheduler keeps the
task "processing" and the build waited for ever (seen with `dask worker`
started from another venv). Asked first, with ``Client.run`` (which reports
a worker's failure to the caller), such a worker ends the command in one
line naming it. Workers that join after the check are not covered."""

from __future__ import annotations

from typing import Any

from freshindex.core.exceptions import BadInput, CheckFailed

PROBE_TIMEOUT_SECONDS = 30


def probe() -> str:
    """Run on each worker: import what shard tasks run, and say which indexer."""
    import freshindex.tasks.parse  # noqa: F401  (what a shard task unpickles to)
    from freshindex.indexer.languages import indexer_digest

    return indexer_digest()


def check_workers(address: str) -> int:
    """The number of workers that can run shard tasks; CheckFailed naming the
    first that cannot (or when the cluster has no worker at all)."""
    from distributed import Client

    from freshindex.indexer.languages import indexer_digest

    expected = indexer_digest()
    try:
        with Client(address, timeout=PROBE_TIMEOUT_SECONDS) as client:
            answers: dict[str, Any] = client.run(probe, on_error="return")
    except (OSError, TimeoutError) as err:
        raise BadInput(f"cannot reach the Dask scheduler at {address}: {err}") from err
    if not answers:
        raise CheckFailed(f"the Dask cluster at {address} has no worker")
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            raise CheckFailed(
                f"Dask worker {worker} cannot run freshindex's shard tasks: "
                f"{type(answer).__name__}: {answer}"
            )
        if answer != expected:
            raise CheckFailed(
                f"Dask worker {worker} runs another freshindex (indexer {answer[:19]}, "
                f"this one {expected[:19]}): install the same version on every worker"
            )
    return len(answers)
