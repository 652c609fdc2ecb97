"""The sandbox over HTTP: a plain ASGI app and its uvicorn runner, on one event-loop thread.

`SandboxApp` turns each request into an engine call: route by the endpoint catalogue, read the
body (capped), authenticate the signature against the sandbox clock, refuse reader keys on
writes, charge the company's request tokens, parse the query or body, call the `Exchange` method
of the endpoint's name, and wrap the result in the contract's envelope. Every response carries
``X-Request-Received-Ms``; every refusal, 500s included, the error envelope. A write is
answered from inside its transaction: the answer is rendered and encoded before the commit, so
a write whose answer fails to render is rolled back and reported as 500 (nothing happened).
The engine is synchronous SQLite and runs on the event-loop thread on purpose: requests are
served one at a time, so the engine needs no locks.

`SandboxServer` runs the app under uvicorn on a socket bound up front (so port 0 works and the
real port is known before the first request), plus the background task that ticks the engine
every 250 ms. `BackgroundSandbox` runs all of that on a thread of its own, for tests and for a
desk that brings its own sandbox along.

Decisions where the contract leaves room:

- ``/v1/status`` and ``/v1/metadata/supported_assets`` never refuse bad credentials: with
  valid headers status reports the key, with invalid ones it answers ``auth: null``, so a
  client with a wrong clock can still learn server time. A signed call costs the company its
  1 token when the budget has it, and is never refused for a spent budget (a desk's liveness
  check must not fail exactly when the desk is busiest). Calls without a valid signature are
  limited per client address instead (`AnonymousLimiter`: 20 per 10 s at the interface's
  budget, a fifth of the company budget when a benchmark raises it), 429 past it.
- Order of checks: route (404/405), body size (413), signature (401/2000), timestamp
  (401/2001), reader on a write (403/2002), tokens (429/5000), then query/body parsing
  (400). So refusals up to the budget cost nothing; a malformed request that passed them has
  been charged, as at a gateway that meters before it parses.
- Unknown query parameters are refused (400) rather than ignored (see `tui.sandbox.http.query`).
- A body over `MAX_BODY_BYTES` is 413 with the usual envelope and code 1001.
- ``/metadata/stats`` answers the bare statistics record (no ``result`` wrapper), as the
  interface shows it; its refusals use the usual error envelope.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import signal
import socket
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, TypeVar

from tui.api.endpoints import BUDGET_TOKENS, ENDPOINTS, Endpoint, endpoint_for
from tui.api.models import ApiRole, ErrorCode
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.http.auth import (
    ANONYMOUS_PER_IP,
    AnonymousLimiter,
    KeyRecord,
    StatsLimiter,
    TokenBudget,
    authenticate,
    read_signed_headers,
)
from tui.sandbox.http.query import parse_json_object
from tui.sandbox.http.routes import call_endpoint

if TYPE_CHECKING:
    from tui.sandbox.actors.profiles import ActorConfig
    from tui.sandbox.actors.runner import ActorRunner
    from tui.sandbox.engine.exchange import Caller, Exchange

__all__ = [
    "ADMIN_ADVANCE_PATH",
    "MAX_BODY_BYTES",
    "RECEIVED_HEADER",
    "STATS_PATH",
    "BackgroundSandbox",
    "SandboxApp",
    "SandboxServer",
    "bind_socket",
    "serve",
]

log = logging.getLogger(__name__)

RECEIVED_HEADER = "X-Request-Received-Ms"
"""Header on every response: when the server received the request, Unix ms (sandbox clock)."""
STATS_PATH = "/metadata/stats"
"""The public statistics endpoint, served by the same server (so stats_base_url = base_url)."""
ADMIN_ADVANCE_PATH = "/admin/clock/advance"
"""With ``admin=True``: ``POST {"seconds": N}`` from loopback moves the sandbox clock forward."""
MAX_BODY_BYTES = 1 << 20
"""Largest request body accepted (1 MiB); a bigger one is refused with 413."""
TICK_INTERVAL_S = 0.25
"""How often the background task lets the engine move time-driven state along."""
MAX_ADVANCE_S = 10 * 365 * 86_400

ASGIScope = dict[str, Any]
ASGIReceive = Callable[[], Awaitable[dict[str, Any]]]
ASGISend = Callable[[dict[str, Any]], Awaitable[None]]
T = TypeVar("T")


@dataclass(slots=True)
class _Reply:
    status: int
    payload: Any
    headers: dict[str, str] = field(default_factory=dict)


class _ClientGone(Exception):
    pass


def _error_reply(code: ErrorCode, message: str, status: int | None = None) -> _Reply:
    return _Reply(status or code.http_status, {"error": {"code": int(code), "message": message}})


def _is_loopback(client: Any) -> bool:
    if not client:
        return False
    try:
        return ipaddress.ip_address(str(client[0])).is_loopback
    except ValueError:
        return False


def _make_caller(key: KeyRecord) -> Caller:
    from tui.sandbox.engine.exchange import Caller

    return Caller(company_id=key.company_id, key_id=key.key_id, role=ApiRole(key.role))


class SandboxApp:
    """The ASGI application of the sandbox: routing, auth, limits, envelopes, admin.

    ``token_budget`` is the per-company request-token budget per 10 s window; the contract's
    value is 100 and only a benchmark should raise it. ``admin`` enables
    `ADMIN_ADVANCE_PATH` (loopback clients only). On ASGI lifespan startup the app starts
    ticking the engine (and stepping the simulated counterparties, ``actors``, when given)
    every ``tick_interval_s``; on shutdown it stops and, when ``close_exchange``, closes the
    engine.
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
    ) -> None:
        self.exchange = exchange
        self.actors = actors
        self.clock: SandboxClock = clock if clock is not None else exchange.clock
        self.admin = admin
        self.budget = TokenBudget(token_budget)
        self.stats_limiter = StatsLimiter()
        self.anonymous_limiter = AnonymousLimiter(max(ANONYMOUS_PER_IP, token_budget // 5))
        self.tick_interval_s = tick_interval_s
        self.close_exchange = close_exchange
        self.max_body_bytes = max_body_bytes
        self._ticker: asyncio.Task[None] | None = None
        self._closed = False

    # --- ASGI entry ------------------------------------------------------------------------

    async def __call__(self, scope: ASGIScope, receive: ASGIReceive, send: ASGISend) -> None:
        """Serve one ASGI connection scope (``http`` or ``lifespan``)."""
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1003})

    async def _lifespan(self, receive: ASGIReceive, send: ASGISend) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.start_ticking()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self.shutdown()
                except Exception:
                    log.exception("closing the exchange failed")
                    await send({"type": "lifespan.shutdown.failed", "message": "close failed"})
                    return
                await send({"type": "lifespan.shutdown.complete"})
                return

    # --- background ticking and shutdown -----------------------------------------------------

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

    # --- one request -------------------------------------------------------------------------

    async def _http(self, scope: ASGIScope, receive: ASGIReceive, send: ASGISend) -> None:
        received_ms = self.clock.now_ms()
        try:
            try:
                body = await self._serve(scope, receive, received_ms)
            except ServiceError as exc:
                body = _encoded(_service_error_reply(exc))
        except _ClientGone:
            return
        except Exception:
            # The traceback goes to the server log only; never the body, never the headers.
            log.exception("unexpected error serving %s %s", scope.get("method"), scope.get("path"))
            body = _internal_error()
        await self._send(send, body, received_ms)

    async def _send(self, send: ASGISend, body: _Encoded, received_ms: int) -> None:
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body.data)).encode()),
            (RECEIVED_HEADER.lower().encode(), str(received_ms).encode()),
        ]
        headers += body.headers
        await send({"type": "http.response.start", "status": body.status, "headers": headers})
        await send({"type": "http.response.body", "body": body.data})

    async def _serve(self, scope: ASGIScope, receive: ASGIReceive, received_ms: int) -> _Encoded:
        path: str = scope["path"]
        method: str = scope["method"].upper()
        if path == STATS_PATH:
            return _encoded(self._stats(scope, method, received_ms))
        if path.startswith("/admin/"):
            return _encoded(await self._admin_request(scope, receive, method, path))
        endpoint = endpoint_for(method, path)
        if endpoint is None:
            allowed = sorted({e.method.value for e in ENDPOINTS if e.path == path})
            if allowed:
                return _encoded(self._method_not_allowed(method, path, allowed))
            raise ServiceError.not_found(f"endpoint {path[:100]}")
        headers = _headers(scope)
        body = await self._read_body(receive, headers)
        if self._closed:
            raise ServiceError(ErrorCode.INTERNAL, "the sandbox is shutting down")
        self.exchange.tick()
        caller = self._caller(scope, endpoint, headers, body, received_ms)
        if caller is None:
            client = scope.get("client")
            self.anonymous_limiter.admit(str(client[0]) if client else "unknown", received_ms)
        else:
            if endpoint.writes and caller.role == ApiRole.READER:
                raise ServiceError.forbidden(
                    f"this API key is read-only (role reader); {endpoint.path} writes"
                )
            if endpoint.auth:
                self.budget.charge(caller.company_id, endpoint.cost, received_ms)
            else:
                self.budget.charge_if_available(caller.company_id, endpoint.cost, received_ms)
        query_string: bytes = scope.get("query_string", b"")
        if not endpoint.writes:
            return _encoded(
                _Reply(200, call_endpoint(self.exchange, endpoint, caller, query_string, body))
            )
        # A write and its answer are one unit: the answer is rendered and encoded before the
        # transaction commits, so an answer that cannot be rendered rolls the write back (a
        # 500 then means "nothing happened"). A refusal keeps what the engine chose to keep
        # (a rejected accept records its status) and undoes the rest of its own work.
        with self.exchange.request_transaction():
            try:
                payload = call_endpoint(self.exchange, endpoint, caller, query_string, body)
            except ServiceError as exc:
                return _encoded(_service_error_reply(exc))
            return _encoded(_Reply(200, payload))

    def _caller(
        self,
        scope: ASGIScope,
        endpoint: Endpoint,
        headers: dict[str, str],
        body: bytes,
        received_ms: int,
    ) -> Caller | None:
        """The authenticated caller, None for an anonymous call where auth is optional.

        On the two endpoints without auth (status, supported assets) invalid credentials do
        not refuse the call: the answer just carries no identity (``auth: null``), so a client
        whose clock is off can still read the server time it needs to fix it.
        """
        try:
            signed = read_signed_headers(headers)
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
                method=scope["method"],
                raw_target=_raw_target(scope),
                body=body,
                now_ms=received_ms,
            )
        except ServiceError:
            if endpoint.auth:
                raise
            return None
        return _make_caller(key)

    async def _read_body(self, receive: ASGIReceive, headers: dict[str, str]) -> bytes:
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            raise self._too_large()
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _ClientGone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                raise self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _too_large(self) -> ServiceError:
        return _TooLargeError(self.max_body_bytes)

    @staticmethod
    def _method_not_allowed(method: str, path: str, allowed: list[str]) -> _Reply:
        reply = _error_reply(
            ErrorCode.BAD_REQUEST,
            f"method {method[:10]} not allowed on {path}; use {' or '.join(allowed)}",
            status=405,
        )
        reply.headers["Allow"] = ", ".join(allowed)
        return reply

    # --- public statistics ---------------------------------------------------------------------

    def _stats(self, scope: ASGIScope, method: str, received_ms: int) -> _Reply:
        if method != "GET":
            return self._method_not_allowed(method, STATS_PATH, ["GET"])
        client = scope.get("client")
        self.stats_limiter.admit(str(client[0]) if client else "unknown", received_ms)
        self.exchange.tick()
        stats = self.exchange.market_stats()
        payload = stats.model_dump(mode="json", exclude_none=True)
        return _Reply(200, payload)

    # --- admin -------------------------------------------------------------------------------

    async def _admin_request(
        self, scope: ASGIScope, receive: ASGIReceive, method: str, path: str
    ) -> _Reply:
        if not self.admin or path != ADMIN_ADVANCE_PATH:
            raise ServiceError.not_found(f"endpoint {path[:100]}")
        if method != "POST":
            return self._method_not_allowed(method, path, ["POST"])
        if not _is_loopback(scope.get("client")):
            raise ServiceError.forbidden("admin endpoints answer loopback clients only")
        data = parse_json_object(await self._read_body(receive, _headers(scope)))
        seconds = data.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int | Decimal | str):
            raise ServiceError.bad_request("seconds: must be a number")
        try:
            amount = Decimal(seconds)
        except InvalidOperation:
            raise ServiceError.bad_request("seconds: must be a number") from None
        if not amount.is_finite() or not 0 <= amount <= MAX_ADVANCE_S:
            raise ServiceError.out_of_range(f"seconds: must be between 0 and {MAX_ADVANCE_S}")
        now_ms = self.clock.advance(float(amount))
        self.advance_world()
        return _Reply(200, {"result": {"server_timestamp_ms": now_ms}})


@dataclass(frozen=True, slots=True)
class _Encoded:
    """A reply ready for the wire: status, JSON bytes and extra headers."""

    status: int
    data: bytes
    headers: list[tuple[bytes, bytes]]


_INTERNAL_BODY = json.dumps(
    {"error": {"code": int(ErrorCode.INTERNAL), "message": "internal server error"}},
    separators=(",", ":"),
).encode()


def _internal_error() -> _Encoded:
    """The 500/9000 envelope (fixed bytes: it cannot fail to encode)."""
    return _Encoded(ErrorCode.INTERNAL.http_status, _INTERNAL_BODY, [])


def _service_error_reply(exc: ServiceError) -> _Reply:
    reply = _error_reply(exc.code, exc.message, status=exc.http_status)
    reply.headers.update(exc.headers)
    return reply


def _json_bytes(payload: Any) -> bytes:
    """The payload as compact UTF-8 JSON.

    Text that cannot be UTF-8 encoded (a lone surrogate stored before requests were checked
    for it) falls back to ASCII with ``\\u`` escapes, which is still valid JSON: one bad record
    must not make every answer that shows it fail for good.
    """
    try:
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(payload, separators=(",", ":")).encode("ascii")


def _encoded(reply: _Reply) -> _Encoded:
    """Encode a reply; raises when the payload cannot be serialised (the caller turns it 500)."""
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in reply.headers.items()
    ]
    return _Encoded(reply.status, _json_bytes(reply.payload), headers)


class _TooLargeError(ServiceError):
    """A body over the size cap: 413 with the usual error envelope (code 1001)."""

    def __init__(self, limit: int) -> None:
        super().__init__(ErrorCode.OUT_OF_RANGE, f"request body larger than {limit} bytes")

    @property
    def http_status(self) -> int:
        """413 Content Too Large."""
        return 413


def _headers(scope: ASGIScope) -> dict[str, str]:
    """Request headers by lower-case name; a repeated header is joined with commas."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        headers[name] = f"{headers[name]},{value}" if name in headers else value
    return headers


def _raw_target(scope: ASGIScope) -> bytes:
    """Path and query exactly as they arrived (what the client signed)."""
    raw_path = scope.get("raw_path") or scope["path"].encode("utf-8")
    query: bytes = scope.get("query_string", b"")
    return raw_path + b"?" + query if query else raw_path


def bind_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening-ready TCP socket bound to ``host:port`` (port 0 picks a free port)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _uvicorn_server_class() -> Any:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn's server without its signal handling: `serve` installs its own.

        uvicorn re-raises a captured SIGINT/SIGTERM once it has shut down, which would kill
        the process (or raise inside the event loop) before our own cleanup ran.
        """

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return QuietServer


def _new_uvicorn_server(config: Any) -> Any:
    return _uvicorn_server_class()(config)


class SandboxServer:
    """The sandbox app under uvicorn on a pre-bound socket, in the current event loop.

    ``actor_config`` switches the simulated counterparties on (None: a quiet market, as tests
    want it); the other options are those of `SandboxApp`.

    ``await start()`` returns once the server accepts connections (`base_url` is then final);
    ``await wait()`` serves until a signal or `request_stop`; ``await stop()`` shuts down
    gracefully: open requests finish, the ticker stops and the engine is closed.
    """

    def __init__(
        self,
        exchange: Exchange,
        *,
        clock: SandboxClock | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        admin: bool = False,
        token_budget: int = BUDGET_TOKENS,
        tick_interval_s: float = TICK_INTERVAL_S,
        close_exchange: bool = True,
        log_level: str = "warning",
        access_log: bool = False,
        actor_config: ActorConfig | None = None,
    ) -> None:
        actors = None
        if actor_config is not None:
            from tui.sandbox.actors.runner import start_actors

            actors = start_actors(exchange, actor_config)
        self.app = SandboxApp(
            exchange,
            clock=clock,
            admin=admin,
            token_budget=token_budget,
            tick_interval_s=tick_interval_s,
            close_exchange=close_exchange,
            actors=actors,
        )
        self.host = host
        self._requested_port = port
        self._log_level = log_level
        self._access_log = access_log
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server."""
        if self.port is None:
            raise RuntimeError("the sandbox server has not started")
        return f"http://{_url_host(self.host)}:{self.port}"

    async def start(self) -> None:
        """Bind, start serving and return once connections are accepted."""
        import uvicorn

        sock = bind_socket(self.host, self._requested_port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            lifespan="on",
            log_config=None,
            log_level=self._log_level,
            access_log=self._access_log,
            timeout_graceful_shutdown=5,
            server_header=False,
        )
        self._server = _new_uvicorn_server(config)
        self._task = asyncio.get_running_loop().create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # re-raise the startup failure
                raise RuntimeError("the sandbox server stopped during startup")
            await asyncio.sleep(0.01)

    def request_stop(self) -> None:
        """Ask the server to shut down gracefully (safe to call from the loop thread only)."""
        if self._server is not None:
            self._server.should_exit = True

    async def wait(self) -> None:
        """Serve until shutdown completes."""
        if self._task is not None:
            await self._task

    async def stop(self) -> None:
        """Shut down gracefully and wait for it."""
        self.request_stop()
        await self.wait()


async def serve(
    exchange: Exchange,
    *,
    clock: SandboxClock | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    on_ready: Callable[[SandboxServer], Awaitable[None] | None] | None = None,
    **options: Any,
) -> None:
    """Serve the exchange until SIGINT/SIGTERM; ``on_ready`` runs once the server accepts.

    Both signals shut down gracefully: requests in flight finish, the engine is closed.

    ``options`` are those of `SandboxServer` (admin, token_budget, tick_interval_s, ...).
    The engine is closed on the way out.
    """
    server = SandboxServer(exchange, clock=clock, host=host, port=port, **options)
    await server.start()
    if threading.current_thread() is threading.main_thread():
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, server.request_stop)
    try:
        if on_ready is not None:
            pending = on_ready(server)
            if pending is not None:
                await pending
        await server.wait()
    finally:
        await server.stop()


class BackgroundSandbox:
    """A sandbox server running on its own thread and event loop.

    ``open_exchange`` is called on that thread, so the engine's SQLite connection lives where
    it is used. `call` runs a function against the engine on the server's thread (between
    requests), which is the only safe way to touch the engine from outside.
    """

    def __init__(
        self,
        open_exchange: Callable[[], Exchange],
        clock: SandboxClock,
        **options: Any,
    ) -> None:
        self._open_exchange = open_exchange
        self.clock = clock
        self._options = options
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: SandboxServer | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:port`` of the running server."""
        if self._server is None:
            raise RuntimeError("the background sandbox has not started")
        return self._server.base_url

    @property
    def app(self) -> SandboxApp:
        """The running ASGI app (its budget, limiter and engine)."""
        if self._server is None:
            raise RuntimeError("the background sandbox has not started")
        return self._server.app

    def start(self, timeout: float = 30.0) -> BackgroundSandbox:
        """Start the thread and return once the server accepts connections."""
        self._thread = threading.Thread(target=self._run, name="sandbox-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the sandbox server did not start in time")
        if self._error is not None:
            raise RuntimeError("the sandbox server failed to start") from self._error
        return self

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        try:
            exchange = self._open_exchange()
            server = SandboxServer(exchange, clock=self.clock, **self._options)
            await server.start()
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            return
        self._loop = asyncio.get_running_loop()
        self._server = server
        self._ready.set()
        await server.wait()

    def call(self, fn: Callable[[Exchange], T], timeout: float = 120.0) -> T:
        """Run ``fn(exchange)`` on the server thread and return its result (or raise its error)."""
        if self._loop is None or self._server is None:
            raise RuntimeError("the background sandbox is not running")
        exchange = self._server.app.exchange

        async def run() -> T:
            return fn(exchange)

        return self._submit(run(), timeout)

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """Shut the server down gracefully (engine closed) and join the thread."""
        if self._loop is not None and self._server is not None and self._loop.is_running():
            self._loop.call_soon_threadsafe(self._server.request_stop)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise TimeoutError("the sandbox server did not stop in time")
        self._loop = None

    def __enter__(self) -> BackgroundSandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
