"""Any terminal: every pane usable at 80x24 (over SSH), the width of 200 columns used.

At 80x24 the inbox keeps a few rows and the tracker and the ticket take turns below it; at 200
columns the structure and instrument names are shown whole; clipped text ends in an ellipsis
and ``v`` shows the whole row.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.desk.kit.desk import make_desk
from tests.desk.kit.scenes import build_world, open_desk
from tui.desk.screens.record import RowScreen
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_inbox_keeps_a_few_rows_on_a_small_terminal(
    size: tuple[int, int], sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=size) as pilot:
        world = await build_world(sandbox)
        await open_desk(app, pilot)
        table = app.query_one(RfqInbox).table
        assert table.row_count >= 4
        assert table.scrollable_content_region.height >= 4, "a header and at least 3 rows"
        # Below it, the ticket of the selected RFQ has room; the tracker is one key away.
        app.query_one(RfqInbox).select("received", world.fresh_rfq)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        assert ticket.region.height >= 7 and ticket.region.width >= 60
        await pilot.press("t")
        await pilot.pause()
        tracker = app.query_one(TradeTracker)
        assert tracker.region.height >= 7 and tracker.region.width >= 60
        assert app.focused is tracker.options
        await pilot.press("escape")
        await pilot.pause()
        assert app.query_one(QuoteTicket).region.width >= 60


async def test_a_wide_terminal_shows_whole_names_and_v_shows_a_clipped_row(
    sandbox: Any, tmp_path: Any
) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await build_world(sandbox)
        await open_desk(app, pilot)
        inbox = app.query_one(RfqInbox).table
        assert inbox.column_width("structure") > 26
        await pilot.press("3")
        await pilot.pause()
        blotter = app.query_one(Blotter).query_one(VirtualTable)
        assert blotter.column_width("instrument") > 21

    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_desk(app, pilot)
        table = app.query_one(RfqInbox).table
        table.focus()
        key = table.cursor_id
        assert key is not None
        await pilot.press("v")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RowScreen)
        whole = dict(screen.fields)["Structure"]
        assert whole == str(table.cell_value(key, "structure"))
