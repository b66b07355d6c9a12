"""The metrics that prove the pointer moved and answers are fresh (Prometheus).

Process-local counters (queries, fallbacks, rejections, overlay parse time)
plus gauges recomputed from the store and the repository at scrape time
(lag, queue age, recrawls, tombstones, last build/update duration and rows).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pygit2
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from freshindex.exceptions import NotFound
from freshindex.manifest import Manifest
from storage import Store
from storage.catalog import read_manifest, read_pointer, read_records, staging_key


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.queries = Counter(
            "freshindex_queries_total", "Queries answered", ["kind", "freshness"], registry=r
        )
        self.fallbacks = Counter(
            "freshindex_query_fallbacks_total",
            "Queries answered partial or stale",
            ["kind"],
            registry=r,
        )
        self.rejections = Counter(
            "freshindex_freshness_rejections_total",
            "Queries refused under require_fresh",
            registry=r,
        )
        self.overlay_parse = Histogram(
            "freshindex_overlay_parse_seconds",
            "Time to build a dirty/commit overlay",
            registry=r,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.lag = Gauge(
            "freshindex_index_lag_commits", "Commits HEAD is ahead of the index", registry=r
        )
        self.queue_age = Gauge(
            "freshindex_incremental_queue_age_seconds",
            "Age of the oldest commit not yet in the index (0 when current)",
            registry=r,
        )
        self.recrawls = Gauge(
            "freshindex_recrawls",
            "Published versions that fell back to a full or shard rebuild",
            registry=r,
        )
        self.tombstones = Gauge(
            "freshindex_tombstones", "Tombstones in the current version", registry=r
        )
        self.duration = Gauge(
            "freshindex_last_build_duration_seconds",
            "Wall time of the newest build or update",
            ["kind"],
            registry=r,
        )
        self.rows = Gauge(
            "freshindex_last_rows_written",
            "Rows written by the newest build or update",
            ["kind"],
            registry=r,
        )
        self.updates = Counter(
            "freshindex_service_updates_total",
            "Updates run by this service (serve --updates), by outcome",
            ["outcome"],
            registry=r,
        )
        self.pending = Gauge(
            "freshindex_rebuild_requests_pending", "Recorded rebuild requests", registry=r
        )

    def refresh(self, store: Store, repo: pygit2.Repository | None) -> None:
        pointer = read_pointer(store).pointer
        if pointer is None:
            return
        current = read_manifest(store, pointer.version)
        self.tombstones.set(current.counts.tombstones)
        self._lag(current, repo)
        recrawls = 0
        latest: dict[str, Manifest] = {}
        for record in read_records(store):
            try:
                m = read_manifest(store, record.version)
            except NotFound:
                continue
            mode = (m.batch or {}).get("mode")
            if mode in ("full", "shard-rebuild"):
                recrawls += 1
            latest[str(m.buildKind)] = m
        self.recrawls.set(recrawls)
        for kind, m in latest.items():
            self.duration.labels(kind).set(_duration(store, m))
            own = f"versions/{m.versionId}/"
            self.rows.labels(kind).set(sum(t.rows for t in m.tables if t.key.startswith(own)))
        self.pending.set(sum(1 for k in store.list("requests/") if k.endswith(".json")))

    def _lag(self, m: Manifest, repo: pygit2.Repository | None) -> None:
        if repo is None or repo.head_is_unborn:
            return
        head = repo.head.peel(pygit2.Commit)
        if str(head.id) == m.sourceCommit:
            self.lag.set(0)
            self.queue_age.set(0)
            return
        try:
            ahead, _ = repo.ahead_behind(head.id, m.sourceCommit)
        except (KeyError, ValueError, pygit2.GitError):
            return
        self.lag.set(ahead)
        walker = repo.walk(
            head.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
        )
        try:
            walker.hide(m.sourceCommit)
        except (KeyError, ValueError, pygit2.GitError):
            return
        oldest = next(iter(walker), None)
        self.queue_age.set(max(0.0, time.time() - oldest.commit_time) if oldest else 0)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def _duration(store: Store, m: Manifest) -> float:
    try:
        started = json.loads(store.get(staging_key(m.versionId)).data)["startedAt"]
    except (NotFound, KeyError, ValueError):
        return 0.0
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ"
    a = datetime.strptime(started, fmt).replace(tzinfo=UTC)
    b = datetime.strptime(m.createdAt, fmt).replace(tzinfo=UTC)
    return max(0.0, (b - a).total_seconds())


def flow_artifact_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The table a flow run attaches as a Prefect artifact."""
    counts = summary.get("counts", {})
    return [
        {"metric": "outcome", "value": summary.get("outcome")},
        {"metric": "mode", "value": summary.get("mode", summary.get("buildKind"))},
        {"metric": "version", "value": summary.get("version")},
        {"metric": "documents", "value": counts.get("documents")},
        {"metric": "symbols", "value": counts.get("symbols")},
        {"metric": "edges", "value": counts.get("edges")},
        {"metric": "tombstones", "value": counts.get("tombstones")},
        {"metric": "bytes written", "value": summary.get("bytes")},
        {
            "metric": "shards rewritten",
            "value": summary.get("shardsRewritten", summary.get("shards")),
        },
    ]
