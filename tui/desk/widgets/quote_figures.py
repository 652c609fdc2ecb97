"""What a quote is worth against fair: edge and implied vol for the quote board and the ticket.

The fair value of a quote is the RFQ's structure price (`tui.desk.analytics.edge`); an edge in
bps is of that price for a single leg, and of the legs' summed values for a package. For a
structure with option legs, the *mark vol* is the one vol at which the structure is worth its
fair value, at the underlying's mark (the listing's mark in the market statistics); a quote's
implied vol is the vol at which the structure is worth the quote's price, solved on the whole
package (`package_implied_vol`, the root nearest the mark vol), so a quote's IV and the mark
vol compare like for like. The same legs go the other way for a maker quoting in vol: every
option leg priced at one vol (`leg_prices`), each rounded to a price the venue takes.

No Textual here: the board and the ticket format what this returns. Decimal in and out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from tui.api.models import TradeSide
from tui.desk.analytics.edge import QuoteEdge, quote_edge, structure_legs
from tui.desk.analytics.implied_vol import (
    LinearLeg,
    OptionLeg,
    leg_prices,
    package_implied_vol,
)
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from tui.api.models import RFQ, MarketStats

PackageSide = str
"""``"bid"`` or ``"ask"``: a side of the whole package (what the taker sells or buys at)."""


def round_price(value: Decimal) -> Decimal:
    """A leg price the venue takes: cents from 1 up, six places below 1 (half up)."""
    places = Decimal("0.01") if abs(value) >= 1 else Decimal("0.000001")
    return value.quantize(places, rounding=ROUND_HALF_UP)


def listing_marks(stats: MarketStats | None) -> dict[str, Decimal]:
    """Each underlying's mark from the market statistics (empty before the first poll)."""
    return {listing.ticker: listing.mark_price for listing in stats.listings} if stats else {}


def _weight(side: object, ratio: int | Decimal) -> Decimal:
    return Decimal(ratio) if str(side) == TradeSide.BUY else -Decimal(ratio)


@dataclass(frozen=True)
class Pricing:
    """What the quotes on one RFQ are judged against (see module docs).

    ``legs`` are the structure's legs as the solver takes them (None when the desk cannot
    value the structure: no mark for its underlying yet, several underlyings, an instrument of
    an unknown kind); ``mark_vol`` is None without option legs or when no vol fits.
    """

    fair: Decimal | None
    spot: Decimal | None
    legs: tuple[OptionLeg | LinearLeg, ...] | None
    mark_vol: Decimal | None
    has_options: bool
    reference: Decimal | None = None
    _solved: dict[Decimal, Decimal | None] = field(default_factory=dict, compare=False, repr=False)

    def edge(self, bid: Decimal | None, ask: Decimal | None) -> QuoteEdge | None:
        """The edge of a package bid and ask against fair (None without a fair value)."""
        if self.fair is None:
            return None
        return quote_edge(self.fair, bid, ask, reference=self.reference)

    def implied_vol(self, price: Decimal | None) -> Decimal | None:
        """The package vol at which the structure is worth ``price`` (remembered per price:
        the board asks again on every poll)."""
        if price is None or self.legs is None or self.spot is None or not self.has_options:
            return None
        if price not in self._solved:
            self._solved[price] = package_implied_vol(
                self.legs, self.spot, price, near=self.mark_vol
            )
        return self._solved[price]


def structure_pricing(rfq: RFQ, marks: Mapping[str, Decimal], now: datetime) -> Pricing:
    """The fair value, legs and mark vol of ``rfq``'s structure at ``marks`` and ``now``."""
    from tui.api.models import VanillaOptionInstrument  # loaded with the RFQ it reads

    fair = rfq.structure_price.price if rfq.structure_price else None
    has_options = any(
        isinstance(leg.instrument, VanillaOptionInstrument) for leg in rfq.structure.legs
    )
    underlying = getattr(rfq.structure.legs[0].instrument, "underlying", None)
    spot = marks.get(underlying) if isinstance(underlying, str) else None
    legs: tuple[OptionLeg | LinearLeg, ...] | None = None
    if spot is not None and spot > 0:
        try:
            legs = tuple(structure_legs(rfq.structure, spot, now))
        except ValueError:
            legs = None
    mark_vol = None
    if has_options and legs is not None and spot is not None and fair is not None:
        mark_vol = package_implied_vol(legs, spot, fair)
    return Pricing(fair, spot, legs, mark_vol, has_options, _gross(legs, spot, mark_vol))


def _gross(
    legs: Sequence[OptionLeg | LinearLeg] | None, spot: Decimal | None, vol: Decimal | None
) -> Decimal | None:
    """What the bps of a package's edge are taken of: the sum of its legs' values at the mark
    (a spread's fair price nets to near nothing, so bps of it say little); None for a single
    leg (bps of fair itself) or when an option leg has no vol to be valued at."""
    if legs is None or spot is None or len(legs) < 2:
        return None
    if vol is None and any(isinstance(leg, OptionLeg) for leg in legs):
        return None
    prices = leg_prices(legs, spot, vol if vol is not None else Decimal(1))
    return sum(
        (abs(leg.weight) * price for leg, price in zip(legs, prices, strict=True)), Decimal(0)
    )


class PricingMemo:
    """The latest `Pricing` of the RFQ a pane shows, solved again only when the RFQ, its fair
    value or its underlying's mark changed (a pane asks on every poll and every second)."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._pricing: Pricing | None = None

    def get(self, rfq: RFQ, marks: Mapping[str, Decimal], now: datetime) -> tuple[Pricing, bool]:
        """The pricing of ``rfq``, and whether it is new since the last call."""
        fair = rfq.structure_price.price if rfq.structure_price else None
        underlying = getattr(rfq.structure.legs[0].instrument, "underlying", None)
        key = (rfq.rfq_id, fair, marks.get(underlying) if isinstance(underlying, str) else None)
        if self._pricing is not None and key == self._key:
            return self._pricing, False
        self._key, self._pricing = key, structure_pricing(rfq, marks, now)
        return self._pricing, True


def package_quote(
    rfq: RFQ, bids: Sequence[Decimal | None], asks: Sequence[Decimal | None]
) -> tuple[Decimal | None, Decimal | None]:
    """The package bid and ask that leg prices make, as the venue adds them up: the taker
    buying the package buys its buy legs at their asks and sells its sell legs at their bids
    (the bid is the mirror image); a side some leg does not price is None."""
    bid: Decimal | None = Decimal(0)
    ask: Decimal | None = Decimal(0)
    for leg, leg_bid, leg_ask in zip(rfq.structure.legs, bids, asks, strict=True):
        weight = _weight(leg.side, leg.ratio)
        buying = weight > 0
        ask_part = leg_ask if buying else leg_bid
        bid_part = leg_bid if buying else leg_ask
        ask = None if ask is None or ask_part is None else ask + weight * ask_part
        bid = None if bid is None or bid_part is None else bid + weight * bid_part
    return bid, ask


def leg_field_side(leg_side: object, package_side: PackageSide) -> str:
    """Which of a leg's two prices makes a package side: a buy leg's own side, a sell leg's
    other one (the taker buying the package sells a sell leg at its bid)."""
    if str(leg_side) == TradeSide.BUY:
        return package_side
    return "ask" if package_side == "bid" else "bid"


@dataclass(frozen=True)
class DerivedLegs:
    """Leg prices derived for one package side: ``(leg index, "bid"/"ask", price)`` each, or
    why none could be (``refusal``, shown under the field typed into)."""

    prices: tuple[tuple[int, str, Decimal], ...] = ()
    vol: Decimal | None = None
    refusal: str = ""


def legs_at_vol(rfq: RFQ, pricing: Pricing, side: str, vol: Decimal) -> DerivedLegs:
    """Every leg's ``side`` price ("bid" or "ask") with each option leg at ``vol`` (a linear
    leg at its mark), rounded to a price the venue takes: a maker bids every leg at the bid
    vol and offers every leg at the ask vol, so each leg's bid stays under its ask."""
    return _legs_at(rfq, pricing, vol, lambda leg_side: side)


def legs_at_package_price(
    rfq: RFQ, pricing: Pricing, package_side: PackageSide, price: Decimal
) -> DerivedLegs:
    """Leg prices that make the package worth ``price`` on ``package_side``: the package vol
    solved, then the legs that make that side (`leg_field_side`) priced at it."""
    if pricing.legs is None or pricing.spot is None:
        return DerivedLegs(refusal="no mark for the underlying yet: cannot solve a vol")
    vol = pricing.implied_vol(price)
    if vol is None:
        return DerivedLegs(refusal=f"no vol prices the package at {fmt.price(price)}")
    return _legs_at(rfq, pricing, vol, lambda leg_side: leg_field_side(leg_side, package_side))


def _legs_at(
    rfq: RFQ, pricing: Pricing, vol: Decimal, field_of: Callable[[object], str]
) -> DerivedLegs:
    if pricing.legs is None or pricing.spot is None:
        return DerivedLegs(refusal="no mark for the underlying yet: a vol cannot price the legs")
    out = []
    prices = leg_prices(pricing.legs, pricing.spot, vol)
    for index, (leg, price) in enumerate(zip(rfq.structure.legs, prices, strict=True)):
        rounded = round_price(price)
        if rounded <= 0:
            words = fmt.price(rounded)
            return DerivedLegs(refusal=f"at this vol leg {index + 1} is worth {words}: no price")
        out.append((index, field_of(leg.side), rounded))
    return DerivedLegs(tuple(out), vol)


def crossed_leg(derived: DerivedLegs, typed: Callable[[int, str], Decimal | None]) -> str:
    """Why derived prices cannot stand beside the other prices typed (``typed(index, side)``):
    a leg whose bid would be above its ask; empty when none is."""
    for index, side, price in derived.prices:
        other = typed(index, "ask" if side == "bid" else "bid")
        if other is None:
            continue
        bid, ask = (price, other) if side == "bid" else (other, price)
        if bid > ask:
            return f"leg {index + 1} would bid {fmt.price(bid)} over its ask {fmt.price(ask)}"
    return ""


# -- words ----------------------------------------------------------------------------------


def vol_text(vol: Decimal | None) -> str:
    """``64.10%``: a vol in percent, two places; ``-`` when there is none."""
    return fmt.DASH if vol is None else fmt.money(vol * 100, 2) + "%"


def edge_price_text(value: Decimal | None) -> str:
    """``+98.35`` / ``-0.0125``: an edge in price, signed; cents from 1 up, up to six places
    below (an edge is read against the price, not to its last digit)."""
    if value is None:
        return fmt.DASH
    return fmt.money(value, 2 if abs(value) >= 1 else fmt.places_of(value, high=6), signed=True)


def edge_bps_text(value: Decimal | None) -> str:
    """``+10.2bp`` under 100 bps, ``+1,235bp`` from there: short enough for a narrow column."""
    if value is None:
        return fmt.DASH
    places = 1 if abs(value) < 100 else 0
    return fmt.money(value, places, signed=True) + "bp"
