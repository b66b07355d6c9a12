"""The query service on HTTP: FastAPI on uvicorn, with the MCP streamable-HTTP
transport at ``/mcp``.

GET /defs?name=X, /refs?name=X (name: NAME, Qualified.name or path:line; or ?id=SYMBOL_ID), /context?target=X&budget=N (each takes
``require_fresh=1``: 409 when the answer is not exact or overlay), /status,
/healthz (200 healthy, 503 not), /metrics (Prometheus text); POST /reload,
POST /update?rev=REV (with ``serve --updates``); OpenAPI at /docs; MCP at /mcp.
The JSON of every REST endpoint is what it was on ``http.server``
(docs/contract.md).

Who may do what: with FRESHINDEX_TOKEN set, every request needs
``Authorization: Bearer <token>`` (401 otherwise). Without one the service
answers only on a loopback address for anything that writes: bound elsewhere,
POST /update and /reload are refused (403), and ``serve`` refuses to start
with ``--updates`` (cli/serve.py).
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import logging
import socket
import threading
from collections.abc import AsyncIterator
from typing import Any

import orjson
import uvicorn
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse, Response
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from freshindex.core.exceptions import FreshindexError, NotFresh, UpdateRefused, UpdatesOff
from freshindex.query.answers import (
    ContextPackage,
    Definitions,
    Envelope,
    Health,
    Problem,
    References,
    Reloaded,
    UpdateSummary,
    document,
)
from freshindex.service.mcp import build_server
from freshindex.service.warm import QueryService

log = logging.getLogger("freshindex")

WRITES = {("POST", "/update"), ("POST", "/reload")}

# what each error status of the REST endpoints means, for their OpenAPI entries
ERRORS = {
    400: "bad input: the message names the parameter or what was wrong",
    403: "refused: writes need a token, or updates are off",
    409: "require_fresh was set and the answer is not exact or overlay",
    500: "the index could not answer (a check failed): the message says which",
}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _json(code: int, doc: Any) -> Response:
    """Sorted keys, str() for what JSON lacks, a newline. orjson first (a
    600-reference answer: 0.6 ms against 4.8 ms); a path that is not UTF-8
    (surrogate-escaped, which orjson refuses) goes through json, which
    escapes it losslessly."""
    try:
        body = orjson.dumps(
            doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE, default=str
        )
    except TypeError:  # orjson.JSONEncodeError included
        body = json.dumps(doc, sort_keys=True, default=str).encode() + b"\n"
    return Response(body, status_code=code, media_type="application/json")


def _error(code: int, message: str) -> Response:
    return _json(code, {"error": message})


def create_app(service: QueryService, host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    """The whole service as one ASGI app: REST, OpenAPI, MCP, and its guard."""
    mcp = build_server(service)
    mcp_app = mcp.streamable_http_app(host=host)  # DNS-rebinding checks on loopback

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with mcp.session_manager.run():  # the mounted app's own lifespan never runs
            yield

    # /docs and /redoc from assets a package ships: the CDN FastAPI's pages
    # load from is out of reach on many machines an index runs on
    api = FastAPIOffline(
        title="freshindex",
        description="Definitions, references and context of one git repository, each answer "
        "with the proof of the code version it belongs to.",
        lifespan=lifespan,
    )

    @api.exception_handler(StarletteHTTPException)
    async def not_found(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return _error(404, f"no such endpoint {request.url.path}")
        response = _error(exc.status_code, str(exc.detail))
        response.headers.update(getattr(exc, "headers", None) or {})  # 405's Allow
        return response

    @api.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        return _error(400, f"{'.'.join(map(str, first.get('loc', [])))}: {first.get('msg', exc)}")

    @api.exception_handler(FreshindexError)
    async def expected(_request: Request, exc: FreshindexError) -> Response:
        return _error(500 if exc.exit_code == 1 else 400, str(exc))

    @api.exception_handler(ValueError)
    async def value_error(_request: Request, exc: ValueError) -> Response:
        return _error(400, str(exc))

    def answer(kind: str, params: dict[str, str]) -> Response:
        try:
            return _json(200, document(service.answer(kind, params)))
        except NotFresh as err:  # the answer, with why it was refused
            return _json(409, {"error": str(err), **err.doc})

    def params(**given: str | None) -> dict[str, str]:
        return {k: v for k, v in given.items() if v is not None}

    def flag(value: bool) -> str | None:
        return "1" if value else None

    def documented(ok: type[BaseModel], *codes: int) -> dict[int | str, dict[str, Any]]:
        """The OpenAPI responses of an endpoint: its answer, and each error as a Problem."""
        out: dict[int | str, dict[str, Any]] = {200: {"model": ok}}
        for code in (400, *codes):
            out[code] = {"model": Problem, "description": ERRORS[code]}
        return out

    fresh = Query(False, description="answer 409 unless freshness is exact or overlay")

    def symbol_query(kind: str, summary: str, model: type[BaseModel]) -> None:
        @api.get(f"/{kind}", summary=summary, name=kind, responses=documented(model, 409, 500))
        def handler(
            name: str | None = Query(
                None, min_length=1, description="NAME, Qualified.name or path:line"
            ),
            id: str | None = Query(None, min_length=1, description="the symbolId of a definition"),
            require_fresh: bool = fresh,
        ) -> Response:
            if name is None and id is None:
                return _error(400, "missing ?name= (or ?id=)")
            return answer(kind, params(name=name, id=id, require_fresh=flag(require_fresh)))

    symbol_query("defs", "Definitions of a symbol, with the freshness envelope", Definitions)
    symbol_query(
        "refs", "References to a symbol, bound then candidates, with the envelope", References
    )

    @api.get(
        "/context",
        summary="A context package for a symbol, a file, or the changes in progress",
        responses=documented(ContextPackage, 409, 500),
    )
    def context(
        target: str | None = Query(None, min_length=1, description="NAME, path or path:line"),
        budget: int = Query(2000, ge=1, le=1_000_000, description="tokens, at most"),
        changed: bool = Query(False, description="the uncommitted changes (and since)"),
        since: str | None = Query(
            None, min_length=1, description="a revision: also the commits after it"
        ),
        require_fresh: bool = fresh,
    ) -> Response:
        if target is None and not changed and since is None:
            return _error(400, "missing ?target= (or ?changed=1, ?since=REV)")
        return answer(
            "context",
            params(
                target=target,
                budget=str(budget),
                changed=flag(changed),
                since=since,
                require_fresh=flag(require_fresh),
            ),
        )

    @api.get(
        "/status",
        summary="Freshness of the loaded version against HEAD and the worktree",
        responses=documented(Envelope, 500),
    )
    def status() -> Response:
        return _json(200, service.status())

    @api.get(
        "/healthz",
        summary="200 healthy, 503 not (pointer, records, table files)",
        responses={200: {"model": Health}, 503: {"model": Health, "description": "unhealthy"}},
    )
    def healthz() -> Response:
        result = service.healthz()
        return _json(200 if result["healthy"] else 503, result)

    @api.get(
        "/metrics",
        summary="Prometheus metrics",
        response_class=PlainTextResponse,
        responses={200: {"content": {"text/plain": {}}, "description": "the exposition format"}},
    )
    def metrics() -> Response:
        return Response(service.scrape(), media_type="text/plain; version=0.0.4")

    @api.post(
        "/reload",
        summary="Load the version current.json names now",
        responses=documented(Reloaded, 403, 500),
    )
    def reload() -> Response:
        return _json(200, {"loaded": service.reload()})

    @api.post(
        "/update",
        summary="Run an update to rev in this process and load it (--updates)",
        responses=documented(UpdateSummary, 403, 409, 500),
    )
    def update(rev: str = "HEAD") -> Response:
        try:
            return _json(200, service.update(rev))
        except UpdatesOff as err:
            return _error(403, str(err))
        except UpdateRefused as err:
            return _json(409, {"error": str(err), **err.summary})
        except FreshindexError as err:  # an update's bad input is the caller's
            return _error(400 if err.exit_code == 2 else 500, str(err))
        except Exception as err:  # an update that crashed: say so, keep serving
            log.exception("POST /update failed")
            return _error(500, f"{type(err).__name__}: {err}")

    return Guard(
        _Dispatch(_Arrival(api, service), mcp_app), token=token, writes_open=is_loopback(host)
    )


class _Dispatch:
    """/mcp to the MCP transport, everything else (lifespan included) to the API."""

    def __init__(self, api: ASGIApp, mcp_app: ASGIApp) -> None:
        self.api = api
        self.mcp_app = mcp_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/mcp" or path.startswith("/mcp/")):
            await self.mcp_app(scope, receive, send)
        else:
            await self.api(scope, receive, send)


class _Arrival:
    """A GET of an answer begins the watcher's cookie as it arrives
    (QueryService.arrival), before FastAPI routes and validates it and hands
    it to a worker thread."""

    ANSWERS = frozenset({"/defs", "/refs", "/context", "/status"})

    def __init__(self, app: ASGIApp, service: QueryService) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"] in self.ANSWERS:
            with self.service.arrival():
                await self.app(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class Guard:
    """Who may do what (module docstring): a bearer token when one is set, and
    no writes on a non-loopback bind without one."""

    def __init__(self, app: ASGIApp, token: str | None, writes_open: bool) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.writes_open = writes_open

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal = self._refusal(scope)
        if refusal is None:
            return await self.app(scope, receive, send)
        code, message, headers = refusal
        response = _error(code, message)
        response.headers.update(headers)
        await response(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, dict[str, str]] | None:
        if self.token is not None:
            sent = dict(scope.get("headers", [])).get(b"authorization", b"")
            scheme, _, given = sent.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self.token):
                why = "missing" if not sent else "bad"
                return 401, f"{why} bearer token", {"WWW-Authenticate": "Bearer"}
            return None
        if not self.writes_open and (scope["method"], scope["path"]) in WRITES:
            return 403, "writes need FRESHINDEX_TOKEN on a non-loopback address", {}
        return None


class ServiceServer:
    """uvicorn on a socket bound at once (port 0 picks a free one), with the
    shape of socketserver's servers: ``server_address``, ``serve_forever()``
    (blocks; handles SIGINT/SIGTERM on the main thread), ``shutdown()`` from
    another thread, ``server_close()``."""

    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # proto named: asyncio turns Nagle off (TCP_NODELAY) only on sockets
        # whose proto is IPPROTO_TCP, and an accepted connection takes the
        # listening socket's. With proto 0, every answer after the first on a
        # kept-alive connection waited ~40 ms for a delayed ACK (measured:
        # 48 ms against 3.5 ms on a new connection).
        self.socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.socket.listen(128)
        self.server_address = self.socket.getsockname()
        # httptools, uvicorn's C parser, over its pure-Python h11: a warm
        # `defs` over a kept-alive connection went from 4.5 to 3.7 ms at p50
        # (6 alternating runs each; the answer itself ~3 ms in process)
        config = uvicorn.Config(
            app, http="httptools", log_level="warning", access_log=False, lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._done = threading.Event()

    def serve_forever(self) -> None:
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self) -> None:
        self._server.should_exit = True
        self._done.wait(30)

    def server_close(self) -> None:
        self.socket.close()


def serve(service: QueryService, host: str, port: int, token: str | None = None) -> ServiceServer:
    return ServiceServer(create_app(service, host, token), host, port)
