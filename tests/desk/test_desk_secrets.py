"""Secrets kept as ssh keeps keys: files others may read are refused with the chmod that fixes
them, files the desk writes with secrets are 0600 in 0700 folders, the wallet key lives only in
an encrypted keystore whose wrong passphrase is refused, and the decrypted key is never handed
out by the keystore signer."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from tests.api.kit.records import permit_template
from tui.api.permits import (
    WalletError,
    keystore_address,
    load_wallet_key,
    save_wallet_key,
    sign_permit_with_keystore,
    wallet_address,
)
from tui.desk.config import ConfigError, Profile, load_config, remember_theme
from tui.desk.profiles.store import add_profile, import_keystore, import_wallet_key
from tui.paths import ExposedSecretError, refuse_exposed, write_private_file

SECRET = "5e" * 32
WALLET = "0x" + "4c" * 32
CONFIG = f"""
[profiles.prod]
base_url = "https://api.example.com"
api_key = "key-1"
api_secret = "{SECRET}"
"""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("CONFIG", "PROFILE", "THEME", "API_SECRET", "BASE_URL", "API_KEY"):
        monkeypatch.delenv(f"RFQ_DESK_{name}", raising=False)
    return tmp_path


@pytest.mark.parametrize("loose", [0o644, 0o640, 0o604, 0o660])
def test_a_config_with_a_secret_readable_by_others_is_refused_with_the_fix(
    tmp_path: Path, loose: int
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    path.chmod(loose)
    with pytest.raises(ConfigError) as refused:
        load_config(path, env={})
    assert f"chmod 600 {path}" in str(refused.value)
    assert SECRET not in str(refused.value)
    path.chmod(0o600)
    assert "prod" in load_config(path, env={}).profiles


def test_a_config_without_secrets_may_be_readable(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "desk-light"\n')
    path.chmod(0o644)
    assert load_config(path, env={}).theme == "desk-light"


def test_files_the_desk_writes_with_secrets_are_0600_in_0700_folders(home: Path) -> None:
    config = home / "config" / "rfq-desk" / "config.toml"
    profile = Profile(
        name="prod", base_url="https://x.example", api_key="k", api_secret=SecretStr(SECRET)
    )
    add_profile(profile, config)
    assert mode(config) == 0o600 and mode(config.parent) == 0o700
    assert mode(config.parent.parent) == 0o700  # made by the desk on the way
    remember_theme("desk-amber", config)
    assert mode(config) == 0o600 and SECRET in config.read_text()
    assert load_config(config, env={}).profiles["prod"].api_secret.get_secret_value() == SECRET

    kept = import_wallet_key("prod", SecretStr(WALLET), SecretStr("pass phrase"))
    assert kept.parent.name == "wallets" and kept.parent.parent == config.parent
    assert mode(kept) == 0o600 and mode(kept.parent) == 0o700
    assert WALLET[2:] not in kept.read_text()


def test_an_existing_desk_folder_is_tightened_when_a_secret_goes_in(home: Path) -> None:
    folder = home / "config" / "rfq-desk"
    folder.mkdir(parents=True, mode=0o755)
    folder.chmod(0o755)
    write_private_file(folder / "config.toml", "x = 1\n")
    assert mode(folder) == 0o700


def test_the_keystore_round_trip_and_a_wrong_passphrase(tmp_path: Path) -> None:
    path = save_wallet_key(tmp_path / "w" / "k.json", WALLET, "right", iterations=2)
    assert mode(path) == 0o600 and mode(path.parent) == 0o700
    assert load_wallet_key(path, "right") == WALLET
    assert keystore_address(path, SecretStr("right")) == wallet_address(WALLET)
    with pytest.raises(WalletError, match="wrong password") as refused:
        load_wallet_key(path, "wrong")
    assert WALLET[2:] not in str(refused.value)
    with pytest.raises(WalletError, match="wrong password"):
        keystore_address(path, SecretStr("wrong"))


def test_a_keystore_readable_by_others_is_refused(tmp_path: Path) -> None:
    path = save_wallet_key(tmp_path / "k.json", WALLET, "right", iterations=2)
    path.chmod(0o644)
    with pytest.raises(WalletError, match=f"chmod 600 {path}"):
        load_wallet_key(path, "right")
    with pytest.raises(ExposedSecretError):
        refuse_exposed(path)


def test_importing_a_keystore_checks_its_passphrase_first(home: Path) -> None:
    source = save_wallet_key(home / "mine.json", WALLET, "right", iterations=2)
    with pytest.raises(WalletError, match="wrong password"):
        import_keystore("prod", source, SecretStr("wrong"))
    assert not (home / "config" / "rfq-desk" / "wallets").exists()
    kept, address = import_keystore("prod", source, SecretStr("right"))
    assert address == wallet_address(WALLET) and mode(kept) == 0o600


def test_a_permit_is_signed_from_the_keystore_without_handing_the_key_out(
    tmp_path: Path,
) -> None:
    path = save_wallet_key(tmp_path / "k.json", WALLET, "right", iterations=2)
    template: Any = permit_template(owner=wallet_address(WALLET))
    signed = sign_permit_with_keystore(template, path, SecretStr("right"))
    assert signed.signature.startswith("0x") and len(signed.signature) == 132
    with pytest.raises(WalletError, match="wrong password"):
        sign_permit_with_keystore(template, path, SecretStr("wrong"))
