"""The sandbox's market: moving marks, instrument values and greeks, funding, public stats.

Marks follow a seeded geometric random walk in one-second steps: the log of each mark is its
start price's log plus ``annual_vol * sqrt(step in years) * X(step)``, where ``X`` mixes a
common crypto factor (weight `MARKET_CORRELATION`) with the asset's own Brownian path. The
walk is driftless in log space (the median mark stays at the start price) and can never reach
zero. Everything is a pure function of (seed, listings, epoch, time): reading the same instant
twice, in any order, after any jump of the clock, or after `Market.snapshot` and
`Market.restore`, gives the same marks.

What the exchange did (volumes, open interest, pool balances, refunds) comes in as
`MarketActivity`; the market adds what it simulates itself (an LP vault, the loss-refund
pool's base, indicative quotes) and writes the public `MarketStats` record.

Conventions:

- Open interest in `MarketActivity` is USDC notional per side; total open interest in the
  stats is long plus short over all listings.
- Funding rates are per funding interval (see `tui.sandbox.market.funding`).
- A position's ``qty`` is signed: positive long, negative short.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from typing import Any

from tui.api.models import (
    USDC,
    AggregatedPosition,
    BidAsk,
    DatedFutureInstrument,
    Listing,
    ListingQuotes,
    LossRefund,
    MarketStats,
    OpenInterest,
    PerpetualFutureInstrument,
    PortfolioSummary,
    Position,
    SpotInstrument,
    Structure,
    StructurePrice,
    SupportedAssetDetails,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market import pricing
from tui.sandbox.market.funding import funding_rate as curve_funding_rate
from tui.sandbox.market.listings import (
    DEFAULT_LISTINGS,
    ListingSpec,
    asset_details,
    spec_from_json,
    spec_to_json,
    usdc_details,
)
from tui.sandbox.market.pricepath import BrownianPath, seeded_int

__all__ = [
    "MARKET_CORRELATION",
    "QUOTE_SIZES",
    "SNAPSHOT_VERSION",
    "STEP_MS",
    "Market",
    "MarketActivity",
    "Valuation",
]

STEP_MS = 1000
"""The walk moves once a second."""

MARKET_CORRELATION = 0.6
"""Weight of the common crypto factor in every asset's walk (their pairwise correlation is
its square, 0.36: crypto moves together, but not in lockstep)."""

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

SNAPSHOT_VERSION = 1

_USD_QUANTUM = Decimal("0.01")
_MONEY_QUANTUM = Decimal("1e-8")
_NATIVE_QUANTUM = Decimal("1e-8")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ZERO = Decimal(0)
_STEP_YEARS = STEP_MS / 1000 / pricing.SECONDS_PER_YEAR
_FACTOR_KEY = "factor:crypto"
_VAULT_KEY = "lp-vault"
_VAULT_STEP_S = 60


def _timestamp(ms: int) -> datetime:
    """Unix milliseconds as an aware UTC datetime, exactly (no float rounding)."""
    return _EPOCH + timedelta(milliseconds=ms)


def _clean(value: Decimal) -> Decimal:
    """``-0`` as ``0``: a sum of greeks that cancels should not read as negative."""
    return value if value != 0 else abs(value)


@dataclass(frozen=True)
class Valuation:
    """Value and greeks of ONE unit of an instrument at a mark (units as in `pricing`).

    ``iv`` is the implied vol used for an option and None for linear instruments.
    """

    price: Decimal
    underlying_price: Decimal
    iv: Decimal | None
    delta: Decimal
    gamma: Decimal
    theta: Decimal
    vega: Decimal
    rho: Decimal


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


class Market:
    """The sandbox's whole market model: a deterministic function of seed, listings and time.

    ``epoch_ms`` anchors the walk (every mark equals its start price there); it defaults to
    the clock's current second. Times before the epoch have marks too (the walk runs
    backward), so seeded history can be priced.
    """

    def __init__(
        self,
        seed: int,
        clock: SandboxClock,
        listings: Sequence[ListingSpec] = DEFAULT_LISTINGS,
        epoch_ms: int | None = None,
    ) -> None:
        if not listings:
            raise ValueError("listings must not be empty")
        tickers = [spec.ticker for spec in listings]
        if len(set(tickers)) != len(tickers):
            raise ValueError("listings must not repeat a ticker")
        self.seed = int(seed)
        self.clock = clock
        self.epoch_ms = (
            int(epoch_ms) if epoch_ms is not None else clock.now_ms() // STEP_MS * STEP_MS
        )
        self._specs: dict[str, ListingSpec] = {spec.ticker: spec for spec in listings}
        self._factor = BrownianPath(self.seed, _FACTOR_KEY)
        self._paths = {t: BrownianPath(self.seed, f"asset:{t}") for t in tickers}
        self._vault_path = BrownianPath(self.seed, _VAULT_KEY)
        self._vault_base = Decimal(7_500_000 + seeded_int(self.seed, "vault-base") % 5_000_000)
        self._refund_base = Decimal(150_000 + seeded_int(self.seed, "refund-base") % 100_000)
        self._refresh = {t: self._refresh_schedule(t) for t in tickers}
        self._marks: dict[tuple[str, int], Decimal] = {}
        self._marks_lock = threading.Lock()

    # ---- listings -------------------------------------------------------------------------

    def underlyings(self) -> list[str]:
        """Tickers of every listed underlying, in listing order."""
        return list(self._specs)

    def spec(self, underlying: str) -> ListingSpec:
        """The static spec of ``underlying``; KeyError if it is not listed."""
        try:
            return self._specs[underlying]
        except KeyError:
            raise KeyError(f"{underlying!r} is not a listed underlying") from None

    def supported_assets(
        self, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """Token metadata keyed by ticker, USDC (the settlement asset) included.

        ``verified=True`` keeps only verified assets; None or False returns every asset.
        """
        details = [asset_details(spec) for spec in self._specs.values()] + [usdc_details()]
        return {d.asset: [d] for d in details if not verified or d.verified}

    # ---- marks ----------------------------------------------------------------------------

    def _step(self, when_ms: int) -> int:
        return (when_ms - self.epoch_ms) // STEP_MS

    def mark_price(self, underlying: str) -> Decimal:
        """The mark of ``underlying`` now, on its tick and > 0; KeyError if not listed."""
        return self.mark_price_at(underlying, self.clock.now_ms())

    def mark_price_at(self, underlying: str, when_ms: int) -> Decimal:
        """The mark of ``underlying`` at ``when_ms`` (Unix ms, before the epoch too)."""
        spec = self.spec(underlying)
        step = self._step(when_ms)
        key = (underlying, step)
        with self._marks_lock:
            cached = self._marks.get(key)
        if cached is not None:
            return cached
        rho = MARKET_CORRELATION
        x = rho * self._factor.at(step) + math.sqrt(1.0 - rho * rho) * self._paths[underlying].at(
            step
        )
        log_move = float(spec.annual_vol) * math.sqrt(_STEP_YEARS) * x
        raw = Decimal(float(spec.start_price) * math.exp(log_move))
        mark = max(raw.quantize(spec.tick, rounding=ROUND_HALF_EVEN), spec.tick)
        with self._marks_lock:
            if len(self._marks) > 8192:
                self._marks.clear()
            self._marks[key] = mark
        return mark

    # ---- instruments ----------------------------------------------------------------------

    def value(self, instrument: Any) -> Valuation:
        """Price and greeks of one unit of ``instrument`` at the current mark.

        Raises ValueError naming the underlying when it is not listed, and for instrument
        types or settlement assets the sandbox does not trade.
        """
        return self.value_at(instrument, self.clock.now_ms())

    def value_at(self, instrument: Any, when_ms: int) -> Valuation:
        """`value` at ``when_ms`` instead of now (history, or a consistent multi-leg read)."""
        underlying = getattr(instrument, "underlying", None)
        if underlying is None and hasattr(instrument, "model_extra"):
            underlying = (instrument.model_extra or {}).get("underlying")
        if underlying not in self._specs:
            raise ValueError(f"underlying {underlying!r} is not listed on the sandbox")
        settlement = getattr(instrument, "settlement_asset", USDC)
        if settlement != USDC:
            raise ValueError(f"settlement_asset {settlement!r} is not supported (only USDC)")
        spec = self._specs[underlying]
        mark = self.mark_price_at(underlying, when_ms)
        iv: Decimal | None = None
        if isinstance(instrument, SpotInstrument | PerpetualFutureInstrument):
            greeks = pricing.linear(mark)
        elif isinstance(instrument, DatedFutureInstrument):
            years = pricing.years_between(when_ms, _ms(instrument.expiry))
            greeks = pricing.forward(mark, years)
            greeks = _with_price(greeks, greeks.price.quantize(spec.tick))
        elif isinstance(instrument, VanillaOptionInstrument):
            years = pricing.years_between(when_ms, _ms(instrument.expiry))
            iv = spec.option_vol
            greeks = pricing.black_scholes(
                instrument.payoff, mark, instrument.strike, years, spec.option_vol
            )
        else:
            kind = getattr(instrument, "instrument_type", None)
            raise ValueError(f"instrument_type {kind!r} on {underlying} is not priced")
        return Valuation(
            price=greeks.price,
            underlying_price=mark,
            iv=iv,
            delta=greeks.delta,
            gamma=greeks.gamma,
            theta=greeks.theta,
            vega=greeks.vega,
            rho=greeks.rho,
        )

    def structure_price(self, structure: Structure, qty: Decimal | None = None) -> StructurePrice:
        """Price and greeks of a structure at the current mark.

        ``price`` is the value of ONE structure unit: the sum over legs of ``+ratio`` (buy) or
        ``-ratio`` (sell) times the leg's unit price; ``native_price`` is that price in units
        of the first leg's underlying (price / its mark). Greeks are summed the same way, per
        structure unit, or for ``qty`` structure units when ``qty`` is given (the risk of the
        whole RFQ); the prices stay per unit so they compare with quotes. All legs are valued
        at one instant, which is ``timestamp``. Raises ValueError for an unlisted underlying.
        """
        now_ms = self.clock.now_ms()
        totals = dict.fromkeys(("price", "delta", "gamma", "theta", "vega", "rho"), _ZERO)
        first_mark: Decimal | None = None
        for leg in structure.legs:
            valuation = self.value_at(leg.instrument, now_ms)
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
            timestamp=_timestamp(now_ms),
        )

    # ---- positions ------------------------------------------------------------------------

    def aggregate_position(self, position: Position) -> AggregatedPosition:
        """A position valued at the current mark (see `aggregate_position_at`)."""
        return self.aggregate_position_at(position, self.clock.now_ms())

    def aggregate_position_at(self, position: Position, when_ms: int) -> AggregatedPosition:
        """A position valued at ``when_ms``: greeks times signed qty, uPNL and notional.

        ``upnl = qty * (price - avg_entry_price)``; ``notional = |qty| * underlying mark``.
        Raises ValueError if the instrument cannot be priced.
        """
        valuation = self.value_at(position.instrument, when_ms)
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
            upnl=_clean(
                (qty * (valuation.price - position.avg_entry_price)).quantize(_MONEY_QUANTUM)
            ),
            notional=(abs(qty) * valuation.underlying_price).quantize(_MONEY_QUANTUM),
            position_info=position,
        )

    def portfolio_summary(
        self, balance: Decimal, positions: Iterable[Position]
    ) -> PortfolioSummary:
        """A company's portfolio at the current mark: its balance plus summed position risk.

        Dollar delta is ``delta * mark`` (USDC per 100 % move, i.e. the USDC exposure);
        dollar gamma is ``gamma * mark**2 / 100`` (change of dollar delta for a 1 % move).
        Greeks of different underlyings are simply added, as the record asks.
        """
        now_ms = self.clock.now_ms()
        sums = dict.fromkeys(
            ("upnl", "notional", "delta", "gamma", "theta", "vega", "rho", "ddelta", "dgamma"),
            _ZERO,
        )
        for position in positions:
            agg = self.aggregate_position_at(position, now_ms)
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

    # ---- quotes and funding ---------------------------------------------------------------

    def spread_bps(self, underlying: str, notional: Decimal) -> Decimal:
        """Full bid-ask spread in bps at ``notional`` USDC: widens with the root of size.

        ``base_spread_bps * (1 + sqrt(notional / depth_notional))``: a major at 1m is twice
        its base, a small cap at 100k twice its base.
        """
        spec = self.spec(underlying)
        if notional <= 0:
            raise ValueError("notional must be greater than 0")
        return spec.base_spread_bps * (1 + (notional / spec.depth_notional).sqrt())

    def indicative_quote(self, underlying: str, notional: Decimal) -> tuple[Decimal, Decimal]:
        """Bid and ask for ``notional`` USDC around the current mark (bid < mark < ask)."""
        mark = self.mark_price(underlying)
        return self._quote_around(underlying, mark, notional)

    def _quote_around(
        self, underlying: str, mark: Decimal, notional: Decimal
    ) -> tuple[Decimal, Decimal]:
        spec = self.spec(underlying)
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

        Positive: longs pay shorts. Formula in `tui.sandbox.market.funding`. KeyError if not listed,
        ValueError for negative open interest.
        """
        return curve_funding_rate(self.spec(underlying).funding_params, long_oi, short_oi)

    def _refresh_schedule(self, ticker: str) -> tuple[int, int]:
        span = QUOTE_REFRESH_MAX_S - QUOTE_REFRESH_MIN_S + 1
        cadence_s = QUOTE_REFRESH_MIN_S + seeded_int(self.seed, "quote-cadence", ticker) % span
        phase_s = seeded_int(self.seed, "quote-phase", ticker) % cadence_s
        return cadence_s * 1000, phase_s * 1000

    def quote_refreshed_at(self, underlying: str, when_ms: int | None = None) -> int:
        """When the cached indicative quotes of ``underlying`` were last refreshed (Unix ms).

        Refreshes happen on a fixed seeded cadence of 30-120 s per listing, so the answer is
        never later than ``when_ms`` (default now) and never more than 120 s before it.
        """
        now_ms = self.clock.now_ms() if when_ms is None else when_ms
        self.spec(underlying)
        cadence_ms, phase_ms = self._refresh[underlying]
        anchor = self.epoch_ms + phase_ms
        return anchor + (now_ms - anchor) // cadence_ms * cadence_ms

    def listing_quotes(self, underlying: str, when_ms: int | None = None) -> ListingQuotes:
        """The public quotes of a listing as last refreshed: around the mark of that moment."""
        refreshed_ms = self.quote_refreshed_at(underlying, when_ms)
        mark = self.mark_price_at(underlying, refreshed_ms)
        major = self.spec(underlying).major
        sizes: dict[str, BidAsk] = {}
        for name, notional, majors_only in QUOTE_SIZES:
            if majors_only and not major:
                continue
            bid, ask = self._quote_around(underlying, mark, notional)
            sizes[name] = BidAsk(bid=bid, ask=ask)
        return ListingQuotes(updated_at=_timestamp(refreshed_ms), **sizes)

    # ---- public statistics ----------------------------------------------------------------

    def lp_vault(self, when_ms: int | None = None) -> Decimal:
        """The simulated LP vault's value in USDC: a seeded base drifting slowly (8 %/yr vol)."""
        now_ms = self.clock.now_ms() if when_ms is None else when_ms
        step = (now_ms - self.epoch_ms) // (_VAULT_STEP_S * 1000)
        step_years = _VAULT_STEP_S / pricing.SECONDS_PER_YEAR
        move = LP_VAULT_VOL * math.sqrt(step_years) * self._vault_path.at(step)
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
        now_ms = self.clock.now_ms()
        listings: list[Listing] = []
        total_oi = _ZERO
        for ticker, spec in self._specs.items():
            long_oi = activity.long_open_interest.get(ticker, _ZERO)
            short_oi = activity.short_open_interest.get(ticker, _ZERO)
            total_oi += long_oi + short_oi
            listings.append(
                Listing(
                    ticker=ticker,
                    name=spec.name,
                    mark_price=self.mark_price_at(ticker, now_ms),
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

    # ---- persistence ----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON-able state: seed, epoch, listings and the walk's memoised block sums.

        `restore` of this state continues the very same path without recomputing from the
        epoch.
        """
        paths = [self._factor, self._vault_path, *self._paths.values()]
        return {
            "version": SNAPSHOT_VERSION,
            "seed": self.seed,
            "epoch_ms": self.epoch_ms,
            "listings": [spec_to_json(spec) for spec in self._specs.values()],
            "paths": [path.checkpoint() for path in paths],
        }

    @classmethod
    def restore(cls, state: dict[str, Any], clock: SandboxClock) -> Market:
        """The market `snapshot` saved, on ``clock``; ValueError if the state is unusable."""
        if not isinstance(state, dict) or state.get("version") != SNAPSHOT_VERSION:
            raise ValueError(f"market snapshot must be a dict of version {SNAPSHOT_VERSION}")
        try:
            seed = int(state["seed"])
            epoch_ms = int(state["epoch_ms"])
            listings = [spec_from_json(item) for item in state["listings"]]
            checkpoints = list(state.get("paths", []))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"market snapshot is malformed: {exc}") from None
        market = cls(seed, clock, listings, epoch_ms=epoch_ms)
        by_key = {
            path.key: path for path in (market._factor, market._vault_path, *market._paths.values())
        }
        for checkpoint in checkpoints:
            path = by_key.get(str(checkpoint.get("key"))) if isinstance(checkpoint, dict) else None
            if path is None:
                raise ValueError("market snapshot has a checkpoint for an unknown path")
            path.load_checkpoint(checkpoint)
        return market


def _ms(moment: datetime) -> int:
    """An aware (or UTC-naive) datetime as Unix milliseconds."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _with_price(greeks: pricing.Greeks, price: Decimal) -> pricing.Greeks:
    return pricing.Greeks(price, greeks.delta, greeks.gamma, greeks.theta, greeks.vega, greeks.rho)
