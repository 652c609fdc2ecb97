"""The end-to-end kit: request builders and a whole trade over HTTP (``test_e2e_*``).

Everything here goes through `ServiceClient` over HTTP to the `sandbox` fixture's server; the
only direct look at the engine is the mark price a simulated maker would quote around.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from tests.sandbox.kit.common import D, perp
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    ClearingStatus,
    LegQuote,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    Quote,
    RequestAction,
    Structure,
    TradeSide,
    UseExistingPool,
)
from tui.sandbox.engine.seed import SEED_POOL_NAME

BOOKED = ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
"""A trade's status once its last look booked it into the pool."""


def rfq_request(
    sandbox: Any,
    *,
    targets: tuple[str, ...] = ("ALPHA",),
    legs: list[tuple[str, Any]] | None = None,
    qty: str = "1",
    expires_in_s: float = 300,
) -> NewRfqRequest:
    """An RFQ for ``legs`` (side, instrument) of ``qty``, asked of ``targets`` (short names)."""
    return NewRfqRequest(
        structure=Structure.model_validate(
            {
                "legs": [
                    {"side": side, "ratio": 1, "instrument": instrument}
                    for side, instrument in (legs or [("buy", perp())])
                ]
            }
        ),
        qty=D(qty),
        expires_at=sandbox.clock.now() + timedelta(seconds=expires_in_s),
        target_companies=[sandbox.company_ids[name] for name in targets],
    )


def mark(sandbox: Any, instrument: Any) -> Decimal:
    """The sandbox's current mark of one unit of ``instrument``."""
    return Decimal(sandbox.call(lambda ex: ex.market.value(instrument).price))


def quote_request(
    sandbox: Any, rfq: RFQ, pool_id: str, *, spread: str = "0.001", expires_in_s: float = 120
) -> NewQuoteRequest:
    """A two-way quote on every leg of ``rfq`` around the mark, settling in ``pool_id``."""
    leg_quotes = []
    for leg in rfq.rfq_legs:
        price = mark(sandbox, leg.instrument)
        half = (price * D(spread)).quantize(D("0.01"))
        leg_quotes.append(
            LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=price - half, ask=price + half)
        )
    return NewQuoteRequest(
        rfq_id=rfq.rfq_id,
        expires_at=sandbox.clock.now() + timedelta(seconds=expires_in_s),
        leg_quotes=leg_quotes,
        pool_strategy=UseExistingPool(pool_id=pool_id),
    )


async def seed_pool_id(client: Any) -> str:
    """The id of the opening DESK-ALPHA pool, as DESK or ALPHA sees it."""
    pools = (await client.settlement_pools()).result
    return next(p.pool_id for p in pools if p.data and p.data.name == SEED_POOL_NAME)


@dataclass
class BookedTrade:
    """What one full trade left behind: the RFQ, the quote and the pool it cleared in."""

    rfq: RFQ
    quote: Quote
    pool_id: str
    accept_status: str
    last_look_status: str


async def book_trade(
    sandbox: Any,
    taker: Any,
    maker: Any,
    *,
    maker_name: str = "ALPHA",
    side: TradeSide = TradeSide.BUY,
    qty: str = "1",
) -> BookedTrade:
    """RFQ -> quote -> accept -> last look, each step by the company that takes it."""
    pool_id = await seed_pool_id(taker)
    rfq = await taker.rfqs_new(rfq_request(sandbox, targets=(maker_name,), qty=qty))
    asked = (await maker.rfqs_received(id=rfq.rfq_id)).result
    assert [r.rfq_id for r in asked] == [rfq.rfq_id]
    quote = await maker.quotes_new(quote_request(sandbox, asked[0], pool_id))
    accepted = await taker.quotes_accept(
        AcceptQuoteRequest(parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, side=side)
    )
    looked = await maker.quotes_maker_last_look(
        MakerLastLookRequest(
            parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, action=RequestAction.ACCEPT
        )
    )
    return BookedTrade(
        rfq, quote, pool_id, str(accepted.new_clearing_status), str(looked.new_clearing_status)
    )
