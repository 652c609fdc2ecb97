"""The clearing state machine of contract.md: from an accepted quote to trades in a pool.

One method per move. Each runs inside the caller's transaction, appends a `ClearingEvent`
to the quote, and mirrors the status onto the RFQ (``clearing_status`` of an RFQ is the
status of its latest accepted quote). The path::

    accept --create_new--> pending_pool_creation --pool mined--> (taker margin check)
    accept --existing pool--> (taker margin check)
    (taker margin check) --short--> pending_taker_deposit_approval --taker permit--> last look
                         --enough--> pending_maker_last_look
    last look --reject--> rejected_maker_last_look_rejected
              --accept, no deposit needed--> success_trades_booked_into_pool
              --accept, maker short, no allowance--> pending_maker_deposit_approval
                                                     --maker permit--> pending_atomic_deposit
              --accept, otherwise--> pending_atomic_deposit --block mined--> booked

Deadlines (documented choices where the contract is silent; the timers that enforce them are
in `tui.sandbox.engine.timers`):

- A deposit approval (taker or maker) waits `DEPOSIT_APPROVAL_S` (120 s) for a permit, then
  ``rejected_failed_*_deposit_approval``. A permit that already allows the amount skips it.
- Last look ends at the quote's ``expires_at``, but never sooner than `LAST_LOOK_MIN_S` (10 s)
  after the trade reached it (a trade that took its time through pool creation and deposit
  approval must not expire the instant it reaches the maker): then
  ``rejected_maker_last_look_expired``.
- Pool creation and the atomic deposit take one block (the exchange's ``block_delay_s``). A
  pool not created within `POOL_CREATION_S` (60 s) fails its trade:
  ``rejected_failed_pool_creation``.
- A clearing step that fails unexpectedly (a timer raising) ends its trade in that step's
  final ``rejected_*`` status (`Timers.abandon`).

Failure triggers besides the deadlines:

- ``rejected_failed_risk_checks`` / ``rejected_failed_reduce_only_check`` at accept
  (`tui.sandbox.engine.risk`, where margin reserved by trades still clearing is kept, too).
- ``rejected_failed_pool_creation`` when the block confirms: another pool of the same two
  companies with the same name (case-insensitive) opened first.
- ``rejected_failed_taker_funding`` / ``rejected_failed_maker_funding`` at the atomic deposit:
  the wallet no longer holds the amount, or the allowance was used up meanwhile (for example by
  a manual deposit); and just before any booking, when that side's equity after the trade (its
  deposit included) would not cover its maintenance margin. ``rejected_failed_atomic_deposit``:
  the pool is no longer open.

A failed trade frees its RFQ: another quote may be accepted (or, past its expiry, the RFQ
expires). A booked trade closes the RFQ and voids its other open quotes.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tui.api.lifecycle import QuoteState, clearing_is_final
from tui.api.models import (
    ClearingStatus,
    MakerLastLookResponse,
    PendingSettlementPool,
    QuoteAcceptResponse,
    RFQStatus,
    SettlementPoolStatus,
    TradeSide,
)
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.clearing_end import ClearingEnd
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.pools import cancel_pool, name_taken, open_pool, pool_for_quote
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.records import (
    accepted_quotes,
    clearing_event,
    load_pool,
    load_quote,
    load_rfq,
    save_quote,
    save_rfq,
    waiting_for_pool,
)
from tui.sandbox.engine.rfqs import expire_rfq, void_open_quotes
from tui.sandbox.engine.risk import Risk
from tui.sandbox.engine.store import RecordSink, Store

__all__ = ["DEPOSIT_APPROVAL_S", "LAST_LOOK_MIN_S", "POOL_CREATION_S", "Clearing"]

DEPOSIT_APPROVAL_S = 120
"""How long a trade waits for a deposit permit before it is rejected."""
POOL_CREATION_S = 60
"""How long a trade waits for its new pool's creation block before it is rejected."""
LAST_LOOK_MIN_S = 10
"""The shortest last-look window a maker gets, whatever the quote's expiry."""

_ZERO = Decimal(0)


class Clearing(ClearingEnd):
    """Moves trades along the clearing path; the exchange calls it inside its transactions.

    How a trade ends (settled and booked, `book`, or failed) is `ClearingEnd`'s."""

    def __init__(self, store: Store, chain: Chain, portfolio: Portfolio, risk: Risk) -> None:
        self.store = store
        self.chain = chain
        self.portfolio = portfolio
        self.risk = risk

    # -- bookkeeping of every move -----------------------------------------------------------

    def _sink(self) -> RecordSink:
        return self.store

    def _move(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        current = quote.get("clearing_status")
        if clearing_is_final(current):
            # Every rejected_* and the booked status are final: a bug, never a request, gets here.
            raise RuntimeError(
                f"quote {quote['parent_quote_id']}: final status {current} cannot become {status}"
            )
        quote["clearing_status"] = status.value
        quote.setdefault("clearing_events", []).append(clearing_event(quote, status.value, now_ms))
        save_quote(self.store, quote)
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        if rfq is not None:
            rfq["clearing_status"] = status.value
            save_rfq(self.store, rfq)

    def _deadline(self, quote: dict[str, Any], status: ClearingStatus, due_ms: int) -> None:
        quote["_clearing"]["deadline_ms"] = due_ms
        self.store.add_timer(due_ms, "clearing_deadline", f"{quote['parent_quote_id']}|{status}")

    def record_accept_failure(
        self, quote: dict[str, Any] | None, status: ClearingStatus, side: TradeSide, now_ms: int
    ) -> None:
        """Record a ``rejected_failed_taker_accept_*`` on the quote (when there is one).

        Only a quote without a clearing status yet records it: a quote whose trade is under
        way or over (a maker's rejection, a failed deposit, an earlier refused accept) keeps
        its status; the taker gets the 409 all the same.
        """
        if quote is None or quote.get("clearing_status") is not None:
            return
        quote["_clearing"] = {**(quote.get("_clearing") or {}), "taker_side": side.value}
        if quote["quote_status"] == QuoteState.OPEN:
            # An expired quote is expired; a quote of an expired RFQ is void with it.
            expired = status is ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED
            quote["quote_status"] = (QuoteState.EXPIRED if expired else QuoteState.VOID).value
        self._move(quote, status, now_ms)

    def fail(self, quote: dict[str, Any], status: ClearingStatus, now_ms: int) -> None:
        """End a trade with a ``rejected_*`` status and free its RFQ."""
        quote["quote_status"] = QuoteState.FAILED.value
        self._move(quote, status, now_ms)
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        if rfq is None:
            return
        save_rfq(self.store, rfq, live_quote=None)
        if rfq["rfq_status"] == RFQStatus.OPEN and now_ms >= rfq["_expires_ms"]:
            expire_rfq(self.store, rfq)

    # -- accept ------------------------------------------------------------------------------

    def accept(
        self,
        rfq: dict[str, Any],
        quote: dict[str, Any],
        side: TradeSide,
        now_ms: int,
        *,
        reduce_only_underlyings: frozenset[str] = frozenset(),
    ) -> QuoteAcceptResponse | ServiceError:
        """Create the trade of an open quote on an open RFQ (already validated).

        Returns the response, or the 409 to raise *after* the transaction commits (the
        rejection is recorded on the quote).
        """
        quote["quote_status"] = QuoteState.ACCEPTED.value
        quote["_clearing"] = {
            "taker_side": side.value,
            "accepted_ms": now_ms,
            "taker_deposit": "0",
            "maker_deposit": "0",
        }
        save_rfq(self.store, rfq, live_quote=quote["parent_quote_id"])
        refusal = self.risk.accept_refusal(rfq, quote, side, now_ms, reduce_only_underlyings)
        if refusal is not None:
            status, message = refusal
            self.fail(quote, status, now_ms)
            return ServiceError.conflict(f"{status.value}: {message}")

        strategy = quote["_pool_strategy"]
        if strategy["strategy"] == "create_new":
            pool = pool_for_quote(self.store, self.chain, quote, rfq["taker_company"], now_ms)
            quote["pool_location"] = pool["pool_id"]
            quote["_clearing"]["pool_id"] = pool["pool_id"]
            self._move(quote, ClearingStatus.PENDING_POOL_CREATION, now_ms)
            self._deadline(
                quote, ClearingStatus.PENDING_POOL_CREATION, now_ms + POOL_CREATION_S * 1000
            )
            save_quote(self.store, quote)
            return QuoteAcceptResponse(
                new_clearing_status=ClearingStatus.PENDING_POOL_CREATION,
                pending_deposits_sum_qty=_ZERO,
                pending_settlement_pool=PendingSettlementPool(
                    id=pool["pool_id"],
                    created_at=pool["created_at"],
                    status=pool["status"],
                    company_creator=pool["company_creator"],
                    address=pool["address"],
                    confirmed_by_transaction_id=None,
                ),
            )
        quote["_clearing"]["pool_id"] = strategy["pool_id"]
        self._check_taker_margin(quote, rfq, now_ms)
        return QuoteAcceptResponse(
            new_clearing_status=quote["clearing_status"],
            pending_deposits_sum_qty=Decimal(quote["_clearing"]["taker_deposit"]),
            pending_settlement_pool=None,
        )

    # -- pool creation -----------------------------------------------------------------------

    def pool_mined(self, pool_id: str, now_ms: int) -> None:
        """A pending pool's creation block: open it (or fail on a name clash), move its trades."""
        pool = load_pool(self.store, pool_id)
        if pool is None or pool["status"] != SettlementPoolStatus.PENDING:
            return
        clash = name_taken(self.store, pool)
        waiting = waiting_for_pool(self.store, pool_id)
        if clash:
            cancel_pool(
                self.store,
                pool,
                f"pool_name: a pool named {pool['name']!r} already exists between these companies",
            )
            for quote in waiting:
                self.fail(quote, ClearingStatus.REJECTED_FAILED_POOL_CREATION, now_ms)
            return
        open_pool(self.store, self.chain, pool)
        for quote in waiting:
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is not None:
                self._check_taker_margin(quote, rfq, now_ms)

    # -- taker margin and deposit approval ---------------------------------------------------

    def _check_taker_margin(self, quote: dict[str, Any], rfq: dict[str, Any], now_ms: int) -> None:
        pool = load_pool(self.store, quote["_clearing"]["pool_id"])
        assert pool is not None
        taker = rfq["taker_company"]
        shortfall = self.risk.shortfall(quote, rfq, pool, taker)
        quote["_clearing"]["taker_deposit"] = format(shortfall, "f")
        if shortfall <= 0:
            self._enter_last_look(quote, now_ms)
            return
        self._move(quote, ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL, now_ms)
        if self.chain.allows(taker, pool["address"], shortfall):
            self._enter_last_look(quote, now_ms)
            return
        self._deadline(
            quote, ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL, now_ms + DEPOSIT_APPROVAL_S * 1000
        )
        save_quote(self.store, quote)

    def _enter_last_look(self, quote: dict[str, Any], now_ms: int) -> None:
        self._move(quote, ClearingStatus.PENDING_MAKER_LAST_LOOK, now_ms)
        due = max(quote["_expires_ms"], now_ms + LAST_LOOK_MIN_S * 1000)
        self._deadline(quote, ClearingStatus.PENDING_MAKER_LAST_LOOK, due)
        save_quote(self.store, quote)

    def allowance_changed(self, owner: str, spender: str, now_ms: int) -> None:
        """A permit set ``owner``'s allowance for pool address ``spender``: move what waited."""
        for quote in accepted_quotes(self.store):
            pool = load_pool(self.store, quote["_clearing"].get("pool_id", ""))
            if pool is None or pool["address"] != spender.lower():
                continue
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is None:
                continue
            status = quote["clearing_status"]
            if status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL:
                taker = rfq["taker_company"]
                if self.chain.wallet(taker).address == owner.lower() and self.chain.allows(
                    taker, pool["address"], Decimal(quote["_clearing"]["taker_deposit"])
                ):
                    self._enter_last_look(quote, now_ms)
            elif status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL:
                maker = quote["maker_company"]
                if self.chain.wallet(maker).address == owner.lower() and self.chain.allows(
                    maker, pool["address"], Decimal(quote["_clearing"]["maker_deposit"])
                ):
                    self._enter_atomic_deposit(quote, now_ms)

    # -- last look ---------------------------------------------------------------------------

    def last_look(self, quote: dict[str, Any], accept: bool, now_ms: int) -> MakerLastLookResponse:
        """The maker's answer on a trade in ``pending_maker_last_look`` (checked by the caller)."""
        pool = load_pool(self.store, quote["_clearing"]["pool_id"])
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        assert pool is not None and rfq is not None
        if not accept:
            self.fail(quote, ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED, now_ms)
            return MakerLastLookResponse(
                new_clearing_status=ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED,
                pending_deposits_sum_qty=_ZERO,
                settlement_pool_address=pool["address"],
            )
        maker = quote["maker_company"]
        maker_short = self.risk.shortfall(quote, rfq, pool, maker)
        quote["_clearing"]["maker_deposit"] = format(maker_short, "f")
        taker_deposit = Decimal(quote["_clearing"]["taker_deposit"])
        if taker_deposit <= 0 and maker_short <= 0:
            refusal = self.risk.booking_refusal(quote, rfq, pool)
            if refusal is None:
                self.book(quote, rfq, pool, now_ms)
            else:
                self.fail(quote, refusal, now_ms)
        elif maker_short > 0 and not self.chain.allows(maker, pool["address"], maker_short):
            self._move(quote, ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL, now_ms)
            self._deadline(
                quote,
                ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL,
                now_ms + DEPOSIT_APPROVAL_S * 1000,
            )
            save_quote(self.store, quote)
        else:
            self._enter_atomic_deposit(quote, now_ms)
        return MakerLastLookResponse(
            new_clearing_status=quote["clearing_status"],
            pending_deposits_sum_qty=maker_short,
            settlement_pool_address=pool["address"],
        )

    def _enter_atomic_deposit(self, quote: dict[str, Any], now_ms: int) -> None:
        self._move(quote, ClearingStatus.PENDING_ATOMIC_DEPOSIT, now_ms)
        self.store.add_timer(
            self.chain.confirm_at(now_ms), "atomic_deposit", quote["parent_quote_id"]
        )

    # -- the atomic deposit and booking ------------------------------------------------------

    def atomic_deposit(self, quote_id: str, now_ms: int) -> None:
        """The atomic-deposit block: move both deposits into the pool and book the trades."""
        quote = load_quote(self.store, quote_id)
        if quote is None or quote["clearing_status"] != ClearingStatus.PENDING_ATOMIC_DEPOSIT:
            return
        pool = load_pool(self.store, quote["_clearing"]["pool_id"])
        rfq = load_rfq(self.store, quote["target_rfq_id"])
        assert rfq is not None
        if pool is None or pool["status"] != SettlementPoolStatus.OPEN:
            self.fail(quote, ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT, now_ms)
            return
        self._settle_and_book(quote, rfq, pool, now_ms)

    def _close_rfq(self, rfq: dict[str, Any]) -> None:
        """The trade booked: the RFQ closes and its other open quotes are void."""
        fresh = load_rfq(self.store, rfq["rfq_id"])
        assert fresh is not None
        fresh["rfq_status"] = RFQStatus.CLOSED.value
        save_rfq(self.store, fresh)
        void_open_quotes(self.store, rfq["rfq_id"])
