"""My own actions' answers, filed into the book at once (the next poll confirms them).

The venue's answer to an accept, a last look, a deposit approval, a quote sent or pulled, an
RFQ sent or cancelled, or the kill switch is as good a word on that one record as the next
poll, which may wait seconds for the request budget. `file_outcome` moves the records it
names on in the book's stores (a quote's clearing status and events, its RFQ's state, the
deposit hint a permit needs); `close_booked_rfqs` shows the RFQ of a booked quote closed at
once, whichever poll or answer said the quote was booked. `DeskBook.apply` is the only caller:
the book stays the one way records change.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from tui.api.lifecycle import QuoteState, clearing_is_booked, clearing_is_rejected
from tui.api.models import ClearingStatus, RFQStatus
from tui.desk.clearing import Role, track
from tui.desk.messages import ActionKind, ActionOutcome, DepositApproved, KillReport
from tui.desk.pool_facts import DepositHint

if TYPE_CHECKING:
    from tui.api.models import RFQ, Quote
    from tui.desk.book import DeskBook


def file_outcome(book: DeskBook, outcome: ActionOutcome) -> None:
    """What the venue answered to my own action, filed in ``book`` at once."""
    from tui.api.models import RFQ, MakerLastLookResponse, Quote, QuoteAcceptResponse

    record = outcome.record
    quote_id = outcome.ids.quote_id
    rfq_id = outcome.ids.rfq_id
    kind = outcome.kind
    if isinstance(record, RFQ):
        book.filed_rfqs[record.rfq_id] = record
        book.rfqs_sent[record.rfq_id] = record
    elif isinstance(record, QuoteAcceptResponse) and quote_id is not None:
        pending = record.pending_settlement_pool
        book.deposit_hints[quote_id] = DepositHint(
            amount=record.pending_deposits_sum_qty,
            pool_address=pending.address if pending else None,
        )
        _move_on(book.quotes_received, quote_id, str(record.new_clearing_status), outcome)
        _rfq_moves_on(book.rfqs_sent, rfq_id, str(record.new_clearing_status))
    elif isinstance(record, MakerLastLookResponse) and quote_id is not None:
        book.deposit_hints[quote_id] = DepositHint(
            amount=record.pending_deposits_sum_qty,
            pool_address=record.settlement_pool_address,
        )
        _move_on(book.quotes_sent, quote_id, str(record.new_clearing_status), outcome)
        _rfq_moves_on(book.rfqs_received, rfq_id, str(record.new_clearing_status))
    elif isinstance(record, DepositApproved):
        _deposit_approved(book, record, outcome)
    elif isinstance(record, Quote):
        book.quotes_sent[record.parent_quote_id] = record
        if quote_id is not None:  # the quote it replaced
            _quote_state(book.quotes_sent, quote_id, QuoteState.REPLACED)
    elif isinstance(record, KillReport):
        if record.quotes_cancelled:
            for quote in list(book.quotes_sent.values()):
                if _state(quote) in (None, QuoteState.OPEN) and quote.clearing_status is None:
                    _quote_state(book.quotes_sent, quote.parent_quote_id, "canceled")
        for cancelled in record.rfqs_cancelled:
            _rfq_status(book, cancelled, RFQStatus.CANCELED)
    elif kind is ActionKind.CANCEL_QUOTE and quote_id is not None:
        _quote_state(book.quotes_sent, quote_id, QuoteState.CANCELED)
    elif kind is ActionKind.CANCEL_RFQ and rfq_id is not None:
        _rfq_status(book, rfq_id, RFQStatus.CANCELED)


def close_booked_rfqs(book: DeskBook, at: datetime | None) -> None:
    """A quote booked means its RFQ closed: show it closed now, not at the RFQ poll.

    The venue closes the RFQ in the same step that books the trade, so the quotes poll (or
    an action's answer) is as good a word on it as the RFQ poll. The closing is kept like
    an answer (`tui.desk.answers`): an RFQ poll that started before the booking does not
    show the RFQ open again; the next one confirms it.
    """
    for quotes, rfqs in (
        (book.quotes_received, book.rfqs_sent),
        (book.quotes_sent, book.rfqs_received),
    ):
        before: dict[str, RFQ] = {}
        for quote in quotes.values():
            if not clearing_is_booked(quote.clearing_status):
                continue
            rfq = rfqs.get(quote.target_rfq_id)
            if rfq is None or (
                rfq.rfq_status == RFQStatus.CLOSED and clearing_is_booked(rfq.clearing_status)
            ):
                continue
            before[rfq.rfq_id] = rfq
            rfqs[rfq.rfq_id] = rfq.model_copy(
                update={
                    "rfq_status": RFQStatus.CLOSED,
                    "clearing_status": quote.clearing_status,
                }
            )
            if rfqs is book.rfqs_sent:
                book.filed_rfqs.pop(rfq.rfq_id, None)
        if before and at is not None:
            name = "rfqs_sent" if rfqs is book.rfqs_sent else "rfqs_received"
            after = {rfq_id: rfqs[rfq_id] for rfq_id in before}
            book.answers.remember({name: before}, {name: after}, at)


def _move_on(store: dict[str, Quote], quote_id: str, status: str, outcome: ActionOutcome) -> None:
    """A quote's trade reached ``status`` (the answer to an accept or a last look)."""
    from tui.api.models import ClearingEvent  # the record models load with the client

    quote = store.get(quote_id)
    if quote is None:
        return
    when = outcome.at or (quote.clearing_events[-1].created_at if quote.clearing_events else None)
    events = list(quote.clearing_events)
    if when is not None:
        events.append(
            ClearingEvent(
                rfq_id=quote.target_rfq_id,
                parent_quote_id=quote_id,
                status=status,
                created_at=when,
                taker_side=outcome.side
                or next((e.taker_side for e in events if e.taker_side), None),
            )
        )
    state = QuoteState.FAILED if clearing_is_rejected(status) else QuoteState.ACCEPTED
    if clearing_is_booked(status):
        state = QuoteState.FILLED
    store[quote_id] = quote.model_copy(
        update={"clearing_status": status, "clearing_events": events, "quote_status": state}
    )


def _deposit_approved(book: DeskBook, approval: DepositApproved, outcome: ActionOutcome) -> None:
    """My permit for a trade's deposit was taken: when it allows what the venue asked, the
    trade moves on as contract.md says (the taker's to the last look, the maker's to the
    atomic deposit); a smaller permit leaves the trade waiting."""
    for store, waiting, then in (
        (
            book.quotes_received,
            ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
            ClearingStatus.PENDING_MAKER_LAST_LOOK,
        ),
        (
            book.quotes_sent,
            ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL,
            ClearingStatus.PENDING_ATOMIC_DEPOSIT,
        ),
    ):
        quote = store.get(approval.quote_id)
        if quote is None or quote.clearing_status != waiting:
            continue
        role = Role.TAKER if store is book.quotes_received else Role.MAKER
        needed = book.deposit_hint(track(quote, role, book.rfq(quote.target_rfq_id))).amount
        if needed is None or approval.amount >= needed:
            _move_on(store, approval.quote_id, then.value, outcome)
            _rfq_moves_on(
                book.rfqs_sent if role is Role.TAKER else book.rfqs_received,
                quote.target_rfq_id,
                then.value,
            )


def _rfq_moves_on(store: dict[str, RFQ], rfq_id: str | None, status: str) -> None:
    rfq = store.get(rfq_id) if rfq_id else None
    if rfq is not None and rfq_id is not None:
        store[rfq_id] = rfq.model_copy(update={"clearing_status": status})


def _rfq_status(book: DeskBook, rfq_id: str, status: RFQStatus) -> None:
    rfq = book.rfqs_sent.get(rfq_id)
    if rfq is not None:
        book.rfqs_sent[rfq_id] = rfq.model_copy(update={"rfq_status": status})
        book.filed_rfqs.pop(rfq_id, None)


def _quote_state(store: dict[str, Quote], quote_id: str, state: str) -> None:
    quote = store.get(quote_id)
    if quote is not None:
        store[quote_id] = quote.model_copy(update={"quote_status": state})


def _state(quote: Quote) -> str | None:
    """The venue's ``quote_status`` of a quote, when it says."""
    state = (quote.model_extra or {}).get("quote_status")
    return state if isinstance(state, str) else None
