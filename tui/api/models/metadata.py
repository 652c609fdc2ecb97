"""What the venue says about itself: its status and clock, its assets, its public statistics."""

from __future__ import annotations

from pydantic import Field

from tui.api.models.base import NullAsDefault, Record
from tui.api.models.values import ApiRoleValue
from tui.api.types import DecimalStr, Timestamp


class AuthInfo(Record):
    """Who the server thinks is calling."""

    key_id: str
    company_id: str
    role: ApiRoleValue


class Status(Record):
    """Server liveness, its clock, and the caller's identity when headers were sent."""

    auth: AuthInfo | None = None
    server_timestamp_ms: int


class PrecisionRequirements(Record):
    """How precisely an asset's prices and sizes may be written."""

    min_decimal_figures: int | None = None
    max_decimal_only_figures: int | None = None
    max_significant_figures: int | None = None


class FundingRateParams(Record):
    """Piecewise-linear funding curve of an asset against open-interest imbalance."""

    normal_threshold: DecimalStr
    high_threshold: DecimalStr
    extreme_threshold: DecimalStr
    normal_slope: DecimalStr
    high_slope: DecimalStr
    extreme_slope: DecimalStr
    min_imbalance_dollars: DecimalStr
    funding_exponent_factor: DecimalStr


class SupportedAssetDetails(Record):
    """Token metadata of a tradeable underlying."""

    asset: str
    name: str
    is_dex: NullAsDefault[bool] = False
    address: str | None = None
    verified: NullAsDefault[bool] = True
    precision_requirements: PrecisionRequirements | None = None
    min_qty_tick: DecimalStr | None = None
    variational_funding_rate_params: FundingRateParams | None = None


SupportedAssets = dict[str, list[SupportedAssetDetails]]
"""The ``result`` of ``GET /v1/metadata/supported_assets``: each asset's details, by ticker."""


class BidAsk(Record):
    """A bid and an ask price at one notional size."""

    bid: DecimalStr
    ask: DecimalStr


class ListingQuotes(Record):
    """Indicative prices of a listing at three sizes, and when they were last refreshed."""

    updated_at: Timestamp | None = None
    size_1k: BidAsk | None = None
    size_100k: BidAsk | None = None
    size_1m: BidAsk | None = None


class OpenInterest(Record):
    """Long and short open interest of a listing."""

    long_open_interest: DecimalStr
    short_open_interest: DecimalStr


class Listing(Record):
    """Public statistics of one perpetual market."""

    ticker: str
    name: str
    mark_price: DecimalStr
    volume_24h: DecimalStr
    open_interest: OpenInterest
    funding_rate: DecimalStr
    funding_interval_s: int
    base_spread_bps: DecimalStr
    quotes: ListingQuotes


class LossRefund(Record):
    """The loss-refund pool and what it paid out in the last day."""

    pool_size: DecimalStr
    refunded_24h: DecimalStr


class MarketStats(Record):
    """The public statistics record of ``GET /metadata/stats``."""

    total_volume_24h: DecimalStr
    cumulative_volume: DecimalStr
    tvl: DecimalStr
    open_interest: DecimalStr
    num_markets: int
    loss_refund: LossRefund | None = None
    listings: NullAsDefault[list[Listing]] = Field(default_factory=list)
