"""The simulated chain: company wallets, USDC balances, ERC-2612 permits and allowances.

What a real venue does on-chain the sandbox does in its own SQLite tables, with the same
rules: a pool address may spend from a wallet only what a permit signed by that wallet's key
allowed (a permit *sets* the allowance, as ERC-2612 does, and is usable once: it carries the
owner's current nonce); transactions confirm after a block delay and get a ``0x`` + 64 hex id.

Wallet private keys are created with `os.urandom` at first creation, stored in the database
(the sandbox hands them to the desk through its credentials file) and never logged. A wallet's
address comes from ``eth_keys`` (what ``eth_account`` derives it with, at a fifth of its import
time); ``eth_account`` itself, which a first start need not pay for (a third of a second), is
imported lazily when the first permit is checked.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import Any

from tui.api.models import USDC_DECIMALS
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.store import Store
from tui.sandbox.market.listings import USDC_ADDRESS

__all__ = [
    "CHAIN_ID",
    "MAX_ALLOWANCE_UNITS",
    "PERMIT_TYPES",
    "USDC_DOMAIN_NAME",
    "USDC_DOMAIN_VERSION",
    "USDC_TOKEN_ADDRESS",
    "Chain",
    "PermitGrant",
    "Wallet",
    "from_units",
    "pool_address",
    "to_units",
]

CHAIN_ID = 421614
"""The sandbox poses as Arbitrum Sepolia (0x66eee), a test network."""
USDC_DOMAIN_NAME = "USD Coin"
USDC_DOMAIN_VERSION = "2"
USDC_TOKEN_ADDRESS = USDC_ADDRESS
"""The USDC contract the permits are signed for (the verifyingContract of the domain); the
same address ``supported_assets`` shows for USDC."""

PERMIT_TYPES: dict[str, list[dict[str, str]]] = {
    "EIP712Domain": [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ],
}
"""The EIP-712 types of an ERC-2612 ``Permit``."""

_UNIT = Decimal(10) ** USDC_DECIMALS
MAX_ALLOWANCE_UNITS = 2**63 - 1
"""The largest allowance stored; a bigger permit value means "unlimited"."""


def to_units(amount: Decimal) -> int:
    """USDC amount -> integer base units (6 decimals), rounding up (an allowance must cover)."""
    return int((amount * _UNIT).to_integral_value(rounding=ROUND_CEILING))


def from_units(units: int) -> Decimal:
    """Integer base units -> USDC amount."""
    return Decimal(units) / _UNIT


def pool_address(pool_id: str) -> str:
    """The on-chain address of a pool: lowercase ``0x`` + 40 hex, derived from its id."""
    return "0x" + hashlib.sha256(f"rfq-desk:pool:{pool_id}".encode()).hexdigest()[:40]


@dataclass(frozen=True)
class Wallet:
    """A company's wallet as the chain sees it (the private key is not part of it)."""

    company_id: str
    address: str
    usdc: Decimal
    nonce: int


@dataclass(frozen=True)
class PermitGrant:
    """A verified permit: ``owner`` lets ``spender`` move up to ``units`` base units."""

    owner: str
    spender: str
    units: int
    nonce: int
    deadline: int
    extra: dict[str, Any] = field(default_factory=dict, repr=False)


class Chain:
    """Wallets, allowances and nonces of the simulated chain, over the exchange's store."""

    def __init__(self, store: Store, *, block_delay_s: float = 2.0) -> None:
        self.store = store
        self.block_delay_ms = max(0, round(block_delay_s * 1000))

    # -- wallets --------------------------------------------------------------------------

    def create_wallet(self, company_id: str, usdc: Decimal) -> str:
        """Give a company a fresh wallet holding ``usdc``; returns its lowercase address."""
        from eth_keys import keys  # lazy: what a first start needs of the Ethereum stack

        key = os.urandom(32)
        address = str(keys.PrivateKey(key).public_key.to_address()).lower()
        self.store.insert(
            "wallets",
            {
                "company_id": company_id,
                "address": address,
                "private_key": "0x" + key.hex(),
                "usdc": format(usdc, "f"),
                "nonce": 0,
            },
        )
        return address

    def wallet(self, company_id: str) -> Wallet:
        """The company's wallet; every seeded company has one."""
        row = self.store.one(
            "SELECT company_id, address, usdc, nonce FROM wallets WHERE company_id = ?",
            (company_id,),
        )
        if row is None:
            raise ServiceError.not_found("wallet")
        return Wallet(row["company_id"], row["address"], Decimal(row["usdc"]), int(row["nonce"]))

    def wallet_private_key(self, company_id: str) -> str:
        """The wallet's private key (``0x`` hex), only for the sandbox's credentials file."""
        return str(
            self.store.scalar("SELECT private_key FROM wallets WHERE company_id = ?", (company_id,))
        )

    def move_wallet_usdc(self, company_id: str, delta: Decimal) -> Decimal:
        """Add ``delta`` (negative to take) to a wallet; refuses to go below zero."""
        wallet = self.wallet(company_id)
        balance = wallet.usdc + delta
        if balance < 0:
            raise ServiceError.conflict(
                f"qty: the wallet holds only {format(wallet.usdc, ',f')} USDC"
            )
        self.store.update("wallets", "company_id", company_id, {"usdc": format(balance, "f")})
        return balance

    # -- allowances -----------------------------------------------------------------------

    def allowance_units(self, owner: str, spender: str) -> int:
        """Base units ``spender`` may still move from ``owner``'s wallet."""
        value = self.store.scalar(
            "SELECT units FROM allowances WHERE owner = ? AND spender = ?",
            (owner.lower(), spender.lower()),
        )
        return int(value or 0)

    def allowance(self, owner: str, spender: str) -> Decimal:
        """The allowance as a USDC amount."""
        return from_units(self.allowance_units(owner, spender))

    def allows(self, company_id: str, spender: str, amount: Decimal) -> bool:
        """Whether the company's wallet lets ``spender`` (a pool address) move ``amount``."""
        owner = self.wallet(company_id).address
        return self.allowance_units(owner, spender) >= to_units(amount)

    def set_allowance(self, owner: str, spender: str, units: int) -> None:
        """Set (not add to) an allowance, as ERC-2612 ``permit`` does.

        Values past SQLite's 64-bit integers (the customary ``2**256 - 1`` "unlimited"
        approval) are stored as `MAX_ALLOWANCE_UNITS`, which no wallet can exhaust.
        """
        units = min(units, MAX_ALLOWANCE_UNITS)
        self.store.execute(
            "INSERT INTO allowances (owner, spender, units) VALUES (?, ?, ?) "
            "ON CONFLICT (owner, spender) DO UPDATE SET units = excluded.units",
            (owner.lower(), spender.lower(), units),
        )

    def spend_allowance(self, owner: str, spender: str, amount: Decimal) -> None:
        """Use ``amount`` of an allowance (a ``transferFrom``); refuses when it is too small."""
        have = self.allowance_units(owner, spender)
        need = to_units(amount)
        if need > have:
            raise ServiceError.conflict(
                f"qty: the pool may spend only {format(from_units(have), 'f')} USDC of the "
                "wallet; sign a permit first"
            )
        self.set_allowance(owner, spender, have - need)

    # -- transactions ---------------------------------------------------------------------

    def new_tx_id(self) -> str:
        """A transaction id (``0x`` + 64 hex), deterministic from the seed and a counter."""
        return self.store.new_hash("tx")

    def confirm_at(self, now_ms: int) -> int:
        """When a transaction sent at ``now_ms`` is mined."""
        return now_ms + self.block_delay_ms

    # -- permits --------------------------------------------------------------------------

    def permit_template(
        self, owner: str, spender: str, units: int, deadline_s: int
    ) -> dict[str, Any]:
        """The EIP-712 typed data of an ERC-2612 USDC permit, ready to sign.

        ``domain.chainId`` is a hex string as the venue sends it; a signer turns it into an
        int before encoding.
        """
        nonce = self.store.scalar("SELECT nonce FROM wallets WHERE address = ?", (owner.lower(),))
        return {
            "types": {name: [dict(f) for f in fields] for name, fields in PERMIT_TYPES.items()},
            "primaryType": "Permit",
            "domain": {
                "name": USDC_DOMAIN_NAME,
                "version": USDC_DOMAIN_VERSION,
                "chainId": hex(CHAIN_ID),
                "verifyingContract": USDC_TOKEN_ADDRESS,
            },
            "message": {
                "owner": owner.lower(),
                "spender": spender.lower(),
                "value": units,
                "nonce": int(nonce or 0),
                "deadline": deadline_s,
            },
        }

    def verify_permit(self, typed_data: dict[str, Any], signature: str) -> PermitGrant:
        """Check a signed permit's shape and signature; returns what it grants.

        Shape errors name the field (``message.message.value`` ...) as 400/1001; a signature
        that does not recover to ``message.owner`` is 400/1001 (the permit is not valid). The
        nonce, deadline and who may submit it are the caller's to check (`Exchange`).
        """
        domain = _dict_at(typed_data, "domain", "message.domain")
        body = _dict_at(typed_data, "message", "message.message")
        if typed_data.get("primaryType") != "Permit":
            raise ServiceError.out_of_range("message.primaryType: must be 'Permit'")
        chain_id = _int_field(domain.get("chainId"), "message.domain.chainId")
        if (
            domain.get("name") != USDC_DOMAIN_NAME
            or str(domain.get("version")) != USDC_DOMAIN_VERSION
            or chain_id != CHAIN_ID
            or str(domain.get("verifyingContract", "")).lower() != USDC_TOKEN_ADDRESS
        ):
            raise ServiceError.out_of_range(
                "message.domain: not the sandbox's USDC permit domain (use the template)"
            )
        owner = _address_field(body.get("owner"), "message.message.owner")
        spender = _address_field(body.get("spender"), "message.message.spender")
        value = _int_field(body.get("value"), "message.message.value")
        nonce = _int_field(body.get("nonce"), "message.message.nonce")
        deadline = _int_field(body.get("deadline"), "message.message.deadline")
        if value <= 0:
            raise ServiceError.out_of_range("message.message.value: must be greater than 0")
        signed = {
            "types": PERMIT_TYPES,
            "primaryType": "Permit",
            "domain": {
                "name": USDC_DOMAIN_NAME,
                "version": USDC_DOMAIN_VERSION,
                "chainId": CHAIN_ID,
                "verifyingContract": USDC_TOKEN_ADDRESS,
            },
            "message": {
                "owner": owner,
                "spender": spender,
                "value": value,
                "nonce": nonce,
                "deadline": deadline,
            },
        }
        signer = _recover(signed, signature)
        if signer != owner:
            raise ServiceError.out_of_range(
                "signature: not signed by message.message.owner (sign the template as returned)"
            )
        return PermitGrant(owner, spender, value, nonce, deadline)

    def nonce(self, owner: str) -> int:
        """The owner's current permit nonce (the one its next permit must carry)."""
        return int(
            self.store.scalar("SELECT nonce FROM wallets WHERE address = ?", (owner.lower(),)) or 0
        )

    def use_permit(self, grant: PermitGrant) -> None:
        """Apply a verified permit: set the allowance and bump the owner's nonce."""
        self.set_allowance(grant.owner, grant.spender, grant.units)
        self.store.execute(
            "UPDATE wallets SET nonce = nonce + 1 WHERE address = ?", (grant.owner.lower(),)
        )


def _dict_at(data: dict[str, Any], key: str, name: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ServiceError.bad_request(f"{name}: must be an object")
    return value


def _int_field(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise ServiceError.bad_request(f"{name}: must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 16) if text.lower().startswith("0x") else int(text)
        except ValueError:
            pass
    raise ServiceError.bad_request(f"{name}: must be an integer")


def _address_field(value: Any, name: str) -> str:
    text = value if isinstance(value, str) else ""
    if len(text) != 42 or not text.startswith("0x"):
        raise ServiceError.bad_request(f"{name}: must be a 0x-prefixed 20-byte address")
    try:
        int(text[2:], 16)
    except ValueError:
        raise ServiceError.bad_request(f"{name}: must be a 0x-prefixed 20-byte address") from None
    return text.lower()


def _recover(typed_data: dict[str, Any], signature: str) -> str:
    from eth_account import Account  # lazy: importing eth_account costs ~0.3 s
    from eth_account.messages import encode_typed_data

    try:
        signable = encode_typed_data(full_message=typed_data)
        return str(Account.recover_message(signable, signature=signature)).lower()
    except Exception:  # eth_account raises many types for a malformed signature
        raise ServiceError.out_of_range("signature: not a valid EIP-712 signature") from None
