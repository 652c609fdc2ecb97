"""How a trade's clearing ends, live and in the seeded history alike: it settles and books, or
it fails.

At its atomic deposit a trade's deposits move into the pool (`booking.settle_deposits`); a
side short of money or margin ends the trade in that side's ``rejected_*`` status, otherwise
the trade books: one trade record per leg per side, the quote filled in its pool, the status
``success_trades_booked_into_pool`` and the RFQ closed. The live engine
(`tui.sandbox.engine.clearing.Clearing`) and the seeded history
(`tui.sandbox.engine.history_clearing.HistoryClearing`) both end trades this way, so the
sequence has one home here; each says where its records go, how a move is recorded, how a
trade fails and how its RFQ closes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from tui.api.lifecycle import QuoteState
from tui.api.models import ClearingStatus
from tui.sandbox.engine.booking import settle_deposits, write_trades
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.risk import Risk
from tui.sandbox.engine.store import RecordSink


class ClearingEnd(ABC):
    """The end of the clearing path (see module docs); subclasses give the records and moves."""

    chain: Chain
    portfolio: Portfolio
    risk: Risk

    @abstractmethod
    def _sink(self) -> RecordSink:
        """Where the deposits and trades of a booking are written."""

    @abstractmethod
    def _move(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        """Record the trade's new status (its clearing event, mirrored on the RFQ)."""

    @abstractmethod
    def fail(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        """End the trade with a ``rejected_*`` status and free its RFQ."""

    @abstractmethod
    def _close_rfq(self, rfq: dict[str, Any]) -> None:
        """The trade booked: its RFQ closes (and takes no other quote)."""

    def _settle_and_book(
        self, quote: dict[str, Any], rfq: dict[str, Any], pool: dict[str, Any], now_ms: int
    ) -> None:
        """Move both deposits into the pool and book the trade, or fail it for want of money
        or margin."""
        failure = settle_deposits(
            self._sink(), self.chain, self.portfolio, self.risk, quote, rfq, pool, now_ms
        )
        if failure is not None:
            self.fail(quote, failure, now_ms)
            return
        self.book(quote, rfq, pool, now_ms)

    def book(
        self, quote: dict[str, Any], rfq: dict[str, Any], pool: dict[str, Any], now_ms: int
    ) -> None:
        """Book one trade per leg per side, update positions, close the RFQ."""
        write_trades(self._sink(), self.portfolio, quote, rfq, pool, now_ms)
        quote["quote_status"] = QuoteState.FILLED.value
        quote["pool_location"] = pool["pool_id"]
        self._move(quote, ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL, now_ms)
        self._close_rfq(rfq)
