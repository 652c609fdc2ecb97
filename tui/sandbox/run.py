"""``rfq-desk sandbox``: build the sandbox from plain options, wire it together and serve it.

`run_sandbox` opens (or creates and seeds) the database, seeds a day of past trades once,
starts the simulated counterparties unless told not to, serves everything on loopback under
uvicorn and, once the server answers, writes the credentials file (mode 0600) with the URL a
client on this machine connects to. SIGINT and SIGTERM stop it gracefully.

With ``--faults`` the sandbox clock runs skewed from the start, and the other faults are
switched on once the server has answered its own readiness check (which must not be the one
request a drop or a 500 hits); the spec in force is printed to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.api.endpoints import BUDGET_TOKENS
from tui.paths import private_folder, sandbox_credentials_path, sandbox_db_path
from tui.sandbox.actors.profiles import ActorConfig
from tui.sandbox.credentials import credentials_document, write_credentials
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.exchange import Exchange
from tui.sandbox.faults import FaultInjector, FaultSpec, fault_clock
from tui.sandbox.http.hosting import SandboxServer, serve, url_host

__all__ = ["SandboxOptions", "connect_host", "prepare_files", "run_sandbox", "server_options"]


@dataclass(frozen=True, slots=True)
class SandboxOptions:
    """What ``rfq-desk sandbox`` was asked for (the command line's flags, already checked).

    ``db`` and ``credentials`` None mean the defaults under the user data dir;
    ``token_budget`` None means the interface's `BUDGET_TOKENS`; ``faults`` None, no faults;
    ``trusted_proxies`` empty, no proxy headers believed.
    """

    host: str = "127.0.0.1"
    port: int = 0
    db: Path | None = None
    seed: int = 1
    credentials: Path | None = None
    admin: bool = False
    block_delay_s: float = 2.0
    actors: bool = True
    pace: float = 1.0
    history: bool = True
    makers: bool = True
    takers: bool = True
    taker_interval_s: float = 45.0
    token_budget: int | None = None
    log_level: str = "warning"
    faults: FaultSpec | None = None
    trusted_proxies: tuple[str, ...] = ()


def connect_host(host: str) -> str:
    """The address a client on this machine uses to reach a server bound to ``host``."""
    if host in ("", "0.0.0.0"):  # noqa: S104 - we are mapping the wildcard, not binding it
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def _actor_config(options: SandboxOptions) -> ActorConfig | None:
    if not options.actors:
        return None
    return ActorConfig(
        pace=options.pace or 1.0,
        makers=options.makers,
        takers=options.takers,
        taker_rfq_interval_s=options.taker_interval_s,
    )


def _open_exchange(options: SandboxOptions, db_path: Path, clock: SandboxClock) -> Exchange:
    exchange = Exchange.open(
        db_path, seed=options.seed, clock=clock, block_delay_s=options.block_delay_s
    )
    if options.history:
        from tui.sandbox.engine.history import seed_history

        seed_history(exchange)  # once per database: a no-op when the history is already there
    return exchange


def prepare_files(options: SandboxOptions) -> tuple[Path, Path]:
    """The database and credentials paths, their folders created private (0700) as needed."""
    db_path = (options.db or sandbox_db_path()).expanduser().resolve()
    credentials_path = (
        (options.credentials or sandbox_credentials_path(db_path)).expanduser().resolve()
    )
    private_folder(db_path.parent)  # both hold keys
    private_folder(credentials_path.parent)
    return db_path, credentials_path


def server_options(options: SandboxOptions) -> dict[str, Any]:
    """The options of `SandboxServer` the command line chose (faults are switched on later)."""
    return {
        "admin": options.admin,
        "token_budget": options.token_budget or BUDGET_TOKENS,
        "log_level": options.log_level,
        "actor_config": _actor_config(options),
        "trusted_proxies": options.trusted_proxies,
    }


def run_sandbox(options: SandboxOptions) -> int:
    """Serve the sandbox until SIGINT/SIGTERM; the process exit code."""
    logging.basicConfig(
        level=options.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    db_path, credentials_path = prepare_files(options)
    clock = fault_clock(options.faults)
    exchange = _open_exchange(options, db_path, clock)

    async def ready(server: SandboxServer) -> None:
        import httpx

        base_url = f"http://{url_host(connect_host(options.host))}:{server.port}"
        write_credentials(credentials_path, credentials_document(base_url, exchange.credentials()))
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
            response = await client.get("/v1/status")
            response.raise_for_status()
        if options.faults is not None:
            server.app.faults = FaultInjector(options.faults)
            print(f"faults on purpose: {options.faults}", file=sys.stderr, flush=True)
        print(f"sandbox ready at {base_url} (credentials: {credentials_path})", flush=True)

    # SIGINT/SIGTERM stop the server gracefully (see `serve`); a Ctrl-C during startup too.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve(
                exchange,
                clock=clock,
                host=options.host,
                port=options.port,
                on_ready=ready,
                **server_options(options),
            )
        )
    print("sandbox stopped", file=sys.stderr, flush=True)
    return 0
