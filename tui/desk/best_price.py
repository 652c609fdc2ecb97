"""What is quoted on an RFQ now: its open quotes and its best bid and ask, by one rule.

The quote board's stars and the inbox's Best bid / Best ask read the same quotes: the ones open
now, at the freshest prices the desk has (`open_quotes`), never a replaced or pulled quote's
price that a slower poll of the RFQ still lists. Plain data: no Textual, no network.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from tui.desk.clearing import quote_is_open

if TYPE_CHECKING:
    from tui.api.models import RFQ, Quote


@dataclass(frozen=True, slots=True)
class QuotedPrices:
    """One quote open on an RFQ now, with the two prices it stands at."""

    quote_id: str
    bid: Decimal | None
    ask: Decimal | None
    record: Quote | None
    """The quote as polled, when a quotes poll (or my own send) has seen it."""


class TwoSided(Protocol):
    """Anything with a bid and an ask (a `QuotedPrices`, a quote board row)."""

    @property
    def bid(self) -> Decimal | None:
        """The bid, if quoted."""

    @property
    def ask(self) -> Decimal | None:
        """The ask, if quoted."""


@dataclass(frozen=True, slots=True)
class BestPrices:
    """The best bid and ask among the quotes open on an RFQ now: what the quote board stars
    and what the inbox's Best bid / Best ask say (`best_prices`)."""

    bid: Decimal | None = None
    ask: Decimal | None = None

    @property
    def crossed(self) -> bool:
        """Whether the best bid stands above the best ask. Two makers can really disagree
        like this (each quote is sane on its own); it is shown as such, never hidden."""
        return self.bid is not None and self.ask is not None and self.bid > self.ask


def open_quotes(rfq: RFQ, records: Mapping[str, Quote], now: datetime) -> list[QuotedPrices]:
    """The quotes open on ``rfq`` now and their prices: the one rule of what is quoted.

    ``records`` are the quotes on the RFQ as the quotes polls saw them (polled every 2 s, the
    freshest word): a record's prices win, and a quote whose record is no longer open
    (replaced, cancelled, expired, accepted) is gone, even while a slower poll of the RFQ still
    lists it among its bids and asks. A quote the RFQ lists that no quotes poll has seen yet
    stands at the RFQ's prices.
    """
    listed_bids = {q.parent_quote_id: q.quote_price for q in rfq.bids}
    listed_asks = {q.parent_quote_id: q.quote_price for q in rfq.asks}
    found: list[QuotedPrices] = []
    for quote_id in dict.fromkeys([*listed_bids, *listed_asks, *records]):
        record = records.get(quote_id)
        if record is None:
            bid, ask = listed_bids.get(quote_id), listed_asks.get(quote_id)
        elif quote_is_open(record, now):
            bid, ask = record.aggregated_bid, record.aggregated_ask
        else:
            continue
        if bid is not None or ask is not None:
            found.append(QuotedPrices(quote_id, bid, ask, record))
    return found


def best_prices(quotes: Iterable[TwoSided]) -> BestPrices:
    """The highest bid and the lowest ask of ``quotes`` (from `open_quotes`)."""
    quotes = list(quotes)
    bids = [q.bid for q in quotes if q.bid is not None]
    asks = [q.ask for q in quotes if q.ask is not None]
    return BestPrices(max(bids, default=None), min(asks, default=None))
