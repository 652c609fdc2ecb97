"""A company's statements: the ``/portfolio`` reads (assets, positions, trades, summary).

Every figure is the caller company's own; a ``pool`` filter naming a pool the company is not a
party of answers an empty page, as for an unknown one. Positions and trades page oldest first.
"""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import USDC, AggregatedPosition, Asset, PortfolioSummary, Position, Trade
from tui.sandbox.engine.market_api import MarketApi
from tui.sandbox.engine.pools import visible_pool
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import other_party, own_records
from tui.sandbox.engine.store import Store

__all__ = ["Statements"]

_ZERO = Decimal(0)


class Statements:
    """The ``/portfolio`` endpoints over the store, the portfolio and the market."""

    def __init__(self, store: Store, portfolio: Portfolio, market: MarketApi) -> None:
        self.store = store
        self.portfolio = portfolio
        self.market = market

    def assets(
        self, me: str, *, limit: int, offset: int, pool: str | None
    ) -> tuple[list[Asset], bool]:
        """USDC held in one pool, or (no ``pool``) one row per asset summed over all pools."""
        if pool is not None:
            found = visible_pool(self.store, me, pool)
            if found is None:
                return [], False
            assets = [
                Asset(
                    company=me,
                    pool_location=pool,
                    counterparty=other_party(found, me),
                    asset=USDC,
                    qty=self.portfolio.balance(pool, me),
                )
            ]
        else:
            has_pool = self.store.scalar(
                "SELECT 1 FROM pools WHERE creator = ? OR other = ? LIMIT 1", (me, me)
            )
            totals: dict[str, Decimal] = {USDC: _ZERO} if has_pool else {}
            for _, asset, qty in self.portfolio.balances_of(me):
                totals[asset] = totals.get(asset, _ZERO) + qty
            assets = [Asset(company=me, asset=a, qty=q) for a, q in totals.items()]
        window = assets[offset : offset + limit]
        return window, len(assets) > offset + limit

    def positions(
        self, me: str, *, limit: int, offset: int, pool: str | None
    ) -> tuple[list[Position], bool]:
        """``me``'s open positions (one pool, or all), oldest first."""
        if pool is not None and visible_pool(self.store, me, pool) is None:
            return [], False
        return self.portfolio.position_page(me, pool_id=pool, limit=limit, offset=offset)

    def aggregated_positions(
        self, me: str, *, limit: int, offset: int
    ) -> tuple[list[AggregatedPosition], bool]:
        """``me``'s open positions valued at the mark (greeks times qty, uPNL, notional)."""
        items, more = self.portfolio.position_page(me, pool_id=None, limit=limit, offset=offset)
        return [self.market.aggregate_position(p) for p in items], more

    def trades(
        self, me: str, *, limit: int, offset: int, pool: str | None, id: str | None
    ) -> tuple[list[Trade], bool]:
        """``me``'s side of every booked trade leg, oldest first."""
        rows, more = own_records(
            self.store, "trades", me, limit=limit, offset=offset, pool=pool, id=id
        )
        return [Trade.model_validate(r) for r in rows], more

    def summary(self, me: str) -> PortfolioSummary:
        """Balance over all pools, and uPNL, notional and greeks of every open position.

        Dollar delta = delta x underlying price; dollar gamma = gamma x price^2 / 100 (the
        change of dollar delta for a 1 % move), summed over underlyings.
        """
        balance = sum((q for _, _, q in self.portfolio.balances_of(me)), _ZERO)
        return self.market.portfolio_summary(balance, self.portfolio.positions_of(me))
