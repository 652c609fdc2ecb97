"""The moving market: listings, seeded marks, and what instruments and portfolios are worth.

Marks follow a seeded geometric random walk in one-second steps: the log of each mark is its
start price's log plus ``annual_vol * sqrt(step in years) * X(step)``, where ``X`` mixes a
common crypto factor (weight `MARKET_CORRELATION`) with the asset's own Brownian path. The
walk is driftless in log space (the median mark stays at the start price) and can never reach
zero. Everything is a pure function of (seed, listings, epoch, time): reading the same instant
twice, in any order, after any jump of the clock, or after `Market.snapshot` and
`Market.restore`, gives the same marks.

`Market` is the one object the engine and the actors hold: its public statistics (indicative
quotes, funding, the LP vault and refund pool) are `tui.sandbox.market.statistics`'s.

A position's ``qty`` is signed: positive long, negative short.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from tui.api.models import (
    USDC,
    AggregatedPosition,
    DatedFutureInstrument,
    ListingQuotes,
    MarketStats,
    PerpetualFutureInstrument,
    PortfolioSummary,
    Position,
    SpotInstrument,
    Structure,
    StructurePrice,
    SupportedAssetDetails,
    VanillaOptionInstrument,
)
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market import pricing, valuation
from tui.sandbox.market.listings import (
    DEFAULT_LISTINGS,
    ListingSpec,
    asset_details,
    spec_from_json,
    spec_to_json,
    usdc_details,
)
from tui.sandbox.market.pricepath import BrownianPath
from tui.sandbox.market.statistics import MarketActivity, MarketStatistics

__all__ = [
    "MARKET_CORRELATION",
    "SNAPSHOT_VERSION",
    "STEP_MS",
    "Market",
    "Valuation",
]

STEP_MS = 1000
"""The walk moves once a second."""

MARKET_CORRELATION = 0.6
"""Weight of the common crypto factor in every asset's walk (their pairwise correlation is
its square, 0.36: crypto moves together, but not in lockstep)."""

SNAPSHOT_VERSION = 1

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_STEP_YEARS = STEP_MS / 1000 / pricing.SECONDS_PER_YEAR
_FACTOR_KEY = "factor:crypto"


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


class Market:
    """The sandbox's whole market: a deterministic function of seed, listings and time.

    Its statistics are `statistics`'s (`MarketStatistics`), its sums over legs and positions
    `tui.sandbox.market.valuation`'s; the methods here are the one face the others use.

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
        self.statistics = MarketStatistics(self)
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
        cached = self._marks.get(key)  # a single dict read needs no lock; writes take it
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
        """Price and greeks of a structure at the current mark (`valuation.structure_price`)."""
        return valuation.structure_price(self.value_at, structure, self.clock.now_ms(), qty)

    # ---- positions ------------------------------------------------------------------------

    def aggregate_position(self, position: Position) -> AggregatedPosition:
        """A position valued at the current mark (see `aggregate_position_at`)."""
        return self.aggregate_position_at(position, self.clock.now_ms())

    def aggregate_position_at(self, position: Position, when_ms: int) -> AggregatedPosition:
        """A position valued at ``when_ms`` (`valuation.aggregate_position`); ValueError if
        the instrument cannot be priced."""
        return valuation.aggregate_position(self.value_at(position.instrument, when_ms), position)

    def portfolio_summary(
        self, balance: Decimal, positions: Iterable[Position]
    ) -> PortfolioSummary:
        """A company's portfolio at the current mark (`valuation.portfolio_summary`)."""
        now_ms = self.clock.now_ms()
        return valuation.portfolio_summary(
            balance, [self.aggregate_position_at(p, now_ms) for p in positions]
        )

    # ---- public statistics (`tui.sandbox.market.statistics`) -------------------------------

    def spread_bps(self, underlying: str, notional: Decimal) -> Decimal:
        """Full bid-ask spread in bps at ``notional`` USDC (`MarketStatistics.spread_bps`)."""
        return self.statistics.spread_bps(underlying, notional)

    def indicative_quote(self, underlying: str, notional: Decimal) -> tuple[Decimal, Decimal]:
        """Bid and ask for ``notional`` USDC around the current mark (bid < mark < ask)."""
        return self.statistics.quote_around(underlying, self.mark_price(underlying), notional)

    def funding_rate(self, underlying: str, long_oi: Decimal, short_oi: Decimal) -> Decimal:
        """Funding per interval for this open interest (`MarketStatistics.funding_rate`)."""
        return self.statistics.funding_rate(underlying, long_oi, short_oi)

    def quote_refreshed_at(self, underlying: str, when_ms: int | None = None) -> int:
        """When the indicative quotes of ``underlying`` were last refreshed (Unix ms)."""
        return self.statistics.quote_refreshed_at(underlying, when_ms)

    def listing_quotes(self, underlying: str, when_ms: int | None = None) -> ListingQuotes:
        """The public quotes of a listing as last refreshed."""
        return self.statistics.listing_quotes(underlying, when_ms)

    def lp_vault(self, when_ms: int | None = None) -> Decimal:
        """The simulated LP vault's value in USDC."""
        return self.statistics.lp_vault(when_ms)

    def loss_refund_pool(self, activity: MarketActivity) -> Decimal:
        """The loss-refund pool: a seeded base, plus its fee share of volume, less refunds."""
        return self.statistics.loss_refund_pool(activity)

    def stats(self, activity: MarketActivity) -> MarketStats:
        """The public statistics record at the current time, from the exchange's activity."""
        return self.statistics.stats(activity)

    # ---- persistence ----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON-able state: seed, epoch, listings and the walk's memoised block sums.

        `restore` of this state continues the very same path without recomputing from the
        epoch.
        """
        paths = [self._factor, self.statistics.vault_path, *self._paths.values()]
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
            path.key: path
            for path in (market._factor, market.statistics.vault_path, *market._paths.values())
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
