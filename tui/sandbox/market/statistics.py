"""The public market statistics: indicative quotes, funding, the LP vault, the refund pool.

What the exchange did (volumes, open interest, pool balances, refunds) comes in as
`MarketActivity`; `MarketStatistics` adds what the market simulates itself (an LP vault, the
loss-refund pool's base, indicative quotes refreshed on a seeded cadence) and writes the public
`MarketStats` record.

Conventions:

- Open interest in `MarketActivity` is USDC notional per side; total open interest in the
  stats is long plus short over all listings.
- Funding rates are per funding interval (see `tui.sandbox.market.funding`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING

from tui.api.models import BidAsk, Listing, ListingQuotes, LossRefund, MarketStats, OpenInterest
from tui.sandbox.market import pricing
from tui.sandbox.market.funding import funding_rate as curve_funding_rate
from tui.sandbox.market.pricepath import BrownianPath, seeded_int

if TYPE_CHECKING:
    from tui.sandbox.market.marks import Market

__all__ = [
    "LOSS_REFUND_FEE_SHARE",
    "LP_VAULT_VOL",
    "QUOTE_REFRESH_MAX_S",
    "QUOTE_REFRESH_MIN_S",
    "QUOTE_SIZES",
    "MarketActivity",
    "MarketStatistics",
]

QUOTE_SIZES: tuple[tuple[str, Decimal, bool], ...] = (
    ("size_1k", Decimal(1_000), False),
    ("size_100k", Decimal(100_000), False),
    ("size_1m", Decimal(1_000_000), True),
)
"""The public stats' quote sizes: (field, USDC notional, majors only)."""

QUOTE_REFRESH_MIN_S = 30
QUOTE_REFRESH_MAX_S = 120
"""Indicative quotes are refreshed every 30-120 s (seeded per listing), so ``updated_at`` lags
``now`` by at most two minutes, well inside the interface's 600 s."""

LP_VAULT_VOL = 0.08
"""Annual volatility of the simulated LP vault's value."""

LOSS_REFUND_FEE_SHARE = Decimal("0.00005")
"""Share of cumulative volume (0.5 bp) that has flowed into the loss-refund pool."""

_USD_QUANTUM = Decimal("0.01")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ZERO = Decimal(0)
_VAULT_KEY = "lp-vault"
_VAULT_STEP_S = 60


@dataclass
class MarketActivity:
    """What happened on the exchange, as the exchange computed it from its store.

    Volumes and balances are USDC. Open interest is USDC notional per underlying and side.
    ``refunded_total`` (an addition) is every loss refund ever paid; it is taken out of the
    loss-refund pool.
    """

    volume_24h: dict[str, Decimal] = field(default_factory=dict)
    cumulative_volume: Decimal = _ZERO
    long_open_interest: dict[str, Decimal] = field(default_factory=dict)
    short_open_interest: dict[str, Decimal] = field(default_factory=dict)
    pool_balances: Decimal = _ZERO
    refunded_24h: Decimal = _ZERO
    refunded_total: Decimal = _ZERO


class MarketStatistics:
    """The public side of one `Market`: quotes, funding, vault and refund pool, the stats record.

    Seeded like the market it describes (its vault walk is checkpointed with the market's).
    """

    def __init__(self, market: Market) -> None:
        self.market = market
        seed = market.seed
        self.vault_path = BrownianPath(seed, _VAULT_KEY)
        self._vault_base = Decimal(7_500_000 + seeded_int(seed, "vault-base") % 5_000_000)
        self._refund_base = Decimal(150_000 + seeded_int(seed, "refund-base") % 100_000)
        self._refresh = {t: self._refresh_schedule(t) for t in market.underlyings()}

    # ---- quotes and funding ---------------------------------------------------------------

    def spread_bps(self, underlying: str, notional: Decimal) -> Decimal:
        """Full bid-ask spread in bps at ``notional`` USDC: widens with the root of size.

        ``base_spread_bps * (1 + sqrt(notional / depth_notional))``: a major at 1m is twice
        its base, a small cap at 100k twice its base.
        """
        spec = self.market.spec(underlying)
        if notional <= 0:
            raise ValueError("notional must be greater than 0")
        return spec.base_spread_bps * (1 + (notional / spec.depth_notional).sqrt())

    def quote_around(
        self, underlying: str, mark: Decimal, notional: Decimal
    ) -> tuple[Decimal, Decimal]:
        """Bid and ask for ``notional`` USDC around ``mark`` (bid < mark < ask)."""
        spec = self.market.spec(underlying)
        half = mark * self.spread_bps(underlying, notional) / Decimal(20_000)
        bid = (mark - half).quantize(spec.tick, rounding=ROUND_FLOOR)
        ask = (mark + half).quantize(spec.tick, rounding=ROUND_CEILING)
        # At least one tick either side, and never a bid at or below zero.
        bid = min(bid, mark - spec.tick)
        if bid <= 0:
            bid = spec.tick
        ask = max(ask, mark + spec.tick)
        return bid, ask

    def funding_rate(self, underlying: str, long_oi: Decimal, short_oi: Decimal) -> Decimal:
        """Funding per interval for this open interest (USDC notional), on the asset's curve.

        Positive: longs pay shorts. Formula in `tui.sandbox.market.funding`. KeyError if not
        listed, ValueError for negative open interest.
        """
        return curve_funding_rate(self.market.spec(underlying).funding_params, long_oi, short_oi)

    def _refresh_schedule(self, ticker: str) -> tuple[int, int]:
        seed = self.market.seed
        span = QUOTE_REFRESH_MAX_S - QUOTE_REFRESH_MIN_S + 1
        cadence_s = QUOTE_REFRESH_MIN_S + seeded_int(seed, "quote-cadence", ticker) % span
        phase_s = seeded_int(seed, "quote-phase", ticker) % cadence_s
        return cadence_s * 1000, phase_s * 1000

    def quote_refreshed_at(self, underlying: str, when_ms: int | None = None) -> int:
        """When the cached indicative quotes of ``underlying`` were last refreshed (Unix ms).

        Refreshes happen on a fixed seeded cadence of 30-120 s per listing, so the answer is
        never later than ``when_ms`` (default now) and never more than 120 s before it.
        """
        now_ms = self.market.clock.now_ms() if when_ms is None else when_ms
        self.market.spec(underlying)
        cadence_ms, phase_ms = self._refresh[underlying]
        anchor = self.market.epoch_ms + phase_ms
        return anchor + (now_ms - anchor) // cadence_ms * cadence_ms

    def listing_quotes(self, underlying: str, when_ms: int | None = None) -> ListingQuotes:
        """The public quotes of a listing as last refreshed: around the mark of that moment."""
        refreshed_ms = self.quote_refreshed_at(underlying, when_ms)
        mark = self.market.mark_price_at(underlying, refreshed_ms)
        major = self.market.spec(underlying).major
        sizes: dict[str, BidAsk] = {}
        for name, notional, majors_only in QUOTE_SIZES:
            if majors_only and not major:
                continue
            bid, ask = self.quote_around(underlying, mark, notional)
            sizes[name] = BidAsk(bid=bid, ask=ask)
        return ListingQuotes(updated_at=_EPOCH + timedelta(milliseconds=refreshed_ms), **sizes)

    # ---- the vault, the refund pool, the record -------------------------------------------

    def lp_vault(self, when_ms: int | None = None) -> Decimal:
        """The simulated LP vault's value in USDC: a seeded base drifting slowly (8 %/yr vol)."""
        now_ms = self.market.clock.now_ms() if when_ms is None else when_ms
        step = (now_ms - self.market.epoch_ms) // (_VAULT_STEP_S * 1000)
        step_years = _VAULT_STEP_S / pricing.SECONDS_PER_YEAR
        move = LP_VAULT_VOL * math.sqrt(step_years) * self.vault_path.at(step)
        return (self._vault_base * Decimal(math.exp(move))).quantize(_USD_QUANTUM)

    def loss_refund_pool(self, activity: MarketActivity) -> Decimal:
        """The loss-refund pool: a seeded base, plus its fee share of volume, less refunds."""
        pool = (
            self._refund_base
            + LOSS_REFUND_FEE_SHARE * activity.cumulative_volume
            - activity.refunded_total
        )
        return max(pool, _ZERO).quantize(_USD_QUANTUM)

    def stats(self, activity: MarketActivity) -> MarketStats:
        """The public statistics record at the current time, from the exchange's activity.

        ``tvl`` is pool balances plus the LP vault; ``open_interest`` is long plus short over
        every listing; ``num_markets`` counts the listed perpetuals.
        """
        market = self.market
        now_ms = market.clock.now_ms()
        listings: list[Listing] = []
        total_oi = _ZERO
        for ticker in market.underlyings():
            spec = market.spec(ticker)
            long_oi = activity.long_open_interest.get(ticker, _ZERO)
            short_oi = activity.short_open_interest.get(ticker, _ZERO)
            total_oi += long_oi + short_oi
            listings.append(
                Listing(
                    ticker=ticker,
                    name=spec.name,
                    mark_price=market.mark_price_at(ticker, now_ms),
                    volume_24h=activity.volume_24h.get(ticker, _ZERO),
                    open_interest=OpenInterest(
                        long_open_interest=long_oi, short_open_interest=short_oi
                    ),
                    funding_rate=self.funding_rate(ticker, long_oi, short_oi),
                    funding_interval_s=spec.funding_interval_s,
                    base_spread_bps=spec.base_spread_bps,
                    quotes=self.listing_quotes(ticker, now_ms),
                )
            )
        return MarketStats(
            total_volume_24h=sum(activity.volume_24h.values(), _ZERO),
            cumulative_volume=activity.cumulative_volume,
            tvl=(activity.pool_balances + self.lp_vault(now_ms)).quantize(_USD_QUANTUM),
            open_interest=total_oi,
            num_markets=len(listings),
            loss_refund=LossRefund(
                pool_size=self.loss_refund_pool(activity), refunded_24h=activity.refunded_24h
            ),
            listings=listings,
        )
