"""The ``rfq-desk`` command: the desk (default), ``sandbox`` (the exchange alone), ``config``,
``profile add``, ``wallet import`` and ``serve`` (the desk in a browser).

This module only parses arguments and dispatches: the desk to `tui.desk.launch.run_desk`, the
sandbox to `tui.sandbox.run.run_sandbox`, profiles and wallets to `tui.desk.profiles.commands`,
the browser view to `tui.desk.serve`. Imports stay lazy: parsing arguments must not pay for
uvicorn, Textual or eth-account. No secret is ever an argument (argv is public on the machine):
secrets come from a 0600 file or standard input.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.sandbox.faults import FaultSpec

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


def _fault_spec(text: str) -> FaultSpec:
    from tui.sandbox.faults import FaultSpecError, parse_faults

    try:
        return parse_faults(text)
    except FaultSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _proxy_address(text: str) -> str:
    """An IP address or network (CIDR) to trust as a proxy, as uvicorn takes it."""
    try:
        network = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an IP address or network (e.g. 127.0.0.1 or 10.0.0.0/8)"
        ) from None
    return str(network.network_address) if network.num_addresses == 1 else str(network)


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
        "--faults",
        type=_fault_spec,
        default=None,
        metavar="SPEC",
        help="misbehave on purpose, e.g. latency=50ms,spike=0.05:2s,5xx=0.05,429=0.02:3s,"
        "drop_before=0.03,drop_after=0.03,skew=+3s,seed=7 (see tui/sandbox/faults.py)",
    )
    sandbox.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="stop as soon as the process that started the sandbox is gone (how a desk "
        "starts its own sandbox: it never outlives the desk)",
    )
    sandbox.add_argument(
        "--trusted-proxy",
        dest="trusted_proxies",
        type=_proxy_address,
        action="append",
        default=[],
        metavar="ADDR",
        help="believe X-Forwarded-For from this proxy address or network (repeatable; "
        "default: none, the client is the connecting peer)",
    )
    sandbox.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="server log level (default warning)",
    )

    commands.add_parser(
        "config", help="show the files in use, the profiles and the keys (never a secret)"
    )
    _add_profile_commands(commands)
    serve = commands.add_parser(
        "serve",
        help="serve the desk to a browser on loopback, guarded by a token printed at start",
    )
    serve.add_argument("--port", type=_port, default=0, help="port (default 0: any free port)")
    return parser


def _add_profile_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    profile = commands.add_parser("profile", help="venue profiles").add_subparsers(
        dest="profile_command", metavar="ACTION", required=True
    )
    add = profile.add_parser(
        "add",
        help="add a venue profile, checked against the venue first",
        description="Add a venue profile to config.toml (written 0600). The API secret is "
        "read from --secret-file (mode 0600) or standard input, never from the command "
        "line. At a terminal without --base-url/--api-key the first-run screen opens.",
    )
    add.add_argument("name", help="the profile's name (letters, digits, - and _)")
    add.add_argument("--base-url", help="the trading API's address (before /v1)")
    add.add_argument("--stats-base-url", help="the public statistics' address (optional)")
    add.add_argument("--api-key", help="the company's API key")
    add.add_argument("--secret-file", type=Path, help="a 0600 file holding the API secret")
    add.add_argument("--keystore", type=Path, help="an encrypted wallet keystore to import")
    add.add_argument("--passphrase-file", type=Path, help="a 0600 file with its passphrase")
    add.add_argument("--no-check", action="store_true", help="save without asking the venue")
    add.add_argument("--replace", action="store_true", help="replace a profile of that name")
    wallet = commands.add_parser("wallet", help="the wallet key that signs permits").add_subparsers(
        dest="wallet_command", metavar="ACTION", required=True
    )
    imported = wallet.add_parser(
        "import",
        help="encrypt a wallet key into a profile's keystore",
        description="Encrypt the wallet private key (from --key-file, mode 0600, or standard "
        "input) with a new passphrase into the profile's keystore under the config folder, or "
        "copy an existing --keystore once its passphrase opens it.",
    )
    imported.add_argument("name", help="the profile the wallet signs for")
    imported.add_argument("--key-file", type=Path, help="a 0600 file holding the private key")
    imported.add_argument("--keystore", type=Path, help="an existing keystore file to copy")
    imported.add_argument("--passphrase-file", type=Path, help="a 0600 file with the passphrase")


def _run_sandbox(args: argparse.Namespace) -> int:
    from tui.sandbox.run import SandboxOptions, run_sandbox

    return run_sandbox(
        SandboxOptions(
            host=args.host,
            port=args.port,
            db=args.db,
            seed=args.seed,
            credentials=args.credentials,
            admin=args.admin,
            block_delay_s=args.block_delay,
            actors=not args.no_actors,
            pace=args.pace,
            history=not args.no_history,
            makers=not args.no_makers,
            takers=not args.no_takers,
            taker_interval_s=args.taker_interval,
            token_budget=args.token_budget,
            log_level=args.log_level,
            faults=args.faults,
            trusted_proxies=tuple(args.trusted_proxies),
            exit_with_parent=args.exit_with_parent,
        )
    )


def _run_config() -> int:
    from tui.desk.profiles.commands import run_config

    return run_config()


def _run_profiles(args: argparse.Namespace) -> int:
    from tui.desk.config import ConfigError
    from tui.desk.profiles import commands

    try:
        if args.command == "wallet":
            return commands.run_wallet_import(
                args.name,
                key_file=args.key_file,
                keystore=args.keystore,
                passphrase_file=args.passphrase_file,
            )
        if not (args.base_url and args.api_key) and sys.stdin.isatty():
            from tui.desk.profiles.setup_app import run_setup

            saved = run_setup(args.name)
            if saved is None:
                print("rfq-desk: nothing saved", file=sys.stderr)
                return 1
            print(f"{saved.found}\nprofile {saved.name!r} saved in {saved.path}")
            return 0
        return commands.run_profile_add(
            args.name,
            base_url=args.base_url,
            stats_base_url=args.stats_base_url,
            api_key=args.api_key,
            secret_file=args.secret_file,
            keystore=args.keystore,
            passphrase_file=args.passphrase_file,
            check=not args.no_check,
            replace=args.replace,
        )
    except (commands.CommandError, ConfigError) as error:
        print(f"rfq-desk: {error}", file=sys.stderr)
        return 1


def _run_serve(args: argparse.Namespace) -> int:
    from tui.desk.serve import serve_desk

    return serve_desk(port=args.port, profile=args.profile, theme=args.theme)


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
    if args.command in ("profile", "wallet"):
        return _run_profiles(args)
    if args.command == "serve":
        return _run_serve(args)
    return _run_desk(args)


if __name__ == "__main__":
    sys.exit(main())
