"""The sandbox's listed markets: static specs per underlying, and their public metadata.

Everything here is fixed data (start price, volatility, tick, spread, funding curve, token
metadata); what moves lives in `tui.sandbox.market.marks`. Keeping the table apart lets tests and
demos build a market from their own listings, and lets a snapshot carry the specs it ran with.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tui.api.models import (
    USDC,
    FundingRateParams,
    PrecisionRequirements,
    SupportedAssetDetails,
)

__all__ = [
    "DEFAULT_LISTINGS",
    "USDC_ADDRESS",
    "ListingSpec",
    "asset_details",
    "spec_from_json",
    "spec_to_json",
    "token_address",
    "usdc_details",
]


def token_address(ticker: str) -> str:
    """A fake but stable token address for ``ticker``: lowercase ``0x`` + 40 hex digits.

    Derived from a hash of the ticker, so every sandbox (and every restart) shows the same one.
    """
    digest = hashlib.sha256(f"rfq-desk-sandbox-token:{ticker}".encode()).hexdigest()
    return "0x" + digest[:40]


USDC_ADDRESS = token_address(USDC)
"""The sandbox's USDC token address (the settlement and transfer asset)."""


@dataclass(frozen=True)
class ListingSpec:
    """Static data of one listed underlying (a perpetual market with options and futures on it).

    ``annual_vol`` drives the mark's random walk; ``option_vol`` is the implied vol options are
    priced at. ``base_spread_bps`` is the full bid-ask spread at the smallest size; it widens
    with notional on the scale of ``depth_notional`` (USDC). ``funding_interval_s`` is how often
    the perpetual pays funding, and the funding rate is quoted per interval.
    """

    ticker: str
    name: str
    start_price: Decimal
    annual_vol: Decimal
    tick: Decimal
    min_qty_tick: Decimal
    base_spread_bps: Decimal
    funding_interval_s: int
    major: bool
    option_vol: Decimal
    funding_params: FundingRateParams
    precision: PrecisionRequirements
    is_dex: bool
    address: str
    verified: bool = True
    depth_notional: Decimal = Decimal(100_000)

    def __hash__(self) -> int:
        # The funding and precision models are not hashable; the ticker identifies a listing.
        return hash(self.ticker)

    def __post_init__(self) -> None:
        for field_name in ("start_price", "annual_vol", "tick", "min_qty_tick", "option_vol"):
            if getattr(self, field_name) <= 0:
                raise ValueError(f"{self.ticker}: {field_name} must be greater than 0")
        if self.base_spread_bps < 0:
            raise ValueError(f"{self.ticker}: base_spread_bps must not be negative")
        if self.funding_interval_s <= 0:
            raise ValueError(f"{self.ticker}: funding_interval_s must be greater than 0")
        if self.depth_notional <= 0:
            raise ValueError(f"{self.ticker}: depth_notional must be greater than 0")


def _funding(
    normal: str, high: str, extreme: str, slopes: tuple[str, str, str], min_imbalance: str
) -> FundingRateParams:
    return FundingRateParams(
        normal_threshold=Decimal(normal),
        high_threshold=Decimal(high),
        extreme_threshold=Decimal(extreme),
        normal_slope=Decimal(slopes[0]),
        high_slope=Decimal(slopes[1]),
        extreme_slope=Decimal(slopes[2]),
        min_imbalance_dollars=Decimal(min_imbalance),
        funding_exponent_factor=Decimal(3),
    )


_MAJOR_FUNDING = _funding("0.1", "0.3", "0.6", ("0.0001", "0.0003", "0.001"), "250000")
_SMALL_FUNDING = _funding("0.1", "0.25", "0.5", ("0.00015", "0.0005", "0.0015"), "50000")


def _listing(
    ticker: str,
    name: str,
    price: str,
    vol: str,
    tick: str,
    qty_tick: str,
    spread_bps: str,
    *,
    major: bool = False,
    funding_interval_s: int = 3600,
    sig_figs: int = 6,
    is_dex: bool = False,
    verified: bool = True,
) -> ListingSpec:
    tick_decimal = Decimal(tick)
    decimals = max(0, -tick_decimal.as_tuple().exponent)  # type: ignore[operator]
    return ListingSpec(
        ticker=ticker,
        name=name,
        start_price=Decimal(price),
        annual_vol=Decimal(vol),
        tick=tick_decimal,
        min_qty_tick=Decimal(qty_tick),
        base_spread_bps=Decimal(spread_bps),
        funding_interval_s=funding_interval_s,
        major=major,
        # Options trade a few vol points over realized, as they usually do.
        option_vol=Decimal(vol) + Decimal("0.05"),
        funding_params=_MAJOR_FUNDING if major else _SMALL_FUNDING,
        precision=PrecisionRequirements(
            min_decimal_figures=decimals,
            max_decimal_only_figures=8,
            max_significant_figures=sig_figs,
        ),
        is_dex=is_dex,
        address=token_address(ticker),
        verified=verified,
        depth_notional=Decimal(1_000_000) if major else Decimal(100_000),
    )


DEFAULT_LISTINGS: tuple[ListingSpec, ...] = (
    _listing("BTC", "Bitcoin", "98500", "0.50", "0.1", "0.0001", "1.5", major=True, sig_figs=7),
    _listing("ETH", "Ethereum", "3450", "0.65", "0.01", "0.001", "2", major=True),
    _listing("SOL", "Solana", "168", "0.85", "0.001", "0.01", "3", major=True),
    _listing("DOGE", "Dogecoin", "0.184", "1.00", "0.00001", "1", "6", sig_figs=5),
    _listing("AVAX", "Avalanche", "19.8", "0.95", "0.001", "0.1", "6", sig_figs=5),
    _listing("LINK", "Chainlink", "16.4", "0.90", "0.001", "0.1", "5", sig_figs=5),
    _listing("SUI", "Sui", "2.35", "1.10", "0.0001", "1", "7", sig_figs=5),
    _listing("ARB", "Arbitrum", "0.348", "1.05", "0.0001", "1", "8", funding_interval_s=28800),
    _listing(
        "WIF",
        "dogwifhat",
        "0.612",
        "1.40",
        "0.0001",
        "1",
        "10",
        funding_interval_s=28800,
        sig_figs=4,
        is_dex=True,
        verified=False,
    ),
)
"""The sandbox's markets: three majors (BTC, ETH, SOL) and six smaller perpetuals."""


def asset_details(spec: ListingSpec) -> SupportedAssetDetails:
    """The ``supported_assets`` record of a listed underlying."""
    return SupportedAssetDetails(
        asset=spec.ticker,
        name=spec.name,
        is_dex=spec.is_dex,
        address=spec.address,
        verified=spec.verified,
        precision_requirements=spec.precision,
        min_qty_tick=spec.min_qty_tick,
        variational_funding_rate_params=spec.funding_params,
    )


def usdc_details() -> SupportedAssetDetails:
    """The ``supported_assets`` record of USDC, the settlement asset (no funding curve)."""
    return SupportedAssetDetails(
        asset=USDC,
        name="USD Coin",
        is_dex=False,
        address=USDC_ADDRESS,
        verified=True,
        precision_requirements=PrecisionRequirements(
            min_decimal_figures=2, max_decimal_only_figures=6, max_significant_figures=15
        ),
        min_qty_tick=Decimal("0.000001"),
        variational_funding_rate_params=None,
    )


_DECIMAL_FIELDS = (
    "start_price",
    "annual_vol",
    "tick",
    "min_qty_tick",
    "base_spread_bps",
    "option_vol",
    "depth_notional",
)


def spec_to_json(spec: ListingSpec) -> dict[str, Any]:
    """A JSON-ready dict of a spec (decimals as strings), for market snapshots."""
    out: dict[str, Any] = {
        "ticker": spec.ticker,
        "name": spec.name,
        "funding_interval_s": spec.funding_interval_s,
        "major": spec.major,
        "is_dex": spec.is_dex,
        "address": spec.address,
        "verified": spec.verified,
        "funding_params": spec.funding_params.model_dump(mode="json"),
        "precision": spec.precision.model_dump(mode="json"),
    }
    for field_name in _DECIMAL_FIELDS:
        out[field_name] = format(getattr(spec, field_name), "f")
    return out


def spec_from_json(data: dict[str, Any]) -> ListingSpec:
    """The spec `spec_to_json` wrote; raises ValueError naming a missing or bad field."""
    try:
        return ListingSpec(
            ticker=str(data["ticker"]),
            name=str(data["name"]),
            funding_interval_s=int(data["funding_interval_s"]),
            major=bool(data["major"]),
            is_dex=bool(data["is_dex"]),
            address=str(data["address"]),
            verified=bool(data.get("verified", True)),
            funding_params=FundingRateParams.model_validate(data["funding_params"]),
            precision=PrecisionRequirements.model_validate(data["precision"]),
            **{name: Decimal(str(data[name])) for name in _DECIMAL_FIELDS},
        )
    except KeyError as missing:
        raise ValueError(f"listing spec is missing {missing.args[0]!r}") from None
