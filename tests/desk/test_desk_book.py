"""The desk's picture of the venue: clearing paths, who must act, deposit hints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from tui.api.models import ClearingEvent, ClearingStatus, Quote
from tui.desk.book import DeskBook
from tui.desk.clearing import NextStep, Role, clearing_steps, quote_is_open
from tui.desk.pool_facts import DepositHint

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
ME = "00000000-0000-4000-8000-00000000000a"
OTHER = "00000000-0000-4000-8000-00000000000b"


def quote(status: str | None, *events: str, taker_side: str = "buy", **extra: object) -> Quote:
    return Quote(
        parent_quote_id=f"q-{status}",
        target_rfq_id="rfq-1",
        maker_company=OTHER,
        expires_at=NOW + timedelta(seconds=30),
        aggregated_bid=Decimal("99"),
        aggregated_ask=Decimal("101"),
        clearing_status=status,
        clearing_events=[
            ClearingEvent(
                rfq_id="rfq-1",
                parent_quote_id=f"q-{status}",
                status=s,
                created_at=NOW + timedelta(seconds=i),
                taker_side=taker_side,
            )
            for i, s in enumerate(events)
        ],
        **extra,
    )


def test_the_path_shows_reached_steps_with_times_and_what_is_ahead() -> None:
    q = quote(
        ClearingStatus.PENDING_MAKER_LAST_LOOK,
        ClearingStatus.PENDING_POOL_CREATION,
        ClearingStatus.PENDING_MAKER_LAST_LOOK,
    )
    steps = clearing_steps(q)
    assert [(s.name, s.state) for s in steps] == [
        ("pool", "done"),
        ("last look", "current"),
        ("booked", "ahead"),
    ]
    assert steps[0].at == NOW and steps[1].at == NOW + timedelta(seconds=1)


def test_a_booked_trade_ends_done_and_a_rejection_replaces_the_rest() -> None:
    booked = clearing_steps(
        quote(
            ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL,
            ClearingStatus.PENDING_MAKER_LAST_LOOK,
            ClearingStatus.PENDING_ATOMIC_DEPOSIT,
            ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL,
        )
    )
    assert [s.name for s in booked] == ["last look", "settling", "booked"]
    assert {s.state for s in booked} == {"done"}
    rejected = clearing_steps(
        quote(
            ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED,
            ClearingStatus.PENDING_MAKER_LAST_LOOK,
            ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED,
        )
    )
    assert [(s.name, s.state) for s in rejected] == [("last look", "done"), ("rejected", "failed")]


def test_an_unknown_status_from_a_newer_venue_does_not_break_the_path() -> None:
    steps = clearing_steps(quote("pending_compliance_review", "pending_compliance_review"))
    assert [s.name for s in steps] == ["last look", "booked"]


def test_who_must_act_and_with_what() -> None:
    book = DeskBook(me=ME)
    last_look = quote(
        ClearingStatus.PENDING_MAKER_LAST_LOOK, ClearingStatus.PENDING_MAKER_LAST_LOOK
    )
    book.quotes_sent = {last_look.parent_quote_id: last_look}
    deposit = quote(
        ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
        ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
        taker_side="sell",
        pending_deposits_sum_qty="1234.5",
    )
    book.quotes_received = {deposit.parent_quote_id: deposit}
    waiting = book.needs_me()
    assert [(t.role, t.next_step) for t in waiting] == [
        (Role.MAKER, NextStep.LAST_LOOK),  # has a deadline: first
        (Role.TAKER, NextStep.APPROVE_DEPOSIT),
    ]
    maker, taker = waiting
    assert maker.side == "sell" and maker.price == Decimal("101")  # the taker bought the ask
    assert maker.deadline == last_look.expires_at
    assert taker.side == "sell" and taker.price == Decimal("99")
    assert book.deposit_hint(taker).amount == Decimal("1234.5")
    # The accept's answer came before the pool existed and said 0: the polled quote's figure
    # is the one to sign for; the answer still gives the pool address.
    book.deposit_hints[taker.key] = DepositHint(Decimal(0), "0x" + "ab" * 20)
    assert book.deposit_hint(taker) == DepositHint(Decimal("1234.5"), "0x" + "ab" * 20)
    # Without a figure on the quote (not polled since), the answer's own amount stands.
    bare = quote(
        ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
        ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
        pending_deposits_sum_qty="not a number",
    )
    book.quotes_received = {bare.parent_quote_id: bare}
    (waiting_bare,) = book.needs_me()[1:]
    book.deposit_hints[waiting_bare.key] = DepositHint(Decimal(7), None)
    assert book.deposit_hint(waiting_bare).amount == Decimal(7)


def test_open_quotes_follow_the_venue_quote_status_when_given() -> None:
    assert quote_is_open(quote(None), NOW)
    assert not quote_is_open(quote(None), NOW + timedelta(minutes=1))
    assert not quote_is_open(quote(None, quote_status="canceled"), NOW)
    assert quote_is_open(quote(None, quote_status="open"), NOW)
