"""``freshindex serve``: the query service over HTTP (JSON) for downstream services and agents.

GET /defs?name=X, /refs?name=X, /context?target=X&budget=N (each takes
``require_fresh=1``: 409 when the answer is not exact or overlay), /status,
/healthz (200 healthy, 503 not), /metrics (Prometheus text). POST /reload
loads the version ``current.json`` names now; until then the service keeps
answering from the version it loaded, and /healthz says they differ.

POST /update?rev=REV (``serve --updates``; REV defaults to HEAD) runs the
update flow in this process and loads what it published: the per-merge hook of
a warm service. A cold ``freshindex update`` starts Python and imports Prefect
first, 1.1-1.5 s of a ~1.6 s 10-file update here (README, "Incremental
updates"); the service pays that once. Updates run one at a time; queries keep
answering from the loaded version meanwhile and see the new one once loaded.
200 published or nothing to do, 409 refused (validation, lost publish), 400 a
bad revision, 403 updates off.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pygit2

from freshindex.core.exceptions import FreshindexError
from freshindex.ops.health import HealthChecker
from freshindex.ops.metrics import Metrics
from freshindex.query import context as context_pkg
from freshindex.query.answer import evaluate, query_doc
from freshindex.query.reader import IndexVersion
from freshindex.storage import Store

log = logging.getLogger("freshindex")


class Updater:
    """Runs the update flow in the service's process, one run at a time.

    Prefect and the flow are imported here, when the service starts, so that no
    merge waits for them. The caller has set up the Prefect API
    (flows.runtime.prefect_api) for the life of the service, and made this
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
        from freshindex.flows.update import run_update

        self._run = run_update
        self.store_uri = store_uri
        self.runner = runner
        self.mirror_url = mirror_url
        self._lock = threading.Lock()
        self._context = contextvars.copy_context()

    def update(self, repo: pygit2.Repository, rev: str) -> dict[str, Any]:
        from freshindex.core.gitrepo import resolve_commit

        commit = resolve_commit(repo, rev)  # a bad REV is the caller's, before any queueing
        asked = time.monotonic()
        with self._lock:
            started = time.monotonic()
            summary = self._context.copy().run(
                self._run,
                str(Path(repo.path).resolve()),
                self.store_uri,
                str(commit.id),
                self.runner(),
                self.mirror_url,
            )
        summary["queuedSeconds"] = round(started - asked, 3)
        summary["wallSeconds"] = round(time.monotonic() - started, 3)
        return summary


class QueryService:
    def __init__(self, repo: pygit2.Repository, store: Store, updater: Updater | None = None):
        self.repo_path = repo.path
        self.store = store
        self.updater = updater
        self.metrics = Metrics()
        self.health = HealthChecker(store)
        self._lock = threading.Lock()
        self.version = IndexVersion.current(store)

    def reload(self) -> str:
        with self._lock:
            self.version = IndexVersion.current(self.store)
            return self.version.manifest.versionId

    def _repo(self) -> pygit2.Repository:
        return pygit2.Repository(
            self.repo_path
        )  # one per request: pygit2 objects are not thread-safe

    def answer(self, kind: str, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        answerer = evaluate(self._repo(), self.version)
        if answerer.overlay is not None:
            self.metrics.overlay_parse.observe(answerer.overlay_seconds)
        if kind == "context":
            doc = answerer.envelope.to_json()
            doc.update(
                context_pkg.build(answerer, params["target"], int(params.get("budget", "2000")))
            )
        else:
            doc = query_doc(answerer, kind, params["name"])
        fresh = doc["freshness"]
        self.metrics.queries.labels(kind, fresh).inc()
        if fresh in ("partial", "stale"):
            self.metrics.fallbacks.labels(kind).inc()
        if params.get("require_fresh") in ("1", "true") and fresh not in ("exact", "overlay"):
            self.metrics.rejections.inc()
            return 409, {"error": f"index freshness is {fresh}", **doc}
        return 200, doc

    def update(self, rev: str) -> tuple[int, dict[str, Any]]:
        """POST /update: run one update to ``rev`` and load what it published."""
        if self.updater is None:
            return 403, {"error": "updates are off: start the service with `serve --updates`"}
        summary = self.updater.update(self._repo(), rev)
        outcome = str(summary.get("outcome"))
        self.metrics.updates.labels(outcome).inc()
        if outcome == "published":
            self.reload()
        summary["loaded"] = self.version.manifest.versionId
        if outcome in ("published", "noop"):
            return 200, summary
        return 409, {"error": f"update {outcome}: {summary.get('reason')}", **summary}

    def status(self) -> dict[str, Any]:
        return evaluate(self._repo(), self.version, parse_now=False).envelope.to_json()

    def healthz(self) -> tuple[int, dict[str, Any]]:
        result = self.health.check(loaded_version=self.version.manifest.versionId)
        result["loaded"] = self.version.manifest.versionId
        return (200 if result["healthy"] else 503), result

    def scrape(self) -> bytes:
        self.metrics.refresh(self.store, self._repo())
        return self.metrics.exposition()


def make_handler(service: QueryService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "freshindex"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: stderr is for errors
            return

        def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _json(self, code: int, doc: Any) -> None:
            self._send(code, json.dumps(doc, sort_keys=True, default=str).encode() + b"\n")

        def do_GET(self) -> None:
            url = urlparse(self.path)
            params = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                if url.path in ("/defs", "/refs"):
                    if "name" not in params:
                        return self._json(400, {"error": "missing ?name="})
                    return self._json(*service.answer(url.path[1:], params))
                if url.path == "/context":
                    if "target" not in params:
                        return self._json(400, {"error": "missing ?target="})
                    return self._json(*service.answer("context", params))
                if url.path == "/status":
                    return self._json(200, service.status())
                if url.path == "/healthz":
                    return self._json(*service.healthz())
                if url.path == "/metrics":
                    return self._send(200, service.scrape(), "text/plain; version=0.0.4")
                return self._json(404, {"error": f"no such endpoint {url.path}"})
            except FreshindexError as err:
                return self._json(500 if err.exit_code == 1 else 400, {"error": str(err)})
            except ValueError as err:
                return self._json(400, {"error": str(err)})

        def do_POST(self) -> None:
            url = urlparse(self.path)
            params = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                if url.path == "/reload":
                    return self._json(200, {"loaded": service.reload()})
                if url.path == "/update":
                    return self._json(*service.update(params.get("rev", "HEAD")))
                return self._json(404, {"error": "POST /reload or /update only"})
            except FreshindexError as err:  # an update's bad input is the caller's
                bad_input = url.path == "/update" and err.exit_code == 2
                return self._json(400 if bad_input else 500, {"error": str(err)})
            except Exception as err:  # an update that crashed: say so, keep serving
                log.exception("POST %s failed", url.path)
                return self._json(500, {"error": f"{type(err).__name__}: {err}"})

    return Handler


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-answer is routine, not a traceback on
        the service's stderr (http.server prints one for every such case)."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        log.exception("request from %s failed", client_address)


def serve(service: QueryService, host: str, port: int) -> ThreadingHTTPServer:
    return _Server((host, port), make_handler(service))
