"""Write a venue profile into config.toml, and put a wallet key into an encrypted keystore.

The config file is edited as text, never re-serialised: a new ``[profiles.NAME]`` table is
appended (or the old table of that name replaced), and everything else (comments, order, the
other profiles) stays as the trader wrote it. The file then holds an API secret, so it is
written 0600 in a 0700 folder (`tui.desk.config.save_config_text`).

A wallet key goes only into an eth-account keystore, encrypted with a passphrase, under the
config folder's ``wallets/`` (0700), one file per profile (0600). A keystore the trader already
has is copied there once its passphrase is proven to open it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from pydantic import SecretStr

from tui.desk.config import (
    SANDBOX_PROFILE,
    ConfigError,
    Profile,
    default_config_path,
    read_config_table,
    save_config_text,
)
from tui.paths import config_dir, write_private_file

__all__ = [
    "PROFILE_NAME",
    "add_profile",
    "import_keystore",
    "import_wallet_key",
    "profile_name_problem",
    "wallet_path",
]

PROFILE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
"""A profile name: a bare TOML key, so ``[profiles.NAME]`` needs no quoting."""

_TABLE = re.compile(r"^\s*\[")


def profile_name_problem(name: str) -> str:
    """Why ``name`` cannot name a profile ("" when it can)."""
    if not PROFILE_NAME.match(name):
        return "letters, digits, '-' and '_' only (at most 40)"
    if name == SANDBOX_PROFILE:
        return f"{SANDBOX_PROFILE!r} is the built-in sandbox"
    return ""


def wallet_path(name: str) -> Path:
    """Where the desk keeps the keystore of profile ``name``."""
    return config_dir() / "wallets" / f"{name}.json"


def _table_text(profile: Profile) -> str:
    # json.dumps writes a valid TOML basic string (quotes, backslashes, controls escaped).
    lines = [f"[profiles.{profile.name}]"]
    lines.append(f"base_url = {json.dumps(profile.base_url)}")
    if profile.stats_base_url:
        lines.append(f"stats_base_url = {json.dumps(profile.stats_base_url)}")
    lines.append(f"api_key = {json.dumps(profile.api_key)}")
    lines.append(f"api_secret = {json.dumps(profile.api_secret.get_secret_value())}")
    if profile.keystore is not None:
        lines.append(f"keystore = {json.dumps(str(profile.keystore))}")
    return "\n".join(lines) + "\n"


def _without_table(text: str, name: str) -> str:
    """``text`` without the ``[profiles.NAME]`` table (its header up to the next table)."""
    header = re.compile(rf"^\s*\[\s*profiles\s*\.\s*\"?{re.escape(name)}\"?\s*\]")
    kept: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        if header.match(line):
            skipping = True
            continue
        if skipping and _TABLE.match(line):
            skipping = False
        if not skipping:
            kept.append(line)
    return "".join(kept)


def add_profile(profile: Profile, path: Path | None = None, *, replace: bool = False) -> Path:
    """Write ``profile`` into the config file (see module docs); the file's path.

    A profile of that name already there is a `ConfigError` unless ``replace``. The result is
    read back before it is written, so a file that would no longer load is never saved.
    """
    if problem := profile_name_problem(profile.name):
        raise ConfigError(f"profile name {profile.name!r}: {problem}")
    path = path or default_config_path()
    table = read_config_table(path)
    if profile.name in table.get("profiles", {}) and not replace:
        raise ConfigError(
            f"{path} has a profile named {profile.name!r} already (replace it, or pick a name)"
        )
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    text = _without_table(text, profile.name) if replace else text
    if text and not text.endswith("\n"):
        text += "\n"
    updated = text + ("\n" if text.strip() else "") + _table_text(profile)
    try:
        written = tomllib.loads(updated)["profiles"][profile.name]
    except (tomllib.TOMLDecodeError, KeyError) as error:
        raise ConfigError(f"{path}: the profile cannot be written ({error})") from None
    if written.get("api_key") != profile.api_key:
        raise ConfigError(f"{path}: the profile cannot be written")
    return save_config_text(path, updated)


def import_wallet_key(name: str, private_key: SecretStr, passphrase: SecretStr) -> Path:
    """Encrypt a wallet private key with ``passphrase`` into profile ``name``'s keystore."""
    from tui.api.permits import save_wallet_key

    return save_wallet_key(
        wallet_path(name), private_key.get_secret_value(), passphrase.get_secret_value()
    )


def import_keystore(name: str, source: Path, passphrase: SecretStr) -> tuple[Path, str]:
    """Copy an existing keystore to profile ``name``'s, once ``passphrase`` opens it.

    Returns the new file and the wallet address; a wrong passphrase or a file that is not a
    keystore is a `WalletError` and nothing is written.
    """
    from tui.api.permits import WalletError, keystore_address

    source = source.expanduser()
    address = keystore_address(source, passphrase)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise WalletError(f"{source}: {error.strerror}") from None
    return write_private_file(wallet_path(name), text), address
