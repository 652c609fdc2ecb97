"""The sandbox over HTTP: a Starlette app whose routes are the endpoint catalogue.

`SandboxApp` holds what outlives a request (the engine, the sandbox clock, the token meter and
limiters, the ticking task) and builds the Starlette application (`SandboxApp.asgi`): one route
per catalogue row (`tui.api.endpoints.ENDPOINTS`), plus ``/metadata/stats`` and, with
``admin=True``, the admin clock. Each request turns into an engine call: read the body (capped),
authenticate the signature against the sandbox clock, refuse reader keys on writes, charge the
company's request tokens, parse the query or body, call the `Exchange` method of the endpoint's
name, and wrap the result in the contract's envelope (`tui.sandbox.http.replies`). Every
response carries ``X-Request-Received-Ms``; every refusal, Starlette's own 404/405 and 500s
included, the error envelope. A write is answered from inside its transaction: the answer is
rendered and encoded before the commit, so a write whose answer fails to render is rolled back
and reported as 500 (nothing happened).

Endpoints are ``async`` on purpose and never go to a thread pool: the engine is synchronous
SQLite and runs on the event-loop thread, so requests are served one at a time and the engine
needs no locks. On lifespan startup the app starts ticking the engine (and stepping the
simulated counterparties) every 250 ms; on shutdown it stops and closes the engine.

Decisions where the contract leaves room:

- ``/v1/status`` and ``/v1/metadata/supported_assets`` never refuse bad credentials: with
  valid headers status reports the key, with invalid ones it answers ``auth: null``, so a
  client with a wrong clock can still learn server time. A signed call costs the company its
  1 token when the budget has it, and is never refused for a spent budget (a desk's liveness
  check must not fail exactly when the desk is busiest). Calls without a valid signature are
  limited per client address instead (`AnonymousLimiter`: 20 per 10 s at the interface's
  budget, a fifth of the company budget when a benchmark raises it), 429 past it.
- Order of checks: route (404/405), body size (413), signature (401/2000), timestamp
  (401/2001), replay of a write (401/2000), reader on a write (403/2002), tokens (429/5000),
  then query/body parsing (400). So refusals up to the budget cost nothing; a malformed
  request that passed them has been charged, as at a gateway that meters before it parses.
- An exact replay of a signed write (same key and signature, so same timestamp, target and
  body) that reached the engine once is refused (`tui.sandbox.http.auth.ReplayGuard`); a
  write refused before the engine (403, 429) is not remembered, and reads are never refused
  as replays.
- The client address (per-address limits, the admin door) is the TCP peer; proxy headers are
  believed only from a proxy the hosting was told to trust (`tui.sandbox.http.hosting`).
- With ``faults`` (``--faults``, `tui.sandbox.faults`), every route but the admin one first
  waits its drawn latency, then may be dropped, answered 500 or 429 before the engine sees
  it, or served and then dropped (`tui.sandbox.http.injected`). `faults` may be swapped
  between requests.
- Unknown query parameters are refused (400) rather than ignored (see `tui.sandbox.http.query`).
- A body over `MAX_BODY_BYTES` is 413 with the usual envelope and code 1001.
- ``/metadata/stats`` answers the bare statistics record (no ``result`` wrapper), as the
  interface shows it; its refusals use the usual error envelope.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tui.api.endpoints import BUDGET_TOKENS, ENDPOINTS, Endpoint
from tui.api.models import ApiRole, ErrorCode
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.exchange import Caller
from tui.sandbox.faults import FaultInjector
from tui.sandbox.http.admin import ADMIN_ADVANCE_PATH, advance_clock
from tui.sandbox.http.auth import ReplayGuard, SignedHeaders, authenticate, read_signed_headers
from tui.sandbox.http.injected import answer_with_faults
from tui.sandbox.http.limits import (
    ANONYMOUS_PER_IP,
    AnonymousLimiter,
    CompanyTokenMeter,
    StatsLimiter,
)
from tui.sandbox.http.replies import (
    BodyTooLarge,
    MethodNotAllowed,
    answer,
    internal_error,
    refusal,
)
from tui.sandbox.http.routes import call_endpoint

if TYPE_CHECKING:
    from tui.sandbox.actors.runner import ActorRunner
    from tui.sandbox.engine.exchange import Exchange
    from tui.sandbox.faults import FaultSpec

__all__ = ["MAX_BODY_BYTES", "STATS_PATH", "TICK_INTERVAL_S", "SandboxApp"]

log = logging.getLogger(__name__)

STATS_PATH = "/metadata/stats"
"""The public statistics endpoint, served by the same server (so stats_base_url = base_url)."""
MAX_BODY_BYTES = 1 << 20
"""Largest request body accepted (1 MiB); a bigger one is refused with 413."""
TICK_INTERVAL_S = 0.25
"""How often the background task lets the engine move time-driven state along."""

Serve = Callable[[Request, int], Awaitable[Response]]
"""One route's work: the request and when it was received (sandbox ms) -> the answer."""


class SandboxApp:
    """The sandbox's HTTP application: routing, auth, limits, envelopes, admin, ticking.

    ``token_budget`` is the per-company request-token budget per 10 s window; the contract's
    value is 100 and only a benchmark should raise it. ``admin`` enables
    `ADMIN_ADVANCE_PATH` (loopback clients only). ``actors``, when given, are stepped on every
    tick; ``close_exchange`` closes the engine on shutdown; ``faults`` injects the faults of a
    ``--faults`` spec (its skew belongs to the clock, see `tui.sandbox.faults.fault_clock`).
    `asgi` is what a server runs.
    """

    def __init__(
        self,
        exchange: Exchange,
        *,
        clock: SandboxClock | None = None,
        admin: bool = False,
        token_budget: int = BUDGET_TOKENS,
        tick_interval_s: float = TICK_INTERVAL_S,
        close_exchange: bool = True,
        max_body_bytes: int = MAX_BODY_BYTES,
        actors: ActorRunner | None = None,
        faults: FaultSpec | None = None,
    ) -> None:
        self.exchange = exchange
        self.actors = actors
        self.clock: SandboxClock = clock if clock is not None else exchange.clock
        self.admin = admin
        self.budget = CompanyTokenMeter(token_budget)
        self.stats_limiter = StatsLimiter()
        self.anonymous_limiter = AnonymousLimiter(max(ANONYMOUS_PER_IP, token_budget // 5))
        self.replays = ReplayGuard()
        self.faults: FaultInjector | None = FaultInjector(faults) if faults is not None else None
        self.tick_interval_s = tick_interval_s
        self.close_exchange = close_exchange
        self.max_body_bytes = max_body_bytes
        self._ticker: asyncio.Task[None] | None = None
        self._closed = False
        self._methods: dict[str, set[str]] = {}
        self.asgi = self._build()

    # --- assembly ------------------------------------------------------------------------------

    def _build(self) -> Starlette:
        routes = [
            self._route(endpoint.path, endpoint.method.value, partial(self._trade, endpoint))
            for endpoint in ENDPOINTS
        ]
        routes.append(self._route(STATS_PATH, "GET", self._stats))
        if self.admin:
            admin = partial(advance_clock, self)
            routes.append(self._route(ADMIN_ADVANCE_PATH, "POST", admin, faulty=False))
        app = Starlette(
            routes=routes,
            middleware=[Middleware(_UpperCaseMethod)],
            exception_handlers={HTTPException: self._routing_refusal, Exception: self._crashed},
            lifespan=self._lifespan,
        )
        app.router.redirect_slashes = False  # /v1/companies/ is not /v1/companies: 404
        return app

    def _route(self, path: str, method: str, serve: Serve, *, faulty: bool = True) -> Route:
        self._methods.setdefault(path, set()).add(method)

        async def endpoint(request: Request) -> Response:
            faults = self.faults if faulty else None
            if faults is None:
                return await self._answer(request, method, serve)
            return await answer_with_faults(
                faults, self.clock, partial(self._answer, request, method, serve)
            )

        return Route(path, endpoint, methods=[method])

    @contextlib.asynccontextmanager
    async def _lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        self.start_ticking()
        try:
            yield
        finally:
            await self.shutdown()

    # --- background ticking and shutdown -------------------------------------------------------

    def start_ticking(self) -> None:
        """Start the task that ticks the engine every ``tick_interval_s`` (idempotent)."""
        if self._ticker is None and self.tick_interval_s > 0:
            self._ticker = asyncio.get_running_loop().create_task(self._tick_forever())

    def advance_world(self) -> None:
        """Apply what sandbox time has made due, then let the simulated counterparties act."""
        self.exchange.tick()
        if self.actors is not None:
            self.actors.step()

    async def _tick_forever(self) -> None:
        failing = False
        while True:
            await asyncio.sleep(self.tick_interval_s)
            try:
                self.advance_world()
                failing = False
            except Exception:
                if not failing:  # one traceback per failure streak, not four a second
                    log.exception("background tick of the exchange failed")
                failing = True

    async def shutdown(self) -> None:
        """Stop ticking and (when owned) close the engine; later requests are refused (500)."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        if self.close_exchange and not self._closed:
            self._closed = True
            self.exchange.close()

    # --- every request -------------------------------------------------------------------------

    async def _answer(self, request: Request, method: str, serve: Serve) -> Response:
        """Run one route's work; whatever happens, answer with an envelope."""
        received_ms = self.clock.now_ms()
        try:
            try:
                if request.method != method:  # HEAD, which Starlette lets into GET routes
                    raise self._method_not_allowed(request)
                return await serve(request, received_ms)
            except ServiceError as exc:
                return refusal(exc, received_ms)
        except ClientDisconnect:  # nobody is left to read an answer; the server drops it
            return refusal(ServiceError.bad_request("the client went away"), received_ms)
        except Exception:
            # The traceback goes to the server log only; never the body, never the headers.
            log.exception("unexpected error serving %s %s", request.method, request.scope["path"])
            return internal_error(received_ms)

    async def _routing_refusal(self, request: Request, exc: Exception) -> Response:
        """Starlette's own refusals as envelopes: no such path (404), no such method (405)."""
        received_ms = self.clock.now_ms()
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 404:
            path: str = request.scope["path"]
            return refusal(ServiceError.not_found(f"endpoint {path[:100]}"), received_ms)
        if status == 405:
            return refusal(self._method_not_allowed(request), received_ms)
        log.error("unexpected routing refusal %s for %s", status, request.scope["path"])
        return internal_error(received_ms)

    async def _crashed(self, request: Request, _exc: Exception) -> Response:
        """The last resort for a failure outside any route (Starlette logs and re-raises it)."""
        return internal_error(self.clock.now_ms())

    def _method_not_allowed(self, request: Request) -> MethodNotAllowed:
        path: str = request.scope["path"]
        return MethodNotAllowed(request.method, path, sorted(self._methods.get(path, ())))

    async def read_body(self, request: Request) -> bytes:
        """The request body, refused with 413 once it is over ``max_body_bytes``.

        A declared ``Content-Length`` over the cap is refused before anything is read.
        """
        declared = ",".join(request.headers.getlist("content-length"))
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            raise BodyTooLarge(self.max_body_bytes)
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body_bytes:
                raise BodyTooLarge(self.max_body_bytes)
            chunks.append(chunk)
        return b"".join(chunks)

    # --- the trading API -----------------------------------------------------------------------

    async def _trade(self, endpoint: Endpoint, request: Request, received_ms: int) -> Response:
        body = await self.read_body(request)
        if self._closed:
            raise ServiceError(ErrorCode.INTERNAL, "the sandbox is shutting down")
        self.exchange.tick()
        signer = self._caller(request, endpoint, body, received_ms)
        if signer is None:
            caller = None
            self.anonymous_limiter.admit(_client_ip(request), received_ms)
        else:
            caller, signed = signer
            if endpoint.writes:
                self.replays.check(signed, received_ms)
                if caller.role == ApiRole.READER:
                    raise ServiceError.forbidden(
                        f"this API key is read-only (role reader); {endpoint.path} writes"
                    )
            if endpoint.auth:
                self.budget.charge(caller.company_id, endpoint.cost, received_ms)
            else:
                self.budget.charge_if_available(caller.company_id, endpoint.cost, received_ms)
            if endpoint.writes:  # it goes to the engine now: the same bytes never will again
                self.replays.remember(signed)
        query_string: bytes = request.scope.get("query_string", b"")
        if not endpoint.writes:
            return answer(
                call_endpoint(self.exchange, endpoint, caller, query_string, body), received_ms
            )
        # A write and its answer are one unit: the answer is rendered and encoded before the
        # transaction commits, so an answer that cannot be rendered rolls the write back (a
        # 500 then means "nothing happened"). A refusal keeps what the engine chose to keep
        # (a rejected accept records its status) and undoes the rest of its own work.
        with self.exchange.request_transaction():
            try:
                payload = call_endpoint(self.exchange, endpoint, caller, query_string, body)
            except ServiceError as exc:
                return refusal(exc, received_ms)
            return answer(payload, received_ms)

    def _caller(
        self, request: Request, endpoint: Endpoint, body: bytes, received_ms: int
    ) -> tuple[Caller, SignedHeaders] | None:
        """The authenticated caller and the headers it signed with; None for an anonymous
        call where auth is optional.

        On the two endpoints without auth (status, supported assets) invalid credentials do
        not refuse the call: the answer just carries no identity (``auth: null``), so a client
        whose clock is off can still read the server time it needs to fix it.
        """
        try:
            signed = read_signed_headers(_joined_headers(request))
            if signed is None:
                if endpoint.auth:
                    raise ServiceError(
                        ErrorCode.UNAUTHENTICATED,
                        "authentication required: send X-Request-Timestamp-Ms, X-Service-Key "
                        "and X-Service-Signature",
                    )
                return None
            key = authenticate(
                signed,
                self.exchange.api_key,
                method=request.method,
                raw_target=_raw_target(request),
                body=body,
                now_ms=received_ms,
            )
        except ServiceError:
            if endpoint.auth:
                raise
            return None
        caller = Caller(company_id=key.company_id, key_id=key.key_id, role=ApiRole(key.role))
        return caller, signed

    # --- public statistics ---------------------------------------------------------------------

    async def _stats(self, request: Request, received_ms: int) -> Response:
        self.stats_limiter.admit(_client_ip(request), received_ms)
        self.exchange.tick()
        stats = self.exchange.market_stats()
        return answer(stats.model_dump(mode="json", exclude_none=True), received_ms)


class _UpperCaseMethod:
    """Routes on the method in upper case: the server passes it on as sent, and a ``get`` has
    always been served as the ``GET`` it names (the signature upper-cases it too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope["method"] = scope["method"].upper()
        await self.app(scope, receive, send)


def _client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _joined_headers(request: Request) -> dict[str, str]:
    """Request headers by lower-case name; a repeated header is joined with commas."""
    joined: dict[str, str] = {}
    for name, value in request.headers.items():
        joined[name] = f"{joined[name]},{value}" if name in joined else value
    return joined


def _raw_target(request: Request) -> bytes:
    """Path and query exactly as they arrived (what the client signed)."""
    scope = request.scope
    raw_path: bytes = scope.get("raw_path") or scope["path"].encode("utf-8")
    query: bytes = scope.get("query_string", b"")
    return raw_path + b"?" + query if query else raw_path
