"""A day of trades for `bench_blotter`, as the desk holds them: pages of `Trade` models turned
into light `TradeLeg`s as they come."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from tests.desk.kit.venue import DAY_START
from tui.api.models import Trade
from tui.desk.trade_legs import TradeLeg, TradeLegs

PENDING = "pending_atomic_deposit"
"""The status every trade of the day starts in (pending clearing)."""
PAGE = 10_000
"""Trades per page, as the feed asks for them."""


def _page(start: int, count: int) -> list[Trade]:
    """``count`` BTC perpetual legs from number ``start``, one a second, pending clearing,
    with ids shaped like the venue's (36-character UUIDs)."""
    return [
        Trade(
            id=f"{i:08x}-7a1e-4c0d-9b2f-{i:012x}",
            source_rfq=f"{i:08x}-0d3c-4e5f-8a6b-{i:012x}",
            source_quote=f"{i:08x}-5e4d-4c3b-8a29-{i:012x}",
            company="0b6f3e5a-3c2d-4e1f-9a8b-7c6d5e4f3a2b",
            counterparty="5f1c2d3e-4a5b-4c6d-8e7f-8a9b0c1d2e3f",
            created_at=DAY_START + timedelta(seconds=i),
            side="buy" if i % 2 else "sell",
            instrument={"instrument_type": "perpetual_future", "underlying": "BTC"},
            price=Decimal("98000.5") + i,
            qty=Decimal("0.1"),
            pool_location="9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
            role="taker",
            status=PENDING,
        )
        for i in range(start, start + count)
    ]


def day_of_trades(count: int) -> list[TradeLeg]:
    """``count`` trade legs as the desk holds them: each page of models turned into legs as
    it comes, so no more than a page of models is ever alive."""
    legs = TradeLegs()
    day: list[TradeLeg] = []
    for start in range(0, count, PAGE):
        day += [legs.leg(trade) for trade in _page(start, min(PAGE, count - start))]
    return day
