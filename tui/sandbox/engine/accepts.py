"""The doorway into clearing: the taker's accept and the maker's last look, checked.

`Accepts.accept` refuses, in order: unknown RFQ (404); RFQ closed or canceled (409); a trade
clearing on the RFQ, this quote's or another's (409, nothing changes: one live trade per RFQ at
a time); RFQ expired -> 409 ``rejected_failed_taker_accept_rfq_expired``; no such quote on the
RFQ -> 409 ``rejected_failed_taker_accept_no_quote``; quote expired -> 409
``rejected_failed_taker_accept_quote_expired``; quote not open -> 409
``rejected_failed_taker_accept_no_quote``; the side not priced on every leg (400/1001). Then the
trade starts clearing (`tui.sandbox.engine.clearing`), where the venue's risk and reduce-only
checks may still refuse it (409 ``rejected_failed_risk_checks`` /
``rejected_failed_reduce_only_check``). The ``rejected_failed_taker_accept_*`` statuses are
recorded (committed) before the 409 is raised, on a quote that has no clearing status yet
only: a quote whose trade already ended keeps its final status.

The last look is the quote's maker's, on a trade in ``pending_maker_last_look`` only (else
409; another company's quote answers 404).
"""

from __future__ import annotations

from typing import Any

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    AcceptQuoteRequest,
    ClearingStatus,
    MakerLastLookRequest,
    MakerLastLookResponse,
    QuoteAcceptResponse,
    RequestAction,
    RFQStatus,
    TradeSide,
)
from tui.sandbox.engine.clearing import Clearing
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.market_api import MarketApi
from tui.sandbox.engine.records import load_quote, load_rfq
from tui.sandbox.engine.risk import reduce_only_underlyings
from tui.sandbox.engine.store import Store

__all__ = ["Accepts"]


class Accepts:
    """``/quotes/accept`` and ``/quotes/maker_last_look``: checks, then the clearing move."""

    def __init__(self, store: Store, market: MarketApi, clearing: Clearing) -> None:
        self.store = store
        self.market = market
        self.clearing = clearing

    def accept(
        self, me: str, body: AcceptQuoteRequest, now: int
    ) -> QuoteAcceptResponse | ServiceError:
        """The response, or the 409 to raise once the transaction (and its record) commits."""
        rfq = load_rfq(self.store, body.rfq_id)
        if rfq is None or rfq["taker_company"] != me:
            raise ServiceError.not_found("rfq_id: RFQ")
        quote = load_quote(self.store, body.parent_quote_id)
        if quote is not None and quote["target_rfq_id"] != rfq["rfq_id"]:
            quote = None
        status = rfq["rfq_status"]
        if status in (RFQStatus.CLOSED, RFQStatus.CANCELED):
            reason = "a trade was booked from it" if status == RFQStatus.CLOSED else "canceled"
            raise ServiceError.conflict(f"rfq_id: the RFQ is {status} ({reason})")
        # A trade clearing on the RFQ comes first: whatever else is true by now (the RFQ may
        # have expired meanwhile), a second accept must not touch the trade under way.
        live = self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (rfq["rfq_id"],))
        if live:
            live_quote = load_quote(self.store, live)
            live_status = live_quote["clearing_status"] if live_quote else "clearing"
            if quote is not None and live == quote["parent_quote_id"]:
                raise ServiceError.conflict(
                    f"parent_quote_id: the quote is already accepted ({live_status})"
                )
            raise ServiceError.conflict(
                f"rfq_id: another quote's trade is clearing ({live_status}); "
                "another quote can be accepted only if it fails"
            )
        if status == RFQStatus.EXPIRED or now >= rfq["_expires_ms"]:
            return self._failure(
                quote,
                ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED,
                body.side,
                now,
                f"rfq_id: the RFQ expired at {rfq['rfq_expires_at']}",
            )
        if quote is None:
            return ServiceError.conflict(
                f"{ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE.value}: "
                "parent_quote_id: no such quote on this RFQ"
            )
        if quote["quote_status"] == QuoteState.EXPIRED or (
            quote["quote_status"] == QuoteState.OPEN and now >= quote["_expires_ms"]
        ):
            return self._failure(
                quote,
                ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED,
                body.side,
                now,
                f"parent_quote_id: the quote expired at {quote['expires_at']}",
            )
        if quote["quote_status"] != QuoteState.OPEN:
            return self._failure(
                quote,
                ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE,
                body.side,
                now,
                f"parent_quote_id: the quote is {quote['quote_status']}, not open",
            )
        price_key = "aggregated_ask" if body.side is TradeSide.BUY else "aggregated_bid"
        if quote.get(price_key) is None:
            wanted = "an ask" if body.side is TradeSide.BUY else "a bid"
            raise ServiceError.out_of_range(
                f"side: the quote has no {wanted} on every leg; it cannot be "
                f"{'bought' if body.side is TradeSide.BUY else 'sold'}"
            )
        return self.clearing.accept(
            rfq, quote, body.side, now, reduce_only_underlyings=reduce_only_underlyings(self.market)
        )

    def _failure(
        self,
        quote: dict[str, Any] | None,
        status: ClearingStatus,
        side: TradeSide,
        now: int,
        message: str,
    ) -> ServiceError:
        self.clearing.record_accept_failure(quote, status, side, now)
        return ServiceError.conflict(f"{status.value}: {message}")

    def last_look(self, me: str, body: MakerLastLookRequest, now: int) -> MakerLastLookResponse:
        """The maker's final word on a trade in ``pending_maker_last_look`` (else 409)."""
        quote = load_quote(self.store, body.parent_quote_id)
        if quote is None or quote["maker_company"] != me or quote["target_rfq_id"] != body.rfq_id:
            raise ServiceError.not_found("parent_quote_id: quote")
        if quote["clearing_status"] != ClearingStatus.PENDING_MAKER_LAST_LOOK:
            current = quote["clearing_status"] or "not accepted"
            raise ServiceError.conflict(
                f"parent_quote_id: the trade is {current}, not pending_maker_last_look"
            )
        return self.clearing.last_look(quote, body.action is RequestAction.ACCEPT, now)
