"""``rfq-desk sandbox``: build the sandbox from plain options, wire it together and serve it.

`run_sandbox` opens (or creates and seeds) the database, seeds a day of past trades once,
starts the simulated counterparties unless told not to, serves everything on loopback under
uvicorn and, once the server answers, writes the credentials file (mode 0600) with the URL a
client on this machine connects to. SIGINT and SIGTERM stop it gracefully.

With ``--faults`` the sandbox clock runs skewed from the start, and the other faults are
switched on once the server has answered its own readiness check (which must not be the one
request a drop or a 500 hits); the spec in force is printed to stderr.

One database, one sandbox: the sandbox holds an exclusive lock on ``<db>.lock`` while it runs (the
kernel drops it when the process dies, however it dies), and a second sandbox on the same
database exits at once with `EXIT_DB_IN_USE`, naming the pid that holds it. The credentials file
also says which process serves (``sandbox_pid``) and, with ``--exit-with-parent``, which desk owns
it (``owner_pid``): a desk attached to another desk's sandbox reads it to know whether the owner
is still there to restart it. ``--exit-with-parent`` makes the sandbox stop (gracefully, as on
SIGTERM) as soon as the process that started it is gone, even SIGKILLed: a desk's child never
outlives its desk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
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

__all__ = [
    "EXIT_DB_IN_USE",
    "SandboxOptions",
    "connect_host",
    "hold_database",
    "prepare_files",
    "run_sandbox",
    "server_options",
    "watch_parent",
]

EXIT_DB_IN_USE = 3
"""The exit code of a sandbox whose database another sandbox is serving."""
PARENT_CHECK_S = 0.25
"""How often ``--exit-with-parent`` looks whether the parent is still there."""


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
    exit_with_parent: bool = False
    """Stop as soon as the process that started this one is gone (a desk's child)."""


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


class DatabaseInUse(Exception):
    """Another sandbox holds the database's lock; the message names its pid when known."""


def hold_database(db_path: Path) -> Any:
    """Take the database's exclusive lock for as long as the returned file stays open.

    `DatabaseInUse` when another process holds it. Where there is no ``fcntl`` (Windows) no
    lock is taken.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    lock_path = db_path.with_name(db_path.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    handle = os.fdopen(fd, "r+", encoding="ascii")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = handle.read().strip()
        handle.close()
        who = f" (pid {holder})" if holder.isdigit() else ""
        raise DatabaseInUse(f"{db_path} is in use by another sandbox{who}") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def watch_parent(
    parent_pid: int, stop: threading.Event, check_s: float = PARENT_CHECK_S
) -> threading.Thread:
    """A daemon thread that sends this process SIGTERM once ``parent_pid`` is no longer its
    parent (it died and the process was handed to another), or ``stop`` is set."""

    def watch() -> None:
        while not stop.wait(check_s):
            if os.getppid() != parent_pid:
                os.kill(os.getpid(), signal.SIGTERM)
                return

    thread = threading.Thread(target=watch, name="exit-with-parent", daemon=True)
    thread.start()
    return thread


def run_sandbox(options: SandboxOptions) -> int:
    """Serve the sandbox until SIGINT/SIGTERM (or, with ``exit_with_parent``, until the parent
    is gone); the process exit code."""
    logging.basicConfig(
        level=options.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    parent_pid = os.getppid()
    stop_watching = threading.Event()
    if options.exit_with_parent:
        watch_parent(parent_pid, stop_watching)
    db_path, credentials_path = prepare_files(options)
    try:
        lock = hold_database(db_path)
    except DatabaseInUse as error:
        print(f"sandbox: {error}", file=sys.stderr, flush=True)
        return EXIT_DB_IN_USE
    try:
        return _serve(options, db_path, credentials_path, parent_pid)
    finally:
        stop_watching.set()
        if lock is not None:
            lock.close()


def _serve(options: SandboxOptions, db_path: Path, credentials_path: Path, parent_pid: int) -> int:
    clock = fault_clock(options.faults)
    exchange = _open_exchange(options, db_path, clock)

    async def ready(server: SandboxServer) -> None:
        import httpx

        base_url = f"http://{url_host(connect_host(options.host))}:{server.port}"
        document = credentials_document(base_url, exchange.credentials())
        document["sandbox_pid"] = os.getpid()
        document["owner_pid"] = parent_pid if options.exit_with_parent else None
        write_credentials(credentials_path, document)
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
