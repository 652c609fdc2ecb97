"""The desk's picture of the venue: clearing paths, who must act, deposit hints, the
aggregated positions and the history kept across restarts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from tests.desk.kit.records import RFQ_ID
from tests.desk.kit.records import rfq as sent_rfq
from tui.api.models import AggregatedPosition, ClearingEvent, ClearingStatus, Position, Quote
from tui.desk.analytics.history import EntryKind, Outcome
from tui.desk.book import DeskBook
from tui.desk.clearing import NextStep, Role, clearing_steps, quote_is_open
from tui.desk.messages import AggregatedPositionsUpdated, QuotesUpdated, RfqsUpdated, TradesUpdated
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


def _position(qty: str) -> AggregatedPosition:
    return AggregatedPosition(
        sum_delta=qty,
        sum_gamma="0",
        sum_theta="0",
        sum_vega="0",
        sum_rho="0",
        upnl="12.5",
        notional="98000",
        position_info=Position(
            company=ME,
            instrument={"instrument_type": "perpetual_future", "underlying": "BTC"},
            updated_at=NOW,
            qty=qty,
            avg_entry_price="97000",
        ),
    )


def test_the_aggregated_positions_are_filed_from_their_snapshot() -> None:
    book = DeskBook(me=ME)
    book.apply(AggregatedPositionsUpdated(NOW, [_position("1.5")]))
    assert [p.position_info.qty for p in book.aggregated] == [Decimal("1.5")]
    book.apply(AggregatedPositionsUpdated(NOW, []))  # the position closed
    assert book.aggregated == []


def test_each_poll_of_rfqs_or_quotes_is_kept_in_the_history_file(tmp_path: Path) -> None:
    path = tmp_path / "data" / "history.jsonl"
    book = DeskBook(me=ME, history_path=path)
    book.apply(TradesUpdated(NOW, []))
    assert not path.exists()  # the history opens with the first poll of RFQs or quotes
    book.apply(RfqsUpdated(NOW, "sent", [sent_rfq()]))
    assert book.history.entry(f"{EntryKind.RFQ_SENT.value}:{RFQ_ID}") is not None
    answer = quote(None).model_copy(update={"target_rfq_id": RFQ_ID})
    book.apply(QuotesUpdated(NOW + timedelta(seconds=3), "received", [answer]))
    received = book.history.entry(f"{EntryKind.QUOTE_RECEIVED.value}:{answer.parent_quote_id}")
    assert received is not None and received.outcome is Outcome.OPEN
    assert path.stat().st_mode & 0o777 == 0o600
    # Read back by the next desk: the history outlives the process.
    again = DeskBook(me=ME, history_path=path)
    assert {e.key for e in again.history.entries()} == {e.key for e in book.history.entries()}
    assert len(again.history.entries()) == 2


def test_without_a_path_the_history_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    book = DeskBook(me=ME)
    book.apply(RfqsUpdated(NOW, "sent", [sent_rfq()]))
    assert len(book.history.entries()) == 1  # kept in memory
    assert list(tmp_path.iterdir()) == []
