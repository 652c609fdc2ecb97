"""The builder offers lists and still takes what is typed; names say call and put in full.

An option leg's expiry steps through the venue's standard expiries (Fridays at 08:00 UTC:
weeklies, the month's last Friday, the quarter's) and its strike through a grid around the
underlying's mark; what is typed off the lists is taken as typed, and refused under its leg
with a message naming what is wrong. A builder opened prefilled (the Positions tab's offset)
shows the legs, the quantity and only the counterparty ticked.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from textual.widgets import Input, Select, SelectionList, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tui.api.models import (
    Leg,
    PerpetualFutureInstrument,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.desk.app import DeskApp
from tui.desk.builder.calendar import (
    expiry_moment,
    last_friday,
    standard_expiries,
    strike_grid,
    strike_step,
)
from tui.desk.builder.draft import structure_draft
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen


async def open_builder(app: DeskApp, pilot: Any, **options: Any) -> NewRfqScreen:
    """The builder as the taker role opens it (`NewRfqScreen.from_book`)."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
    builder = NewRfqScreen.from_book(app.book, app.clock, app.export_dir.parent, **options)
    await app.push_screen(builder)
    await pilot.pause()
    return builder


def text_of(builder: NewRfqScreen, selector: str) -> str:
    return str(builder.query_one(selector, Static).render())


def test_the_calendar_is_fridays_at_eight_and_the_grid_steps_round() -> None:
    now = datetime.fromisoformat("2026-01-05T12:00:00+00:00")  # a Monday
    days = [(e.day.isoformat(), e.kinds) for e in standard_expiries(now)]
    assert days[:5] == [
        ("2026-01-09", ("weekly",)),
        ("2026-01-16", ("weekly",)),
        ("2026-01-23", ("weekly",)),
        ("2026-01-30", ("weekly", "monthly")),
        ("2026-02-27", ("monthly",)),
    ]
    assert ("2026-03-27", ("monthly", "quarterly")) in days
    assert ("2026-06-26", ("quarterly",)) in days
    assert all(expiry_moment(datetime.fromisoformat(d).date()).hour == 8 for d, _ in days)
    # On a Friday after 08:00 UTC that Friday is gone; before it, it is offered.
    friday_late = datetime.fromisoformat("2026-01-09T09:00:00+00:00")
    assert standard_expiries(friday_late)[0].day.isoformat() == "2026-01-16"
    friday_early = datetime.fromisoformat("2026-01-09T07:59:00+00:00")
    assert standard_expiries(friday_early)[0].day.isoformat() == "2026-01-09"
    assert last_friday(2026, 2).isoformat() == "2026-02-27"
    assert strike_step(Decimal("98500")) == 2000
    assert strike_step(Decimal("3450")) == 50
    assert strike_step(Decimal("0.184")) == Decimal("0.002")
    grid = strike_grid(Decimal("98500"), each_side=2)
    assert grid == [Decimal(k) for k in ("94000", "96000", "98000", "100000", "102000")]


async def test_expiry_and_strike_are_picked_from_the_lists_and_sent(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await open_builder(app, pilot)
        builder.query_one("#type-0", Select).value = "vanilla_option"
        await pilot.pause()
        expiries = standard_expiries(app.clock())

        builder.query_one("#expiry-0", Input).focus()
        await pilot.press("down")
        assert builder.query_one("#expiry-0", Input).value == expiries[0].day.isoformat()
        await pilot.press("down", "down", "down")
        picked_expiry = expiries[3].day.isoformat()
        assert builder.query_one("#expiry-0", Input).value == picked_expiry
        assert "monthly" in text_of(builder, "#choice-strip")

        assert app.book.stats is not None
        mark = next(x.mark_price for x in app.book.stats.listings if x.ticker == "BTC")
        step = strike_step(mark)
        at_the_money = (mark / step).to_integral_value() * step
        builder.query_one("#strike-0", Input).focus()
        await pilot.press("down")
        assert Decimal(builder.query_one("#strike-0", Input).value) == at_the_money
        await pilot.press("up")
        picked_strike = at_the_money - step
        assert Decimal(builder.query_one("#strike-0", Input).value) == picked_strike
        assert f"BTC mark {mark:,f}" in text_of(builder, "#choice-strip")

        builder.query_one("#payoff-0", Select).value = "put"
        builder.query_one("#side-0", Select).focus()
        await pilot.pause()
        words = text_of(builder, "#builder-words")
        assert f"buy 1 x BTC {picked_expiry} {picked_strike:f} put" in words

        targets = builder.query_one("#targets", SelectionList)
        targets.deselect_all()
        targets.select(sandbox.company_ids["ALPHA"])
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is not builder
        (rfq,) = app.book.rfqs_sent.values()
        (leg,) = rfq.structure.legs
        assert isinstance(leg.instrument, VanillaOptionInstrument)
        assert leg.instrument.expiry == expiry_moment(expiries[3].day)
        assert leg.instrument.strike == picked_strike
        assert str(leg.instrument.payoff) == "put"


async def test_free_entry_is_taken_as_typed_and_refused_with_its_reason(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await open_builder(app, pilot)
        builder.query_one("#type-0", Select).value = "vanilla_option"
        await pilot.pause()
        expiry = builder.query_one("#expiry-0", Input)
        strike = builder.query_one("#strike-0", Input)
        expiry.focus()
        await pilot.press(*"30/01/2026")
        strike.focus()
        await pilot.press(*"97,5x0")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is builder
        assert expiry.value == "30/01/2026" and strike.value == "97,5x0"
        error = builder.query_one("#err-leg-0", Static)
        assert error.display
        assert str(error.render()) == "strike: '97,5x0' is not a number"

        strike.value = "97,550"  # off the grid, typed: a strike the venue takes
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert str(builder.query_one("#err-leg-0", Static).render()) == "expiry: use YYYY-MM-DD"

        expiry.value = "2026-02-04"  # a Wednesday, off the calendar: taken as typed
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is not builder
        (rfq,) = app.book.rfqs_sent.values()
        instrument = rfq.structure.legs[0].instrument
        assert isinstance(instrument, VanillaOptionInstrument)
        assert instrument.strike == Decimal("97550")
        assert instrument.expiry.isoformat() == "2026-02-04T08:00:00+00:00"


async def test_a_prefilled_builder_shows_the_offsetting_structure(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        legs = [
            Leg(
                side=TradeSide.SELL,
                ratio=1,
                instrument=VanillaOptionInstrument(
                    underlying="ETH",
                    expiry=datetime.fromisoformat("2026-01-30T08:00:00+00:00"),
                    strike=Decimal("3500"),
                    payoff="call",
                ),
            ),
            Leg(
                side=TradeSide.BUY, ratio=2, instrument=PerpetualFutureInstrument(underlying="ETH")
            ),
        ]
        cblt = sandbox.company_ids["CBLT"]
        prefill = structure_draft(legs, Decimal("1.5"), [cblt])
        builder = await open_builder(app, pilot, prefill=prefill)
        assert builder.leg_count == 2
        assert builder.query_one("#type-0", Select).value == "vanilla_option"
        assert builder.query_one("#side-0", Select).value == "sell"
        assert builder.query_one("#underlying-0", Select).value == "ETH"
        assert builder.query_one("#strike-0", Input).value == "3500"
        assert builder.query_one("#expiry-0", Input).value == "2026-01-30"
        assert builder.query_one("#payoff-0", Select).value == "call"
        assert builder.query_one("#ratio-1", Input).value == "2"
        assert builder.query_one("#qty", Input).value == "1.5"
        assert list(builder.query_one("#targets", SelectionList).selected) == [cblt]
        words = text_of(builder, "#builder-words")
        assert "sell 1 x ETH 2026-01-30 3500 call" in words
        assert "buy 2 x ETH perpetual" in words
