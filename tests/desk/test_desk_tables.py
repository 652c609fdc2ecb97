"""The blotter stays cheap at 10,000 trades (nothing redone for what did not change) and its
search keeps only the matching legs; the market table marks bid and ask and ticks only while
shown."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from tests.desk.kit.desk import make_desk
from tests.desk.kit.scenes import open_desk
from tests.desk.kit.venue import booked_trades
from tui.api.models import Company
from tui.desk.book import DeskBook
from tui.desk.themes import DESK_VARIABLES
from tui.desk.trade_legs import TradeLeg, TradeLegs
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common.record_index import Merged
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.market_stats import MarketStatsPane


def trades(count: int, start: int = 0) -> list[TradeLeg]:
    """The desk tests' day of trades, as the book holds them (light legs)."""
    return TradeLegs().legs(booked_trades(count, start))


class BlotterApp(App[None]):
    def __init__(self, book: DeskBook | None = None) -> None:
        super().__init__()
        self.book = book or DeskBook()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield Blotter(self.book, id="blotter")


async def test_ten_thousand_trades_merge_in_place() -> None:
    app = BlotterApp()
    async with app.run_test(size=(140, 45)) as pilot:
        blotter = app.query_one(Blotter)
        day = trades(10_000)
        assert blotter.show_trades(day) == Merged(added=10_000)
        await pilot.pause()
        table = blotter.query_one(VirtualTable)
        assert table.row_count == 10_000
        assert table.row_ids()[:2] == ["t009999", "t009998"]  # newest first

        # The same snapshot again: nothing added, changed or dropped.
        assert not blotter.show_trades(day) and table.row_count == 10_000

        # One new trade and one changed status: only those two are taken.
        assert table.move_cursor_to("t005000")
        changed = [*day, *trades(1, start=10_000)]
        changed[5000] = changed[5000].replaced(status="rejected_failed_risk_checks")
        assert blotter.show_trades(changed) == Merged(added=1, changed=1)
        await pilot.pause()
        assert table.row_count == 10_001 and table.row_ids()[:2] == ["t010000", "t009999"]
        assert dict(table.row_fields("t005000"))["Status"] == "rejected"
        assert table.cursor_id == "t005000"  # the cursor stayed on its trade


async def test_slash_searches_the_blotter_for_a_counterparty() -> None:
    book = DeskBook()
    now = datetime(2026, 1, 5, tzinfo=UTC)
    book.companies = {
        c: Company(id=c, created_at=now, legal_name=f"{name} Markets", short_name=name)
        for c, name in (("c2", "ALPHA"), ("c3", "BRAVO"))
    }
    day = trades(30)
    for i in range(0, 30, 3):  # every third leg is with BRAVO
        day[i] = day[i].replaced(counterparty="c3")
    app = BlotterApp(book)
    async with app.run_test(size=(140, 45)) as pilot:
        blotter = app.query_one(Blotter)
        blotter.show_trades(day)
        table = blotter.query_one(VirtualTable)
        table.focus()
        await pilot.pause()
        assert table.cursor_id == "t000029"
        count = blotter.query_one("#blotter-count", Static)
        assert str(count.render()).startswith("30 trade legs")

        await pilot.press("slash")
        search = blotter.query_one("#blotter-search", Input)
        assert search.display and search.has_focus
        await pilot.press(*"bravo")
        await pilot.pause()
        assert table.row_count == 10 and table.record_count == 30
        assert {table.record_at(row).counterparty for row in range(10)} == {"c3"}
        assert table.cursor_id in table.row_ids()  # the cursor is on a remaining leg
        assert str(count.render()).startswith("10 of 30 trade legs")

        await pilot.press("escape")  # clears and closes the search
        await pilot.pause()
        assert not search.display and search.value == ""
        assert table.row_count == 30 and table.has_focus
        assert str(count.render()).startswith("30 trade legs")


async def test_the_market_marks_bid_and_ask_and_ticks_only_while_shown(
    sandbox: Any, tmp_path: Any
) -> None:
    """Bid and ask share a cell, told apart by a letter, not by colour alone; the quote ages
    tick only while the Market tab is on screen."""
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await open_desk(app, pilot)
        await pilot.press("4")
        await pilot.pause()
        pane = app.query_one(MarketStatsPane)
        table = pane.table
        btc = dict(table.row_fields("BTC"))["1k bid/ask"]
        bid, ask = btc.split("\n")
        assert bid.startswith("b ") and ask.startswith("a ")
        assert Decimal(bid[2:].replace(",", "")) < Decimal(ask[2:].replace(",", ""))

        ticks: list[None] = []  # the 1 s timer ticks too: counted around each tick only
        table.refresh_live = lambda: ticks.append(None)  # type: ignore[method-assign]
        before = len(ticks)
        pane.tick()
        assert len(ticks) == before + 1
        await pilot.press("1")
        await pilot.pause()
        before = len(ticks)
        pane.tick()
        assert len(ticks) == before  # hidden: nothing looked at
        await pilot.press("4")
        await pilot.pause()
        before = len(ticks)
        pane.tick()
        assert len(ticks) == before + 1
