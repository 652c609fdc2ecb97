"""The script side of profiles: ``rfq-desk config``, ``rfq-desk profile add``, ``rfq-desk wallet
import``. `tui.__main__` parses the arguments and calls these.

A secret never comes from the command line (argv is visible to every user of the machine in
``ps``): the API secret and a wallet key are read from a file (which must be 0600, as ssh
wants its keys) or from standard input; a passphrase from a file or typed at a hidden prompt.
Nothing here prints a secret: ``rfq-desk config`` says only whether one is set.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from pydantic import SecretStr, ValidationError

from tui.desk.config import (
    ENV_PREFIX,
    ConfigError,
    DeskSettings,
    Profile,
    default_config_path,
    load_config,
)
from tui.paths import ExposedSecretError, refuse_exposed

__all__ = ["keymap_lines", "read_secret", "run_config", "run_profile_add", "run_wallet_import"]

Out = Callable[[str], None]


class CommandError(Exception):
    """A command that cannot go on; its message is printed after ``rfq-desk:``."""


def read_secret(
    source: Path | None, what: str, *, stdin: IO[str] | None = None, prompt: bool = True
) -> SecretStr:
    """A secret from ``source`` (a 0600 file; ``-`` is standard input), else standard input
    (a hidden prompt on a terminal, else its first line)."""
    stdin = stdin or sys.stdin
    if source is not None and str(source) != "-":
        try:
            refuse_exposed(source)
            text = source.read_text(encoding="utf-8")
        except ExposedSecretError as error:
            raise CommandError(str(error)) from None
        except OSError as error:
            raise CommandError(f"{what}: cannot read {source}: {error.strerror}") from None
    elif prompt and stdin.isatty():
        text = getpass.getpass(f"{what}: ")
    else:
        text = stdin.readline()
    value = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not value:
        raise CommandError(f"{what}: empty")
    return SecretStr(value)


def new_passphrase(source: Path | None) -> SecretStr:
    """A passphrase for a new keystore: from a file, or typed twice at a hidden prompt."""
    if source is not None:
        return read_secret(source, "passphrase")
    if not sys.stdin.isatty():
        raise CommandError("the passphrase is typed at a terminal, or given with --passphrase-file")
    first = getpass.getpass("keystore passphrase: ")
    if not first:
        raise CommandError("the passphrase must not be empty")
    if getpass.getpass("again: ") != first:
        raise CommandError("the two passphrases differ; nothing was written")
    return SecretStr(first)


# -- rfq-desk config -------------------------------------------------------------------------


def keymap_lines(path: Path) -> list[str]:
    """The keys in force with the config file at ``path``: every entry it refuses (with its
    line), then one line per binding id (`tui.desk.keymap.describe_keymap`, ``*`` where
    rebound). The desk reads the same file the same way (`tui.desk.launch.run_desk`)."""
    from tui.desk.keymap import describe_keymap, read_keymap

    keymap = read_keymap(path)
    preset = [f"  preset {keymap.preset}"] if keymap.preset else []
    refused = [f"  refused: {warning}" for warning in keymap.warnings]
    return [*preset, *refused, *(f"  {row}" for row in describe_keymap(keymap))]


def _guardrail_lines(settings: DeskSettings) -> Iterable[str]:
    yield from (f"  {line}" for line in settings.guardrails.settings().lines())


def _alert_lines(settings: DeskSettings) -> Iterable[str]:
    alerts = settings.alerts.settings()
    if alerts.quiet:
        yield "  quiet: toasts only"
    for kind in alerts.ways:
        ways = alerts.of(kind)
        shown = [way for way in ("bell", "flash", "toast") if getattr(ways, way)]
        yield f"  {kind.value:<18} {', '.join(shown) or 'off'}"


def _profile_lines(settings: DeskSettings) -> Iterable[str]:
    if not settings.profiles:
        yield "  (none: a bare rfq-desk opens the built-in sandbox)"
    for name, profile in sorted(settings.profiles.items()):
        marker = "*" if name == settings.default_profile else " "
        secret = "set (hidden)" if profile.api_secret.get_secret_value() else "missing"
        yield f" {marker}{name}: {profile.base_url}"
        yield f"    api key {profile.api_key}, api secret {secret}"
        if profile.stats_base_url:
            yield f"    statistics {profile.stats_base_url}"
        wallet = profile.keystore
        if wallet is not None:
            state = "" if wallet.exists() else " (missing)"
            yield f"    wallet keystore {wallet}{state}"


def run_config(out: Out = print) -> int:
    """``rfq-desk config``: the files in use, the settings, the profiles, the keymap."""
    from tui.paths import config_dir, data_dir, sandbox_credentials_path, sandbox_db_path

    path = default_config_path()
    db_path = sandbox_db_path()
    state = "" if path.exists() else " (not written yet)"
    out(f"config file:          {path}{state}")
    out(f"config dir:           {config_dir()}")
    out(f"data dir:             {data_dir()}")
    out(f"sandbox database:     {db_path}")
    out(f"sandbox credentials:  {sandbox_credentials_path(db_path)}")
    set_vars = sorted(
        name for name, value in os.environ.items() if name.startswith(ENV_PREFIX) and value
    )
    out(f"environment:          {', '.join(set_vars) or 'no RFQ_DESK_* variable set'}")
    try:
        settings = load_config(path)
    except ConfigError as error:
        out(f"config:               unusable: {error}")
        return 2
    out(f"theme:                {settings.theme or 'the default'}")
    out(f"default profile:      {settings.default_profile or 'sandbox'}")
    out("profiles:")
    for line in _profile_lines(settings):
        out(line)
    out("guardrails (a second confirmation past these):")
    for line in _guardrail_lines(settings):
        out(line)
    out("alerts:")
    for line in _alert_lines(settings):
        out(line)
    out("keys (* rebound in the config file):")
    for line in keymap_lines(path):
        out(line)
    return 0


# -- rfq-desk profile add --------------------------------------------------------------------


def run_profile_add(
    name: str,
    *,
    base_url: str | None,
    stats_base_url: str | None,
    api_key: str | None,
    secret_file: Path | None,
    keystore: Path | None,
    passphrase_file: Path | None,
    check: bool,
    replace: bool,
    out: Out = print,
) -> int:
    """``rfq-desk profile add NAME``: check the credentials, then write the profile."""
    from tui.api.permits import WalletError
    from tui.desk.profiles.check import check_credentials
    from tui.desk.profiles.store import add_profile, import_keystore, profile_name_problem

    if problem := profile_name_problem(name):
        raise CommandError(f"profile name {name!r}: {problem}")
    if not base_url or not api_key:
        raise CommandError("--base-url and --api-key are required (or run it at a terminal)")
    secret = read_secret(secret_file, "API secret")
    try:
        profile = Profile(
            name=name,
            base_url=base_url,
            stats_base_url=stats_base_url,
            api_key=api_key,
            api_secret=secret,
            keystore=keystore,
        )
    except ValidationError as error:
        where = ", ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors())
        raise CommandError(where) from None
    if check:
        result = asyncio.run(check_credentials(profile.base_url, profile.api_key, secret))
        for line in result.lines():
            out(line)
        if not result.ok:
            raise CommandError("not saved (--no-check saves without asking the venue)")
    if keystore is not None:
        try:
            kept, address = import_keystore(
                name, keystore, read_secret(passphrase_file, "passphrase")
            )
        except WalletError as error:
            raise CommandError(str(error)) from None
        profile = profile.model_copy(update={"keystore": kept})
        out(f"wallet {address}: keystore kept at {kept}")
    path = add_profile(profile, replace=replace)
    out(f"profile {name!r} saved in {path} (mode 0600); open it with: rfq-desk --profile {name}")
    return 0


# -- rfq-desk wallet import ------------------------------------------------------------------


def run_wallet_import(
    name: str,
    *,
    key_file: Path | None,
    keystore: Path | None,
    passphrase_file: Path | None,
    out: Out = print,
) -> int:
    """``rfq-desk wallet import NAME``: the wallet key into profile NAME's encrypted keystore.

    The key comes from ``key_file`` (0600) or standard input, and is encrypted at once with a
    new passphrase; or an existing ``keystore`` is copied once its passphrase opens it. A
    configured profile of that name is pointed at the keystore.
    """
    from tui.api.permits import WalletError, wallet_address
    from tui.desk.profiles.store import add_profile, import_keystore, import_wallet_key

    try:
        if keystore is not None:
            kept, address = import_keystore(
                name, keystore, read_secret(passphrase_file, "passphrase")
            )
        else:
            key = read_secret(key_file, "wallet private key")
            address = wallet_address(key.get_secret_value())
            kept = import_wallet_key(name, key, new_passphrase(passphrase_file))
            del key
    except WalletError as error:
        raise CommandError(str(error)) from None
    out(f"wallet {address}: encrypted keystore at {kept} (mode 0600)")
    settings = load_config()
    profile = settings.profiles.get(name)
    if profile is not None and profile.keystore != kept:
        add_profile(profile.model_copy(update={"keystore": kept}), replace=True)
        out(f"profile {name!r} now signs permits with it")
    elif profile is None:
        out(f"no profile {name!r} yet: `rfq-desk profile add {name}` with --keystore {kept}")
    return 0
