"""``freshindex serve``: the query service over HTTP (JSON) for downstream services and agents.

GET /defs?name=X, /refs?name=X, /context?target=X&budget=N (each takes
``require_fresh=1``: 409 when the answer is not exact or overlay), /status,
/healthz (200 healthy, 503 not), /metrics (Prometheus text). POST /reload
loads the version ``current.json`` names now; until then the service keeps
answering from the version it loaded, and /healthz says they differ.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import pygit2

from freshindex import context as context_pkg
from freshindex.answer import evaluate, query_doc
from freshindex.exceptions import FreshindexError
from freshindex.health import HealthChecker
from freshindex.metrics import Metrics
from freshindex.reader import IndexVersion
from storage import Store


class QueryService:
    def __init__(self, repo: pygit2.Repository, store: Store):
        self.repo_path = repo.path
        self.store = store
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
            if urlparse(self.path).path != "/reload":
                return self._json(404, {"error": "POST /reload only"})
            try:
                return self._json(200, {"loaded": service.reload()})
            except FreshindexError as err:
                return self._json(500, {"error": str(err)})

    return Handler


def serve(service: QueryService, host: str, port: int) -> ThreadingHTTPServer:
    return ThreadingHTTPServer((host, port), make_handler(service))
