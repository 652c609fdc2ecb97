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

from tui.desk.best_price import open_quotes

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
    """The open quotes of an RFQ (`tui.desk.best_price.open_quotes`, the rule the inbox's best
    prices follow too), tightest first, each with its maker, expiry and pool."""
    found = []
    for quoted in open_quotes(rfq, book.quotes_on(rfq.rfq_id), now):
        record = quoted.record
        meta = rfq.quotes_common_metadata.get(quoted.quote_id, {})
        maker = record.maker_company if record else meta.get("maker_company")
        if record and record.pool_location:
            pool = book.pool_name(record.pool_location)
        elif record and record.new_pool_name:
            pool = f"new: {record.new_pool_name}"
        else:
            pool = "-"
        expires = record.expires_at if record else None
        found.append(BoardQuote(quoted.quote_id, maker, quoted.bid, quoted.ask, expires, pool))
    # Tightest first: the best ask, then the best bid.
    found.sort(key=lambda q: (q.ask is None, q.ask or Decimal(0), -(q.bid or Decimal(0))))
    return found
