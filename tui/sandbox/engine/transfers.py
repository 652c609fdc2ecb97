"""Transfers and permits: USDC into and out of a pool, and the wallet allowances behind them.

Rules of ``/transfers`` (the contract leaves them open; decided here):

- **Transfers.** USDC only, at most 6 decimals and `MAX_TRANSFER`; the pool must be open and
  the caller's, the counterparty its other company. A deposit needs the caller's wallet
  allowance for the pool address (a permit) and the wallet balance; a withdrawal at most
  ``max_withdrawable_amount`` (the margin of open positions and of trades still clearing stays
  in). Both confirm one block later; one whose block fails ends ``failed`` with its money back
  where it was. A company sees its own transfers (its clearing deposits too).
- **Permits.** The signature must recover to ``message.owner`` (else 400/1001); the owner must
  be the caller's company wallet (else 403/2002); the spender a pool of the caller (else
  404); the deadline not passed (400/1001); the nonce the owner's current one (409/4000). A
  permit may move a trade waiting for a deposit approval on (`Clearing.allowance_changed`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.api.models import (
    USDC,
    NewTransferRequest,
    PermitTemplateRequest,
    SettlementPoolStatus,
    SubmitPermitRequest,
    Transfer,
    TransferStatus,
    TransferType,
    allowance_units,
)
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.clearing import Clearing
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.pools import pool_by_address, visible_pool
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import (
    insert_transfer,
    ms_to_timestamp,
    other_party,
    own_records,
    party_params,
    transfer_record,
)
from tui.sandbox.engine.risk import Risk
from tui.sandbox.engine.store import Store

__all__ = ["MAX_TRANSFER", "Transfers"]

MAX_TRANSFER = Decimal(10) ** 12
"""The largest USDC amount of one transfer."""


class Transfers:
    """The ``/transfers`` endpoints, and the blocks that confirm (or fail) a transfer."""

    def __init__(
        self, store: Store, chain: Chain, portfolio: Portfolio, risk: Risk, clearing: Clearing
    ) -> None:
        self.store = store
        self.chain = chain
        self.portfolio = portfolio
        self.risk = risk
        self.clearing = clearing

    def page(
        self, me: str, *, limit: int, offset: int, pool: str | None, id: str | None
    ) -> tuple[list[Transfer], bool]:
        """A page of ``me``'s deposits and withdrawals, oldest first."""
        rows, more = own_records(
            self.store, "transfers", me, limit=limit, offset=offset, pool=pool, id=id
        )
        return [Transfer.model_validate(r) for r in rows], more

    def new(self, me: str, body: NewTransferRequest, now: int) -> Transfer:
        """A USDC deposit into, or withdrawal from, a pool; it confirms one block later."""
        if body.asset != USDC:
            raise ServiceError.out_of_range("asset: only USDC can be transferred")
        pool = visible_pool(self.store, me, body.target_pool_location)
        if pool is None:
            raise ServiceError.not_found("target_pool_location: pool")
        if pool["status"] != SettlementPoolStatus.OPEN:
            raise ServiceError.conflict(
                f"target_pool_location: the pool is {pool['status']}, not open"
            )
        if body.counterparty != other_party(pool, me):
            raise ServiceError.out_of_range("counterparty: must be the other company of the pool")
        qty = body.qty
        if qty > MAX_TRANSFER:
            raise ServiceError.out_of_range(f"qty: at most {format(MAX_TRANSFER, 'f')}")
        if qty != qty.quantize(Decimal("0.000001")):
            raise ServiceError.out_of_range("qty: at most 6 decimal places (USDC)")
        if body.transfer_type == TransferType.DEPOSIT:
            wallet = self.chain.wallet(me)
            self.chain.spend_allowance(wallet.address, pool["address"], qty)
            self.chain.move_wallet_usdc(me, -qty)
        else:
            reserved, incoming = self.risk.reserved_for(pool["pool_id"], me)
            withdrawable = self.portfolio.max_withdrawable(
                pool["pool_id"], me, party_params(pool, me), reserved, incoming
            )
            if qty > withdrawable:
                raise ServiceError.out_of_range(
                    f"qty: at most {format(withdrawable, 'f')} USDC can be withdrawn from "
                    "this pool now (margin of open positions and of trades still clearing "
                    "stays in)"
                )
            self.portfolio.move_balance(pool["pool_id"], me, -qty)
        data = transfer_record(
            self.store.new_id(),
            created_at=ms_to_timestamp(now),
            company=me,
            counterparty=body.counterparty,
            qty=qty,
            pool_id=pool["pool_id"],
            transfer_type=str(body.transfer_type),
            status=TransferStatus.PENDING.value,
        )
        insert_transfer(self.store, data)
        self.store.add_timer(self.chain.confirm_at(now), "transfer_confirm", data["id"])
        return Transfer.model_validate(data)

    def confirm(self, transfer_id: str) -> None:
        """The block of a pending transfer: its money arrives, it is ``confirmed``."""
        data = self.store.data("transfers", "id = ?", (transfer_id,))
        if data is None or data["status"] != TransferStatus.PENDING:
            return
        qty = Decimal(data["qty"])
        if data["transfer_type"] == TransferType.DEPOSIT:
            self.portfolio.move_balance(data["target_pool_location"], data["company"], qty)
        else:
            self.chain.move_wallet_usdc(data["company"], qty)
        data["status"] = TransferStatus.CONFIRMED.value
        data["confirmed_by_transaction_id"] = self.chain.new_tx_id()
        self.store.update("transfers", "id", transfer_id, {"status": data["status"], "data": data})

    def fail(self, transfer_id: str) -> None:
        """A pending transfer that could not confirm: ``failed``, its money back where it was."""
        data = self.store.data("transfers", "id = ?", (transfer_id,))
        if data is None or data["status"] != TransferStatus.PENDING:
            return
        qty = Decimal(data["qty"])
        if data["transfer_type"] == TransferType.DEPOSIT:
            self.chain.move_wallet_usdc(data["company"], qty)
        else:
            self.portfolio.move_balance(data["target_pool_location"], data["company"], qty)
        data["status"] = TransferStatus.FAILED.value
        self.store.update("transfers", "id", transfer_id, {"status": data["status"], "data": data})

    def permit_template(self, me: str, body: PermitTemplateRequest, now: int) -> dict[str, Any]:
        """The EIP-712 ERC-2612 permit for a pool of ``me`` to spend its wallet's USDC."""
        pool = pool_by_address(self.store, me, body.pool_address)
        if pool is None:
            raise ServiceError.not_found("pool_address: pool")
        wallet = self.chain.wallet(me)
        deadline = now // 1000 + body.seconds_until_expiry
        return self.chain.permit_template(
            wallet.address, pool["address"], allowance_units(body.allowance), deadline
        )

    def permit(self, me: str, body: SubmitPermitRequest, now: int) -> None:
        """A signed permit: the pool address may then spend up to its value."""
        grant = self.chain.verify_permit(body.message, body.signature)
        wallet = self.chain.wallet(me)
        if grant.owner != wallet.address:
            raise ServiceError.forbidden(
                "message.message.owner: permits are accepted only from your company's wallet"
            )
        if pool_by_address(self.store, me, grant.spender) is None:
            raise ServiceError.not_found("message.message.spender: pool")
        if grant.deadline <= now // 1000:
            raise ServiceError.out_of_range("message.message.deadline: the permit expired")
        expected = self.chain.nonce(grant.owner)
        if grant.nonce != expected:
            raise ServiceError.conflict(
                f"message.message.nonce: expected nonce {expected} (a permit is used once)"
            )
        self.chain.use_permit(grant)
        self.clearing.allowance_changed(grant.owner, grant.spender, now)
