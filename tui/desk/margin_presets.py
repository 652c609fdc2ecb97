"""Margin-parameter presets for new settlement pools, so a quote or a pool is one keypress away.

Each preset gives the `MarginParams` of both sides of a pool (the desk proposes the same terms to
itself and the counterparty). Values are fractions of notional; they are validated by the request
models like anything else the desk sends. The models of a preset are built at its first
`preset` call (the pickers list the names before any model is loaded), then kept.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import cache, partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.api.models import PortfolioMarginParams, SimpleMarginParams

D = Decimal


def _simple(
    im: str, mm: str, leverage: str, opt_im: str, opt_min: str, opt_mm: str, penalty: str
) -> SimpleMarginParams:
    from tui.api.models import SimpleAsset, SimpleMarginParams, SimpleMarginSettings

    asset = SimpleAsset(
        futures_initial_margin=D(im),
        futures_maintenance_margin=D(mm),
        futures_leverage=D(leverage),
        option_initial_margin=D(opt_im),
        option_initial_margin_min=D(opt_min),
        option_maintenance_margin=D(opt_mm),
    )
    return SimpleMarginParams(
        params=SimpleMarginSettings(
            default_asset_param=asset, liquidation_penalty=D(penalty), auto_liquidation=True
        )
    )


def _portfolio() -> PortfolioMarginParams:
    from tui.api.models import PortfolioAsset, PortfolioMarginParams, PortfolioMarginSettings

    asset = PortfolioAsset(
        vol_range_up=D("0.3"),
        vol_range_down=D("0.2"),
        short_vega_power=D("0.5"),
        long_vega_power=D("0.5"),
        price_range=D("0.15"),
        opt_sum_contingency=D("0.01"),
        opt_contingency=D("0.01"),
        futures_contingency=D("0.005"),
        atm_range=D("0.05"),
    )
    return PortfolioMarginParams(
        params=PortfolioMarginSettings(
            default_asset_param=asset,
            decorrelation_risk=D("0.1"),
            initial_margin_factor=D("1.3"),
            liquidation_penalty=D("0.01"),
            auto_liquidation=True,
        )
    )


MARGIN_PRESETS: dict[str, Callable[[], SimpleMarginParams | PortfolioMarginParams]] = {
    "standard": partial(_simple, "0.1", "0.05", "10", "0.15", "0.05", "0.08", "0.01"),
    "conservative": partial(_simple, "0.2", "0.1", "5", "0.25", "0.1", "0.15", "0.02"),
    "aggressive": partial(_simple, "0.05", "0.025", "20", "0.1", "0.03", "0.05", "0.01"),
    "portfolio": _portfolio,
}
"""Named margin terms, each the builder of its params (`preset` builds and keeps them);
``standard`` is the default."""

DEFAULT_PRESET = "standard"

PRESET_NOTES: dict[str, str] = {
    "standard": "simple margin, futures IM 10% / MM 5%, 10x",
    "conservative": "simple margin, futures IM 20% / MM 10%, 5x",
    "aggressive": "simple margin, futures IM 5% / MM 2.5%, 20x",
    "portfolio": "portfolio margin, price range 15%, IM factor 1.3",
}
"""One line per preset, for the pickers."""


@cache
def preset(name: str) -> SimpleMarginParams | PortfolioMarginParams:
    """The margin params of a preset, built at the first call; a KeyError names an unknown
    one."""
    return MARGIN_PRESETS[name]()
