"""A sandbox on real time, with ``--faults``: for what only real latency can show.

`LiveSandbox` serves a copy of the session's seeded template on 127.0.0.1 with its clock
running in real time from just after the template's opening instant, ``skew`` of the fault
spec ahead of (or behind) the clients' own clock, and the spec's faults injected. Its
`client` is a `ServiceClient` as the desk makes one (a monotonic budget, real sleeps), on a
wall clock that starts where the sandbox's does, less the skew.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from tests.conftest import SANDBOX_BLOCK_DELAY_S, SANDBOX_SEED, SANDBOX_START_MS
from tui.api.client import ServiceClient
from tui.api.clock import ServerClock
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.exchange import Exchange
from tui.sandbox.faults import parse_faults
from tui.sandbox.http.hosting import BackgroundSandbox


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


class LiveSandbox:
    """A real-time sandbox with faults on a copy of ``template`` in ``folder`` (a context manager).

    Attributes as the tests' `Sandbox` has them where the request builders of the kits read
    them: ``clock``, ``company_ids``, ``credentials`` and `call`.
    """

    def __init__(self, template: Path, folder: Path, faults: str | None = None) -> None:
        self.spec = parse_faults(faults) if faults else None
        self.db_path = folder / "live.db"
        for suffix in ("", "-wal", "-shm"):
            source = template.with_name(template.name + suffix)
            if source.exists():
                shutil.copyfile(source, self.db_path.with_name(self.db_path.name + suffix))
        self.shift_ms = SANDBOX_START_MS + 1000 - _wall_ms()
        skew = self.spec.skew_ms if self.spec is not None else 0
        self.clock = SandboxClock(offset_ms=self.shift_ms + skew)
        self._server: BackgroundSandbox | None = None
        self.credentials: dict[str, dict[str, Any]] = {}
        self.company_ids: dict[str, str] = {}

    def __enter__(self) -> LiveSandbox:
        def open_exchange() -> Exchange:
            return Exchange.open(
                self.db_path,
                seed=SANDBOX_SEED,
                clock=self.clock,
                block_delay_s=SANDBOX_BLOCK_DELAY_S,
            )

        self._server = BackgroundSandbox(open_exchange, self.clock, faults=self.spec).start()
        entries = self.call(lambda ex: ex.credentials())
        self.credentials = {e["short_name"]: e for e in entries if e["role"] == "writer"}
        self.company_ids = {name: e["id"] for name, e in self.credentials.items()}
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    @property
    def server(self) -> BackgroundSandbox:
        """The running server."""
        assert self._server is not None, "the live sandbox is not running"
        return self._server

    def call(self, fn: Any) -> Any:
        """Run ``fn(exchange)`` on the server's thread, between requests."""
        return self.server.call(fn)

    def local_ms(self) -> int:
        """The clients' wall clock: real time, from where the sandbox's started (less skew)."""
        return _wall_ms() + self.shift_ms

    def client(self, short_name: str, **options: Any) -> ServiceClient:
        """A `ServiceClient` for a company's writer key, as the desk makes one."""
        entry = self.credentials[short_name]
        options.setdefault("clock", ServerClock(local_ms=self.local_ms))
        return ServiceClient(self.server.base_url, entry["api_key"], entry["api_secret"], **options)
