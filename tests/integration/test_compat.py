"""tasks/compat.py: the workaround for prefect-dask#43, on a real Dask cluster.

The first test checks that the upstream bug is still there. When it fails,
quote() reaches a Dask worker whole, and Sealed can be replaced by quote()."""

from __future__ import annotations

from typing import Any

from distributed import LocalCluster
from prefect import flow, task
from prefect.utilities.annotations import quote, unmapped
from prefect.utilities.collections import visit_collection
from prefect_dask import DaskTaskRunner

from freshindex.tasks.compat import Sealed, unseal

# tuples inside, as in an update's plan (its batches and table entries)
PLAN = {"rows": [(i, ("path", i)) for i in range(2000)]}


@task
def kind_of(plan: Any, extra: int) -> str:
    return type(unseal(plan)).__name__


@task
def count_rows(plan: Any, extra: int) -> int:
    return len(unseal(plan)["rows"]) + extra


def test_quote_and_sealed_through_a_real_dask_cluster(prefect_api: str) -> None:
    @flow
    def quoted() -> list[str]:
        return [f.result() for f in kind_of.map(unmapped(quote(PLAN)), range(2))]

    @flow
    def sealed() -> list[int]:
        return [f.result() for f in count_rows.map(unmapped(Sealed(PLAN)), range(3))]

    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        runner = DaskTaskRunner(address=cluster.scheduler_address)
        # prefect-dask#43: Dask rebuilt the quote (a tuple) and the task got a
        # tuple. If this assertion fails, upstream fixed it: see tasks/compat.py
        assert quoted.with_options(task_runner=runner)() == ["tuple", "tuple"], (
            "quote() now reaches Dask workers whole: replace tasks/compat.Sealed with quote()"
        )
        assert sealed.with_options(task_runner=runner)() == [2000, 2001, 2002]


def test_prefects_walk_for_futures_stops_at_a_sealed_value() -> None:
    seen: list[Any] = []

    def record(expr: Any) -> Any:
        seen.append(expr)
        return expr

    visit_collection(Sealed(PLAN), visit_fn=record, return_data=False)
    assert len(seen) == 1 and isinstance(seen[0], Sealed)
    seen.clear()
    visit_collection(PLAN, visit_fn=record, return_data=False)
    assert len(seen) > 10_000  # the walk a plain plan costs, per task


def test_unseal_takes_plain_values_as_they_are() -> None:
    assert unseal(PLAN) is PLAN
    assert unseal(Sealed(PLAN)) is PLAN
