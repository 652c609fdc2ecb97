"""What the venue did, for the public statistics: volumes, open interest and pool balances.

Volume counts each booked leg once (its taker side) at ``qty x underlying price`` at booking.
Open interest is measured on the takers' side, as a venue whose makers are liquidity providers
reports it: the USDC notional (``|taker qty| x underlying mark``) of what takers hold long and
short. Counting both sides of every pool instead would make long always equal short and the
funding rate, which feeds on their imbalance, always zero.
"""

from __future__ import annotations

from decimal import Decimal

from tui.sandbox.engine.market_api import MarketApi
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.store import Store
from tui.sandbox.market.statistics import MarketActivity

__all__ = ["market_activity"]

_ZERO = Decimal(0)
_DAY_MS = 86_400_000


def market_activity(
    store: Store, portfolio: Portfolio, market: MarketApi, now_ms: int
) -> MarketActivity:
    """The venue's activity at ``now_ms``, from the trades, positions and pools in the store."""
    volume_24h: dict[str, Decimal] = {}
    for row in store.all(
        "SELECT underlying, notional FROM trades WHERE role = 'taker' AND created_ms > ?",
        (now_ms - _DAY_MS,),
    ):
        volume_24h[row[0]] = volume_24h.get(row[0], _ZERO) + Decimal(row[1])
    cumulative = sum(
        (Decimal(r[0]) for r in store.all("SELECT notional FROM trades WHERE role = 'taker'")),
        _ZERO,
    )
    long_oi: dict[str, Decimal] = {}
    short_oi: dict[str, Decimal] = {}
    marks: dict[str, Decimal] = {}
    for row in store.all("SELECT underlying, taker_qty FROM positions"):
        underlying, qty = row[0], Decimal(row[1])
        if underlying not in marks:
            marks[underlying] = market.mark_price(underlying)
        if qty == 0:
            continue
        book = long_oi if qty > 0 else short_oi
        book[underlying] = book.get(underlying, _ZERO) + abs(qty) * marks[underlying]
    return MarketActivity(
        volume_24h=volume_24h,
        cumulative_volume=cumulative,
        long_open_interest=long_oi,
        short_open_interest=short_oi,
        pool_balances=portfolio.total_pool_balances(),
    )
