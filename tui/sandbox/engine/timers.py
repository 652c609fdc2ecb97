"""What sandbox time makes due: expiries, clearing deadlines, and a failed timer's leftovers.

Every time-dependent change of the engine is a row of the store's ``timers`` table (kind, ref,
due time), run by `Exchange.tick` in due order. The kinds:

- ``rfq_expiry`` / ``quote_expiry``: an open RFQ or quote reached its ``expires_at``.
- ``pool_open``: a pending pool's creation block (`Clearing.pool_mined`).
- ``transfer_confirm``: a pending transfer's block (`Transfers.confirm`).
- ``clearing_deadline``: a trade waiting in a state with a deadline (`DEADLINE_REJECTIONS`;
  the durations are `tui.sandbox.engine.clearing`'s).
- ``atomic_deposit``: the atomic-deposit block of a trade (`Clearing.atomic_deposit`).

A timer that raises is rolled back alone and what it leaves hanging is ended
(`Timers.abandon`); a database from an older sandbox whose trades lost their timers gets them
back on open (`Timers.rescue`).
"""

from __future__ import annotations

from tui.api.lifecycle import QuoteState, clearing_is_final
from tui.api.models import ClearingStatus, RFQStatus, SettlementPoolStatus
from tui.sandbox.engine.clearing import Clearing
from tui.sandbox.engine.pools import cancel_pool
from tui.sandbox.engine.records import (
    accepted_quotes,
    load_pool,
    load_quote,
    load_rfq,
    save_quote,
    waiting_for_pool,
)
from tui.sandbox.engine.rfqs import expire_rfq
from tui.sandbox.engine.store import Store

__all__ = ["DEADLINE_REJECTIONS", "Timers"]

DEADLINE_REJECTIONS = {
    ClearingStatus.PENDING_POOL_CREATION.value: ClearingStatus.REJECTED_FAILED_POOL_CREATION,
    ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL.value: (
        ClearingStatus.REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL
    ),
    ClearingStatus.PENDING_MAKER_LAST_LOOK.value: ClearingStatus.REJECTED_MAKER_LAST_LOOK_EXPIRED,
    ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL.value: (
        ClearingStatus.REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL
    ),
}
"""Waiting states with a deadline, and the rejection their deadline leads to."""


class Timers:
    """The work of the engine's timers (but a transfer's block), and the repair of failed ones."""

    def __init__(self, store: Store, clearing: Clearing) -> None:
        self.store = store
        self.clearing = clearing

    def run(self, kind: str, ref: str, at_ms: int) -> bool:
        """Do the work of one due timer; False when ``kind`` is not one of these."""
        if kind == "rfq_expiry":
            self._expire_rfq(ref, at_ms)
        elif kind == "quote_expiry":
            self._expire_quote(ref)
        elif kind == "pool_open":
            self.clearing.pool_mined(ref, at_ms)
        elif kind == "clearing_deadline":
            self.deadline(ref, at_ms)
        elif kind == "atomic_deposit":
            self.clearing.atomic_deposit(ref, at_ms)
        else:
            return False
        return True

    def _expire_rfq(self, rfq_id: str, at_ms: int) -> None:
        rfq = load_rfq(self.store, rfq_id)
        if rfq is None or rfq["rfq_status"] != RFQStatus.OPEN:
            return
        if self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (rfq_id,)):
            return  # a trade is clearing; when it fails, `Clearing.fail` expires the RFQ
        expire_rfq(self.store, rfq)

    def _expire_quote(self, quote_id: str) -> None:
        quote = load_quote(self.store, quote_id)
        if quote is not None and quote["quote_status"] == QuoteState.OPEN:
            quote["quote_status"] = QuoteState.EXPIRED.value
            save_quote(self.store, quote)

    def deadline(self, ref: str, now_ms: int) -> None:
        """A waiting state's deadline passed: reject the trade if it is still waiting there."""
        quote_id, _, status = ref.partition("|")
        quote = load_quote(self.store, quote_id)
        if quote is None or quote["clearing_status"] != status or status not in DEADLINE_REJECTIONS:
            return
        if quote["_clearing"].get("deadline_ms", now_ms) > now_ms:
            return
        self.clearing.fail(quote, DEADLINE_REJECTIONS[status], now_ms)

    def abandon(self, kind: str, ref: str, now_ms: int) -> None:
        """A clearing timer (``kind`` for ``ref``) failed: end its trade with a final status.

        Pool creation -> the pool is canceled and its waiting trades
        ``rejected_failed_pool_creation``; the atomic deposit -> ``rejected_failed_atomic_deposit``;
        a deadline -> the rejection of the state it guarded, when the trade is still there. A
        trade that already ended (or moved on past a deadline) is left alone.
        """
        if kind == "pool_open":
            pool = load_pool(self.store, ref)
            if pool is not None and pool["status"] == SettlementPoolStatus.PENDING:
                cancel_pool(self.store, pool, "pool creation failed")
            for waiting in waiting_for_pool(self.store, ref):
                self.clearing.fail(waiting, ClearingStatus.REJECTED_FAILED_POOL_CREATION, now_ms)
            return
        quote_id, _, waited = ref.partition("|")
        quote = load_quote(self.store, quote_id)
        if quote is None or quote["quote_status"] != QuoteState.ACCEPTED:
            return
        if clearing_is_final(quote["clearing_status"]):
            return
        if kind == "atomic_deposit":
            self.clearing.fail(quote, ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT, now_ms)
        elif kind == "clearing_deadline" and quote["clearing_status"] == waited:
            rejection = DEADLINE_REJECTIONS.get(waited, ClearingStatus.REJECTED_FAILED_RISK_CHECKS)
            self.clearing.fail(quote, rejection, now_ms)

    def rescue(self, now_ms: int) -> None:
        """Give every trade still clearing with no timer left to move it one due now.

        A database written by an older sandbox may hold trades whose only timer failed and was
        dropped: a waiting state then meets its deadline at once, and a pending atomic deposit
        gets its block (it books or fails). Cheap when nothing hangs: one pass over the
        accepted quotes.
        """
        for quote in accepted_quotes(self.store):
            quote_id = quote["parent_quote_id"]
            status = quote["clearing_status"]
            pool_id = (quote.get("_clearing") or {}).get("pool_id", "")
            pending = self.store.scalar(
                "SELECT 1 FROM timers WHERE ref = ? OR ref LIKE ? OR (kind = 'pool_open' "
                "AND ref = ?) LIMIT 1",
                (quote_id, f"{quote_id}|%", pool_id),
            )
            if pending:
                continue
            if status == ClearingStatus.PENDING_ATOMIC_DEPOSIT:
                self.store.add_timer(now_ms, "atomic_deposit", quote_id)
            elif status in DEADLINE_REJECTIONS:
                quote["_clearing"]["deadline_ms"] = now_ms
                save_quote(self.store, quote)
                self.store.add_timer(now_ms, "clearing_deadline", f"{quote_id}|{status}")
