"""What a LocalCluster worker needs before its first shard task, imported once
by the forkserver its workers are forked from (flows/cluster.py,
_fork_workers_from_a_server): ~2.5 s of CPU per process (Prefect alone ~1.3 s).
The flow modules too: every task's context carries its flow, which unpickles by
importing the flow's module (building the Flow object's parameter schema).

The collector is paused while they load and the result frozen
(process/collector.py), so the forked workers start with a frozen heap they share
copy-on-write."""

from freshindex.process import collector

collector.hold()

import distributed  # noqa: E402, F401
import prefect_dask  # noqa: E402, F401

import freshindex.flows.build  # noqa: E402
import freshindex.flows.update  # noqa: E402
import freshindex.tasks.parse  # noqa: E402, F401

collector.settle()
