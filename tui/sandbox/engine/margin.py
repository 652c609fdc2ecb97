"""The margin model: initial and maintenance margin of holdings, a party's money in a pool.

Initial margin (IM) and maintenance margin (MM) per holding, under **simple** parameters of the
holder's side of the pool (``asset_params[underlying]`` or ``default_asset_param``), with ``U``
the underlying price and ``P`` the instrument's mark:

- spot and futures: ``|qty| * U * max(futures_initial_margin, 1 / futures_leverage)``;
  MM ``|qty| * U * futures_maintenance_margin``.
- short options: per unit ``max(option_initial_margin * U - OTM, option_initial_margin_min * U)
  + P`` (OTM = how far out of the money the strike is); MM ``option_maintenance_margin * U + P``.
- long options: per unit ``min(P, option_initial_margin * U)``; MM ``min(P,
  option_maintenance_margin * U)`` -- a long option can lose at most its value.

Under **portfolio** parameters (an approximation of a scenario-based model), per underlying:
``MM = |net delta| * U * price_range + sum over options |qty| * |vega| * 100 * (vol_range_up for
shorts, vol_range_down for longs) + futures_contingency * sum |qty| U (delta-one) +
opt_contingency * sum |qty| U (options)``, and ``IM = MM * initial_margin_factor``; the
underlyings are summed (no offset between them).

A party's **equity** is its pool balance plus the uPNL of its positions (plus deposits on their
way for trades still clearing); what it may withdraw is free of initial margin and never more
than its balance (`PartyState`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from functools import cached_property
from typing import Any

from tui.api.models import (
    MarginUsage,
    PayoffType,
    PortfolioMarginParams,
    SimpleAsset,
    SimpleMarginParams,
    VanillaOptionInstrument,
)
from tui.sandbox.engine.records import instrument_key

__all__ = [
    "USDC_QUANTUM",
    "Holding",
    "PartyState",
    "margin_for",
    "margin_usage",
    "usdc_up",
]

USDC_QUANTUM = Decimal("0.000001")
"""USDC has 6 decimals: deposits, allowances and margin shortfalls are in whole base units."""

_ZERO = Decimal(0)


@dataclass(frozen=True)
class Holding:
    """A signed quantity of one instrument at an average entry price (held or hypothetical).

    ``cost`` is the exact cost basis (signed ``qty x price`` summed); None for a hypothetical
    fill or an old row, where it is ``qty x avg_entry_price``.
    """

    instrument: Any
    qty: Decimal
    avg_entry_price: Decimal
    cost: Decimal | None = None

    @cached_property
    def key(self) -> str:
        """The instrument key of this holding (computed once: margin reads it often)."""
        return instrument_key(self.instrument)

    @property
    def basis(self) -> Decimal:
        """The exact cost basis of the holding."""
        return self.cost if self.cost is not None else self.qty * self.avg_entry_price


def _simple_asset(params: SimpleMarginParams, underlying: str) -> SimpleAsset:
    return params.params.asset_params.get(underlying, params.params.default_asset_param)


def _otm_amount(instrument: VanillaOptionInstrument, underlying_price: Decimal) -> Decimal:
    if instrument.payoff == PayoffType.CALL:
        return max(_ZERO, instrument.strike - underlying_price)
    return max(_ZERO, underlying_price - instrument.strike)


def _simple_margin(
    params: SimpleMarginParams, holding: Holding, value: Any
) -> tuple[Decimal, Decimal]:
    asset = _simple_asset(params, holding.instrument.underlying)
    size = abs(holding.qty)
    under = Decimal(value.underlying_price)
    price = Decimal(value.price)
    if not isinstance(holding.instrument, VanillaOptionInstrument):
        im_rate = max(asset.futures_initial_margin, Decimal(1) / asset.futures_leverage)
        return size * under * im_rate, size * under * asset.futures_maintenance_margin
    if holding.qty < 0:
        otm = _otm_amount(holding.instrument, under)
        per_unit_im = max(
            asset.option_initial_margin * under - otm, asset.option_initial_margin_min * under
        )
        per_unit_mm = asset.option_maintenance_margin * under
        return size * (per_unit_im + price), size * (per_unit_mm + price)
    return (
        size * min(price, asset.option_initial_margin * under),
        size * min(price, asset.option_maintenance_margin * under),
    )


def _portfolio_margin(
    params: PortfolioMarginParams, holdings: list[Holding], values: dict[str, Any]
) -> tuple[Decimal, Decimal]:
    settings = params.params
    by_underlying: dict[str, list[Holding]] = {}
    for holding in holdings:
        by_underlying.setdefault(holding.instrument.underlying, []).append(holding)
    maintenance = _ZERO
    for underlying, group in by_underlying.items():
        asset = settings.asset_params.get(underlying, settings.default_asset_param)
        net_delta = _ZERO
        vol_risk = _ZERO
        delta_one = _ZERO
        options = _ZERO
        under = _ZERO
        for holding in group:
            value = values[holding.key]
            under = Decimal(value.underlying_price)
            net_delta += holding.qty * Decimal(value.delta)
            if isinstance(holding.instrument, VanillaOptionInstrument):
                vol_range = asset.vol_range_up if holding.qty < 0 else asset.vol_range_down
                vol_risk += abs(holding.qty) * abs(Decimal(value.vega)) * vol_range * 100
                options += abs(holding.qty) * under
            else:
                delta_one += abs(holding.qty) * under
        maintenance += (
            abs(net_delta) * under * asset.price_range
            + vol_risk
            + asset.futures_contingency * delta_one
            + asset.opt_contingency * options
        )
    return maintenance * settings.initial_margin_factor, maintenance


def margin_for(
    params: Any, holdings: Iterable[Holding], values: dict[str, Any]
) -> tuple[Decimal, Decimal] | None:
    """``(initial, maintenance)`` margin of ``holdings`` under ``params``.

    ``values`` maps instrument keys to valuations. None when the parameters are of a margin
    mode this sandbox does not model.
    """
    live = [h for h in holdings if h.qty != 0]
    if isinstance(params, SimpleMarginParams):
        initial = _ZERO
        maintenance = _ZERO
        for holding in live:
            im, mm = _simple_margin(params, holding, values[holding.key])
            initial += im
            maintenance += mm
        return initial, maintenance
    if isinstance(params, PortfolioMarginParams):
        return _portfolio_margin(params, live, values)
    return None


def usdc_up(value: Decimal) -> Decimal:
    """Round an amount of USDC up to whole base units (no trailing zeros: ``9850``, ``0``)."""
    rounded = value.quantize(USDC_QUANTUM, rounding=ROUND_CEILING)
    return rounded.normalize() if rounded else _ZERO


@dataclass(frozen=True)
class PartyState:
    """A party's money in one pool, as the margin engine sees it.

    ``incoming`` is money on its way into the pool for the trades counted (the deposits of
    trades still clearing): it backs their margin but is not in the balance yet.
    """

    balance: Decimal
    upnl: Decimal
    initial_margin: Decimal | None
    maintenance_margin: Decimal | None
    incoming: Decimal = _ZERO

    @property
    def equity(self) -> Decimal:
        """Balance plus uPNL plus deposits on their way: what backs the margin."""
        return self.balance + self.upnl + self.incoming

    @property
    def shortfall(self) -> Decimal:
        """USDC to deposit so that equity covers initial margin (0 when it does, or when the
        margin mode is not modelled), in whole base units."""
        if self.initial_margin is None:
            return _ZERO
        return usdc_up(max(_ZERO, self.initial_margin - self.equity))

    @property
    def below_maintenance(self) -> bool:
        """Whether equity no longer covers maintenance margin (a liquidation case)."""
        return self.maintenance_margin is not None and self.equity < self.maintenance_margin

    @property
    def max_withdrawable(self) -> Decimal:
        """What may leave the pool without breaking initial margin (gains stay in)."""
        free = self.equity - (self.initial_margin or _ZERO)
        amount = max(_ZERO, min(self.balance, free)).quantize(USDC_QUANTUM, rounding="ROUND_FLOOR")
        return amount.normalize() if amount else _ZERO


def margin_usage(initial: Decimal, maintenance: Decimal) -> MarginUsage:
    """A `MarginUsage` rounded up to USDC base units."""
    return MarginUsage(initial_margin=usdc_up(initial), maintenance_margin=usdc_up(maintenance))
