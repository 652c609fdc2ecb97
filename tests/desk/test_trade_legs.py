"""The book keeps the company's trades as light legs: the same values, a quarter the memory."""

from __future__ import annotations

import tracemalloc

from tests.desk.kit.fakes import NOW
from tests.desk.kit.venue import booked_trades
from tui.api.models import Trade
from tui.desk.book import DeskBook
from tui.desk.clearing import gross_notional
from tui.desk.messages import TradesUpdated
from tui.desk.trade_legs import TradeLegs


def test_a_leg_keeps_every_value_the_desk_reads() -> None:
    trade = Trade.model_validate(
        {
            **booked_trades(1)[0].model_dump(mode="json"),
            "source_rfq": None,  # the tolerant reader: null becomes ""
            "venue_note": "a field this desk does not know",
        }
    )
    leg = TradeLegs().leg(trade)
    for name in ("id", "created_at", "side", "price", "qty", "role", "status", "pool_location"):
        assert getattr(leg, name) == getattr(trade, name)
    assert leg.source_rfq == "" and leg.label == "BTC-PERP"
    again = leg.as_trade(trade.company)
    unread = {"source_rfq_leg_id", "venue_note"}  # what no pane, export or book reads
    assert again.model_dump() == trade.model_dump(exclude=unread) | {"source_rfq_leg_id": None}


def test_the_book_reuses_the_legs_of_trades_that_did_not_change() -> None:
    book = DeskBook()
    day = booked_trades(1000)
    book.apply(TradesUpdated(NOW, day))
    first = book.trade_legs
    changed = [*day[:-1], day[-1].model_copy(update={"status": "rejected_failed_risk_checks"})]
    book.apply(TradesUpdated(NOW, [*changed, *booked_trades(1, start=1000)]))
    legs = book.trade_legs
    assert len(legs) == 1001
    assert all(a is b for a, b in zip(legs[:999], first[:999], strict=True))
    assert legs[999] is not first[999] and legs[999].status == "rejected_failed_risk_checks"
    assert legs[1000].id == "t001000"
    assert [t.id for t in book.trades] == [leg.id for leg in legs]  # models on demand


def test_a_leg_weighs_far_less_than_its_model() -> None:
    day = booked_trades(2000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        legs = TradeLegs().legs(day)
        cost = tracemalloc.get_traced_memory()[0] - before
        models = booked_trades(2000)
        model_cost = tracemalloc.get_traced_memory()[0] - before - cost
    finally:
        tracemalloc.stop()
    assert len(legs) == len(models)
    assert cost * 5 < model_cost  # the leg keeps the model's strings and numbers, not its dicts


def test_the_gross_notional_reads_legs_as_it_reads_trades() -> None:
    """One rule for the notional (`gross_notional`), whether given models or light legs."""
    day = booked_trades(3)
    legs = TradeLegs().legs(day)
    assert gross_notional(legs) == gross_notional(day) == sum(abs(t.qty * t.price) for t in day)
