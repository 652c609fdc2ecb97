"""Building fast: templates kept across a restart, the last RFQ again, and the delta hedge.

A template saved in the builder is in one file of the desk's data folder (mode 0600) and fills
a builder of the next session; ctrl+r fills the builder with the last RFQ the venue took, and
sending it again within the guardrails' window asks a second ctrl+s first. ctrl+y adds the
perpetual that flattens the structure's delta: sold against a long call, with the size of the
call's Black-Scholes delta times the quantity.
"""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList, Select, SelectionList, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tui.desk.analytics.black_scholes import option_value, years_between
from tui.desk.app import DeskApp
from tui.desk.builder.draft import LegDraft
from tui.desk.builder.hedge import HEDGE_TOLERANCE, HedgeProblem, hedge_structure
from tui.desk.builder.market import BuilderMarket
from tui.desk.builder.templates import TEMPLATES_FILE
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen


async def open_builder(app: DeskApp, pilot: Any, **options: Any) -> NewRfqScreen:
    await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS, Topic.RFQS_SENT)
    builder = NewRfqScreen.from_book(app.book, app.clock, app.export_dir.parent, **options)
    await app.push_screen(builder)
    await pilot.pause()
    return builder


async def build_calendar_spread(builder: NewRfqScreen, pilot: Any) -> None:
    """Buy the BTC perpetual, sell the 2026-03-27 future, qty 2."""
    await pilot.press("ctrl+a")
    await pilot.pause()
    builder.query_one("#type-1", Select).value = "dated_future"
    builder.query_one("#side-1", Select).value = "sell"
    await pilot.pause()
    builder.query_one("#expiry-1", Input).value = "2026-03-27"
    builder.query_one("#qty", Input).value = "2"
    await pilot.pause()


def leg_fields(builder: NewRfqScreen) -> list[dict[str, str]]:
    return [row.values() for row in builder.leg_rows()]


async def test_a_template_is_saved_and_recalled_after_a_restart(
    sandbox: Any, desk: DeskFactory, tmp_path: Path
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await open_builder(app, pilot)
        await build_calendar_spread(builder, pilot)
        saved = leg_fields(builder)
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("enter")  # no name yet: refused under the field
        await pilot.pause()
        assert str(app.screen.query_one("#err-template-name", Static).render()) == (
            "name the template"
        )
        await pilot.press(*"BTC calendar", "enter")
        await pilot.pause()
        assert app.screen is builder
        assert "saved as template 'BTC calendar'" in str(
            builder.query_one("#builder-note", Static).render()
        )
    path = tmp_path / TEMPLATES_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    again = desk()  # a new session on the same data folder
    async with again.run_test(size=SIZE) as pilot:
        builder = await open_builder(again, pilot)
        assert builder.leg_count == 1
        await pilot.press("ctrl+o")
        await pilot.pause()
        options = again.screen.query_one("#template-list", OptionList)
        assert options.option_count == 1
        await pilot.press("enter")
        await pilot.pause()
        assert again.screen is builder
        assert builder.leg_count == 2
        assert leg_fields(builder) == saved
        assert builder.query_one("#qty", Input).value == "2"


async def test_the_last_rfq_comes_back_with_one_key_and_a_duplicate_asks_again(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await open_builder(app, pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert "no RFQ sent from this desk yet" in str(
            builder.query_one("#builder-note", Static).render()
        )
        await build_calendar_spread(builder, pilot)
        targets = builder.query_one("#targets", SelectionList)
        targets.deselect_all()
        targets.select(sandbox.company_ids["BORE"])
        sent_legs = leg_fields(builder)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is not builder and len(app.book.rfqs_sent) == 1

        builder = await open_builder(app, pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert leg_fields(builder) == sent_legs
        assert builder.query_one("#qty", Input).value == "2"
        assert list(builder.query_one("#targets", SelectionList).selected) == [
            sandbox.company_ids["BORE"]
        ]
        # The same structure at once: a second ctrl+s is asked for, saying why.
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is builder and len(app.book.rfqs_sent) == 1
        warning = str(builder.query_one("#err-form", Static).render())
        assert "the same structure was asked 0 s ago" in warning
        assert "ctrl+s again sends it anyway" in warning
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is not builder
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert len(app.book.rfqs_sent) == 2


NOW = datetime(2026, 1, 5, 12, tzinfo=UTC)
MARKET = BuilderMarket({"BTC": Decimal("100000")}, {"BTC": Decimal("0.5")})
CALL = LegDraft(
    type="vanilla_option",
    underlying="BTC",
    side="buy",
    ratio="1",
    expiry="2026-01-30",
    strike="100000",
    payoff="call",
)


def call_delta() -> Decimal:
    years = years_between(NOW, datetime(2026, 1, 30, 8, tzinfo=UTC))
    return option_value("call", Decimal(100000), Decimal(100000), years, Decimal("0.5")).delta


def test_a_hedge_sells_the_delta_of_a_long_call_and_buys_that_of_a_long_put() -> None:
    delta = call_delta()
    assert Decimal("0.5") < delta < Decimal("0.6")
    hedge = hedge_structure([CALL], "3", MARKET, NOW)
    assert hedge.delta == delta
    option, perp = hedge.legs
    assert (perp.type, perp.underlying, perp.side) == ("perpetual_future", "BTC", "sell")
    assert Decimal(option.ratio) * hedge.qty == 3  # the same call position
    assert abs(hedge.hedged_units - delta * 3) <= HEDGE_TOLERANCE * 3
    put = LegDraft(**{**CALL.fields(), "payoff": "put"})
    assert hedge_structure([put], "1", MARKET, NOW).hedge.side == "buy"
    sold = LegDraft(**{**CALL.fields(), "side": "sell"})
    assert hedge_structure([sold], "1", MARKET, NOW).hedge.side == "buy"
    with pytest.raises(HedgeProblem, match="one perpetual hedges one underlying"):
        hedge_structure([CALL, LegDraft(underlying="ETH")], "1", MARKET, NOW)
    with pytest.raises(HedgeProblem, match="flat already"):
        hedge_structure(
            [LegDraft(underlying="BTC"), LegDraft(underlying="BTC", side="sell")], "1", MARKET, NOW
        )


async def test_ctrl_y_adds_the_hedge_leg_of_a_known_call(sandbox: Any, desk: DeskFactory) -> None:
    app = desk(clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS)
        builder = NewRfqScreen(
            app.book.counterparties(), ["BTC", "ETH"], lambda: NOW, market=MARKET
        )
        await app.push_screen(builder)
        await pilot.pause()
        builder.query_one("#type-0", Select).value = "vanilla_option"
        await pilot.pause()
        builder.query_one("#expiry-0", Input).value = "2026-01-30"
        builder.query_one("#strike-0", Input).value = "100000"
        builder.query_one("#qty", Input).value = "2"
        await pilot.press("ctrl+y")
        await pilot.pause()
        rows = leg_fields(builder)
        assert len(rows) == 2
        option, perp = rows
        assert (perp["type"], perp["underlying"], perp["side"]) == (
            "perpetual_future",
            "BTC",
            "sell",
        )
        qty = Decimal(builder.query_one("#qty", Input).value)
        assert Decimal(option["ratio"]) * qty == 2
        assert abs(Decimal(perp["ratio"]) * qty - call_delta() * 2) <= HEDGE_TOLERANCE * 2
        note = str(builder.query_one("#builder-note", Static).render())
        assert "hedge: sell" in note and "BTC perpetual" in note and "mark vol 50.0%" in note
        # Again: the hedge is sized again, not stacked on itself.
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert leg_fields(builder) == rows
