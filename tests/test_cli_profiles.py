"""``rfq-desk config``, ``rfq-desk profile add`` and ``rfq-desk wallet import``: secrets from a
0600 file or standard input only, checked against the venue before saving, never printed."""

from __future__ import annotations

import io
import stat
from pathlib import Path
from typing import Any

import pytest

from tui.__main__ import build_parser, main
from tui.api.permits import load_wallet_key, wallet_address
from tui.desk.config import load_config

WALLET = "0x" + "4c" * 32


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("CONFIG", "PROFILE", "THEME", "API_SECRET", "BASE_URL", "API_KEY", "KEYSTORE"):
        monkeypatch.delenv(f"RFQ_DESK_{name}", raising=False)
    return tmp_path


def _config(home: Path) -> Path:
    return home / "config" / "rfq-desk" / "config.toml"


def test_no_secret_can_be_given_on_the_command_line() -> None:
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["profile", "add", "x", "--api-secret", "ab"])
    with pytest.raises(SystemExit):
        parser.parse_args(["wallet", "import", "x", "--key", WALLET])


def test_profile_add_checks_then_saves_with_the_secret_from_stdin(
    sandbox: Any, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = sandbox.credentials["DESK"]
    args = ["profile", "add", "venue", "--base-url", sandbox.base_url]
    args += ["--api-key", entry["api_key"]]
    monkeypatch.setattr("sys.stdin", io.StringIO("cd" * 32 + "\n"))
    assert main(args) == 1
    out = capsys.readouterr()
    assert "refused the key" in out.out + out.err and "not saved" in out.err
    assert not _config(home).exists()

    monkeypatch.setattr("sys.stdin", io.StringIO(entry["api_secret"] + "\n"))
    assert main([*args, "--no-check"]) == 0
    assert stat.S_IMODE(_config(home).stat().st_mode) == 0o600
    saved = load_config(_config(home), env={}).profiles["venue"]
    assert saved.api_secret.get_secret_value() == entry["api_secret"]
    assert entry["api_secret"] not in capsys.readouterr().out

    monkeypatch.setattr("sys.stdin", io.StringIO(entry["api_secret"] + "\n"))
    assert main([*args, "--no-check"]) == 1
    assert "already" in capsys.readouterr().err


def test_a_secret_file_readable_by_others_is_refused_with_the_fix(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = home / "secret.txt"
    secret.write_text("ab" * 32)
    secret.chmod(0o644)
    args = ["profile", "add", "venue", "--base-url", "http://127.0.0.1:9", "--api-key", "k"]
    assert main([*args, "--secret-file", str(secret), "--no-check"]) == 1
    assert f"chmod 600 {secret}" in capsys.readouterr().err
    secret.chmod(0o600)
    assert main([*args, "--secret-file", str(secret), "--no-check"]) == 0


def test_wallet_import_encrypts_the_key_and_points_the_profile_at_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = home / "secret.txt"
    secret.write_text("ab" * 32)
    secret.chmod(0o600)
    base = ["profile", "add", "venue", "--base-url", "http://127.0.0.1:9", "--api-key", "k"]
    assert main([*base, "--secret-file", str(secret), "--no-check"]) == 0
    key, passphrase = home / "key.txt", home / "pass.txt"
    key.write_text(WALLET + "\n")
    passphrase.write_text("correct horse\n")
    key.chmod(0o600)
    passphrase.chmod(0o600)
    args = ["wallet", "import", "venue", "--key-file", str(key)]
    assert main([*args, "--passphrase-file", str(passphrase)]) == 0
    printed = capsys.readouterr().out
    assert wallet_address(WALLET) in printed and WALLET[2:] not in printed
    profile = load_config(_config(home), env={}).profiles["venue"]
    assert profile.keystore is not None and stat.S_IMODE(profile.keystore.stat().st_mode) == 0o600
    assert load_wallet_key(profile.keystore, "correct horse") == WALLET
    assert profile.api_secret.get_secret_value() == "ab" * 32  # the rest of the profile kept


def test_config_prints_files_profiles_and_keys_never_a_secret(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = home / "secret.txt"
    secret.write_text("9f" * 32)
    secret.chmod(0o600)
    args = ["profile", "add", "venue", "--base-url", "http://127.0.0.1:9", "--api-key", "key-7"]
    assert main([*args, "--secret-file", str(secret), "--no-check"]) == 0
    capsys.readouterr()
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert f"config file:          {_config(home)}" in out
    assert "venue: http://127.0.0.1:9" in out and "api key key-7, api secret set (hidden)" in out
    assert "ctrl+k" in out and "kill_switch" in out
    assert "9f" * 32 not in out
