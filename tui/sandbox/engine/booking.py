"""The end of a cleared trade: its deposits move into the pool, its trades and positions book.

`tui.sandbox.engine.clearing` decides *when* (the atomic-deposit block, or a last look that
needs no deposit); these functions write what that moment leaves in the store: a confirmed
deposit transfer per side that brings money, one trade record per leg per side, and the
positions and realized P&L of both companies.

They write through a `RecordSink` and a `Portfolio`: the store and the live portfolio, or the
seeded history's buffer and in-memory books (`tui.sandbox.engine.history_book`), which book
the past by these very rules and write it in bulk.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.api.models import (
    ClearingStatus,
    TradeRole,
    TradeSide,
    TradeType,
    TransferStatus,
    TransferType,
)
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import (
    insert_transfer,
    leg_fills,
    ms_to_timestamp,
    other_party,
    parse_instrument,
    transfer_record,
)
from tui.sandbox.engine.risk import Risk
from tui.sandbox.engine.store import RecordSink

__all__ = [
    "deposit_for_trade",
    "settle_deposits",
    "write_trades",
]

_ZERO = Decimal(0)


def _trade_deposits(
    quote: dict[str, Any], rfq: dict[str, Any]
) -> list[tuple[str, Decimal, ClearingStatus]]:
    """What each side of a trade must bring to the atomic deposit: ``(company, amount, the
    rejection when it cannot)``, the taker first."""
    clearing = quote["_clearing"]
    return [
        (
            rfq["taker_company"],
            Decimal(clearing["taker_deposit"]),
            ClearingStatus.REJECTED_FAILED_TAKER_FUNDING,
        ),
        (
            quote["maker_company"],
            Decimal(clearing["maker_deposit"]),
            ClearingStatus.REJECTED_FAILED_MAKER_FUNDING,
        ),
    ]


def settle_deposits(
    store: RecordSink,
    chain: Chain,
    portfolio: Portfolio,
    risk: Risk,
    quote: dict[str, Any],
    rfq: dict[str, Any],
    pool: dict[str, Any],
    now_ms: int,
) -> ClearingStatus | None:
    """The money of the atomic-deposit block: each side's deposit moves into the pool
    (`deposit_for_trade`), the taker's first.

    Nothing moves, and the rejection comes back, when a side's wallet no longer holds its
    deposit or no longer lets the pool take it (its ``*_funding`` rejection, the taker checked
    first), or when the booking would leave a side short of maintenance margin
    (`Risk.booking_refusal`).
    """
    deposits = _trade_deposits(quote, rfq)
    for company_id, amount, failure in deposits:
        if amount > 0 and (
            chain.wallet(company_id).usdc < amount
            or not chain.allows(company_id, pool["address"], amount)
        ):
            return failure
    refusal = risk.booking_refusal(quote, rfq, pool)
    if refusal is not None:
        return refusal
    for company_id, amount, _ in deposits:
        if amount > 0:
            deposit_for_trade(store, chain, portfolio, quote, pool, company_id, amount, now_ms)
    return None


def deposit_for_trade(
    store: RecordSink,
    chain: Chain,
    portfolio: Portfolio,
    quote: dict[str, Any],
    pool: dict[str, Any],
    company_id: str,
    amount: Decimal,
    now_ms: int,
) -> None:
    """One side's deposit of the atomic-deposit block: wallet -> pool, a confirmed transfer."""
    wallet = chain.wallet(company_id)
    chain.spend_allowance(wallet.address, pool["address"], amount)
    chain.move_wallet_usdc(company_id, -amount)
    portfolio.move_balance(pool["pool_id"], company_id, amount)
    transfer_id = store.new_id()
    insert_transfer(
        store,
        transfer_record(
            transfer_id,
            created_at=ms_to_timestamp(now_ms),
            company=company_id,
            counterparty=other_party(pool, company_id),
            qty=amount,
            pool_id=pool["pool_id"],
            transfer_type=TransferType.DEPOSIT.value,
            status=TransferStatus.CONFIRMED.value,
            rfq_id=quote["target_rfq_id"],
            parent_quote_id=quote["parent_quote_id"],
            confirmed_by=chain.new_tx_id(),
        ),
    )


def write_trades(
    store: RecordSink,
    portfolio: Portfolio,
    quote: dict[str, Any],
    rfq: dict[str, Any],
    pool: dict[str, Any],
    now_ms: int,
) -> None:
    """One trade record per leg per side, and both companies' positions moved by it."""
    taker, maker = rfq["taker_company"], quote["maker_company"]
    created_at = ms_to_timestamp(now_ms)
    for leg, taker_leg_side, price in leg_fills(rfq, quote, quote["_clearing"]["taker_side"]):
        instrument = parse_instrument(leg["instrument"])
        qty = Decimal(leg["qty"])
        under = Decimal(portfolio.value(instrument).underlying_price)
        taker_realized = _ZERO  # the taker's fill is booked first
        for company, counterparty, side, role in (
            (taker, maker, taker_leg_side, TradeRole.TAKER),
            (maker, taker, taker_leg_side.opposite, TradeRole.MAKER),
        ):
            trade_id = store.new_id()
            store.insert(
                "trades",
                {
                    "id": trade_id,
                    "company_id": company,
                    "pool_id": pool["pool_id"],
                    "role": role.value,
                    "underlying": instrument.underlying,
                    "notional": format(qty * under, "f"),
                    "created_ms": now_ms,
                    "data": {
                        "id": trade_id,
                        "source_rfq": rfq["rfq_id"],
                        "source_rfq_leg_id": leg["rfq_leg_id"],
                        "source_quote": quote["parent_quote_id"],
                        "company": company,
                        "counterparty": counterparty,
                        "created_at": created_at,
                        "side": side.value,
                        "instrument": leg["instrument"],
                        "price": format(price, "f"),
                        "qty": leg["qty"],
                        "pool_location": pool["pool_id"],
                        "role": role.value,
                        "trade_type": TradeType.TRADE.value,
                        "status": ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL.value,
                    },
                },
            )
            signed = qty if side is TradeSide.BUY else -qty
            # The maker's fill realizes the exact opposite of the taker's: the pool's money
            # is conserved whatever rounding the taker's side needed.
            realized = portfolio.book_fill(
                pool["pool_id"],
                company,
                instrument,
                signed,
                price,
                as_taker=role is TradeRole.TAKER,
                now_ms=now_ms,
                realized=None if role is TradeRole.TAKER else -taker_realized,
            )
            if role is TradeRole.TAKER:
                taker_realized = realized
