"""Shared fixtures: a real sandbox server on 127.0.0.1 for end-to-end tests.

``sandbox`` starts the whole service (engine + HTTP layer under uvicorn) on a random loopback
port, in a thread with its own event loop, on a fresh database in ``tmp_path``. Its clock is
frozen at `SANDBOX_START_MS` and moves only when the test says so (`Sandbox.advance`), so
expiries, block delays and the request-token window are deterministic: nothing in these tests
depends on how fast the machine is. The simulated counterparties are off (a quiet market)
unless a test enables them.

Seeding a new database takes a while, so one seeded template is made per session and copied
for every test (same ids, same secrets: every test starts from the same opening state).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S
from tui.sandbox.engine.clock import SandboxClock

T = TypeVar("T")

SANDBOX_START_MS = 1_767_614_400_000
"""2026-01-05T12:00:00Z: where the test sandbox's frozen clock starts."""
SANDBOX_SEED = 7
SANDBOX_BLOCK_DELAY_S = 1.0


def _copy_db(source: Path, target: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        src = source.with_name(source.name + suffix)
        if src.exists():
            shutil.copyfile(src, target.with_name(target.name + suffix))


class Sandbox:
    """A running sandbox server and the handles a test needs to drive it.

    Attributes: ``base_url`` / ``stats_base_url`` (the same server), ``clock`` (the frozen
    `SandboxClock`), ``db_path``, ``credentials`` (writer credential entry by short name),
    ``readers`` (reader entries by short name), ``company_ids`` (id by short name).
    """

    def __init__(
        self,
        db_path: Path,
        *,
        token_budget: int = BUDGET_TOKENS,
        actors: bool = False,
        admin: bool = True,
    ) -> None:
        self.db_path = db_path
        self.clock = SandboxClock(frozen_at_ms=SANDBOX_START_MS)
        self.token_budget = token_budget
        self.actors = actors
        self.admin = admin
        self._server: Any = None
        self._http: httpx.Client | None = None
        self.credentials: dict[str, dict[str, Any]] = {}
        self.readers: dict[str, dict[str, Any]] = {}
        self.company_ids: dict[str, str] = {}

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Sandbox:
        """Open the engine on ``db_path`` and serve it on a random loopback port."""
        from tui.sandbox.actors.profiles import ActorConfig
        from tui.sandbox.engine.exchange import Exchange
        from tui.sandbox.http.hosting import BackgroundSandbox

        def open_exchange() -> Exchange:
            return Exchange.open(
                self.db_path,
                seed=SANDBOX_SEED,
                clock=self.clock,
                block_delay_s=SANDBOX_BLOCK_DELAY_S,
            )

        self._server = BackgroundSandbox(
            open_exchange,
            self.clock,
            host="127.0.0.1",
            port=0,
            admin=self.admin,
            token_budget=self.token_budget,
            actor_config=ActorConfig() if self.actors else None,
        ).start()
        entries = self.call(lambda ex: ex.credentials())
        self.credentials = {e["short_name"]: e for e in entries if e["role"] == "writer"}
        self.readers = {e["short_name"]: e for e in entries if e["role"] == "reader"}
        self.company_ids = {name: e["id"] for name, e in self.credentials.items()}
        return self

    def stop(self) -> None:
        """Shut the server down gracefully (the engine is closed)."""
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._server is not None:
            self._server.stop()
            self._server = None

    def restart(self) -> None:
        """Stop and start again on the same database and clock (a new port)."""
        self.stop()
        self.start()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the trading API."""
        return str(self._server.base_url)

    @property
    def stats_base_url(self) -> str:
        """The public statistics base URL (the same server)."""
        return self.base_url

    @property
    def app(self) -> Any:
        """The running `SandboxApp` (read its budget or limiter in assertions)."""
        return self._server.app

    # -- time and the engine ---------------------------------------------------------------

    def call(self, fn: Callable[[Any], T]) -> T:
        """Run ``fn(exchange)`` on the server's thread, between requests."""
        result: T = self._server.call(fn)
        return result

    def advance(self, seconds: float) -> int:
        """Move the sandbox clock forward and let the world catch up; returns the new ms."""
        now = self.clock.advance(seconds)
        self._server.call(lambda _ex: self.app.advance_world())
        return now

    def caller(self, short_name: str = "DESK", *, reader: bool = False) -> Any:
        """The engine's `Caller` for a company's writer (or reader) key."""
        from tui.api.models import ApiRole
        from tui.sandbox.engine.exchange import Caller

        entry = (self.readers if reader else self.credentials)[short_name]
        return Caller(entry["id"], entry["key_id"], ApiRole(entry["role"]))

    # -- clients ---------------------------------------------------------------------------

    def client(self, short_name: str = "DESK", *, reader: bool = False, **options: Any) -> Any:
        """A `ServiceClient` for one company, its clock and budget on sandbox time.

        The client stamps requests with the sandbox clock (exactly what the server reads), and
        when its own budget makes it wait, the wait advances the sandbox clock instead of
        sleeping, so the client and the server always agree on the budget window.
        """
        from tui.api.budget import TokenBudget
        from tui.api.client import ServiceClient
        from tui.api.clock import ServerClock

        entry = (self.readers if reader else self.credentials)[short_name]

        async def virtual_sleep(seconds: float) -> None:
            self.advance(seconds)
            await asyncio.sleep(0)

        budget = TokenBudget(
            self.token_budget,
            BUDGET_WINDOW_S,
            slack_s=0,
            clock=lambda: self.clock.now_ms() / 1000,
            sleep=virtual_sleep,
        )
        options.setdefault("budget", budget)
        options.setdefault("clock", ServerClock(local_ms=self.clock.now_ms))
        return ServiceClient(self.base_url, entry["api_key"], entry["api_secret"], **options)

    def signed_headers(
        self,
        method: str,
        target: str,
        body: bytes = b"",
        *,
        as_company: str = "DESK",
        reader: bool = False,
        timestamp_ms: int | None = None,
    ) -> dict[str, str]:
        """The three auth headers for ``method target`` (path and query) with ``body``."""
        from tui.api.signing import KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, sign

        entry = (self.readers if reader else self.credentials)[as_company]
        ts = self.clock.now_ms() if timestamp_ms is None else timestamp_ms
        signature = sign(entry["api_key"], entry["api_secret"], ts, method, target, body or None)
        return {
            TIMESTAMP_HEADER: str(ts),
            KEY_HEADER: entry["api_key"],
            SIGNATURE_HEADER: signature,
        }

    def request(
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        *,
        as_company: str | None = "DESK",
        reader: bool = False,
        timestamp_ms: int | None = None,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
    ) -> httpx.Response:
        """One raw HTTP request, signed as ``as_company`` (None: unsigned), exactly as given.

        ``target`` is the path and query as they go on the wire; ``body`` the exact bytes
        (or ``json_body`` serialised compactly).
        """
        import json

        if json_body is not None:
            body = json.dumps(json_body, separators=(",", ":")).encode()
        content = body or b""
        all_headers = {"content-type": "application/json"} if content else {}
        if as_company is not None:
            all_headers.update(
                self.signed_headers(
                    method,
                    target,
                    content,
                    as_company=as_company,
                    reader=reader,
                    timestamp_ms=timestamp_ms,
                )
            )
        all_headers.update(headers or {})
        if self._http is None:  # one connection pool: building a client costs ~20 ms
            self._http = httpx.Client(base_url=self.base_url, timeout=30)
        request = self._http.build_request(method, target, content=content, headers=all_headers)
        # httpx would re-encode the target; send the bytes exactly as the test wrote them.
        request.url = request.url.copy_with(raw_path=target.encode("ascii"))
        return self._http.send(request)


@pytest.fixture(scope="session")
def sandbox_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly seeded sandbox database, made once per session and copied by `sandbox`."""
    from tui.sandbox.engine.exchange import Exchange

    path = tmp_path_factory.mktemp("sandbox-template") / "template.db"
    clock = SandboxClock(frozen_at_ms=SANDBOX_START_MS)
    exchange = Exchange.open(
        path, seed=SANDBOX_SEED, clock=clock, block_delay_s=SANDBOX_BLOCK_DELAY_S
    )
    exchange.close()
    return path


def make_sandbox(template: Path, directory: Path, **options: Any) -> Sandbox:
    """A started `Sandbox` on a copy of the seeded template in ``directory``."""
    db_path = directory / "sandbox.db"
    _copy_db(template, db_path)
    return Sandbox(db_path, **options).start()


@pytest.fixture
def sandbox(sandbox_template: Path, tmp_path: Path) -> Iterator[Sandbox]:
    """A running sandbox on 127.0.0.1 (random port) with the interface's 100-token budget."""
    server = make_sandbox(sandbox_template, tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def sandbox_factory(sandbox_template: Path, tmp_path: Path) -> Iterator[Callable[..., Sandbox]]:
    """Start sandboxes with options (``token_budget``, ``actors``, ``admin``); all stopped after."""
    started: list[Sandbox] = []

    def factory(**options: Any) -> Sandbox:
        directory = tmp_path / f"sandbox-{len(started)}"
        directory.mkdir()
        server = make_sandbox(sandbox_template, directory, **options)
        started.append(server)
        return server

    try:
        yield factory
    finally:
        for server in started:
            server.stop()
