"""The quotes on one of my RFQs as the quote board lists them: open ones only, tightest first.

Each `BoardQuote` is one quote with what the board shows of it (maker, bid, ask, expiry, pool),
read from the freshest source the book has. Kept apart from the board widget
(`tui.desk.widgets.quote_board`) because which quotes are on the board, and in what order, is
a rule about quotes, not about drawing them: no Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from tui.desk.clearing import quote_is_open

if TYPE_CHECKING:
    from tui.api.models import RFQ
    from tui.desk.book import DeskBook


@dataclass(frozen=True)
class BoardQuote:
    """One quote on my RFQ: its id, maker, two prices, expiry and pool."""

    quote_id: str
    maker: str | None
    bid: Decimal | None
    ask: Decimal | None
    expires_at: datetime | None
    pool: str


def board_quotes(rfq: RFQ, book: DeskBook, now: datetime) -> list[BoardQuote]:
    """The open quotes of an RFQ, tightest first.

    The quotes polled from ``/quotes/received`` are the freshest view (cheap to poll, so
    polled often); the RFQ's own bids and asks fill in for quotes not seen there yet.
    """
    bids = {q.parent_quote_id: q.quote_price for q in rfq.bids}
    asks = {q.parent_quote_id: q.quote_price for q in rfq.asks}
    records = {
        q.parent_quote_id: q for q in book.quotes_received.values() if q.target_rfq_id == rfq.rfq_id
    }
    found = []
    for quote_id in dict.fromkeys([*bids, *asks, *records]):
        record = records.get(quote_id)
        if record is not None and not quote_is_open(record, now):
            continue
        meta = rfq.quotes_common_metadata.get(quote_id, {})
        maker = record.maker_company if record else meta.get("maker_company")
        expires = record.expires_at if record else None
        bid = record.aggregated_bid if record else bids.get(quote_id)
        ask = record.aggregated_ask if record else asks.get(quote_id)
        if record and record.pool_location:
            pool = book.pool_name(record.pool_location)
        elif record and record.new_pool_name:
            pool = f"new: {record.new_pool_name}"
        else:
            pool = "-"
        if bid is None and ask is None:
            continue
        found.append(BoardQuote(quote_id, maker, bid, ask, expires, pool))
    # Tightest first: the best ask, then the best bid.
    found.sort(key=lambda q: (q.ask is None, q.ask or Decimal(0), -(q.bid or Decimal(0))))
    return found
