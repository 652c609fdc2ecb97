"""What a structure, a position and a portfolio are worth, from the unit values of their legs.

Pure arithmetic over `tui.sandbox.market.marks.Valuation` (price and greeks of ONE unit at a
mark): `Market` reads the marks and calls these. Sums that cancel read ``0``, never ``-0``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tui.api.models import (
    AggregatedPosition,
    PortfolioSummary,
    Position,
    Structure,
    StructurePrice,
    TradeSide,
)

if TYPE_CHECKING:
    from tui.sandbox.market.marks import Valuation

__all__ = ["aggregate_position", "portfolio_summary", "structure_price"]

_MONEY_QUANTUM = Decimal("1e-8")
_NATIVE_QUANTUM = Decimal("1e-8")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ZERO = Decimal(0)


def _clean(value: Decimal) -> Decimal:
    """``-0`` as ``0``: a sum of greeks that cancels should not read as negative."""
    return value if value != 0 else abs(value)


def structure_price(
    value_at: Callable[[Any, int], Valuation],
    structure: Structure,
    when_ms: int,
    qty: Decimal | None = None,
) -> StructurePrice:
    """Price and greeks of a structure, every leg valued by ``value_at`` at ``when_ms``.

    ``price`` is the value of ONE structure unit: the sum over legs of ``+ratio`` (buy) or
    ``-ratio`` (sell) times the leg's unit price; ``native_price`` is that price in units
    of the first leg's underlying (price / its mark). Greeks are summed the same way, per
    structure unit, or for ``qty`` structure units when ``qty`` is given (the risk of the
    whole RFQ); the prices stay per unit so they compare with quotes. All legs are valued
    at one instant, which is ``timestamp``. Raises ValueError for an unlisted underlying.
    """
    totals = dict.fromkeys(("price", "delta", "gamma", "theta", "vega", "rho"), _ZERO)
    first_mark: Decimal | None = None
    for leg in structure.legs:
        valuation = value_at(leg.instrument, when_ms)
        if first_mark is None:
            first_mark = valuation.underlying_price
        weight = Decimal(leg.ratio if leg.side == TradeSide.BUY else -leg.ratio)
        for name in totals:
            totals[name] += weight * getattr(valuation, name)
    scale = Decimal(1) if qty is None else qty
    assert first_mark is not None  # a Structure has at least one leg
    return StructurePrice(
        price=_clean(totals["price"]),
        native_price=_clean((totals["price"] / first_mark).quantize(_NATIVE_QUANTUM)),
        delta=_clean(totals["delta"] * scale),
        gamma=_clean(totals["gamma"] * scale),
        theta=_clean(totals["theta"] * scale),
        vega=_clean(totals["vega"] * scale),
        rho=_clean(totals["rho"] * scale),
        timestamp=_EPOCH + timedelta(milliseconds=when_ms),
    )


def aggregate_position(valuation: Valuation, position: Position) -> AggregatedPosition:
    """A position valued at one unit's ``valuation``: greeks times signed qty, uPNL, notional.

    ``upnl = qty * (price - avg_entry_price)``; ``notional = |qty| * underlying mark``.
    """
    qty = position.qty
    return AggregatedPosition(
        price=valuation.price,
        underlying_price=valuation.underlying_price,
        iv=valuation.iv,
        sum_delta=_clean(qty * valuation.delta),
        sum_gamma=_clean(qty * valuation.gamma),
        sum_theta=_clean(qty * valuation.theta),
        sum_vega=_clean(qty * valuation.vega),
        sum_rho=_clean(qty * valuation.rho),
        upnl=_clean((qty * (valuation.price - position.avg_entry_price)).quantize(_MONEY_QUANTUM)),
        notional=(abs(qty) * valuation.underlying_price).quantize(_MONEY_QUANTUM),
        position_info=position,
    )


def portfolio_summary(
    balance: Decimal, positions: Iterable[AggregatedPosition]
) -> PortfolioSummary:
    """A company's balance plus the summed risk of its valued positions.

    Dollar delta is ``delta * mark`` (USDC per 100 % move, i.e. the USDC exposure);
    dollar gamma is ``gamma * mark**2 / 100`` (change of dollar delta for a 1 % move).
    Greeks of different underlyings are simply added, as the record asks.
    """
    sums = dict.fromkeys(
        ("upnl", "notional", "delta", "gamma", "theta", "vega", "rho", "ddelta", "dgamma"),
        _ZERO,
    )
    for agg in positions:
        mark = agg.underlying_price or _ZERO
        sums["upnl"] += agg.upnl
        sums["notional"] += agg.notional
        sums["delta"] += agg.sum_delta
        sums["gamma"] += agg.sum_gamma
        sums["theta"] += agg.sum_theta
        sums["vega"] += agg.sum_vega
        sums["rho"] += agg.sum_rho
        sums["ddelta"] += agg.sum_delta * mark
        sums["dgamma"] += agg.sum_gamma * mark * mark / 100
    return PortfolioSummary(
        sum_balance=balance,
        sum_upnl=_clean(sums["upnl"]),
        sum_notional=sums["notional"],
        sum_delta=_clean(sums["delta"]),
        sum_gamma=_clean(sums["gamma"]),
        sum_theta=_clean(sums["theta"]),
        sum_vega=_clean(sums["vega"]),
        sum_rho=_clean(sums["rho"]),
        sum_dollar_delta=_clean(sums["ddelta"].quantize(_MONEY_QUANTUM)),
        sum_dollar_gamma=_clean(sums["dgamma"].quantize(_MONEY_QUANTUM)),
    )
