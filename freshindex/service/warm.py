"""The warm query service behind HTTP and MCP: one loaded version, answered
with its freshness proof, plus the warm updates of ``serve --updates``.

A cold ``freshindex update`` starts Python and imports Prefect before its flow
runs; the service has paid that once (README, "Warm updates")."""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygit2

from freshindex.catalog.reader import IndexVersion
from freshindex.core.exceptions import BadInput, NotFresh, UpdateRefused, UpdatesOff, WorktreeGone
from freshindex.ops.health import HealthChecker
from freshindex.ops.metrics import Metrics
from freshindex.query import answers
from freshindex.query import context as context_pkg
from freshindex.query.answer import Answerer, query_doc
from freshindex.query.answers import ContextPackage, Definitions, References, SourceLines, document
from freshindex.query.evaluation import Bases, evaluate, overlays
from freshindex.query.freshness import Envelope, Freshness, Relation
from freshindex.query.watch import Sync, Watcher
from freshindex.storage import Store

log = logging.getLogger("freshindex")

# The watcher's cookie begun when a request arrived (QueryService.arrival),
# held for the first answer that request makes: its round trip then overlaps
# the transport's own work (routing, validation, the hop to a worker thread)
# as well as choosing the base. A one-item list, emptied by the answer that
# takes it; the context travels with the request into Starlette's threads.
_arrived: contextvars.ContextVar[list[Sync] | None] = contextvars.ContextVar(
    "freshindex_arrived", default=None
)


class Updater:
    """Runs the update flow in the service's process, one run at a time.

    Prefect and the flow are imported here, when the service starts, so that no
    merge waits for them. The caller has set up the Prefect API
    (flows.api.prefect_api) for the life of the service, and made this
    object inside it: updates run in the context it was made in. A request
    thread starts with no context of its own, and there Prefect falls back to
    its global settings, read from the environment at import (or when its
    plugins last ran). Where those predate the API URL, as in the test
    process, the first update started a second, temporary Prefect server in
    the service's process and reported its flow run to that one."""

    def __init__(
        self,
        store_uri: str,
        runner: Callable[[], Any],
        mirror_url: str | None = None,
    ) -> None:
        from freshindex.flows.run import run_pipeline

        self._run = run_pipeline
        self.store_uri = store_uri
        self.runner = runner
        self.mirror_url = mirror_url
        self._lock = threading.Lock()
        self._context = contextvars.copy_context()

    def update(self, repo: pygit2.Repository, rev: str) -> dict[str, Any]:
        from freshindex.core.gitrepo import branch_of, resolve_commit

        commit = resolve_commit(repo, rev)  # a bad REV is the caller's, before any queueing
        asked = time.monotonic()
        with self._lock:
            started = time.monotonic()
            summary = self._context.copy().run(
                self._run,
                "update",
                str(Path(repo.path).resolve()),
                self.store_uri,
                str(commit.id),
                self.runner(),
                mirror_url=self.mirror_url,
                branch=branch_of(repo, rev),
            )
        summary["queuedSeconds"] = round(started - asked, 3)
        summary["wallSeconds"] = round(time.monotonic() - started, 3)
        return summary


class QueryService:
    def __init__(
        self,
        repo: pygit2.Repository,
        store: Store,
        updater: Updater | None = None,
        watch: bool = False,
    ):
        self.repo_path = repo.path
        self.store = store
        self.updater = updater
        self.metrics = Metrics()
        self.health = HealthChecker(store)
        self._lock = threading.Lock()
        # the version with its rows in memory (catalog/memory.py)
        self.version = IndexVersion.current(store).in_memory()
        # other published versions a branch's HEAD is answered from
        # (query/bases.py), in memory too, the three last used
        self.bases = Bases(store, in_memory=True, keep=3, max_age=2.0)
        # the worktree proof from a watcher's checkpoint when nothing changed
        # (query/watch.py); without one, every answer scans
        self.watcher = Watcher(repo).start() if watch and repo.workdir else None
        # overlays of the worktree states answered last (a checkpoint is
        # answered many times)
        self.overlays = overlays()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()

    def reload(self) -> str:
        """Load the current version beside the one serving, then swap: a
        query holds the object it started with and never sees a mix."""
        with self._lock:
            loaded = IndexVersion.current(self.store).in_memory(self.version)
            self.version = loaded
            return loaded.manifest.versionId

    @contextlib.contextmanager
    def arrival(self) -> Iterator[None]:
        """A request has arrived: write the watcher's cookie now, for the first
        answer made within. Any change made before this moment is in that answer,
        as it would be with a cookie written when the answer starts."""
        if self.watcher is None:
            yield
            return
        held = [self.watcher.begin()]
        token = _arrived.set(held)
        try:
            yield
        finally:
            _arrived.reset(token)
            for sync in held:  # not taken: the request ended before any answer
                sync.close()

    def _evaluate(self, parse_now: bool = True) -> Answerer:
        """The answerer for this moment: the base for HEAD, its envelope and overlay."""
        # the watcher's cookie first: its round trip overlaps choosing the base
        held = _arrived.get()
        if held:
            sync: Sync | None = held.pop()
        else:
            sync = self.watcher.begin() if self.watcher is not None else None
        try:
            repo = self._repo()
            current = self.version  # one object for the whole answer, whatever reload does
            version, base = self.bases.select(repo, current)
            seen = self.watcher.observe(repo, sync) if self.watcher is not None else None
        finally:
            if sync is not None:
                sync.close()
        if seen is not None:
            if seen.cause not in (None, "changed"):
                self.metrics.recrawls_total.labels(seen.cause).inc()
            if seen.state.head != base.head:  # HEAD moved since the base was chosen
                version, base = self.bases.select(repo, current)
        answerer = evaluate(
            repo,
            version,
            parse_now=parse_now,
            base=base,
            current=current.manifest.versionId,
            wt=seen.state if seen is not None else None,
            overlays=self.overlays,
        )
        if seen is not None:
            answerer.envelope.worktreeSeq = seen.seq
            answerer.envelope.worktreeSource = seen.source
        return answerer

    def _repo(self) -> pygit2.Repository:
        """One per request (pygit2 objects are not thread-safe); WorktreeGone
        when the repository was deleted or moved under the service."""
        try:
            return pygit2.Repository(self.repo_path)
        except pygit2.GitError as err:
            raise WorktreeGone(
                f"the repository at {self.repo_path} is gone (deleted or moved): {err}"
            ) from err

    def answer(
        self, kind: str, params: dict[str, str]
    ) -> Definitions | References | ContextPackage:
        """defs, refs or context from request parameters; NotFresh under
        ``require_fresh`` when the answer is partial or stale."""
        answerer = self._evaluate()
        if answerer.overlay is not None:
            self.metrics.overlay_parse.observe(answerer.overlay_seconds)
        found: Definitions | References | ContextPackage
        if kind == "context":
            found = _context_package(
                answerer,
                params.get("target"),
                int(params.get("budget", "2000")),
                params.get("changed") in ("1", "true"),
                params.get("since"),
            )
        else:
            found = query_doc(answerer, kind, params.get("name"), params.get("id"))
        fresh = found.freshness.value
        self.metrics.queries.labels(kind, fresh).inc()
        if fresh in ("partial", "stale"):
            self.metrics.fallbacks.labels(kind).inc()
        if params.get("require_fresh") in ("1", "true") and fresh not in ("exact", "overlay"):
            self.metrics.rejections.inc()
            raise NotFresh(f"index freshness is {fresh}", document(found))
        return found

    def update(self, rev: str) -> dict[str, Any]:
        """POST /update: run one update to ``rev`` and load what it published;
        UpdatesOff, or UpdateRefused with the run's summary."""
        if self.updater is None:
            raise UpdatesOff("updates are off: start the service with `serve --updates`")
        summary = self.updater.update(self._repo(), rev)
        outcome = str(summary.get("outcome"))
        self.metrics.updates.labels(outcome).inc()
        if outcome == "published":
            self.reload()
        summary["loaded"] = self.version.manifest.versionId
        if outcome in ("published", "noop"):
            return summary
        raise UpdateRefused(f"update {outcome}: {summary.get('reason')}", summary)

    def envelope(self) -> answers.Envelope:
        """How the loaded version relates to HEAD and the worktree now."""
        try:
            doc = self._evaluate(parse_now=False).envelope.to_json()
        except WorktreeGone as err:  # an answer, not an error: nothing can be proven
            m = self.version.manifest
            doc = Envelope(
                m.versionId, m.sourceCommit, None, "", False, Relation.UNKNOWN,
                Freshness.STALE, None, 0, 0, [str(err)], currentVersion=m.versionId,
            ).to_json()  # fmt: skip
        return answers.Envelope.model_validate(doc)

    def status(self) -> dict[str, Any]:
        """``envelope`` as the JSON document HTTP serves."""
        return document(self.envelope())

    # -- what the MCP tools ask (service/mcp.py) -------------------------------

    def ask(
        self, kind: str, name: str | None, symbol_id: str | None = None
    ) -> Definitions | References:
        """defs or refs of a target (query/references.py): the envelope,
        results with their blobs."""
        found = query_doc(self._evaluate(), kind, name, symbol_id)
        self.metrics.queries.labels(kind, found.freshness.value).inc()
        return found

    def query(self, kind: str, name: str | None, symbol_id: str | None = None) -> dict[str, Any]:
        """``ask``'s answer as the JSON document HTTP serves."""
        return document(self.ask(kind, name, symbol_id))

    def package(
        self, target: str | None, budget: int, changed: bool = False, since: str | None = None
    ) -> ContextPackage:
        found = _context_package(self._evaluate(), target, budget, changed, since)
        self.metrics.queries.labels("context", found.freshness.value).inc()
        return found

    def context(
        self, target: str | None, budget: int, changed: bool = False, since: str | None = None
    ) -> dict[str, Any]:
        """``package``'s answer as the JSON document HTTP serves."""
        return document(self.package(target, budget, changed, since))

    def source(self, path: str, start: int, end: int | None, max_lines: int) -> SourceLines:
        """Lines ``start..end`` of a worktree file as it is now, with its blob OID."""
        answerer = self._evaluate(parse_now=False)
        rel = answerer.guard.relative(path)
        file = answerer.guard.path(rel)
        if not file.is_file():
            raise BadInput(f"{path!r} is not a file in the worktree")
        if end is not None and end < start:
            raise BadInput(f"end_line {end} is before start_line {start}")
        if file.stat().st_size > answerer.config.max_file_bytes:
            raise BadInput(
                f"{rel} is over max_file_bytes ({answerer.config.max_file_bytes}): "
                "not indexed and not served"
            )
        data = file.read_bytes()
        lines = data.decode("utf-8", errors="replace").splitlines()
        last = min(len(lines), end or len(lines), start + max_lines - 1)
        if start > max(len(lines), 1):
            raise BadInput(f"{rel} has {len(lines)} lines; start_line {start} is past its end")
        return SourceLines(
            certificate=answers.Envelope.model_validate(answerer.envelope.to_json()).certificate(),
            path=rel,
            startLine=start,
            endLine=last,
            totalLines=len(lines),
            blob=str(pygit2.hash(data)),
            text="\n".join(lines[start - 1 : last]),
        )

    def healthz(self) -> dict[str, Any]:
        """The health check's result: ``healthy`` and the ``problems``."""
        result = self.health.check(loaded_version=self.version.manifest.versionId)
        result["loaded"] = self.version.manifest.versionId
        if not Path(self.repo_path).is_dir():
            result["healthy"] = False
            result["problems"].append(f"the repository at {self.repo_path} is gone")
        return result

    def scrape(self) -> bytes:
        self.metrics.refresh(self.store, self._repo())
        return self.metrics.exposition()


def _context_package(
    answerer: Any, target: str | None, budget: int, changed: bool, since: str | None
) -> ContextPackage:
    """The envelope, the package (query/context.py) and its markdown form."""
    doc: dict[str, Any] = answerer.envelope.to_json()
    doc.update(context_pkg.build(answerer, target, budget, changed, since))
    doc["markdown"] = context_pkg.markdown(doc)
    return ContextPackage.model_validate(doc)
