"""The counterparties' side, driven by the test through the API: RFQs, quotes, accepts, permits.

Also a day of booked trades as records (for the blotter's table tests and bench), without a
venue at all.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from tui.api.client import ServiceClient
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    CreateNewPool,
    DecimalAllowance,
    Leg,
    LegQuote,
    NewQuoteRequest,
    NewRfqRequest,
    PermitTemplateRequest,
    PerpetualFutureInstrument,
    Quote,
    Structure,
    Trade,
    TradeSide,
    UseExistingPool,
)
from tui.api.permits import sign_permit
from tui.desk.margin_presets import preset


def perp_rfq(
    taker_targets: list[str], qty: str, now: Any, underlying: str = "BTC"
) -> NewRfqRequest:
    """An RFQ for one perpetual leg, buy side, open for five minutes."""
    return NewRfqRequest(
        structure=Structure(
            legs=[
                Leg(
                    side=TradeSide.BUY,
                    ratio=1,
                    instrument=PerpetualFutureInstrument(underlying=underlying),
                )
            ]
        ),
        qty=Decimal(qty),
        expires_at=now + timedelta(minutes=5),
        target_companies=taker_targets,
    )


async def quote_rfq(
    maker: ServiceClient,
    rfq: RFQ,
    now: Any,
    *,
    pool_id: str | None = None,
    new_pool: str | None = None,
    spread: Decimal = Decimal("0.001"),
    seconds: int = 60,
) -> Quote:
    """The maker quotes every leg of ``rfq`` around its structure price."""
    price = rfq.structure_price.price if rfq.structure_price else None
    assert price is not None
    mark = abs(price)
    legs = [
        LegQuote(
            target_rfq_leg_id=leg.rfq_leg_id,
            bid=(mark * (1 - spread)).quantize(Decimal("0.01")),
            ask=(mark * (1 + spread)).quantize(Decimal("0.01")),
        )
        for leg in rfq.rfq_legs
    ]
    if pool_id is not None:
        strategy: Any = UseExistingPool(pool_id=pool_id)
    else:
        params = preset("standard")
        strategy = CreateNewPool(
            name=new_pool or "test pool", creator_params=params, other_params=params
        )
    return await maker.quotes_new(
        NewQuoteRequest(
            rfq_id=rfq.rfq_id,
            expires_at=now + timedelta(seconds=seconds),
            leg_quotes=legs,
            pool_strategy=strategy,
        )
    )


async def quote_at(
    maker: ServiceClient,
    rfq: RFQ,
    now: Any,
    bid: Decimal,
    ask: Decimal,
    *,
    pool_id: str | None = None,
    new_pool: str | None = None,
    seconds: int = 60,
) -> Quote:
    """The maker quotes every leg of ``rfq`` at exactly ``bid`` / ``ask`` (see `mark_plus`)."""
    legs = [LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=bid, ask=ask) for leg in rfq.rfq_legs]
    return await maker.quotes_new(
        NewQuoteRequest(
            rfq_id=rfq.rfq_id,
            expires_at=now + timedelta(seconds=seconds),
            leg_quotes=legs,
            pool_strategy=_strategy(pool_id, new_pool),
        )
    )


def mark_plus(rfq: RFQ, offset: str) -> Decimal:
    """The RFQ's structure price plus ``offset``, to the cent: a price the venue will take."""
    assert rfq.structure_price is not None and rfq.structure_price.price is not None
    return (abs(rfq.structure_price.price) + Decimal(offset)).quantize(Decimal("0.01"))


async def quote_near(
    maker: ServiceClient,
    rfq: RFQ,
    now: Any,
    bid: str,
    ask: str,
    **options: Any,
) -> Quote:
    """The maker quotes every leg at the RFQ's structure price plus ``bid`` / ``ask``."""
    return await quote_at(maker, rfq, now, mark_plus(rfq, bid), mark_plus(rfq, ask), **options)


def _strategy(pool_id: str | None, new_pool: str | None) -> Any:
    if pool_id is not None:
        return UseExistingPool(pool_id=pool_id)
    params = preset("standard")
    return CreateNewPool(name=new_pool or "test pool", creator_params=params, other_params=params)


async def accept(taker: ServiceClient, quote: Quote, side: TradeSide) -> Any:
    """The taker accepts a quote."""
    return await taker.quotes_accept(
        AcceptQuoteRequest(
            parent_quote_id=quote.parent_quote_id, rfq_id=quote.target_rfq_id, side=side
        )
    )


async def permit(client: ServiceClient, wallet_key: str, address: str, amount: Decimal) -> bool:
    """A counterparty signs and submits a permit for ``amount`` to ``address``."""
    template = await client.transfers_permit_template(
        PermitTemplateRequest(pool_address=address, allowance=DecimalAllowance(value=amount))
    )
    return await client.transfers_permit(sign_permit(template, wallet_key))


async def pool_between(client: ServiceClient, other_id: str) -> Any:
    """The first pool ``client``'s company shares with ``other_id``."""
    pools = (await client.settlement_pools()).result
    for pool in pools:
        if pool.data and any(p.company == other_id for p in pool.data.parties):
            return pool
    raise AssertionError("no shared pool")


async def my_rfq(sandbox: Any, *makers: str) -> RFQ:
    """DESK asks ``makers`` (by short name) for 2 BTC perpetual."""
    async with sandbox.client("DESK") as mine:
        ids = [sandbox.company_ids[m] for m in makers]
        return await mine.rfqs_new(perp_rfq(ids, "2", sandbox.clock.now()))


async def their_view(maker: ServiceClient, rfq: RFQ) -> RFQ:
    """``rfq`` as ``maker`` receives it."""
    (view,) = (await maker.rfqs_received(id=rfq.rfq_id)).result
    return view


async def alpha_quotes_my_rfq(sandbox: Any, qty: str = "1") -> tuple[RFQ, Quote]:
    """DESK asks ALPHA for a BTC perpetual; ALPHA quotes it in the pool they share."""
    async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
        rfq = await mine.rfqs_new(
            perp_rfq([sandbox.company_ids["ALPHA"]], qty, sandbox.clock.now())
        )
        (received,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
        pool = await pool_between(alpha, sandbox.company_ids["DESK"])
        quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)
    return rfq, quote


DAY_START = datetime(2026, 1, 5, 12, tzinfo=UTC)
BOOKED = "success_trades_booked_into_pool"


def booked_trades(count: int, start: int = 0, status: str = BOOKED) -> list[Trade]:
    """``count`` BTC perpetual trade legs, one a second from `DAY_START`, ids ``t000000``..."""
    return [
        Trade(
            id=f"t{i:06d}",
            source_rfq=f"r{i}",
            source_quote=f"q{i}",
            company="c1",
            counterparty="c2",
            created_at=DAY_START + timedelta(seconds=i),
            side="buy" if i % 2 else "sell",
            instrument={"instrument_type": "perpetual_future", "underlying": "BTC"},
            price=Decimal("98000.5") + i,
            qty=Decimal("0.1"),
            pool_location="p1",
            role="taker",
            status=status,
        )
        for i in range(start, start + count)
    ]
