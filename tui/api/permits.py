"""ERC-2612 permit signing and the encrypted keystore that holds the company wallet key.

`sign_permit` turns the EIP-712 typed data of ``POST /v1/transfers/permit/template`` into the
body of ``POST /v1/transfers/permit``. The wallet key lives only in an encrypted eth-account
keystore file (mode 0600 in a 0700 folder; one that others may read is refused with the
``chmod`` that fixes it), never in plain text. `sign_permit_with_keystore` decrypts the key,
signs and lets go of it in one call, so the decrypted key lives no longer than the signing.
eth-account is imported inside the functions: it costs most of a second, and the desk should
not pay that until a permit is signed.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import SecretStr

from tui.api.models import SubmitPermitRequest
from tui.paths import ExposedSecretError, private_folder, refuse_exposed

__all__ = [
    "WalletError",
    "keystore_address",
    "load_wallet_key",
    "save_wallet_key",
    "sign_permit",
    "sign_permit_with_keystore",
    "wallet_address",
]


class WalletError(ValueError):
    """A wallet key, keystore or permit template that cannot be used; never shows the key."""


def _account(private_key: str) -> Any:
    from eth_account import Account

    try:
        return Account.from_key(private_key)
    except Exception:
        # The library's message may quote the input; ours never does.
        raise WalletError("the wallet private key is not a valid 32-byte hex key") from None


def wallet_address(private_key: str) -> str:
    """The address of the wallet, lowercase ``0x`` + 40 hex (the wire form of an H160)."""
    return str(_account(private_key).address).lower()


def template_int(value: Any) -> int | None:
    """A permit template's integer as written (a number, a decimal or ``0x`` hex string);
    None when it is not one (a bool is not)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 16) if text.lower().startswith("0x") else int(text)
        except ValueError:
            return None
    return None


def _to_int(value: Any, field: str) -> int:
    number = template_int(value)
    if number is None:
        raise WalletError(f"permit template: {field} must be an integer or a hex string")
    return number


def _for_signing(template: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the typed data that eth-account can encode: integers where types say uint."""
    for key in ("types", "primaryType", "domain", "message"):
        if key not in template:
            raise WalletError(f"permit template: missing {key!r}")
    typed = copy.deepcopy(dict(template))
    domain = typed["domain"]
    message = typed["message"]
    if not isinstance(domain, dict) or not isinstance(message, dict):
        raise WalletError("permit template: domain and message must be objects")
    if "chainId" in domain:
        domain["chainId"] = _to_int(domain["chainId"], "domain.chainId")
    fields = typed["types"].get(typed["primaryType"]) if isinstance(typed["types"], dict) else None
    if not isinstance(fields, list):
        raise WalletError("permit template: types has no entry for primaryType")
    for spec in fields:
        name, kind = spec.get("name"), str(spec.get("type", ""))
        if name in message and (kind.startswith("uint") or kind.startswith("int")):
            message[name] = _to_int(message[name], f"message.{name}")
    return typed


def sign_permit(template: Mapping[str, Any], private_key: str) -> SubmitPermitRequest:
    """Sign a permit template with the wallet key; the result is ready for ``transfers_permit``.

    ``domain.chainId`` comes as a hex string and is turned into an int before encoding. The
    template is posted back unchanged as ``message`` (the server re-encodes it to recover the
    signer); the signature is 0x-hex of r, s, v. A template whose owner is not this wallet is
    refused here rather than by the server.
    """
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    typed = _for_signing(template)
    account = _account(private_key)
    owner = typed["message"].get("owner")
    if isinstance(owner, str) and owner.lower() != str(account.address).lower():
        raise WalletError(
            f"permit template: owner {owner} is not this wallet ({str(account.address).lower()})"
        )
    try:
        signable = encode_typed_data(full_message=typed)
    except Exception as exc:
        raise WalletError(f"permit template cannot be encoded: {type(exc).__name__}") from None
    signed = Account.sign_message(signable, private_key=private_key)
    signature = "0x" + bytes(signed.signature).hex()
    return SubmitPermitRequest(message=dict(template), signature=signature)


def save_wallet_key(
    path: str | os.PathLike[str],
    private_key: str,
    password: str,
    *,
    kdf: Literal["scrypt", "pbkdf2"] = "scrypt",
    iterations: int | None = None,
) -> Path:
    """Write the wallet key as an encrypted keystore file readable only by its owner (0600).

    The file is written beside its final name and renamed into place, so a crash never leaves
    half a keystore. ``iterations`` tunes the KDF cost (tests lower it; leave it for real use).
    """
    from eth_account import Account

    if not password:
        raise WalletError("the keystore password must not be empty")
    key = bytes(_account(private_key).key)
    keystore = Account.encrypt(key, password, kdf=kdf, iterations=iterations)
    target = Path(path).expanduser()
    private_folder(target.parent)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(keystore, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target


def _read_keystore(source: Path) -> dict[str, Any]:
    try:
        refuse_exposed(source)
        keystore = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WalletError(f"no wallet keystore at {source}") from None
    except ExposedSecretError as error:
        raise WalletError(str(error)) from None
    except (OSError, ValueError):
        raise WalletError(f"{source} is not a readable keystore file") from None
    if not isinstance(keystore, dict):
        raise WalletError(f"{source} is not a valid keystore file")
    return keystore


def _decrypt(keystore: dict[str, Any], password: str, source: Path) -> bytes:
    from eth_account import Account

    try:
        return bytes(Account.decrypt(keystore, password))
    except ValueError as exc:
        if "MAC mismatch" in str(exc):
            raise WalletError(f"wrong password for the wallet keystore {source}") from None
        raise WalletError(f"{source} is not a valid keystore file") from None
    except Exception:
        raise WalletError(f"{source} is not a valid keystore file") from None


def load_wallet_key(path: str | os.PathLike[str], password: str) -> str:
    """Decrypt the wallet key from a keystore file; a wrong password is a clear `WalletError`.

    Prefer `sign_permit_with_keystore`, which never hands the decrypted key out.
    """
    source = Path(path).expanduser()
    return "0x" + _decrypt(_read_keystore(source), password, source).hex()


def keystore_address(path: str | os.PathLike[str], password: SecretStr) -> str:
    """The wallet address a keystore holds, proving ``password`` opens it (import checks)."""
    source = Path(path).expanduser()
    key = _decrypt(_read_keystore(source), password.get_secret_value(), source)
    try:
        return wallet_address("0x" + key.hex())
    finally:
        del key


def sign_permit_with_keystore(
    template: Mapping[str, Any], keystore: str | os.PathLike[str], password: SecretStr
) -> SubmitPermitRequest:
    """Decrypt the wallet key, sign one permit, and let the key go (see module docs).

    The key exists decrypted only inside this call (Python cannot wipe memory, but nothing
    keeps a reference to it afterwards); a wrong passphrase is a `WalletError` naming the file.
    """
    source = Path(keystore).expanduser()
    key = "0x" + _decrypt(_read_keystore(source), password.get_secret_value(), source).hex()
    try:
        return sign_permit(template, key)
    finally:
        del key
