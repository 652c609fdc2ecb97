"""Hosting the sandbox app: uvicorn on a socket bound up front, in this loop or on a thread.

`SandboxServer` runs a `SandboxApp` under uvicorn on a socket bound before serving (so port 0
works and the real port is known before the first request). `serve` runs one until SIGINT or
SIGTERM. `BackgroundSandbox` runs all of that on a thread of its own, for tests and for a desk
that brings its own sandbox along.

Two things of uvicorn's are set on purpose:

- Proxy headers. uvicorn believes ``X-Forwarded-For`` from 127.0.0.1 by default, which on a
  loopback server means from every client: anybody could pick the address the per-address
  limits count and the admin door checks. Here they are off unless ``trusted_proxies`` names
  the proxies (addresses or networks) whose forwarded-for header is believed.
- The HTTP protocol: uvicorn's h11 protocol, extended so every request's scope carries a way
  to close its connection (`tui.sandbox.http.replies.DROP_CONNECTION`), which the ``--faults``
  drops need (an ASGI app alone cannot close a connection without sending an answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from tui.api.endpoints import BUDGET_TOKENS
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.http.app import TICK_INTERVAL_S, SandboxApp
from tui.sandbox.http.replies import DROP_CONNECTION

if TYPE_CHECKING:
    from tui.sandbox.actors.profiles import ActorConfig
    from tui.sandbox.engine.exchange import Exchange
    from tui.sandbox.faults import FaultSpec

__all__ = ["BackgroundSandbox", "SandboxServer", "bind_socket", "serve"]

T = TypeVar("T")


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


def url_host(host: str) -> str:
    """``host`` as it goes into a URL (an IPv6 address in brackets)."""
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


def _droppable_protocol_class() -> Any:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DroppableH11Protocol(H11Protocol):
        """uvicorn's h11 protocol whose requests can close their connection unanswered.

        The closer goes into the connection's copy of the lifespan state, which uvicorn copies
        into every request scope as ``state``.
        """

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.app_state = {**self.app_state, DROP_CONNECTION: transport.close}

    return DroppableH11Protocol


class SandboxServer:
    """The sandbox app under uvicorn on a pre-bound socket, in the current event loop.

    ``actor_config`` switches the simulated counterparties on (None: a quiet market, as tests
    want it); ``trusted_proxies`` are the proxies whose ``X-Forwarded-For`` is believed (none:
    the client is the TCP peer); the other options are those of `SandboxApp`.

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
        trusted_proxies: Sequence[str] = (),
        faults: FaultSpec | None = None,
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
            faults=faults,
        )
        self.trusted_proxies = tuple(trusted_proxies)
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
        return f"http://{url_host(self.host)}:{self.port}"

    async def start(self) -> None:
        """Bind, start serving and return once connections are accepted."""
        import uvicorn

        sock = bind_socket(self.host, self._requested_port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app.asgi,
            lifespan="on",
            log_config=None,
            log_level=self._log_level,
            access_log=self._access_log,
            timeout_graceful_shutdown=5,
            # Longer than the client keeps an idle read connection (60 s): the desk's polls,
            # seconds apart, reuse one connection instead of opening one per poll.
            timeout_keep_alive=75,
            server_header=False,
            http=_droppable_protocol_class(),
            proxy_headers=bool(self.trusted_proxies),
            forwarded_allow_ips=list(self.trusted_proxies),
        )
        self._server = _uvicorn_server_class()(config)
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
        """The running app (its token meter, limiters and engine)."""
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
