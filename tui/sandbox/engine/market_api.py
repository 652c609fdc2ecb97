"""What the engine asks of the market (`tui.sandbox.market.marks.Market`), as protocols.

The engine values positions, prices structures and publishes statistics through these calls
only, so a test may hand it any object that answers them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

from tui.api.models import (
    AggregatedPosition,
    MarketStats,
    PortfolioSummary,
    Position,
    StructurePrice,
    SupportedAssetDetails,
)

__all__ = ["MarketApi", "Valuation", "ValuationSource"]


class Valuation(Protocol):
    """What the market says about one unit of an instrument."""

    price: Decimal
    underlying_price: Decimal
    iv: Decimal | None
    delta: Decimal
    gamma: Decimal
    theta: Decimal
    vega: Decimal
    rho: Decimal


class ValuationSource(Protocol):
    """The part of the market the portfolio needs: one unit of an instrument, valued."""

    def value(self, instrument: Any) -> Any:
        """Price and greeks of one unit of ``instrument``."""


class MarketApi(Protocol):
    """The part of the market the exchange uses."""

    def underlyings(self) -> list[str]:
        """Listed tickers."""

    def mark_price(self, underlying: str) -> Decimal:
        """The current mark of an underlying."""

    def spec(self, underlying: str) -> Any:
        """Static listing spec (``min_qty_tick`` ...)."""

    def value(self, instrument: Any) -> Any:
        """Valuation of one unit."""

    def structure_price(self, structure: Any, qty: Decimal | None = None) -> StructurePrice:
        """Price and greeks of a structure."""

    def aggregate_position(self, position: Position) -> AggregatedPosition:
        """A position valued at the mark."""

    def portfolio_summary(self, balance: Decimal, positions: Any) -> PortfolioSummary:
        """A whole portfolio valued at the mark."""

    def supported_assets(
        self, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """Token metadata by ticker."""

    def stats(self, activity: Any) -> MarketStats:
        """The public statistics record."""

    def snapshot(self) -> dict[str, Any]:
        """JSON-able state for a restart."""
