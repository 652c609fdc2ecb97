"""What the builder knows of the market: each underlying's mark and a vol for its options.

Marks are the perpetuals' marks from the venue's public statistics. A vol is the mark vol the
venue's own valuation implies: solved (`tui.desk.analytics.implied_vol`) from the structure
price of the newest single-option RFQ on the underlying the desk has seen; with none, the
builder says the vol it assumes (`ASSUMED_VOL`) wherever it uses one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from tui.api.models import RFQ, MarketStats, VanillaOptionInstrument
from tui.desk.analytics.black_scholes import years_between
from tui.desk.analytics.implied_vol import implied_vol
from tui.desk.book import DeskBook

ASSUMED_VOL = Decimal("0.60")
"""The vol the builder assumes for an underlying whose mark vol it has not seen (60 %)."""


@dataclass(frozen=True)
class MarkVol:
    """A vol and where it came from (for the words beside a figure made with it)."""

    vol: Decimal
    source: str


@dataclass(frozen=True)
class BuilderMarket:
    """Marks and mark vols by underlying (see module docs)."""

    marks: dict[str, Decimal] = field(default_factory=dict)
    vols: dict[str, Decimal] = field(default_factory=dict)

    def mark(self, underlying: str) -> Decimal | None:
        """The underlying's mark, when the statistics gave one."""
        return self.marks.get(underlying)

    def vol(self, underlying: str) -> MarkVol:
        """The underlying's mark vol, or `ASSUMED_VOL` said as assumed."""
        seen = self.vols.get(underlying)
        if seen is not None:
            return MarkVol(seen, "mark vol")
        return MarkVol(ASSUMED_VOL, "assumed vol")


def _rfq_vol(rfq: RFQ, marks: dict[str, Decimal], now: datetime) -> tuple[str, Decimal] | None:
    legs = rfq.structure.legs
    price = rfq.structure_price.price if rfq.structure_price is not None else None
    if len(legs) != 1 or price is None:
        return None
    instrument = legs[0].instrument
    if not isinstance(instrument, VanillaOptionInstrument):
        return None
    spot = marks.get(instrument.underlying)
    years = years_between(now, instrument.expiry)
    if spot is None or years <= 0 or instrument.strike <= 0:
        return None
    unit = price / max(legs[0].ratio, 1)
    try:
        vol = implied_vol(instrument.payoff, spot, instrument.strike, years, abs(unit))
    except ValueError:
        return None
    return None if vol is None else (instrument.underlying, vol)


def builder_market(stats: MarketStats | None, rfqs: Iterable[RFQ], now: datetime) -> BuilderMarket:
    """Marks from the statistics and, per underlying, the mark vol of the newest single-option
    RFQ among ``rfqs`` (sent and received alike)."""
    marks = {listing.ticker: listing.mark_price for listing in stats.listings} if stats else {}
    vols: dict[str, Decimal] = {}
    for rfq in sorted(rfqs, key=lambda r: r.created_at, reverse=True):
        found = _rfq_vol(rfq, marks, now)
        if found is not None:
            vols.setdefault(*found)
    return BuilderMarket(marks, vols)


MAJORS = ("BTC", "ETH")
"""Underlyings the builder offers first."""


def builder_underlyings(book: DeskBook) -> list[str]:
    """The underlyings the builder offers: the venue's supported assets (else the listed
    perpetuals), the majors first, the rest in alphabetical order."""
    known = sorted(book.assets) or (
        [listing.ticker for listing in book.stats.listings] if book.stats else []
    )
    return sorted(known, key=lambda t: (t not in MAJORS, MAJORS.index(t) if t in MAJORS else 0, t))
