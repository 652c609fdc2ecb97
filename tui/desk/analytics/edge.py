"""Fair value and edge: what a structure is worth at the marks, and how far a quote is from it.

The fair value of a quote is the RFQ's structure price (the venue's own valuation at the
mark). Edge is signed from the maker's side: on the ask ``ask - fair``, on the bid
``fair - bid``, so a positive edge is what the maker earns against fair and what the taker
pays for the trade; a negative edge is a quote through fair. In basis points it is taken
against a reference: the fair price itself by default, or what the caller names (the
underlying's mark, for a spread whose fair price is near zero).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from tui.api.models import TradeSide
from tui.desk.analytics.black_scholes import DEFAULT_RATE, years_between
from tui.desk.analytics.implied_vol import LinearLeg, OptionLeg

if TYPE_CHECKING:
    from tui.api.models import Structure

_BPS_PLACES = Decimal("0.01")


@dataclass(frozen=True)
class Edge:
    """One side's edge against fair: in price (per structure unit) and in bps (None when
    there is no reference to divide by)."""

    price: Decimal
    bps: Decimal | None


@dataclass(frozen=True)
class QuoteEdge:
    """A quote's edge on each side it prices."""

    fair: Decimal
    bid: Edge | None
    ask: Edge | None


def _edge(amount: Decimal, reference: Decimal) -> Edge:
    bps = None if reference == 0 else (amount / reference * 10_000).quantize(_BPS_PLACES)
    return Edge(amount, bps)


def quote_edge(
    fair: Decimal,
    bid: Decimal | None,
    ask: Decimal | None,
    *,
    reference: Decimal | None = None,
) -> QuoteEdge:
    """The edge of ``bid`` / ``ask`` against ``fair`` (signs in the module docstring); bps
    against ``reference``, by default ``|fair|``."""
    base = abs(reference if reference is not None else fair)
    return QuoteEdge(
        fair=fair,
        bid=None if bid is None else _edge(fair - bid, base),
        ask=None if ask is None else _edge(ask - fair, base),
    )


def structure_legs(
    structure: Structure, spot: Decimal, now: datetime, rate: Decimal = DEFAULT_RATE
) -> list[OptionLeg | LinearLeg]:
    """The legs of a one-underlying structure as the vol solver takes them, per structure
    unit: options by strike and time left, linear legs valued at the mark ``spot`` (a dated
    future at its carry forward). Raises ValueError for legs on several underlyings or a
    kind of instrument this desk cannot value."""
    from tui.api.models import (  # with the first structure valued, not the first frame
        DatedFutureInstrument,
        PerpetualFutureInstrument,
        SpotInstrument,
        VanillaOptionInstrument,
    )

    legs: list[OptionLeg | LinearLeg] = []
    underlyings = {str(getattr(leg.instrument, "underlying", "?")) for leg in structure.legs}
    if len(underlyings) != 1:
        raise ValueError("a package vol needs every leg on one underlying")
    for leg in structure.legs:
        weight = Decimal(leg.ratio if str(leg.side) == TradeSide.BUY else -leg.ratio)
        instrument = leg.instrument
        if isinstance(instrument, VanillaOptionInstrument):
            years = years_between(now, instrument.expiry)
            legs.append(OptionLeg(weight, str(instrument.payoff), instrument.strike, years))
        elif isinstance(instrument, PerpetualFutureInstrument | SpotInstrument):
            legs.append(LinearLeg(weight, spot))
        elif isinstance(instrument, DatedFutureInstrument):
            carry = max(float(years_between(now, instrument.expiry)), 0.0)
            value = Decimal(float(spot) * math.exp(float(rate) * carry)).quantize(Decimal("1e-8"))
            legs.append(LinearLeg(weight, value))
        else:
            raise ValueError("this desk cannot value an instrument of an unknown kind")
    return legs
