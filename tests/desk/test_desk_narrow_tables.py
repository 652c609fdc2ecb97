"""Any terminal: at 80 columns the tables show their most useful columns, without scrolling.

At 80x24 the inbox scrolled sideways and hid Expires, Status, Best bid and Best ask. Each
column has a drop priority: a narrow table leaves out the least useful (Time, Struct px, #Q
first, then the new mark, the RFQ id and Dir: Taker says "me" for my own) and keeps what a
trader acts on; the whole row stays a key away (``v``).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region

from tests.desk.kit.desk import make_desk
from tests.desk.kit.scenes import build_world, open_desk
from tui.desk.screens.record import RowScreen
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common.keyed_table import KeyedTable
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.market_stats import MarketStatsPane
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


def shown_labels(table: VirtualTable[Any]) -> list[str]:
    """The labels of the columns drawn within the table's width (no sideways scrolling)."""
    width = table.scrollable_content_region.width
    labels, right = [], 0
    for column in table.columns:
        drawn = table.column_width(column.key)
        right += drawn + 2 if drawn else 0
        if drawn and right <= width:
            labels.append(column.label)
    return labels


def fits(table: KeyedTable | VirtualTable[Any]) -> bool:
    """Whether every column drawn fits the table's width."""
    return table.virtual_size.width <= table.scrollable_content_region.width


@pytest.mark.parametrize("size", [(80, 24), (140, 45)])
async def test_the_inbox_shows_status_and_best_prices_without_scrolling(
    size: tuple[int, int], sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=size) as pilot:
        await build_world(sandbox)
        await open_desk(app, pilot)
        table = app.query_one(RfqInbox).table
        assert fits(table), (table.virtual_size.width, table.scrollable_content_region.width)
        labels = shown_labels(table)
        for label in ("Taker", "Structure", "Qty", "Expires", "Status", "Best bid", "Best ask"):
            assert label in labels
        if size[0] >= 140:
            assert {"Dir", "RFQ", "Time", "Struct px", "#Q"} <= set(labels)
        # What was left out is a key away.
        table.focus()
        await pilot.press("v")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RowScreen)
        assert {"Dir", "RFQ", "Time", "Struct px", "#Q"} <= dict(screen.fields).keys()


async def test_the_blotter_and_board_fit_80_columns(sandbox: Any, tmp_path: Any) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        inbox = app.query_one(RfqInbox)
        inbox.select("sent", world.board_rfq)
        await pilot.pause()
        board = app.query_one(QuoteBoard).table
        assert fits(board), (board.virtual_size.width, board.scrollable_content_region.width)
        await pilot.press("3")
        await pilot.pause()
        blotter = app.query_one(Blotter).query_one(VirtualTable)
        assert fits(blotter), (blotter.virtual_size.width, blotter.scrollable_content_region.width)


async def test_the_market_keeps_mark_funding_and_the_1k_quotes_at_80_columns(
    sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_desk(app, pilot)
        await pilot.press("4")
        await pilot.pause()
        market = app.query_one(MarketStatsPane).table
        assert fits(market), (market.virtual_size.width, market.scrollable_content_region.width)
        assert {"Ticker", "Mark", "Funding", "1k bid/ask", "Quoted"} <= set(shown_labels(market))
        assert dict(market.row_fields("BTC"))["Every"] == "1h"  # left out, still a key away


async def test_the_ticket_stays_on_screen_under_a_last_look_banner_at_80x24(
    sandbox: Any, tmp_path: Any
) -> None:
    """A two-line header and the last-look banner leave the Trade tab 15 rows: the inbox and
    the ticket share them; the ticket was pushed below the status bar."""
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        app.query_one(RfqInbox).select("received", world.fresh_rfq)
        await pilot.pause()
        assert app.book.needs_me(), "the last look banner is up"
        ticket = app.query_one(QuoteTicket)
        assert Region(0, 0, 80, 22).contains_region(ticket.region), ticket.region
        assert ticket.region.height >= 7
        assert app.query_one(RfqInbox).table.scrollable_content_region.height >= 4
