"""The ``rfq-desk`` command: the desk (default), ``sandbox`` (the exchange alone), ``config``.

Imports stay lazy: parsing arguments must not pay for uvicorn, Textual or eth-account.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["build_parser", "main"]


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError("must be zero or more")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("a port is between 0 and 65535 (0: any free port)")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``rfq-desk`` and its subcommands."""
    from tui import __version__

    parser = argparse.ArgumentParser(
        prog="rfq-desk",
        description="Keyboard-driven terminal trading desk for RFQ derivatives.",
    )
    parser.add_argument("--version", action="version", version=f"rfq-desk {__version__}")
    parser.add_argument(
        "--profile", default=None, help="venue profile from the config file (default: sandbox)"
    )
    parser.add_argument("--theme", default=None, help="colour theme of the desk")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    sandbox = commands.add_parser(
        "sandbox",
        help="serve the sandbox exchange on loopback",
        description="Serve the sandbox exchange (trading API under /v1 and /metadata/stats) "
        "and write the seeded companies' credentials to a file readable only by you.",
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sandbox.add_argument("--port", type=_port, default=0, help="port (default 0: any free port)")
    sandbox.add_argument(
        "--db", type=Path, default=None, help="SQLite file (default: under the user data dir)"
    )
    sandbox.add_argument("--seed", type=int, default=1, help="seed of a new database (default 1)")
    sandbox.add_argument(
        "--credentials",
        type=Path,
        default=None,
        help="where to write the credentials JSON (default: next to the DB)",
    )
    sandbox.add_argument(
        "--admin",
        action="store_true",
        help="enable POST /admin/clock/advance for loopback clients (tests, demos)",
    )
    sandbox.add_argument(
        "--block-delay",
        type=_positive_float,
        default=2.0,
        metavar="S",
        help="simulated block time in seconds (default 2)",
    )
    sandbox.add_argument(
        "--no-actors",
        action="store_true",
        help="run without the simulated makers and takers (a quiet market)",
    )
    sandbox.add_argument(
        "--pace",
        type=_positive_float,
        default=1.0,
        metavar="F",
        help="speed of the simulated market (2: twice as many RFQs, answers in half the time)",
    )
    sandbox.add_argument(
        "--no-history",
        action="store_true",
        help="start a new database without its seeded day of past trades",
    )
    sandbox.add_argument("--no-makers", action="store_true", help="no simulated makers")
    sandbox.add_argument("--no-takers", action="store_true", help="no simulated takers")
    sandbox.add_argument(
        "--taker-interval",
        type=_positive_float,
        default=45.0,
        metavar="S",
        help="mean seconds between two RFQs of one simulated taker (default 45)",
    )
    sandbox.add_argument(
        "--token-budget",
        type=_positive_int,
        default=None,
        metavar="N",
        help="request tokens per company per 10 s (default 100, the interface's value; "
        "raise it only to benchmark the server)",
    )
    sandbox.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="server log level (default warning)",
    )

    commands.add_parser("config", help="show where RFQ Desk keeps its data and configuration")
    return parser


def _connect_host(host: str) -> str:
    """The address a client on this machine uses to reach a server bound to ``host``."""
    if host in ("", "0.0.0.0"):  # noqa: S104 - we are mapping the wildcard, not binding it
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def _run_sandbox(args: argparse.Namespace) -> int:
    import asyncio
    import contextlib
    import logging

    from tui.api.endpoints import BUDGET_TOKENS
    from tui.sandbox.actors.profiles import ActorConfig
    from tui.sandbox.credentials import (
        credentials_document,
        default_credentials_path,
        default_db_path,
        write_credentials,
    )
    from tui.sandbox.engine.clock import SandboxClock
    from tui.sandbox.engine.exchange import Exchange
    from tui.sandbox.http.server import SandboxServer, serve

    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    db_path: Path = (args.db or default_db_path()).expanduser().resolve()
    db_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # holds keys
    credentials_path: Path = (
        (args.credentials or default_credentials_path(db_path)).expanduser().resolve()
    )
    clock = SandboxClock()
    exchange = Exchange.open(db_path, seed=args.seed, clock=clock, block_delay_s=args.block_delay)
    if not args.no_history:
        from tui.sandbox.engine.history import seed_history

        seed_history(exchange)  # once per database: a no-op when the history is already there

    async def ready(server: SandboxServer) -> None:
        import httpx

        host = _connect_host(args.host)
        url_host = f"[{host}]" if ":" in host else host
        base_url = f"http://{url_host}:{server.port}"
        write_credentials(credentials_path, credentials_document(base_url, exchange.credentials()))
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
            response = await client.get("/v1/status")
            response.raise_for_status()
        print(f"sandbox ready at {base_url} (credentials: {credentials_path})", flush=True)

    options: dict[str, Any] = {
        "admin": args.admin,
        "token_budget": args.token_budget or BUDGET_TOKENS,
        "log_level": args.log_level,
        "actor_config": None
        if args.no_actors
        else ActorConfig(
            pace=args.pace or 1.0,
            makers=not args.no_makers,
            takers=not args.no_takers,
            taker_rfq_interval_s=args.taker_interval,
        ),
    }
    # SIGINT/SIGTERM stop the server gracefully (see `serve`); a Ctrl-C during startup too.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve(exchange, clock=clock, host=args.host, port=args.port, on_ready=ready, **options)
        )
    print("sandbox stopped", file=sys.stderr, flush=True)
    return 0


def _run_config() -> int:
    from tui.paths import config_dir, data_dir, sandbox_credentials_path, sandbox_db_path

    db_path = sandbox_db_path()
    print(f"config dir:           {config_dir()}")
    print(f"data dir:             {data_dir()}")
    print(f"sandbox database:     {db_path}")
    print(f"sandbox credentials:  {sandbox_credentials_path(db_path)}")
    return 0


def _run_desk(args: argparse.Namespace) -> int:
    from tui.desk.launch import run_desk

    return run_desk(profile=args.profile, theme=args.theme)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``rfq-desk`` (and ``python -m tui``): dispatch to the subcommand."""
    args = build_parser().parse_args(argv)
    if args.command == "sandbox":
        return _run_sandbox(args)
    if args.command == "config":
        return _run_config()
    return _run_desk(args)


if __name__ == "__main__":
    sys.exit(main())
