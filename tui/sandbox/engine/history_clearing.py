"""One trade of the seeded past along the clearing path, on the history's books in memory.

The path and its rules are `tui.sandbox.engine.clearing`'s; this is the part of it a history
trade takes, computed at once instead of request by request: the history's taker accepts, its
maker always accepts last look, and a company asked for a deposit approval signs its permit at
that very moment (as the simulated companies did when the history was played through the
engine). The checks are the engine's own (`Risk` over a `HistoryPortfolio`), so the outcome is
the same, a failure included: a refusal at accept (`ServiceError`, as the endpoint raises it),
a side short of money at the atomic deposit, a booking that would break maintenance margin.

Every move appends its `ClearingEvent` and is mirrored on the RFQ, as `Clearing` does; every
timer the engine would have scheduled is noted (`HistoryRecords.add_timer`), so the ids and the
timers still due at the end are the engine's.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    ClearingStatus,
    DecimalAllowance,
    RFQLeg,
    RFQStatus,
    TradeSide,
    allowance_units,
)
from tui.sandbox.actors.deposits import estimated_deposit, permit_allowance
from tui.sandbox.engine.chain import Chain, PermitGrant
from tui.sandbox.engine.clearing import DEPOSIT_APPROVAL_S, LAST_LOOK_MIN_S
from tui.sandbox.engine.clearing_end import ClearingEnd
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.history_book import HistoryPortfolio, HistoryRecords
from tui.sandbox.engine.records import clearing_event
from tui.sandbox.engine.risk import Risk, reduce_only_underlyings
from tui.sandbox.engine.store import RecordSink

__all__ = ["HistoryClearing"]


class HistoryClearing(ClearingEnd):
    """Accept, last look and atomic deposit of history trades, on the books in memory (how a
    trade ends, settled and booked or failed, is `ClearingEnd`'s)."""

    def __init__(
        self, chain: Chain, book: HistoryPortfolio, records: HistoryRecords, market: Any
    ) -> None:
        self.chain = chain
        self.portfolio = book
        self.records = records
        self.market = market
        self.risk = Risk(chain.store, book)
        self.reduce_only = reduce_only_underlyings(market)

    # -- moves ---------------------------------------------------------------------------------

    def _sink(self) -> RecordSink:
        return self.records

    def _move(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        quote["clearing_status"] = status.value
        quote["clearing_events"].append(clearing_event(quote, status.value, now_ms))
        self.records.rfqs[quote["target_rfq_id"]]["clearing_status"] = status.value

    def _deadline(self, quote: dict[str, Any], status: ClearingStatus, due_ms: int) -> None:
        quote["_clearing"]["deadline_ms"] = due_ms
        self.records.add_timer(due_ms, "clearing_deadline", f"{quote['parent_quote_id']}|{status}")

    def fail(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        """End the trade with a ``rejected_*`` status and free its RFQ (`Clearing.fail`)."""
        quote["quote_status"] = QuoteState.FAILED.value
        self._move(quote, status, now_ms)
        rfq = self.records.rfqs[quote["target_rfq_id"]]
        self.records.live_quote[rfq["rfq_id"]] = None
        if rfq["rfq_status"] == RFQStatus.OPEN and now_ms >= rfq["_expires_ms"]:
            rfq["rfq_status"] = RFQStatus.EXPIRED.value

    def _enter_last_look(self, quote: dict[str, Any], now_ms: int) -> None:
        self._move(quote, ClearingStatus.PENDING_MAKER_LAST_LOOK, now_ms)
        due = max(quote["_expires_ms"], now_ms + LAST_LOOK_MIN_S * 1000)
        self._deadline(quote, ClearingStatus.PENDING_MAKER_LAST_LOOK, due)

    def _approve(
        self, company_id: str, deposit: Decimal, rfq: dict[str, Any], pool: dict[str, Any]
    ) -> None:
        """The company's permit for the deposit its trade waits for (what `approve_deposit`
        signs: at least the deposit, and the estimate of what the legs can need)."""
        legs = [RFQLeg.model_validate(leg) for leg in rfq["rfq_legs"]]
        self.permit(company_id, pool, max(deposit, estimated_deposit(legs, self.market.mark_price)))

    def permit(self, company_id: str, pool: dict[str, Any], amount: Decimal) -> None:
        """A permit of the company's wallet for the pool address, as `approve_deposit` gets
        one: it sets the allowance and uses the wallet's nonce."""
        owner = self.chain.wallet(company_id).address
        units = allowance_units(DecimalAllowance(value=permit_allowance(amount)))
        self.chain.use_permit(
            PermitGrant(owner, pool["address"], units, self.chain.nonce(owner), deadline=0)
        )

    # -- the path --------------------------------------------------------------------------------

    def accept(
        self, rfq: dict[str, Any], quote: dict[str, Any], side: TradeSide, now_ms: int
    ) -> None:
        """The taker takes the quote (`Clearing.accept` on an existing pool), approving a
        deposit at once if margin asks for one. Raises the endpoint's 409 on a refusal."""
        quote["quote_status"] = QuoteState.ACCEPTED.value
        quote["_clearing"] = {
            "taker_side": side.value,
            "accepted_ms": now_ms,
            "taker_deposit": "0",
            "maker_deposit": "0",
        }
        self.records.live_quote[rfq["rfq_id"]] = quote["parent_quote_id"]
        refusal = self.risk.accept_refusal(rfq, quote, side, now_ms, self.reduce_only)
        if refusal is not None:
            status, message = refusal
            self.fail(quote, status, now_ms)
            raise ServiceError.conflict(f"{status.value}: {message}")
        pool = self.records.pools[quote["_pool_strategy"]["pool_id"]]
        quote["_clearing"]["pool_id"] = pool["pool_id"]
        taker = rfq["taker_company"]
        shortfall = self.risk.shortfall(quote, rfq, pool, taker)
        quote["_clearing"]["taker_deposit"] = format(shortfall, "f")
        if shortfall > 0:
            self._move(quote, ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL, now_ms)
            if not self.chain.allows(taker, pool["address"], shortfall):
                self._deadline(
                    quote,
                    ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
                    now_ms + DEPOSIT_APPROVAL_S * 1000,
                )
                # The taker's permit allows at least the shortfall: the trade moves on.
                self._approve(taker, shortfall, rfq, pool)
        self._enter_last_look(quote, now_ms)

    def last_look(self, rfq: dict[str, Any], quote: dict[str, Any], now_ms: int) -> bool:
        """The maker accepts (`Clearing.last_look`), approving its deposit at once if it must;
        True when the trade now waits for its atomic-deposit block."""
        pool = self.records.pools[quote["_clearing"]["pool_id"]]
        maker = quote["maker_company"]
        maker_short = self.risk.shortfall(quote, rfq, pool, maker)
        quote["_clearing"]["maker_deposit"] = format(maker_short, "f")
        if Decimal(quote["_clearing"]["taker_deposit"]) <= 0 and maker_short <= 0:
            refusal = self.risk.booking_refusal(quote, rfq, pool)
            if refusal is None:
                self.book(quote, rfq, pool, now_ms)
            else:
                self.fail(quote, refusal, now_ms)
            return False
        if maker_short > 0 and not self.chain.allows(maker, pool["address"], maker_short):
            self._move(quote, ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL, now_ms)
            self._deadline(
                quote,
                ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL,
                now_ms + DEPOSIT_APPROVAL_S * 1000,
            )
            # The maker's permit allows at least its deposit: the trade moves on.
            self._approve(maker, maker_short, rfq, pool)
        self._move(quote, ClearingStatus.PENDING_ATOMIC_DEPOSIT, now_ms)
        self.records.add_timer(
            self.chain.confirm_at(now_ms), "atomic_deposit", quote["parent_quote_id"]
        )
        return True

    def atomic_deposit(self, rfq: dict[str, Any], quote: dict[str, Any], due_ms: int) -> None:
        """The atomic-deposit block at ``due_ms`` (`Clearing.atomic_deposit`): both deposits
        move and the trade books, or it fails for want of money or margin."""
        pool = self.records.pools[quote["_clearing"]["pool_id"]]
        self._settle_and_book(quote, rfq, pool, due_ms)

    def _close_rfq(self, rfq: dict[str, Any]) -> None:
        rfq["rfq_status"] = RFQStatus.CLOSED.value
