"""ShardTaskRunner (flows/dask_runner.py), prefect-dask's runner with a cheaper
submit: quote()d parameters reach a Dask worker whole, and are not walked."""

from __future__ import annotations

from typing import Any

import prefect_dask.task_runners as prefect_dask_runners
import pytest
from distributed import LocalCluster
from prefect import flow, task
from prefect.utilities.annotations import quote, unmapped

from freshindex.flows.build import as_is
from freshindex.flows.dask_runner import ShardTaskRunner


@task
def count_rows(plan: Any, extra: int) -> int:
    assert isinstance(plan, dict), f"got {type(plan).__name__}: {plan!r:.80}"
    return len(plan["rows"]) + extra


def test_quoted_parameters_reach_workers_whole_and_unwalked(
    prefect_api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tuples inside, as in an update's plan (its batches and table entries)
    plan = {"rows": [(i, ("path", i)) for i in range(2000)]}
    walked: list[Any] = []
    visit = prefect_dask_runners.visit_collection

    def recording(expr: Any, *args: Any, **kwargs: Any) -> Any:
        walked.append(expr)
        return visit(expr, *args, **kwargs)

    # a spy: prefect-dask's own walk still runs, we only see what it is given
    monkeypatch.setattr(prefect_dask_runners, "visit_collection", recording)

    @flow
    def shards() -> list[int]:
        return [f.result() for f in count_rows.map(unmapped(as_is(plan)), range(3))]

    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        runner = ShardTaskRunner(address=cluster.scheduler_address)
        # dask rebuilt the quote (a namedtuple) as quote(((plan,),)): the task got a tuple
        assert shards.with_options(task_runner=runner)() == [2000, 2001, 2002]
    # the futures walk saw each task's parameters, but never inside a quote:
    # for an update's plan that walk was ~1.4M visits per shard task
    parameters = [e for e in walked if isinstance(e, dict) and "extra" in e]
    assert len(parameters) == 3
    assert not [v for p in parameters for v in p.values() if isinstance(v, quote)]
