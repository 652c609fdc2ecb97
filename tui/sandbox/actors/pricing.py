"""What simulated counterparties price and ask for: maker leg quotes, taker structures, costs.

Pure functions of the market model (and seeded draws): no engine, no store. A maker prices each
RFQ leg at the mark (``Market.value``) plus or minus half its spread, the spread being the
market's size-dependent spread times the maker's multiplier; a taker builds the structure of its
next RFQ from a seeded mix (perpetuals mostly, sometimes a calendar spread or an option) and
judges quotes by how far from the mark they are, in bps of the traded notional.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, Decimal
from typing import Any

from tui.api.models import (
    DatedFutureInstrument,
    ExerciseType,
    Leg,
    LegQuote,
    PayoffType,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.sandbox.actors.profiles import choose, draw, log_uniform, uniform
from tui.sandbox.market.marks import Market

__all__ = [
    "OPTION_DELTA_FLOOR",
    "OPTION_PRICE_SPREAD",
    "PricedLeg",
    "TakerRequest",
    "dated_expiry",
    "maker_leg_quotes",
    "option_expiry",
    "quote_cost_bps",
    "strike_grid",
    "structure_fair_value",
    "taker_request",
]

OPTION_DELTA_FLOOR = Decimal("0.25")
"""An option's spread is at least that of a quarter of the underlying (its vega risk)."""
OPTION_PRICE_SPREAD = Decimal("0.02")
"""Plus 2 % of the option's price either side."""

_BPS = Decimal(10_000)
_ZERO = Decimal(0)
_MAJORS = ("BTC", "ETH", "SOL")


@dataclass(frozen=True)
class PricedLeg:
    """One RFQ leg as a maker prices it: the leg's id, instrument and quantity."""

    rfq_leg_id: str
    instrument: Any
    qty: Decimal


def maker_leg_quotes(
    market: Market,
    legs: Sequence[PricedLeg],
    spread_multiplier: Decimal,
    when_ms: int | None = None,
) -> list[LegQuote]:
    """A two-way quote for every leg, around the mark, on the listing's tick.

    Half-spread of a linear leg: ``price * spread_bps / 20000`` where ``spread_bps`` is
    ``market.spread_bps(underlying, leg notional) * spread_multiplier``. An option's is
    ``underlying * spread_bps / 20000 * (|delta| + OPTION_DELTA_FLOOR) + OPTION_PRICE_SPREAD *
    price``. Bids round down and asks up to the tick, at least one tick from the mark; a bid
    that would not be above zero is left out (the leg is then offered only). Raises
    ValueError for an instrument the market cannot price.
    """
    now_ms = market.clock.now_ms() if when_ms is None else when_ms
    quotes: list[LegQuote] = []
    for leg in legs:
        valuation = market.value_at(leg.instrument, now_ms)
        spec = market.spec(leg.instrument.underlying)
        under = valuation.underlying_price
        notional = max(leg.qty * under, Decimal(1))
        bps = market.spread_bps(spec.ticker, notional) * spread_multiplier
        price = valuation.price
        if isinstance(leg.instrument, VanillaOptionInstrument):
            half = under * bps / (2 * _BPS) * (abs(valuation.delta) + OPTION_DELTA_FLOOR)
            half += OPTION_PRICE_SPREAD * price
        else:
            half = price * bps / (2 * _BPS)
        tick = spec.tick
        bid: Decimal | None = min((price - half).quantize(tick, rounding=ROUND_FLOOR), price - tick)
        ask = max((price + half).quantize(tick, rounding=ROUND_CEILING), price + tick)
        ask = ask.quantize(tick, rounding=ROUND_CEILING)
        if bid is not None:
            bid = bid.quantize(tick, rounding=ROUND_FLOOR)
            if bid <= 0:
                bid = None
        quotes.append(LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=bid, ask=ask))
    return quotes


def _weight(leg: Any) -> Decimal:
    side = TradeSide(str(leg.side))
    return Decimal(leg.ratio if side is TradeSide.BUY else -leg.ratio)


def structure_fair_value(
    market: Market, structure: Structure, when_ms: int | None = None
) -> tuple[Decimal, Decimal]:
    """Per structure unit: its value at the mark and its notional (sum of ratio * underlying).

    The notional is what price differences are measured against (bps of what is traded).
    """
    now_ms = market.clock.now_ms() if when_ms is None else when_ms
    value = _ZERO
    notional = _ZERO
    for leg in structure.legs:
        valuation = market.value_at(leg.instrument, now_ms)
        value += _weight(leg) * valuation.price
        notional += Decimal(leg.ratio) * valuation.underlying_price
    return value, notional


def quote_cost_bps(
    side: TradeSide, quote_price: Decimal, fair_value: Decimal, notional: Decimal
) -> Decimal:
    """How much worse than the mark a structure price is for a taker on ``side``, in bps.

    Buying at ``quote_price`` costs ``quote_price - fair_value``; selling costs
    ``fair_value - quote_price``; both over the structure's unit notional. Negative means
    better than the mark.
    """
    if notional <= 0:
        raise ValueError("notional must be greater than 0")
    edge = quote_price - fair_value if side is TradeSide.BUY else fair_value - quote_price
    return edge / notional * _BPS


# -- what takers ask for --------------------------------------------------------------------


@dataclass(frozen=True)
class TakerRequest:
    """A simulated taker's next RFQ: the structure, its quantity, and the side it will take."""

    kind: str
    structure: Structure
    qty: Decimal
    side: TradeSide


_KINDS = {"perp_major": 0.5, "perp_alt": 0.2, "calendar": 0.14, "option": 0.16}
"""Mix of the RFQs simulated takers send."""


def _next_weekday(moment: datetime, weekday: int) -> datetime:
    days = (weekday - moment.weekday()) % 7
    return (moment + timedelta(days=days)).replace(hour=8, minute=0, second=0, microsecond=0)


def option_expiry(now: datetime, min_days: int = 3) -> datetime:
    """The first Friday 08:00 UTC at least ``min_days`` days after ``now`` (a weekly expiry)."""
    friday = _next_weekday(now + timedelta(days=min_days), 4)
    return friday.astimezone(UTC)


def dated_expiry(now: datetime) -> datetime:
    """The last Friday 08:00 UTC of the month after ``now`` (a monthly future's expiry)."""
    first_of_next = (now.replace(day=1) + timedelta(days=32)).replace(day=1)
    first_after = (first_of_next + timedelta(days=32)).replace(day=1)
    last_day = first_after - timedelta(days=1)
    days_back = (last_day.weekday() - 4) % 7
    expiry = last_day - timedelta(days=days_back)
    return expiry.replace(hour=8, minute=0, second=0, microsecond=0, tzinfo=UTC)


def strike_grid(price: Decimal) -> Decimal:
    """A round strike spacing of about 2.5 % of ``price``: 1, 2 or 5 times a power of ten."""
    target = price * Decimal("0.025")
    exponent = target.adjusted()
    power = Decimal(1).scaleb(exponent)
    for multiple in (Decimal(5), Decimal(2), Decimal(1)):
        if multiple * power <= target:
            return multiple * power
    return power


def _round_qty(qty: Decimal, tick: Decimal) -> Decimal:
    rounded = (qty / tick).to_integral_value(rounding=ROUND_DOWN) * tick
    return max(rounded, tick).normalize()


def taker_request(
    market: Market,
    seed: int,
    taker: str,
    index: int,
    notional_range: tuple[Decimal, Decimal],
    when_ms: int | None = None,
) -> TakerRequest:
    """The ``index``-th RFQ of ``taker``: a seeded structure, size and direction.

    Half the RFQs are a perpetual on a major, a fifth a perpetual on a smaller listing, the
    rest a calendar spread (buy the perpetual, sell the monthly future) on a major, or a
    single near-the-money weekly option on BTC or ETH. The notional is log-uniform in
    ``notional_range`` (options and spreads trade a third of it).
    """
    now_ms = market.clock.now_ms() if when_ms is None else when_ms
    now = datetime.fromtimestamp(now_ms / 1000, tz=UTC)
    key = (taker, index)
    kind = choose(seed, _KINDS, *key, "kind")
    majors = [u for u in _MAJORS if u in market.underlyings()] or market.underlyings()[:1]
    alts = [u for u in market.underlyings() if u not in majors] or majors
    if kind == "perp_alt":
        pool = alts
    elif kind == "option":
        pool = [u for u in ("BTC", "ETH") if u in majors] or majors
    else:
        pool = majors
    underlying = pool[int(draw(seed, *key, "underlying") * len(pool)) % len(pool)]
    spec = market.spec(underlying)
    mark = market.mark_price_at(underlying, now_ms)
    perp = PerpetualFutureInstrument(
        underlying=underlying, funding_interval_s=spec.funding_interval_s
    )
    legs: list[Leg]
    if kind == "calendar":
        future = DatedFutureInstrument(underlying=underlying, expiry=dated_expiry(now))
        legs = [
            Leg(side=TradeSide.BUY, ratio=1, instrument=perp),
            Leg(side=TradeSide.SELL, ratio=1, instrument=future),
        ]
    elif kind == "option":
        step = strike_grid(mark)
        offset = Decimal(math.floor(uniform(seed, -2.0, 3.0, *key, "strike")))  # -2 .. +2 strikes
        strike = max((mark / step).to_integral_value() + offset, Decimal(1)) * step
        strike = Decimal(format(strike, "f"))  # 98000, not 9.8E+4
        payoff = PayoffType.CALL if draw(seed, *key, "payoff") < 0.55 else PayoffType.PUT
        option = VanillaOptionInstrument(
            underlying=underlying,
            expiry=option_expiry(now),
            strike=strike,
            payoff=payoff,
            exercise=ExerciseType.EUROPEAN,
        )
        legs = [Leg(side=TradeSide.BUY, ratio=1, instrument=option)]
    else:
        legs = [Leg(side=TradeSide.BUY, ratio=1, instrument=perp)]
    low, high = notional_range
    notional = log_uniform(seed, low, high, *key, "size")
    if not kind.startswith("perp"):
        notional = notional / 3
    qty = _round_qty(notional / mark, spec.min_qty_tick)
    side = TradeSide.BUY if draw(seed, *key, "side") < 0.5 else TradeSide.SELL
    return TakerRequest(kind=kind, structure=Structure(legs=legs), qty=qty, side=side)
