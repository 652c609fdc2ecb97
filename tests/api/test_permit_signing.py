"""Permit signing recovers to the wallet; the keystore is encrypted, private and password-bound."""

from __future__ import annotations

import copy
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data

from tests.api.kit import records as rec
from tui.api.models import SubmitPermitRequest
from tui.api.permits import (
    WalletError,
    load_wallet_key,
    save_wallet_key,
    sign_permit,
    wallet_address,
)

PRIVATE_KEY = "0x" + "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
PASSWORD = "correct horse battery staple"
REPO = Path(__file__).resolve().parents[2]


def _recover(message: dict, signature: str) -> str:
    typed = copy.deepcopy(message)
    typed["domain"]["chainId"] = int(typed["domain"]["chainId"], 16)
    signable = encode_typed_data(full_message=typed)
    return str(Account.recover_message(signable, signature=signature)).lower()


def test_wallet_address_is_the_lowercase_h160() -> None:
    address = wallet_address(PRIVATE_KEY)
    assert address == str(Account.from_key(PRIVATE_KEY).address).lower()
    assert address.startswith("0x") and len(address) == 42


def test_signed_permit_recovers_to_the_wallet() -> None:
    template = rec.permit_template(wallet_address(PRIVATE_KEY))
    original = copy.deepcopy(template)
    permit = sign_permit(template, PRIVATE_KEY)
    assert isinstance(permit, SubmitPermitRequest)
    assert permit.message == original  # posted back as the template endpoint produced it
    assert template == original  # and the caller's dict is untouched
    assert permit.signature.startswith("0x") and len(permit.signature) == 2 + 130
    assert _recover(permit.message, permit.signature) == wallet_address(PRIVATE_KEY)


def test_checksummed_owner_and_string_numbers_are_accepted() -> None:
    checksummed = str(Account.from_key(PRIVATE_KEY).address)
    template = rec.permit_template(checksummed)
    template["message"]["value"] = "0x1312d00"
    template["message"]["deadline"] = "1763726460"
    permit = sign_permit(template, PRIVATE_KEY)
    typed = copy.deepcopy(template)
    typed["domain"]["chainId"] = 0xA4B1
    typed["message"]["value"] = 0x1312D00
    typed["message"]["deadline"] = 1763726460
    recovered = Account.recover_message(
        encode_typed_data(full_message=typed), signature=permit.signature
    )
    assert recovered == checksummed


def test_a_permit_for_another_wallet_is_refused() -> None:
    template = rec.permit_template("0x" + "22" * 20)
    with pytest.raises(WalletError, match="not this wallet"):
        sign_permit(template, PRIVATE_KEY)


@pytest.mark.parametrize("missing", ["types", "primaryType", "domain", "message"])
def test_incomplete_templates_name_what_is_missing(missing: str) -> None:
    template = rec.permit_template(wallet_address(PRIVATE_KEY))
    del template[missing]
    with pytest.raises(WalletError, match=missing):
        sign_permit(template, PRIVATE_KEY)


def test_bad_chain_id_is_named() -> None:
    template = rec.permit_template(wallet_address(PRIVATE_KEY))
    template["domain"]["chainId"] = "arbitrum"
    with pytest.raises(WalletError, match=r"domain\.chainId"):
        sign_permit(template, PRIVATE_KEY)


def test_bad_private_key_error_does_not_echo_it() -> None:
    bad = "0x" + "zz" * 32
    with pytest.raises(WalletError) as caught:
        wallet_address(bad)
    assert "zz" not in str(caught.value)


def test_keystore_round_trip_is_encrypted_and_private(tmp_path: Path) -> None:
    target = tmp_path / "profiles" / "desk" / "wallet.json"
    written = save_wallet_key(target, PRIVATE_KEY, PASSWORD, kdf="pbkdf2", iterations=2)
    assert written == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    text = target.read_text()
    assert PRIVATE_KEY[2:] not in text.lower()
    assert PASSWORD not in text
    assert "crypto" in json.loads(text)
    assert load_wallet_key(target, PASSWORD) == PRIVATE_KEY
    assert [p.name for p in target.parent.iterdir()] == ["wallet.json"]  # no temp file left


def test_saving_again_replaces_and_stays_private(tmp_path: Path) -> None:
    target = tmp_path / "wallet.json"
    target.write_text("old")
    target.chmod(0o644)
    other = "0x" + "11" * 32
    save_wallet_key(target, other, PASSWORD, kdf="pbkdf2", iterations=2)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert load_wallet_key(target, PASSWORD) == other


def test_wrong_password_is_a_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "wallet.json"
    save_wallet_key(target, PRIVATE_KEY, PASSWORD, kdf="pbkdf2", iterations=2)
    with pytest.raises(WalletError, match="wrong password") as caught:
        load_wallet_key(target, "guess")
    assert PRIVATE_KEY[2:] not in str(caught.value)


def test_missing_or_broken_keystore_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WalletError, match="no wallet keystore"):
        load_wallet_key(tmp_path / "absent.json", PASSWORD)
    exposed = tmp_path / "exposed.json"
    save_wallet_key(exposed, PRIVATE_KEY, PASSWORD, kdf="pbkdf2", iterations=2)
    exposed.chmod(0o644)
    with pytest.raises(WalletError, match=r"chmod 600 .*exposed\.json"):
        load_wallet_key(exposed, PASSWORD)
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    junk.chmod(0o600)  # an exposed keystore is refused before it is read
    with pytest.raises(WalletError, match="not a readable keystore"):
        load_wallet_key(junk, PASSWORD)
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text('{"version": 3}')
    wrong_shape.chmod(0o600)
    with pytest.raises(WalletError, match="not a valid keystore"):
        load_wallet_key(wrong_shape, PASSWORD)


def test_empty_password_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WalletError, match="password"):
        save_wallet_key(tmp_path / "w.json", PRIVATE_KEY, "")


def test_client_import_stays_light() -> None:
    code = (
        "import sys, tui.api.client, tui.api.permits, tui.api.stats; "
        "heavy = [m for m in ('eth_account', 'textual') if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    result = subprocess.run(  # noqa: S603 (fixed argv: this interpreter and a literal)
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
