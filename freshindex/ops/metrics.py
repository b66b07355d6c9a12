"""The metrics that prove the pointer moved and answers are fresh (Prometheus).

Process-local counters (queries, fallbacks, rejections, overlay parse time)
plus gauges recomputed from the store and the repository at scrape time
(lag, queue age, update fallbacks, tombstones, last build/update duration and rows;
the worktree watcher's recrawls by cause).
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pygit2
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from freshindex.catalog.layout import RecordTail, read_manifest, read_pointer, staging_key
from freshindex.catalog.manifest import Manifest
from freshindex.core.exceptions import NotFound
from freshindex.storage import Store


class Metrics:
    def __init__(self) -> None:
        self._folding = threading.Lock()
        self._records = RecordTail()
        self._recrawls = 0
        self._latest: dict[str, tuple[int, str]] = {}  # buildKind -> (seq, version)
        self._manifests: dict[str, Manifest] = {}
        self._summaries: dict[str, tuple[float, int]] = {}
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
            # was freshindex_recrawls: that name is the watcher's counter now
            "freshindex_update_fallbacks",
            "Published versions that fell back to a full or shard rebuild",
            registry=r,
        )
        self.recrawls_total = Counter(
            "freshindex_recrawls",  # exposed as freshindex_recrawls_total
            "Full worktree rescans a watcher's doubt forced, by cause "
            "(start, stopped, sync-timeout, timer, git)",
            ["cause"],
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
        """Recompute the store gauges. Manifests, records and staging markers
        never change once written, so each is read once per process: a scrape
        reads the pointer, lists the records after the last one folded in, and
        reads only what is new (one LIST page and two GETs when nothing was
        published, however many versions the store holds)."""
        pointer = read_pointer(store).pointer
        if pointer is None:
            return
        current = self._manifest(store, pointer.version)
        self.tombstones.set(current.counts.tombstones)
        self._lag(current, repo)
        with self._folding:  # concurrent scrapes must not fold a record twice
            for m in _manifests(store, [r.version for r in self._records.new(store)]):
                if (m.batch or {}).get("mode") in ("full", "shard-rebuild"):
                    self._recrawls += 1
                kind = str(m.buildKind)
                if m.seq >= self._latest.get(kind, (0, ""))[0]:
                    self._latest[kind] = (m.seq, m.versionId)
            self.recrawls.set(self._recrawls)
            for kind, (_seq, version) in self._latest.items():
                duration, rows = self._summary(store, version)
                self.duration.labels(kind).set(duration)
                self.rows.labels(kind).set(rows)
            newest = {version for _seq, version in self._latest.values()}
            self._summaries = {v: s for v, s in self._summaries.items() if v in newest}
        self.pending.set(sum(1 for k in store.list("requests/") if k.endswith(".json")))

    def _manifest(self, store: Store, version: str) -> Manifest:
        m = self._manifests.get(version)
        if m is None:
            m = read_manifest(store, version)
            self._manifests[version] = m
            while len(self._manifests) > 8:  # the current one and the newest per kind
                del self._manifests[next(iter(self._manifests))]
        return m

    def _summary(self, store: Store, version: str) -> tuple[float, int]:
        """Wall time and rows written of a published version (cached: both are fixed)."""
        if version not in self._summaries:
            try:
                m = self._manifest(store, version)
            except NotFound:
                return 0.0, 0
            own = f"versions/{m.versionId}/"
            rows = sum(t.rows for t in m.tables if t.key.startswith(own))
            self._summaries[version] = (_duration(store, m), rows)
        return self._summaries[version]

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


def _manifests(store: Store, versions: list[str]) -> list[Manifest]:
    """The manifests of published versions, eight GETs at a time; a version
    collected by gc before this process first looked is left out."""

    def one(version: str) -> Manifest | None:
        try:
            return read_manifest(store, version)
        except NotFound:
            return None

    if not versions:
        return []
    with ThreadPoolExecutor(max_workers=8) as pool:
        return [m for m in pool.map(one, versions) if m is not None]


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
